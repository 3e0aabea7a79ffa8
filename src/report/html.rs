//! Self-contained HTML rendering: one file, inline CSS and an inline SVG chart, no scripts,
//! no fonts, images or styles from anywhere else (a reviewer may open it offline).
//!
//! Every text is HTML-escaped; the only links are fragment links inside the document.

use std::fmt::Write;

use super::chart::{chart_svg, esc};
use super::model::*;
use super::profile_section::parts as profile_parts;
use super::section::{Section, SectionWriter};
use super::tables::{self, Table};
use super::transcript_view::{Body, EntryView, Who, entry_view};
use crate::judge::Verdict;

const CSS: &str = "
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#1d232b;background:#f4f5f7}
main{max-width:1100px;margin:0 auto;padding:24px 32px;background:#fff}
h1{font-size:1.7em;margin:.2em 0}h2{border-bottom:2px solid #2b5a8a;padding-bottom:4px;margin-top:2em;color:#1f4468}
h3{margin-top:1.5em;color:#2b3a4a}table{border-collapse:collapse;width:100%;margin:.6em 0 1.2em;font-size:.92em}
th,td{border:1px solid #c9ced6;padding:4px 7px;text-align:left;vertical-align:top;white-space:pre-line;hyphens:manual;word-break:normal;overflow-wrap:normal}th{background:#e8edf3}
pre{background:#f2f4f7;border:1px solid #d8dde4;padding:6px 8px;white-space:pre-wrap;word-break:break-word;font-size:.85em;margin:.3em 0}
.meta{color:#5a6572}.badge{display:inline-block;padding:2px 8px;border-radius:4px;color:#fff;font-weight:600;font-size:.85em}
.PASS{background:#2e7d32}.FAIL{background:#c62828}.INCONCLUSIVE{background:#b7791f}.INFRA_ERROR{background:#6a4c93}.NONE{background:#777}
.ready{font-size:1.3em;font-weight:700;padding:8px 12px;border-radius:6px;display:inline-block}
.yes{background:#e3f3e5;color:#1b5e20}.no{background:#fbe4e4;color:#8e1b1b}
.turn{border-left:4px solid #c9ced6;padding:2px 10px;margin:8px 0}.user{border-color:#2b5a8a}.agent{border-color:#2e7d32}
.tool{border-color:#b7791f;background:#fffaf0}.note{border-color:#999;color:#555;font-style:italic}
.who{font-weight:600;font-size:.9em}.msg{white-space:pre-wrap;margin:2px 0}:target{background:#fff3b0}
nav ul{line-height:1.6}.lbl{font-size:.78em;color:#5a6572;margin-top:3px}
";

fn badge(v: Option<Verdict>) -> String {
    let label = v.map(|v| v.as_str()).unwrap_or("NO VERDICT");
    let class = v.map(|v| v.as_str()).unwrap_or("NONE");
    format!("<span class=\"badge {class}\">{label}</span>")
}

fn table(o: &mut String, t: &Table) {
    cells(o, t, None);
    o.push('\n');
}

/// The `<table>` element; every cell is escaped except column `html`, already markup.
fn cells(o: &mut String, t: &Table, html: Option<usize>) {
    o.push_str("<table><tr>");
    for h in &t.headers {
        let _ = write!(o, "<th>{}</th>", esc(h));
    }
    o.push_str("</tr>");
    for row in &t.rows {
        o.push_str("<tr>");
        for (i, c) in row.iter().enumerate() {
            let c = if Some(i) == html { c.clone() } else { break_ids(&esc(c)) };
            let _ = write!(o, "<td>{c}</td>");
        }
        o.push_str("</tr>");
    }
    o.push_str("</table>");
}

/// Long tokens (ids, paths) may break after `-`, `_` and `/` (`<wbr>`); words never break
/// (the table's columns widen to hold them). Takes escaped text; entities hold none of those.
fn break_ids(escaped: &str) -> String {
    let mut o = String::with_capacity(escaped.len());
    for (i, word) in escaped.split(' ').enumerate() {
        if i > 0 {
            o.push(' ');
        }
        if word.chars().count() <= 20 {
            o.push_str(word);
            continue;
        }
        for c in word.chars() {
            o.push(c);
            if matches!(c, '-' | '_' | '/') {
                o.push_str("<wbr>");
            }
        }
    }
    o
}

fn kv(o: &mut String, rows: &[(String, String)]) {
    table(o, &tables::settings(rows));
}

fn h2(o: &mut String, s: Section) {
    let _ = writeln!(o, "<h2 id=\"s{}\">{}</h2>", s.number(), esc(s.title()));
}

/// The whole report as one HTML file.
pub fn render_html(r: &Report) -> String {
    let mut o = String::with_capacity(64 * 1024);
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"generator\" content=\"ghostlab report version {}\">\
<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\
<title>{}</title><style>{CSS}</style></head><body><main>\n",
        r.version,
        esc(&r.title)
    );
    let _ = writeln!(
        o,
        "<h1>{}</h1><p class=\"meta\">Agent <code>{}</code> · run <code>{}</code> · job <code>{}</code> · generated {}</p>",
        esc(&r.title),
        esc(&r.agent_id),
        esc(&r.run_id),
        esc(&r.job_file),
        esc(&r.generated)
    );
    o.push_str("<nav><h2>Contents</h2><ul>");
    for s in Section::ALL {
        let _ = write!(o, "<li><a href=\"#s{}\">{}</a></li>", s.number(), esc(s.title()));
    }
    o.push_str("</ul></nav>\n");
    Html::write_all(&mut o, r);
    o.push_str("</main></body></html>\n");
    o
}

/// The HTML format's sections.
struct Html;

impl SectionWriter for Html {
    type Out<'w> = String;

    fn summary(o: &mut String, r: &Report) {
        let s = &r.summary;
        h2(o, Section::Summary);
        let class = if s.readiness.ready { "yes" } else { "no" };
        let _ = writeln!(
            o,
            "<p class=\"ready {class}\">Readiness: {}</p><ul>",
            esc(&s.readiness.label)
        );
        for reason in &s.readiness.reasons {
            let _ = write!(o, "<li>{}</li>", esc(reason));
        }
        o.push_str("</ul>");
        match tables::figures(s, "") {
            Some(t) => table(o, &t),
            None => o.push_str("<p>The run has no summary.json: it did not finish.</p>"),
        }
        o.push_str("<h3>Verdicts per scenario</h3>");
        o.push_str(&chart_svg(&s.chart));
        kv(o, &s.manifest);
    }

    fn config(o: &mut String, r: &Report) {
        let c = &r.config;
        h2(o, Section::Config);
        o.push_str("<h3>Agent</h3>");
        kv(o, &c.agent);
        o.push_str("<h3>MCP servers</h3>");
        table(o, &tables::mcp_servers(&c.mcps));
        let _ = writeln!(
            o,
            "<p>Resolved agent block (secrets masked, <code>${{VAR}}</code> references kept):</p><pre>{}</pre>",
            esc(&c.agent_yaml)
        );
        o.push_str("<h3>Sandbox provenance</h3>");
        kv(o, &c.sandbox);
        if c.denied.is_empty() {
            o.push_str("<p>Denied egress attempts: none.</p>");
        } else {
            o.push_str("<p>Denied egress attempts:</p>");
            table(o, &tables::denied_egress(&c.denied));
        }
    }

    fn profile(o: &mut String, r: &Report) {
        h2(o, Section::Profile);
        let p = &r.profile;
        if !p.present {
            let _ = writeln!(
                o,
                "<p>{} not generated (run <code>ghostlab profile</code>).</p>",
                esc(&p.file)
            );
            return;
        }
        let _ = writeln!(o, "<p class=\"meta\">From {}</p>", esc(&p.file));
        for part in profile_parts(p) {
            let _ = writeln!(o, "<h3>{}</h3>", esc(part.title));
            table(o, &part.table);
        }
        if !p.other.is_empty() {
            o.push_str("<h3>Other fields</h3>");
            for (depth, line) in &p.other {
                let _ = writeln!(o, "<div style=\"margin-left:{}em\">{}</div>", depth * 2, esc(line));
            }
        }
    }

    fn people(o: &mut String, r: &Report) {
        h2(o, Section::People);
        for (name, sec) in [("Personas", &r.personas), ("Scenarios", &r.scenarios)] {
            let _ = writeln!(o, "<h3>{name}</h3><p class=\"meta\">Source: {}</p>", esc(&sec.source));
            if let Some(line) = sec.rejected_line() {
                let _ = writeln!(o, "<p class=\"meta\">{}</p>", esc(&line));
            }
            table(o, &tables::items(&sec.items));
        }
        let d = &r.dataset;
        o.push_str("<h3>Dataset</h3>");
        if d.present {
            let _ = writeln!(o, "<p class=\"meta\">Source: {}</p>", esc(&d.file));
            table(o, &tables::dataset(d));
        } else {
            let _ = writeln!(
                o,
                "<p>{} not generated (run <code>ghostlab dataset</code>).</p>",
                esc(&d.file)
            );
        }
    }

    fn transcripts(o: &mut String, r: &Report) {
        h2(o, Section::Transcripts);
        for t in &r.trials {
            let _ = writeln!(
                o,
                "<h3 id=\"{}\">{} {}</h3><p class=\"meta\">{}</p>",
                t.anchor,
                esc(&t.title()),
                badge(t.verdict),
                esc(&t.meta_line())
            );
            if let Some(time) = &t.timing {
                let _ = writeln!(o, "<p class=\"meta\">{}</p>", esc(&time.line()));
            }
            for p in &t.problems {
                let _ = writeln!(o, "<p class=\"note\">problem: {}</p>", esc(p));
            }
            for e in &t.entries {
                entry(o, &t.anchor, &entry_view(e));
            }
        }
    }

    fn verdicts(o: &mut String, r: &Report) {
        h2(o, Section::Verdicts);
        for t in &r.trials {
            let _ = writeln!(
                o,
                "<h3>{} {}</h3><p class=\"meta\">Judge: {} · {:.1} s</p><ul>",
                esc(&t.title()),
                badge(t.verdict),
                esc(&t.judge),
                t.duration_ms as f64 / 1000.0
            );
            for reason in &t.reasons {
                let _ = write!(o, "<li>{}</li>", esc(reason));
            }
            o.push_str("</ul>");
            let link = |e: &str| {
                if t.has_event(e) {
                    let turn = t.turn_of(e).map(|n| format!(" (turn {n})")).unwrap_or_default();
                    format!("<a href=\"#{}-{}\">{}{}</a>", t.anchor, esc(e), esc(e), turn)
                } else {
                    format!("{} (no such event)", esc(e))
                }
            };
            cells(o, &tables::criteria(t, link, ""), Some(5));
            table(o, &tables::checks(&t.checks));
            table(o, &tables::observed(&t.observed));
            let _ = writeln!(o, "<p><a href=\"#{}\">transcript</a></p>", t.anchor);
        }
    }

    fn critique(o: &mut String, r: &Report) {
        let c = &r.critique;
        h2(o, Section::Critique);
        o.push_str("<h3>Tool usage</h3>");
        table(o, &tables::tool_usage(&c.tools));
        o.push_str("<h3>Findings from the transcripts</h3>");
        if c.findings.is_empty() {
            o.push_str("<p>No tool errors, denied calls, retries or slow calls.</p>");
        } else {
            table(o, &tables::findings(&c.findings));
        }
        let _ = writeln!(
            o,
            "<h3>Contract findings and risk labels</h3><p class=\"meta\">Source: {}</p>",
            esc(&c.contract_note)
        );
        if !c.contract.is_empty() {
            table(o, &tables::findings(&c.contract));
        }
        if !c.decisions.is_empty() {
            o.push_str("<h3>Decisions on findings</h3>");
            table(o, &tables::decisions(&c.decisions));
        }
        if !c.risk_labels.is_empty() {
            table(o, &tables::risk_labels(&c.risk_labels));
        }
    }

    fn gates(o: &mut String, r: &Report) {
        h2(o, Section::Gates);
        if r.gates.gates.is_empty() {
            o.push_str("<p>No gates configured in review.gates.</p>");
        } else {
            table(o, &tables::gates(&r.gates.gates));
        }
        let class = if r.summary.readiness.ready { "yes" } else { "no" };
        let _ = writeln!(
            o,
            "<p class=\"ready {class}\">Readiness verdict: {}</p><ul>",
            esc(&r.summary.readiness.label)
        );
        for reason in &r.summary.readiness.reasons {
            let _ = write!(o, "<li>{}</li>", esc(reason));
        }
        o.push_str("</ul>");
    }
}

/// One transcript entry: a note on one line, else a heading (who, facts) over its text or
/// its tool call's arguments and result.
pub(super) fn entry(o: &mut String, anchor: &str, v: &EntryView<'_>) {
    let id = format!("{anchor}-e{}", v.seq);
    let class = v.who.word();
    if let (Who::Note, Body::Text(text)) = (v.who, v.body) {
        let _ = writeln!(
            o,
            "<div class=\"turn {class}\" id=\"{id}\">{} · {}</div>",
            v.lead(""),
            esc(text)
        );
        return;
    }
    let who = match v.who {
        Who::Tool(name) => format!("tool <code>{}</code>", esc(name)),
        other => other.word().to_string(),
    };
    let facts: Vec<String> = v.facts.iter().map(|f| esc(f)).collect();
    let body = match v.body {
        Body::Text(text) => format!("<div class=\"msg\">{}</div>", esc(text)),
        Body::Call { arguments, result } => format!(
            "<div class=\"lbl\">arguments</div><pre>{}</pre><div class=\"lbl\">result</div><pre>{}</pre>",
            esc(arguments),
            esc(result)
        ),
    };
    let _ = writeln!(
        o,
        "<div class=\"turn {class}\" id=\"{id}\"><div class=\"who\">{} · {}</div>{body}</div>",
        v.lead(&who),
        facts.join(" · ")
    );
}

#[cfg(test)]
mod tests {
    use super::break_ids;

    #[test]
    fn only_long_ids_get_break_points_and_only_after_separators() {
        assert_eq!(
            break_ids("adversarial-requester--risk-push"),
            "adversarial-<wbr>requester-<wbr>-<wbr>risk-<wbr>push"
        );
        assert_eq!(
            break_ids("unanswered criterion well-known"),
            "unanswered criterion well-known"
        );
        assert_eq!(
            break_ids("see cases/notes_maintainer/trial-1"),
            "see cases/<wbr>notes_<wbr>maintainer/<wbr>trial-<wbr>1"
        );
        // Escaped entities keep their form.
        assert_eq!(break_ids("a&amp;b-c"), "a&amp;b-c");
    }
}
