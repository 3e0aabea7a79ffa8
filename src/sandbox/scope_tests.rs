//! A scope never widens its parent: random parents, random sequences of narrowings (wishes
//! outside the scope included), each step checked field by field with rules written here
//! independently of `Scope::is_within`.

use super::*;
use crate::sandbox::policy::{NetworkPolicy, SandboxPolicy};
use crate::spec::SandboxBackend;
use proptest::prelude::*;

const PATHS: &[&str] = &["/a", "/a/b", "/a/b/c", "/d", "/e/f"];
/// Probed for their effective access: the universe and paths below and beside it.
const PROBES: &[&str] = &[
    "/a", "/a/b", "/a/b/c", "/a/b/c/z", "/a/q", "/d", "/d/x", "/e", "/e/f", "/e/f/g", "/zz",
];

fn host(i: usize) -> HostPort {
    HostPort {
        host: format!("h{i}.example"),
        port: 443,
    }
}

#[derive(Debug, Clone)]
enum Op {
    Hide(usize),
    ReadOnly(usize),
    ReadOnlyPath(usize),
    Without(usize),
    KeepPaths(Vec<usize>),
    Network(Option<Vec<usize>>),
    AllowOnly(Vec<usize>),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..4usize).prop_map(Op::Hide),
        (0..4usize).prop_map(Op::ReadOnly),
        (0..PROBES.len()).prop_map(Op::ReadOnlyPath),
        (0..3usize).prop_map(Op::Without),
        prop::collection::vec(0..PROBES.len(), 0..4).prop_map(Op::KeepPaths),
        prop::option::of(prop::collection::vec(0..6usize, 0..4)).prop_map(Op::Network),
        prop::collection::vec(0..6usize, 0..4).prop_map(Op::AllowOnly),
    ]
}

/// A parent: each universe path absent, read-only, staged or writable; hosts h0..h3 a subset.
fn parent() -> impl Strategy<Value = Scope> {
    (
        prop::collection::vec(0..4u8, PATHS.len()),
        prop::option::of(prop::collection::vec(0..4usize, 0..4)),
    )
        .prop_map(|(kinds, hosts)| {
            let mut p = SandboxPolicy::minimal(SandboxBackend::Bubblewrap);
            for (path, kind) in PATHS.iter().zip(kinds) {
                match kind {
                    1 => p.read_only.push(PathBuf::from(path)),
                    2 => p.staged.push(PathBuf::from(path)),
                    3 => p.read_write.push(PathBuf::from(path)),
                    _ => {}
                }
            }
            if let Some(h) = hosts {
                p.network = NetworkPolicy::Allowlist(h.into_iter().map(host).collect());
            }
            Scope::of_policy(&p)
        })
}

/// The access a command has at `path`: that of the deepest shown path holding it.
fn effective(s: &Scope, path: &Path) -> Option<Access> {
    s.paths()
        .filter(|(p, _)| path.starts_with(p))
        .max_by_key(|(p, _)| p.components().count())
        .map(|(_, a)| a)
}

fn hosts_of(n: &ScopeNetwork) -> Option<Vec<HostPort>> {
    match n {
        ScopeNetwork::Deny => Some(Vec::new()),
        ScopeNetwork::Allow(l) => Some(l.clone()),
        ScopeNetwork::OpenShellPolicy(_) => None,
    }
}

fn assert_not_wider(child: &Scope, parent: &Scope) {
    for probe in PROBES {
        let (c, p) = (effective(child, Path::new(probe)), effective(parent, Path::new(probe)));
        assert!(c <= p, "path {probe}: {c:?} > {p:?}\n{child:?}\n{parent:?}");
    }
    for a in Area::ALL {
        assert!(child.area(a) <= parent.area(a), "area {a:?}");
    }
    for c in Capability::ALL {
        assert!(!child.has(c) || parent.has(c), "capability {c:?}");
    }
    let (c, p) = (hosts_of(child.network_scope()), hosts_of(parent.network_scope()));
    if let (Some(c), Some(p)) = (&c, &p) {
        assert!(c.iter().all(|h| p.contains(h)), "network {c:?} not within {p:?}");
    }
    assert!(child.is_within(parent), "is_within disagrees\n{child:?}\n{parent:?}");
}

