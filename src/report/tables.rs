//! The report's tables, built once from the model: headers and cell texts only. Each
//! renderer formats a [`Table`] its own way (HTML escaping, Markdown pipes, PDF column
//! widths), so every format shows the same columns and the same cells.

use super::model::*;
use crate::judge::GateResult;

/// Column headers and rows of plain-text cells.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Table {
    pub(crate) headers: Vec<String>,
    pub(crate) rows: Vec<Vec<String>>,
}

impl Table {
    fn new(headers: &[&str], rows: Vec<Vec<String>>) -> Self {
        Table {
            headers: headers.iter().map(|h| h.to_string()).collect(),
            rows,
        }
    }

    /// The same table with column `col` headed `name` (a renderer's shorter label).
    pub(crate) fn header(mut self, col: usize, name: &str) -> Self {
        self.headers[col] = name.to_string();
        self
    }

    /// Folds column `b` into column `a` (`join(a, b)`) and drops `b`; `a` keeps its header.
    pub(crate) fn merge(mut self, a: usize, b: usize, join: impl Fn(&str, &str) -> String) -> Self {
        for row in &mut self.rows {
            row[a] = join(&row[a], &row[b]);
            row.remove(b);
        }
        self.headers.remove(b);
        self
    }
}

/// A percentage with one decimal.
pub(crate) fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// Each role's tokens and calls, and their total (`unknown` where a role's usage was not
/// recorded, never 0).
pub(crate) fn tokens(t: &TokenTotals) -> String {
    super::spend::spend_line(&t.roles)
}

/// Total cost with each role's share; "unknown" when a model had no price (never $0).
pub(crate) fn cost(t: &TokenTotals) -> String {
    t.usage.cost_line().trim_start_matches("cost ").to_string()
}

fn list_or(v: &[String], empty: &str) -> String {
    if v.is_empty() { empty.into() } else { v.join(", ") }
}

/// Setting / Value pairs (agent, sandbox provenance, run manifest).
pub(crate) fn settings(rows: &[(String, String)]) -> Table {
    let rows = rows.iter().map(|(k, v)| vec![k.clone(), v.clone()]).collect();
    Table::new(&["Setting", "Value"], rows)
}

/// The run's figures; `None` when the run has no summary. `empty` stands for no flaky case.
pub(crate) fn figures(s: &SummaryPage, empty: &str) -> Option<Table> {
    let f = s.figures.as_ref()?;
    let rows = vec![
        vec!["pass@1".into(), pct(f.pass_at_1)],
        vec!["pass^k".into(), pct(f.pass_hat_k)],
        vec!["Cases / trials".into(), format!("{} / {}", f.cases, f.trials)],
        vec!["PASS".into(), f.pass.to_string()],
        vec!["FAIL".into(), f.fail.to_string()],
        vec!["INCONCLUSIVE".into(), f.inconclusive.to_string()],
        vec!["INFRA_ERROR".into(), f.infra_error.to_string()],
        vec!["Flaky cases".into(), list_or(&f.flaky_cases, empty)],
        vec!["Tokens and model calls".into(), tokens(&s.tokens)],
        vec!["Cost".into(), cost(&s.tokens)],
    ];
    Some(Table::new(&["Metric", "Value"], rows))
}

/// Verdict counts per scenario (the chart's data).
pub(crate) fn scenario_verdicts(bars: &[ScenarioBar]) -> Table {
    let rows = bars
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
    Table::new(&["Scenario", "PASS", "FAIL", "INCONCLUSIVE", "INFRA_ERROR"], rows)
}

pub(crate) fn mcp_servers(mcps: &[McpRow]) -> Table {
    let rows = mcps
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
    Table::new(
        &["Server", "Transport", "Command / URL", "Env / headers", "Enabled"],
        rows,
    )
}

pub(crate) fn denied_egress(denied: &[DeniedEgress]) -> Table {
    let rows = denied
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
    Table::new(&["Case", "Trial", "Destination", "At"], rows)
}

