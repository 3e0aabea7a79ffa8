//! Markdown rendering of the report and of the per-trial `critique.md`.
//!
//! Formats the model only; it reads no file and sees no secret.

use std::fmt::Write;

use super::model::*;
use super::profile_section::parts as profile_parts;
use super::section::{Section, SectionWriter};
use super::tables::{self, Table};
use super::transcript_view::{Body, EntryView, Who, entry_view};

/// The whole report as Markdown.
pub fn render_markdown(r: &Report) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "<!-- ghostlab report version {} -->", r.version);
    let _ = writeln!(o, "# {}\n", r.title);
    let _ = writeln!(
        o,
        "Agent `{}` · run `{}` · job `{}` · generated {}\n",
        r.agent_id, r.run_id, r.job_file, r.generated
    );
    o.push_str("## Contents\n\n");
    for s in Section::ALL {
        let _ = writeln!(o, "- [{}](#{})", s.title(), slug(s.title()));
    }
    o.push('\n');
    Markdown::write_all(&mut o, r);
    o
}

/// The Markdown format's sections.
struct Markdown;

impl SectionWriter for Markdown {
    type Out<'w> = String;

    fn critique(o: &mut String, r: &Report) {
        let _ = writeln!(o, "## {}\n", Section::Critique.title());
        critique_body(o, &r.critique.findings, r, true);
    }

    fn summary(o: &mut String, r: &Report) {
        let s = &r.summary;
        let _ = writeln!(o, "## {}\n", Section::Summary.title());
        let _ = writeln!(o, "**Readiness: {}**\n", s.readiness.label);
        for reason in &s.readiness.reasons {
            let _ = writeln!(o, "- {reason}");
        }
        o.push('\n');
        match tables::figures(s, "—") {
            Some(t) => table(o, &t),
            None => o.push_str("The run has no summary.json: it did not finish.\n\n"),
        }
        o.push_str("Verdicts per scenario:\n\n");
        table(o, &tables::scenario_verdicts(&s.chart));
        kv(o, &s.manifest);
    }

    fn config(o: &mut String, r: &Report) {
        let c = &r.config;
        let _ = writeln!(o, "## {}\n", Section::Config.title());
        o.push_str("### Agent\n\n");
        kv(o, &c.agent);
        o.push_str("### MCP servers\n\n");
        table(o, &tables::mcp_servers(&c.mcps));
        o.push_str("Resolved agent block (secrets masked, `${VAR}` references kept):\n\n");
        fence(o, "yaml", c.agent_yaml.trim_end());
        o.push_str("### Sandbox provenance\n\n");
        kv(o, &c.sandbox);
        if c.denied.is_empty() {
            o.push_str("Denied egress attempts: none.\n\n");
        } else {
            table(o, &tables::denied_egress(&c.denied));
        }
    }

    fn profile(o: &mut String, r: &Report) {
        let _ = writeln!(o, "## {}\n", Section::Profile.title());
        let p = &r.profile;
        if !p.present {
            let _ = writeln!(o, "{} not generated (run `ghostlab profile`).\n", p.file);
            return;
        }
        let _ = writeln!(o, "From `{}`.\n", p.file);
        for part in profile_parts(p) {
            let _ = writeln!(o, "### {}\n", part.title);
            table(o, &part.table);
        }
        if !p.other.is_empty() {
            o.push_str("### Other fields\n\n");
            for (depth, line) in &p.other {
                let _ = writeln!(o, "{}- {}", "  ".repeat(*depth), md_text(&line.replace('\n', " ")));
            }
            o.push('\n');
        }
    }

    fn people(o: &mut String, r: &Report) {
        let _ = writeln!(o, "## {}\n", Section::People.title());
        for (name, sec) in [("Personas", &r.personas), ("Scenarios", &r.scenarios)] {
            let _ = writeln!(o, "### {name}\n\nSource: {}\n", sec.source);
            if let Some(line) = sec.rejected_line() {
                let _ = writeln!(o, "{}\n", md_text(&line));
            }
            for it in &sec.items {
                let _ = writeln!(o, "- **{}** `{}` — {}", it.title, it.id, it.description);
                let _ = writeln!(o, "  - why: {}", it.why);
                for (k, v) in &it.details {
                    let _ = writeln!(o, "  - {k}: {}", v.replace('\n', " "));
                }
            }
            o.push('\n');
        }
        let d = &r.dataset;
        o.push_str("### Dataset\n\n");
        if d.present {
            let _ = writeln!(o, "Source: {}\n", d.file);
            table(o, &tables::dataset(d));
        } else {
            let _ = writeln!(o, "{} not generated (run `ghostlab dataset`).\n", d.file);
        }
    }

    fn transcripts(o: &mut String, r: &Report) {
        let _ = writeln!(o, "## {}\n", Section::Transcripts.title());
        for t in &r.trials {
            let _ = writeln!(
                o,
                "### {} — {}\n\n{}\n",
                t.title(),
                verdict_label(t),
                md_text(&t.meta_line())
            );
            if let Some(time) = &t.timing {
                let _ = writeln!(o, "{}\n", md_text(&time.line()));
            }
            for p in &t.problems {
                let _ = writeln!(o, "> problem: {p}\n");
            }
            for e in &t.entries {
                entry(o, &entry_view(e));
            }
        }
    }

    fn verdicts(o: &mut String, r: &Report) {
        let _ = writeln!(o, "## {}\n", Section::Verdicts.title());
        for t in &r.trials {
            let _ = writeln!(o, "### {} — {}\n\nJudge: {}\n", t.title(), verdict_label(t), t.judge);
            for reason in &t.reasons {
                let _ = writeln!(o, "- {reason}");
            }
            o.push('\n');
            let evidence = |e: &str| match t.turn_of(e) {
                Some(turn) => format!("{e} (turn {turn})"),
                None => e.to_string(),
            };
            table(o, &tables::criteria(t, evidence, "—"));
            table(o, &tables::checks(&t.checks));
            table(o, &tables::observed(&t.observed));
        }
    }

