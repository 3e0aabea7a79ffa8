//! The report model: everything the three renderers print, read once from a run folder and
//! the job's state folder, already redacted and truncated.
//!
//! Renderers never read files or secrets themselves; they only format this struct. One trial's
//! part (its transcript entries, criteria and checks) is `trial_model`.

use serde::Serialize;

use crate::judge::{GateResult, Summary, Verdict};

pub use super::trial_model::{CheckRow, CriterionRow, Entry, ToolCall, TrialReport};

/// Format version of the report model (and of every report file rendered from it).
pub const REPORT_VERSION: u32 = 1;

/// Text longer than this in a tool result or argument block is cut with [`TRUNCATION_MARK`].
pub const MAX_TOOL_TEXT: usize = 1_500;

/// Messages are cut later than tool output: they are the conversation itself.
pub const MAX_MESSAGE_TEXT: usize = 6_000;

/// Appended where a text was cut; the full text stays in events.jsonl.
pub const TRUNCATION_MARK: &str = "… [truncated, full text in events.jsonl]";

/// The whole rollout report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub version: u32,
    pub title: String,
    pub agent_id: String,
    pub run_id: String,
    pub job_file: String,
    pub generated: String,
    pub summary: SummaryPage,
    pub config: ConfigSection,
    pub profile: super::profile_model::ProfileSection,
    pub personas: ItemsSection,
    pub scenarios: ItemsSection,
    pub dataset: DatasetSection,
    pub trials: Vec<TrialReport>,
    pub critique: Critique,
    pub gates: GatesSection,
}

/// The first page: rates, counts, spend and the readiness verdict.
#[derive(Debug, Clone, Serialize)]
pub struct SummaryPage {
    /// `None` when the run has no summary.json (interrupted before the end).
    pub figures: Option<Summary>,
    pub tokens: TokenTotals,
    pub readiness: Readiness,
    pub chart: Vec<ScenarioBar>,
    /// Harness, emulator, judge, runner and start time from manifest.json.
    pub manifest: Vec<(String, String)>,
}

/// Tokens, calls and cost summed from the events of every trial, all from one `Usage` each.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TokenTotals {
    /// Agent, emulator and judge, each "unknown" where its work went unrecorded.
    pub roles: Vec<super::role_spend::RoleSpend>,
    pub cost_usd: f64,
    /// Some cost has no known price: `cost_usd` is a lower bound, shown with "unknown".
    pub cost_unknown: bool,
    /// Per role, summed over the trials (`trial::Usage`, the figures of the summary and JUnit).
    pub usage: crate::trial::Usage,
}

impl TokenTotals {
    /// All tokens of every role that recorded them (a lower bound when a role is unknown).
    pub fn total(&self) -> u64 {
        self.roles.iter().map(|r| r.tokens).sum()
    }
}

/// Whether the agent may ship, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Readiness {
    pub ready: bool,
    pub label: String,
    pub reasons: Vec<String>,
}

/// Verdict counts of one scenario, over all personas and trials.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ScenarioBar {
    /// The scenario's title, with its id added when two scenarios share a title.
    pub scenario: String,
    /// The scenario's id (the case id when the trial has no scenario).
    pub id: String,
    pub pass: usize,
    pub fail: usize,
    pub inconclusive: usize,
    pub infra_error: usize,
}

impl ScenarioBar {
    /// Counts in verdict order, for the charts.
    pub fn counts(&self) -> [(Verdict, usize); 4] {
        [
            (Verdict::Pass, self.pass),
            (Verdict::Fail, self.fail),
            (Verdict::Inconclusive, self.inconclusive),
            (Verdict::InfraError, self.infra_error),
        ]
    }

    pub fn total(&self) -> usize {
        self.pass + self.fail + self.inconclusive + self.infra_error
    }
}

/// Section 1.
#[derive(Debug, Clone, Serialize)]
pub struct ConfigSection {
    pub agent: Vec<(String, String)>,
    pub mcps: Vec<McpRow>,
    /// The agent block of job.yaml as YAML, secrets masked, references kept.
    pub agent_yaml: String,
    pub sandbox: Vec<(String, String)>,
    pub denied: Vec<DeniedEgress>,
}

/// One MCP server as configured.
#[derive(Debug, Clone, Serialize)]
pub struct McpRow {
    pub name: String,
    pub transport: String,
    pub target: String,
    /// `KEY=${REF}` or `KEY=[REDACTED]`; literal values are never shown for secret-named keys.
    pub env: String,
    pub enabled: bool,
}

/// One refused egress attempt.
#[derive(Debug, Clone, Serialize)]
pub struct DeniedEgress {
    pub case: String,
    pub trial: u32,
    pub host: String,
    pub port: u16,
    pub at: String,
}

/// Personas or scenarios.
#[derive(Debug, Clone, Serialize)]
pub struct ItemsSection {
    pub file: String,
    /// Where the items came from: the generated file, or the run's case.json files.
    pub source: String,
    pub items: Vec<Item>,
    /// Titles of the items the curation rejected: summarised, not printed in full.
    pub rejected: Vec<String>,
}

