//! Preparing a command of a session: the environment it gets and the bubblewrap (or local,
//! or OpenShell) command line that runs it, seeing the whole session or only a scope of it
//! (`super::super::scope`), with the egress proxy that scope's network needs.

use indexmap::IndexMap;
use std::path::{Path, PathBuf};

use super::super::bwrap::{self, CommandSpec, map_inside};
use super::super::bwrap_data::{self, Budget, NoView, Views};
use super::super::limits::ChildSetup;
use super::super::proxy::EgressProxy;
use super::super::scope::{Capability, Scope, ScopeNetwork};
use super::super::seccomp::{self, SocketRule};
use super::super::{HostPort, bridge, procs};
use super::{ExecOptions, SANDBOX_PATH, SandboxError, ScopedProxy, Session, check_program};
use crate::spec::{RootFilesystem, SandboxBackend};

impl Session {
    /// The whole session as a scope: what `command` runs with, and what every scope handed to
    /// `command_in` must lie within.
    pub fn scope(&self) -> Scope {
        let staged: Vec<PathBuf> = self.layout.staged.iter().map(|(_, real)| real.clone()).collect();
        Scope::of_session(&self.policy, &staged)
    }

    /// The socket folder of a proxy enforcing `allow` (a narrowed scope's list), started on
    /// first use and kept with the session.
    fn scoped_egress(&self, allow: &[HostPort]) -> Result<PathBuf, SandboxError> {
        let mut scoped = self.scoped_proxies.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(s) = scoped.iter().find(|s| s.allow == allow) {
            return Ok(s.dir.clone());
        }
        if tokio::runtime::Handle::try_current().is_err() {
            return Err(SandboxError::Policy(
                "a narrowed network scope needs its egress proxy, which runs on the async runtime".into(),
            ));
        }
        let dir = self.layout.dir.join(format!("egress-scope-{}", scoped.len()));
        let io = |e| SandboxError::Io(format!("creating {}", dir.display()), e);
        std::fs::create_dir_all(&dir).map_err(io)?;
        if self.scratch == super::super::scratch::ScratchBound::Tmpfs {
            // As the session's other socket folder: its bind shows a tmpfs path, not the host's.
            let owner = self.owner.unwrap_or((0, 0));
            super::super::scratch::mount_bounded(
                &dir,
                super::prepare::SOCKET_FOLDER_BYTES,
                super::prepare::SOCKET_FOLDER_FILES,
                owner,
            )
            .map_err(io)?;
        }
        if let Some((u, g)) = self.owner {
            std::os::unix::fs::lchown(&dir, Some(u), Some(g)).map_err(io)?;
        }
        let sock = dir.join(bridge::SOCKET_NAME);
        let proxy = EgressProxy::start(&sock, allow.to_vec(), self.log.clone())
            .map_err(|e| SandboxError::Io("starting a scope's egress proxy".into(), e))?;
        self.log.note(&format!(
            "scoped egress proxy listening on {}; allowed: {}",
            sock.display(),
            allow.iter().map(|h| h.to_string()).collect::<Vec<_>>().join(", ")
        ));
        scoped.push(ScopedProxy {
            allow: allow.to_vec(),
            dir: dir.clone(),
            proxy,
        });
        Ok(dir)
    }

