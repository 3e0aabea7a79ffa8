//! Probes of Ghostlab's own host-side file work on trees the agent wrote: what it copies out
//! (downloads, a kept session's HOME and workspace) must not keep a setuid bit or follow a
//! link the agent planted in a folder, and the stale-session sweep must not detach a host
//! mount through a folder planted in the temp folder.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use ghostlab::sandbox::{ExecOptions, Role, Sandbox, SandboxPolicy, Session};

use super::super::isolation::Ctx;
use super::super::{Row, sh, short, summary};
use super::{held, out_text, tag, wrapped};

fn is_root() -> bool {
    // SAFETY: trivial getter.
    unsafe { libc::geteuid() == 0 }
}

fn not_applicable(name: &str, why: &str) -> Row {
    Row {
        probe: name.into(),
        expected: "denied",
        observed: why.into(),
        verdict: "N/A",
    }
}

async fn exec(s: &Session, script: &str) -> ghostlab::sandbox::ExecOutput {
    s.exec(&sh(script), &ExecOptions::default(), None).await.unwrap()
}

/// Files below `dir` (not following links) with a setuid/setgid bit, or owned by anyone
/// but Ghostlab's user, as `path mode uid` lines.
fn privileged_files(dir: &Path) -> Vec<String> {
    // SAFETY: trivial getter.
    let me = unsafe { libc::geteuid() };
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(p) = stack.pop() {
        let Ok(m) = p.symlink_metadata() else { continue };
        if m.is_dir() {
            stack.extend(std::fs::read_dir(&p).into_iter().flatten().flatten().map(|e| e.path()));
        }
        // Setuid to Ghostlab's own unprivileged user grants nothing; to any other, or as root, it does.
        let setid = m.mode() & 0o6000 != 0;
        if m.is_file() && setid && (m.uid() != me || me == 0) {
            out.push(format!("{} {:o} uid {}", p.display(), m.mode() & 0o7777, m.uid()));
        }
    }
    out
}

pub async fn download_setuid(ctx: &Ctx, name: &'static str) -> Row {
    let s = ctx.sandbox.session(Role::Agent).await.unwrap();
    let o = exec(&s, "cp /bin/sh y && chmod 6755 y && ls -l y").await;
    let local = std::env::temp_dir().join(format!("ghostlab-download-{}", tag()));
    let r = s.download(&format!("{}/y", s.policy().workdir), &local).await;
    let meta = local.symlink_metadata().ok();
    let _ = std::fs::remove_file(&local);
    s.delete().await.unwrap();
    // SAFETY: trivial getter.
    let me = unsafe { libc::geteuid() };
    let (mode, uid) = meta.map(|m| (m.mode() & 0o7777, m.uid())).unwrap_or((0, me));
    held(
        name,
        "denied",
        short(&format!("downloaded mode {mode:o} uid {uid} ({r:?}); {}", summary(&o))),
        r.is_ok() && mode & 0o7000 == 0 && uid == me,
    )
}

/// The agent links `link` (a path in its workspace) to the host's `outside` folder, then a
/// download asks for `link/canary.txt`.
async fn download_through(ctx: &Ctx, name: &'static str, setup: &str, asked: &str) -> Row {
    let s = ctx.sandbox.session(Role::Agent).await.unwrap();
    let o = exec(&s, &setup.replace("OUTSIDE", &ctx.outside.display().to_string())).await;
    let local = std::env::temp_dir().join(format!("ghostlab-download-{}", tag()));
    let r = s.download(&format!("{}/{asked}", s.policy().workdir), &local).await;
    let got = std::fs::read_to_string(&local).unwrap_or_default();
    let _ = std::fs::remove_file(&local);
    s.delete().await.unwrap();
    held(
        name,
        "denied",
        short(&format!(
            "host canary copied: {}; download {}; {}",
            got.contains(&ctx.secret),
            if r.is_ok() { "succeeded" } else { "refused" },
            summary(&o)
        )),
        !got.contains(&ctx.secret) && r.is_err(),
    )
}

pub async fn download_linked_folder(ctx: &Ctx, name: &'static str) -> Row {
    download_through(ctx, name, "ln -s OUTSIDE reports", "reports/canary.txt").await
}

pub async fn download_linked_deeper(ctx: &Ctx, name: &'static str) -> Row {
    download_through(
        ctx,
        name,
        "mkdir -p out/a && ln -s OUTSIDE out/a/b",
        "out/a/b/canary.txt",
    )
    .await
}

