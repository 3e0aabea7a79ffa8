//! Structural names the token-shape rules never rewrite: case ids, persona ids and names,
//! scenario ids. They key summary rows, JUnit test cases and report sections; a token pattern
//! that matched inside one (`Bearer Bobby-the-release-manager`, a hand-made id
//! `xoxb-2024-rollout`) once merged six cases into one `[REDACTED]` row.
//!
//! The rules still run on the text as it is; only a match that lies wholly inside an occurrence
//! of a protected name is kept. A name inside a real token (`sk-proj-…` with a persona `proj`)
//! therefore never breaks the token's match. Known secret values are masked before this, names
//! or not, and a name holding one is refused (`Redactor::protect`).

use regex::Regex;

/// Names shorter than this are not protected: they are words, not identifiers.
const MIN_LEN: usize = 4;

/// The protected names and one automaton that finds them.
#[derive(Debug, Clone, Default)]
pub(crate) struct Protected {
    names: Vec<String>,
    finder: Option<Regex>,
}

impl Protected {
    pub(crate) fn new(names: impl IntoIterator<Item = String>) -> Protected {
        let mut names: Vec<String> = names.into_iter().filter(|n| n.chars().count() >= MIN_LEN).collect();
        // Longest first, so the automaton prefers the whole of a name containing another.
        names.sort_by_key(|n| std::cmp::Reverse(n.len()));
        names.dedup();
        let finder = (!names.is_empty())
            .then(|| Regex::new(&names.iter().map(|n| regex::escape(n)).collect::<Vec<_>>().join("|")).ok())
            .flatten();
        Protected { names, finder }
    }

    pub(crate) fn names(&self) -> &[String] {
        &self.names
    }

    /// Byte spans of the protected names in `text`.
    pub(crate) fn spans(&self, text: &str) -> Vec<(usize, usize)> {
        match &self.finder {
            Some(f) => f.find_iter(text).map(|m| (m.start(), m.end())).collect(),
            None => Vec::new(),
        }
    }

    /// Whether the match `start..end` lies wholly inside one of `spans`.
    pub(crate) fn covers(spans: &[(usize, usize)], start: usize, end: usize) -> bool {
        spans.iter().any(|&(a, b)| a <= start && end <= b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_prefer_the_longest_name_and_skip_short_ones() {
        let p = Protected::new(["xoxb-2024-rollout".to_string(), "xoxb-2024".into(), "ab".into()]);
        assert_eq!(p.names().len(), 2, "a two-letter name is not protected");
        let text = "case xoxb-2024-rollout and xoxb-2024";
        assert_eq!(p.spans(text), vec![(5, 22), (27, 36)]);
        assert!(Protected::covers(&p.spans(text), 5, 22));
        assert!(!Protected::covers(&p.spans(text), 0, 22));
        assert!(Protected::new(Vec::new()).spans(text).is_empty());
    }
}
