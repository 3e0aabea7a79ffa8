//! Tokens and cost per role, read from a trial's events: the one computation behind the
//! summary line, summary.json, the report and the JUnit properties, so they all show the same
//! figures.
//!
//! A cost is "unknown" (never $0) when a role's model had no catalog price (`cost_unknown` on
//! its `model_call`), or when the agent's host reported tokens but no cost. A total is unknown
//! when any of its parts is; its known part is still kept, as a lower bound.

use serde::{Deserialize, Serialize};

use super::events::{Role, RunEvent};

/// One role's calls, tokens and cost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RoleUsage {
    pub calls: u64,
    pub tokens: u64,
    /// The known part of the cost in USD (all of it when `cost_unknown` is false).
    pub cost_usd: f64,
    /// Always written (false included): readers need not guess what an absent key means.
    #[serde(default)]
    pub cost_unknown: bool,
}

impl RoleUsage {
    /// The cost, or `None` when some of it has no known price.
    pub(crate) fn cost(&self) -> Option<f64> {
        (!self.cost_unknown).then_some(self.cost_usd)
    }

    /// `$0.0123`, or `unknown` (with the known lower bound when there is one).
    pub(crate) fn shown(&self) -> String {
        match self.cost() {
            Some(c) => format!("${c:.4}"),
            None if self.cost_usd > 0.0 => format!("unknown (at least ${:.4})", self.cost_usd),
            None => "unknown".into(),
        }
    }

    /// The cost for a machine-read field: `0.001234`, or `unknown`.
    pub(crate) fn plain(&self) -> String {
        match self.cost() {
            Some(c) => format!("{c:.6}"),
            None => "unknown".into(),
        }
    }

    fn add(&mut self, other: &RoleUsage) {
        self.calls += other.calls;
        self.tokens += other.tokens;
        self.cost_usd += other.cost_usd;
        self.cost_unknown |= other.cost_unknown;
    }
}

/// The usage of the agent and of Ghostlab's two per-case roles.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Usage {
    pub agent: RoleUsage,
    pub emulator: RoleUsage,
    pub judge: RoleUsage,
}

impl Usage {
    /// The usage recorded in one trial's events.
    pub(crate) fn from_events<'a>(events: impl IntoIterator<Item = &'a RunEvent>) -> Usage {
        let mut u = Usage::default();
        let mut agent_reported_cost = false;
        for e in events {
            match e {
                RunEvent::AgentMessage { tokens, cost_usd, .. } => {
                    u.agent.calls += 1;
                    u.agent.tokens += tokens;
                    u.agent.cost_usd += cost_usd;
                    agent_reported_cost |= *cost_usd > 0.0;
                }
                RunEvent::ModelCall {
                    role,
                    prompt_tokens,
                    completion_tokens,
                    cost_usd,
                    cost_unknown,
                    ..
                } => {
                    let r = match role {
                        Role::Agent => &mut u.agent,
                        Role::Emulator => &mut u.emulator,
                        Role::Judge => &mut u.judge,
                    };
                    r.add(&RoleUsage {
                        calls: 1,
                        tokens: prompt_tokens + completion_tokens,
                        cost_usd: if *cost_unknown { 0.0 } else { *cost_usd },
                        cost_unknown: *cost_unknown,
                    });
                }
                _ => {}
            }
        }
        // Tokens spent without a reported cost: the host did not know the price.
        if u.agent.tokens > 0 && !agent_reported_cost && u.agent.cost_usd == 0.0 {
            u.agent.cost_unknown = true;
        }
        u
    }

    /// Adds another trial's usage.
    pub(crate) fn add(&mut self, other: &Usage) {
        self.agent.add(&other.agent);
        self.emulator.add(&other.emulator);
        self.judge.add(&other.judge);
    }

    /// Every role together.
    pub(crate) fn total(&self) -> RoleUsage {
        let mut t = RoleUsage::default();
        for r in [&self.agent, &self.emulator, &self.judge] {
            t.add(r);
        }
        t
    }

    /// The roles by name, in a fixed order (agent, emulator, judge).
    pub(crate) fn roles(&self) -> [(&'static str, &RoleUsage); 3] {
        [
            ("agent", &self.agent),
            ("emulator", &self.emulator),
            ("judge", &self.judge),
        ]
    }

    /// One line: `cost $0.0123 (agent $0.0100, emulator $0.0003, judge $0.0020)`.
    pub(crate) fn cost_line(&self) -> String {
        let parts: Vec<String> = self
            .roles()
            .iter()
            .filter(|(_, r)| r.calls > 0)
            .map(|(name, r)| format!("{name} {}", r.shown()))
            .collect();
        if parts.is_empty() {
            return format!("cost {}", self.total().shown());
        }
        format!("cost {} ({})", self.total().shown(), parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(role: Role, cost: f64, unknown: bool) -> RunEvent {
        RunEvent::ModelCall {
            role,
            model: "m".into(),
            prompt_tokens: 100,
            completion_tokens: 20,
            cost_usd: cost,
            latency_ms: 1,
            cost_unknown: unknown,
        }
    }

    fn agent(tokens: u64, cost: f64) -> RunEvent {
        RunEvent::AgentMessage {
            turn: 1,
            text: String::new(),
            latency_ms: 1,
            tokens,
            cost_usd: cost,
        }
    }

    #[test]
    fn priced_roles_add_up_and_unknown_is_never_zero() {
        let events = [
            agent(50, 0.01),
            call(Role::Emulator, 0.002, false),
            call(Role::Emulator, 0.001, false),
            call(Role::Judge, 0.0, true),
        ];
        let u = Usage::from_events(&events);
        assert_eq!((u.emulator.calls, u.emulator.tokens), (2, 240));
        assert!((u.emulator.cost_usd - 0.003).abs() < 1e-12);
        assert_eq!(u.emulator.cost(), Some(u.emulator.cost_usd));
        assert_eq!(u.judge.cost(), None);
        assert_eq!(u.judge.plain(), "unknown");
        assert_eq!(u.total().cost(), None, "a total with an unknown part is unknown");
        assert_eq!(u.total().shown(), "unknown (at least $0.0130)");
        assert_eq!(u.agent.plain(), "0.010000");
    }

    #[test]
    fn agent_tokens_without_a_reported_cost_are_unknown() {
        let u = Usage::from_events(&[agent(120, 0.0)]);
        assert_eq!(u.agent.cost(), None);
        let silent = Usage::from_events(&[]);
        assert_eq!(silent.total().cost(), Some(0.0), "nothing spent is a real zero");
        let mut sum = Usage::from_events(&[call(Role::Judge, 0.5, false)]);
        sum.add(&u);
        assert_eq!(sum.judge.cost(), Some(0.5));
        assert_eq!(sum.total().cost(), None);
        assert_eq!(
            sum.cost_line(),
            "cost unknown (at least $0.5000) (agent unknown, judge $0.5000)"
        );
    }
}
