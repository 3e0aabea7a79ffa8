//! The report's sections laid out on PDF pages, in the order of `SECTION_TITLES`; each
//! section starts on a new page.

use super::layout::{CONTENT_W, Face, MARGIN_X, Writer, rgb};
use crate::judge::Verdict;
use crate::report::chart::verdict_rgb;
use crate::report::markdown::{pct, tokens, verdict_label};
use crate::report::model::*;

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

fn kv(w: &mut Writer<'_>, rows: &[(String, String)]) {
    let rows: Vec<Vec<String>> = rows.iter().map(|(k, v)| vec![k.clone(), v.clone()]).collect();
    w.table(&["Setting", "Value"], &rows, &[0.3, 0.7]);
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
    match &s.figures {
        Some(f) => {
            let rows = vec![
                vec!["pass@1".into(), pct(f.pass_at_1)],
                vec!["pass^k".into(), pct(f.pass_hat_k)],
                vec!["Cases / trials".into(), format!("{} / {}", f.cases, f.trials)],
                vec!["PASS / FAIL".into(), format!("{} / {}", f.pass, f.fail)],
                vec!["INCONCLUSIVE".into(), f.inconclusive.to_string()],
                vec!["INFRA_ERROR".into(), f.infra_error.to_string()],
                vec![
                    "Flaky cases".into(),
                    if f.flaky_cases.is_empty() {
                        "—".into()
                    } else {
                        f.flaky_cases.join(", ")
                    },
                ],
                vec!["Tokens (agent / emulator / judge)".into(), tokens(&s.tokens)],
                vec!["Cost".into(), format!("${:.4}", s.tokens.cost_usd)],
            ];
            w.table(&["Metric", "Value"], &rows, &[0.35, 0.65]);
        }
        None => note(w, "The run has no summary.json: it did not finish."),
    }
    w.heading(2, "Verdicts per scenario");
    chart(w, &s.chart);
    w.heading(2, "Run");
    kv(w, &s.manifest);
}

