//! Filling a new session: folders, the workspace copy (never the original), uploads, handing
//! the folder to the sandbox user, cgroups, and the egress proxy for an allowlist.
//!
//! It fails closed: an input the sandbox user cannot read or a network mode the backend cannot
//! enforce is an error, not a degraded session.

use super::super::bridge;
use super::super::bwrap::Layout;
use super::super::cgroup::CgroupSet;
use super::super::etc::write_minimal_etc;
use super::super::files::{CopyBudget, chown_tree, copy_tree_bounded, copy_tree_within, readable_by};
use super::super::limits::sandbox_uid;
use super::super::mcp_staging::brought;
use super::super::policy::{NetworkPolicy, SandboxPolicy};
use super::super::proxy::EgressProxy;
use super::super::scratch::{ScratchBound, mount_bounded, mount_tmpfs, unmount_subfolders};
use super::{SandboxError, Session, map_inside};
use crate::spec::SandboxBackend;
use std::path::PathBuf;

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
pub(crate) const STAGED_INPUT_BYTES: u64 = 256 << 20;
/// A folder of unix sockets (egress proxy, MCP relay) as a tmpfs: sockets take no data.
pub(super) const SOCKET_FOLDER_BYTES: u64 = 1 << 20;
/// See [`SOCKET_FOLDER_BYTES`]: one inode per relayed server's socket and a few more.
pub(super) const SOCKET_FOLDER_FILES: u64 = 1024;

impl Session {
    /// Fills the session's folders (off the async runtime: copies can be large), then sets up
    /// what its backend needs.
    pub(super) async fn prepare(&mut self) -> Result<(), SandboxError> {
        let filling = Filling {
            policy: self.policy.clone(),
            layout: self.layout.clone(),
            owner: self.owner,
        };
        let filled = tokio::task::spawn_blocking(move || filling.fill())
            .await
            .map_err(|e| SandboxError::Spawn(e.to_string()))??;
        self.layout.staged = filled.binds;
        self.scratch = filled.bound;
        self.log.note(&filled.staging_note);
        self.log.note(&filled.scratch_note);
        self.watch_storage();
        match self.policy.backend {
            SandboxBackend::Bubblewrap => self.prepare_bubblewrap()?,
            SandboxBackend::Local => {
                tracing::warn!("sandbox backend `local`: commands run on the host WITHOUT isolation");
                self.log
                    .note("WARNING backend local: no isolation; the workspace is still a copy");
            }
            SandboxBackend::Openshell => self.openshell_create().await?,
        }
        Ok(())
    }

    /// Bubblewrap's part: the cgroups, the helper executable, and the egress proxy of an
    /// allowlist (an OpenShell policy file cannot be enforced here, so it is refused).
    fn prepare_bubblewrap(&mut self) -> Result<(), SandboxError> {
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
        Ok(())
    }
}

/// What filling a session's folders needs, owned so it runs on a blocking thread.
struct Filling {
    policy: SandboxPolicy,
    layout: Layout,
    /// The sandbox user's uid:gid when Ghostlab runs as root (bubblewrap).
    owner: Option<(u32, u32)>,
}

/// What filling hands back to the session.
struct Filled {
    /// (staged copy, real path) of each input.
    binds: Vec<(PathBuf, PathBuf)>,
    staging_note: String,
    /// How HOME, TMPDIR, the workspace and uploads are bounded.
    bound: ScratchBound,
    scratch_note: String,
}

/// The inputs' copies and what was left out of them.
struct StagedInputs {
    binds: Vec<(PathBuf, PathBuf)>,
    /// Bytes of [`STAGED_INPUT_BYTES`] not used.
    budget_left: u64,
    /// Dotfiles and private files left out of folders implied by MCP server commands.
    left_out: u64,
}

fn io(what: &str) -> impl FnOnce(std::io::Error) -> SandboxError {
    let what = what.to_string();
    move |e| SandboxError::Io(what, e)
}

impl Filling {
    fn fill(self) -> Result<Filled, SandboxError> {
        let l = &self.layout;
        self.check_runtimes_readable()?;
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
        let (bound, scratch_note) = self.mount_scratch(is_root);
        // Agents keep TMPDIR under HOME (`$HOME/tmp`); made here, where HOME lives on the
        // host, so no runner creates an in-sandbox path on the host (the session folder's
        // chown below hands it to the sandbox user).
        let home_tmp = l.home.join("tmp");
        std::fs::create_dir_all(&home_tmp).map_err(io("creating HOME/tmp"))?;
        write_minimal_etc(&l.etc, inner_uid, inner_gid).map_err(io("writing the sandbox's /etc"))?;
        let (workspace_bound, workspace_files) =
            (self.policy.limits.workspace_bytes, self.policy.limits.workspace_files);
        let bounds = format!("bound {workspace_bound} bytes, {workspace_files} entries");
        let budget = self.copy_workspace_and_uploads(&bounds)?;
        let staged = self.stage_inputs()?;
        if let Some((u, g)) = self.owner {
            hand_over(&l.dir, u, g).map_err(io("handing the session folder to the sandbox user"))?;
        }
        let staging_note = format!(
            "staged {} input(s) ({} bytes) as copies in {} readable by uid {inner_uid}; {} dotfile(s) or \
             private file(s) beside MCP server commands left out; workspace copy {} bytes, {} entries ({bounds})",
            staged.binds.len(),
            STAGED_INPUT_BYTES - staged.budget_left,
            l.inputs.display(),
            staged.left_out,
            workspace_bound - budget.bytes,
            workspace_files - budget.entries
        );
        Ok(Filled {
            binds: staged.binds,
            staging_note,
            bound,
            scratch_note,
        })
    }

