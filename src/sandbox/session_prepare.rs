//! Filling a new session: folders, the workspace copy (never the original), uploads, handing
//! the folder to the sandbox user, cgroups, and the egress proxy for an allowlist.
//!
//! It fails closed: an input the sandbox user cannot read or a network mode the backend cannot
//! enforce is an error, not a degraded session.

use super::super::bridge;
use super::super::cgroup::CgroupSet;
use super::super::etc::write_minimal_etc;
use super::super::files::{CopyBudget, chown_tree, copy_tree_bounded, copy_tree_within, readable_by};
use super::super::limits::sandbox_uid;
use super::super::mcp_staging::brought;
use super::super::policy::NetworkPolicy;
use super::super::proxy::EgressProxy;
use super::super::scratch::{ScratchBound, mount_bounded, mount_tmpfs, unmount_subfolders};
use super::{SandboxError, Session, map_inside};
use crate::spec::SandboxBackend;
use std::path::PathBuf;

/// What preparing hands back: (staged copy, real path) binds, the staging note, the scratch
/// bound in force and its note.
type Staged = (Vec<(PathBuf, PathBuf)>, String, ScratchBound, String);

impl Session {
    /// The ghostlab executable (egress bridge, MCP relay connector) as the sandbox user can
    /// run it: the original when that uid can read it, else a copy in the session.
    fn share_helper_exe(&mut self) -> Result<(), SandboxError> {
        let Some(exe) = self.bridge_exe.clone() else {
            return Ok(());
        };
        if !exe.is_file() {
            return Err(SandboxError::Policy(format!(
                "bridge executable {} not found",
                exe.display()
            )));
        }
        if let Some((u, g)) = self.owner
            && !readable_by(&exe, u, g)
        {
            // e.g. ~/.cargo/bin under /root: give the sandbox user its own copy.
            let copy = self.layout.dir.join("bridge-ghostlab");
            std::fs::copy(&exe, &copy)
                .and_then(|_| std::os::unix::fs::lchown(&copy, Some(u), Some(g)))
                .map_err(|e| SandboxError::Io(format!("copying the bridge {}", exe.display()), e))?;
            self.log.note(&format!(
                "bridge {} is not readable by uid {u}; using a copy in the session",
                exe.display()
            ));
            self.bridge_exe = Some(copy);
        }
        Ok(())
    }
}

/// Bound on the job's inputs copied into one session.
pub const STAGED_INPUT_BYTES: u64 = 256 << 20;
/// A folder of unix sockets (egress proxy, MCP relay) as a tmpfs: sockets take no data.
pub(super) const SOCKET_FOLDER_BYTES: u64 = 1 << 20;
/// See [`SOCKET_FOLDER_BYTES`]: one inode per relayed server's socket and a few more.
pub(super) const SOCKET_FOLDER_FILES: u64 = 1024;

