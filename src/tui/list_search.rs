//! `/` search in the review lists (personas, scenarios): type a query, Enter jumps to the first
//! matching item, `n` / `N` go to the next / previous match and Esc ends the search. Matching is
//! case-insensitive over every text of an item (id, title, goal, criteria, …); the screens mark
//! each occurrence.
//!
//! While a search is active `n` and `N` move between matches instead of rejecting: the footer
//! says so, and Esc gives the keys back.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::Value;

use super::intent::Intent;
use super::transcript::highlighted;
use super::ui_state::{ListSearch, Ui};
use crate::lab::StepId;

/// A help row (keys, what they do), as in `tui::help`.
type HelpEntry = (&'static str, &'static str);

/// Every text of an item, lowercased and joined (keys are left out: `goal` is not a match).
fn item_text(item: &Value, out: &mut String) {
    match item {
        Value::String(s) => {
            out.push_str(&s.to_lowercase());
            out.push('\n');
        }
        Value::Array(a) => a.iter().for_each(|v| item_text(v, out)),
        Value::Object(m) => m.values().for_each(|v| item_text(v, out)),
        Value::Number(n) => {
            out.push_str(&n.to_string());
            out.push('\n');
        }
        _ => {}
    }
}

/// The positions of the items that contain `query` in any case; none for an empty query.
pub(crate) fn matches(items: &[Value], query: &str) -> Vec<usize> {
    let needle = query.to_lowercase();
    if needle.is_empty() {
        return Vec::new();
    }
    items
        .iter()
        .enumerate()
        .filter(|(_, it)| {
            let mut text = String::new();
            item_text(it, &mut text);
            text.contains(&needle)
        })
        .map(|(i, _)| i)
        .collect()
}

/// The match after (or, `back`, before) `cursor`, wrapping around the list.
fn next_match(found: &[usize], cursor: usize, back: bool) -> Option<usize> {
    if back {
        found.iter().rev().find(|&&i| i < cursor).or(found.last()).copied()
    } else {
        found.iter().find(|&&i| i > cursor).or(found.first()).copied()
    }
}

/// Moves the cursor to a match and says where it is, or that there is none.
fn go(ui: &mut Ui, items: &[Value], query: &str, target: Option<usize>) {
    let found = matches(items, query);
    match target.or_else(|| next_match(&found, ui.cursor, false)) {
        Some(i) if !found.is_empty() => {
            ui.cursor = i;
            ui.proposal_scroll = 0;
            let nth = found.iter().position(|&f| f == i).map_or(0, |p| p + 1);
            ui.feedback = Some(format!("“{query}”: match {nth} of {}", found.len()));
        }
        _ => ui.feedback = Some(format!("“{query}”: no match")),
    }
}

/// Keys of the search; `None` when no search is open and the key does not open one.
pub fn on_key(key: KeyEvent, step: StepId, items: &[Value], ui: &mut Ui) -> Option<Intent> {
    let open = ListSearch {
        query: String::new(),
        typing: true,
        step: Some(step),
    };
    let Some(search) = ui.search.as_mut() else {
        if key.code == KeyCode::Char('/') {
            ui.search = Some(open);
            return Some(Intent::Ui);
        }
        return None;
    };
    if search.typing {
        match key.code {
            KeyCode::Esc => ui.search = None,
            KeyCode::Enter => {
                search.typing = false;
                let query = search.query.clone();
                if query.is_empty() {
                    ui.search = None;
                } else {
                    // From the item under the cursor on, so a match there is found first.
                    let found = matches(items, &query);
                    let first = found.iter().find(|&&i| i >= ui.cursor).or(found.first()).copied();
                    go(ui, items, &query, first);
                }
            }
            KeyCode::Backspace => {
                search.query.pop();
            }
            KeyCode::Char(c) => search.query.push(c),
            _ => {}
        }
        return Some(Intent::Ui);
    }
    let query = search.query.clone();
    match key.code {
        KeyCode::Char('n') => {
            let target = next_match(&matches(items, &query), ui.cursor, false);
            go(ui, items, &query, target);
        }
        KeyCode::Char('N') => {
            let target = next_match(&matches(items, &query), ui.cursor, true);
            go(ui, items, &query, target);
        }
        KeyCode::Char('/') => ui.search = Some(open),
        KeyCode::Esc => {
            ui.search = None;
            ui.feedback = Some(format!("search “{query}” ended"));
        }
        _ => return None,
    }
    Some(Intent::Ui)
}

