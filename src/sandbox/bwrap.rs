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
use super::bwrap_data::Views;
use super::inputs::SYSTEM_RUNTIME;
use super::policy::SandboxPolicy;
use super::scope::{Access, Area, Capability, Scope};
use crate::spec::RootFilesystem;

/// Host folders replaced by an empty tmpfs in every sandbox.
pub const MASKED_DIRS: &[&str] = &["/tmp", "/run", "/var/tmp", "/root", "/home"];
/// Host files replaced by /dev/null: readable by root-owned processes even without caps.
pub const MASKED_FILES: &[&str] = &[
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/shadow-",
    "/etc/gshadow-",
    "/etc/sudoers",
];
/// Top-level entries that get special mounts rather than a read-only bind.
const SPECIAL_TOP: &[&str] = &["proc", "dev", "tmp", "run", "root", "home", "sandbox"];

/// Host folders of one session.
#[derive(Debug, Clone)]
pub struct Layout {
    /// The session folder; everything below belongs to the session.
    pub dir: PathBuf,
    /// The workspace copy, bound at the policy's workdir.
    pub workspace: PathBuf,
    /// HOME inside (`/sandbox/home`).
    pub home: PathBuf,
    /// TMPDIR inside (`/sandbox/tmp`); persists across commands, unlike /tmp.
    pub tmp: PathBuf,
    /// Uploaded files (`/sandbox/uploads`).
    pub uploads: PathBuf,
    /// Folder of the egress proxy socket.
    pub egress: PathBuf,
    /// The generated /etc of an isolated sandbox.
    pub etc: PathBuf,
    /// Generated agent configuration (`/sandbox/config`, read-only inside).
    pub config: PathBuf,
    /// Staged copies of the job's inputs.
    pub inputs: PathBuf,
    /// Sockets of the MCP relay (`/run/ghostlab-mcp` inside, read-only).
    pub mcp: PathBuf,
    /// (staged copy on the host, real host path it is shown at inside).
    pub staged: Vec<(PathBuf, PathBuf)>,
}

/// HOME inside the sandbox.
pub const HOME_INSIDE: &str = "/sandbox/home";
/// TMPDIR inside the sandbox.
pub const TMP_INSIDE: &str = "/sandbox/tmp";
/// Upload folder inside the sandbox.
pub const UPLOADS_INSIDE: &str = "/sandbox/uploads";
/// Generated agent configuration inside the sandbox.
pub const CONFIG_INSIDE: &str = "/sandbox/config";
/// The MCP relay's sockets inside the sandbox.
pub const MCP_SOCKETS_INSIDE: &str = "/run/ghostlab-mcp";
/// Size of the in-sandbox /tmp (a tmpfs per command).
pub const TMPFS_BYTES: u64 = 256 << 20;
/// Size of the in-sandbox /dev/shm (a tmpfs per command).
pub const SHM_BYTES: u64 = 256 << 20;
/// procfs files replaced by /dev/null: the kernel keys (and key users) the uid may view.
pub const HIDDEN_PROC_FILES: &[&str] = &["/proc/keys", "/proc/key-users"];

impl Layout {
    /// The layout below `dir`.
    pub fn new(dir: &Path) -> Self {
        Layout {
            dir: dir.to_path_buf(),
            workspace: dir.join("workspace"),
            home: dir.join("home"),
            tmp: dir.join("tmp"),
            uploads: dir.join("uploads"),
            egress: dir.join("egress"),
            etc: dir.join("etc"),
            config: dir.join("config"),
            inputs: dir.join("inputs"),
            mcp: dir.join("mcp"),
            staged: Vec::new(),
        }
    }

    /// The session's writable folders that are size-bounded tmpfs mounts when Ghostlab runs
    /// as root (see `super::scratch`).
    pub fn bounded(&self) -> [&PathBuf; 4] {
        [&self.home, &self.tmp, &self.workspace, &self.uploads]
    }