    /// The environment a command gets: base variables, the allowlisted host variables, the
    /// policy's explicit values, then the per-command ones.
    pub(super) fn child_env(&self, opts: &ExecOptions, credentials: bool, proxied: bool) -> IndexMap<String, String> {
        let mut env = IndexMap::new();
        let local = self.policy.backend == SandboxBackend::Local;
        let home = if local {
            self.layout.home.to_string_lossy().into_owned()
        } else {
            bwrap::HOME_INSIDE.into()
        };
        let tmp = if local {
            self.layout.tmp.to_string_lossy().into_owned()
        } else {
            bwrap::TMP_INSIDE.into()
        };
        env.insert("PATH".to_string(), SANDBOX_PATH.to_string());
        env.insert("HOME".to_string(), home);
        env.insert("TMPDIR".to_string(), tmp);
        env.insert("LANG".to_string(), "C.UTF-8".to_string());
        if credentials {
            for k in &self.policy.env_allowlist {
                if let Ok(v) = std::env::var(k) {
                    env.insert(k.clone(), v);
                }
            }
            for (k, v) in &self.policy.env_values {
                env.insert(k.clone(), v.clone());
            }
        }
        for (k, v) in &opts.env {
            env.insert(k.clone(), v.clone());
        }
        if proxied {
            let url = format!("http://{}", bridge::LISTEN);
            for k in [
                "HTTP_PROXY",
                "HTTPS_PROXY",
                "http_proxy",
                "https_proxy",
                "ALL_PROXY",
                "all_proxy",
            ] {
                env.insert(k.to_string(), url.clone());
            }
            // Node's built-in fetch ignores the proxy variables unless told (newer Node only);
            // anything that still ignores them simply cannot get out.
            env.insert("NODE_USE_ENV_PROXY".to_string(), "1".to_string());
        }
        if local {
            env.insert(procs::SESSION_ENV.to_string(), self.id.clone());
        }
        env
    }

    /// Prepares (does not spawn) `argv` to run inside the session, e.g. a long-lived stdio
    /// MCP server or OpenCode. The caller owns the child; `delete` still ends it.
    pub fn command(&self, argv: &[String], opts: &ExecOptions) -> Result<tokio::process::Command, SandboxError> {
        self.command_in(&self.scope(), argv, opts)
    }

    /// Like [`Session::command`], seeing only `scope` of the session (see `super::scope`). A
    /// scope wider than the session's is refused; a backend that cannot draw a narrower view
    /// (OpenShell, local) refuses any narrowing rather than run with more than asked.
    pub fn command_in(
        &self,
        scope: &Scope,
        argv: &[String],
        opts: &ExecOptions,
    ) -> Result<tokio::process::Command, SandboxError> {
        let whole = self.scope();
        let narrowed = self.check_runnable(scope, &whole, argv)?;
        let workdir = opts.workdir.clone().unwrap_or_else(|| self.policy.workdir.clone());
        let egress = self.egress_for(scope, &whole)?;
        let env = self.child_env(opts, scope.has(Capability::Credentials), egress.is_some());
        let scoped = if narrowed {
            format!("; scope: {scope}")
        } else {
            String::new()
        };
        self.log.note(&format!(
            "command: {} (workdir {workdir}{scoped})",
            shell_words::join(argv)
        ));
        let mut cmd = match self.policy.backend {
            SandboxBackend::Bubblewrap => self.bwrap_command(scope, argv, &workdir, egress.as_deref())?,
            SandboxBackend::Local => {
                let dir = map_inside(&self.layout.writable(&self.policy.workdir), &workdir)?;
                let mut cmd = tokio::process::Command::new(&argv[0]);
                cmd.args(&argv[1..]).current_dir(dir);
                ChildSetup::for_limits(&self.policy.limits, false).install(&mut cmd);
                cmd
            }
            SandboxBackend::Openshell => self.openshell_command(argv, &workdir, opts)?,
        };
        if self.policy.backend != SandboxBackend::Openshell {
            cmd.env_clear().envs(&env);
        }
        cmd.process_group(0).kill_on_drop(true);
        Ok(cmd)
    }

    /// Refuses a command that cannot run as asked: a scope beyond the session's, a narrowing
    /// the backend cannot draw, a deleted session, an empty argv, a storage bound exceeded.
    /// Returns whether the scope is narrower than the whole session.
    fn check_runnable(&self, scope: &Scope, whole: &Scope, argv: &[String]) -> Result<bool, SandboxError> {
        if !scope.is_within(whole) {
            return Err(SandboxError::Policy(format!(
                "a command's scope must lie within its session's: {scope} is not within {whole}"
            )));
        }
        let narrowed = scope != whole;
        if narrowed && self.policy.backend != SandboxBackend::Bubblewrap {
            return Err(SandboxError::Policy(format!(
                "the {:?} backend cannot run a command in a narrowed scope ({scope}); only bubblewrap draws one",
                self.policy.backend
            )));
        }
        if self.deleted {
            return Err(SandboxError::Deleted);
        }
        if argv.is_empty() {
            return Err(SandboxError::Policy("empty command".into()));
        }
        self.check_scratch()?;
        Ok(narrowed)
    }

