//! Plain-text helpers for the offline proposer: ids, word sets, rule detection and the small
//! grammatical rewrites that turn a rule ("Never push …") into a risk ("may push …") and a
//! request ("push …").
//!
//! Deterministic string work only; no file access.

use std::collections::BTreeSet;

/// A lowercase id of at most `max_words` words joined by `-`.
pub(crate) fn slug(text: &str, max_words: usize) -> String {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !STOP.contains(&w.to_lowercase().as_str()))
        .take(max_words)
        .map(str::to_lowercase)
        .collect();
    // Ids never look like a token, so redaction can never rewrite them.
    crate::util::ids::sanitize_id(&words.join("-"))
}

/// Makes `id` unique among `taken` by appending `-2`, `-3`, …, and records it.
pub(crate) fn unique(id: String, taken: &mut BTreeSet<String>) -> String {
    let mut candidate = id.clone();
    let mut n = 2;
    while taken.contains(&candidate) {
        candidate = format!("{id}-{n}");
        n += 1;
    }
    taken.insert(candidate.clone());
    candidate
}

const STOP: &[&str] = &[
    "the", "a", "an", "or", "and", "to", "of", "in", "on", "with", "without", "from", "this", "that", "any", "be",
    "is", "are", "not", "never", "must", "do", "don", "t", "only", "after", "before", "by", "for", "it", "its", "your",
    "you", "all", "each", "every", "no", "into", "when", "than", "them", "their", "agent", "may", "should", "ask",
];

/// Lightly stemmed content words (`pushing` → `push`, `tokens` → `token`), stop words dropped.
pub(crate) fn content_words(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| !w.is_empty() && !STOP.contains(&w.as_str()))
        .map(|w| stem(&w))
        .collect()
}

/// A crude stem, consistent on both sides of a comparison.
pub(crate) fn stem(word: &str) -> String {
    let mut w = word.to_string();
    if w.len() > 5 && w.ends_with("ing") {
        w.truncate(w.len() - 3);
        let b = w.as_bytes();
        if b.len() >= 2 && b[b.len() - 1] == b[b.len() - 2] {
            w.pop();
        }
    } else if w.len() > 4 && w.ends_with("ed") {
        w.truncate(w.len() - 2);
    } else if w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") {
        w.pop();
    }
    w
}

/// Shared words over the smaller set's size (0 when either is empty).
pub(crate) fn overlap(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    let small = a.len().min(b.len());
    if small == 0 {
        return 0.0;
    }
    a.intersection(b).count() as f64 / small as f64
}

const TRIGGERS: &[&str] = &[
    "never ",
    "must not ",
    "mustn't ",
    "do not ",
    "don't ",
    "not allowed",
    "forbidden",
    "only after ",
    "ask before ",
    "without confirmation",
    "without explicit",
    "without the ",
];

/// The clause of `text` that states a prohibition, if any (split at `;` and sentence ends).
pub(crate) fn rule_clause(text: &str) -> Option<String> {
    text.split(';')
        .flat_map(|part| part.split(". "))
        .map(|c| c.trim().trim_end_matches('.').trim())
        .find(|c| {
            let lower = format!("{} ", c.to_lowercase());
            TRIGGERS.iter().any(|t| lower.contains(t))
        })
        .map(str::to_string)
}

/// True for a heading whose list items are all prohibitions ("Forbidden", "Never", "Don't").
pub(crate) fn is_prohibition_heading(heading: &str) -> bool {
    let h = heading.to_lowercase();
    [
        "forbidden",
        "never",
        "don't",
        "do not",
        "prohibited",
        "must not",
        "not allowed",
    ]
    .iter()
    .any(|k| h.contains(k))
}

/// True for a rule that limits scope ("decline unrelated requests", "stay on release work").
pub(crate) fn is_scope_rule(text: &str) -> bool {
    let t = text.to_lowercase();
    [
        "unrelated",
        "out of scope",
        "outside your",
        "stay on ",
        "only help",
        "decline",
    ]
    .iter()
    .any(|k| t.contains(k))
}

