//! Step 10 as a tree: persona rows with their scenarios under them, the selected scenario's
//! detail, and a footer with the count per curation state and the estimated run cost.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use serde_json::Value;

use super::list_search::{mark_lines, marked};
use super::panel::block;
use super::personas::{
    ReviewAreas, clip, draw_footer, field, footer_rows, list_field, review_areas, section, window_start,
};
use super::theme::Theme;
use super::transcript::highlighted;
use super::ui_state::Ui;
use crate::generate::{CaseStatus, Dataset, ScenarioSet};
use crate::lab::review::item_id;
use crate::lab::{Lab, Phase, Proposal};

/// Scenario indexes in tree order: grouped by persona, personas in order of first appearance.
/// The cursor walks this order.
pub fn tree_order(items: &[Value]) -> Vec<usize> {
    let mut personas: Vec<&str> = Vec::new();
    for s in items {
        if !personas.contains(&field(s, "persona")) {
            personas.push(field(s, "persona"));
        }
    }
    personas
        .iter()
        .flat_map(|p| (0..items.len()).filter(move |&i| field(&items[i], "persona") == *p))
        .collect()
}

fn status_of(dataset: Option<&Dataset>, id: &str) -> Option<CaseStatus> {
    dataset?.cases.iter().find(|c| c.id == id).map(|c| c.status)
}

fn mark(status: Option<CaseStatus>, theme: &Theme) -> Span<'static> {
    match status {
        Some(CaseStatus::Approved) => Span::styled("✓", theme.ok()),
        Some(CaseStatus::Rejected) => Span::styled("✗", theme.error()),
        Some(CaseStatus::NeedsEdit) => Span::styled("✎", theme.warn()),
        Some(CaseStatus::Pending) => Span::styled("·", theme.muted()),
        None => Span::styled("?", theme.muted()),
    }
}

/// The footer line: counts per state and the cost estimate.
pub(crate) fn counts_line(lab: &Lab, proposal: &Proposal) -> String {
    let Some(d) = &lab.review.curation else {
        return "curation unavailable: the set does not parse as scenarios".into();
    };
    let n = |s: CaseStatus| d.cases.iter().filter(|c| c.status == s).count();
    let cost = match crate::spec::yaml_guard::parse_guarded::<ScenarioSet>(&proposal.text) {
        Ok(set) => crate::lab::review_cost::estimate(&lab.job, &set, d).show(),
        Err(_) => "unknown".into(),
    };
    format!(
        "{} pending · {} approved · {} rejected · {} needs edit · est. cost {cost}",
        n(CaseStatus::Pending),
        n(CaseStatus::Approved),
        n(CaseStatus::Rejected),
        n(CaseStatus::NeedsEdit),
    )
}

