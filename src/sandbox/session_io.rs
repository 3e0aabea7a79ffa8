//! Using a live session: running a command to completion (noting which limit it hit), moving
//! files in through its writable folders and out without following a link the agent planted,
//! and reading the role's log. OpenShell does the moves through its CLI.

use std::path::Path;

use super::super::exec::{self, ExecOutput};
use super::super::files::{chown_tree, copy_tree, copy_tree_beneath};
use super::super::openshell;
use super::{ExecOptions, SandboxError, Session, map_inside};
use crate::spec::SandboxBackend;

impl Session {
    /// Runs `argv` to completion with `stdin`, killing the whole tree on timeout.
    pub async fn exec(
        &self,
        argv: &[String],
        opts: &ExecOptions,
        stdin: Option<Vec<u8>>,
    ) -> Result<ExecOutput, SandboxError> {
        let cmd = self.command(argv, opts)?;
        let timeout = opts.timeout.unwrap_or(self.policy.limits.wall_timeout);
        let before = self.cgroups.as_ref().map(|c| (c.pids_max_hits(), c.memory_hits()));
        let mut out = exec::run(cmd, stdin, timeout).await?;
        let mut line = format!("exit {} for {}", out.status, shell_words::join(argv));
        if let (Some(cg), Some((pids0, mem0))) = (&self.cgroups, before) {
            if cg.pids_max_hits() > pids0 {
                out.limit_hit = out.limit_hit.or(Some("processes (cgroup pids.max)"));
            }
            if cg.memory_hits() > mem0 {
                out.limit_hit = out.limit_hit.or(Some("memory (cgroup)"));
            }
        }
        if let Some(limit) = out.limit_hit {
            line.push_str(&format!("; LIMIT HIT: {limit}"));
        }
        self.log.note(&line);
        self.check_scratch()?;
        Ok(out)
    }

    /// Copies a host file or folder into the session at `dest` (inside path).
    pub async fn upload(&self, src: &Path, dest: &str) -> Result<(), SandboxError> {
        if self.policy.backend == SandboxBackend::Openshell {
            let args = openshell::upload_args(&self.id, src, dest);
            return self.run_openshell(&args).await.map(|_| ());
        }
        let host = map_inside(&self.layout.writable(&self.policy.workdir), dest)?;
        let (src2, owner) = (src.to_path_buf(), self.owner);
        tokio::task::spawn_blocking(move || {
            copy_tree(&src2, &host)?;
            if let Some((u, g)) = owner {
                chown_tree(&host, u, g)?;
            }
            Ok::<(), std::io::Error>(())
        })
        .await
        .map_err(|e| SandboxError::Spawn(e.to_string()))?
        .map_err(|e| SandboxError::Io(format!("uploading {}", src.display()), e))?;
        self.log.note(&format!("upload {} -> {dest}", src.display()));
        Ok(())
    }

    /// Copies `path` (inside) out to `local` on the host; symlinks come out as links. Every
    /// folder on the way is the agent's, so none is followed if it is a link (refused: the
    /// download fails), and what comes out is Ghostlab's (no setuid/setgid/sticky bit).
    pub async fn download(&self, path: &str, local: &Path) -> Result<(), SandboxError> {
        if self.policy.backend == SandboxBackend::Openshell {
            let args = openshell::download_args(&self.id, path, local);
            return self.run_openshell(&args).await.map(|_| ());
        }
        let writable = self.layout.writable(&self.policy.workdir);
        let host = map_inside(&writable, path)?;
        // `map_inside` joined one writable folder with the rest of the path: split them again.
        let (root, rel) = writable
            .iter()
            .find_map(|(root, _)| {
                host.strip_prefix(root)
                    .ok()
                    .map(|rel| (root.clone(), rel.to_path_buf()))
            })
            .ok_or_else(|| SandboxError::Policy(format!("`{path}` is outside the session's writable folders")))?;
        let dst = local.to_path_buf();
        tokio::task::spawn_blocking(move || copy_tree_beneath(&root, &rel, &dst))
            .await
            .map_err(|e| SandboxError::Spawn(e.to_string()))?
            .map_err(|e| SandboxError::Io(format!("downloading {path}"), e))?;
        self.log.note(&format!("download {path} -> {}", local.display()));
        Ok(())
    }

    /// The role's log so far (for OpenShell, the gateway's logs are appended first).
    pub async fn logs(&self) -> Result<String, SandboxError> {
        if self.policy.backend == SandboxBackend::Openshell {
            let out = self.run_openshell(&openshell::logs_args(&self.id)).await?;
            self.log.note(&format!("openshell logs:\n{}", out.stdout_text()));
        }
        Ok(self.log.text())
    }
}
