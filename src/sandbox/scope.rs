//! A scope: a reduced view of one session's sandbox for a sub-operation (seed 004 §Scope). It
//! can hide paths, turn writable access read-only, drop capabilities and shrink the network
//! toward deny; it can never widen the session it came from.
//!
//! Widening is unrepresentable or an error: the only constructor is [`Scope::of_policy`] (the
//! whole session); every other value comes from a narrowing method, and the two that take a
//! wish list ([`Scope::keep_paths`] and, in the property tests, `Scope::network`) refuse a wish
//! outside the current scope instead of granting it. `Session::command_in` checks once more that the scope it is handed
//! lies within its own (a scope of another session is refused), and the bubblewrap renderer
//! (`super::bwrap::args`) draws the command's view from the scope alone.
//!
//! A scope constrains only the commands started with it; it owns nothing and opens nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use super::policy::HostPort;

/// How a path or area may be used. `ReadOnly < ReadWrite`: narrowing only moves down.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Access {
    ReadOnly,
    ReadWrite,
}

/// The session's own writable folders. A command whose scope hides one gets a private, empty,
/// size-bounded folder there instead: it cannot see or change the session's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Area {
    /// The workspace copy at the policy's workdir.
    Workspace,
    /// HOME (holds the agent host's staged login and its warm-mode socket).
    Home,
    /// TMPDIR.
    Tmp,
    /// Uploaded files.
    Uploads,
}

impl Area {
    /// Every area, in the order `bwrap::Layout::writable` lists their folders.
    pub(crate) const ALL: [Area; 4] = [Area::Workspace, Area::Home, Area::Tmp, Area::Uploads];
}

/// Categories of allowed operations besides paths and network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Capability {
    /// Receive the session's credentials: `credentials.env` values and `env_allowlist` variables.
    Credentials,
    /// Read the generated agent configuration (`/sandbox/config`).
    AgentConfig,
    /// Reach the MCP relay's sockets (`/run/ghostlab-mcp`), i.e. the session's other servers.
    McpRelay,
}

impl Capability {
    pub(crate) const ALL: [Capability; 3] = [Capability::Credentials, Capability::AgentConfig, Capability::McpRelay];
}

/// Where a scoped command may connect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ScopeNetwork {
    /// Nowhere (no bridge, no inet sockets).
    Deny,
    /// Only these destinations, through an enforcing egress proxy.
    Allow(Vec<HostPort>),
    /// The session's OpenShell policy file; it can only narrow to `Deny`.
    OpenShellPolicy(PathBuf),
}

impl ScopeNetwork {
    /// Whether every destination `self` allows, `parent` allows too.
    pub(crate) fn is_within(&self, parent: &ScopeNetwork) -> bool {
        match (self, parent) {
            (ScopeNetwork::Deny, _) => true,
            (ScopeNetwork::Allow(mine), ScopeNetwork::Allow(theirs)) => mine.iter().all(|h| theirs.contains(h)),
            (ScopeNetwork::OpenShellPolicy(a), ScopeNetwork::OpenShellPolicy(b)) => a == b,
            _ => false,
        }
    }
}

/// Why a narrowing was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a scope can only narrow its parent: {0}")]
pub struct Widens(pub String);

/// A reduced view of a session's sandbox. Fields are private: no code outside can widen one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    /// Host paths shown at their own path (runtimes, staged inputs, rare writable binds).
    paths: BTreeMap<PathBuf, Access>,
    /// The session's own folders this scope shares; a missing one is private to the command.
    areas: BTreeMap<Area, Access>,
    network: ScopeNetwork,
    capabilities: BTreeSet<Capability>,
}

impl Scope {
    /// Hides one of the session's folders: the command gets a private empty one instead.
    pub fn hide(mut self, area: Area) -> Scope {
        self.areas.remove(&area);
        self
    }

    /// Makes one of the session's folders read-only (a hidden one stays hidden).
    pub(crate) fn read_only(mut self, area: Area) -> Scope {
        if let Some(a) = self.areas.get_mut(&area) {
            *a = Access::ReadOnly;
        }
        self
    }

    /// Makes a host path (and everything below it) read-only. Only the narrowing property
    /// tests use it today; no sub-operation needs it yet.
    #[cfg(test)]
    pub(crate) fn read_only_path(mut self, path: &Path) -> Scope {
        for (p, a) in self.paths.iter_mut() {
            if p.starts_with(path) {
                *a = Access::ReadOnly;
            }
        }
        // A writable parent of `path` splits: `path` itself is kept read-only.
        let writable_parent = self
            .paths
            .iter()
            .any(|(p, a)| *a == Access::ReadWrite && path.starts_with(p) && path != p);
        if writable_parent {
            self.paths.insert(path.to_path_buf(), Access::ReadOnly);
        }
        self
    }

    /// Drops a capability.
    pub(crate) fn without(mut self, capability: Capability) -> Scope {
        self.capabilities.remove(&capability);
        self
    }

    /// Keeps only the host paths in `wanted` (each a path this scope shows, or a folder
    /// holding some of them); anything outside the scope is refused, never granted.
    pub(crate) fn keep_paths(self, wanted: &[PathBuf]) -> Result<Scope, Widens> {
        let mut kept = BTreeMap::new();
        for w in wanted {
            // `/opt/tool/../../etc` starts with `/opt/tool` component by component.
            let plain = w.is_absolute()
                && w.components()
                    .all(|c| matches!(c, std::path::Component::RootDir | std::path::Component::Normal(_)));
            if !plain {
                return Err(Widens(format!(
                    "{} must be an absolute path without `.` or `..`",
                    w.display()
                )));
            }
            let mut found = false;
            for (p, a) in &self.paths {
                if w.starts_with(p) {
                    // Inside a shown path: keep just `w`, with the access it had.
                    kept.entry(w.clone())
                        .and_modify(|x: &mut Access| *x = (*x).min(*a))
                        .or_insert(*a);
                    found = true;
                } else if p.starts_with(w) {
                    kept.insert(p.clone(), *a);
                    found = true;
                }
            }
            if !found {
                return Err(Widens(format!("{} is not visible in the parent scope", w.display())));
            }
        }
        Ok(Scope { paths: kept, ..self })
    }

