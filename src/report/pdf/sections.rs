//! The report's sections laid out on PDF pages, in the order of `SECTION_TITLES`; each
//! section starts on a new page.

use super::layout::{CONTENT_W, Face, MARGIN_X, Writer, rgb};
use crate::judge::Verdict;
use crate::report::chart::{bar_labels, verdict_rgb};
use crate::report::markdown::verdict_label;
use crate::report::model::*;
use crate::report::tables::{self, Table};

const TEXT: (u8, u8, u8) = (29, 35, 43);
const MUTED: (u8, u8, u8) = (90, 101, 114);

fn c((r, g, b): (u8, u8, u8)) -> printpdf::Color {
    rgb(r, g, b)
}

/// Lays out every section.
pub fn body(w: &mut Writer<'_>, r: &Report) {
    summary(w, r);
    config(w, r);
    profile(w, r);
    people(w, r);
    transcripts(w, r);
    verdicts(w, r);
    critique(w, r);
    gates(w, r);
}

fn section(w: &mut Writer<'_>, i: usize) {
    if w.y < super::layout::TOP || !w.pages.last().is_some_and(Vec::is_empty) {
        w.new_page();
    }
    w.heading(1, SECTION_TITLES[i]);
}

fn note(w: &mut Writer<'_>, text: &str) {
    w.paragraph(text, Face::Sans, 9.0, c(MUTED), 0.0);
    w.space(4.0);
}

/// A table with one width fraction per column.
fn table(w: &mut Writer<'_>, t: &Table, widths: &[f32]) {
    let headers: Vec<&str> = t.headers.iter().map(String::as_str).collect();
    w.table(&headers, &t.rows, widths);
}

fn kv(w: &mut Writer<'_>, rows: &[(String, String)]) {
    table(w, &tables::settings(rows), &[0.3, 0.7]);
}

fn summary(w: &mut Writer<'_>, r: &Report) {
    section(w, 0);
    let s = &r.summary;
    w.paragraph(
        &format!("Readiness verdict: {}", s.readiness.label),
        Face::Bold,
        12.0,
        if s.readiness.ready {
            c((27, 94, 32))
        } else {
            c((142, 27, 27))
        },
        0.0,
    );
    for reason in &s.readiness.reasons {
        w.paragraph(&format!("• {reason}"), Face::Sans, 9.0, c(TEXT), 8.0);
    }
    w.space(6.0);
    match tables::figures(s, "—") {
        Some(mut t) => {
            // The PDF shows PASS and FAIL on one row.
            let pass_fail = format!("{} / {}", t.rows[3][1], t.rows[4][1]);
            t.rows.splice(3..5, [vec!["PASS / FAIL".into(), pass_fail]]);
            table(w, &t, &[0.35, 0.65]);
        }
        None => note(w, "The run has no summary.json: it did not finish."),
    }
    w.heading(2, "Verdicts per scenario");
    chart(w, &s.chart);
    w.heading(2, "Run");
    kv(w, &s.manifest);
}

/// Horizontal stacked bars, one per scenario under its label, drawn with rectangles. Labels
/// span the content width and are cut in the middle when still too long, so they stay distinct.
fn chart(w: &mut Writer<'_>, bars: &[ScenarioBar]) {
    let size = 8.0;
    let bar_h = 9.0;
    let row = bar_h + size * 1.4 + 4.0;
    let bar_w = CONTENT_W - 30.0;
    let max = bars.iter().map(ScenarioBar::total).max().unwrap_or(0).max(1) as f32;
    let labels = {
        let font = w.font(Face::Sans);
        bar_labels(bars, |l| font.width(&font.printable(l), size) <= CONTENT_W)
    };
    for (b, label) in bars.iter().zip(&labels) {
        w.ensure(row);
        w.y -= size * 1.4;
        w.text_at(MARGIN_X, w.y + 2.0, Face::Sans, size, c(TEXT), label);
        w.y -= bar_h + 4.0;
        let mut x = MARGIN_X;
        for (v, n) in b.counts() {
            if n == 0 {
                continue;
            }
            let bw = bar_w * n as f32 / max;
            w.rect(x, w.y, bw, bar_h, c(verdict_rgb(v)));
            x += bw;
        }
        w.text_at(x + 4.0, w.y + 1.5, Face::Sans, size, c(MUTED), &b.total().to_string());
    }
    w.ensure(18.0);
    w.y -= 18.0;
    let mut x = MARGIN_X;
    for v in [Verdict::Pass, Verdict::Fail, Verdict::Inconclusive, Verdict::InfraError] {
        w.rect(x, w.y, 8.0, 8.0, c(verdict_rgb(v)));
        w.text_at(x + 11.0, w.y + 1.0, Face::Sans, 7.5, c(TEXT), v.as_str());
        x += 80.0;
    }
    w.space(10.0);
}

