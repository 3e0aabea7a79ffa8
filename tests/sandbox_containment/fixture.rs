//! What the containment probes are aimed at: a user's checkout with a job, canaries in it, in
//! a host folder outside it, in /home and in /root, and small host-side helpers (an HTTP
//! server, a process search).

use std::io::{Read, Write};
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};

pub struct Fixture {
    pub checkout: PathBuf,
    _checkout_guard: tempfile::TempDir,
    pub outside: PathBuf,
    _outside_guard: tempfile::TempDir,
    _outside_socket: Option<UnixListener>,
    home_dir: Option<tempfile::TempDir>,
    /// The /home folder holding `canary.txt`, planted here or by the root parent.
    pub planted_home: Option<PathBuf>,
    pub root_canary: Option<PathBuf>,
    pub secret: String,
}

impl Drop for Fixture {
    fn drop(&mut self) {
        if let Some(p) = &self.root_canary
            && std::env::var_os("GHOSTLAB_CONTAINMENT_ROOT_CANARY").is_none()
        {
            let _ = std::fs::remove_file(p);
        }
        self.home_dir.take();
    }
}

/// Where fixtures live: `GHOSTLAB_CONTAINMENT_BASE` (set for the non-root re-run), else the
/// target's temp folder.
pub fn base_dir() -> PathBuf {
    std::env::var_os("GHOSTLAB_CONTAINMENT_BASE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")))
}

fn mode(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

pub fn setup() -> Fixture {
    let base = base_dir();
    std::fs::create_dir_all(&base).unwrap();
    let guard = tempfile::Builder::new()
        .prefix("containment-checkout-")
        .tempdir_in(&base)
        .unwrap();
    let checkout = guard.path().to_path_buf();
    // The checkout must be traversable by the unprivileged sandbox user, as a normal one is.
    mode(&checkout, 0o755);
    let secret = std::env::var("GHOSTLAB_CONTAINMENT_SECRET")
        .unwrap_or_else(|_| format!("canary-{:016x}", rand::random::<u64>()));
    let (outside_guard, outside_socket) = plant_outside(&base, &secret);
    let outside = outside_guard.path().to_path_buf();
    write_checkout(&checkout, &outside, &secret);
    let (home_dir, planted_home) = plant_home_canary(&secret);
    Fixture {
        checkout,
        _checkout_guard: guard,
        outside,
        _outside_guard: outside_guard,
        _outside_socket: outside_socket,
        planted_home,
        home_dir,
        root_canary: plant_root_canary(&secret),
        secret,
    }
}

/// A world-readable host folder that is not part of the job, with a canary and a listening
/// unix socket: in isolated mode it must not exist inside at all.
fn plant_outside(base: &Path, secret: &str) -> (tempfile::TempDir, Option<UnixListener>) {
    let guard = tempfile::Builder::new()
        .prefix("containment-outside-")
        .tempdir_in(base)
        .unwrap();
    let outside = guard.path();
    mode(outside, 0o755);
    std::fs::write(outside.join("canary.txt"), format!("OUTSIDE-{secret}\n")).unwrap();
    mode(&outside.join("canary.txt"), 0o644);
    let socket = UnixListener::bind(outside.join("host.sock")).ok();
    let _ = std::fs::set_permissions(outside.join("host.sock"), std::fs::Permissions::from_mode(0o777));
    if let Some(l) = &socket {
        let l = l.try_clone().unwrap();
        std::thread::spawn(move || {
            for mut c in l.incoming().flatten() {
                let _ = c.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nHOST-SOCKET");
            }
        });
    }
    (guard, socket)
}

/// The job (bubblewrap, no network, tight limits), its instructions, a canary beside it and a
/// workspace with a file and symlinks to the shadow file and the canaries.
fn write_checkout(checkout: &Path, outside: &Path, secret: &str) {
    std::fs::write(checkout.join("AGENTS.md"), "You are a probe agent.\n").unwrap();
    std::fs::write(checkout.join("secret-canary.txt"), format!("CHECKOUT-{secret}\n")).unwrap();
    std::fs::create_dir_all(checkout.join("ws")).unwrap();
    std::fs::write(checkout.join("ws/file.txt"), "original\n").unwrap();
    std::os::unix::fs::symlink("/etc/shadow", checkout.join("ws/link-shadow")).unwrap();
    std::os::unix::fs::symlink(checkout.join("secret-canary.txt"), checkout.join("ws/link-canary")).unwrap();
    std::os::unix::fs::symlink(outside.join("canary.txt"), checkout.join("ws/link-outside")).unwrap();
    std::fs::write(
        checkout.join("job.yaml"),
        "version: 1\nagent:\n  id: probe\n  runtime:\n    instructions: [./AGENTS.md]\n  workspace: ./ws\n\
         sandbox:\n  backend: bubblewrap\n  network: disabled\n  env_allowlist: [GHOSTLAB_TEST_ALLOWED]\n\
         \x20 processes: 40\n  file_size: 1MiB\n  memory: 256MiB\n  timeout: 20s\n  cpu: 1\n",
    )
    .unwrap();
}

/// A canary in a /home folder: the non-root re-run gets the one its root parent planted (it
/// cannot plant it); none where /home is not writable.
fn plant_home_canary(secret: &str) -> (Option<tempfile::TempDir>, Option<PathBuf>) {
    if let Some(p) = std::env::var_os("GHOSTLAB_CONTAINMENT_HOME_CANARY") {
        return (None, Some(PathBuf::from(p)));
    }
    let h = tempfile::Builder::new()
        .prefix("ghostlab-canary-")
        .tempdir_in("/home")
        .ok();
    if let Some(h) = &h {
        std::fs::write(h.path().join("canary.txt"), format!("HOME-{secret}\n")).unwrap();
    }
    let p = h.as_ref().map(|h| h.path().to_path_buf());
    (h, p)
}

/// A canary in /root: the one the root parent planted, else one planted here when allowed.
fn plant_root_canary(secret: &str) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("GHOSTLAB_CONTAINMENT_ROOT_CANARY") {
        return Some(PathBuf::from(p));
    }
    let p = PathBuf::from(format!("/root/.ghostlab-canary-{:08x}", rand::random::<u32>()));
    std::fs::write(&p, format!("ROOT-{secret}\n")).ok().map(|_| p)
}

/// An HTTP server on 127.0.0.1 answering every request with `body`.
pub fn http_server(body: &'static str) -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut c in l.incoming().flatten() {
            let mut buf = [0u8; 4096];
            let _ = c.read(&mut buf);
            let resp = format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = c.write_all(resp.as_bytes());
        }
    });
    port
}

pub fn host_has_process_with_arg(arg: &str) -> bool {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(Result::ok)
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .any(|c| c.split(|b| *b == 0).any(|a| a == arg.as_bytes()))
}

pub fn sh(script: &str) -> Vec<String> {
    vec!["sh".into(), "-c".into(), script.into()]
}
