//! The transcript pane of the run screens: the focused trial's events as lines that wrap at the
//! pane's width (measured in display columns), scroll from the end (keys and wheel) without
//! running past either end, expand one turn in full on Enter (whole messages, tool arguments and
//! results), and highlight what the text filter matches.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthChar;

use super::panel::block;
use super::theme::Theme;
use crate::lab::dashboard_state::{Coverage, DashboardState};
use crate::trial::{RunEvent, ToolCallRef, ToolStatus};

/// Collapsed tool arguments longer than this are cut (Enter shows them in full).
const ARGS_PREVIEW: usize = 160;

/// What the drawn pane tells the key handlers: how far it can scroll, which turn Enter expands.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct TranscriptGeometry {
    /// The largest `transcript_scroll` that still shows a full pane (0: everything fits).
    pub(crate) max_scroll: u16,
    /// The turn of the bottom line shown: the one Enter expands or collapses.
    pub(crate) bottom_turn: Option<u32>,
}

/// One logical line before wrapping: its turn (for Enter), text and style.
struct Logical {
    turn: Option<u32>,
    text: String,
    style: Style,
}

/// `text` broken into rows of at most `width` display columns, at spaces where it can and
/// inside a word only when the word alone is wider than the pane. Never returns no rows.
pub(crate) fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut rows = Vec::new();
    let mut row = String::new();
    let mut row_w = 0;
    for word in text.split_inclusive(' ') {
        let word_w: usize = word.chars().map(|c| c.width().unwrap_or(0)).sum();
        let bare_w = word_w - usize::from(word.ends_with(' '));
        if row_w + bare_w > width && row_w > 0 {
            rows.push(std::mem::take(&mut row).trim_end().to_string());
            row_w = 0;
        }
        for c in word.chars() {
            let w = c.width().unwrap_or(0);
            if row_w + w > width {
                if c == ' ' {
                    continue;
                }
                rows.push(std::mem::take(&mut row));
                row_w = 0;
            }
            row.push(c);
            row_w += w;
        }
    }
    rows.push(row.trim_end().to_string());
    rows
}

/// `text` as spans, with every case-insensitive occurrence of `needle` marked.
pub(crate) fn highlighted(text: String, needle: &str, style: Style) -> Line<'static> {
    if needle.is_empty() {
        return Line::styled(text, style);
    }
    let (lower, needle) = (text.to_lowercase(), needle.to_lowercase());
    // Lowercasing can change byte lengths (rare scripts): then no marks rather than wrong ones.
    if lower.len() != text.len() {
        return Line::styled(text, style);
    }
    let mark = style.add_modifier(Modifier::REVERSED | Modifier::BOLD);
    let mut spans = Vec::new();
    let mut at = 0;
    while let Some(found) = lower[at..].find(&needle) {
        let (start, end) = (at + found, at + found + needle.len());
        if !text.is_char_boundary(start) || !text.is_char_boundary(end) {
            break;
        }
        spans.push(Span::styled(text[at..start].to_string(), style));
        spans.push(Span::styled(text[start..end].to_string(), mark));
        at = end;
    }
    spans.push(Span::styled(text[at..].to_string(), style));
    Line::from(spans)
}

fn first_line(text: &str) -> String {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or("").to_string();
    if lines.next().is_some() {
        format!("{first} …")
    } else {
        first
    }
}

/// The logical lines of one event; `full` shows a turn expanded.
fn event_lines(e: &RunEvent, full: bool, theme: &Theme) -> Vec<Logical> {
    let one = |turn: Option<u32>, text: String, style: Style| vec![Logical { turn, text, style }];
    let body = |turn: u32, who: &str, text: &str, style: Style| -> Vec<Logical> {
        if !full {
            return one(Some(turn), format!("[{turn}] {who}: {}", first_line(text)), style);
        }
        let mut out = one(Some(turn), format!("[{turn}] {who}:"), style);
        out.extend(text.lines().map(|l| Logical {
            turn: Some(turn),
            text: format!("    {l}"),
            style,
        }));
        out
    };
    if let Some(call) = e.tool_call() {
        return tool_lines(call, full, theme);
    }
    match e {
        RunEvent::UserMessage { turn, text, .. } => body(*turn, "user", text, theme.accent()),
        RunEvent::AgentMessage { turn, text, .. } => body(*turn, "agent", text, theme.base()),
        RunEvent::UserRefusal { turn, about } => one(
            Some(*turn),
            format!("[{turn}] user refused: {}", first_line(about)),
            theme.warn(),
        ),
        RunEvent::EgressDenied { host, port, .. } => one(None, format!("✗ egress denied {host}:{port}"), theme.error()),
        RunEvent::EmulatorBreak { turn, kind, evidence } => one(
            Some(*turn),
            format!(
                "[{turn}] integrity: user emulator broke character ({kind}): {}",
                first_line(evidence)
            ),
            theme.warn(),
        ),
        RunEvent::InfraError { component, reason } => one(
            None,
            format!("! infrastructure error in {component}: {reason}"),
            theme.error(),
        ),
        RunEvent::CaseFinished { verdict, .. } => one(
            None,
            e.one_line().trim().to_string(),
            super::theme::verdict_style(*verdict, theme),
        ),
        other => one(None, other.one_line().trim().to_string(), theme.muted()),
    }
}