    fn gates(o: &mut String, r: &Report) {
        let _ = writeln!(o, "## {}\n", Section::Gates.title());
        if r.gates.gates.is_empty() {
            o.push_str("No gates configured in review.gates.\n\n");
        } else {
            table(o, &tables::gates(&r.gates.gates));
        }
        let _ = writeln!(o, "**Readiness verdict: {}**\n", r.summary.readiness.label);
        for reason in &r.summary.readiness.reasons {
            let _ = writeln!(o, "- {reason}");
        }
    }
}

/// `critique.md`: the run's critique, or one trial's (by index into `trials`).
pub(crate) fn render_critique_markdown(r: &Report, trial: Option<usize>) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "<!-- ghostlab critique version {} -->", r.version);
    match trial.and_then(|i| r.trials.get(i)) {
        Some(t) => {
            let _ = writeln!(o, "# Tool-usability critique: {}\n", t.title());
            let findings = super::critique::trial_findings(t);
            if findings.is_empty() {
                o.push_str("No tool errors, denied calls, retries or slow calls in this trial.\n");
            } else {
                table(&mut o, &tables::findings(&findings));
            }
        }
        None => {
            let _ = writeln!(o, "# Tool-usability critique: run {}\n", r.run_id);
            critique_body(&mut o, &r.critique.findings, r, false);
        }
    }
    o
}

/// The anchor GitHub-style viewers give a heading.
fn slug(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// Text outside code fences: angle brackets are escaped so agent output cannot become HTML
/// (an image tag would make a Markdown viewer fetch a URL).
fn md_text(s: &str) -> String {
    s.replace('<', "&lt;").replace('>', "&gt;")
}

/// A table cell: a line break inside becomes `<br>` (added after escaping, so it is the only tag).
fn cell(s: &str) -> String {
    md_text(s).replace('|', "\\|").replace('\n', "<br>")
}

fn table(o: &mut String, t: &Table) {
    let _ = writeln!(o, "| {} |", t.headers.join(" | "));
    let _ = writeln!(o, "|{}", "---|".repeat(t.headers.len()));
    for row in &t.rows {
        let cells: Vec<String> = row.iter().map(|c| cell(c)).collect();
        let _ = writeln!(o, "| {} |", cells.join(" | "));
    }
    o.push('\n');
}

fn kv(o: &mut String, rows: &[(String, String)]) {
    table(o, &tables::settings(rows));
}

fn fence(o: &mut String, lang: &str, text: &str) {
    // A fence longer than any backtick run inside keeps the block closed.
    let mut ticks = 3;
    while text.contains(&"`".repeat(ticks)) {
        ticks += 1;
    }
    let f = "`".repeat(ticks);
    let _ = writeln!(o, "{f}{lang}\n{text}\n{f}\n");
}

/// One transcript entry: a note in italics, else a bold heading (who, facts) over its quoted
/// text or its tool call's arguments and result in fences.
pub(super) fn entry(o: &mut String, v: &EntryView<'_>) {
    let seq = v.seq;
    if let (Who::Note, Body::Text(text)) = (v.who, v.body) {
        let _ = writeln!(o, "*[e{seq}] {text}*\n");
        return;
    }
    let turn = v.turn.map(|t| format!(" turn {t}")).unwrap_or_default();
    let who = match v.who {
        Who::Tool(name) => format!("tool `{name}`"),
        other => other.word().to_string(),
    };
    match v.body {
        Body::Text(text) => {
            let _ = writeln!(
                o,
                "**[e{seq}]{turn} · {who}** ({})\n\n{}\n",
                v.facts.join(", "),
                quote(text)
            );
        }
        Body::Call { arguments, result } => {
            let _ = writeln!(o, "**[e{seq}]{turn} · {who}** — {}\n", v.facts.join(", "));
            o.push_str("Arguments:\n\n");
            fence(o, "json", arguments);
            o.push_str("Result:\n\n");
            fence(o, "text", result);
        }
    }
}

fn quote(text: &str) -> String {
    md_text(text)
        .lines()
        .map(|l| format!("> {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `PASS`, `FAIL`, … or `NO VERDICT` for an unfinished trial.
pub(crate) fn verdict_label(t: &TrialReport) -> &'static str {
    t.verdict.map(|v| v.as_str()).unwrap_or("NO VERDICT")
}

fn critique_body(o: &mut String, findings: &[Finding], r: &Report, nested: bool) {
    let h = if nested { "###" } else { "##" };
    let c = &r.critique;
    let _ = writeln!(o, "{h} Tool usage\n");
    table(o, &tables::tool_usage(&c.tools));
    let _ = writeln!(o, "{h} Findings from the transcripts\n");
    if findings.is_empty() {
        o.push_str("No tool errors, denied calls, retries or slow calls.\n\n");
    } else {
        table(o, &tables::findings(findings));
    }
    let _ = writeln!(
        o,
        "{h} Contract findings and risk labels\n\nSource: {}\n",
        c.contract_note
    );
    if !c.contract.is_empty() {
        table(o, &tables::findings(&c.contract));
    }
    if !c.decisions.is_empty() {
        let _ = writeln!(o, "{h} Decisions on findings\n");
        table(o, &tables::decisions(&c.decisions));
    }
    if !c.risk_labels.is_empty() {
        table(o, &tables::risk_labels(&c.risk_labels));
    }
}
