//! The vocabulary of the wizard: proposals, phases, the events drivers feed in and the effects
//! they perform. Plain data; no behaviour beyond constructors.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

use super::dashboard_state::{DashboardState, Nav, TranscriptError};
use super::effect_errors::LabRunError;
use super::propose_error::ProposeError;
use super::shared_error::Shared;
use super::step::StepId;
use crate::app::RunResults;
use crate::spec::Job;
use crate::spec::job::Capabilities;
use crate::trial::Envelope;

/// What a step proposes: editable text plus read-only notes (evidence, previews, warnings).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Proposal {
    /// The answer the person accepts or edits (plain text or YAML, per step).
    pub text: String,
    /// Explanations shown beside the answer: blast radius, file previews, warnings.
    #[serde(default)]
    pub notes: Vec<String>,
    /// False when the answer is a read-only view (the preview of step 12).
    #[serde(default = "yes")]
    pub editable: bool,
}

fn yes() -> bool {
    true
}

impl Proposal {
    /// An editable proposal.
    pub fn new(text: impl Into<String>, notes: Vec<String>) -> Self {
        Proposal {
            text: text.into(),
            notes,
            editable: true,
        }
    }
}

/// What discovering one server found: its capabilities and Step 4's lint of them.
#[derive(Debug, Clone, PartialEq)]
pub struct Discovered {
    pub capabilities: Capabilities,
    pub lint: ServerLint,
}

/// Step 4's contract lint of one server: its findings by severity and where the full list is.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerLint {
    pub counts: crate::mcp::contract::Summary,
    /// contract.json, as a person finds it (relative to the job's folder when inside it).
    pub contract: PathBuf,
}

/// Discovery state of one MCP server during the MCPs step.
#[derive(Debug, Clone, PartialEq)]
pub enum Discovery {
    Pending,
    Found(Discovered),
    /// The server ran (or tried to) and failed: a peer fault, shown but not blocking the step.
    Failed(String),
    /// The answer itself is wrong (no such server in the file, a file that does not load): the
    /// step cannot be accepted until it is fixed, as `validate` would refuse it.
    Invalid(String),
    Skipped,
}

/// Why discovering one server gave no capabilities.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DiscoveryError {
    /// The Step 4 answer does not resolve to a server `validate` accepts.
    #[error("{0}")]
    Invalid(String),
    /// The server could not be started, answered wrongly, or the discovery was cancelled.
    #[error("{0}")]
    Failed(String),
}

/// How the suite run ended.
#[derive(Debug, Clone, PartialEq)]
pub enum RunOutcome {
    /// The run finished: gates, verdicts, report files.
    Report(Box<RunResults>),
    Failed(Shared<LabRunError>),
}

/// Where the current step is.
#[derive(Debug, Clone, PartialEq)]
// One Phase lives in the Lab at a time: boxing the run dashboard would save nothing that matters.
#[allow(clippy::large_enum_variant)]
pub enum Phase {
    /// Long work in flight; `tick` drives the spinner.
    Proposing { tick: u64 },
    /// A proposal is shown: accept, edit or regenerate. `confirm` holds a warning that needs a
    /// second accept (e.g. `backend: local`).
    Deciding {
        proposal: Proposal,
        notice: Option<String>,
        confirm: Option<String>,
    },
    /// The person edits the answer's text.
    Editing {
        proposal: Proposal,
        draft: String,
        notice: Option<String>,
    },
    /// Proposing failed; retry or regenerate.
    Failed { error: String },
    /// Step 12: the suite runs; the dashboard is folded from its typed events.
    Running {
        dashboard: DashboardState,
        tick: u64,
        outcome: Option<RunOutcome>,
    },
}

/// Input to the state machine, from a person, the clock of the driver, or finished work.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// Open the current step (asks for its proposal unless one is cached).
    Start,
    /// Advances spinners.
    Tick,
    Proposed {
        step: StepId,
        proposal: Proposal,
    },
    ProposalFailed {
        step: StepId,
        error: Shared<ProposeError>,
    },
    Discovered {
        server: String,
        result: Result<Discovered, DiscoveryError>,
    },
    Accept,
    Edit,
    EditSubmitted(String),
    EditCancelled,
    /// Throw the proposal away and ask again, optionally steering with a hint.
    Regenerate {
        hint: Option<String>,
    },
    Retry,
    /// Esc: stop the work in flight.
    Cancel,
    /// Revisit an earlier step (one that is already completed).
    Goto(StepId),
    /// Ctrl-C: ask before quitting.
    Interrupt,
    QuitConfirmed,
    QuitCancelled,
    RunEvent(Box<Envelope>),
    /// The running suite's folder (before its first event).
    RunFolder(std::path::PathBuf),
    /// How many trials the running suite will have (its approved cases × repeats).
    RunPlanned(usize),
    /// The wall clock, while a run is live: the dashboard's elapsed time moves between events.
    Clock(chrono::DateTime<chrono::Utc>),
    /// `y` to "cancel the run?" (asked on Esc during a live run).
    CancelRunConfirmed,
    /// `n` or Esc to "cancel the run?": it goes on.
    CancelRunDeclined,
    /// A selected trial's stored events, read back for its transcript (or why they could not be).
    TranscriptLoaded {
        key: super::dashboard_state::TrialKey,
        events: Result<Vec<Envelope>, TranscriptError>,
    },
    /// Item-level review of personas and scenarios.
    Review(ReviewEvent),
    /// The suite ended: its results, or the runner's reason.
    RunFinished(Result<Box<RunResults>, Shared<LabRunError>>),
    /// A move on the run dashboard (select, follow, pin, results screen).
    Dashboard(Nav),
    /// Deciding on contract findings from the results screen (`super::findings_review`).
    Findings(super::findings_review::FindingsEvent),
}

