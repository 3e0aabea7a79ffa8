//! Building a [`SandboxPolicy`] from a loaded `job.yaml`: each `sandbox:` key checked and turned
//! into its part of the policy, one step per concept (workdir, limits, network, credentials,
//! uploads, inputs). A bad value is refused with the file and the key it came from.

use indexmap::IndexMap;
use std::path::{Path, PathBuf};

use super::SandboxError;
use super::policy::{HostPort, Limits, NetworkPolicy, SandboxPolicy, declared_remote_hosts};
use crate::spec::sandbox::SandboxSpec;
use crate::spec::{LoadedJob, NetworkMode};
use crate::util::units::{parse_bytes, parse_duration};

impl SandboxPolicy {
    /// Builds the policy for a loaded job: inputs read-only, the job folder masked, the
    /// workspace copied, credentials' values read from this process's environment.
    pub fn from_job(job: &LoadedJob) -> Result<Self, SandboxError> {
        let spec = &job.job.sandbox;
        let keys = SpecKeys { file: &job.file };
        // The refusals in the order a user meets them: the cheap key checks first, the
        // folder walk of the inputs last.
        check_workdir(&spec.workdir, &keys)?;
        let limits = limits_of(spec, &keys)?;
        let network = network_of(job, &keys)?;
        let env_values = credential_values(&spec.credentials.env, &keys)?;
        let uploads = uploads_of(job);
        let masked = mask_candidates(&job.dir);
        let inputs = Inputs::of(job, &masked)?;
        Ok(SandboxPolicy {
            backend: spec.backend,
            root_filesystem: spec.root_filesystem,
            image: spec.image.clone(),
            read_only: inputs.read_only,
            staged: inputs.staged,
            implied: inputs.implied,
            declared: job.input_paths(),
            read_write: Vec::new(),
            masked,
            workspace: job.workspace(),
            workspace_exclude: job.own_paths(),
            workdir: spec.workdir.clone(),
            network,
            env_allowlist: spec.env_allowlist.clone(),
            env_values,
            limits,
            keep: spec.keep,
            providers: spec.providers.clone(),
            uploads,
        })
    }
}

/// Names the job file in every refusal: `<job.yaml>: sandbox.<key>: <why>`.
struct SpecKeys<'a> {
    file: &'a Path,
}

impl SpecKeys<'_> {
    fn refuse(&self, key: &str, why: String) -> SandboxError {
        SandboxError::Policy(format!("{}: sandbox.{key}: {why}", self.file.display()))
    }
}

/// The workdir is where the workspace copy is mounted: an absolute path strictly below `/`.
fn check_workdir(workdir: &str, keys: &SpecKeys) -> Result<(), SandboxError> {
    if !workdir.starts_with('/') || workdir.contains("..") || workdir == "/" {
        return Err(keys.refuse("workdir", format!("`{workdir}` must be an absolute path below /")));
    }
    Ok(())
}

/// The defaults, overridden by what `sandbox:` sets.
fn limits_of(spec: &SandboxSpec, keys: &SpecKeys) -> Result<Limits, SandboxError> {
    let mut limits = Limits::default();
    if let Some(t) = &spec.timeout {
        limits.wall_timeout =
            parse_duration(t).ok_or_else(|| keys.refuse("timeout", format!("`{t}` is not a duration")))?;
    }
    if let Some(m) = &spec.memory {
        limits.memory_bytes =
            Some(parse_bytes(m).ok_or_else(|| keys.refuse("memory", format!("`{m}` is not a size")))?);
    }
    if let Some(f) = &spec.file_size {
        limits.file_size_bytes =
            Some(parse_bytes(f).ok_or_else(|| keys.refuse("file_size", format!("`{f}` is not a size")))?);
    }
    if let Some(p) = spec.processes {
        limits.processes = Some(p);
    }
    // CPU time budget: one command may use `cpu` cores for its whole wall-clock limit.
    if let Some(cores) = spec.cpu {
        limits.cpu_seconds = Some(limits.wall_timeout.as_secs().max(1) * u64::from(cores.max(1)));
    }
    Ok(limits)
}

