//! The report's sections laid out on PDF pages, in the order of `Section::ALL`, one
//! flowing on from the other. Long parts print as a digest (`report::digest`): the PDF is
//! for reading on paper, report.html keeps every row.

use super::blocks::{MUTED, TEXT, c, kv, note, section, table};
use super::fonts::Face;
use super::layout::{CONTENT_W, MARGIN_X, Writer};
use super::trials;
use crate::judge::Verdict;
use crate::report::chart::verdict_rgb;
use crate::report::digest::{
    FULL_REPORT, dataset_groups, denied_groups, findings_brief, items_brief, risk_label_groups, set_and_unset,
};
use crate::report::model::*;
use crate::report::profile_section::parts as profile_parts;
use crate::report::section::{Section, SectionWriter};
use crate::report::tables;

/// Lays out every section, in `Section::ALL`'s order.
pub(crate) fn body(w: &mut Writer<'_>, r: &Report) {
    Pdf::write_all(w, r);
}

/// The PDF format's sections (transcripts and verdicts are laid out in `trials`).
struct Pdf;

impl SectionWriter for Pdf {
    type Out<'w> = Writer<'w>;

    fn summary(w: &mut Writer<'_>, r: &Report) {
        section(w, Section::Summary);
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

    fn config(w: &mut Writer<'_>, r: &Report) {
        let cfg = &r.config;
        section(w, Section::Config);
        w.heading(2, "Agent");
        settings(w, &cfg.agent);
        w.heading(3, "MCP servers");
        let mcps = tables::mcp_servers(&cfg.mcps).header(4, "On");
        table(w, &mcps, &[0.14, 0.12, 0.4, 0.26, 0.08]);
        note(
            w,
            &format!(
                "The resolved agent block as YAML (secrets masked, ${{VAR}} references kept) is in {FULL_REPORT}."
            ),
        );
        w.heading(2, "Sandbox provenance");
        settings(w, &cfg.sandbox);
        w.heading(3, "Denied egress attempts");
        if cfg.denied.is_empty() {
            note(w, "None.");
        } else {
            table(w, &denied_groups(&cfg.denied, r.trials.len()), &[0.28, 0.1, 0.37, 0.25]);
        }
    }

    fn profile(w: &mut Writer<'_>, r: &Report) {
        section(w, Section::Profile);
        let p = &r.profile;
        if !p.present {
            note(w, &format!("{} not generated (run `ghostlab profile`).", p.file));
            return;
        }
        note(w, &format!("From {}", p.file));
        for part in profile_parts(p) {
            w.heading(3, part.title);
            let n = part.table.headers.len();
            let widths: Vec<f32> = match (part.title, n) {
                ("Workflows", 4) => vec![0.24, 0.42, 0.16, 0.18],
                ("Risk surface", 4) => vec![0.3, 0.08, 0.17, 0.45],
                ("Out of scope", 2) => vec![0.45, 0.55],
                (_, 2) => vec![0.2, 0.8],
                _ => vec![1.0 / n as f32; n],
            };
            table(w, &part.table, &widths);
        }
        if !p.other.is_empty() {
            w.heading(3, "Other fields");
            for (depth, line) in &p.other {
                w.paragraph(line, Face::Sans, 8.5, c(TEXT), *depth as f32 * 12.0);
            }
        }
    }

    fn people(w: &mut Writer<'_>, r: &Report) {
        section(w, Section::People);
        for (name, sec) in [("Personas", &r.personas), ("Scenarios", &r.scenarios)] {
            w.heading(2, name);
            note(w, &format!("Source: {}", sec.source));
            if let Some(line) = sec.rejected_line() {
                note(w, &line);
            }
            if name == "Personas" {
                let brief = items_brief(&sec.items, &["traits", "context"], true);
                table(w, &brief, &[0.2, 0.28, 0.28, 0.24]);
            } else {
                let brief = items_brief(&sec.items, &["persona", "kind"], false);
                table(w, &brief, &[0.3, 0.46, 0.24]);
            }
        }
        note(
            w,
            &format!(
                "Each scenario's opening message, failure signals and stop conditions are in {FULL_REPORT}; \
             the criteria each trial was judged by are in section 5."
            ),
        );
        let d = &r.dataset;
        w.heading(2, "Dataset");
        if d.present {
            note(w, &format!("Source: {}", d.file));
            let ran: Vec<&str> = r.trials.iter().map(|t| t.case_id.as_str()).collect();
            table(w, &dataset_groups(d, &ran), &[0.16, 0.3, 0.54]);
        } else {
            note(w, &format!("{} not generated (run `ghostlab dataset`).", d.file));
        }
    }

    fn transcripts(w: &mut Writer<'_>, r: &Report) {
        trials::transcripts(w, r);
    }

    fn verdicts(w: &mut Writer<'_>, r: &Report) {
        trials::verdicts(w, r);
    }

    fn critique(w: &mut Writer<'_>, r: &Report) {
        let cr = &r.critique;
        section(w, Section::Critique);
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
            // Their JSON pointers into contract.json are in the full report and the SARIF file.
            table(w, &findings_brief(&cr.contract), &[0.1, 0.45, 0.45]);
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
            table(w, &risk_label_groups(&cr.risk_labels), &[0.3, 0.7]);
        }
    }