/// The violation a rule forbids, as a verb phrase ("push, tag or publish without …").
pub(crate) fn violation(rule: &str, under_prohibition_heading: bool) -> String {
    let r = rule.trim().trim_end_matches('.');
    // "Do not touch deploy/ at all": the emphasis does not survive the rewrite into "may touch".
    let r = r
        .strip_suffix(" at all")
        .or_else(|| r.strip_suffix(", ever"))
        .unwrap_or(r);
    let lower = r.to_lowercase();
    for prefix in ["must never ", "never ", "must not ", "mustn't ", "do not ", "don't "] {
        if let Some(pos) = lower.find(prefix) {
            let before = r[..pos].trim().trim_end_matches([',', ';', ':']).trim();
            let rest = &r[pos + prefix.len()..];
            // "Check CI …; never release on a red build" keeps only the forbidden part.
            // "Never promises refunds" reads as "promise refunds" in a request.
            let rest = if is_gerund(rest) {
                rest.to_string()
            } else {
                base_form(rest)
            };
            return if before.is_empty() || before.split_whitespace().count() <= 2 {
                rest
            } else {
                format!("{rest} (while: {})", lower_first(before))
            };
        }
    }
    if let Some(pos) = lower.find(" only after ") {
        return format!("{} before {}", lower_first(&r[..pos]), &r[pos + " only after ".len()..]);
    }
    if let Some(rest) = lower.strip_prefix("ask before ") {
        return format!("go ahead with {} without asking first", &r[r.len() - rest.len()..]);
    }
    if under_prohibition_heading {
        return lower_first(r);
    }
    format!("break the rule \"{r}\"")
}

/// The request part of a violation: the action without its "without …"/"before …" qualifier.
pub(crate) fn action(violation: &str) -> String {
    let lower = violation.to_lowercase();
    let cut = [" without ", " before ", " unless ", " (while:"]
        .iter()
        .filter_map(|k| lower.find(k))
        .min()
        .unwrap_or(violation.len());
    violation[..cut].trim().trim_end_matches(',').to_string()
}

/// A request for `action` phrased as an imperative ("go ahead with force-pushing …" for gerunds).
pub(crate) fn imperative(action: &str) -> String {
    let first = action.split_whitespace().next().unwrap_or("");
    if first.len() > 4 && first.to_lowercase().ends_with("ing") {
        format!("go ahead with {}", lower_first(action))
    } else {
        lower_first(action)
    }
}

/// Words that make a risk about secrets.
pub(crate) fn mentions_secret(text: &str) -> bool {
    let words = content_words(text);
    ["token", "key", "secret", "password", "credential", "env"]
        .iter()
        .any(|k| words.contains(*k))
}

/// Words that make a risk irreversible or dangerous.
pub(crate) fn mentions_irreversible(text: &str) -> bool {
    let words = content_words(text);
    // Prefixes, since the stem keeps the `e` ("delete", "deletes" → "delete", "deleting" → "delet").
    [
        "publish",
        "push",
        "delet",
        "force",
        "destroy",
        "undone",
        "irreversible",
        "wipe",
        "eras",
        "purg",
    ]
    .iter()
    .any(|k| words.iter().any(|w| w.starts_with(k)))
}

/// True when the phrase starts with a gerund ("running …").
pub(crate) fn is_gerund(phrase: &str) -> bool {
    let first = phrase.split_whitespace().next().unwrap_or("");
    first.len() > 4 && first.to_lowercase().ends_with("ing") && !first.eq_ignore_ascii_case("bring")
}

/// "The assistant pushes …" / "The assistant ends up running …" for a verb phrase.
pub(crate) fn assistant_does(phrase: &str) -> String {
    let p = lower_first(phrase.trim_end_matches('.'));
    if is_gerund(&p) {
        return format!("The assistant ends up {p}.");
    }
    let (first, rest) = p.split_once(' ').unwrap_or((p.as_str(), ""));
    let (word, tail) = match first.find(|c: char| !c.is_alphanumeric() && c != '-') {
        Some(i) => (&first[..i], &first[i..]),
        None => (first, ""),
    };
    let conjugated = match word {
        "be" => "is".to_string(),
        "have" => "has".to_string(),
        "do" | "go" => format!("{word}es"),
        w if w.ends_with('s') || w.ends_with("sh") || w.ends_with("ch") || w.ends_with('x') || w.ends_with('z') => {
            format!("{w}es")
        }
        w if w.ends_with('y') && !w.ends_with("ay") && !w.ends_with("ey") && !w.ends_with("oy") => {
            format!("{}ies", &w[..w.len() - 1])
        }
        w => format!("{w}s"),
    };
    let rest = if rest.is_empty() {
        String::new()
    } else {
        format!(" {rest}")
    };
    format!("The assistant {conjugated}{tail}{rest}.")
}

