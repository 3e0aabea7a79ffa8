//! The whole bwrap argv of three representative commands, against a fixed host root, so any
//! change to what a sandbox is shown (or in which order) shows up here as a diff.

use super::root::{HostRoot, RootEntry};
use super::*;
use crate::sandbox::bwrap_data::Views;
use crate::sandbox::policy::{HostPort, NetworkPolicy};
use crate::sandbox::scope::Scope;
use crate::spec::SandboxBackend;

/// A host root of a typical merged-/usr system, with a mask target of each kind.
fn host() -> HostRoot {
    let link = |path: &str, target: &str| RootEntry::Symlink {
        path: path.into(),
        target: target.into(),
    };
    let bind = |path: &str| RootEntry::Bind { path: path.into() };
    HostRoot {
        entries: vec![
            link("/bin", "usr/bin"),
            bind("/etc"),
            link("/lib64", "usr/lib64"),
            bind("/opt"),
            bind("/usr"),
        ],
        masked_dirs: vec!["/tmp", "/home"],
        masked_files: vec!["/etc/shadow"],
        ssh_host_keys: vec!["/etc/ssh/ssh_host_ed25519_key".into()],
    }
}

/// A job folder `T` (below /tmp) with a runtime reached through a symlink (`T/nm` → `T/real/node_modules`),
/// a writable folder, an input and the session folder `T/s` with the input's copy.
struct Fixture {
    _dir: tempfile::TempDir,
    t: PathBuf,
    policy: SandboxPolicy,
    layout: Layout,
}

fn fixture(root_filesystem: RootFilesystem, network: NetworkPolicy) -> Fixture {
    // Under /tmp, which a read-only root masks: its runtimes are bound again.
    let dir = tempfile::tempdir_in("/tmp").unwrap();
    let t = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(t.join("real/node_modules/pkg")).unwrap();
    std::os::unix::fs::symlink(t.join("real/node_modules"), t.join("nm")).unwrap();
    std::fs::create_dir_all(t.join("job/skills/one")).unwrap();
    std::fs::create_dir_all(t.join("rw")).unwrap();
    std::fs::create_dir_all(t.join("s/inputs/0/one")).unwrap();
    let mut policy = SandboxPolicy::minimal(SandboxBackend::Bubblewrap);
    policy.root_filesystem = root_filesystem;
    policy.network = network;
    policy.read_only = vec![t.join("nm/pkg"), PathBuf::from("/usr/share")];
    policy.staged = vec![t.join("job/skills")];
    policy.read_write = vec![t.join("rw")];
    policy.masked = vec![t.join("job")];
    policy.env_values.insert("TOKEN".into(), "secret-value-123".into());
    let mut layout = Layout::new(&t.join("s"));
    layout.staged.push((t.join("s/inputs/0"), t.join("job/skills")));
    Fixture {
        _dir: dir,
        t,
        policy,
        layout,
    }
}

fn whole(f: &Fixture) -> Scope {
    let staged: Vec<PathBuf> = f.layout.staged.iter().map(|(_, r)| r.clone()).collect();
    Scope::of_session(&f.policy, &staged)
}

/// `expected` has one option a line, `{T}` for the fixture's folder.
fn assert_argv(f: &Fixture, scope: &Scope, views: &Views, network: bool, expected: &str) {
    let exe = PathBuf::from("/opt/ghostlab/ghostlab");
    let argv = vec!["opencode".to_string(), "run".into()];
    let spec = CommandSpec {
        chdir: "/sandbox/workspace",
        seccomp_fd: 7,
        bridge_exe: network.then_some(exe.as_path()),
        helper_exe: Some(&exe),
        argv: &argv,
        scope,
        egress_dir: &f.layout.egress,
        watch_fd: Some(9),
        views,
    };
    let got = args_on(&host(), &f.policy, &f.layout, &spec);
    let t = f.t.display().to_string();
    let want: Vec<String> = expected
        .replace("{T}", &t)
        .split_whitespace()
        .map(String::from)
        .collect();
    assert_eq!(got, want, "got:\n{}", got.join(" ").replace(&t, "{T}"));
    assert!(!got.join(" ").contains("secret-value-123"));
}

/// Without root: /etc, the agent config and the inputs are shown by content (views).
#[test]
fn isolated_without_network_and_with_views() {
    let f = fixture(RootFilesystem::Isolated, NetworkPolicy::Disabled);
    let views = Views {
        etc: Some(vec![
            "--tmpfs".into(),
            "/etc".into(),
            "--remount-ro".into(),
            "/etc".into(),
        ]),
        config: Some(vec!["--tmpfs".into(), CONFIG_INSIDE.into()]),
        inputs: [(
            f.t.join("job/skills"),
            vec!["--file".into(), "5".into(), "SKILLS".into()],
        )]
        .into(),
    };
    assert_argv(
        &f,
        &whole(&f),
        &views,
        false,
        "--unshare-all --unshare-user --disable-userns --die-with-parent --new-session
         --cap-drop ALL --hostname ghostlab-sandbox
         --symlink usr/bin /bin
         --symlink usr/lib64 /lib64
         --ro-bind /usr /usr
         --tmpfs /etc --remount-ro /etc
         --dev /dev --proc /proc
         --size 268435456 --tmpfs /dev/shm
         --ro-bind /dev/null /proc/keys --ro-bind /dev/null /proc/key-users
         --size 268435456 --tmpfs /tmp
         --ro-bind {T}/real/node_modules/pkg {T}/real/node_modules/pkg
         --file 5 SKILLS
         --symlink {T}/real/node_modules {T}/nm
         --bind {T}/rw {T}/rw
         --ro-bind /opt/ghostlab/ghostlab /opt/ghostlab/ghostlab
         --bind {T}/s/workspace /sandbox/workspace
         --bind {T}/s/home /sandbox/home
         --bind {T}/s/tmp /sandbox/tmp
         --bind {T}/s/uploads /sandbox/uploads
         --tmpfs /sandbox/config
         --ro-bind {T}/s/mcp /run/ghostlab-mcp
         --remount-ro /dev --remount-ro /
         --seccomp 7 --chdir /sandbox/workspace --
         /opt/ghostlab/ghostlab __network-watch --socket-fd 9 --
         opencode run",
    );
}