    /// The bridge's socket folder: the session's proxy, a narrower one of the scope's, or none.
    fn egress_for(&self, scope: &Scope, whole: &Scope) -> Result<Option<PathBuf>, SandboxError> {
        Ok(match scope.network_scope() {
            _ if self.proxy.is_none() => None,
            ScopeNetwork::Deny => None,
            n if *n == *whole.network_scope() => Some(self.layout.egress.clone()),
            ScopeNetwork::Allow(list) => Some(self.scoped_egress(list)?),
            ScopeNetwork::OpenShellPolicy(_) => None,
        })
    }

    /// `bwrap` running `argv` under the seccomp filter and the network watch, in the session's
    /// cgroups, with the descriptors its arguments name inherited.
    fn bwrap_command(
        &self,
        scope: &Scope,
        argv: &[String],
        workdir: &str,
        egress: Option<&Path>,
    ) -> Result<tokio::process::Command, SandboxError> {
        use std::os::fd::AsRawFd;
        if self.policy.root_filesystem == RootFilesystem::Isolated {
            let mut visible: Vec<PathBuf> = scope.paths().map(|(p, _)| p.to_path_buf()).collect();
            visible.extend(self.bridge_exe.clone());
            check_program(&argv[0], &visible).map_err(|e| SandboxError::Policy(e.to_string()))?;
        }
        // Every bubblewrap command runs under the network watch, so a direct attempt
        // is recorded in every network mode. Internet sockets may then be created
        // (the namespace has only `lo`): blocking them outright in bubblewrap's filter
        // would fail the call before the watch could see where it was going.
        let helper = self.bridge_exe.as_deref().ok_or_else(|| {
            SandboxError::Policy(
                "the network watch needs ghostlab's own executable inside the sandbox, and it was not found".into(),
            )
        })?;
        let (ours, theirs) = watch_socket_pair()?;
        let program = seccomp::compile(SocketRule::UnixAndLoopbackInet)?;
        let fd = seccomp::memfd_with(&seccomp::to_bytes(&program))?;
        let (views, view_fds) = self.data_views(scope)?;
        let spec = CommandSpec {
            watch_fd: Some(theirs.as_raw_fd()),
            chdir: workdir,
            seccomp_fd: fd.as_raw_fd(),
            bridge_exe: egress.and(self.bridge_exe.as_deref()),
            helper_exe: Some(helper),
            argv,
            scope,
            egress_dir: egress.unwrap_or(&self.layout.egress),
            views: &views,
        };
        let args = bwrap::args(&self.policy, &self.layout, &spec);
        super::super::watch_supervisor::serve(ours, self.watch.clone(), issued_by_ghostlab(&args));
        let mut cmd = tokio::process::Command::new("bwrap");
        cmd.args(&args);
        let mut setup = ChildSetup::for_limits(&self.policy.limits, true);
        // The memfd, the shim's socket and the views' files must stay open until the command
        // is spawned: the hook owns them.
        for held in [fd, theirs].into_iter().chain(view_fds) {
            setup.inherit_fds.push(held.as_raw_fd());
            setup.held.push(std::sync::Arc::new(held));
        }
        if let Some(cg) = &self.cgroups {
            setup.join_cgroups(cg);
        }
        setup.install(&mut cmd);
        Ok(cmd)
    }
}

/// What the network watch's shim execs (bridge, agent host, the user's message in its argv):
/// Ghostlab's own hop, never a program of the agent's. Empty when the argv has no shim.
fn issued_by_ghostlab(bwrap_args: &[String]) -> Vec<String> {
    bwrap_args
        .iter()
        .position(|a| a == super::super::watch_shim::SUBCOMMAND)
        .and_then(|at| bwrap_args[at..].iter().position(|a| a == "--").map(|d| at + d + 1))
        .map(|from| bwrap_args[from..].to_vec())
        .unwrap_or_default()
}

