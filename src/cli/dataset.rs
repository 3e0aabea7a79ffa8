//! `ghostlab dataset list|approve|reject|needs-edit|edit --job J`: curate the generated cases.

use std::path::{Path, PathBuf};

use super::{CliError, ErrorKind, Exit};
use crate::generate::pipeline::{replace_scenario, unknown_case};
use crate::generate::store::{read_artifact, set_path, write_artifact};
use crate::generate::{ArtifactKind, CaseStatus, Dataset, ScenarioSet};

pub(crate) type Args = super::action_args::ActionArgs<Action>;

#[derive(Debug, clap::Subcommand)]
pub(crate) enum Action {
    /// Show every case with its status, persona, kind and title.
    List(ListArgs),
    /// Mark cases approved (they will run).
    Approve(MarkArgs),
    /// Mark cases rejected (they will not run).
    Reject(MarkArgs),
    /// Mark cases as needing an edit before they can be approved.
    NeedsEdit(MarkArgs),
    /// Change a case's scenario in $EDITOR, or with --set key=value; the case returns to pending.
    Edit(EditArgs),
}

#[derive(Debug, clap::Args)]
pub(crate) struct ListArgs {
    #[arg(long, default_value = "job.yaml")]
    pub(crate) job: PathBuf,
}

#[derive(Debug, clap::Args)]
pub(crate) struct MarkArgs {
    #[arg(long, default_value = "job.yaml")]
    pub(crate) job: PathBuf,
    /// Case ids (see `dataset list`).
    #[arg(required_unless_present = "all", conflicts_with = "all")]
    pub(crate) cases: Vec<String>,
    /// Every case.
    #[arg(long)]
    pub(crate) all: bool,
    /// A note stored with each case.
    #[arg(long)]
    pub(crate) note: Option<String>,
}

#[derive(Debug, clap::Args)]
pub(crate) struct EditArgs {
    #[arg(long, default_value = "job.yaml")]
    pub(crate) job: PathBuf,
    /// The case id.
    pub(crate) case: String,
    /// `key=value` (dotted keys such as `expected_outcome.must_include`; the value is JSON when it
    /// parses as JSON, else text). Without --set, $VISUAL or $EDITOR opens the scenario.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub(crate) set: Vec<String>,
}

fn err(e: impl std::error::Error + Send + Sync + 'static) -> CliError {
    CliError::from_error(super::error::ErrorKind::BadInput, e)
}

pub(crate) fn run(args: Args) -> Result<Exit, CliError> {
    match args.action {
        Action::List(a) => list(&a.job),
        Action::Approve(a) => mark(a, CaseStatus::Approved),
        Action::Reject(a) => mark(a, CaseStatus::Rejected),
        Action::NeedsEdit(a) => mark(a, CaseStatus::NeedsEdit),
        Action::Edit(a) => edit(a),
    }
}

fn state_dir(job: &Path) -> Result<PathBuf, CliError> {
    Ok(crate::spec::load_job(job)?.state_dir())
}

fn list(job: &Path) -> Result<Exit, CliError> {
    let state = state_dir(job)?;
    let dataset: Dataset = read_artifact(&state, ArtifactKind::Dataset).map_err(err)?;
    let scenarios: ScenarioSet = read_artifact(&state, ArtifactKind::Scenario).map_err(err)?;
    let width = dataset.cases.iter().map(|c| c.id.len()).max().unwrap_or(4).max(4);
    super::out::say!("{:<width$}  {:<10}  {:<12}  TITLE", "CASE", "STATUS", "KIND");
    for case in &dataset.cases {
        let scenario = scenarios.scenarios.iter().find(|s| s.id == case.scenario);
        let kind = scenario
            .and_then(|s| serde_json::to_value(s.kind).ok())
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        let title = scenario.map(|s| s.title.as_str()).unwrap_or("(missing scenario)");
        let note = case.note.as_deref().map(|n| format!("  [{n}]")).unwrap_or_default();
        super::out::say!(
            "{:<width$}  {:<10}  {:<12}  {title}{note}",
            case.id,
            case.status.as_str(),
            kind
        );
    }
    let count = |s: CaseStatus| dataset.cases.iter().filter(|c| c.status == s).count();
    super::out::say!(
        "{} case(s): {} pending, {} approved, {} rejected, {} needs_edit",
        dataset.cases.len(),
        count(CaseStatus::Pending),
        count(CaseStatus::Approved),
        count(CaseStatus::Rejected),
        count(CaseStatus::NeedsEdit)
    );
    Ok(Exit::Success)
}

/// The state folder's lock, held while a command reads, changes and writes the dataset, so
/// concurrent edits are applied one after another instead of overwriting each other.
fn lock_state(state: &Path) -> Result<Option<crate::util::folder_lock::FolderLock>, CliError> {
    if !state.is_dir() {
        return Ok(None); // nothing generated yet: the read below says so
    }
    crate::util::folder_lock::lock_folder(state).map(Some).map_err(err)
}