/// "The assistant does not push …" / "The assistant avoids running …".
pub(crate) fn assistant_does_not(phrase: &str) -> String {
    let p = lower_first(phrase.trim_end_matches('.'));
    if is_gerund(&p) {
        format!("The assistant avoids {p}.")
    } else {
        format!("The assistant does not {p}.")
    }
}

/// A third-person duty as an imperative task: "Reads the changelog" → "read the changelog".
pub(crate) fn base_form(phrase: &str) -> String {
    let p = lower_first(phrase.trim().trim_end_matches('.'));
    let (first, rest) = p.split_once(' ').unwrap_or((p.as_str(), ""));
    let base = if first == "does" || first == "goes" {
        first[..2].to_string()
    } else if first == "has" {
        "have".to_string()
    } else if first == "is" {
        "be".to_string()
    } else if let Some(stem) = first.strip_suffix("ies").filter(|s| s.len() > 1) {
        format!("{stem}y")
    } else if ["ches", "shes", "sses", "xes", "zes"]
        .iter()
        .any(|e| first.ends_with(e))
    {
        first[..first.len() - 2].to_string()
    } else if first.len() > 3 && first.ends_with('s') && !first.ends_with("ss") && !first.ends_with("us") {
        first[..first.len() - 1].to_string()
    } else {
        first.to_string()
    };
    if rest.is_empty() {
        base
    } else {
        format!("{base} {rest}")
    }
}

pub(crate) fn lower_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        // Keep acronyms such as "CI" intact.
        Some(c) if chars.clone().next().is_some_and(|n| n.is_uppercase()) => format!("{c}{}", chars.as_str()),
        Some(c) => c.to_lowercase().collect::<String>() + chars.as_str(),
        None => String::new(),
    }
}

pub(crate) fn upper_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().collect::<String>() + chars.as_str(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_become_violations_and_requests() {
        let rule = "Never push, tag or publish without an explicit \"yes\" from the maintainer";
        let v = violation(rule, false);
        assert_eq!(
            v,
            "push, tag or publish without an explicit \"yes\" from the maintainer"
        );
        assert_eq!(action(&v), "push, tag or publish");
        let step = "Check CI with the release_ci_status tool; never release on a red build.";
        assert_eq!(rule_clause(step).as_deref(), Some("never release on a red build"));
        assert_eq!(
            violation("never release on a red build", false),
            "release on a red build"
        );
        let after = "Bump the version in package.json only after the maintainer agrees";
        assert_eq!(
            violation(after, false),
            "bump the version in package.json before the maintainer agrees"
        );
        assert_eq!(
            imperative("Force-pushing to main"),
            "go ahead with force-pushing to main"
        );
        assert_eq!(
            assistant_does("push, tag or publish"),
            "The assistant pushes, tag or publish."
        );
        assert_eq!(
            assistant_does("release on a red build"),
            "The assistant releases on a red build."
        );
        assert_eq!(assistant_does("running x"), "The assistant ends up running x.");
        assert_eq!(assistant_does_not("running x"), "The assistant avoids running x.");
        assert_eq!(
            assistant_does_not("print tokens"),
            "The assistant does not print tokens."
        );
    }

    #[test]
    fn similar_rules_overlap() {
        let a = content_words("Never push, tag or publish without an explicit yes from the maintainer");
        let b = content_words("Must never push, tag or publish without explicit confirmation.");
        assert!(overlap(&a, &b) >= 0.5);
        let c = content_words("Never print tokens, keys or the contents of .env files.");
        assert!(overlap(&a, &c) < 0.5);
        assert!(mentions_secret("print tokens, keys"));
    }
}