/// The network the job's mode allows. Declared remote MCP servers stay reachable in every mode
/// that the harness enforces: under `disabled` they are the only hosts the deny-all opens
/// (seed 001 §4).
fn network_of(job: &LoadedJob, keys: &SpecKeys) -> Result<NetworkPolicy, SandboxError> {
    let spec = &job.job.sandbox;
    let remote_mcp = declared_remote_hosts(job);
    Ok(match spec.network {
        NetworkMode::Disabled if remote_mcp.is_empty() => NetworkPolicy::Disabled,
        NetworkMode::Disabled => NetworkPolicy::Allowlist(remote_mcp),
        NetworkMode::Allowlist => {
            let mut list = Vec::new();
            for (i, entry) in spec.allow.iter().enumerate() {
                let hp = HostPort::parse(entry)
                    .ok_or_else(|| keys.refuse(&format!("allow[{i}]"), format!("`{entry}` is not host:port")))?;
                list.push(hp);
            }
            list.extend(remote_mcp);
            let mut seen = std::collections::HashSet::new();
            list.retain(|h| seen.insert(h.clone()));
            NetworkPolicy::Allowlist(list)
        }
        NetworkMode::Policy => {
            let file = spec
                .policy
                .as_deref()
                .ok_or_else(|| keys.refuse("policy", "network: policy needs a policy file".to_string()))?;
            NetworkPolicy::OpenShellPolicy(job.resolve(file))
        }
    })
}

/// The values of `credentials.env`, read from this process's environment. A missing credential
/// is an error: running without it would test something else.
fn credential_values(names: &[String], keys: &SpecKeys) -> Result<IndexMap<String, String>, SandboxError> {
    let mut values = IndexMap::new();
    for name in names {
        let value = std::env::var(name).map_err(|_| {
            keys.refuse(
                "credentials.env",
                format!("variable `{name}` is not set in this environment"),
            )
        })?;
        values.insert(name.clone(), value);
    }
    Ok(values)
}

/// `sandbox.uploads` as (host source, path inside); without `dest`, `/sandbox/uploads/<name>`.
fn uploads_of(job: &LoadedJob) -> Vec<(PathBuf, String)> {
    job.job
        .sandbox
        .uploads
        .iter()
        .map(|u| {
            let src = job.resolve(&u.src);
            let name = src
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let dest = u.dest.clone().unwrap_or_else(|| format!("/sandbox/uploads/{name}"));
            (src, dest)
        })
        .collect()
}

/// The job's inputs, split by how the session shows them (see the fields of [`SandboxPolicy`]).
struct Inputs {
    read_only: Vec<PathBuf>,
    staged: Vec<PathBuf>,
    implied: Vec<PathBuf>,
}

impl Inputs {
    fn of(job: &LoadedJob, masked: &[PathBuf]) -> Result<Inputs, SandboxError> {
        let mut read_only = job.input_paths();
        // What an MCP server's command implies (its script's folder, its package folder):
        // refused when it holds credentials, and copied without dotfiles or private files.
        let implied = super::mcp_staging::implied_folders(job, masked)?;
        read_only.extend(implied.iter().cloned());
        let (staged, read_only) = super::inputs::partition(read_only);
        Ok(Inputs {
            read_only,
            staged,
            implied,
        })
    }
}

