//! The OpenShell backend's command lines: what Ghostlab passes to the pinned `openshell` CLI
//! and how it reads its status output. The files it uploads (policy YAML, environment file)
//! are rendered by `super::openshell_policy`.
//!
//! Environment values never go onto an `openshell` argv (`--env K=V` is visible in `ps`):
//! they are written to a 0600 file, uploaded to [`ENV_FILE_INSIDE`] and sourced by a small
//! `sh` wrapper in front of every command. This module runs nothing itself.

use indexmap::IndexMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::policy::SandboxPolicy;

/// The OpenShell CLI version this backend's command lines were written against.
pub(crate) const PINNED_VERSION: &str = "0.0.111";
/// The default `--from` image when job.yaml names none.
pub(crate) const DEFAULT_IMAGE: &str = "base";
/// Where the environment file lives inside the sandbox.
pub(crate) const ENV_FILE_INSIDE: &str = "/sandbox/.ghostlab/env";
/// Where staged inputs (instructions, skills, assets, MCP server files) live inside: a host
/// input `/srv/job/AGENTS.md` is uploaded to `/sandbox/inputs/srv/job/AGENTS.md`.
pub(crate) const INPUTS_INSIDE: &str = "/sandbox/inputs";
/// Overrides the `openshell` program (tests use the fake one).
pub(crate) const BIN_ENV: &str = "GHOSTLAB_OPENSHELL_BIN";

/// Finds the CLI: `$GHOSTLAB_OPENSHELL_BIN`, else `openshell` on PATH.
pub(crate) fn locate() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(BIN_ENV) {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("openshell"))
        .find(|p| p.is_file())
}

/// `openshell status`.
pub(crate) fn status_args() -> Vec<String> {
    vec!["status".into()]
}