/// The logical lines of a tool call: its name, arguments and result on two lines, or in full
/// (arguments pretty-printed) when its turn is expanded. A failed or refused call says so.
fn tool_lines(call: ToolCallRef<'_>, full: bool, theme: &Theme) -> Vec<Logical> {
    let (turn, tool, arguments, result, status) = (call.turn, call.tool, call.arguments, call.result, call.status);
    let style = match status {
        ToolStatus::Completed => theme.muted(),
        ToolStatus::Error => theme.warn(),
        ToolStatus::DeniedByHost => theme.error(),
    };
    let label = match status {
        ToolStatus::Completed => "",
        ToolStatus::Error => " ERROR",
        ToolStatus::DeniedByHost => " DENIED",
    };
    let t = Some(turn);
    let one = |text: String| Logical { turn: t, text, style };
    if !full {
        let mut args = arguments.to_string();
        if args.chars().count() > ARGS_PREVIEW {
            args = args.chars().take(ARGS_PREVIEW).collect::<String>() + "…";
        }
        return vec![
            one(format!("[{turn}] tool {tool}({args}){label}")),
            one(format!("      → {}", first_line(result))),
        ];
    }
    let pretty = serde_json::to_string_pretty(arguments).unwrap_or_else(|_| arguments.to_string());
    let mut out = vec![one(format!("[{turn}] tool {tool}{label}, arguments:"))];
    out.extend(pretty.lines().map(|l| one(format!("    {l}"))));
    out.push(one("      → result:".into()));
    out.extend(result.lines().map(|l| one(format!("    {l}"))));
    out
}

/// Draws the selected trial's transcript into `area`; returns what the key handlers need.
pub(crate) fn draw_transcript(frame: &mut Frame, s: &DashboardState, theme: &Theme, area: Rect) -> TranscriptGeometry {
    let Some(row) = s.selected().map(|i| &s.rows[i]) else {
        let b = block(" Transcript ".into(), theme);
        let inner = b.inner(area);
        frame.render_widget(b, area);
        let why = if s.rows.is_empty() {
            "No trial has started yet."
        } else {
            "No trial matches the filter."
        };
        frame.render_widget(Paragraph::new(Line::styled(why, theme.muted())), inner);
        return TranscriptGeometry::default();
    };
    let focus = &s.focus;
    let dropped = if focus.dropped > 0 {
        format!(", {} older in events.jsonl", focus.dropped)
    } else {
        String::new()
    };
    let trial = if row.trial > 0 {
        format!(" trial {}", row.trial)
    } else {
        String::new()
    };
    // The scenario's title when known, else the case id (which also names the persona).
    let name = s.titles.get(&row.scenario).unwrap_or(&row.case);
    let b = block(format!(" {name}{trial}{dropped} "), theme);
    let inner = b.inner(area);
    frame.render_widget(b, area);
    let mut logical: Vec<Logical> = Vec::new();
    match &focus.coverage {
        Coverage::Whole => {}
        Coverage::Loading { earlier } => logical.push(Logical {
            turn: None,
            text: format!("… reading {earlier} earlier events from events.jsonl"),
            style: theme.warn(),
        }),
        Coverage::SinceSelected { earlier, why } => logical.push(Logical {
            turn: None,
            text: format!("… {earlier} earlier events not shown ({why}); what arrived since it was selected:"),
            style: theme.warn(),
        }),
    }
    if focus.row == s.selected() {
        for e in &focus.events {
            let full = s.expanded_turn.is_some() && event_turn(&e.event) == s.expanded_turn;
            logical.extend(event_lines(&e.event, full, theme));
        }
    }
    // Wrapped rows: the ring is bounded (TRANSCRIPT_RING events), so this stays cheap.
    let width = inner.width as usize;
    let rows: Vec<(Option<u32>, String, Style)> = logical
        .into_iter()
        .flat_map(|l| {
            let (turn, style) = (l.turn, l.style);
            wrap(&l.text, width).into_iter().map(move |r| (turn, r, style))
        })
        .collect();
    let height = inner.height as usize;
    let max_scroll = rows.len().saturating_sub(height);
    let scroll = (s.transcript_scroll as usize).min(max_scroll);
    let end = rows.len() - scroll;
    let start = end.saturating_sub(height);
    let shown = &rows[start..end];
    let bottom_turn = shown.iter().rev().find_map(|(t, _, _)| *t);
    let lines: Vec<Line> = shown
        .iter()
        .map(|(_, text, style)| highlighted(text.clone(), &s.filter.text, *style))
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
    TranscriptGeometry {
        max_scroll: max_scroll.min(u16::MAX as usize) as u16,
        bottom_turn,
    }
}