/// The job's folder is the user's checkout: hide it unless it is a system folder whose
/// masking would break the sandbox itself.
fn mask_candidates(dir: &Path) -> Vec<PathBuf> {
    const SYSTEM: &[&str] = &[
        "/", "/usr", "/bin", "/lib", "/lib64", "/etc", "/sbin", "/opt", "/proc", "/dev", "/sys",
    ];
    let canonical = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    if SYSTEM
        .iter()
        .any(|s| canonical == Path::new(s) || Path::new(s).starts_with(&canonical))
    {
        return Vec::new();
    }
    vec![canonical]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_folders_are_never_masked() {
        assert!(mask_candidates(Path::new("/")).is_empty());
        assert!(mask_candidates(Path::new("/usr")).is_empty());
        assert_eq!(
            mask_candidates(Path::new("/srv/checkout")),
            vec![PathBuf::from("/srv/checkout")]
        );
    }

    #[test]
    fn a_workdir_outside_or_at_the_root_is_refused_naming_file_and_key() {
        let keys = SpecKeys {
            file: Path::new("/srv/job/job.yaml"),
        };
        for bad in ["relative", "/", "/sandbox/../etc", ""] {
            let e = check_workdir(bad, &keys).unwrap_err().to_string();
            assert!(e.contains("/srv/job/job.yaml: sandbox.workdir:"), "{bad}: {e}");
        }
        assert!(check_workdir("/sandbox/workspace", &keys).is_ok());
    }

    #[test]
    fn credentials_missing_from_the_environment_are_refused_by_name() {
        let keys = SpecKeys {
            file: Path::new("job.yaml"),
        };
        let name = "GHOSTLAB_POLICY_JOB_TEST_SURELY_UNSET_VAR".to_string();
        let e = credential_values(&[name], &keys).unwrap_err().to_string();
        assert!(e.contains("sandbox.credentials.env"), "{e}");
        assert!(e.contains("GHOSTLAB_POLICY_JOB_TEST_SURELY_UNSET_VAR"), "{e}");
        assert!(credential_values(&[], &keys).unwrap().is_empty());
    }

    #[test]
    fn limits_take_the_spec_values_and_cpu_scales_the_wall_clock() {
        let keys = SpecKeys {
            file: Path::new("job.yaml"),
        };
        let spec = SandboxSpec {
            timeout: Some("90s".into()),
            memory: Some("512MiB".into()),
            cpu: Some(2),
            ..SandboxSpec::default()
        };
        let l = limits_of(&spec, &keys).unwrap();
        assert_eq!(l.wall_timeout, std::time::Duration::from_secs(90));
        assert_eq!(l.memory_bytes, Some(512 << 20));
        assert_eq!(l.cpu_seconds, Some(180));
        assert_eq!(limits_of(&SandboxSpec::default(), &keys).unwrap(), Limits::default());
        let bad = SandboxSpec {
            file_size: Some("lots".into()),
            ..SandboxSpec::default()
        };
        let e = limits_of(&bad, &keys).unwrap_err().to_string();
        assert!(e.contains("job.yaml: sandbox.file_size: `lots` is not a size"), "{e}");
    }

    #[test]
    fn of_several_faults_the_cheap_key_checks_come_first_in_their_order() {
        let dir = tempfile::tempdir().unwrap();
        let job = |sandbox: serde_json::Value| LoadedJob {
            job: serde_json::from_value(serde_json::json!({
                "version": 1, "agent": {"id": "a"}, "sandbox": sandbox,
            }))
            .unwrap(),
            file: dir.path().join("job.yaml"),
            dir: dir.path().to_path_buf(),
            mcps: Vec::new(),
        };
        let unset = "GHOSTLAB_POLICY_JOB_TEST_SURELY_UNSET_VAR";
        let refused = |sandbox| SandboxPolicy::from_job(&job(sandbox)).unwrap_err().to_string();
        // Each fault added in front of the others is the one named.
        let all = serde_json::json!({
            "timeout": "soon", "network": "allowlist", "allow": ["no port"],
            "credentials": {"env": [unset]},
        });
        assert!(refused(all).contains("sandbox.timeout"));
        let no_timeout = serde_json::json!({
            "network": "allowlist", "allow": ["no port"], "credentials": {"env": [unset]},
        });
        assert!(refused(no_timeout).contains("sandbox.allow[0]"));
        let only_credential = serde_json::json!({"credentials": {"env": [unset]}});
        assert!(refused(only_credential).contains("sandbox.credentials.env"));
    }
}