/// `openshell sandbox create …` with the policy, providers and the workspace upload.
pub(crate) fn create_args(
    name: &str,
    policy: &SandboxPolicy,
    policy_file: &Path,
    workspace: Option<&Path>,
) -> Vec<String> {
    let mut a: Vec<String> = ["sandbox", "create", "--name", name, "--from"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    a.push(policy.image.clone().unwrap_or_else(|| DEFAULT_IMAGE.to_string()));
    a.push("--policy".into());
    a.push(policy_file.to_string_lossy().into_owned());
    if policy.providers.is_empty() {
        a.push("--no-auto-providers".into());
    }
    for p in &policy.providers {
        a.push("--provider".into());
        a.push(p.clone());
    }
    if let Some(ws) = workspace {
        a.push("--upload".into());
        a.push(format!("{}:{}", ws.display(), policy.workdir));
    }
    if let Some(m) = policy.limits.memory_bytes {
        a.push("--memory".into());
        a.push(format!("{}Mi", m.div_ceil(1 << 20)));
    }
    a
}

/// `openshell sandbox exec -n N --workdir D --no-tty [--timeout S] [--env K=V]… -- sh -c WRAPPER …`.
///
/// `env` holds only per-command values that are not secrets (the caller checks that; the
/// session's credentials reach the command through the env file).
pub(crate) fn exec_args(
    name: &str,
    workdir: &str,
    timeout: Option<Duration>,
    env: &IndexMap<String, String>,
    argv: &[String],
) -> Vec<String> {
    let mut a: Vec<String> = ["sandbox", "exec", "-n", name, "--workdir", workdir, "--no-tty"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    if let Some(t) = timeout {
        a.push("--timeout".into());
        a.push(t.as_secs().max(1).to_string());
    }
    for (k, v) in env {
        a.push("--env".into());
        a.push(format!("{k}={v}"));
    }
    a.push("--".into());
    a.extend(wrap_argv(&env.keys().cloned().collect::<Vec<_>>(), argv));
    a
}

/// The wrapper that loads the environment file, then replaces itself with `argv`. The
/// variables named in `keep` were set for this command (`--env`) and win over the file's.
pub(crate) fn wrap_argv(keep: &[String], argv: &[String]) -> Vec<String> {
    let script = format!(
        "__gl_keep=\"$1\"; shift; for __k in $__gl_keep; do eval \"__gl_v_$__k=\\\"\\${{$__k}}\\\"\"; done; \
         set -a; [ -r {ENV_FILE_INSIDE} ] && . {ENV_FILE_INSIDE}; \
         for __k in $__gl_keep; do eval \"$__k=\\\"\\${{__gl_v_$__k}}\\\"\"; done; set +a; exec \"$@\""
    );
    let mut a = vec![
        "sh".to_string(),
        "-c".to_string(),
        script,
        "ghostlab-env".to_string(),
        keep.join(" "),
    ];
    a.extend(argv.iter().cloned());
    a
}

/// `openshell sandbox upload N SRC DEST`.
pub(crate) fn upload_args(name: &str, src: &Path, dest: &str) -> Vec<String> {
    vec![
        "sandbox".into(),
        "upload".into(),
        name.into(),
        src.to_string_lossy().into_owned(),
        dest.into(),
    ]
}

/// `openshell sandbox download N PATH LOCAL`.
pub(crate) fn download_args(name: &str, path: &str, local: &Path) -> Vec<String> {
    vec![
        "sandbox".into(),
        "download".into(),
        name.into(),
        path.into(),
        local.to_string_lossy().into_owned(),
    ]
}

/// `openshell forward start -d PORT N`: the host's 127.0.0.1:PORT reaches 127.0.0.1:PORT inside.
pub(crate) fn forward_start_args(name: &str, port: &str) -> Vec<String> {
    ["forward", "start", "-d", port, name]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// `openshell forward stop PORT N`.
pub(crate) fn forward_stop_args(name: &str, port: &str) -> Vec<String> {
    ["forward", "stop", port, name].iter().map(|s| s.to_string()).collect()
}

/// `openshell logs N`.
pub(crate) fn logs_args(name: &str) -> Vec<String> {
    vec!["logs".into(), name.into()]
}

/// `openshell sandbox delete N`.
pub(crate) fn delete_args(name: &str) -> Vec<String> {
    vec!["sandbox".into(), "delete".into(), name.into()]
}

/// Where a staged host input is uploaded inside the sandbox.
pub(crate) fn input_inside(host: &Path) -> String {
    format!("{INPUTS_INSIDE}{}", host.display())
}

/// What `openshell status` said about the gateway.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum GatewayStatus {
    /// A gateway answered; the first status line.
    Reachable(String),
    /// No gateway; the reason as printed.
    Unreachable(String),
}

/// Interprets `openshell status` output: exit 0 and no failure wording means reachable.
pub(crate) fn parse_status(success: bool, stdout: &str, stderr: &str) -> GatewayStatus {
    let all = format!("{stdout}\n{stderr}");
    let lower = all.to_ascii_lowercase();
    let bad = [
        "unreachable",
        "not connected",
        "connection refused",
        "no gateway",
        "not running",
        "error",
    ];
    let first = |t: &str| {
        t.lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("")
            .to_string()
    };
    if !success || bad.iter().any(|b| lower.contains(b)) {
        let reason = first(stderr);
        return GatewayStatus::Unreachable(if reason.is_empty() { first(stdout) } else { reason });
    }
    GatewayStatus::Reachable(first(stdout))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::SandboxBackend;

    fn fixture(name: &str) -> String {
        let p = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/openshell")
            .join(name);
        std::fs::read_to_string(p)
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with('#'))
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn status_parsing_on_fake_fixtures() {
        let ok = parse_status(true, &fixture("status-connected.fake.txt"), "");
        assert!(
            matches!(ok, GatewayStatus::Reachable(ref d) if d.contains("openshell-gateway")),
            "{ok:?}"
        );
        let bad = parse_status(false, "", &fixture("status-unreachable.fake.txt"));
        assert!(
            matches!(bad, GatewayStatus::Unreachable(ref d) if d.contains("connection refused")),
            "{bad:?}"
        );
        // Exit 0 with failure wording is still unreachable.
        assert!(matches!(
            parse_status(true, "Status: not connected", ""),
            GatewayStatus::Unreachable(_)
        ));
    }

    #[test]
    fn no_providers_means_no_auto_providers() {
        let p = SandboxPolicy::minimal(SandboxBackend::Openshell);
        let a = create_args("agent-1", &p, Path::new("/s/policy.yaml"), None);
        assert_eq!(
            a,
            [
                "sandbox",
                "create",
                "--name",
                "agent-1",
                "--from",
                "base",
                "--policy",
                "/s/policy.yaml",
                "--no-auto-providers",
                // The default memory cap applies to every backend.
                "--memory",
                "2048Mi"
            ]
        );
        let mut per_command = IndexMap::new();
        per_command.insert("HOME".to_string(), "/sandbox/home".to_string());
        let e = exec_args(
            "agent-1",
            "/w",
            Some(Duration::from_secs(90)),
            &per_command,
            &["ls".into()],
        );
        assert_eq!(
            &e[..9],
            [
                "sandbox",
                "exec",
                "-n",
                "agent-1",
                "--workdir",
                "/w",
                "--no-tty",
                "--timeout",
                "90"
            ]
        );
        assert_eq!(&e[9..12], ["--env", "HOME=/sandbox/home", "--"]);
        assert_eq!(&e[e.len() - 3..], ["ghostlab-env", "HOME", "ls"]);
    }

    #[test]
    fn forward_lines_follow_the_cli_definition() {
        // `forward start [-d] [BIND:]PORT NAME` and `forward stop PORT NAME` (openshell-cli).
        assert_eq!(
            forward_start_args("agent-1", "4321"),
            ["forward", "start", "-d", "4321", "agent-1"]
        );
        assert_eq!(
            forward_stop_args("agent-1", "4321"),
            ["forward", "stop", "4321", "agent-1"]
        );
    }

    #[test]
    fn the_wrapper_keeps_per_command_values_over_the_env_file() {
        // The script itself, run by sh with a stand-in env file path.
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("env");
        std::fs::write(&file, "HOME='/from/file'\nOTHER='o t'\n").unwrap();
        let mut w = wrap_argv(
            &["HOME".into()],
            &["sh".into(), "-c".into(), "echo \"$HOME|$OTHER\"".into()],
        );
        w[2] = w[2].replace(ENV_FILE_INSIDE, &file.to_string_lossy());
        let out = std::process::Command::new(&w[0])
            .args(&w[1..])
            .env("HOME", "/per/command")
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "/per/command|o t\n");
    }
}
