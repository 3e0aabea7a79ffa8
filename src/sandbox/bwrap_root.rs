//! The sandbox's root filesystem as bwrap arguments, and what they read of the host's own root.
//!
//! `isolated` shows only the system runtime and the session's generated /etc; `read_only`
//! binds every top-level host entry read-only, with homes, /tmp, /run and /var/tmp as empty
//! tmpfs, secret files as /dev/null and the user's checkout masked. Both end with /dev, /proc
//! and the kernel masks, before any bind of `super::bwrap_binds` (a later tmpfs would hide it).

use std::path::Path;

use super::super::bwrap_data::Views;
use super::super::inputs::SYSTEM_RUNTIME;
use super::super::policy::SandboxPolicy;
use super::layout::{Layout, TMPFS_BYTES, push};

/// Host folders replaced by an empty tmpfs in every sandbox.
pub(crate) const MASKED_DIRS: &[&str] = &["/tmp", "/run", "/var/tmp", "/root", "/home"];
/// Host files replaced by /dev/null: readable by root-owned processes even without caps.
const MASKED_FILES: &[&str] = &[
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/shadow-",
    "/etc/gshadow-",
    "/etc/sudoers",
];
/// Top-level entries that get special mounts rather than a read-only bind.
const SPECIAL_TOP: &[&str] = &["proc", "dev", "tmp", "run", "root", "home", "sandbox"];
/// Size of the in-sandbox /dev/shm (a tmpfs per command).
pub(super) const SHM_BYTES: u64 = 256 << 20;
/// procfs files replaced by /dev/null: the kernel keys (and key users) the uid may view.
const HIDDEN_PROC_FILES: &[&str] = &["/proc/keys", "/proc/key-users"];

/// A top-level entry of the host's root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RootEntry {
    /// `/path` is a symlink to `target` (recreated as the same link inside).
    Symlink { path: String, target: String },
    /// `/path` is a folder or file (bound read-only at the same path).
    Bind { path: String },
}

/// What the argv reads of the host's root, read once per command (tests give their own).
#[derive(Debug, Clone, Default)]
pub(crate) struct HostRoot {
    /// The top-level entries but [`SPECIAL_TOP`] and `lost+found`, sorted by name.
    pub(crate) entries: Vec<RootEntry>,
    /// The [`MASKED_DIRS`] that exist as folders, in that order.
    pub(crate) masked_dirs: Vec<&'static str>,
    /// The [`MASKED_FILES`] that exist, in that order.
    pub(crate) masked_files: Vec<&'static str>,
    /// `/etc/ssh/ssh_host_*_key`, sorted.
    pub(crate) ssh_host_keys: Vec<String>,
}

impl HostRoot {
    /// This host's root.
    pub(crate) fn read() -> HostRoot {
        HostRoot {
            entries: root_entries(),
            masked_dirs: MASKED_DIRS.iter().copied().filter(|d| Path::new(d).is_dir()).collect(),
            masked_files: MASKED_FILES.iter().copied().filter(|f| Path::new(f).exists()).collect(),
            ssh_host_keys: ssh_host_keys(),
        }
    }
}

/// The isolated root: the system runtime's entries, the generated /etc (by content when
/// `views` has it), /dev, /proc and a bounded /tmp.
pub(super) fn isolated(host: &HostRoot, layout: &Layout, views: &Views) -> Vec<String> {
    let mut a = Vec::new();
    for entry in &host.entries {
        let path = match entry {
            RootEntry::Symlink { path, .. } | RootEntry::Bind { path } => path,
        };
        if SYSTEM_RUNTIME.contains(&path.as_str()) {
            push_entry(&mut a, entry);
        }
    }
    match &views.etc {
        Some(view) => a.extend(view.iter().cloned()),
        None => push(&mut a, &["--ro-bind", &layout.etc.to_string_lossy(), "/etc"]),
    }
    push(&mut a, &["--dev", "/dev", "--proc", "/proc"]);
    push_kernel_masks(&mut a);
    push(&mut a, &["--size", &TMPFS_BYTES.to_string(), "--tmpfs", "/tmp"]);
    a
}

/// The read-only root: every top-level host entry, /dev, /proc, then the masks (homes, /tmp,
/// /run, secret files, SSH host keys, the policy's masked folders).
pub(super) fn read_only(host: &HostRoot, policy: &SandboxPolicy) -> Vec<String> {
    let mut a = Vec::new();
    for entry in &host.entries {
        push_entry(&mut a, entry);
    }
    push(&mut a, &["--dev", "/dev", "--proc", "/proc"]);
    push_kernel_masks(&mut a);
    for d in &host.masked_dirs {
        if *d == "/tmp" {
            push(&mut a, &["--size", &TMPFS_BYTES.to_string()]);
        }
        push(&mut a, &["--tmpfs", d]);
    }
    for f in &host.masked_files {
        push(&mut a, &["--ro-bind", "/dev/null", f]);
    }
    for key in &host.ssh_host_keys {
        push(&mut a, &["--ro-bind", "/dev/null", key]);
    }
    for m in &policy.masked {
        if m.is_dir() {
            push(&mut a, &["--tmpfs", &m.to_string_lossy()]);
        }
    }
    a
}

fn push_entry(a: &mut Vec<String>, entry: &RootEntry) {
    match entry {
        RootEntry::Symlink { path, target } => push(a, &["--symlink", target, path]),
        RootEntry::Bind { path } => push(a, &["--ro-bind", path, path]),
    }
}

/// After `--dev` and `--proc`: /dev/shm as its own bounded tmpfs (bwrap's /dev is an
/// unbounded one), and the kernel's key lists hidden (a same-uid sandbox would otherwise list
/// the host user's keys by description).
fn push_kernel_masks(a: &mut Vec<String>) {
    let shm = SHM_BYTES.to_string();
    push(a, &["--size", &shm, "--tmpfs", "/dev/shm"]);
    for f in HIDDEN_PROC_FILES {
        push(a, &["--ro-bind", "/dev/null", f]);
    }
}

/// The host's top-level entries but the special ones, sorted by name.
fn root_entries() -> Vec<RootEntry> {
    let Ok(dir) = std::fs::read_dir("/") else {
        return Vec::new();
    };
    let mut names: Vec<String> = dir
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut out = Vec::new();
    for name in names {
        if SPECIAL_TOP.contains(&name.as_str()) || name == "lost+found" {
            continue;
        }
        let path = format!("/{name}");
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => {
                if let Ok(t) = std::fs::read_link(&path) {
                    let target = t.to_string_lossy().into_owned();
                    out.push(RootEntry::Symlink { path, target });
                }
            }
            Ok(m) if m.is_dir() || m.is_file() => out.push(RootEntry::Bind { path }),
            _ => {}
        }
    }
    out
}

fn ssh_host_keys() -> Vec<String> {
    let Ok(dir) = std::fs::read_dir("/etc/ssh") else {
        return Vec::new();
    };
    let mut keys: Vec<String> = dir
        .filter_map(Result::ok)
        .map(|e| e.path().to_string_lossy().into_owned())
        .filter(|p| p.contains("ssh_host_") && p.ends_with("_key"))
        .collect();
    keys.sort();
    keys
}
