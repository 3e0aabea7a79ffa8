//! Who the agent serves, as a noun phrase read from "… helps X …" / "You help X …": the words
//! after the verb up to the next verb, preposition or punctuation ("You help a small team ship
//! weekly" → "small team"; "Helps maintainers of tinyqueue cut a release" → "maintainers of
//! tinyqueue"). Deterministic string work only.

use crate::mcp::contract::vocabulary::{DESTRUCTIVE, MUTATING, READING};

/// Words that are skipped before the phrase.
const DETERMINERS: &[&str] = &[
    "a", "an", "the", "our", "your", "their", "its", "his", "her", "my", "some", "any",
];
/// Words that end the phrase: prepositions, conjunctions, pronouns and common verbs that
/// follow "help X" ("help them ship", "help users to find").
#[rustfmt::skip]
const STOPS: &[&str] = &[
    "to", "with", "by", "in", "on", "at", "for", "from", "into", "about", "when", "while", "who", "that", "which",
    "and", "or", "but", "so", "if", "as", "than", "them", "you", "us", "me", "him", "it", "is", "are", "be", "do",
    "ship", "cut", "keep", "handle", "answer", "triage", "prepare", "draft", "plan", "manage", "maintain", "track",
    "fix", "debug", "review", "learn", "understand", "use", "work", "make", "build", "run", "write", "release",
    "test", "deploy", "answer", "solve", "resolve", "navigate", "organize", "organise", "automate", "migrate",
];
/// Most words of the phrase before "of".
const MAX_WORDS: usize = 4;

fn ends_phrase(word: &str) -> bool {
    let w = word.to_lowercase();
    STOPS.contains(&w.as_str())
        || MUTATING.contains(&w.as_str())
        || DESTRUCTIVE.contains(&w.as_str())
        || READING.contains(&w.as_str())
        || (w.len() > 4 && w.ends_with("ly"))
}

/// The noun phrase after "help"/"helps" in `text`, if one is there.
pub(crate) fn audience_phrase(text: &str) -> Option<String> {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    let at = tokens.iter().position(|t| {
        let w = t.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
        w == "help" || w == "helps"
    })?;
    let mut words: Vec<String> = Vec::new();
    let mut of_part: Option<String> = None;
    for raw in &tokens[at + 1..] {
        let punct_after = raw.ends_with([',', '.', ':', ';', '!', '?', ')']);
        let word = raw
            .trim_matches(|c: char| !c.is_alphanumeric() && c != '-' && c != '.' && c != '_')
            .trim_end_matches('.')
            .replace('`', "");
        let lower = word.to_lowercase();
        if word.is_empty() {
            break;
        }
        if words.is_empty() && DETERMINERS.contains(&lower.as_str()) {
            continue;
        }
        if lower == "of" && !words.is_empty() && of_part.is_none() {
            of_part = Some(String::new());
            continue;
        }
        if let Some(of) = &mut of_part {
            if of.is_empty() && !DETERMINERS.contains(&lower.as_str()) {
                *of = word;
                break;
            }
            continue;
        }
        if ends_phrase(&word) || words.len() == MAX_WORDS {
            break;
        }
        words.push(word);
        if punct_after {
            break;
        }
    }
    if words.is_empty() {
        return None;
    }
    let head = words.join(" ");
    Some(match of_part.filter(|o| !o.is_empty()) {
        Some(of) => format!("{head} of {of}"),
        None => head,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_phrase_is_the_words_after_help_up_to_the_next_verb() {
        let cases = [
            (
                "Helps maintainers of tinyqueue cut a release",
                Some("maintainers of tinyqueue"),
            ),
            ("You help a small team ship weekly releases.", Some("small team")),
            ("Helps the support agents answer tickets", Some("support agents")),
            (
                "This bot helps data scientists, analysts and others",
                Some("data scientists"),
            ),
            ("I help `acme` developers to find bugs", Some("acme developers")),
            ("You help people of the `web-ui` repo.", Some("people of web-ui")),
            ("You help quickly.", None),
            ("You help.", None),
            ("No verb here", None),
        ];
        for (text, want) in cases {
            assert_eq!(audience_phrase(text).as_deref(), want, "{text}");
        }
    }
}
