//! The files the OpenShell backend uploads, rendered from a [`SandboxPolicy`]: the policy YAML
//! (filesystem, Landlock, network rules) and the environment file the command wrapper sources.
//!
//! Environment values never go onto an `openshell` argv (`--env K=V` is visible in `ps`): they
//! are written to the environment file, uploaded to [`super::openshell::ENV_FILE_INSIDE`]. This
//! module runs nothing itself.

use indexmap::IndexMap;
use serde_json::json;
use std::path::{Path, PathBuf};

use super::SandboxError;
use super::openshell::input_inside;
use super::policy::{NetworkPolicy, SandboxPolicy};

/// The environment file: `KEY='value'` lines with shell single-quote escaping.
pub(crate) fn env_file(vars: &IndexMap<String, String>) -> Result<String, SandboxError> {
    let mut out = String::from("# written by ghostlab; sourced by the command wrapper\n");
    for (k, v) in vars {
        if k.is_empty()
            || !k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            || k.as_bytes()[0].is_ascii_digit()
        {
            return Err(SandboxError::Policy(format!(
                "`{k}` is not a valid environment variable name"
            )));
        }
        out.push_str(&format!("{k}='{}'\n", v.replace('\'', "'\\''")));
    }
    Ok(out)
}

/// Renders the policy as OpenShell policy YAML (`version: 1`).
pub(crate) fn render_policy(policy: &SandboxPolicy) -> Result<String, SandboxError> {
    let paths = |v: &[PathBuf]| v.iter().map(|p| p.to_string_lossy().into_owned()).collect::<Vec<_>>();
    if policy.read_write.iter().any(|p| p == Path::new("/")) {
        return Err(SandboxError::Policy("read_write must not contain /".into()));
    }
    let mut read_only = paths(&policy.read_only);
    read_only.extend(policy.staged.iter().map(|p| input_inside(p)));
    let mut read_write = paths(&policy.read_write);
    read_write.push(policy.workdir.clone());
    read_write.push("/tmp".into());
    let mut doc = json!({
        "version": 1,
        "filesystem_policy": {
            "include_workdir": true,
            "read_only": read_only,
            "read_write": read_write,
        },
        "landlock": { "compatibility": "hard_requirement" },
    });
    match &policy.network {
        NetworkPolicy::Disabled => {}
        NetworkPolicy::Allowlist(list) => {
            let mut np = serde_json::Map::new();
            for hp in list {
                let key = format!("ghostlab_{}_{}", hp.host.replace(['.', ':', '-'], "_"), hp.port);
                np.insert(
                    key.clone(),
                    json!({
                        "name": key,
                        "endpoints": [{ "host": hp.host, "port": hp.port, "protocol": "tcp", "enforcement": "enforce" }],
                        "binaries": [{ "path": "/**" }],
                    }),
                );
            }
            doc["network_policies"] = serde_json::Value::Object(np);
        }
        NetworkPolicy::OpenShellPolicy(file) => {
            return Err(SandboxError::Policy(format!(
                "network: policy uses {} as the whole OpenShell policy; it is passed as is, not rendered",
                file.display()
            )));
        }
    }
    yaml_serde::to_string(&doc).map_err(|e| SandboxError::Policy(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::policy::HostPort;
    use crate::spec::SandboxBackend;

    #[test]
    fn policy_yaml_has_the_documented_shape() {
        let mut p = SandboxPolicy::minimal(SandboxBackend::Openshell);
        p.read_only.push(PathBuf::from("/srv/job/AGENTS.md"));
        p.network = NetworkPolicy::Allowlist(vec![HostPort::parse("api.example.com:443").unwrap()]);
        let y = render_policy(&p).unwrap();
        let v: yaml_serde::Value = yaml_serde::from_str(&y).unwrap();
        assert_eq!(v["version"].as_u64(), Some(1));
        assert_eq!(v["filesystem_policy"]["include_workdir"].as_bool(), Some(true));
        assert_eq!(
            v["filesystem_policy"]["read_only"][0].as_str(),
            Some("/srv/job/AGENTS.md")
        );
        assert_eq!(v["landlock"]["compatibility"].as_str(), Some("hard_requirement"));
        let np = &v["network_policies"]["ghostlab_api_example_com_443"];
        assert_eq!(np["endpoints"][0]["host"].as_str(), Some("api.example.com"));
        assert_eq!(np["endpoints"][0]["port"].as_u64(), Some(443));
        assert_eq!(np["endpoints"][0]["enforcement"].as_str(), Some("enforce"));
        assert!(!y.contains("read_write:\n- /\n"));
        p.network = NetworkPolicy::Disabled;
        assert!(!render_policy(&p).unwrap().contains("network_policies"));
    }

    #[test]
    fn env_file_quotes_values_and_refuses_bad_names() {
        let mut vars = IndexMap::new();
        vars.insert("K".to_string(), "a'b $c".to_string());
        assert!(env_file(&vars).unwrap().contains("K='a'\\''b $c'\n"));
        vars.insert("BAD NAME".to_string(), "x".to_string());
        assert!(env_file(&vars).is_err());
    }
}