pub async fn kept_session_setuid(ctx: &Ctx, name: &'static str) -> Row {
    let job = ghostlab::spec::load_job(&ctx.job_file).unwrap();
    let mut policy = SandboxPolicy::from_job(&job).unwrap();
    policy.keep = true;
    let logs = tempfile::tempdir().unwrap();
    let sb = Sandbox::open_with(policy, logs.path().to_path_buf(), Some(ctx.bridge.clone()))
        .await
        .unwrap();
    let s = sb.session(Role::Agent).await.unwrap();
    let o = exec(
        &s,
        "cp /bin/sh \"$HOME/x\" && chmod 6755 \"$HOME/x\" && cp /bin/sh y && chmod 4755 y && mkdir -m 3777 d",
    )
    .await;
    let dir: PathBuf = s.dir().to_path_buf();
    s.delete().await.unwrap();
    let found = privileged_files(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    held(
        name,
        "denied",
        short(&format!("setuid files kept: {found:?}; {}", summary(&o))),
        found.is_empty() && o.status == 0,
    )
}

/// A host mount (a tmpfs of another source holding a canary) at a fresh folder.
struct HostMount {
    at: PathBuf,
}

impl HostMount {
    fn new(ctx: &Ctx) -> Option<HostMount> {
        let at = ctx.outside.join(format!("host-mount-{}", tag()));
        std::fs::create_dir(&at).ok()?;
        let c = std::ffi::CString::new(at.as_os_str().as_encoded_bytes()).ok()?;
        // SAFETY: mount(2) with NUL-terminated strings.
        let rc = unsafe {
            libc::mount(
                c"hostdata".as_ptr(),
                c.as_ptr(),
                c"tmpfs".as_ptr(),
                0,
                c"size=1m".as_ptr().cast(),
            )
        };
        if rc != 0 {
            return None;
        }
        std::fs::write(at.join("canary.txt"), "HOST-MOUNT").ok()?;
        Some(HostMount { at })
    }

    fn intact(&self) -> bool {
        let listed = std::fs::read_to_string("/proc/self/mountinfo")
            .unwrap_or_default()
            .contains(&format!(" {} ", self.at.display()));
        listed && std::fs::read_to_string(self.at.join("canary.txt")).is_ok_and(|t| t == "HOST-MOUNT")
    }
}

impl Drop for HostMount {
    fn drop(&mut self) {
        if let Ok(c) = std::ffi::CString::new(self.at.as_os_str().as_encoded_bytes()) {
            // SAFETY: umount2 on a NUL-terminated path.
            unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) };
        }
        let _ = std::fs::remove_dir(&self.at);
    }
}

/// Plants a stale-looking session folder in the temp folder a `ghostlab` start sweeps, owned
/// by `owner`, whose `entry` is made by `make`; then starts `ghostlab sandbox exec`.
async fn sweep_probe(
    ctx: &Ctx,
    name: &'static str,
    owner: u32,
    make: impl Fn(&Path, &HostMount) -> std::io::Result<Option<&'static str>>,
) -> Row {
    if !is_root() {
        return not_applicable(
            name,
            "mounting a host folder and planting another user's folder need root",
        );
    }
    let Some(mount) = HostMount::new(ctx) else {
        return not_applicable(name, "cannot mount a tmpfs here");
    };
    // Made under another name, then renamed into place whole: the reaper of an earlier
    // Ghostlab process may sweep the temp folder at any moment and must not find it half-made.
    let id = tag();
    let staging = std::env::temp_dir().join(format!("probe-planting-{id}"));
    let planted = std::env::temp_dir().join(format!("ghostlab-sandbox-agent-deadbeef-{id}"));
    std::fs::create_dir(&staging).unwrap();
    std::fs::write(staging.join("owner.pid"), "999999 1").unwrap();
    let extra = make(&staging, &mount).unwrap().map(|name| planted.join(name));
    for p in [staging.clone(), staging.join("owner.pid")] {
        std::os::unix::fs::lchown(&p, Some(owner), Some(owner)).unwrap();
    }
    std::fs::rename(&staging, &planted).unwrap();
    let o = wrapped(ctx, &ctx.job_file, &[], None, "true");
    let listed = |p: &Path| {
        std::fs::read_to_string("/proc/self/mountinfo")
            .unwrap_or_default()
            .contains(&format!(" {} ", p.display()))
    };
    let intact = mount.intact() && extra.as_deref().is_none_or(listed);
    if let Some(e) = &extra
        && let Ok(c) = std::ffi::CString::new(e.as_os_str().as_encoded_bytes())
    {
        // SAFETY: umount2 on a NUL-terminated path (cleanup, before the folder is removed).
        unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) };
    }
    let _ = std::fs::remove_dir_all(&planted);
    held(
        name,
        "denied",
        short(&format!("host mount intact: {intact}; ghostlab: {}", out_text(&o))),
        intact,
    )
}

pub async fn sweep_foreign_link(ctx: &Ctx, name: &'static str) -> Row {
    sweep_probe(ctx, name, 65534, |dir, m| {
        std::os::unix::fs::symlink(&m.at, dir.join("home")).map(|()| None)
    })
    .await
}

pub async fn sweep_own_link(ctx: &Ctx, name: &'static str) -> Row {
    sweep_probe(ctx, name, 0, |dir, m| {
        std::os::unix::fs::symlink(&m.at, dir.join("workspace")).map(|()| None)
    })
    .await
}

pub async fn sweep_other_mount(ctx: &Ctx, name: &'static str) -> Row {
    // The host mount bound into the planted folder as its `tmp`: a real mount point there,
    // but not a Ghostlab scratch tmpfs; neither detached nor emptied.
    sweep_probe(ctx, name, 0, |dir, m| {
        std::fs::create_dir(dir.join("tmp"))?;
        let (from, to) = (
            std::ffi::CString::new(m.at.as_os_str().as_encoded_bytes())?,
            std::ffi::CString::new(dir.join("tmp").as_os_str().as_encoded_bytes())?,
        );
        // SAFETY: mount(2) bind with NUL-terminated paths.
        let rc = unsafe {
            libc::mount(
                from.as_ptr(),
                to.as_ptr(),
                std::ptr::null(),
                libc::MS_BIND,
                std::ptr::null(),
            )
        };
        if rc != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Some("tmp"))
    })
    .await
}