/// The query whose occurrences the list and the detail mark: set once the search was entered.
pub(crate) fn marked(ui: &Ui) -> &str {
    match &ui.search {
        Some(s) if !s.typing => &s.query,
        _ => "",
    }
}

/// Detail-pane lines with the query's occurrences marked, whatever styles a line mixes: a match
/// may start in one span and end in the next.
pub(crate) fn mark_lines(lines: Vec<Line<'_>>, query: &str) -> Vec<Line<'static>> {
    lines
        .into_iter()
        .map(|line| match line.spans.as_slice() {
            [one] => highlighted(one.content.to_string(), query, one.style.patch(line.style)),
            spans => Line::from(mark_spans(spans, query)).style(line.style),
        })
        .collect()
}

/// `spans` with every case-insensitive occurrence of `query` marked, each character keeping
/// its span's style. Matched character by character, so a letter whose lowercase is longer
/// (`İ`) does not shift the marks.
fn mark_spans(spans: &[Span<'_>], query: &str) -> Vec<Span<'static>> {
    let fold = |c: char| c.to_lowercase().next().unwrap_or(c);
    let chars: Vec<(char, Style)> = spans
        .iter()
        .flat_map(|s| s.content.chars().map(move |c| (c, s.style)))
        .collect();
    let needle: Vec<char> = query.chars().map(fold).collect();
    let mut marked = vec![false; chars.len()];
    let mut i = 0;
    while !needle.is_empty() && i + needle.len() <= chars.len() {
        if chars[i..i + needle.len()]
            .iter()
            .map(|(c, _)| fold(*c))
            .eq(needle.iter().copied())
        {
            marked[i..i + needle.len()].iter_mut().for_each(|m| *m = true);
            i += needle.len();
        } else {
            i += 1;
        }
    }
    let mut out: Vec<Span<'static>> = Vec::new();
    for ((c, style), mark) in chars.into_iter().zip(marked) {
        let style = if mark {
            style.add_modifier(Modifier::REVERSED | Modifier::BOLD)
        } else {
            style
        };
        match out.last_mut() {
            Some(last) if last.style == style => last.content.to_mut().push(c),
            _ => out.push(Span::styled(c.to_string(), style)),
        }
    }
    out
}

/// The footer line while a search is open.
pub(crate) fn hint(ui: &Ui) -> Option<String> {
    let s = ui.search.as_ref()?;
    Some(if s.typing {
        format!("/{}▏ · Enter find · Backspace erase · Esc cancel", s.query)
    } else {
        format!(
            "search “{}” · n next · N previous · / new search · Esc end the search",
            s.query
        )
    })
}

/// The search keys, as the `?` overlay lists them (`while` says which apply now).
pub(crate) fn help(ui: &Ui) -> Vec<HelpEntry> {
    match &ui.search {
        Some(s) if s.typing => vec![
            ("Enter", "find the query (any case)"),
            ("Backspace", "erase a character"),
            ("Esc", "cancel the search"),
        ],
        Some(_) => vec![
            ("n", "next match (while searching)"),
            ("N", "previous match (while searching)"),
            ("/", "a new search"),
            ("Esc", "end the search (n and N reject again)"),
        ],
        None => vec![("/", "search the list in any case; then n / N next / previous match")],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyModifiers;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn items() -> Vec<Value> {
        serde_json::from_str(
            r#"[{"id": "a", "title": "Prepare a release"},
                {"id": "b", "title": "Tag early", "goal": "push a TAG"},
                {"id": "c", "title": "Decline weather", "success_criteria": ["says no to tagging"]},
                {"id": "d", "title": "Other"}]"#,
        )
        .unwrap()
    }

    fn typed(ui: &mut Ui, items: &[Value], text: &str) {
        on_key(key(KeyCode::Char('/')), StepId::Scenarios, items, ui);
        for c in text.chars() {
            on_key(key(KeyCode::Char(c)), StepId::Scenarios, items, ui);
        }
        on_key(key(KeyCode::Enter), StepId::Scenarios, items, ui);
    }

    #[test]
    fn matching_ignores_case_and_reads_every_text_of_an_item_but_not_its_keys() {
        assert_eq!(matches(&items(), "tag"), [1, 2]);
        assert_eq!(matches(&items(), "RELEASE"), [0]);
        assert!(matches(&items(), "goal").is_empty(), "a key is not a match");
        assert!(matches(&items(), "").is_empty());
    }

    #[test]
    fn enter_jumps_to_the_first_match_and_n_and_shift_n_wrap_around() {
        let items = items();
        let mut ui = Ui::default();
        typed(&mut ui, &items, "TAG");
        assert_eq!(ui.cursor, 1);
        assert_eq!(ui.feedback.as_deref(), Some("“TAG”: match 1 of 2"));
        assert_eq!(marked(&ui), "TAG");
        on_key(key(KeyCode::Char('n')), StepId::Scenarios, &items, &mut ui);
        assert_eq!(ui.cursor, 2);
        on_key(key(KeyCode::Char('n')), StepId::Scenarios, &items, &mut ui);
        assert_eq!(ui.cursor, 1, "wraps to the first match");
        on_key(key(KeyCode::Char('N')), StepId::Scenarios, &items, &mut ui);
        assert_eq!(ui.cursor, 2, "wraps back to the last match");
        // Esc ends the search and gives `n` back to the screen (reject).
        assert_eq!(
            on_key(key(KeyCode::Esc), StepId::Scenarios, &items, &mut ui),
            Some(Intent::Ui)
        );
        assert!(ui.search.is_none() && marked(&ui).is_empty());
        assert_eq!(
            on_key(key(KeyCode::Char('n')), StepId::Scenarios, &items, &mut ui),
            None
        );
    }

    #[test]
    fn typing_edits_the_query_and_nothing_found_is_said() {
        let items = items();
        let mut ui = Ui::default();
        on_key(key(KeyCode::Char('/')), StepId::Scenarios, &items, &mut ui);
        for c in "zzx".chars() {
            on_key(key(KeyCode::Char(c)), StepId::Scenarios, &items, &mut ui);
        }
        on_key(key(KeyCode::Backspace), StepId::Scenarios, &items, &mut ui);
        assert_eq!(hint(&ui).unwrap(), "/zz▏ · Enter find · Backspace erase · Esc cancel");
        assert_eq!(marked(&ui), "", "nothing is marked while typing");
        on_key(key(KeyCode::Enter), StepId::Scenarios, &items, &mut ui);
        assert_eq!(ui.feedback.as_deref(), Some("“zz”: no match"));
        assert_eq!(ui.cursor, 0, "the cursor stays");
        // While typing, every character is part of the query, `q` and `?` included.
        let mut ui = Ui::default();
        typed(&mut ui, &items, "q?");
        assert_eq!(marked(&ui), "q?");
        // An empty query closes the search.
        let mut ui = Ui::default();
        typed(&mut ui, &items, "");
        assert!(ui.search.is_none());
    }

    fn marked_text(line: &Line<'_>) -> Vec<(String, bool)> {
        line.spans
            .iter()
            .map(|s| (s.content.to_string(), s.style.add_modifier.contains(Modifier::REVERSED)))
            .collect()
    }

    #[test]
    fn a_line_mixing_styles_is_marked_and_keeps_its_styles() {
        use ratatui::style::Color;
        let key = Style::default().fg(Color::Blue);
        let value = Style::default().fg(Color::Green);
        let line = Line::from(vec![Span::styled("goal: ", key), Span::styled("push a TAG now", value)]);
        let out = mark_lines(vec![line], "tag");
        let spans = marked_text(&out[0]);
        assert_eq!(
            spans,
            [
                ("goal: ".into(), false),
                ("push a ".into(), false),
                ("TAG".into(), true),
                (" now".into(), false)
            ]
        );
        assert_eq!(
            out[0].spans[2].style.fg,
            Some(Color::Green),
            "the mark keeps the span's colour"
        );
    }

    #[test]
    fn a_match_across_two_spans_is_marked_in_both() {
        let second = Style::default().fg(ratatui::style::Color::Red);
        let line = Line::from(vec![Span::raw("relea"), Span::styled("se notes", second)]);
        let spans = marked_text(&mark_lines(vec![line], "RELEASE")[0]);
        assert_eq!(
            spans,
            [("relea".into(), true), ("se".into(), true), (" notes".into(), false)]
        );
    }

    #[test]
    fn every_occurrence_is_marked_and_unusual_letters_do_not_shift_the_marks() {
        let line = Line::from(vec![
            Span::raw("İstanbul "),
            Span::styled("tag, Tag", Style::default().add_modifier(Modifier::ITALIC)),
        ]);
        let spans = marked_text(&mark_lines(vec![line], "tag")[0]);
        assert_eq!(
            spans,
            [
                ("İstanbul ".into(), false),
                ("tag".into(), true),
                (", ".into(), false),
                ("Tag".into(), true)
            ]
        );
        let none = Line::from(vec![Span::raw("a"), Span::raw("b")]);
        assert_eq!(marked_text(&mark_lines(vec![none], "")[0]), [("ab".into(), false)]);
    }
}
