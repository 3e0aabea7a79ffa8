//! Splitting identifiers into lowercase words: camelCase, PascalCase, snake_case, kebab-case,
//! dotted and digit boundaries (`getUser` → `get user`, `HTTPServer2` → `http server 2`).
//!
//! Heuristics match whole words only, so `author` never matches `auth` and `max_tokens` never
//! matches `token`.

/// The lowercase words of an identifier.
pub(crate) fn split_identifier(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    for part in name.split(|c: char| !c.is_alphanumeric()) {
        if part.is_empty() {
            continue;
        }
        let chars: Vec<char> = part.chars().collect();
        let mut current = String::new();
        for (i, &c) in chars.iter().enumerate() {
            let prev = i.checked_sub(1).map(|j| chars[j]);
            let next = chars.get(i + 1).copied();
            let boundary = match prev {
                None => false,
                Some(p) => {
                    (p.is_lowercase() && c.is_uppercase())
                        || (p.is_alphabetic() && c.is_ascii_digit())
                        || (p.is_ascii_digit() && c.is_alphabetic())
                        // The last capital of an acronym starts the next word: `HTTPServer`.
                        || (p.is_uppercase() && c.is_uppercase() && next.is_some_and(char::is_lowercase))
                }
            };
            if boundary && !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            current.extend(c.to_lowercase());
        }
        if !current.is_empty() {
            words.push(current);
        }
    }
    words
}

/// The lowercase words of free text (descriptions), punctuation dropped.
pub(crate) fn split_text(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .map(|w| w.trim_matches('\'').to_lowercase())
        .filter(|w| !w.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_every_naming_style() {
        assert_eq!(split_identifier("getUser"), vec!["get", "user"]);
        assert_eq!(split_identifier("export_all_users"), vec!["export", "all", "users"]);
        assert_eq!(split_identifier("create-directory"), vec!["create", "directory"]);
        assert_eq!(split_identifier("HTTPServer2"), vec!["http", "server", "2"]);
        assert_eq!(split_identifier("deleteFile"), vec!["delete", "file"]);
        assert_eq!(split_identifier("rm"), vec!["rm"]);
        assert_eq!(split_identifier("max_tokens"), vec!["max", "tokens"]);
        assert_eq!(split_identifier("fs.read_file"), vec!["fs", "read", "file"]);
        assert_eq!(split_identifier("apiKey"), vec!["api", "key"]);
    }

    proptest::proptest! {
        #[test]
        fn splitting_keeps_every_alphanumeric_character(name in "[a-zA-Z0-9_.-]{0,40}") {
            let joined: String = split_identifier(&name).concat();
            let expected: String = name.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect();
            proptest::prop_assert_eq!(joined, expected);
        }
    }

    #[test]
    fn splits_text() {
        assert_eq!(
            split_text("Deletes a file, permanently."),
            vec!["deletes", "a", "file", "permanently"]
        );
    }
}
