//! Sections 4 and 5 on PDF pages: each trial's transcript, then its verdict, compact enough
//! that a run of the bundled example prints in under 20 pages. Tool arguments print on one
//! line and long results are cut to their first lines; passed checks and the harness's
//! observations are one paragraph each. report.html keeps every line (`digest`).

use super::blocks::{MUTED, TEXT, c, labelled, note, section, table};
use super::fonts::Face;
use super::layout::Writer;
use crate::report::digest::{
    checks_digest, head_lines, observed_line, one_line_json, rationale_once, reasons_beyond_criteria,
};
use crate::report::markdown::verdict_label;
use crate::report::model::*;
use crate::report::section::Section;
use crate::report::tables;
use crate::report::transcript_view::{Body, EntryView, Who, entry_view};

/// Lines of a tool result printed before the cut (the rest is in report.html).
const RESULT_LINES: usize = 12;

fn trial_heading(w: &mut Writer<'_>, level: u8, t: &TrialReport) {
    w.heading(level, &format!("{} — {}", t.title(), verdict_label(t)));
}

pub(super) fn transcripts(w: &mut Writer<'_>, r: &Report) {
    section(w, Section::Transcripts);
    for t in &r.trials {
        trial_heading(w, 2, t);
        match &t.timing {
            Some(time) => note(w, &format!("{}. {}", t.meta_line(), time.line())),
            None => note(w, &t.meta_line()),
        }
        for p in &t.problems {
            note(w, &format!("problem: {p}"));
        }
        let mut i = 0;
        while i < t.entries.len() {
            match &t.entries[i] {
                Entry::Note { .. } => {
                    // Notes in a row (sandbox ready, setup, stop) share one paragraph; each
                    // keeps its anchor for the evidence links.
                    let mut texts = Vec::new();
                    while let Some(Entry::Note { seq, text, .. }) = t.entries.get(i) {
                        anchor(w, t, *seq);
                        texts.push(format!("e{seq} · {text}"));
                        i += 1;
                    }
                    w.paragraph(&texts.join("  ·  "), Face::Sans, 8.0, c(MUTED), 10.0);
                    w.space(2.0);
                    continue;
                }
                e => entry(w, t, &entry_view(e)),
            }
            w.space(2.0);
            i += 1;
        }
        w.space(6.0);
    }
}

/// A message or a tool call: its heading (who, facts) in the speaker's colour, then the text
/// beside it, or the call's arguments and result in one block (`→` sent, `←` came back).
fn entry(w: &mut Writer<'_>, t: &TrialReport, v: &EntryView<'_>) {
    anchor(w, t, v.seq);
    let who_word = match v.who {
        Who::Tool(name) => format!("tool {name}"),
        other => other.word().to_string(),
    };
    let head = format!("{} · {}", v.lead(&who_word), v.facts.join(" · "));
    match v.body {
        Body::Text(text) => labelled(w, &format!("{head}:"), who_rgb(v.who), text, 8.2),
        Body::Call { arguments, result } => {
            who(w, &head, who_rgb(v.who));
            let block = format!("→ {}\n← {}", one_line_json(arguments), head_lines(result, RESULT_LINES));
            w.code(&block, 10.0);
        }
    }
}

/// The colour of a speaker's heading (the HTML's stylesheet uses the same hues).
fn who_rgb(who: Who<'_>) -> (u8, u8, u8) {
    match who {
        Who::User => (43, 90, 138),
        Who::Agent => (46, 125, 50),
        Who::Tool(_) => (183, 121, 31),
        Who::Note => MUTED,
    }
}

/// Keeps the event with its heading line, then records where it starts.
fn anchor(w: &mut Writer<'_>, t: &TrialReport, seq: u64) {
    w.ensure(30.0);
    w.anchor(format!("{}-e{seq}", t.anchor));
}

fn who(w: &mut Writer<'_>, text: &str, color: (u8, u8, u8)) {
    w.ensure(30.0);
    w.paragraph(text, Face::Sans, 8.5, c(color), 0.0);
}

/// `s1` where the id's letter says the kind (the legend above the section explains it),
/// else the id with its kind in words.
fn criterion_label(id: &str, kind: &str) -> String {
    match (id.chars().next(), kind) {
        (Some('s'), "Success") | (Some('f'), "FailureSignal") => id.to_string(),
        _ => format!("{id}\n{}", kind_words(kind)),
    }
}

/// `Success` → `success`, `FailureSignal` → `failure signal`.
fn kind_words(kind: &str) -> String {
    let mut out = String::new();
    for (i, ch) in kind.chars().enumerate() {
        if ch.is_uppercase() && i > 0 {
            out.push(' ');
        }
        out.extend(ch.to_lowercase());
    }
    out
}

pub(super) fn verdicts(w: &mut Writer<'_>, r: &Report) {
    section(w, Section::Verdicts);
    note(
        w,
        "Criteria sN are success criteria (should hold), fN failure signals (should not be seen). \
         Evidence cites transcript events (eN) in section 4.",
    );
    for t in &r.trials {
        // Level 3: the contents list each trial once, under section 4.
        trial_heading(w, 3, t);
        // The criteria table below shows each criterion's rationale; only other reasons here.
        for reason in reasons_beyond_criteria(t) {
            w.paragraph(&format!("• {reason}"), Face::Sans, 9.0, c(TEXT), 8.0);
        }
        w.space(3.0);
        let evidence = |e: &str| {
            let page = w.anchor_page(&format!("{}-{e}", t.anchor));
            match (t.turn_of(e), page) {
                (Some(turn), Some(p)) => format!("{e} (turn {turn}, p. {p})"),
                (None, Some(p)) => format!("{e} (p. {p})"),
                _ if t.has_event(e) => e.to_string(),
                _ => format!("{e} (no such event)"),
            }
        };
        let criteria = rationale_once(tables::criteria(t, evidence, "—"))
            .merge(0, 1, criterion_label)
            .header(0, "Criterion")
            .header(1, "Text");
        table(w, &criteria, &[0.07, 0.39, 0.1, 0.32, 0.12]);
        let (passed, other) = checks_digest(&t.checks);
        if !other.is_empty() {
            let checks = tables::checks(&other).header(0, "Deterministic check");
            table(w, &checks, &[0.3, 0.12, 0.58]);
        }
        let mut digest = vec![format!("Judge: {}, {:.1} s.", t.judge, t.duration_ms as f64 / 1000.0)];
        if !passed.is_empty() {
            digest.push(format!("Checks passed: {}.", passed.join(", ")));
        }
        if !t.observed.is_empty() {
            digest.push(format!("Observed by the harness: {}.", observed_line(&t.observed)));
        }
        w.paragraph(&digest.join(" "), Face::Sans, 7.5, c(MUTED), 0.0);
        w.space(4.0);
    }
}