fn apply(s: &Scope, op: &Op) -> Result<Scope, Widens> {
    let s = s.clone();
    Ok(match op {
        Op::Hide(i) => s.hide(Area::ALL[*i]),
        Op::ReadOnly(i) => s.read_only(Area::ALL[*i]),
        Op::ReadOnlyPath(i) => s.read_only_path(Path::new(PROBES[*i])),
        Op::Without(i) => s.without(Capability::ALL[*i]),
        Op::KeepPaths(ix) => s.keep_paths(&ix.iter().map(|i| PathBuf::from(PROBES[*i])).collect::<Vec<_>>())?,
        Op::Network(None) => s.network(ScopeNetwork::Deny)?,
        Op::Network(Some(ix)) => s.network(ScopeNetwork::Allow(ix.iter().map(|i| host(*i)).collect()))?,
        Op::AllowOnly(ix) => s.allow_only(&ix.iter().map(|i| host(*i)).collect::<Vec<_>>()),
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn no_sequence_of_narrowings_widens_its_parent(root in parent(), ops in prop::collection::vec(op(), 0..8)) {
        let mut cur = root.clone();
        for op in &ops {
            match apply(&cur, op) {
                Ok(next) => {
                    assert_not_wider(&next, &cur);
                    assert_not_wider(&next, &root);
                    cur = next;
                }
                // A refused wish leaves the scope as it was; it must really have been a widening.
                Err(_) => match op {
                    Op::KeepPaths(ix) => prop_assert!(ix.iter().any(|i| effective(&cur, Path::new(PROBES[*i])).is_none()
                        && !cur.paths().any(|(p, _)| p.starts_with(PROBES[*i])))),
                    Op::Network(Some(ix)) => {
                        let allowed = hosts_of(cur.network_scope()).unwrap_or_default();
                        prop_assert!(ix.iter().any(|i| !allowed.contains(&host(*i))));
                    }
                    other => prop_assert!(false, "{other:?} cannot be refused"),
                },
            }
        }
    }
}

#[test]
fn a_wish_outside_the_scope_is_an_error_not_a_grant() {
    let mut p = SandboxPolicy::minimal(SandboxBackend::Bubblewrap);
    p.read_only.push("/opt/runtime".into());
    p.network = NetworkPolicy::Allowlist(vec![host(0)]);
    let s = Scope::of_policy(&p);
    assert!(s.clone().keep_paths(&["/etc".into()]).is_err());
    // Component-wise `/opt/runtime/../../etc` starts with `/opt/runtime`: refused by shape.
    assert!(s.clone().keep_paths(&["/opt/runtime/../../etc".into()]).is_err());
    assert!(s.clone().keep_paths(&["opt/runtime".into()]).is_err());
    assert!(s.clone().network(ScopeNetwork::Allow(vec![host(1)])).is_err());
    // Deny, then asking for the old host back, is refused: narrowing is one-way.
    let denied = s.clone().network(ScopeNetwork::Deny).unwrap();
    assert!(denied.network(ScopeNetwork::Allow(vec![host(0)])).is_err());
    // A hidden area cannot come back by asking for read-only.
    let hidden = s.hide(Area::Home).read_only(Area::Home);
    assert_eq!(hidden.area(Area::Home), None);
}

#[test]
fn an_openshell_policy_only_narrows_to_deny() {
    let mut p = SandboxPolicy::minimal(SandboxBackend::Openshell);
    p.network = NetworkPolicy::OpenShellPolicy("/p.yaml".into());
    let s = Scope::of_policy(&p);
    assert!(s.clone().network(ScopeNetwork::Allow(vec![host(0)])).is_err());
    assert_eq!(s.clone().allow_only(&[host(0)]).network_scope(), &ScopeNetwork::Deny);
    assert!(s.network(ScopeNetwork::Deny).is_ok());
}

#[test]
fn part_of_a_bound_path_is_what_the_scope_keeps_of_it() {
    let mut p = SandboxPolicy::minimal(SandboxBackend::Bubblewrap);
    p.read_write.push("/srv/data".into());
    let s = Scope::of_policy(&p)
        .keep_paths(&["/srv/data/in".into(), "/srv/data/out".into()])
        .unwrap()
        .read_only_path(Path::new("/srv/data/in"));
    assert_eq!(
        s.part_of(Path::new("/srv/data")),
        vec![
            (PathBuf::from("/srv/data/in"), Access::ReadOnly),
            (PathBuf::from("/srv/data/out"), Access::ReadWrite)
        ]
    );
    assert!(s.part_of(Path::new("/usr")).is_empty());
}

#[test]
fn a_policy_cut_to_a_scope_keeps_only_its_paths_network_and_credentials() {
    let mut p = SandboxPolicy::minimal(SandboxBackend::Bubblewrap);
    p.read_only.push("/opt/a".into());
    p.read_only.push("/opt/b".into());
    p.read_write.push("/srv/rw".into());
    p.network = NetworkPolicy::Allowlist(vec![host(0), host(1)]);
    p.env_values.insert("TOKEN".into(), "v".into());
    p.env_allowlist.push("HOSTVAR".into());
    let cut = Scope::of_policy(&p)
        .keep_paths(&["/opt/a".into(), "/srv/rw".into()])
        .unwrap()
        .read_only_path(Path::new("/srv/rw"))
        .allow_only(&[host(1)])
        .without(Capability::Credentials)
        .narrow_policy(&p)
        .unwrap();
    assert_eq!(cut.read_only, vec![PathBuf::from("/opt/a"), PathBuf::from("/srv/rw")]);
    assert!(cut.read_write.is_empty());
    assert_eq!(cut.network, NetworkPolicy::Allowlist(vec![host(1)]));
    assert!(cut.env_values.is_empty() && cut.env_allowlist.is_empty());
    // A scope of another, wider policy cannot cut this one.
    let mut wider = p.clone();
    wider.read_only.push("/etc".into());
    assert!(Scope::of_policy(&wider).narrow_policy(&p).is_err());
}
