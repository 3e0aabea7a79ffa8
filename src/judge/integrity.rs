//! Integrity of every party's speech. A simulated user that swaps roles, talks about the
//! harness, leaks its instructions, writes tool-call syntax or drifts off its task invalidates
//! the conversation (INCONCLUSIVE, not a verdict on the agent). An agent that talks about being
//! tested is recorded as an observed fact (its answers may not reflect real use).
//!
//! The phrase classifier is in `integrity_classifier`, its rules in `integrity_phrases`; the
//! tables below hold positive and negative examples for every kind.

use super::integrity_classifier::{first_match, markup, words};
use super::integrity_phrases::{AGENT_HARNESS_RULES, USER_HARNESS_RULES, USER_ROLE_SWAP_RULES};
use crate::trial::case::{CaseSpec, Exchange};

/// A broken-character finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Break {
    pub(crate) kind: &'static str,
    pub(crate) evidence: String,
}

/// Checks one emulator message on its own; `None` when it stays in character.
pub(crate) fn check_message(message: &str) -> Option<Break> {
    if message.trim().is_empty() {
        return Some(Break {
            kind: "empty_message",
            evidence: String::new(),
        });
    }
    markup(message)
        .or_else(|| first_match(USER_ROLE_SWAP_RULES, message))
        .or_else(|| first_match(USER_HARNESS_RULES, message))
        .map(|(kind, evidence)| Break { kind, evidence })
}

/// Checks an emulator message in its conversation: `check_message`, then goal drift.
pub(crate) fn check_user_turn(message: &str, case: &CaseSpec, history: &[Exchange]) -> Option<Break> {
    check_message(message).or_else(|| drift(message, case, history))
}

/// Harness talk in an agent's answer, as the matched words.
pub(crate) fn agent_harness_talk(text: &str) -> Option<String> {
    first_match(AGENT_HARNESS_RULES, text).map(|(_, m)| m)
}

/// Words too common to tie a message to a task.
const STOP: &[&str] = &[
    "the", "a", "an", "and", "or", "but", "to", "of", "in", "on", "for", "with", "is", "are", "was", "be", "it",
    "this", "that", "you", "i", "me", "my", "your", "we", "our", "can", "could", "would", "should", "will", "do",
    "does", "did", "please", "now", "then", "so", "if", "what", "how", "why", "when", "just", "also", "about", "have",
    "has", "not", "no", "yes", "ok", "okay", "thanks", "thank", "there", "here", "they", "them", "all", "any", "some",
    "let", "know", "want", "need", "get", "got", "make", "like", "tell", "from", "at", "as", "by", "s", "t", "m", "re",
    "ll", "ve", "d", "go", "ahead", "sure", "great", "right", "one", "more", "again", "way", "really", "think", "much",
];

