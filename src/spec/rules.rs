//! The rules for gates and the network allowlist, stated once. `check` turns each broken rule
//! into a diagnostic at its key path in job.yaml; the lab's answer steps (`lab::apply`) turn
//! them into the message shown under the answer. Both reject exactly the same values.

use super::limits::FRACTION;
use super::review::Gates;
use super::sandbox::NetworkMode;

/// A broken rule: the key under its section (`min_pass_rate`, `allow[0]`) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broken {
    pub(crate) key: String,
    pub(crate) message: String,
}

impl std::fmt::Display for Broken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.key, self.message)
    }
}

fn broken(key: impl Into<String>, message: impl Into<String>) -> Broken {
    Broken {
        key: key.into(),
        message: message.into(),
    }
}

/// Rates are fractions in 0..=1; pass^k needs k ≥ 1. Keys are under `review.gates`.
pub(crate) fn gate_rules(g: &Gates) -> Vec<Broken> {
    let mut out = Vec::new();
    for (key, v) in [
        ("min_pass_rate", g.min_pass_rate),
        ("max_inconclusive_rate", g.max_inconclusive_rate),
        ("max_infra_error_rate", g.max_infra_error_rate),
    ] {
        if let Some(v) = v.filter(|v| !FRACTION.contains(*v)) {
            out.push(broken(key, format!("{v} is not a fraction between 0 and 1")));
        }
    }
    if let Some(pk) = &g.pass_k {
        if pk.k == 0 {
            out.push(broken("pass_k.k", "must be at least 1"));
        }
        if !FRACTION.contains(pk.min_rate) {
            out.push(broken(
                "pass_k.min_rate",
                format!("{} is not a fraction between 0 and 1", pk.min_rate),
            ));
        }
    }
    out
}

/// An allowlist needs entries, each `host:port`; a disabled network takes none; `policy`
/// needs a policy file. Keys are under `sandbox`.
pub(crate) fn network_rules(network: NetworkMode, allow: &[String], has_policy: bool) -> Vec<Broken> {
    let mut out = Vec::new();
    match network {
        NetworkMode::Allowlist if allow.is_empty() => {
            out.push(broken(
                "allow",
                "`network: allowlist` needs at least one `host:port` entry",
            ));
        }
        NetworkMode::Policy if !has_policy => {
            out.push(broken("policy", "`network: policy` needs an OpenShell policy file"));
        }
        NetworkMode::Disabled if !allow.is_empty() => {
            out.push(broken(
                "allow",
                "entries are ignored while `network: disabled`; set `network: allowlist`",
            ));
        }
        _ => {}
    }
    for (i, entry) in allow.iter().enumerate() {
        let valid = entry
            .rsplit_once(':')
            .is_some_and(|(h, p)| !h.is_empty() && p.parse::<u16>().is_ok_and(|p| p > 0));
        if !valid {
            out.push(broken(format!("allow[{i}]"), format!("`{entry}` is not `host:port`")));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_range_rates_zero_k_and_bad_entries_are_broken() {
        let g = Gates {
            min_pass_rate: Some(1.5),
            ..Default::default()
        };
        assert_eq!(gate_rules(&g)[0].key, "min_pass_rate");
        let b = network_rules(NetworkMode::Allowlist, &["example.com".into()], false);
        assert_eq!(b[0].to_string(), "allow[0]: `example.com` is not `host:port`");
        assert_eq!(network_rules(NetworkMode::Allowlist, &[], false)[0].key, "allow");
        assert!(network_rules(NetworkMode::Allowlist, &["api.example.com:443".into()], false).is_empty());
    }
}
