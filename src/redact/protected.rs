//! Structural names the redactor never rewrites: case ids, persona ids and names, scenario ids.
//! They key summary rows, JUnit test cases and report sections; a token pattern that matched
//! inside one (`Bearer Bob-the-release-manager`, a hand-made id `xoxb-2024-rollout`) once merged
//! six cases into one `[REDACTED]` row. Text inside a protected name is shielded before masking
//! and restored after. A protected name that holds a *known* secret value is refused instead
//! (`Redactor::protect`), so shielding can never carry a secret into an artifact.

use regex::Regex;

/// Private-use marks around a shielded name's index: no secret or token pattern contains them.
const OPEN: char = '\u{E000}';
const CLOSE: char = '\u{E001}';

/// Names shorter than this are not shielded: they are words, not identifiers.
const MIN_LEN: usize = 4;

/// The protected names and one automaton that finds them, longest first.
#[derive(Debug, Clone, Default)]
pub struct Protected {
    names: Vec<String>,
    finder: Option<Regex>,
}

impl Protected {
    pub fn new(names: impl IntoIterator<Item = String>) -> Protected {
        let mut names: Vec<String> = names.into_iter().filter(|n| n.chars().count() >= MIN_LEN).collect();
        names.sort_by_key(|n| std::cmp::Reverse(n.len()));
        names.dedup();
        let finder = (!names.is_empty())
            .then(|| Regex::new(&names.iter().map(|n| regex::escape(n)).collect::<Vec<_>>().join("|")).ok())
            .flatten();
        Protected { names, finder }
    }

    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// `text` with every protected name replaced by its mark; `None` when it holds none.
    pub fn shield(&self, text: &str) -> Option<String> {
        let finder = self.finder.as_ref()?;
        if !finder.is_match(text) {
            return None;
        }
        Some(
            finder
                .replace_all(text, |c: &regex::Captures| {
                    let i = self.names.iter().position(|n| n == &c[0]).unwrap_or(0);
                    format!("{OPEN}{i}{CLOSE}")
                })
                .into_owned(),
        )
    }

    /// Puts the names back where `shield` marked them.
    pub fn unshield(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find(OPEN) {
            out.push_str(&rest[..at]);
            let after = &rest[at + OPEN.len_utf8()..];
            let restored = after.find(CLOSE).and_then(|end| {
                let name = after[..end].parse::<usize>().ok().and_then(|i| self.names.get(i))?;
                Some((name, end))
            });
            match restored {
                Some((name, end)) => {
                    out.push_str(name);
                    rest = &after[end + CLOSE.len_utf8()..];
                }
                None => {
                    out.push(OPEN);
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shield_and_unshield_round_trip_longest_first() {
        let p = Protected::new(["xoxb-2024-rollout".to_string(), "xoxb-2024".into(), "ab".into()]);
        assert_eq!(p.names().len(), 2, "a two-letter name is not shielded");
        let text = "case xoxb-2024-rollout and xoxb-2024 and ab";
        let shielded = p.shield(text).unwrap();
        assert!(!shielded.contains("xoxb"));
        assert_eq!(p.unshield(&shielded), text);
        assert_eq!(p.shield("nothing here"), None);
    }

    #[test]
    fn a_stray_mark_in_the_text_survives_unshielding() {
        let p = Protected::new(["case-one".to_string()]);
        let text = format!("odd {OPEN}x{CLOSE} and {OPEN}99{CLOSE} and case-one");
        assert_eq!(p.unshield(&p.shield(&text).unwrap()), text);
    }
}