impl ItemsSection {
    /// `2 rejected in curation (not printed): A; B`, or `None` when none was.
    pub fn rejected_line(&self) -> Option<String> {
        (!self.rejected.is_empty()).then(|| {
            format!(
                "{} rejected in curation (not printed): {}",
                self.rejected.len(),
                self.rejected.join("; ")
            )
        })
    }

    /// Moves the items every one of whose dataset cases was rejected into `rejected`;
    /// `cases` are (item id, status) pairs from the dataset. Items in no case stay.
    pub fn set_aside_rejected(&mut self, cases: &[(String, String)]) {
        let rejected = |id: &str| {
            let mut of = cases.iter().filter(|(i, _)| i == id).peekable();
            of.peek().is_some() && of.all(|(_, status)| status == "rejected")
        };
        let (out, kept): (Vec<Item>, Vec<Item>) = std::mem::take(&mut self.items)
            .into_iter()
            .partition(|i| rejected(&i.id));
        self.items = kept;
        self.rejected = out
            .into_iter()
            .map(|i| if i.title.is_empty() { i.id } else { i.title })
            .collect();
    }
}

/// The reviewed dataset: which persona × scenario cases exist and their review status.
#[derive(Debug, Clone, Serialize)]
pub struct DatasetSection {
    pub file: String,
    pub present: bool,
    /// id, persona, scenario, status, note.
    pub cases: Vec<[String; 5]>,
}

/// One persona or scenario.
#[derive(Debug, Clone, Serialize)]
pub struct Item {
    pub id: String,
    pub title: String,
    pub description: String,
    pub why: String,
    pub details: Vec<(String, String)>,
}

/// Section 6.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Critique {
    pub tools: Vec<ToolStats>,
    pub findings: Vec<Finding>,
    /// Per-tool risk labels from contract.json or inventory.json, when discovery ran.
    pub risk_labels: Vec<(String, String)>,
    /// contract.json findings, when present; a decided one's severity says so (`· waived`).
    pub contract: Vec<Finding>,
    pub contract_note: String,
    /// People's decisions on contract findings (`<job>.decisions.json`), latest per finding.
    pub decisions: Vec<DecisionRow>,
}

/// One decision on a contract finding: who decided what, when and why, and whether it is
/// still in force (the finding's evidence unchanged) or expired.
#[derive(Debug, Clone, Serialize)]
pub struct DecisionRow {
    pub finding: String,
    /// `accepted` or `waived`.
    pub decision: String,
    pub who: String,
    pub when: String,
    pub reason: String,
    pub state: String,
}

/// Usage of one tool over the whole run.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ToolStats {
    pub tool: String,
    pub calls: usize,
    pub errors: usize,
    pub denied: usize,
    pub retries: usize,
    pub mean_ms: u64,
    pub max_ms: u64,
}

/// One critique point.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub severity: String,
    pub tool: String,
    pub message: String,
    /// Where: `case · trial k · e7`.
    pub location: String,
}

/// Section 7.
#[derive(Debug, Clone, Serialize)]
pub struct GatesSection {
    pub gates: Vec<GateResult>,
    pub gates_met: Option<bool>,
}

/// Cuts `text` to `max` characters with the visible marker.
pub fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max).collect();
    format!("{cut}\n{TRUNCATION_MARK}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(id: &str, title: &str) -> Item {
        Item {
            id: id.into(),
            title: title.into(),
            description: String::new(),
            why: String::new(),
            details: vec![],
        }
    }

    #[test]
    fn only_items_whose_every_case_was_rejected_are_set_aside() {
        let mut sec = ItemsSection {
            file: "scenarios.json".into(),
            source: String::new(),
            items: vec![
                item("a", "All rejected"),
                item("b", "Mixed"),
                item("c", "No case"),
                item("d", ""),
            ],
            rejected: vec![],
        };
        let case = |id: &str, status: &str| (id.to_string(), status.to_string());
        sec.set_aside_rejected(&[
            case("a", "rejected"),
            case("a", "rejected"),
            case("b", "rejected"),
            case("b", "accepted"),
            case("d", "rejected"),
        ]);
        let kept: Vec<&str> = sec.items.iter().map(|i| i.id.as_str()).collect();
        assert_eq!(kept, ["b", "c"]);
        assert_eq!(
            sec.rejected_line().unwrap(),
            "2 rejected in curation (not printed): All rejected; d"
        );
        sec.rejected.clear();
        assert_eq!(sec.rejected_line(), None);
    }

    #[test]
    fn truncation_keeps_short_text_and_marks_long_text() {
        assert_eq!(truncate("short", 10), "short");
        let cut = truncate(&"é".repeat(20), 10);
        assert!(cut.starts_with(&"é".repeat(10)) && cut.ends_with(TRUNCATION_MARK));
    }
}
