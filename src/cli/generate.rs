//! `ghostlab generate --job J [--personas N] [--scenarios-per-persona N]`: the profile (when
//! missing), personas, scenarios and a dataset of pending cases. Also picks the proposer.

use std::path::PathBuf;
use std::sync::Arc;

use super::{CliError, ErrorKind, Exit};
use crate::generate::pipeline::{DEFAULT_PERSONAS, DEFAULT_SCENARIOS_PER_PERSONA, generate, kind_counts};
use crate::generate::{LlmProposer, OfflineProposer, Proposer};
use crate::llm::Llm;
use crate::spec::{LoadedJob, ModelProvider};
use crate::util::runtime::block_on;

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The job file.
    #[arg(long, default_value = "job.yaml")]
    pub(crate) job: PathBuf,
    /// How many personas (default: generation.personas, else 3).
    #[arg(long)]
    pub(crate) personas: Option<usize>,
    /// Scenarios per persona (default: generation.scenarios_per_persona, else 6). Every risk and
    /// workflow gets a scenario even beyond this budget.
    #[arg(long)]
    pub(crate) scenarios_per_persona: Option<usize>,
    /// Infer agent-profile.json again even when it exists (it is kept by default so hand edits survive).
    #[arg(long)]
    pub(crate) refresh_profile: bool,
}

pub(crate) fn run(args: Args) -> Result<Exit, CliError> {
    let loaded = crate::spec::load_job(&args.job)?;
    let g = &loaded.job.generation;
    let personas = args
        .personas
        .or(g.personas.map(|n| n as usize))
        .unwrap_or(DEFAULT_PERSONAS);
    let per_persona = args
        .scenarios_per_persona
        .or(g.scenarios_per_persona.map(|n| n as usize))
        .unwrap_or(DEFAULT_SCENARIOS_PER_PERSONA);
    if personas == 0 || per_persona == 0 {
        return Err(CliError::usage(
            "--personas and --scenarios-per-persona must be at least 1",
        ));
    }
    let proposer = proposer_for(&loaded)?;
    let _state_lock = crate::util::folder_lock::lock_state_folder(&loaded.state_dir())
        .map_err(|e| CliError::from_error(super::error::ErrorKind::Io, e))?;
    if args.refresh_profile {
        let path =
            crate::generate::store::artifact_path(&loaded.state_dir(), crate::generate::ArtifactKind::AgentProfile);
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(CliError::io_error(format!("{}: cannot remove: {e}", path.display())).because(e)),
        }
    }
    let out = block_on(generate(&loaded, proposer.as_ref(), personas, per_persona))?
        .map_err(|e| CliError::from_error(super::error::ErrorKind::Peer, e))?;
    if out.profile_reused {
        super::out::say!("using the existing agent-profile.json (--refresh-profile infers it again)");
    }
    for path in &out.paths {
        super::out::say!("wrote {}", path.display());
    }
    let kinds: Vec<String> = kind_counts(&out.scenarios)
        .into_iter()
        .map(|(k, n)| format!("{n} {k}"))
        .collect();
    super::out::say!(
        "proposer {}: {} workflow(s), {} risk(s) -> {} persona(s), {} scenario(s) ({}), {} case(s) pending",
        proposer.label(),
        out.profile.workflows.len(),
        out.profile.risk_surface.len(),
        out.personas.personas.len(),
        out.scenarios.scenarios.len(),
        kinds.join(", "),
        out.dataset.cases.len() - out.kept_statuses
    );
    if out.personas.personas.len() < personas {
        super::out::say!(
            "only {} distinct persona(s) could be derived from the profile (asked for {personas})",
            out.personas.personas.len()
        );
    }
    if out.kept_statuses > 0 {
        super::out::say!("kept the review status of {} unchanged case(s)", out.kept_statuses);
    }
    crate::spec::artifact_refresh::refresh_recorded(&args.job).map_err(|e| CliError::from_error(ErrorKind::Io, e))?;
    super::out::say!("review with `ghostlab dataset list --job {}`", args.job.display());
    Ok(Exit::Success)
}

/// The proposer job.generation.proposer asks for.
pub(crate) fn proposer_for(loaded: &LoadedJob) -> Result<Box<dyn Proposer>, CliError> {
    let role = &loaded.job.generation.proposer;
    match role.provider {
        ModelProvider::Offline => Ok(Box::new(OfflineProposer)),
        _ => {
            let llm = proposer_llm(loaded)?;
            Ok(Box::new(LlmProposer::new(llm).with_temperature(role.temperature)))
        }
    }
}

/// The model for `generation.proposer` when it is not `offline`.
fn proposer_llm(loaded: &LoadedJob) -> Result<Arc<dyn Llm>, CliError> {
    crate::llm::role_model(&loaded.job.generation, &loaded.job.generation.proposer, &loaded.dir)
        .and_then(|m| m.ok_or(crate::llm::LlmError::Offline))
        .map_err(|e| CliError::bad_input(format!("{}: generation.proposer: {e}", loaded.file.display())).because(e))
}