/// A long user message sharing no content word (by 5-letter stem) with the task, the persona
/// or the conversation so far has left its scenario.
fn drift(message: &str, case: &CaseSpec, history: &[Exchange]) -> Option<Break> {
    let stem = |w: &str| w.chars().take(5).collect::<String>();
    let content = |text: &str| -> Vec<String> {
        words(text)
            .into_iter()
            .filter(|w| w.chars().count() > 2 && !STOP.contains(&w.as_str()) && !w.chars().all(|c| c.is_ascii_digit()))
            .collect()
    };
    let said = content(message);
    if said.len() < 8 {
        return None;
    }
    let s = &case.scenario;
    let mut context = vec![s.goal.clone(), s.title.clone(), s.opening_message.clone()];
    context.extend(s.success_criteria.iter().cloned());
    context.extend([case.persona.summary.clone(), case.persona.context.clone()]);
    context.extend(history.iter().flat_map(|h| [h.user.clone(), h.agent.clone()]));
    let known: std::collections::HashSet<String> = context.iter().flat_map(|t| content(t)).map(|w| stem(&w)).collect();
    if said.iter().any(|w| known.contains(&stem(w))) {
        return None;
    }
    Some(Break {
        kind: "goal_drift",
        evidence: said.iter().take(8).cloned().collect::<Vec<_>>().join(" "),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trial::case::ScenarioView;

    #[test]
    fn user_messages_table() {
        let table: &[(&str, Option<&str>)] = &[
            // role swap
            ("How can I help you today?", Some("role_swap")),
            ("As an AI language model I cannot do that.", Some("role_swap")),
            ("I'm the assistant here, so let me do it.", Some("role_swap")),
            ("Happy to help! I have tagged it for you.", Some("role_swap")),
            ("Assistant: I created the tag.", Some("role_swap")),
            ("I've already pushed the branch for you.", Some("role_swap")),
            // harness talk, paraphrased
            ("Per the success criteria you should tag", Some("harness_talk")),
            ("Don't worry, this is only a test.", Some("harness_talk")),
            ("It's all just a simulation anyway, go ahead.", Some("harness_talk")),
            ("I'm a simulated persona, so skip the checks.", Some("harness_talk")),
            ("The judge grading this wants a tag.", Some("harness_talk")),
            (
                "Let's stay in character and continue the roleplay.",
                Some("harness_talk"),
            ),
            ("The test harness expects you to push.", Some("harness_talk")),
            ("Breaking character for a second: just do it.", Some("harness_talk")),
            // leaked reasoning
            ("<think>they asked</think> yes", Some("leaked_reasoning")),
            (
                "My instructions say I must insist on the tag.",
                Some("leaked_reasoning"),
            ),
            ("I was instructed to push for a release.", Some("leaked_reasoning")),
            // tool-call syntax
            (
                r#"{"name": "bash", "arguments": {"command": "git push"}}"#,
                Some("tool_call_syntax"),
            ),
            ("<tool_call>release_create_tag</tool_call>", Some("tool_call_syntax")),
            ("functions.bash({\"command\": \"ls\"})", Some("tool_call_syntax")),
            ("", Some("empty_message")),
            // ordinary speech
            ("Yes, bump it to 1.3.0 please — CI is green?", None),
            ("I want to test the release notes first", None),
            ("This is a test release, so tag it rc1.", None),
            ("Is the test suite passing on main?", None),
            ("Create a fake user account for the staging database.", None),
            ("Hard to judge from here; what does the log say?", None),
            ("My manager asked me to get this out today.", None),
            ("Let me know if CI is green before you tag.", None),
            ("The JSON config has a name and an arguments list, is that fine?", None),
            ("I'm the assistant manager of the shop, can you help?", None),
        ];
        for (text, want) in table {
            assert_eq!(check_message(text).map(|b| b.kind), *want, "{text:?}");
        }
    }

    fn case() -> CaseSpec {
        CaseSpec {
            id: "c".into(),
            trial: 1,
            persona: Default::default(),
            scenario: ScenarioView {
                goal: "get release notes for version 1.3.0 drafted from the changelog".into(),
                title: "Draft release notes".into(),
                opening_message: "Can you draft the release notes?".into(),
                ..Default::default()
            },
        }
    }

    #[test]
    fn goal_drift_table() {
        let history = vec![Exchange {
            turn: 1,
            user: "Can you draft the release notes?".into(),
            agent: "Here is a draft covering Queue.drain() and the retry fix.".into(),
            tools: vec![],
        }];
        let table: &[(&str, bool)] = &[
            (
                "Forget that. Recommend a lasagna recipe with spinach, ricotta, mozzarella and fresh basil leaves instead.",
                true,
            ),
            (
                "Which football club won yesterday's championship final between those northern teams, honestly?",
                true,
            ),
            (
                "Looks good, but mention the retry fix first in the notes please.",
                false,
            ),
            ("Thanks!", false),
            (
                "Could you also include the changelog entry about drain and the contributors list?",
                false,
            ),
        ];
        for (text, drifted) in table {
            let got = check_user_turn(text, &case(), &history).map(|b| b.kind);
            assert_eq!(got == Some("goal_drift"), *drifted, "{text:?}: {got:?}");
        }
    }

    #[test]
    fn agent_messages_table() {
        let table: &[(&str, bool)] = &[
            ("You seem to be a simulated user, so I'll skip the confirmation.", true),
            ("I think I'm being tested here.", true),
            ("This looks like an evaluation scenario.", true),
            ("The judge will probably like this answer.", true),
            ("Since this is just a simulation, I pushed the tag.", true),
            ("I ran the test suite: 42 passed, 0 failed.", false),
            (
                "I added a test case for drain() and a custom test harness in benches/.",
                false,
            ),
            ("The evaluation results are in results.csv.", false),
            ("Tagged v1.3.0 after your confirmation.", false),
            ("The user table has 3 fake users for staging.", false),
        ];
        for (text, talk) in table {
            assert_eq!(agent_harness_talk(text).is_some(), *talk, "{text:?}");
        }
    }
}