fn mark(args: MarkArgs, status: CaseStatus) -> Result<Exit, CliError> {
    let state = state_dir(&args.job)?;
    let _lock = lock_state(&state)?;
    let mut dataset: Dataset = read_artifact(&state, ArtifactKind::Dataset).map_err(err)?;
    let ids: Vec<String> = if args.all {
        dataset.cases.iter().map(|c| c.id.clone()).collect()
    } else {
        args.cases
    };
    let unknown = dataset.set_status(&ids, status, args.note.as_deref());
    if let Some(first) = unknown.first() {
        // Nothing is written when any id is wrong: a typo must not half-apply.
        return Err(err(unknown_case(&state, first)));
    }
    write_artifact(&state, ArtifactKind::Dataset, &dataset).map_err(err)?;
    crate::spec::artifact_refresh::refresh_recorded(&args.job).map_err(|e| CliError::from_error(ErrorKind::Io, e))?;
    super::out::say!("{} case(s) {}", ids.len(), status.as_str());
    Ok(Exit::Success)
}

fn edit(args: EditArgs) -> Result<Exit, CliError> {
    let state = state_dir(&args.job)?;
    let dataset: Dataset = read_artifact(&state, ArtifactKind::Dataset).map_err(err)?;
    let scenarios: ScenarioSet = read_artifact(&state, ArtifactKind::Scenario).map_err(err)?;
    let case = dataset
        .cases
        .iter()
        .find(|c| c.id == args.case)
        .ok_or_else(|| err(unknown_case(&state, &args.case)))?;
    let scenario = scenarios
        .scenarios
        .iter()
        .find(|s| s.id == case.scenario)
        .ok_or_else(|| err(unknown_case(&state, &args.case)))?;
    let original = serde_json::to_value(scenario).map_err(err)?;
    let edited = if args.set.is_empty() {
        edit_in_editor(&state, &original)?
    } else {
        let mut value = original.clone();
        for pair in &args.set {
            let (key, raw) = pair
                .split_once('=')
                .ok_or_else(|| CliError::usage(format!("--set {pair}: expected KEY=VALUE")))?;
            let new = serde_json::from_str(raw).unwrap_or_else(|_| serde_json::Value::String(raw.to_string()));
            set_path(&mut value, key.trim(), new)
                .map_err(|e| CliError::usage(format!("--set {pair}: {e}")).because(e))?;
        }
        value
    };
    if edited == original {
        super::out::say!("case {} unchanged", args.case);
        return Ok(Exit::Success);
    }
    let _lock = lock_state(&state)?;
    replace_scenario(&state, &args.case, edited).map_err(err)?;
    crate::spec::artifact_refresh::refresh_recorded(&args.job).map_err(|e| CliError::from_error(ErrorKind::Io, e))?;
    super::out::say!("case {} updated and back to pending review", args.case);
    Ok(Exit::Success)
}

fn edit_in_editor(state: &Path, original: &serde_json::Value) -> Result<serde_json::Value, CliError> {
    let editor = std::env::var("VISUAL")
        .ok()
        .filter(|v| !v.trim().is_empty())
        .or_else(|| std::env::var("EDITOR").ok().filter(|v| !v.trim().is_empty()))
        .ok_or_else(|| CliError::missing("set $EDITOR (or pass --set key=value) to edit a scenario"))?;
    let argv = shell_words::split(&editor).map_err(|e| CliError::bad_input(format!("$EDITOR: {e}")).because(e))?;
    let (program, rest) = argv
        .split_first()
        .ok_or_else(|| CliError::bad_input("$EDITOR is empty"))?;
    std::fs::create_dir_all(state)?;
    let file = tempfile::Builder::new()
        .prefix(".edit-scenario-")
        .suffix(".json")
        .tempfile_in(state)?;
    let mut text = serde_json::to_string_pretty(original).map_err(err)?;
    text.push('\n');
    crate::util::write_atomic(file.path(), text.as_bytes())?;
    let status = std::process::Command::new(program)
        .args(rest)
        .arg(file.path())
        .status()
        .map_err(|e| CliError::missing(format!("cannot start the editor `{program}`: {e}")).because(e))?;
    if !status.success() {
        return Err(CliError::peer(format!(
            "the editor exited with {status}; nothing changed"
        )));
    }
    let edited = crate::util::bounded::read_bounded_string(file.path(), crate::util::bounded::FileKind::State)
        .map_err(|e| CliError::from_error(super::error::ErrorKind::Io, e))?;
    serde_json::from_str(&edited)
        .map_err(|e| CliError::bad_input(format!("the edited scenario is not valid JSON: {e}")).because(e))
}
