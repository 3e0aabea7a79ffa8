//! The bubblewrap backend: renders a policy and a session layout into a `bwrap` argv.
//!
//! The root is bwrap's own tmpfs. `isolated` (the default) puts only the system runtime
//! (/usr and the /bin, /lib*, /sbin links), the session's generated /etc, the declared
//! runtimes and the staged inputs on it. `read_only` binds every top-level host entry
//! read-only instead, with homes, /tmp, /run and /var/tmp as empty tmpfs and the user's
//! checkout masked. In both, inputs are staged copies bound read-only at their real paths
//! after every tmpfs, and only the session's own folders are writable. Environment values never go
//! into this argv: the launcher's own environment is cleared and set instead (bwrap passes it
//! on unchanged), which is what `--clearenv` plus `--setenv` would do without exposing values
//! in `ps`.

use std::path::{Component, Path, PathBuf};

use super::SandboxError;
use super::bridge;
use super::policy::SandboxPolicy;
use super::scope::{Access, Area, Capability};
use crate::spec::RootFilesystem;

#[path = "bwrap_binds.rs"]
mod binds;
#[path = "bwrap_layout.rs"]
mod layout;
#[path = "bwrap_root.rs"]
mod root;
pub(crate) use binds::staged_parts;
pub use layout::TMPFS_BYTES;
use layout::push;
pub(crate) use layout::{CONFIG_INSIDE, CommandSpec, HOME_INSIDE, Layout, MCP_SOCKETS_INSIDE, TMP_INSIDE};
use root::HostRoot;

/// The `bwrap` arguments (without the program name), drawn against this host's root.
pub(crate) fn args(policy: &SandboxPolicy, layout: &Layout, spec: &CommandSpec<'_>) -> Vec<String> {
    args_on(&HostRoot::read(), policy, layout, spec)
}

/// The `bwrap` arguments against `host`'s root: namespaces, the root filesystem, then (after
/// every tmpfs, so none hides them) the host paths and the session's folders, then the launch.
fn args_on(host: &HostRoot, policy: &SandboxPolicy, layout: &Layout, spec: &CommandSpec<'_>) -> Vec<String> {
    let isolated = policy.root_filesystem == RootFilesystem::Isolated;
    let mut a = namespaces();
    if isolated {
        a.extend(root::isolated(host, layout, spec.views));
    } else {
        a.extend(root::read_only(host, policy));
    }
    a.extend(binds::runtimes(policy, spec.scope, isolated));
    a.extend(binds::staged_inputs(layout, spec));
    if isolated {
        a.extend(binds::links_on_the_way(policy, layout));
    }
    a.extend(binds::writable_paths(policy, spec.scope));
    a.extend(session_folders(policy, layout, spec));
    a.extend(launch(spec));
    a
}

/// Every namespace of its own, no capability, no nested user namespace.
fn namespaces() -> Vec<String> {
    let mut a = Vec::new();
    push(
        &mut a,
        &[
            "--unshare-all",
            "--unshare-user",
            "--disable-userns",
            "--die-with-parent",
            "--new-session",
            "--cap-drop",
            "ALL",
            "--hostname",
            "ghostlab-sandbox",
        ],
    );
    a
}

/// Ghostlab's executable and the session's folders as the scope shares them; an area it keeps
/// private is an empty tmpfs of the session's scratch bound, gone when the command ends.
fn session_folders(policy: &SandboxPolicy, layout: &Layout, spec: &CommandSpec<'_>) -> Vec<String> {
    let mut a = Vec::new();
    if let Some(exe) = spec.helper_exe.or(spec.bridge_exe) {
        let s = exe.to_string_lossy();
        push(&mut a, &["--ro-bind", &s, &s]);
    }
    let private_size = policy.limits.scratch_bytes.to_string();
    for (area, (host, inside)) in Area::ALL.into_iter().zip(layout.writable(&policy.workdir)) {
        match spec.scope.area(area) {
            Some(Access::ReadWrite) => push(&mut a, &["--bind", &host.to_string_lossy(), &inside]),
            Some(Access::ReadOnly) => push(&mut a, &["--ro-bind", &host.to_string_lossy(), &inside]),
            None => push(&mut a, &["--size", &private_size, "--tmpfs", &inside]),
        }
    }
    if spec.scope.has(Capability::AgentConfig) {
        match &spec.views.config {
            Some(view) => a.extend(view.iter().cloned()),
            None => a.extend([
                "--ro-bind".into(),
                layout.config.to_string_lossy().into_owned(),
                CONFIG_INSIDE.into(),
            ]),
        }
    }
    if spec.scope.has(Capability::McpRelay) {
        push(
            &mut a,
            &["--ro-bind", &layout.mcp.to_string_lossy(), MCP_SOCKETS_INSIDE],
        );
    }
    if spec.bridge_exe.is_some() {
        push(
            &mut a,
            &[
                "--ro-bind",
                &spec.egress_dir.to_string_lossy(),
                bridge::SOCKET_DIR_INSIDE,
            ],
        );
    }
    a
}

/// The root made read-only, the seccomp filter, the start folder, then the command behind the
/// network watch and (with an allowlist) the egress bridge.
fn launch(spec: &CommandSpec<'_>) -> Vec<String> {
    let mut a = Vec::new();
    // Last of the mounts: bubblewrap's own root and its /dev are tmpfs of no stated size (half
    // of RAM); what lies beside the mounts above stays read-only, so nothing is written where
    // no bound holds (/dev/shm is its own bounded tmpfs and stays writable).
    push(&mut a, &["--remount-ro", "/dev", "--remount-ro", "/"]);
    push(
        &mut a,
        &["--seccomp", &spec.seccomp_fd.to_string(), "--chdir", spec.chdir, "--"],
    );
    // The watch goes first, so every process of the command (the bridge too) is under it.
    if let (Some(fd), Some(exe)) = (spec.watch_fd, spec.helper_exe.or(spec.bridge_exe)) {
        push(
            &mut a,
            &[
                &exe.to_string_lossy(),
                super::watch_shim::SUBCOMMAND,
                "--socket-fd",
                &fd.to_string(),
                "--",
            ],
        );
    }
    if let Some(exe) = spec.bridge_exe {
        let socket = format!("{}/{}", bridge::SOCKET_DIR_INSIDE, bridge::SOCKET_NAME);
        push(
            &mut a,
            &[
                &exe.to_string_lossy(),
                "__egress-bridge",
                "--socket",
                &socket,
                "--listen",
                bridge::LISTEN,
                "--",
            ],
        );
    }
    a.extend(spec.argv.iter().cloned());
    a
}

/// Maps a path inside the sandbox to its host location in one of the session's writable
/// folders; anything else (or `..`) is refused.
pub(crate) fn map_inside(writable: &[(PathBuf, String)], inside: &str) -> Result<PathBuf, SandboxError> {
    let p = Path::new(inside);
    if !p.is_absolute() || p.components().any(|c| matches!(c, Component::ParentDir)) {
        return Err(SandboxError::Policy(format!(
            "`{inside}` must be an absolute path without `..`"
        )));
    }
    for (host, root) in writable {
        if let Ok(rest) = p.strip_prefix(root) {
            return Ok(host.join(rest));
        }
    }
    let roots: Vec<&str> = writable.iter().map(|(_, r)| r.as_str()).collect();
    Err(SandboxError::Policy(format!(
        "`{inside}` is outside the session's writable folders ({})",
        roots.join(", ")
    )))
}

#[cfg(test)]
#[path = "bwrap_argv_tests.rs"]
mod argv_tests;
#[cfg(test)]
#[path = "bwrap_tests.rs"]
mod tests;
