//! Filling a new session: folders, the workspace copy (never the original), uploads, handing
//! the folder to the sandbox user, cgroups, and the egress proxy for an allowlist.
//!
//! It fails closed: an input the sandbox user cannot read or a network mode the backend cannot
//! enforce is an error, not a degraded session.

use super::super::bridge;
use super::super::cgroup::CgroupSet;
use super::super::files::{chown_tree, copy_tree, readable_by};
use super::super::policy::NetworkPolicy;
use super::super::proxy::EgressProxy;
use super::{SandboxError, Session, map_inside};
use crate::spec::SandboxBackend;

impl Session {
    pub(super) async fn prepare(&mut self) -> Result<(), SandboxError> {
        let l = self.layout.clone();
        let ws = self.policy.workspace.clone();
        let owner = self.owner;
        let uploads = self.policy.uploads.clone();
        let writable = l.writable(&self.policy.workdir);
        let inputs = self.policy.read_only.clone();
        tokio::task::spawn_blocking(move || -> Result<(), SandboxError> {
            if let Some((u, g)) = owner {
                // Fail closed: an input the sandbox user cannot read would silently go missing.
                for p in inputs.iter().filter(|p| p.exists()) {
                    let real = p.canonicalize().unwrap_or_else(|_| p.clone());
                    if !readable_by(&real, u, g) {
                        return Err(SandboxError::Policy(format!(
                            "input {} is not readable by the sandbox user (uid {u}); sandboxed processes run \
                             unprivileged when ghostlab runs as root, so keep the job outside /root or make \
                             its inputs world-readable",
                            real.display()
                        )));
                    }
                }
            }
            let io = |what: &str| {
                let what = what.to_string();
                move |e| SandboxError::Io(what, e)
            };
            for d in [&l.workspace, &l.home, &l.tmp, &l.uploads, &l.egress] {
                std::fs::create_dir_all(d).map_err(io("creating session folders"))?;
            }
            if let Some(ws) = &ws {
                copy_tree(ws, &l.workspace).map_err(io(&format!("copying the workspace {}", ws.display())))?;
            }
            for (src, dest) in &uploads {
                let host = map_inside(&writable, dest)?;
                copy_tree(src, &host).map_err(io(&format!("staging upload {}", src.display())))?;
            }
            if let Some((u, g)) = owner {
                chown_tree(&l.dir, u, g).map_err(io("handing the session folder to the sandbox user"))?;
            }
            Ok(())
        })
        .await
        .map_err(|e| SandboxError::Spawn(e.to_string()))??;
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
                if let NetworkPolicy::Allowlist(list) = &self.policy.network {
                    let exe = self.bridge_exe.clone().ok_or_else(|| {
                        SandboxError::Policy("network: allowlist needs the ghostlab executable for the bridge".into())
                    })?;
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