impl Session {
    pub(super) async fn prepare(&mut self) -> Result<(), SandboxError> {
        let l = self.layout.clone();
        // Absolute, so the copy's entries compare with the absolute paths it leaves out.
        let ws = self
            .policy
            .workspace
            .clone()
            .map(|w| std::path::absolute(&w).unwrap_or(w));
        let exclude = self.policy.workspace_exclude.clone();
        let owner = self.owner;
        let uploads = self.policy.uploads.clone();
        let writable = l.writable(&self.policy.workdir);
        let inputs = self.policy.read_only.clone();
        let staged = self.policy.staged.clone();
        let workspace_bound = self.policy.limits.workspace_bytes;
        let workspace_files = self.policy.limits.workspace_files;
        let implied = self.policy.implied.clone();
        // Compared with the entries of canonical folders, so canonical too.
        let declared: Vec<PathBuf> = self
            .policy
            .declared
            .iter()
            .map(|d| d.canonicalize().unwrap_or_else(|_| d.clone()))
            .collect();
        let own = self.policy.masked.clone();
        let scratch_bytes = self.policy.limits.scratch_bytes;
        let backend = self.policy.backend;
        let report = tokio::task::spawn_blocking(move || -> Result<Staged, SandboxError> {
            if let Some((u, g)) = owner {
                // Fail closed: an input the sandbox user cannot read would silently go missing.
                for p in inputs.iter().filter(|p| p.exists()) {
                    let real = p.canonicalize().unwrap_or_else(|_| p.clone());
                    if !readable_by(&real, u, g) {
                        return Err(SandboxError::Policy(format!(
                            "runtime {} is not readable by the sandbox user (uid {u}); sandboxed processes run \
                             unprivileged when ghostlab runs as root and runtimes (agent host, MCP server packages) \
                             are bound, not copied: install them where uid {u} can read them",
                            real.display()
                        )));
                    }
                }
            }
            let io = |what: &str| {
                let what = what.to_string();
                move |e| SandboxError::Io(what, e)
            };
            for d in [
                &l.workspace,
                &l.home,
                &l.tmp,
                &l.uploads,
                &l.egress,
                &l.config,
                &l.inputs,
                &l.mcp,
            ] {
                std::fs::create_dir_all(d).map_err(io("creating session folders"))?;
            }
            let (inner_uid, inner_gid, is_root) = sandbox_uid();
            let mut bound = ScratchBound::Measured;
            let mut scratch_note = String::new();
            if is_root && backend != SandboxBackend::Openshell {
                let owner = owner.unwrap_or((0, 0));
                // Inputs and the socket folders get a tmpfs too, not for a bound but so their
                // binds' mountinfo root is a path in that tmpfs, not in the host's temp folder.
                let mounted = mount_tmpfs(&l.home, scratch_bytes, owner)
                    .and_then(|()| mount_tmpfs(&l.tmp, scratch_bytes, owner))
                    .and_then(|()| mount_bounded(&l.workspace, workspace_bound, workspace_files, owner))
                    .and_then(|()| mount_bounded(&l.uploads, workspace_bound, workspace_files, owner))
                    .and_then(|()| mount_bounded(&l.inputs, 2 * STAGED_INPUT_BYTES, workspace_files, owner))
                    .and_then(|()| mount_bounded(&l.egress, SOCKET_FOLDER_BYTES, SOCKET_FOLDER_FILES, owner))
                    .and_then(|()| mount_bounded(&l.mcp, SOCKET_FOLDER_BYTES, SOCKET_FOLDER_FILES, owner));
                match mounted {
                    Ok(()) => bound = ScratchBound::Tmpfs,
                    Err(e) => {
                        unmount_subfolders(&l.dir);
                        scratch_note = format!(" (mounting a tmpfs failed: {e})");
                    }
                }
            }
            scratch_note = format!("{}{scratch_note}", bound.describe(scratch_bytes));
            // Agents keep TMPDIR under HOME (`$HOME/tmp`); made here, where HOME lives on the
            // host, so no runner creates an in-sandbox path on the host (the session folder's
            // chown below hands it to the sandbox user).
            let home_tmp = l.home.join("tmp");
            std::fs::create_dir_all(&home_tmp).map_err(io("creating HOME/tmp"))?;
            write_minimal_etc(&l.etc, inner_uid, inner_gid).map_err(io("writing the sandbox's /etc"))?;
            let mut budget = CopyBudget {
                bytes: workspace_bound,
                entries: workspace_files,
            };
            let bounds = format!("bound {workspace_bound} bytes, {workspace_files} entries");
            if let Some(ws) = &ws {
                let keep = |p: &std::path::Path, _: &std::fs::Metadata| !exclude.iter().any(|x| p == x);
                copy_tree_within(ws, &l.workspace, &mut budget, &keep)
                    .map_err(io(&format!("copying the workspace {} ({bounds})", ws.display())))?;
            }
            for (src, dest) in &uploads {
                let host = map_inside(&writable, dest)?;
                copy_tree_within(src, &host, &mut budget, &|_, _| true)
                    .map_err(io(&format!("staging upload {} ({bounds})", src.display())))?;
            }
            // Inputs are copies, so the sandbox user reads them even when the job lives in a
            // folder only root can enter; the originals are never shown. A folder implied by
            // an MCP server's command comes without dotfiles and private files.
            let mut input_budget = STAGED_INPUT_BYTES;
            let mut binds = Vec::new();
            let mut left_out = 0u64;
            for (i, p) in staged.iter().enumerate() {
                if std::fs::symlink_metadata(p).is_err() {
                    continue;
                }
                let real = p.canonicalize().unwrap_or_else(|_| p.clone());
                let copy = l.inputs.join(i.to_string());
                let what = format!("staging input {} (bound {STAGED_INPUT_BYTES} bytes)", real.display());
                if implied.contains(p) {
                    let mut b = CopyBudget {
                        bytes: input_budget,
                        entries: u64::MAX,
                    };
                    let left_out_count = std::cell::Cell::new(0u64);
                    let keep = |path: &std::path::Path, meta: &std::fs::Metadata| {
                        let ok = brought(path, meta, &own, &declared);
                        if !ok {
                            left_out_count.set(left_out_count.get() + 1);
                        }
                        ok
                    };
                    copy_tree_within(&real, &copy, &mut b, &keep).map_err(io(&what))?;
                    left_out += left_out_count.get();
                    input_budget = b.bytes;
                } else {
                    copy_tree_bounded(&real, &copy, &mut input_budget).map_err(io(&what))?;
                }
                binds.push((copy, real));
            }
            if let Some((u, g)) = owner {
                hand_over(&l.dir, u, g).map_err(io("handing the session folder to the sandbox user"))?;
            }
            let note = format!(
                "staged {} input(s) ({} bytes) as copies in {} readable by uid {inner_uid}; {left_out} dotfile(s) or \
                 private file(s) beside MCP server commands left out; workspace copy {} bytes, {} entries ({bounds})",
                binds.len(),
                STAGED_INPUT_BYTES - input_budget,
                l.inputs.display(),
                workspace_bound - budget.bytes,
                workspace_files - budget.entries
            );
            Ok((binds, note, bound, scratch_note))
        })
        .await
        .map_err(|e| SandboxError::Spawn(e.to_string()))??;
        self.layout.staged = report.0;
        self.scratch = report.2;
        self.log.note(&report.1);
        self.log.note(&report.3);
        self.watch_storage();
        match self.policy.backend {
            SandboxBackend::Bubblewrap => {
                let (cg, notes) = CgroupSet::create(&format!("ghostlab-{}", self.id), &self.policy.limits);
                for n in notes {
                    self.log.note(&n);
                }
                self.cgroups = cg;
                if let NetworkPolicy::OpenShellPolicy(_) = self.policy.network {
                    return Err(SandboxError::Policy(
                        "network: policy is an OpenShell policy file; bubblewrap supports disabled or allowlist".into(),
                    ));
                }
                self.share_helper_exe()?;
                if let NetworkPolicy::Allowlist(list) = &self.policy.network {
                    if self.bridge_exe.is_none() {
                        return Err(SandboxError::Policy(
                            "network: allowlist needs the ghostlab executable for the bridge".into(),
                        ));
                    }
                    let sock = self.layout.egress.join(bridge::SOCKET_NAME);
                    let proxy = EgressProxy::start(&sock, list.clone(), self.log.clone())
                        .map_err(|e| SandboxError::Io("starting the egress proxy".into(), e))?;
                    self.log.note(&format!(
                        "egress proxy listening on {}; allowed: {}",
                        sock.display(),
                        list.iter().map(|h| h.to_string()).collect::<Vec<_>>().join(", ")
                    ));
                    self.proxy = Some(proxy);
                }
            }
            SandboxBackend::Local => {
                tracing::warn!("sandbox backend `local`: commands run on the host WITHOUT isolation");
                self.log
                    .note("WARNING backend local: no isolation; the workspace is still a copy");
            }
            SandboxBackend::Openshell => self.openshell_create().await?,
        }
        Ok(())
    }
}

/// Hands every folder and file of the session to the sandbox user, but not the session root:
/// it stays Ghostlab's (mode 0711, so bubblewrap as that user still reaches the folders it
/// binds), so the stale sweep can take as a session only a folder of Ghostlab's own user, and
/// no sandbox process can rename HOME or the workspace for a link before they are unmounted.
/// The owner stamp and keep marker stay Ghostlab's too.
fn hand_over(dir: &std::path::Path, u: u32, g: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        if name == super::super::session_sweep::OWNER_FILE || name == super::super::session_sweep::KEEP_FILE {
            continue;
        }
        chown_tree(&entry.path(), u, g)?;
    }
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o711))
}
