//! The OpenShell side of a session: creating the remote sandbox (policy file, workspace
//! upload, env file) and running the `openshell` CLI with a bound.
//!
//! Environment values reach OpenShell only through a 0600 env file that is uploaded and then
//! deleted on the host; never through an argv.

use std::path::Path;
use std::time::Duration;

use super::super::exec::{self, ExecOutput};
use super::super::openshell;
use super::super::openshell_policy;
use super::super::policy::NetworkPolicy;
use super::{ExecOptions, SandboxError, Session};

/// Variables Ghostlab sets per command whose values are ids, not secrets, though their names
/// look secret-shaped (`…SESSION…`): the process host's `AGENT_SESSION_ID` is the case id.
const HARNESS_IDS: &[&str] = &["AGENT_SESSION_ID"];

/// Why a per-command variable may not travel as an `--env` argument, if it may not: one the
/// session holds with another value, a secret-named one (the harness's own ids aside), or any
/// whose value the redactor masks — a registered secret or a token shape under an innocent
/// name.
fn argv_env_refusal(name: &str, value: &str, held: bool) -> Option<String> {
    let secret_named = crate::util::secret_ref::is_secret_name(name) && !HARNESS_IDS.contains(&name);
    let secret_valued = matches!(crate::redact::Redactor::new().redact(value), std::borrow::Cow::Owned(_));
    (held || secret_named || secret_valued).then(|| {
        format!(
            "`{name}` holds a credential; on the openshell backend credentials reach commands only through the \
             session's env file (sandbox.credentials.env), never an `--env` argument"
        )
    })
}

impl Session {
    pub(super) fn openshell(&self) -> Result<&Path, SandboxError> {
        self.openshell_bin
            .as_deref()
            .ok_or_else(|| SandboxError::Unavailable("openshell: the `openshell` CLI was not found".into()))
    }

    /// The host argvs that start and stop a forward of the sandbox's loopback port `{port}`
    /// (warm mode's server); `None` off OpenShell.
    pub(crate) fn forward_argvs(&self) -> Option<(Vec<String>, Vec<String>)> {
        let bin = self.openshell().ok()?.to_string_lossy().into_owned();
        let with_bin = |args: Vec<String>| std::iter::once(bin.clone()).chain(args).collect::<Vec<_>>();
        Some((
            with_bin(openshell::forward_start_args(&self.id, "{port}")),
            with_bin(openshell::forward_stop_args(&self.id, "{port}")),
        ))
    }

    pub(super) async fn run_openshell(&self, args: &[String]) -> Result<ExecOutput, SandboxError> {
        let mut cmd = tokio::process::Command::new(self.openshell()?);
        cmd.args(args);
        self.log.note(&format!("openshell {}", shell_words::join(args)));
        let out = exec::run(cmd, None, Duration::from_secs(300)).await?;
        if out.status != 0 {
            return Err(SandboxError::Backend(format!(
                "openshell {} failed ({}): {}",
                // `sandbox create`, `logs`: the subcommand, never its values.
                args.iter()
                    .take(if args.first().is_some_and(|a| a == "sandbox") {
                        2
                    } else {
                        1
                    })
                    .map(String::as_str)
                    .collect::<Vec<_>>()
                    .join(" "),
                out.status,
                out.stderr_text().trim()
            )));
        }
        Ok(out)
    }