    /// Fails closed: an input the sandbox user cannot read would silently go missing.
    fn check_runtimes_readable(&self) -> Result<(), SandboxError> {
        let Some((u, g)) = self.owner else {
            return Ok(());
        };
        for p in self.policy.read_only.iter().filter(|p| p.exists()) {
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
        Ok(())
    }

    /// As root (not OpenShell): a bounded tmpfs on each writable folder; otherwise, or when
    /// mounting fails, the bound is measured. Returns the bound and its note.
    fn mount_scratch(&self, is_root: bool) -> (ScratchBound, String) {
        let l = &self.layout;
        let limits = &self.policy.limits;
        let (scratch_bytes, workspace_bound, workspace_files) =
            (limits.scratch_bytes, limits.workspace_bytes, limits.workspace_files);
        let mut bound = ScratchBound::Measured;
        let mut scratch_note = String::new();
        if is_root && self.policy.backend != SandboxBackend::Openshell {
            let owner = self.owner.unwrap_or((0, 0));
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
        (bound, format!("{}{scratch_note}", bound.describe(scratch_bytes)))
    }

    /// Copies the workspace (without the job's own files) and the uploads into the session,
    /// within one budget; returns what is left of it.
    fn copy_workspace_and_uploads(&self, bounds: &str) -> Result<CopyBudget, SandboxError> {
        let l = &self.layout;
        let mut budget = CopyBudget {
            bytes: self.policy.limits.workspace_bytes,
            entries: self.policy.limits.workspace_files,
        };
        // Absolute, so the copy's entries compare with the absolute paths it leaves out.
        let ws = self
            .policy
            .workspace
            .clone()
            .map(|w| std::path::absolute(&w).unwrap_or(w));
        if let Some(ws) = &ws {
            let exclude = &self.policy.workspace_exclude;
            let keep = |p: &std::path::Path, _: &std::fs::Metadata| !exclude.iter().any(|x| p == x);
            copy_tree_within(ws, &l.workspace, &mut budget, &keep)
                .map_err(io(&format!("copying the workspace {} ({bounds})", ws.display())))?;
        }
        let writable = l.writable(&self.policy.workdir);
        for (src, dest) in &self.policy.uploads {
            let host = map_inside(&writable, dest)?;
            copy_tree_within(src, &host, &mut budget, &|_, _| true)
                .map_err(io(&format!("staging upload {} ({bounds})", src.display())))?;
        }
        Ok(budget)
    }

    /// Inputs are copies, so the sandbox user reads them even when the job lives in a folder
    /// only root can enter; the originals are never shown. A folder implied by an MCP
    /// server's command comes without dotfiles and private files.
    fn stage_inputs(&self) -> Result<StagedInputs, SandboxError> {
        // Compared with the entries of canonical folders, so canonical too.
        let declared: Vec<PathBuf> = self
            .policy
            .declared
            .iter()
            .map(|d| d.canonicalize().unwrap_or_else(|_| d.clone()))
            .collect();
        let own = &self.policy.masked;
        let mut input_budget = STAGED_INPUT_BYTES;
        let mut binds = Vec::new();
        let mut left_out = 0u64;
        for (i, p) in self.policy.staged.iter().enumerate() {
            if std::fs::symlink_metadata(p).is_err() {
                continue;
            }
            let real = p.canonicalize().unwrap_or_else(|_| p.clone());
            let copy = self.layout.inputs.join(i.to_string());
            let what = format!("staging input {} (bound {STAGED_INPUT_BYTES} bytes)", real.display());
            if self.policy.implied.contains(p) {
                let mut b = CopyBudget {
                    bytes: input_budget,
                    entries: u64::MAX,
                };
                let left_out_count = std::cell::Cell::new(0u64);
                let keep = |path: &std::path::Path, meta: &std::fs::Metadata| {
                    let ok = brought(path, meta, own, &declared);
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
        Ok(StagedInputs {
            binds,
            budget_left: input_budget,
            left_out,
        })
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
