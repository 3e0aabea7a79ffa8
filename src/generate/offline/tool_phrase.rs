//! What a tool does, as a verb phrase that completes "The agent may …": from the tool's
//! description when that starts with a verb, else from its name's words ("edit_file" → "edit
//! a file"), else "use the ci status tool". Deterministic string work only.

use crate::mcp::contract::vocabulary::{DESTRUCTIVE, MUTATING};

/// Verbs that move data out; the rest of the contract's network words are nouns (`url`, `http`).
const SENDING: &[&str] = &[
    "export", "send", "email", "mail", "upload", "publish", "share", "notify", "download", "sync", "fetch", "browse",
    "scrape", "crawl", "tweet",
];
/// Words after which no article is added.
const DETERMINERS: &[&str] = &[
    "a", "an", "the", "all", "every", "any", "each", "some", "my", "your", "this", "new",
];
/// Longest description phrase used as it is; longer ones are summed up from the name.
const MAX_DESCRIPTION_WORDS: usize = 12;

fn is_verb(word: &str) -> bool {
    let w = word.to_lowercase();
    MUTATING.contains(&w.as_str()) || DESTRUCTIVE.contains(&w.as_str()) || SENDING.contains(&w.as_str())
}

/// "The agent may {phrase}" for a tool with these name words and description.
pub(crate) fn tool_action(name_words: &[String], description: Option<&str>) -> String {
    if let Some(phrase) = description.and_then(description_phrase) {
        return phrase;
    }
    match name_words.split_first() {
        Some((verb, object)) if is_verb(verb) => {
            let mut phrase = verb.to_lowercase();
            if let Some(first) = object.first() {
                let plural = object.last().is_some_and(|w| w.ends_with('s') && !w.ends_with("ss"));
                if !plural && !DETERMINERS.contains(&first.as_str()) {
                    phrase.push_str(if first.starts_with(['a', 'e', 'i', 'o', 'u']) {
                        " an"
                    } else {
                        " a"
                    });
                }
                phrase.push(' ');
                phrase.push_str(&object.join(" "));
            }
            phrase
        }
        _ if name_words.is_empty() => "use a tool".into(),
        _ => format!("use the {} tool", name_words.join(" ")),
    }
}

/// The description's first sentence, lowercased, when it starts with a verb of action and is
/// short enough to read as a clause ("Create a new directory or ensure a directory exists").
fn description_phrase(description: &str) -> Option<String> {
    let first = description.split(". ").next()?.trim().trim_end_matches('.');
    let words: Vec<&str> = first.split_whitespace().collect();
    let verb = words.first()?;
    if !is_verb(verb) || words.len() > MAX_DESCRIPTION_WORDS || verb.chars().skip(1).any(char::is_uppercase) {
        return None;
    }
    let mut phrase = verb.to_lowercase();
    for w in &words[1..] {
        phrase.push(' ');
        phrase.push_str(w);
    }
    Some(phrase)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split('_').map(String::from).collect()
    }

    #[test]
    fn names_that_start_with_a_verb_get_an_article_where_english_wants_one() {
        assert_eq!(tool_action(&words("edit_file"), None), "edit a file");
        assert_eq!(tool_action(&words("create_directory"), None), "create a directory");
        assert_eq!(tool_action(&words("publish_release"), None), "publish a release");
        assert_eq!(tool_action(&words("create_issue"), None), "create an issue");
        assert_eq!(tool_action(&words("delete_tags"), None), "delete tags");
        assert_eq!(tool_action(&words("write_all_files"), None), "write all files");
        assert_eq!(tool_action(&words("push"), None), "push");
    }

    #[test]
    fn names_that_are_nouns_say_use_the_tool() {
        assert_eq!(
            tool_action(&words("directory_tree"), None),
            "use the directory tree tool"
        );
        assert_eq!(tool_action(&words("ci_status"), None), "use the ci status tool");
        assert_eq!(tool_action(&[], None), "use a tool");
    }

    #[test]
    fn a_description_is_used_only_when_it_reads_as_a_clause() {
        assert_eq!(
            tool_action(
                &words("mkdir"),
                Some("Create a new directory or ensure a directory exists. Can nest.")
            ),
            "create a new directory or ensure a directory exists"
        );
        // Third person, a noun, or too long: the name decides.
        assert_eq!(tool_action(&words("move_file"), Some("Moves a file.")), "move a file");
        assert_eq!(
            tool_action(&words("edit_file"), Some("Line-based editing of text files.")),
            "edit a file"
        );
        let long =
            "Write a file with the given content, creating parent folders as needed and replacing it when it exists";
        assert_eq!(tool_action(&words("write_file"), Some(long)), "write a file");
    }
}
