//! The bwrap argv drawn for a scope, a root filesystem and symlinked runtimes.

use super::binds::symlink_chain;
use super::root::SHM_BYTES;
use super::*;
use crate::sandbox::bwrap_data::Views;
use crate::sandbox::scope::Scope;
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
