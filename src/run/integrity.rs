//! Emulator integrity: a simulated user that swaps roles, talks about the harness or leaks its
//! instructions invalidates the conversation. Such a case is INCONCLUSIVE, not a verdict on
//! the agent.

use regex::Regex;
use std::sync::LazyLock;

/// A broken-character finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Break {
    pub kind: &'static str,
    pub evidence: String,
}

static RULES: LazyLock<Vec<(&'static str, Regex)>> = LazyLock::new(|| {
    [
        ("role_swap", r"(?i)\b(as an ai( language model)?|i am (an|the) (ai )?assistant|how can i (help|assist) you( today)?)\b"),
        ("harness_talk", r"(?i)\b(test harness|simulated user|user emulator|this (test|scenario|evaluation)|success criteri(a|on)|failure signal|my persona|ghostlab)\b"),
        ("leaked_reasoning", r"(?i)(<think>|</think>|\bmy (goal|instructions?) (is|are|say)\b|\bas the (simulated )?user,? i (should|will|must)\b)"),
    ]
    .into_iter()
    .map(|(k, p)| (k, Regex::new(p).expect("valid integrity rule")))
    .collect()
});

/// Checks one emulator message; `None` when it stays in character.
pub fn check_message(message: &str) -> Option<Break> {
    if message.trim().is_empty() {
        return Some(Break {
            kind: "empty_message",
            evidence: String::new(),
        });
    }
    RULES.iter().find_map(|(kind, re)| {
        re.find(message).map(|m| Break {
            kind,
            evidence: m.as_str().to_string(),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_broken_character_and_passes_normal_speech() {
        assert_eq!(check_message("How can I help you today?").unwrap().kind, "role_swap");
        assert_eq!(
            check_message("Per the success criteria you should tag").unwrap().kind,
            "harness_talk"
        );
        assert_eq!(
            check_message("<think>they asked</think> yes").unwrap().kind,
            "leaked_reasoning"
        );
        assert!(check_message("Yes, bump it to 1.3.0 please — CI is green?").is_none());
        assert!(check_message("I want to test the release notes first").is_none());
    }
}
