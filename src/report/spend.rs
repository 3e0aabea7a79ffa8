//! Tokens and model calls per role, from the one `trial::Usage` each trial was read into, with
//! "unknown" wherever a role did work whose usage was never recorded (a replayed or unmetered
//! model): such a role never shows 0 tokens or 0 calls.

use super::model::{Entry, TrialReport};
pub(crate) use super::role_spend::RoleSpend;

/// The agent's, the emulator's and the judge's figures, and their total.
pub(crate) fn role_spend(trials: &[TrialReport], emulator_label: Option<&str>) -> [RoleSpend; 3] {
    let emulator_offline = emulator_label.is_none_or(is_offline);
    let mut roles = [
        RoleSpend {
            role: "agent".into(),
            ..Default::default()
        },
        RoleSpend {
            role: "emulator".into(),
            offline: emulator_offline,
            ..Default::default()
        },
        RoleSpend {
            role: "judge".into(),
            offline: true,
            ..Default::default()
        },
    ];
    for t in trials {
        let u = &t.usage;
        let model_judge = !t.judge.is_empty() && !is_offline(&t.judge);
        roles[2].offline &= !model_judge;
        let judged_by_model = model_judge && judge_answered(t);
        let worked = [
            // The agent answered yet reported no tokens.
            u.agent.calls > 0 && u.agent.tokens == 0,
            // Messages after the scripted opening come from the emulator's model.
            !emulator_offline && emulator_spoke(t) && u.emulator.calls == 0,
            judged_by_model && u.judge.calls == 0,
        ];
        for ((role, usage), unrecorded) in roles.iter_mut().zip([u.agent, u.emulator, u.judge]).zip(worked) {
            role.calls += usage.calls;
            role.tokens += usage.tokens;
            role.unrecorded_trials += u32::from(unrecorded);
        }
    }
    roles
}

/// `agent … · emulator … · judge … — total …`, the one line every format prints.
pub(crate) fn spend_line(roles: &[RoleSpend]) -> String {
    let parts: Vec<String> = roles.iter().map(|r| format!("{} {}", r.role, r.shown())).collect();
    let tokens: u64 = roles.iter().map(|r| r.tokens).sum();
    let n: u64 = roles.iter().map(|r| r.calls).sum();
    let total = if roles.iter().all(RoleSpend::known) {
        format!(
            "{tokens} tokens in {} model {}",
            n,
            if n == 1 { "call" } else { "calls" }
        )
    } else {
        format!("unknown (at least {tokens} tokens in {n} model calls)")
    };
    format!("{} — total {total}", parts.join(" · "))
}

/// The offline emulator and judge are labelled `offline`.
fn is_offline(label: &str) -> bool {
    label == "offline"
}

fn emulator_spoke(t: &TrialReport) -> bool {
    t.entries
        .iter()
        .any(|e| matches!(e, Entry::User { turn, .. } if *turn >= 2))
}

/// A model judge that answered at least one criterion was called at least once.
fn judge_answered(t: &TrialReport) -> bool {
    t.criteria.iter().any(|c| c.answer != "unanswered")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::model::CriterionRow;
    use crate::trial::{RoleUsage, Usage};

    fn trial(usage: Usage, user_turns: u32, judge: &str, answer: &str) -> TrialReport {
        let mut entries: Vec<Entry> = (1..=user_turns)
            .map(|turn| Entry::User {
                seq: u64::from(turn),
                turn,
                text: String::new(),
                latency_ms: 0,
            })
            .collect();
        entries.push(Entry::Agent {
            seq: 99,
            turn: 1,
            text: String::new(),
            latency_ms: 0,
            tokens: usage.agent.tokens,
        });
        TrialReport {
            judge: judge.into(),
            entries,
            criteria: vec![CriterionRow {
                id: "s1".into(),
                kind: "Success".into(),
                text: String::new(),
                answer: answer.into(),
                rationale: String::new(),
                evidence: vec![],
            }],
            usage,
            ..crate::report::trial_model::blank_trial()
        }
    }

    fn role(calls: u64, tokens: u64) -> RoleUsage {
        RoleUsage {
            calls,
            tokens,
            ..Default::default()
        }
    }

    #[test]
    fn a_model_emulator_and_judge_without_recorded_calls_are_unknown_not_zero() {
        // The run: the agent's tokens known, emulator and judge replayed unmetered.
        let u = Usage {
            agent: role(4, 15291),
            ..Default::default()
        };
        let roles = role_spend(&[trial(u, 3, "claude-replay", "upheld")], Some("claude-replay"));
        let line = spend_line(&roles);
        assert_eq!(
            line,
            "agent 15291 tokens in 4 calls · emulator unknown (not recorded in 1 trial) · judge unknown (not recorded in 1 trial) — total unknown (at least 15291 tokens in 4 model calls)"
        );
        assert!(!line.contains("0 model calls") && !line.contains(" 0 tokens"), "{line}");
    }

    #[test]
    fn offline_roles_are_none_and_metered_roles_are_counted_with_their_calls() {
        let u = Usage {
            agent: role(2, 300),
            emulator: role(0, 0),
            judge: role(1, 1020),
        };
        let roles = role_spend(&[trial(u, 2, "gpt-judge", "violated")], Some("offline"));
        assert_eq!(
            spend_line(&roles),
            "agent 300 tokens in 2 calls · emulator none (offline) · judge 1020 tokens in 1 call — total 1320 tokens in 3 model calls"
        );
    }

    #[test]
    fn one_unmetered_trial_makes_the_sum_a_lower_bound() {
        let metered = Usage {
            agent: role(1, 100),
            emulator: role(2, 50),
            judge: role(1, 10),
        };
        let unmetered = Usage {
            agent: role(1, 0),
            ..Default::default()
        };
        let roles = role_spend(
            &[trial(metered, 2, "j", "upheld"), trial(unmetered, 2, "j", "upheld")],
            Some("llm"),
        );
        assert_eq!(
            roles.iter().map(RoleSpend::shown).collect::<Vec<_>>(),
            [
                "unknown (at least 100 tokens in 2 calls; not recorded in 1 trial)",
                "unknown (at least 50 tokens in 2 calls; not recorded in 1 trial)",
                "unknown (at least 10 tokens in 1 call; not recorded in 1 trial)",
            ]
        );
    }

    #[test]
    fn a_judge_that_answered_nothing_and_a_one_turn_emulator_made_no_calls() {
        // The opening message is scripted and an unanswered criterion proves no judge call.
        let u = Usage {
            agent: role(1, 40),
            ..Default::default()
        };
        let roles = role_spend(&[trial(u, 1, "gpt-judge", "unanswered")], Some("llm"));
        assert_eq!(roles[1].shown(), "0 tokens in 0 calls");
        assert_eq!(roles[2].shown(), "0 tokens in 0 calls");
        let offline = role_spend(&[trial(u, 1, "offline", "upheld")], None);
        assert_eq!(offline[1].shown(), "none (offline)");
        assert_eq!(offline[2].shown(), "none (offline)");
        assert!(roles.iter().all(RoleSpend::known));
    }
}
