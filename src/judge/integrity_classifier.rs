//! The classifier behind the integrity checks: phrase patterns matched over normalised words
//! with small gaps allowed, so paraphrases ("this is only a test", "it's all just a
//! simulation", "a simulated persona", "the judge grading this") are caught without listing
//! every sentence, and ordinary speech about tests, releases and judgement is not.
//!
//! A pattern is a sequence of slots; each slot is a set of words; up to `gap` other words may
//! sit between two slots. A slot word ending in `*` matches any word with that prefix. The
//! rule tables themselves are in `integrity_phrases`.

use regex::Regex;
use std::sync::LazyLock;

/// One rule: a kind, its slot sequence, the gap allowed, and words that, right after the
/// match, mean ordinary speech ("this is a test release").
pub(crate) struct PhraseRule {
    pub(crate) kind: &'static str,
    pub(crate) slots: &'static [&'static [&'static str]],
    pub(crate) gap: usize,
    pub(crate) not_followed_by: &'static [&'static str],
}

/// Lower-cased words, apostrophes split off ("it's" → "it", "s"), punctuation dropped.
pub(crate) fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .replace(['\u{2019}', '\u{2018}'], "'")
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

fn slot_matches(slot: &[&str], word: &str) -> bool {
    slot.iter().any(|s| match s.strip_suffix('*') {
        Some(prefix) => word.starts_with(prefix),
        None => *s == word,
    })
}

/// The matched words of the first place `rule` matches in `ws`, if any.
pub(crate) fn find(rule: &PhraseRule, ws: &[String]) -> Option<String> {
    for start in 0..ws.len() {
        if !slot_matches(rule.slots[0], &ws[start]) {
            continue;
        }
        let mut at = start;
        let mut ok = true;
        for slot in &rule.slots[1..] {
            let mut window = (at + 1)..(at + 2 + rule.gap).min(ws.len());
            match window.find(|&i| slot_matches(slot, &ws[i])) {
                Some(i) => at = i,
                None => {
                    ok = false;
                    break;
                }
            }
        }
        let next = ws.get(at + 1).map(String::as_str).unwrap_or("");
        if ok && !rule.not_followed_by.contains(&next) {
            return Some(ws[start..=at].join(" "));
        }
    }
    None
}

/// Tool-call syntax: markup or JSON a model uses to call tools, which a user never types.
static TOOL_CALL_SYNTAX: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?is)(<\s*/?\s*(tool_call|tool_use|function_call|function_calls|invoke|tool_result)\b|"(tool|tool_name|name|function)"\s*:\s*"[^"]+"\s*,\s*"(arguments|parameters|input|args)"\s*:|\bto=functions\.|\bfunctions\.[a-z_]+\s*\(\s*\{|^\s*(assistant|ai)\s*:)"#,
    )
    .expect("valid tool-call pattern")
});

/// Thinking tags some models leak.
static THINK_TAGS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)</?\s*(think|thinking|reasoning|scratchpad)\s*>").expect("valid pattern"));

/// The first rule of `rules` that matches `text`, as (kind, matched words).
pub(crate) fn first_match(rules: &[PhraseRule], text: &str) -> Option<(&'static str, String)> {
    let ws = words(text);
    rules.iter().find_map(|r| find(r, &ws).map(|m| (r.kind, m)))
}

/// Markup in the user's text: tool-call syntax or thinking tags, as (kind, evidence).
pub(crate) fn markup(text: &str) -> Option<(&'static str, String)> {
    if let Some(m) = THINK_TAGS.find(text) {
        return Some(("leaked_reasoning", m.as_str().to_string()));
    }
    TOOL_CALL_SYNTAX.find(text).map(|m| {
        let kind = if m.as_str().trim_start().to_lowercase().starts_with("assistant")
            || m.as_str().trim_start().to_lowercase().starts_with("ai")
        {
            "role_swap"
        } else {
            "tool_call_syntax"
        };
        (kind, m.as_str().trim().chars().take(80).collect())
    })
}