    /// The writable (host folder, path inside) pairs; uploads and downloads go through these.
    pub fn writable(&self, workdir: &str) -> Vec<(PathBuf, String)> {
        vec![
            (self.workspace.clone(), workdir.to_string()),
            (self.home.clone(), HOME_INSIDE.to_string()),
            (self.tmp.clone(), TMP_INSIDE.to_string()),
            (self.uploads.clone(), UPLOADS_INSIDE.to_string()),
        ]
    }
}

/// Everything that varies per command.
#[derive(Debug, Clone)]
pub struct CommandSpec<'a> {
    /// Start folder inside the sandbox.
    pub chdir: &'a str,
    /// The seccomp program's fd number in the launcher.
    pub seccomp_fd: i32,
    /// The bridge executable when the network is an allowlist.
    pub bridge_exe: Option<&'a Path>,
    /// The ghostlab executable shown read-only (egress bridge, MCP relay connector).
    pub helper_exe: Option<&'a Path>,
    /// What to run.
    pub argv: &'a [String],
    /// What of the session this command sees (the whole session's scope for most commands).
    pub scope: &'a Scope,
    /// The host folder of the egress proxy socket this command's bridge uses.
    pub egress_dir: &'a Path,
    /// The fd of the socket the network watch shim hands its listener over (`watch_shim`);
    /// the shim is `helper_exe`, which must then be set.
    pub watch_fd: Option<i32>,
    /// Session folders shown by content rather than bound, so their host path does not show
    /// in the sandbox's mountinfo (`super::bwrap_data`); a folder without a view is bound.
    pub views: &'a Views,
}