/// Draws step 10 from the scenario set `items`.
pub(crate) fn draw(frame: &mut Frame, lab: &Lab, items: &[Value], ui: &Ui, theme: &Theme, area: Rect, status: &[Line]) {
    let Phase::Deciding { proposal, .. } = &lab.phase else {
        return;
    };
    let ReviewAreas { list, detail, footer } = review_areas(area, footer_rows(&proposal.notes, status, 1));
    let order = tree_order(items);
    let cursor = ui.cursor.min(order.len().saturating_sub(1));
    let curation = lab.review.curation.as_ref();
    let list_block = block(format!(" Scenarios ({}) ", items.len()), theme);
    let inner = list_block.inner(list);
    frame.render_widget(list_block, list);
    let width = inner.width as usize;
    // Rows: a persona row before each group, then its scenarios; `selected_row` follows the cursor.
    let mut rows: Vec<Line> = Vec::new();
    let mut selected_row = 0;
    let mut last_persona = None;
    for (pos, &i) in order.iter().enumerate() {
        let s = &items[i];
        if last_persona != Some(field(s, "persona")) {
            last_persona = Some(field(s, "persona"));
            rows.push(Line::styled(
                clip(&format!("▾ {}", field(s, "persona")), width),
                theme.accent(),
            ));
        }
        let selected = pos == cursor;
        if selected {
            selected_row = rows.len();
        }
        let id = item_id(s);
        let style = if selected { theme.selected() } else { theme.base() };
        let title = clip(&format!(" {}", field(s, "title")), width.saturating_sub(4));
        let mut row = vec![
            Span::styled(if selected { "▶ " } else { "  " }, style),
            mark(status_of(curation, &id), theme),
        ];
        // The line's own style onto each span: an unmarked title is one plain span.
        let line = highlighted(title, marked(ui), style);
        row.extend(line.spans.into_iter().map(|s| {
            let st = line.style.patch(s.style);
            s.style(st)
        }));
        rows.push(Line::from(row));
    }
    if rows.is_empty() {
        rows.push(Line::styled("No scenarios: R regenerates the set.", theme.muted()));
    }
    let start = window_start(selected_row, rows.len(), inner.height as usize);
    let visible: Vec<Line> = rows.into_iter().skip(start).take(inner.height as usize).collect();
    frame.render_widget(Paragraph::new(visible), inner);
    let body = match order.get(cursor).map(|&i| &items[i]) {
        Some(s) => mark_lines(scenario_detail(s, status_of(curation, &item_id(s)), theme), marked(ui)),
        None => vec![Line::styled("Nothing selected.", theme.muted())],
    };
    super::scroll::draw_scrolled(
        frame,
        Paragraph::new(body),
        block(" Scenario ".into(), theme),
        ui.proposal_scroll,
        &ui.proposal_max,
        detail,
    );
    let mut lines = vec![Line::styled(counts_line(lab, proposal), theme.muted())];
    lines.extend(status.iter().cloned());
    draw_footer(frame, &proposal.notes, &lines, theme, footer);
}

fn scenario_detail<'a>(s: &Value, status: Option<CaseStatus>, theme: &Theme) -> Vec<Line<'a>> {
    let state = status.map_or("not in the dataset", CaseStatus::as_str);
    let mut out = vec![
        Line::styled(field(s, "title").to_string(), theme.accent()),
        Line::styled(
            format!(
                "{} · {} · {state} · max {} turns",
                item_id(s),
                field(s, "kind"),
                s.get("max_turns").and_then(Value::as_u64).unwrap_or(0)
            ),
            theme.muted(),
        ),
        Line::raw(""),
    ];
    section(&mut out, "Goal", vec![field(s, "goal").to_string()], "", theme);
    section(
        &mut out,
        "Opening message",
        vec![format!("“{}”", field(s, "opening_message"))],
        "",
        theme,
    );
    section(
        &mut out,
        "Success criteria",
        list_field(s, "success_criteria"),
        "✓ ",
        theme,
    );
    section(
        &mut out,
        "Failure signals",
        list_field(s, "failure_signals"),
        "✗ ",
        theme,
    );
    section(
        &mut out,
        "Stop conditions",
        list_field(s, "stop_conditions"),
        "■ ",
        theme,
    );
    let outcome = s.get("expected_outcome").cloned().unwrap_or(Value::Null);
    let mut checks = Vec::new();
    for (label, key) in [
        ("expected tool calls", "expected_tool_calls"),
        ("forbidden tool calls", "forbidden_tool_calls"),
        ("must include", "must_include"),
        ("must not include", "must_not_include"),
    ] {
        let v = list_field(&outcome, key);
        if !v.is_empty() {
            checks.push(format!("{label}: {}", v.join(", ")));
        }
    }
    if let Some(Value::Object(files)) = outcome.get("checks") {
        for (key, v) in files {
            let unset = matches!(v, Value::Bool(false) | Value::Null) || v.as_array().is_some_and(Vec::is_empty);
            if unset {
                continue;
            }
            let shown = match v {
                Value::Array(a) => a
                    .iter()
                    .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_string))
                    .collect::<Vec<_>>()
                    .join(", "),
                other => other.to_string(),
            };
            checks.push(format!("{}: {shown}", key.replace('_', " ")));
        }
    }
    section(&mut out, "Deterministic checks", checks, "", theme);
    let why = s.get("why").cloned().unwrap_or(Value::Null);
    section(
        &mut out,
        "Why",
        vec![format!(
            "{} {} — {}",
            field(&why, "basis"),
            field(&why, "id"),
            field(&why, "reason")
        )],
        "",
        theme,
    );
    out
}