/// Generated personas or scenarios; details are `key: value` lines.
pub(crate) fn items(items: &[Item]) -> Table {
    let rows = items
        .iter()
        .map(|it| {
            let details: Vec<String> = it.details.iter().map(|(k, v)| format!("{k}: {v}")).collect();
            vec![
                it.id.clone(),
                it.title.clone(),
                it.description.clone(),
                it.why.clone(),
                details.join("\n"),
            ]
        })
        .collect();
    Table::new(&["Id", "Name", "Description", "Why generated", "Details"], rows)
}

pub(crate) fn dataset(d: &DatasetSection) -> Table {
    let rows = d.cases.iter().map(|c| c.to_vec()).collect();
    Table::new(&["Case", "Persona", "Scenario", "Status", "Note"], rows)
}

/// The judge's criteria of one trial; `evidence` formats one cited event (the renderer adds
/// turns, pages or links) and `empty` stands for no evidence.
pub(crate) fn criteria(t: &TrialReport, mut evidence: impl FnMut(&str) -> String, empty: &str) -> Table {
    let rows = t
        .criteria
        .iter()
        .map(|c| {
            let ev: Vec<String> = c.evidence.iter().map(|e| evidence(e)).collect();
            vec![
                c.id.clone(),
                c.kind.clone(),
                c.text.clone(),
                c.answer.clone(),
                c.rationale.clone(),
                list_or(&ev, empty),
            ]
        })
        .collect();
    Table::new(&["Id", "Kind", "Criterion", "Answer", "Rationale", "Evidence"], rows)
}

/// What the harness observed in one trial, beside the judge's answers.
pub(crate) fn observed(rows: &[(String, String)]) -> Table {
    let rows = rows.iter().map(|(k, v)| vec![k.clone(), v.clone()]).collect();
    Table::new(&["Observed by the harness", "What was seen"], rows)
}

pub(crate) fn checks(checks: &[CheckRow]) -> Table {
    let rows = checks
        .iter()
        .map(|c| vec![c.name.clone(), c.outcome.clone(), c.detail.clone()])
        .collect();
    Table::new(&["Check", "Outcome", "Detail"], rows)
}

/// Critique findings (from the transcripts or the tool contract).
pub(crate) fn findings(f: &[Finding]) -> Table {
    let rows = f
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
    Table::new(&["Severity", "Tool", "Finding", "Where"], rows)
}

/// People's decisions on contract findings.
pub(crate) fn decisions(rows: &[DecisionRow]) -> Table {
    let rows = rows
        .iter()
        .map(|d| {
            vec![
                d.finding.clone(),
                d.decision.clone(),
                d.who.clone(),
                d.when.clone(),
                d.reason.clone(),
                d.state.clone(),
            ]
        })
        .collect();
    Table::new(&["Finding", "Decision", "Who", "When", "Why", "State"], rows)
}

pub(crate) fn tool_usage(tools: &[ToolStats]) -> Table {
    let rows = tools
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
    Table::new(
        &["Tool", "Calls", "Errors", "Denied", "Retries", "Mean ms", "Max ms"],
        rows,
    )
}

pub(crate) fn risk_labels(labels: &[(String, String)]) -> Table {
    let rows = labels.iter().map(|(t, l)| vec![t.clone(), l.clone()]).collect();
    Table::new(&["Tool", "Risk labels"], rows)
}

pub(crate) fn gates(gates: &[GateResult]) -> Table {
    let rows = gates
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
    Table::new(&["Gate", "Required", "Actual", "Result"], rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_folds_a_column_and_header_renames() {
        let t = Table::new(
            &["Id", "Kind", "Text"],
            vec![vec!["c1".into(), "llm".into(), "x".into()]],
        )
        .merge(0, 1, |id, kind| format!("{id} ({kind})"))
        .header(0, "Criterion");
        assert_eq!(t.headers, ["Criterion", "Text"]);
        assert_eq!(t.rows, [["c1 (llm)", "x"]]);
    }
}