/// A case event of the running suite (what `trial::ChannelSink` sends into the lab's stream).
impl From<Envelope> for Event {
    fn from(envelope: Envelope) -> Self {
        Event::RunEvent(Box::new(envelope))
    }
}

/// Generated context the proposers of later steps read: accepted artifacts by step.
pub type Artifacts = BTreeMap<StepId, Value>;

/// Work the driver performs; results come back as events.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Produce a proposal → `Event::Proposed` or `Event::ProposalFailed`.
    Propose {
        step: StepId,
        hint: Option<String>,
        job: Box<Job>,
        artifacts: Artifacts,
    },
    /// Keep a generated, not yet accepted proposal so a resume does not pay for it again.
    CacheProposal { step: StepId, proposal: Proposal },
    /// Forget a cached proposal (regenerate).
    DropCachedProposal { step: StepId },
    /// Discover one MCP server → `Event::Discovered`.
    Discover { server: String, job: Box<Job> },
    /// Write job.yaml atomically.
    SaveJob(Box<Job>),
    /// Write an accepted generated artifact into the state folder (`lab/<file>`).
    SaveArtifact { step: StepId, value: Value },
    /// Write the scenarios under review and their curation (scenarios.json, dataset.json in the
    /// state folder, through `generate::store`).
    SaveCuration {
        scenarios: Box<crate::generate::ScenarioSet>,
        dataset: Box<crate::generate::Dataset>,
    },
    /// Run the suite of the saved job.yaml (the preceding `SaveJob` wrote it) →
    /// `Event::RunEvent`… then `Event::RunFinished`.
    RunSuite,
    /// Read a trial's stored events from the run folder → `Event::TranscriptLoaded`.
    LoadTranscript {
        run_dir: std::path::PathBuf,
        key: super::dashboard_state::TrialKey,
    },
    /// Abort the proposal or discovery in flight.
    CancelWork,
    /// Abort the suite run.
    CancelRun,
    /// Read the job's contract findings and their decisions → `Event::Findings(Loaded)`.
    LoadFindings,
    /// Record a decision on a finding, as `ghostlab findings accept|waive` does →
    /// `Event::Findings(Decided)`.
    DecideFinding {
        finding: String,
        verdict: crate::mcp::contract::decisions::Verdict,
        reason: String,
    },
    /// Leave the wizard (everything accepted is already on disk).
    Quit,
}

/// What a resumed wizard gets back from disk besides job.yaml.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Saved {
    /// Proposals generated but not accepted before the wizard stopped.
    pub proposals: BTreeMap<StepId, Proposal>,
    /// Accepted generated artifacts (profile, personas, scenarios).
    pub artifacts: Artifacts,
    /// The dataset's curation (dataset.json in the state folder), when there is one.
    pub curation: Option<crate::generate::Dataset>,
}

/// What a person does to one item of a reviewed set.
#[derive(Debug, Clone, PartialEq)]
pub enum ReviewEvent {
    /// Open the editor on a template for a new item.
    Add,
    /// Open the editor on the YAML of one item.
    EditItem(String),
    Drop(String),
    /// Ask the proposer again and keep only this item of its answer.
    RegenerateItem(String),
    /// Set a scenario's curation state in the dataset.
    Curate {
        id: String,
        status: crate::generate::CaseStatus,
    },
    /// Set several scenarios' curation state at once (bulk approve or reject).
    CurateMany {
        ids: Vec<String>,
        status: crate::generate::CaseStatus,
    },
}

/// Which item the editor holds, when it holds one item rather than the whole set.
#[derive(Debug, Clone, PartialEq)]
pub enum ItemEdit {
    Add,
    Edit(String),
}

/// Review state beside the phase.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Review {
    pub editing: Option<ItemEdit>,
    /// The item being regenerated and the proposal its new version goes back into.
    pub(crate) regenerating: Option<(String, Proposal)>,
    /// The curation of the scenarios shown, as in dataset.json.
    pub curation: Option<crate::generate::Dataset>,
    /// A persona whose drop waits for a second `d` (some of its scenarios are approved).
    pub(crate) confirm_drop: Option<String>,
}