    /// `openshell sandbox exec …` for `argv`. Per-command values go on the argv as `--env`,
    /// so a secret never may: a variable the session already holds (credentials, allowlisted
    /// variables, all in the uploaded env file) is dropped when its value is the same, and
    /// any other secret-named or differing credential is refused.
    pub(super) fn openshell_command(
        &self,
        argv: &[String],
        workdir: &str,
        opts: &ExecOptions,
    ) -> Result<tokio::process::Command, SandboxError> {
        let session_env = self.child_env(&ExecOptions::default(), true, self.proxy.is_some());
        let mut per_command = indexmap::IndexMap::new();
        for (k, v) in &opts.env {
            let held = self.policy.env_values.contains_key(k) || self.policy.env_allowlist.contains(k);
            if held && session_env.get(k) == Some(v) {
                continue;
            }
            if let Some(why) = argv_env_refusal(k, v, held) {
                return Err(SandboxError::Policy(why));
            }
            per_command.insert(k.clone(), v.clone());
        }
        let mut cmd = tokio::process::Command::new(self.openshell()?);
        cmd.args(openshell::exec_args(
            &self.id,
            workdir,
            opts.timeout,
            &per_command,
            argv,
        ));
        Ok(cmd)
    }

    pub(super) async fn openshell_create(&mut self) -> Result<(), SandboxError> {
        let policy_file = self.layout.dir.join("policy.yaml");
        let text = match &self.policy.network {
            NetworkPolicy::OpenShellPolicy(f) => {
                crate::util::bounded::read_bounded_string(f, crate::util::bounded::FileKind::Config).map_err(|e| {
                    SandboxError::Io(format!("reading {}", f.display()), std::io::Error::other(e.reason()))
                })?
            }
            _ => openshell_policy::render_policy(&self.policy)?,
        };
        crate::util::write_atomic(&policy_file, text.as_bytes())
            .map_err(|e| SandboxError::Io("writing policy.yaml".into(), e))?;
        let ws = self.policy.workspace.as_ref().map(|_| self.layout.workspace.clone());
        let args = openshell::create_args(&self.id, &self.policy, &policy_file, ws.as_deref());
        self.run_openshell(&args).await?;
        // Values travel in a 0600 file, never on the argv; the host copy is removed at once.
        let env = self.child_env(&ExecOptions::default(), true, self.proxy.is_some());
        let env_text = openshell_policy::env_file(&env)?;
        let env_host = self.layout.dir.join("env");
        write_private(&env_host, env_text.as_bytes())?;
        let up = self
            .run_openshell(&openshell::upload_args(&self.id, &env_host, openshell::ENV_FILE_INSIDE))
            .await;
        let _ = std::fs::remove_file(&env_host);
        up?;
        // The job's own inputs, at the paths the emitted config names (see `input_inside`).
        for (copy, real) in self.layout.staged.clone() {
            self.run_openshell(&openshell::upload_args(
                &self.id,
                &copy,
                &openshell::input_inside(&real),
            ))
            .await?;
        }
        for (src, dest) in self.policy.uploads.clone() {
            self.run_openshell(&openshell::upload_args(&self.id, &src, &dest))
                .await?;
        }
        Ok(())
    }
}

fn write_private(path: &Path, bytes: &[u8]) -> Result<(), SandboxError> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .map_err(|e| SandboxError::Io("writing the env file".into(), e))?;
    f.write_all(bytes)
        .map_err(|e| SandboxError::Io("writing the env file".into(), e))
}

#[cfg(test)]
mod tests {
    use super::argv_env_refusal;

    #[test]
    fn secrets_by_name_by_value_or_held_never_go_on_the_argv() {
        assert!(argv_env_refusal("AGENT_SESSION_ID", "case-7", false).is_none());
        assert!(argv_env_refusal("LANG", "C.UTF-8", false).is_none());
        assert!(argv_env_refusal("GITHUB_TOKEN", "x", false).is_some());
        assert!(
            argv_env_refusal("LANG", "C.UTF-8", true).is_some(),
            "held by the session"
        );
        // A token shape under an innocent name, and a registered secret under the harness id.
        assert!(argv_env_refusal("NOTES", "ghp_abcdefghijklmnopqrstuvwxyz", false).is_some());
        crate::redact::register_secret("argv-registered-secret-81");
        assert!(argv_env_refusal("AGENT_SESSION_ID", "argv-registered-secret-81", false).is_some());
    }
}