    /// Sets the network to `wanted`, which must lie within the current one. Only the
    /// narrowing property tests use it today ([`Scope::allow_only`] is the product's way).
    #[cfg(test)]
    pub(crate) fn network(self, wanted: ScopeNetwork) -> Result<Scope, Widens> {
        // An empty allowlist is deny, which is within anything.
        let wanted = normalize(wanted);
        if !wanted.is_within(&self.network) {
            return Err(Widens(format!(
                "network {} is not within {}",
                describe(&wanted),
                describe(&self.network)
            )));
        }
        Ok(Scope {
            network: wanted,
            ..self
        })
    }

    /// Keeps only the destinations in both the current network and `hosts` (an OpenShell
    /// policy, whose destinations cannot be compared, becomes deny).
    pub(crate) fn allow_only(self, hosts: &[HostPort]) -> Scope {
        let network = match &self.network {
            ScopeNetwork::Allow(l) => normalize(ScopeNetwork::Allow(
                l.iter().filter(|h| hosts.contains(h)).cloned().collect(),
            )),
            _ => ScopeNetwork::Deny,
        };
        Scope { network, ..self }
    }

    /// The access to one of the session's folders; `None`: private to the command.
    pub(crate) fn area(&self, area: Area) -> Option<Access> {
        self.areas.get(&area).copied()
    }

    /// The shown host paths with their access.
    pub(crate) fn paths(&self) -> impl Iterator<Item = (&Path, Access)> {
        self.paths.iter().map(|(p, a)| (p.as_path(), *a))
    }

    /// What of `root` (a path the session binds) this scope shows: `root` itself, parts below
    /// it, or nothing; each with its access.
    pub(crate) fn part_of(&self, root: &Path) -> Vec<(PathBuf, Access)> {
        let mut out: Vec<(PathBuf, Access)> = Vec::new();
        for (p, a) in &self.paths {
            let shown = if p.starts_with(root) {
                p.clone()
            } else if root.starts_with(p) {
                root.to_path_buf()
            } else {
                continue;
            };
            match out.iter_mut().find(|(q, _)| *q == shown) {
                Some((_, b)) => *b = (*b).min(*a),
                None => out.push((shown, *a)),
            }
        }
        out
    }

    /// The network.
    pub(crate) fn network_scope(&self) -> &ScopeNetwork {
        &self.network
    }

    /// Whether a capability is kept.
    pub(crate) fn has(&self, capability: Capability) -> bool {
        self.capabilities.contains(&capability)
    }

    /// Whether `self` grants nothing `parent` does not: every field, compared one by one.
    /// Paths compare by the access a command has at each point where either scope changes
    /// it (the access of the deepest shown path above a point holds until the next one).
    pub(crate) fn is_within(&self, parent: &Scope) -> bool {
        let paths = self
            .paths
            .keys()
            .chain(parent.paths.keys())
            .all(|p| self.effective(p) <= parent.effective(p));
        let areas = self
            .areas
            .iter()
            .all(|(k, a)| parent.areas.get(k).is_some_and(|b| a <= b));
        let caps = self.capabilities.is_subset(&parent.capabilities);
        paths && areas && caps && self.network.is_within(&parent.network)
    }

    /// The access a command has at `path` (`None`: not shown).
    fn effective(&self, path: &Path) -> Option<Access> {
        self.paths
            .iter()
            .filter(|(p, _)| path.starts_with(p))
            .max_by_key(|(p, _)| p.components().count())
            .map(|(_, a)| *a)
    }
}

fn normalize(n: ScopeNetwork) -> ScopeNetwork {
    match n {
        ScopeNetwork::Allow(l) if l.is_empty() => ScopeNetwork::Deny,
        ScopeNetwork::Allow(l) => ScopeNetwork::Allow(dedup(&l)),
        other => other,
    }
}

fn dedup(l: &[HostPort]) -> Vec<HostPort> {
    let mut out: Vec<HostPort> = Vec::new();
    for h in l {
        if !out.contains(h) {
            out.push(h.clone());
        }
    }
    out
}

fn describe(n: &ScopeNetwork) -> String {
    match n {
        ScopeNetwork::Deny => "deny".into(),
        ScopeNetwork::Allow(l) => format!(
            "allow [{}]",
            l.iter().map(|h| h.to_string()).collect::<Vec<_>>().join(", ")
        ),
        ScopeNetwork::OpenShellPolicy(p) => format!("openshell policy {}", p.display()),
    }
}

impl fmt::Display for Scope {
    /// One line for the session log: what the command sees.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let areas: Vec<String> = Area::ALL
            .iter()
            .map(|a| match self.area(*a) {
                Some(Access::ReadWrite) => format!("{a:?}=rw"),
                Some(Access::ReadOnly) => format!("{a:?}=ro"),
                None => format!("{a:?}=private"),
            })
            .collect();
        let caps: Vec<String> = self.capabilities.iter().map(|c| format!("{c:?}")).collect();
        write!(
            f,
            "{}; {} path(s); network {}; capabilities [{}]",
            areas.join(" ").to_lowercase(),
            self.paths.len(),
            describe(&self.network),
            caps.join(", ")
        )
    }
}

#[path = "scope_policy.rs"]
mod scope_policy;

#[cfg(test)]
#[path = "scope_tests.rs"]
mod tests;