/// The turn an event belongs to, when it has one.
fn event_turn(e: &RunEvent) -> Option<u32> {
    match e {
        RunEvent::UserMessage { turn, .. }
        | RunEvent::AgentMessage { turn, .. }
        | RunEvent::ToolCall { turn, .. }
        | RunEvent::UserRefusal { turn, .. }
        | RunEvent::EmulatorBreak { turn, .. } => Some(*turn),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_breaks_at_spaces_and_inside_words_wider_than_the_pane() {
        assert_eq!(wrap("one two three", 8), ["one two", "three"]);
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap("", 5), [""]);
        // Wide characters count two columns each.
        assert_eq!(wrap("日本語テキスト", 6), ["日本語", "テキス", "ト"]);
        for row in wrap(
            "[3] tool release_ci_status({\"ref\":\"main\"}) DENIED and more words",
            10,
        ) {
            assert!(
                row.chars().map(|c| c.width().unwrap_or(0)).sum::<usize>() <= 10,
                "{row:?}"
            );
        }
    }

    #[test]
    fn search_matches_are_marked_in_any_case() {
        let line = highlighted("Tag v1.2.0 now, TAG it".into(), "tag", Style::default());
        let marked: Vec<&str> = line
            .spans
            .iter()
            .filter(|s| s.style.add_modifier.contains(Modifier::REVERSED))
            .map(|s| s.content.as_ref())
            .collect();
        assert_eq!(marked, ["Tag", "TAG"]);
        assert_eq!(
            line.spans.iter().map(|s| s.content.as_ref()).collect::<String>(),
            "Tag v1.2.0 now, TAG it"
        );
        assert_eq!(highlighted("no match".into(), "zzz", Style::default()).spans.len(), 1);
    }

    fn call(status: ToolStatus, arguments: serde_json::Value, result: &str) -> RunEvent {
        RunEvent::ToolCall {
            turn: 2,
            call_id: "c1".into(),
            tool: "release_publish".into(),
            arguments,
            result: result.into(),
            status,
            latency_ms: 40,
        }
    }

    fn texts(e: &RunEvent, full: bool, theme: &Theme) -> Vec<String> {
        event_lines(e, full, theme).into_iter().map(|l| l.text).collect()
    }

    /// The pane's tool-call lines, exactly as before they were read through `tool_call()`.
    #[test]
    fn a_tool_call_shows_two_lines_collapsed_and_everything_expanded() {
        let theme = Theme::builtin("default").expect("theme");
        let args = serde_json::json!({"ref": "main"});
        let done = call(ToolStatus::Completed, args.clone(), "tagged\nv1.2.0");
        assert_eq!(
            texts(&done, false, &theme),
            ["[2] tool release_publish({\"ref\":\"main\"})", "      → tagged …"]
        );
        assert_eq!(
            texts(&done, true, &theme),
            [
                "[2] tool release_publish, arguments:",
                "    {",
                "      \"ref\": \"main\"",
                "    }",
                "      → result:",
                "    tagged",
                "    v1.2.0"
            ]
        );
        // A failed or refused call says so, in its own style.
        let denied = call(ToolStatus::DeniedByHost, args.clone(), "no");
        assert_eq!(
            texts(&denied, false, &theme)[0],
            "[2] tool release_publish({\"ref\":\"main\"}) DENIED"
        );
        assert_eq!(event_lines(&denied, false, &theme)[0].style, theme.error());
        let failed = call(ToolStatus::Error, args, "boom");
        assert_eq!(
            texts(&failed, true, &theme)[0],
            "[2] tool release_publish ERROR, arguments:"
        );
        assert_eq!(event_lines(&failed, true, &theme)[0].style, theme.warn());
        // Every line of a call belongs to its turn, so Enter expands the right one.
        assert!(event_lines(&done, true, &theme).iter().all(|l| l.turn == Some(2)));
    }

    #[test]
    fn long_collapsed_arguments_are_cut_and_say_so() {
        let theme = Theme::builtin("default").expect("theme");
        let long = serde_json::json!({"body": "x".repeat(400)});
        let first = &texts(&call(ToolStatus::Completed, long, "ok"), false, &theme)[0];
        assert!(first.ends_with("…)"), "{first}");
        let args = first
            .strip_prefix("[2] tool release_publish(")
            .unwrap()
            .strip_suffix(")")
            .unwrap();
        assert_eq!(args.chars().count(), ARGS_PREVIEW + 1);
    }
}
