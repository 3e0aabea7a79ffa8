//! Step 8 as sections — purpose, audience, workflows with their steps, risk surface, out of
//! scope — each with the evidence it was read from (source, section, quote), instead of YAML.
//! `e` still edits the whole document; a text that is not a profile is shown as written.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::panel::block;
use super::personas::{draw_footer, footer_rows};
use super::theme::Theme;
use super::ui_state::Ui;
use crate::generate::AgentProfile;
use crate::generate::profile::EvidenceRef;
use crate::lab::Proposal;

/// The profile in the proposal, when it is one.
pub(crate) fn parse(proposal: &Proposal) -> Option<AgentProfile> {
    crate::spec::yaml_guard::parse_guarded(&proposal.text).ok()
}

fn evidence_line<'a>(e: &EvidenceRef, theme: &Theme) -> Line<'a> {
    let kind = serde_json::to_value(e.kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let section = e.section.as_deref().map(|s| format!(" § {s}")).unwrap_or_default();
    Line::from(vec![
        Span::styled(format!("    ↳ {kind} {}{section}", e.source), theme.muted()),
        Span::styled(format!(" “{}”", super::personas::clip(&e.quote, 48)), theme.muted()),
    ])
}

fn evidence<'a>(out: &mut Vec<Line<'a>>, refs: &[EvidenceRef], theme: &Theme) {
    if refs.is_empty() {
        out.push(Line::styled("    ↳ no evidence recorded", theme.warn()));
    }
    out.extend(refs.iter().map(|e| evidence_line(e, theme)));
}

/// The profile's sections as lines.
pub(crate) fn profile_lines<'a>(p: &AgentProfile, theme: &Theme) -> Vec<Line<'a>> {
    let mut out = vec![Line::styled("Purpose", theme.accent())];
    out.push(Line::styled(format!("  {}", p.purpose), theme.base()));
    if p.evidence.from_description {
        // The description is the purpose itself; quoting it again under it says nothing new.
        out.push(Line::styled(
            "    ↳ your own description (agent.description), unchanged",
            theme.muted(),
        ));
    } else {
        evidence(&mut out, &p.evidence.purpose, theme);
    }
    out.push(Line::styled("Audience", theme.accent()));
    out.push(Line::styled(format!("  {}", p.audience), theme.base()));
    evidence(&mut out, &p.evidence.audience, theme);
    out.push(Line::styled(
        format!("Workflows ({})", p.workflows.len()),
        theme.accent(),
    ));
    for w in &p.workflows {
        out.push(Line::styled(format!("  {} ({})", w.name, w.id), theme.base()));
        for (i, step) in w.steps.iter().enumerate() {
            out.push(Line::styled(format!("    {}. {step}", i + 1), theme.base()));
        }
        if !w.capabilities_used.is_empty() {
            out.push(Line::styled(
                format!("    uses: {}", w.capabilities_used.join(", ")),
                theme.muted(),
            ));
        }
        evidence(&mut out, &w.evidence, theme);
    }
    out.push(Line::styled(
        format!("Risk surface ({})", p.risk_surface.len()),
        theme.accent(),
    ));
    for r in &p.risk_surface {
        let sev = serde_json::to_value(r.severity)
            .ok()
            .and_then(|v| v.as_str().map(str::to_uppercase))
            .unwrap_or_default();
        let style = if sev == "HIGH" { theme.error() } else { theme.warn() };
        out.push(Line::from(vec![
            Span::styled(format!("  [{sev}] "), style),
            Span::styled(format!("{} ({}) via {}", r.risk, r.id, r.capability), theme.base()),
        ]));
        out.push(Line::styled(format!("    why: {}", r.why), theme.base()));
        evidence(&mut out, &r.evidence, theme);
    }
    out.push(Line::styled(
        format!("Out of scope ({})", p.out_of_scope.len()),
        theme.accent(),
    ));
    for o in &p.out_of_scope {
        out.push(Line::styled(format!("  {} ({})", o.what, o.id), theme.base()));
        evidence(&mut out, &o.evidence, theme);
    }
    out
}

/// Draws step 8 from a parsed profile.
pub(crate) fn draw(
    frame: &mut Frame,
    proposal: &Proposal,
    profile: &AgentProfile,
    ui: &Ui,
    theme: &Theme,
    area: Rect,
    status: &[Line],
) {
    let [body, footer] = Layout::vertical([
        Constraint::Min(3),
        Constraint::Length(footer_rows(&proposal.notes, status, 0)),
    ])
    .areas(area);
    super::scroll::draw_scrolled(
        frame,
        Paragraph::new(profile_lines(profile, theme)),
        block(" Profile ".into(), theme),
        ui.proposal_scroll,
        &ui.proposal_max,
        body,
    );
    draw_footer(frame, &proposal.notes, status, theme, footer);
}