    fn gates(w: &mut Writer<'_>, r: &Report) {
        section(w, Section::Gates);
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
}

/// Horizontal stacked bars, one per scenario beside its label, drawn with rectangles. A
/// label wraps over as many lines as it needs and is never cut: cut titles of similar
/// scenarios read the same.
fn chart(w: &mut Writer<'_>, bars: &[ScenarioBar]) {
    let size = 7.5;
    let lh = size * 1.35;
    let label_w = CONTENT_W * 0.55;
    let bar_x = MARGIN_X + label_w + 8.0;
    let bar_w = CONTENT_W - label_w - 8.0 - 24.0;
    let max = bars.iter().map(ScenarioBar::total).max().unwrap_or(0).max(1) as f32;
    for b in bars {
        let lines = w.wrap(&b.scenario, Face::Sans, size, label_w);
        let h = lines.len() as f32 * lh + 3.0;
        w.ensure(h);
        let top = w.y;
        for (i, l) in lines.iter().enumerate() {
            let y = top - (i + 1) as f32 * lh + size * 0.25;
            w.text_at(MARGIN_X, y, Face::Sans, size, c(TEXT), l);
        }
        // The bar stands beside the label's first line.
        let bar_y = top - lh + 1.0;
        let mut x = bar_x;
        for (v, n) in b.counts() {
            if n == 0 {
                continue;
            }
            let bw = bar_w * n as f32 / max;
            w.rect(x, bar_y, bw, lh - 2.0, c(verdict_rgb(v)));
            x += bw;
        }
        w.text_at(x + 4.0, bar_y + 1.5, Face::Sans, size, c(MUTED), &b.total().to_string());
        w.y = top - h;
    }
    w.ensure(18.0);
    w.y -= 16.0;
    let mut x = MARGIN_X;
    for v in [Verdict::Pass, Verdict::Fail, Verdict::Inconclusive, Verdict::InfraError] {
        w.rect(x, w.y, 8.0, 8.0, c(verdict_rgb(v)));
        w.text_at(x + 11.0, w.y + 1.0, Face::Sans, 7.5, c(TEXT), v.as_str());
        x += 80.0;
    }
    w.space(10.0);
}

/// Settings with a value as a table; the names of those without one on one line.
fn settings(w: &mut Writer<'_>, rows: &[(String, String)]) {
    let (set, unset) = set_and_unset(rows);
    kv(w, &set);
    if !unset.is_empty() {
        note(w, &format!("Not set: {}.", unset.join(", ")));
    }
}

fn findings(w: &mut Writer<'_>, f: &[Finding]) {
    table(w, &tables::findings(f), &[0.1, 0.2, 0.45, 0.25]);
}