/// Horizontal stacked bars, one per scenario, drawn with rectangles.
fn chart(w: &mut Writer<'_>, bars: &[ScenarioBar]) {
    let row = 15.0;
    let label_w = 150.0;
    let bar_w = CONTENT_W - label_w - 30.0;
    let max = bars.iter().map(ScenarioBar::total).max().unwrap_or(0).max(1) as f32;
    for b in bars {
        w.ensure(row);
        w.y -= row;
        let mut label = w
            .wrap(&b.scenario, Face::Sans, 8.0, label_w - 8.0)
            .into_iter()
            .next()
            .unwrap_or_default();
        if label.chars().count() < b.scenario.chars().count() {
            label.push('…');
        }
        let lw = w.font(Face::Sans).width(&label, 8.0);
        w.text_at(
            MARGIN_X + label_w - 6.0 - lw,
            w.y + 3.0,
            Face::Sans,
            8.0,
            c(TEXT),
            &label,
        );
        let mut x = MARGIN_X + label_w;
        for (v, n) in b.counts() {
            if n == 0 {
                continue;
            }
            let bw = bar_w * n as f32 / max;
            w.rect(x, w.y, bw, row - 4.0, c(verdict_rgb(v)));
            x += bw;
        }
        w.text_at(x + 4.0, w.y + 3.0, Face::Sans, 8.0, c(MUTED), &b.total().to_string());
    }
    w.ensure(18.0);
    w.y -= 18.0;
    let mut x = MARGIN_X + label_w;
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
    let rows: Vec<Vec<String>> = cfg
        .mcps
        .iter()
        .map(|m| {
            vec![
                m.name.clone(),
                m.transport.clone(),
                m.target.clone(),
                m.env.clone(),
                m.enabled.to_string(),
            ]
        })
        .collect();
    w.table(
        &["Server", "Transport", "Command / URL", "Env / headers", "On"],
        &rows,
        &[0.14, 0.12, 0.4, 0.26, 0.08],
    );
    w.heading(3, "Resolved agent block (secrets masked, ${VAR} references kept)");
    w.code(cfg.agent_yaml.trim_end(), 0.0);
    w.heading(2, "Sandbox provenance");
    kv(w, &cfg.sandbox);
    w.heading(3, "Denied egress attempts");
    if cfg.denied.is_empty() {
        note(w, "None.");
    } else {
        let rows: Vec<Vec<String>> = cfg
            .denied
            .iter()
            .map(|d| {
                vec![
                    d.case.clone(),
                    d.trial.to_string(),
                    format!("{}:{}", d.host, d.port),
                    d.at.clone(),
                ]
            })
            .collect();
        w.table(&["Case", "Trial", "Destination", "At"], &rows, &[0.35, 0.1, 0.4, 0.15]);
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
        let rows: Vec<Vec<String>> = sec
            .items
            .iter()
            .map(|it| {
                let details: Vec<String> = it.details.iter().map(|(k, v)| format!("{k}: {v}")).collect();
                vec![
                    format!("{}\n{}", it.title, it.id),
                    it.description.clone(),
                    it.why.clone(),
                    details.join("\n"),
                ]
            })
            .collect();
        w.table(
            &["Name / id", "Description", "Why generated", "Details"],
            &rows,
            &[0.18, 0.27, 0.27, 0.28],
        );
    }
    let d = &r.dataset;
    w.heading(2, "Dataset");
    if d.present {
        note(w, &format!("Source: {}", d.file));
        let rows: Vec<Vec<String>> = d.cases.iter().map(|c| c.to_vec()).collect();
        w.table(
            &["Case", "Persona", "Scenario", "Status", "Note"],
            &rows,
            &[0.22, 0.18, 0.22, 0.12, 0.26],
        );
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
                Entry::Tool {
                    seq,
                    turn,
                    tool,
                    status,
                    arguments,
                    result,
                    latency_ms,
                } => {
                    anchor(w, t, *seq);
                    who(
                        w,
                        &format!("e{seq} · turn {turn} · tool {tool} · {status} · {latency_ms} ms"),
                        (183, 121, 31),
                    );
                    w.paragraph("arguments", Face::Sans, 7.5, c(MUTED), 10.0);
                    w.code(arguments, 10.0);
                    w.paragraph("result", Face::Sans, 7.5, c(MUTED), 10.0);
                    w.code(result, 10.0);
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
        let rows: Vec<Vec<String>> = t
            .criteria
            .iter()
            .map(|cr| {
                let ev: Vec<String> = cr
                    .evidence
                    .iter()
                    .map(|e| {
                        let page = w.anchor_page(&format!("{}-{e}", t.anchor));
                        match (t.turn_of(e), page) {
                            (Some(turn), Some(p)) => format!("{e} (turn {turn}, p. {p})"),
                            (None, Some(p)) => format!("{e} (p. {p})"),
                            _ if t.has_event(e) => e.clone(),
                            _ => format!("{e} (no such event)"),
                        }
                    })
                    .collect();
                vec![
                    format!("{} ({})", cr.id, cr.kind),
                    cr.text.clone(),
                    cr.answer.clone(),
                    cr.rationale.clone(),
                    if ev.is_empty() { "—".into() } else { ev.join(", ") },
                ]
            })
            .collect();
        w.table(
            &["Criterion", "Text", "Answer", "Rationale", "Evidence"],
            &rows,
            &[0.14, 0.28, 0.1, 0.3, 0.18],
        );
        let rows: Vec<Vec<String>> = t
            .checks
            .iter()
            .map(|ch| vec![ch.name.clone(), ch.outcome.clone(), ch.detail.clone()])
            .collect();
        w.table(&["Deterministic check", "Outcome", "Detail"], &rows, &[0.3, 0.12, 0.58]);
    }
}

fn findings(w: &mut Writer<'_>, f: &[Finding]) {
    let rows: Vec<Vec<String>> = f
        .iter()
        .map(|f| {
            vec![
                f.severity.clone(),
                f.tool.clone(),
                f.message.clone(),
                f.location.clone(),
            ]
        })
        .collect();
    w.table(
        &["Severity", "Tool", "Finding", "Where"],
        &rows,
        &[0.1, 0.2, 0.45, 0.25],
    );
}

fn critique(w: &mut Writer<'_>, r: &Report) {
    let cr = &r.critique;
    section(w, 6);
    w.heading(2, "Tool usage");
    let rows: Vec<Vec<String>> = cr
        .tools
        .iter()
        .map(|s| {
            vec![
                s.tool.clone(),
                s.calls.to_string(),
                s.errors.to_string(),
                s.denied.to_string(),
                s.retries.to_string(),
                s.mean_ms.to_string(),
                s.max_ms.to_string(),
            ]
        })
        .collect();
    w.table(
        &["Tool", "Calls", "Errors", "Denied", "Retries", "Mean ms", "Max ms"],
        &rows,
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
    if !cr.risk_labels.is_empty() {
        let rows: Vec<Vec<String>> = cr.risk_labels.iter().map(|(t, l)| vec![t.clone(), l.clone()]).collect();
        w.table(&["Tool", "Risk labels"], &rows, &[0.4, 0.6]);
    }
}

fn gates(w: &mut Writer<'_>, r: &Report) {
    section(w, 7);
    if r.gates.gates.is_empty() {
        note(w, "No gates configured in review.gates.");
    } else {
        let rows: Vec<Vec<String>> = r
            .gates
            .gates
            .iter()
            .map(|g| {
                vec![
                    g.gate.clone(),
                    g.required.clone(),
                    g.actual.clone(),
                    if g.met { "met" } else { "NOT met" }.into(),
                ]
            })
            .collect();
        w.table(
            &["Gate", "Required", "Actual", "Result"],
            &rows,
            &[0.3, 0.2, 0.35, 0.15],
        );
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
