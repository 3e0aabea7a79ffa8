//! A scope and the policy it narrows: the whole session a [`SandboxPolicy`] describes as a
//! [`Scope`], and a policy cut to a scope (for a sub-operation that gets a session of its own).
//! A child of `scope`, so it reads the scope's private fields; nothing outside can.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::super::policy::{NetworkPolicy, SandboxPolicy};
use super::{Access, Area, Capability, Scope, ScopeNetwork, Widens, dedup};

impl ScopeNetwork {
    fn of(policy: &NetworkPolicy) -> Self {
        match policy {
            NetworkPolicy::Disabled => ScopeNetwork::Deny,
            NetworkPolicy::Allowlist(l) if l.is_empty() => ScopeNetwork::Deny,
            NetworkPolicy::Allowlist(l) => ScopeNetwork::Allow(dedup(l)),
            NetworkPolicy::OpenShellPolicy(p) => ScopeNetwork::OpenShellPolicy(p.clone()),
        }
    }

    /// The policy form (for a session created from a scope).
    pub(crate) fn to_policy(&self) -> NetworkPolicy {
        match self {
            ScopeNetwork::Deny => NetworkPolicy::Disabled,
            ScopeNetwork::Allow(l) => NetworkPolicy::Allowlist(l.clone()),
            ScopeNetwork::OpenShellPolicy(p) => NetworkPolicy::OpenShellPolicy(p.clone()),
        }
    }
}

impl Scope {
    /// The whole session a policy describes: every path and area as the policy grants it,
    /// its network, every capability. Staged inputs are shown at their canonical path.
    pub(crate) fn of_policy(policy: &SandboxPolicy) -> Scope {
        let staged: Vec<PathBuf> = policy
            .staged
            .iter()
            .map(|p| p.canonicalize().unwrap_or_else(|_| p.clone()))
            .collect();
        Scope::of_session(policy, &staged)
    }

    /// The whole session of a created sandbox, whose inputs were staged at `staged` (their
    /// real paths, as the session binds them).
    pub(crate) fn of_session(policy: &SandboxPolicy, staged: &[PathBuf]) -> Scope {
        let mut paths = BTreeMap::new();
        for p in &policy.read_only {
            paths.insert(p.clone(), Access::ReadOnly);
        }
        for p in staged {
            paths.insert(p.clone(), Access::ReadOnly);
        }
        for p in &policy.read_write {
            paths.insert(p.clone(), Access::ReadWrite);
        }
        Scope {
            paths,
            areas: Area::ALL.iter().map(|a| (*a, Access::ReadWrite)).collect(),
            network: ScopeNetwork::of(&policy.network),
            capabilities: Capability::ALL.into_iter().collect(),
        }
    }

    /// `parent` cut to this scope where a policy can say it: its paths, its network and,
    /// without [`Capability::Credentials`], no credentials. For a session of its own (every
    /// backend enforces a policy); areas and the other capabilities are drawn per command.
    pub(crate) fn narrow_policy(&self, parent: &SandboxPolicy) -> Result<SandboxPolicy, Widens> {
        if !self.is_within(&Scope::of_policy(parent)) {
            return Err(Widens(format!("{self} is not within the policy's own scope")));
        }
        let mut p = parent.clone();
        p.read_only = parent
            .read_only
            .iter()
            .flat_map(|r| self.part_of(r))
            .map(|(q, _)| q)
            .collect();
        p.staged = parent
            .staged
            .iter()
            .flat_map(|s| {
                let real = s.canonicalize().unwrap_or_else(|_| s.clone());
                self.part_of(&real)
                    .into_iter()
                    .map(move |(q, _)| if q == real { s.clone() } else { q })
            })
            .collect();
        p.read_write = Vec::new();
        for w in &parent.read_write {
            for (q, a) in self.part_of(w) {
                match a {
                    Access::ReadWrite => p.read_write.push(q),
                    Access::ReadOnly => p.read_only.push(q),
                }
            }
        }
        p.network = self.network.to_policy();
        if !self.has(Capability::Credentials) {
            p.env_allowlist.clear();
            p.env_values.clear();
        }
        Ok(p)
    }
}