fn config(w: &mut Writer<'_>, r: &Report) {
    let cfg = &r.config;
    section(w, 1);
    w.heading(2, "Agent");
    kv(w, &cfg.agent);
    w.heading(3, "MCP servers");
    let mcps = tables::mcp_servers(&cfg.mcps).header(4, "On");
    table(w, &mcps, &[0.14, 0.12, 0.4, 0.26, 0.08]);
    w.heading(3, "Resolved agent block (secrets masked, ${VAR} references kept)");
    w.code(cfg.agent_yaml.trim_end(), 0.0);
    w.heading(2, "Sandbox provenance");
    kv(w, &cfg.sandbox);
    w.heading(3, "Denied egress attempts");
    if cfg.denied.is_empty() {
        note(w, "None.");
    } else {
        table(w, &tables::denied_egress(&cfg.denied), &[0.35, 0.1, 0.4, 0.15]);
    }
}

fn profile(w: &mut Writer<'_>, r: &Report) {
    section(w, 2);
    if !r.profile.present {
        note(
            w,
            &format!("{} not generated (run `ghostlab profile`).", r.profile.file),
        );
        return;
    }
    note(w, &format!("From {}", r.profile.file));
    for (depth, line) in &r.profile.outline {
        let face = if *depth == 0 && line.ends_with(':') {
            Face::Bold
        } else {
            Face::Sans
        };
        w.paragraph(line, face, 8.5, c(TEXT), *depth as f32 * 12.0);
    }
}

fn people(w: &mut Writer<'_>, r: &Report) {
    section(w, 3);
    for (name, sec) in [("Personas", &r.personas), ("Scenarios", &r.scenarios)] {
        w.heading(2, name);
        note(w, &format!("Source: {}", sec.source));
        if let Some(line) = sec.rejected_line() {
            note(w, &line);
        }
        let items = tables::items(&sec.items)
            .merge(0, 1, |id, title| format!("{title}\n{id}"))
            .header(0, "Name / id");
        table(w, &items, &[0.18, 0.27, 0.27, 0.28]);
    }
    let d = &r.dataset;
    w.heading(2, "Dataset");
    if d.present {
        note(w, &format!("Source: {}", d.file));
        table(w, &tables::dataset(d), &[0.22, 0.18, 0.22, 0.12, 0.26]);
    } else {
        note(w, &format!("{} not generated (run `ghostlab dataset`).", d.file));
    }
}

fn trial_heading(w: &mut Writer<'_>, t: &TrialReport) {
    w.heading(2, &format!("{} — {}", t.title(), verdict_label(t)));
}

fn transcripts(w: &mut Writer<'_>, r: &Report) {
    section(w, 4);
    for t in &r.trials {
        trial_heading(w, t);
        note(w, &t.meta_line());
        if let Some(time) = &t.timing {
            note(w, &time.line());
        }
        for p in &t.problems {
            note(w, &format!("problem: {p}"));
        }
        for e in &t.entries {
            match e {
                Entry::User {
                    seq,
                    turn,
                    text,
                    latency_ms,
                } => {
                    anchor(w, t, *seq);
                    who(
                        w,
                        &format!("e{seq} · turn {turn} · user · {latency_ms} ms"),
                        (43, 90, 138),
                    );
                    w.paragraph(text, Face::Sans, 9.0, c(TEXT), 10.0);
                }
                Entry::Agent {
                    seq,
                    turn,
                    text,
                    latency_ms,
                    tokens,
                } => {
                    anchor(w, t, *seq);
                    who(
                        w,
                        &format!("e{seq} · turn {turn} · agent · {latency_ms} ms · {tokens} tokens"),
                        (46, 125, 50),
                    );
                    w.paragraph(text, Face::Sans, 9.0, c(TEXT), 10.0);
                }
                Entry::Tool(call) => {
                    anchor(w, t, call.seq);
                    let line = format!(
                        "e{} · turn {} · tool {} · {} · {} ms",
                        call.seq, call.turn, call.tool, call.status, call.latency_ms
                    );
                    who(w, &line, (183, 121, 31));
                    w.paragraph("arguments", Face::Sans, 7.5, c(MUTED), 10.0);
                    w.code(&call.arguments, 10.0);
                    w.paragraph("result", Face::Sans, 7.5, c(MUTED), 10.0);
                    w.code(&call.result, 10.0);
                }
                Entry::Note { seq, text, .. } => {
                    anchor(w, t, *seq);
                    w.paragraph(&format!("e{seq} · {text}"), Face::Sans, 8.0, c(MUTED), 10.0);
                }
            }
            w.space(3.0);
        }
        w.space(8.0);
    }
}

