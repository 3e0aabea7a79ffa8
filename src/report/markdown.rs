//! Markdown rendering of the report and of the per-trial `critique.md`.
//!
//! Formats the model only; it reads no file and sees no secret.

use std::fmt::Write;

use super::model::*;

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
    for t in SECTION_TITLES {
        let _ = writeln!(o, "- [{t}](#{})", slug(t));
    }
    o.push('\n');
    summary(&mut o, r);
    config(&mut o, r);
    profile(&mut o, r);
    people(&mut o, r);
    transcripts(&mut o, r);
    verdicts(&mut o, r);
    o.push_str(&format!("## {}\n\n", SECTION_TITLES[6]));
    critique_body(&mut o, &r.critique.findings, r, true);
    gates(&mut o, r);
    o
}

/// `critique.md`: the run's critique, or one trial's (by index into `trials`).
pub fn render_critique_markdown(r: &Report, trial: Option<usize>) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "<!-- ghostlab critique version {} -->", r.version);
    match trial.and_then(|i| r.trials.get(i)) {
        Some(t) => {
            let _ = writeln!(o, "# Tool-usability critique: {}\n", t.title());
            let findings = super::critique::trial_findings(t);
            if findings.is_empty() {
                o.push_str("No tool errors, denied calls, retries or slow calls in this trial.\n");
            } else {
                findings_table(&mut o, &findings);
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

fn cell(s: &str) -> String {
    md_text(s).replace('|', "\\|").replace('\n', " ")
}

fn table(o: &mut String, headers: &[&str], rows: &[Vec<String>]) {
    let _ = writeln!(o, "| {} |", headers.join(" | "));
    let _ = writeln!(o, "|{}", "---|".repeat(headers.len()));
    for row in rows {
        let cells: Vec<String> = row.iter().map(|c| cell(c)).collect();
        let _ = writeln!(o, "| {} |", cells.join(" | "));
    }
    o.push('\n');
}

fn kv(o: &mut String, rows: &[(String, String)]) {
    let rows: Vec<Vec<String>> = rows.iter().map(|(k, v)| vec![k.clone(), v.clone()]).collect();
    table(o, &["Setting", "Value"], &rows);
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

fn summary(o: &mut String, r: &Report) {
    let s = &r.summary;
    let _ = writeln!(o, "## {}\n", SECTION_TITLES[0]);
    let _ = writeln!(o, "**Readiness: {}**\n", s.readiness.label);
    for reason in &s.readiness.reasons {
        let _ = writeln!(o, "- {reason}");
    }
    o.push('\n');
    match &s.figures {
        Some(f) => table(
            o,
            &["Metric", "Value"],
            &[
                vec!["pass@1".into(), pct(f.pass_at_1)],
                vec!["pass^k".into(), pct(f.pass_hat_k)],
                vec!["Cases / trials".into(), format!("{} / {}", f.cases, f.trials)],
                vec!["PASS".into(), f.pass.to_string()],
                vec!["FAIL".into(), f.fail.to_string()],
                vec!["INCONCLUSIVE".into(), f.inconclusive.to_string()],
                vec!["INFRA_ERROR".into(), f.infra_error.to_string()],
                vec!["Flaky cases".into(), list_or_dash(&f.flaky_cases)],
                vec!["Tokens (agent / emulator / judge)".into(), tokens(&s.tokens)],
                vec!["Cost".into(), format!("${:.4}", s.tokens.cost_usd)],
            ],
        ),
        None => o.push_str("The run has no summary.json: it did not finish.\n\n"),
    }
    o.push_str("Verdicts per scenario:\n\n");
    let rows: Vec<Vec<String>> = s
        .chart
        .iter()
        .map(|b| {
            vec![
                b.scenario.clone(),
                b.pass.to_string(),
                b.fail.to_string(),
                b.inconclusive.to_string(),
                b.infra_error.to_string(),
            ]
        })
        .collect();
    table(o, &["Scenario", "PASS", "FAIL", "INCONCLUSIVE", "INFRA_ERROR"], &rows);
    kv(o, &s.manifest);
}

/// A percentage with one decimal.
pub fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// `agent / emulator / judge (total)` token figures.
pub fn tokens(t: &TokenTotals) -> String {
    format!(
        "{} / {} / {} ({} total, {} model calls)",
        t.agent_tokens,
        t.emulator_tokens,
        t.judge_tokens,
        t.total(),
        t.model_calls
    )
}

fn list_or_dash(v: &[String]) -> String {
    if v.is_empty() { "—".into() } else { v.join(", ") }
}

fn config(o: &mut String, r: &Report) {
    let c = &r.config;
    let _ = writeln!(o, "## {}\n", SECTION_TITLES[1]);
    o.push_str("### Agent\n\n");
    kv(o, &c.agent);
    o.push_str("### MCP servers\n\n");
    let rows: Vec<Vec<String>> = c
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
    table(
        o,
        &["Server", "Transport", "Command / URL", "Env / headers", "Enabled"],
        &rows,
    );
    o.push_str("Resolved agent block (secrets masked, `${VAR}` references kept):\n\n");
    fence(o, "yaml", c.agent_yaml.trim_end());
    o.push_str("### Sandbox provenance\n\n");
    kv(o, &c.sandbox);
    if c.denied.is_empty() {
        o.push_str("Denied egress attempts: none.\n\n");
    } else {
        let rows: Vec<Vec<String>> = c
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
        table(o, &["Case", "Trial", "Destination", "At"], &rows);
    }
}

fn profile(o: &mut String, r: &Report) {
    let _ = writeln!(o, "## {}\n", SECTION_TITLES[2]);
    if !r.profile.present {
        let _ = writeln!(o, "{} not generated (run `ghostlab profile`).\n", r.profile.file);
        return;
    }
    let _ = writeln!(o, "From `{}`:\n", r.profile.file);
    for (depth, line) in &r.profile.outline {
        let _ = writeln!(o, "{}- {}", "  ".repeat(*depth), line.replace('\n', " "));
    }
    o.push('\n');
}

fn people(o: &mut String, r: &Report) {
    let _ = writeln!(o, "## {}\n", SECTION_TITLES[3]);
    for (name, sec) in [("Personas", &r.personas), ("Scenarios", &r.scenarios)] {
        let _ = writeln!(o, "### {name}\n\nSource: {}\n", sec.source);
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
        let rows: Vec<Vec<String>> = d.cases.iter().map(|c| c.to_vec()).collect();
        let _ = writeln!(o, "Source: {}\n", d.file);
        table(o, &["Case", "Persona", "Scenario", "Status", "Note"], &rows);
    } else {
        let _ = writeln!(o, "{} not generated (run `ghostlab dataset`).\n", d.file);
    }
}

fn transcripts(o: &mut String, r: &Report) {
    let _ = writeln!(o, "## {}\n", SECTION_TITLES[4]);
    for t in &r.trials {
        let _ = writeln!(
            o,
            "### {} — {}\n\n{}\n",
            t.title(),
            verdict_label(t),
            md_text(&t.meta_line())
        );
        for p in &t.problems {
            let _ = writeln!(o, "> problem: {p}\n");
        }
        for e in &t.entries {
            match e {
                Entry::User {
                    seq,
                    turn,
                    text,
                    latency_ms,
                } => {
                    let _ = writeln!(
                        o,
                        "**[e{seq}] turn {turn} · user** ({latency_ms} ms)\n\n{}\n",
                        quote(text)
                    );
                }
                Entry::Agent {
                    seq,
                    turn,
                    text,
                    latency_ms,
                    tokens,
                } => {
                    let _ = writeln!(
                        o,
                        "**[e{seq}] turn {turn} · agent** ({latency_ms} ms, {tokens} tokens)\n\n{}\n",
                        quote(text)
                    );
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
                    let _ = writeln!(
                        o,
                        "**[e{seq}] turn {turn} · tool `{tool}`** — {status}, {latency_ms} ms\n"
                    );
                    o.push_str("Arguments:\n\n");
                    fence(o, "json", arguments);
                    o.push_str("Result:\n\n");
                    fence(o, "text", result);
                }
                Entry::Note { seq, text, .. } => {
                    let _ = writeln!(o, "*[e{seq}] {text}*\n");
                }
            }
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
pub fn verdict_label(t: &TrialReport) -> &'static str {
    t.verdict.map(|v| v.as_str()).unwrap_or("NO VERDICT")
}

fn verdicts(o: &mut String, r: &Report) {
    let _ = writeln!(o, "## {}\n", SECTION_TITLES[5]);
    for t in &r.trials {
        let _ = writeln!(o, "### {} — {}\n\nJudge: {}\n", t.title(), verdict_label(t), t.judge);
        for reason in &t.reasons {
            let _ = writeln!(o, "- {reason}");
        }
        o.push('\n');
        let rows: Vec<Vec<String>> = t
            .criteria
            .iter()
            .map(|c| {
                let ev: Vec<String> = c
                    .evidence
                    .iter()
                    .map(|e| match t.turn_of(e) {
                        Some(turn) => format!("{e} (turn {turn})"),
                        None => e.clone(),
                    })
                    .collect();
                vec![
                    c.id.clone(),
                    c.kind.clone(),
                    c.text.clone(),
                    c.answer.clone(),
                    c.rationale.clone(),
                    list_or_dash(&ev),
                ]
            })
            .collect();
        table(
            o,
            &["Id", "Kind", "Criterion", "Answer", "Rationale", "Evidence"],
            &rows,
        );
        let rows: Vec<Vec<String>> = t
            .checks
            .iter()
            .map(|c| vec![c.name.clone(), c.outcome.clone(), c.detail.clone()])
            .collect();
        table(o, &["Check", "Outcome", "Detail"], &rows);
    }
}

fn findings_table(o: &mut String, f: &[Finding]) {
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
    table(o, &["Severity", "Tool", "Finding", "Where"], &rows);
}

fn critique_body(o: &mut String, findings: &[Finding], r: &Report, nested: bool) {
    let h = if nested { "###" } else { "##" };
    let c = &r.critique;
    let _ = writeln!(o, "{h} Tool usage\n");
    let rows: Vec<Vec<String>> = c
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
    table(
        o,
        &["Tool", "Calls", "Errors", "Denied", "Retries", "Mean ms", "Max ms"],
        &rows,
    );
    let _ = writeln!(o, "{h} Findings from the transcripts\n");
    if findings.is_empty() {
        o.push_str("No tool errors, denied calls, retries or slow calls.\n\n");
    } else {
        findings_table(o, findings);
    }
    let _ = writeln!(
        o,
        "{h} Contract findings and risk labels\n\nSource: {}\n",
        c.contract_note
    );
    if !c.contract.is_empty() {
        findings_table(o, &c.contract);
    }
    if !c.risk_labels.is_empty() {
        let rows: Vec<Vec<String>> = c.risk_labels.iter().map(|(t, l)| vec![t.clone(), l.clone()]).collect();
        table(o, &["Tool", "Risk labels"], &rows);
    }
}

fn gates(o: &mut String, r: &Report) {
    let _ = writeln!(o, "## {}\n", SECTION_TITLES[7]);
    if r.gates.gates.is_empty() {
        o.push_str("No gates configured in review.gates.\n\n");
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
        table(o, &["Gate", "Required", "Actual", "Result"], &rows);
    }
    let _ = writeln!(o, "**Readiness verdict: {}**\n", r.summary.readiness.label);
    for reason in &r.summary.readiness.reasons {
        let _ = writeln!(o, "- {reason}");
    }
}