impl Session {
    /// The session folders `scope` shows by content rather than by a bind, with the
    /// descriptors their arguments name: /etc (isolated) and the agent config always; staged
    /// inputs unless they live on a tmpfs of the session's own (root), whose bind shows no host
    /// path. Inputs beyond [`INPUT_BUDGET`] are bound, and the log says their host path shows.
    fn data_views(&self, scope: &Scope) -> Result<(Views, Vec<std::os::fd::OwnedFd>), SandboxError> {
        let refuse = |e: bwrap_data::NoView| SandboxError::Policy(format!("showing the session's files inside: {e}"));
        let mut views = Views::default();
        let mut fds = Vec::new();
        if self.policy.root_filesystem == RootFilesystem::Isolated {
            let v = bwrap_data::view(&self.layout.etc, "/etc").map_err(refuse)?;
            views.etc = Some(v.args);
            fds.extend(v.fds);
        }
        if scope.has(Capability::AgentConfig) {
            let v = bwrap_data::view(&self.layout.config, bwrap::CONFIG_INSIDE).map_err(refuse)?;
            views.config = Some(v.args);
            fds.extend(v.fds);
        }
        if self.scratch == super::super::scratch::ScratchBound::Tmpfs {
            return Ok((views, fds));
        }
        let mut budget = INPUT_BUDGET;
        for (from, shown) in bwrap::staged_parts(&self.layout, scope) {
            match bwrap_data::view_within(&from, &shown.to_string_lossy(), &mut budget) {
                Ok(v) => {
                    views.inputs.insert(shown, v.args);
                    fds.extend(v.fds);
                }
                Err(NoView::TooLarge(why)) => {
                    let mut noted = self.bound_inputs.lock().unwrap_or_else(|p| p.into_inner());
                    if noted.insert(shown.clone()) {
                        self.log.note(&format!(
                            "input {} is bound from the session folder (its host path shows in the sandbox's mountinfo): {why}",
                            shown.display()
                        ));
                    }
                }
                Err(unreadable @ NoView::Unreadable(_)) => return Err(refuse(unreadable)),
            }
        }
        Ok((views, fds))
    }
}

/// What one command may be shown of the staged inputs by content (each file costs a descriptor
/// and a copy per command).
const INPUT_BUDGET: Budget = Budget {
    bytes: 16 << 20,
    entries: 256,
};

/// The socket pair a command's watch shim hands its listener over: (Ghostlab's end, the
/// shim's end). Both close-on-exec; the launch hook clears it on the shim's end only.
fn watch_socket_pair() -> Result<(std::os::fd::OwnedFd, std::os::fd::OwnedFd), SandboxError> {
    use std::os::fd::FromRawFd;
    let mut fds = [0; 2];
    // SAFETY: socketpair fills two fresh descriptors that are owned below.
    let rc = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    };
    if rc != 0 {
        return Err(SandboxError::Io(
            "creating the network watch socket".into(),
            std::io::Error::last_os_error(),
        ));
    }
    // SAFETY: both descriptors were just created and are owned by nothing else.
    Ok(unsafe {
        (
            std::os::fd::OwnedFd::from_raw_fd(fds[0]),
            std::os::fd::OwnedFd::from_raw_fd(fds[1]),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::issued_by_ghostlab;
    use crate::sandbox::watch_shim::SUBCOMMAND;

    fn words(s: &str) -> Vec<String> {
        s.split(' ').map(|w| w.replace("SHIM", SUBCOMMAND)).collect()
    }

    #[test]
    fn ghostlab_issued_everything_after_the_shims_own_separator() {
        let args = words("--seccomp 7 --chdir /w -- /g SHIM --socket-fd 9 -- /g __egress-bridge -- opencode run --x");
        assert_eq!(
            issued_by_ghostlab(&args),
            words("/g __egress-bridge -- opencode run --x")
        );
        // bwrap's own `--` before the shim does not count; the user's after it does not cut.
        let args = words("--chdir /w -- /g SHIM --socket-fd 9 -- sh -c -- SHIM");
        assert_eq!(issued_by_ghostlab(&args), words("sh -c -- SHIM"));
    }

    #[test]
    fn without_the_shim_nothing_counts_as_ghostlabs() {
        assert!(issued_by_ghostlab(&words("--chdir /w -- opencode run")).is_empty());
        assert!(issued_by_ghostlab(&words("--chdir /w -- /g SHIM")).is_empty());
    }
}