/// Keeps the event with its heading line, then records where it starts.
fn anchor(w: &mut Writer<'_>, t: &TrialReport, seq: u64) {
    w.ensure(30.0);
    w.anchor(format!("{}-e{seq}", t.anchor));
}

fn who(w: &mut Writer<'_>, text: &str, color: (u8, u8, u8)) {
    w.ensure(30.0);
    w.paragraph(text, Face::Bold, 8.5, c(color), 0.0);
}

fn verdicts(w: &mut Writer<'_>, r: &Report) {
    section(w, 5);
    for t in &r.trials {
        trial_heading(w, t);
        note(
            w,
            &format!(
                "Judge: {} · {:.1} s. Evidence cites transcript events (eN) in section 4.",
                t.judge,
                t.duration_ms as f64 / 1000.0
            ),
        );
        for reason in &t.reasons {
            w.paragraph(&format!("• {reason}"), Face::Sans, 9.0, c(TEXT), 8.0);
        }
        w.space(4.0);
        let evidence = |e: &str| {
            let page = w.anchor_page(&format!("{}-{e}", t.anchor));
            match (t.turn_of(e), page) {
                (Some(turn), Some(p)) => format!("{e} (turn {turn}, p. {p})"),
                (None, Some(p)) => format!("{e} (p. {p})"),
                _ if t.has_event(e) => e.to_string(),
                _ => format!("{e} (no such event)"),
            }
        };
        let criteria = tables::criteria(t, evidence, "—")
            .merge(0, 1, |id, kind| format!("{id} ({kind})"))
            .header(0, "Criterion")
            .header(1, "Text");
        table(w, &criteria, &[0.14, 0.28, 0.1, 0.3, 0.18]);
        let checks = tables::checks(&t.checks).header(0, "Deterministic check");
        table(w, &checks, &[0.3, 0.12, 0.58]);
        table(w, &tables::observed(&t.observed), &[0.3, 0.7]);
    }
}

fn findings(w: &mut Writer<'_>, f: &[Finding]) {
    table(w, &tables::findings(f), &[0.1, 0.2, 0.45, 0.25]);
}

fn critique(w: &mut Writer<'_>, r: &Report) {
    let cr = &r.critique;
    section(w, 6);
    w.heading(2, "Tool usage");
    table(
        w,
        &tables::tool_usage(&cr.tools),
        &[0.34, 0.11, 0.11, 0.11, 0.11, 0.11, 0.11],
    );
    w.heading(2, "Findings from the transcripts");
    if cr.findings.is_empty() {
        note(w, "No tool errors, denied calls, retries or slow calls.");
    } else {
        findings(w, &cr.findings);
    }
    w.heading(2, "Contract findings and risk labels");
    note(w, &format!("Source: {}", cr.contract_note));
    if !cr.contract.is_empty() {
        findings(w, &cr.contract);
    }
    if !cr.decisions.is_empty() {
        w.heading(2, "Decisions on findings");
        table(
            w,
            &tables::decisions(&cr.decisions),
            &[0.22, 0.1, 0.1, 0.16, 0.24, 0.18],
        );
    }
    if !cr.risk_labels.is_empty() {
        table(w, &tables::risk_labels(&cr.risk_labels), &[0.4, 0.6]);
    }
}

fn gates(w: &mut Writer<'_>, r: &Report) {
    section(w, 7);
    if r.gates.gates.is_empty() {
        note(w, "No gates configured in review.gates.");
    } else {
        table(w, &tables::gates(&r.gates.gates), &[0.3, 0.2, 0.35, 0.15]);
    }
    let s = &r.summary.readiness;
    w.paragraph(
        &format!("Readiness verdict: {}", s.label),
        Face::Bold,
        13.0,
        if s.ready { c((27, 94, 32)) } else { c((142, 27, 27)) },
        0.0,
    );
    for reason in &s.reasons {
        w.paragraph(&format!("• {reason}"), Face::Sans, 9.0, c(TEXT), 8.0);
    }
}