/// The `bwrap` arguments (without the program name).
pub fn args(policy: &SandboxPolicy, layout: &Layout, spec: &CommandSpec<'_>) -> Vec<String> {
    let mut a: Vec<String> = Vec::new();
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
    let isolated = policy.root_filesystem == RootFilesystem::Isolated;
    let tmp_size = TMPFS_BYTES.to_string();
    if isolated {
        for (kind, path, target) in root_entries() {
            if !SYSTEM_RUNTIME.contains(&path.as_str()) {
                continue;
            }
            match kind {
                Entry::Symlink => push(&mut a, &["--symlink", &target, &path]),
                Entry::Bind => push(&mut a, &["--ro-bind", &path, &path]),
            }
        }
        match &spec.views.etc {
            Some(view) => a.extend(view.iter().cloned()),
            None => push(&mut a, &["--ro-bind", &layout.etc.to_string_lossy(), "/etc"]),
        }
        push(&mut a, &["--dev", "/dev", "--proc", "/proc"]);
        push_kernel_masks(&mut a);
        push(&mut a, &["--size", &tmp_size, "--tmpfs", "/tmp"]);
    } else {
        for (kind, path, target) in root_entries() {
            match kind {
                Entry::Symlink => push(&mut a, &["--symlink", &target, &path]),
                Entry::Bind => push(&mut a, &["--ro-bind", &path, &path]),
            }
        }
        push(&mut a, &["--dev", "/dev", "--proc", "/proc"]);
        push_kernel_masks(&mut a);
        for d in MASKED_DIRS {
            if Path::new(d).is_dir() {
                if *d == "/tmp" {
                    push(&mut a, &["--size", &tmp_size]);
                }
                push(&mut a, &["--tmpfs", d]);
            }
        }
        for f in MASKED_FILES {
            if Path::new(f).exists() {
                push(&mut a, &["--ro-bind", "/dev/null", f]);
            }
        }
        for key in ssh_host_keys() {
            push(&mut a, &["--ro-bind", "/dev/null", &key]);
        }
        for m in &policy.masked {
            if m.is_dir() {
                push(&mut a, &["--tmpfs", &m.to_string_lossy()]);
            }
        }
    }
    // Binds come after every tmpfs so they are not hidden again.
    let hidden: Vec<PathBuf> = MASKED_DIRS
        .iter()
        .map(PathBuf::from)
        .chain(policy.masked.iter().cloned())
        .collect();
    // Only what the scope shows of each path; the whole session's scope shows every path.
    let shown_read_only: Vec<PathBuf> = policy
        .read_only
        .iter()
        .flat_map(|p| {
            spec.scope
                .part_of(p)
                .into_iter()
                .map(|(part, _)| part)
                .filter(move |part| resolves_within(part, p))
        })
        .collect();
    for p in &shown_read_only {
        // Symlinked runtimes are bound at their real path, which is what the link resolves to.
        let real = p.canonicalize().unwrap_or_else(|_| p.clone());
        // In read_only mode anything not under a mask is already visible through the root binds.
        let needed = if isolated {
            !SYSTEM_RUNTIME.iter().any(|s| real.starts_with(s))
        } else {
            hidden.iter().any(|h| real.starts_with(h))
        };
        if real.exists() && needed {
            let s = real.to_string_lossy();
            push(&mut a, &["--ro-bind", &s, &s]);
        }
    }
    for (from, shown) in staged_parts(layout, spec.scope) {
        match spec.views.inputs.get(&shown) {
            Some(view) => a.extend(view.iter().cloned()),
            None => a.extend([
                "--ro-bind".into(),
                from.to_string_lossy().into_owned(),
                shown.to_string_lossy().into_owned(),
            ]),
        }
    }
    if isolated {
        // Paths reached through host symlinks (a checkout's node_modules linked elsewhere)
        // must resolve inside as on the host: recreate each link on the way to the bound
        // real path.
        let bound: Vec<PathBuf> = policy
            .read_only
            .iter()
            .map(|p| p.canonicalize().unwrap_or_else(|_| p.clone()))
            .chain(layout.staged.iter().map(|(_, r)| r.clone()))
            .collect();
        let mut links: Vec<(String, String)> = Vec::new();
        for p in policy.read_only.iter().chain(policy.staged.iter()) {
            for link in symlink_chain(p) {
                let under_bound = bound.iter().any(|b| Path::new(&link.1).starts_with(b));
                let in_system = SYSTEM_RUNTIME.iter().any(|s| Path::new(&link.1).starts_with(s));
                if !under_bound && !in_system && !links.contains(&link) {
                    links.push(link);
                }
            }
        }
        for (target, link) in &links {
            push(&mut a, &["--symlink", target, link]);
        }
    }
    for p in &policy.read_write {
        for (shown, access) in spec.scope.part_of(p) {
            if !resolves_within(&shown, p) {
                continue;
            }
            let real = shown.canonicalize().unwrap_or(shown);
            let s = real.to_string_lossy();
            let how = if access == Access::ReadWrite {
                "--bind"
            } else {
                "--ro-bind"
            };
            push(&mut a, &[how, &s, &s]);
        }
    }
    if let Some(exe) = spec.helper_exe.or(spec.bridge_exe) {
        let s = exe.to_string_lossy();
        push(&mut a, &["--ro-bind", &s, &s]);
    }
    // The session's folders as the scope shares them; one it keeps private is an empty
    // tmpfs of the session's scratch bound, gone when the command ends.
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

/// The staged inputs `scope` shows, as (host copy or the part of it, path shown inside); a
/// part whose symlinks lead outside its copy is left out.
pub fn staged_parts(layout: &Layout, scope: &Scope) -> Vec<(PathBuf, PathBuf)> {
    let mut out = Vec::new();
    for (copy, real) in &layout.staged {
        for (shown, _) in scope.part_of(real) {
            let from = match shown.strip_prefix(real) {
                Ok(rest) if !rest.as_os_str().is_empty() => copy.join(rest),
                _ => copy.clone(),
            };
            if resolves_within(&from, copy) {
                out.push((from, shown));
            }
        }
    }
    out
}

/// Whether `part` of a bound `root` is still inside it once symlinks are followed (bwrap follows
/// them in a bind's source): a scope's part that leads elsewhere — a link to /etc inside a
/// runtime folder — would show more than its parent did, so it is not bound. `root` itself is
/// bound as the policy says.
fn resolves_within(part: &Path, root: &Path) -> bool {
    if part == root {
        return true;
    }
    match (part.canonicalize(), root.canonicalize()) {
        (Ok(p), Ok(r)) => p.starts_with(r),
        _ => false,
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

fn push(a: &mut Vec<String>, items: &[&str]) {
    a.extend(items.iter().map(|s| s.to_string()));
}

enum Entry {
    Symlink,
    Bind,
}

/// The host symlinks met on the way along `path`, as (link target, link path), each later one
/// resolved against the real target of the one before.
fn symlink_chain(path: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut cur = PathBuf::from("/");
    for comp in path.components().skip(1) {
        cur.push(comp);
        let Ok(meta) = std::fs::symlink_metadata(&cur) else {
            break;
        };
        if meta.file_type().is_symlink() {
            let Ok(target) = std::fs::read_link(&cur) else { break };
            out.push((
                target.to_string_lossy().into_owned(),
                cur.to_string_lossy().into_owned(),
            ));
            match cur.canonicalize() {
                Ok(real) => cur = real,
                Err(_) => break,
            }
        }
    }
    out
}

/// The host's top-level entries as (kind, /path, symlink target).
fn root_entries() -> Vec<(Entry, String, String)> {
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
                    out.push((Entry::Symlink, path, t.to_string_lossy().into_owned()));
                }
            }
            Ok(m) if m.is_dir() || m.is_file() => out.push((Entry::Bind, path, String::new())),
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

/// Maps a path inside the sandbox to its host location in one of the session's writable
/// folders; anything else (or `..`) is refused.
pub fn map_inside(writable: &[(PathBuf, String)], inside: &str) -> Result<PathBuf, SandboxError> {
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
mod tests {
    use super::*;
    use crate::spec::SandboxBackend;

    fn whole(p: &SandboxPolicy, layout: &Layout) -> Scope {
        let staged: Vec<PathBuf> = layout.staged.iter().map(|(_, r)| r.clone()).collect();
        Scope::of_session(p, &staged)
    }

    #[test]
    fn a_narrowed_scope_draws_a_narrower_view() {
        let mut p = SandboxPolicy::minimal(SandboxBackend::Bubblewrap);
        p.read_only.push(PathBuf::from("/opt/tools"));
        p.read_only.push(PathBuf::from("/opt/other"));
        // The staged copy exists (a kept part is bound only when it resolves inside it).
        let d = tempfile::tempdir().unwrap();
        let s4 = d.path().join("ghostlab-s4");
        std::fs::create_dir_all(s4.join("inputs/0/one")).unwrap();
        let s4 = s4.canonicalize().unwrap();
        let mut layout = Layout::new(&s4);
        layout
            .staged
            .push((s4.join("inputs/0"), PathBuf::from("/srv/job/skills")));
        let scope = whole(&p, &layout)
            .keep_paths(&["/opt/tools".into(), "/srv/job/skills/one".into()])
            .unwrap()
            .read_only(crate::sandbox::scope::Area::Workspace)
            .hide(crate::sandbox::scope::Area::Home)
            .without(Capability::AgentConfig)
            .without(Capability::McpRelay);
        let argv = vec!["true".to_string()];
        let spec = CommandSpec {
            chdir: "/sandbox/workspace",
            seccomp_fd: 3,
            bridge_exe: None,
            helper_exe: None,
            argv: &argv,
            scope: &scope,
            egress_dir: &layout.egress,
            watch_fd: None,
            views: &Views::default(),
        };
        let joined = args(&p, &layout, &spec).join(" ");
        let at = |rest: &str| s4.join(rest).display().to_string();
        assert!(
            joined.contains(&format!("--ro-bind {} /sandbox/workspace", at("workspace"))),
            "{joined}"
        );
        assert!(joined.contains(&format!("--size {} --tmpfs /sandbox/home", p.limits.scratch_bytes)));
        assert!(!joined.contains(&at("home")));
        assert!(joined.contains(&format!("--bind {} /sandbox/tmp", at("tmp"))));
        assert!(joined.contains(&format!("--ro-bind {} /srv/job/skills/one", at("inputs/0/one"))));
        assert!(!joined.contains("/srv/job/skills "), "only the kept part of the input");
        assert!(!joined.contains("/opt/other"));
        assert!(!joined.contains(CONFIG_INSIDE) && !joined.contains(MCP_SOCKETS_INSIDE));
    }

    #[test]
    fn a_kept_part_that_links_outside_its_folder_is_not_bound() {
        let d = tempfile::tempdir().unwrap();
        let tools = d.path().join("tools");
        std::fs::create_dir_all(tools.join("bin")).unwrap();
        std::os::unix::fs::symlink("/etc", tools.join("escape")).unwrap();
        let mut p = SandboxPolicy::minimal(SandboxBackend::Bubblewrap);
        p.read_only.push(tools.clone());
        p.read_write.push(tools.clone());
        let layout = Layout::new(Path::new("/tmp/ghostlab-s5"));
        let scope = whole(&p, &layout)
            .keep_paths(&[tools.join("bin"), tools.join("escape")])
            .unwrap();
        let argv = vec!["true".to_string()];
        let spec = CommandSpec {
            chdir: "/sandbox/workspace",
            seccomp_fd: 3,
            bridge_exe: None,
            helper_exe: None,
            argv: &argv,
            scope: &scope,
            egress_dir: &layout.egress,
            watch_fd: None,
            views: &Views::default(),
        };
        let joined = args(&p, &layout, &spec).join(" ");
        let bin = tools.join("bin").canonicalize().unwrap();
        assert!(
            joined.contains(&format!("--ro-bind {0} {0}", bin.display())),
            "{joined}"
        );
        assert!(!joined.contains(" /etc /etc") && !joined.contains("escape"), "{joined}");
    }

    #[test]
    fn argv_has_the_tested_profile_and_no_env_values() {
        let mut p = SandboxPolicy::minimal(SandboxBackend::Bubblewrap);
        p.root_filesystem = RootFilesystem::ReadOnly;
        p.env_values.insert("TOKEN".into(), "secret-value-123".into());
        let job = tempfile::tempdir().unwrap();
        let agents = job.path().join("AGENTS.md");
        std::fs::write(&agents, "x").unwrap();
        let agents = agents.canonicalize().unwrap();
        p.read_only.push(agents.clone());
        p.read_only.push(PathBuf::from("/usr/share/not-masked"));
        p.masked.push(job.path().canonicalize().unwrap());
        let layout = Layout::new(Path::new("/tmp/ghostlab-s1"));
        let argv = vec!["true".to_string()];
        let spec = CommandSpec {
            chdir: "/sandbox/workspace",
            seccomp_fd: 7,
            bridge_exe: None,
            helper_exe: None,
            argv: &argv,
            scope: &whole(&p, &layout),
            egress_dir: &layout.egress,
            watch_fd: None,
            views: &Views::default(),
        };
        let a = args(&p, &layout, &spec);
        let joined = a.join(" ");
        for flag in [
            "--unshare-all",
            "--unshare-user",
            "--disable-userns",
            "--die-with-parent",
            "--new-session",
        ] {
            assert!(joined.contains(flag), "{flag} missing");
        }
        assert!(joined.contains("--cap-drop ALL"));
        assert!(joined.contains("--tmpfs /root") && joined.contains("--tmpfs /home"));
        assert!(joined.contains("--bind /tmp/ghostlab-s1/workspace /sandbox/workspace"));
        assert!(joined.contains("--seccomp 7"));
        assert!(!joined.contains("secret-value-123"));
        // The input bind must come after the masks.
        let ro = a.iter().position(|x| Path::new(x) == agents).unwrap();
        let tmp = a.iter().rposition(|x| x == "--tmpfs").unwrap();
        assert!(ro > tmp);
        assert!(!joined.contains("/usr/share/not-masked"), "visible paths need no bind");
        assert_eq!(a.last().map(String::as_str), Some("true"));
    }

    #[test]
    fn isolated_shows_only_the_runtime_and_what_is_declared() {
        let mut p = SandboxPolicy::minimal(SandboxBackend::Bubblewrap);
        p.read_only.push(PathBuf::from("/usr/share"));
        let mut layout = Layout::new(Path::new("/tmp/ghostlab-s2"));
        layout.staged.push((
            PathBuf::from("/tmp/ghostlab-s2/inputs/0"),
            PathBuf::from("/srv/job/AGENTS.md"),
        ));
        let argv = vec!["true".to_string()];
        let spec = CommandSpec {
            chdir: "/sandbox/workspace",
            seccomp_fd: 3,
            bridge_exe: None,
            helper_exe: None,
            argv: &argv,
            scope: &whole(&p, &layout),
            egress_dir: &layout.egress,
            watch_fd: None,
            views: &Views::default(),
        };
        let a = args(&p, &layout, &spec);
        let joined = a.join(" ");
        assert!(joined.contains("--ro-bind /tmp/ghostlab-s2/etc /etc"));
        assert!(joined.contains("--ro-bind /tmp/ghostlab-s2/inputs/0 /srv/job/AGENTS.md"));
        assert!(joined.contains(&format!("--size {TMPFS_BYTES} --tmpfs /tmp")));
        assert!(joined.contains(&format!("--size {SHM_BYTES} --tmpfs /dev/shm")));
        assert!(joined.contains("--ro-bind /dev/null /proc/keys"));
        for absent in ["/home", "/root", "/opt", "/srv /srv", "/var", "/etc/shadow"] {
            assert!(!joined.contains(&format!("--ro-bind {absent}")), "{absent} bound");
        }
        assert!(!joined.contains("--ro-bind /usr/share"), "already part of /usr");
    }

    #[test]
    fn symlinked_runtimes_keep_their_links_inside() {
        let d = tempfile::tempdir().unwrap();
        let real = d.path().join("real/node_modules/pkg");
        std::fs::create_dir_all(&real).unwrap();
        std::os::unix::fs::symlink(d.path().join("real/node_modules"), d.path().join("nm")).unwrap();
        let via_link = d.path().join("nm/pkg");
        let chain = symlink_chain(&via_link);
        assert_eq!(chain.len(), 1);
        assert_eq!(Path::new(&chain[0].1), d.path().join("nm"));
        let mut p = SandboxPolicy::minimal(SandboxBackend::Bubblewrap);
        p.read_only.push(via_link);
        let layout = Layout::new(Path::new("/tmp/ghostlab-s3"));
        let argv = vec!["true".to_string()];
        let spec = CommandSpec {
            chdir: "/sandbox/workspace",
            seccomp_fd: 3,
            bridge_exe: None,
            helper_exe: None,
            argv: &argv,
            scope: &whole(&p, &layout),
            egress_dir: &layout.egress,
            watch_fd: None,
            views: &Views::default(),
        };
        let joined = args(&p, &layout, &spec).join(" ");
        assert!(
            joined.contains(&format!("--symlink {} {}", chain[0].0, chain[0].1)),
            "{joined}"
        );
    }

    #[test]
    fn inside_paths_map_only_into_writable_folders() {
        let l = Layout::new(Path::new("/s"));
        let w = l.writable("/sandbox/workspace");
        assert_eq!(
            map_inside(&w, "/sandbox/workspace/a/b").unwrap(),
            PathBuf::from("/s/workspace/a/b")
        );
        assert_eq!(
            map_inside(&w, "/sandbox/home/.config").unwrap(),
            PathBuf::from("/s/home/.config")
        );
        assert!(map_inside(&w, "/etc/passwd").is_err());
        assert!(map_inside(&w, "/sandbox/workspace/../../etc").is_err());
        assert!(map_inside(&w, "relative").is_err());
    }
}