/// As root (inputs on the session's own tmpfs are bound), a read-only root and an allowlist
/// behind the egress bridge.
#[test]
fn read_only_root_with_a_proxied_network() {
    let hosts = vec![HostPort::parse("api.example.com:443").unwrap()];
    let f = fixture(RootFilesystem::ReadOnly, NetworkPolicy::Allowlist(hosts));
    assert_argv(
        &f,
        &whole(&f),
        &Views::default(),
        true,
        "--unshare-all --unshare-user --disable-userns --die-with-parent --new-session
         --cap-drop ALL --hostname ghostlab-sandbox
         --symlink usr/bin /bin
         --ro-bind /etc /etc
         --symlink usr/lib64 /lib64
         --ro-bind /opt /opt
         --ro-bind /usr /usr
         --dev /dev --proc /proc
         --size 268435456 --tmpfs /dev/shm
         --ro-bind /dev/null /proc/keys --ro-bind /dev/null /proc/key-users
         --size 268435456 --tmpfs /tmp
         --tmpfs /home
         --ro-bind /dev/null /etc/shadow
         --ro-bind /dev/null /etc/ssh/ssh_host_ed25519_key
         --tmpfs {T}/job
         --ro-bind {T}/real/node_modules/pkg {T}/real/node_modules/pkg
         --ro-bind {T}/s/inputs/0 {T}/job/skills
         --bind {T}/rw {T}/rw
         --ro-bind /opt/ghostlab/ghostlab /opt/ghostlab/ghostlab
         --bind {T}/s/workspace /sandbox/workspace
         --bind {T}/s/home /sandbox/home
         --bind {T}/s/tmp /sandbox/tmp
         --bind {T}/s/uploads /sandbox/uploads
         --ro-bind {T}/s/config /sandbox/config
         --ro-bind {T}/s/mcp /run/ghostlab-mcp
         --ro-bind {T}/s/egress /run/ghostlab-egress
         --remount-ro /dev --remount-ro /
         --seccomp 7 --chdir /sandbox/workspace --
         /opt/ghostlab/ghostlab __network-watch --socket-fd 9 --
         /opt/ghostlab/ghostlab __egress-bridge --socket /run/ghostlab-egress/proxy.sock
         --listen 127.0.0.1:3128 --
         opencode run",
    );
}

/// A narrowed scope: one part of the input, the writable path read-only, a read-only
/// workspace, a private HOME, no agent config or MCP relay.
#[test]
fn isolated_in_a_narrowed_scope() {
    let f = fixture(RootFilesystem::Isolated, NetworkPolicy::Disabled);
    let scope = whole(&f)
        .keep_paths(&[f.t.join("nm/pkg"), f.t.join("job/skills/one"), f.t.join("rw")])
        .unwrap()
        .read_only_path(&f.t.join("rw"))
        .read_only(Area::Workspace)
        .hide(Area::Home)
        .without(Capability::AgentConfig)
        .without(Capability::McpRelay);
    let scratch = f.policy.limits.scratch_bytes;
    assert_argv(
        &f,
        &scope,
        &Views::default(),
        false,
        &format!(
            "--unshare-all --unshare-user --disable-userns --die-with-parent --new-session
             --cap-drop ALL --hostname ghostlab-sandbox
             --symlink usr/bin /bin
             --symlink usr/lib64 /lib64
             --ro-bind /usr /usr
             --ro-bind {{T}}/s/etc /etc
             --dev /dev --proc /proc
             --size 268435456 --tmpfs /dev/shm
             --ro-bind /dev/null /proc/keys --ro-bind /dev/null /proc/key-users
             --size 268435456 --tmpfs /tmp
             --ro-bind {{T}}/real/node_modules/pkg {{T}}/real/node_modules/pkg
             --ro-bind {{T}}/s/inputs/0/one {{T}}/job/skills/one
             --symlink {{T}}/real/node_modules {{T}}/nm
             --ro-bind {{T}}/rw {{T}}/rw
             --ro-bind /opt/ghostlab/ghostlab /opt/ghostlab/ghostlab
             --ro-bind {{T}}/s/workspace /sandbox/workspace
             --size {scratch} --tmpfs /sandbox/home
             --bind {{T}}/s/tmp /sandbox/tmp
             --bind {{T}}/s/uploads /sandbox/uploads
             --remount-ro /dev --remount-ro /
             --seccomp 7 --chdir /sandbox/workspace --
             /opt/ghostlab/ghostlab __network-watch --socket-fd 9 --
             opencode run"
        ),
    );
}
