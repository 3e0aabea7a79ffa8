//! `ghostlab lab`: the twelve-step wizard, in the terminal or headless with `--yes`.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;

use super::{CliError, ErrorKind, Exit};
use crate::app::RunResults;
use crate::lab::executors::{EndpointModels, LabSuiteRunner, PipelineGenerator, SandboxedDiscovery};
use crate::lab::headless::{HeadlessError, run_headless};
use crate::lab::run_flags::{self, RunFlags};
use crate::lab::{Lab, RunOutcome, Saved, Seeds, StepProposer, store};
use crate::spec::SandboxBackend;
use crate::tui::{Theme, TuiOutcome, run_tui};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Run without a terminal: accept every proposal (or the flag given for it).
    #[arg(long)]
    pub(crate) yes: bool,
    /// Continue at the first step not yet accepted in --job.
    #[arg(long)]
    pub(crate) resume: bool,
    /// The job file the wizard writes after every accepted step.
    #[arg(long, default_value = "job.yaml")]
    pub(crate) job: PathBuf,
    /// Step 1: an opencode.json (or project folder), an agent.yaml, an MCP servers file or a skill folder.
    #[arg(long)]
    pub(crate) from: Option<PathBuf>,
    /// Step 1: how many personas to propose (written as `generation.personas`).
    #[arg(long, value_name = "N")]
    pub(crate) personas: Option<u32>,
    /// Step 1: how many scenarios per persona (written as `generation.scenarios_per_persona`).
    #[arg(long, value_name = "N")]
    pub(crate) scenarios_per_persona: Option<u32>,
    /// Step 2: the agent's purpose in your own words.
    #[arg(long)]
    pub(crate) description: Option<String>,
    /// Step 3: `provider/model` for the agent.
    #[arg(long)]
    pub(crate) model: Option<String>,
    /// Step 3: the proposer's model (profile, personas, scenarios): `provider/model` or `offline`.
    #[arg(long, value_name = "PROVIDER/MODEL")]
    pub(crate) proposer_model: Option<String>,
    /// Step 3: the user emulator's model: `provider/model` or `offline`.
    #[arg(long, value_name = "PROVIDER/MODEL")]
    pub(crate) emulator_model: Option<String>,
    /// Step 3: the judge's model: `provider/model` or `offline` (no real verdicts).
    #[arg(long, value_name = "PROVIDER/MODEL")]
    pub(crate) judge_model: Option<String>,
    /// Step 4: a standard MCP servers file whose servers are added.
    #[arg(long)]
    pub(crate) mcp_config: Option<PathBuf>,
    /// Step 5: a skill folder to attach (repeatable).
    #[arg(long)]
    pub(crate) skill: Vec<PathBuf>,
    /// Step 7: sandbox backend; `local` (no isolation) only when named here or typed in.
    #[arg(long, value_enum)]
    pub(crate) sandbox: Option<SandboxArg>,
    /// Step 11: a gate as key=value (repeatable), e.g. min_pass_rate=0.9, pass_k=3:0.8.
    #[arg(long = "gate", value_name = "KEY=VALUE")]
    pub(crate) gates: Vec<String>,
    /// Step 12: serve the agent's model from this cassette through a local model server.
    #[arg(long)]
    pub(crate) agent_cassette: Option<PathBuf>,
    /// Step 12: cases running at once, 1–256 [default: 4, or what this lab was started with].
    #[arg(long, value_parser = clap::builder::TypedValueParser::map(clap::value_parser!(u16).range(1..=256), usize::from))]
    pub(crate) parallel: Option<usize>,
    /// Color theme: default, light, high-contrast (NO_COLOR turns colors off).
    #[arg(long, default_value = "default")]
    pub(crate) theme: String,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub(crate) enum SandboxArg {
    Bubblewrap,
    Openshell,
    Local,
}

pub(crate) fn run(args: Args) -> Result<Exit, CliError> {
    let interactive = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    if !args.yes && !interactive {
        return Err(CliError::usage(
            "ghostlab lab needs a terminal; without one pass --yes (plus --from, --description, --model, … \
             for the answers) to accept every proposal",
        ));
    }
    let mut seeds = seeds(&args)?;
    let lab = open_lab(&args)?;
    // One lab (or `generate`, `profile`) per state folder at a time: two sessions on one job
    // would overwrite each other's answers and curation.
    let state =
        crate::spec::relative_path::resolve_against(&crate::spec::load::job_dir(&args.job), &lab.job.paths.state_dir);
    let _state_lock = crate::util::folder_lock::lock_state_folder(&state)
        .map_err(|e| CliError::from_error(super::error::ErrorKind::Io, e))?;
    for note in ignored_flags(&args, &lab) {
        eprintln!("note: {note}");
    }
    let flags = run_flags(&args, &lab)?;
    seeds.model_from_cassette = flags.agent_cassette.is_some();
    let proposer = StepProposer {
        job_file: args.job.clone(),
        seeds,
        models: Arc::new(EndpointModels),
        generator: Arc::new(PipelineGenerator),
    };
    let runtime = crate::util::runtime::multi_thread()?;
    // The same executors drive both front ends.
    let discovery = Arc::new(SandboxedDiscovery {
        job_file: args.job.clone(),
    });
    let runner = Arc::new(LabSuiteRunner {
        agent_cassette: flags.agent_cassette.clone(),
        parallel: flags.parallel(),
    });
    let resume_command = flags.resume_command(&args.job);
    if args.yes {
        let mut progress = |line: String| eprintln!("{line}");
        let result = runtime.block_on(run_headless(lab, proposer, discovery, runner, &mut progress));
        return match result {
            Ok(outcome) => {
                print_results(&outcome.results);
                Ok(exit_for(&outcome.results))
            }
            Err(HeadlessError::Run(e)) => Err(CliError::peer(format!("the run failed: {e}")).because(e)),
            Err(e) => Err(
                CliError::from_error(super::error::ErrorKind::Peer, e).with_hint(format!(
                    "accepted steps are saved in {}; fix the cause, then `{resume_command} --yes` continues",
                    args.job.display()
                )),
            ),
        };
    }
    let theme = Theme::load(&args.theme).map_err(|e| CliError::from_error(super::error::ErrorKind::BadInput, e))?;
    // Logs and child stderr go to a file while the wizard owns the screen.
    let stderr_log = store::lab_dir(&args.job, &lab.job).join("tui.log");
    let outcome = runtime
        .block_on(run_tui(lab, proposer, discovery, runner, theme, Some(stderr_log)))
        .map_err(|e| CliError::from_error(super::error::ErrorKind::Peer, e))?;
    match outcome {
        TuiOutcome::Quit { completed } => {
            eprintln!(
                "{completed} of 12 steps saved in {}; `{resume_command}` continues",
                args.job.display()
            );
            Ok(Exit::Success)
        }
        TuiOutcome::Finished(RunOutcome::Report(r)) => {
            print_results(&r);
            Ok(exit_for(&r))
        }
        TuiOutcome::Finished(RunOutcome::Failed(e)) => Err(CliError::peer(format!("the run failed: {e}")).because(e)),
    }
}

/// Like `ghostlab test`: 0 when the gates are met, 1 when they are not (a run that could not
/// finish is an error, exit 2, before this).
fn exit_for(results: &RunResults) -> Exit {
    Exit::gates(results.gates_met)
}

/// The results screen as text: summary line, readiness, gates, failures, report paths.
fn print_results(results: &RunResults) {
    for line in results.text_lines() {
        super::out::say!("{line}");
    }
}

fn seeds(args: &Args) -> Result<Seeds, CliError> {
    let mut gates = Vec::new();
    for g in &args.gates {
        let (k, v) = g
            .split_once('=')
            .ok_or_else(|| CliError::usage(format!("--gate {g}: expected KEY=VALUE")))?;
        let mut probe = crate::spec::Gates::default();
        crate::lab::policy::set_gate(&mut probe, k.trim(), v.trim())
            .map_err(|e| CliError::from_error(super::error::ErrorKind::Usage, e))?;
        gates.push((k.trim().to_string(), v.trim().to_string()));
    }
    Ok(Seeds {
        from: args.from.clone(),
        description: args.description.clone(),
        model: args.model.clone(),
        mcp_config: args.mcp_config.clone(),
        skills: args.skill.clone(),
        sandbox: args.sandbox.map(|s| match s {
            SandboxArg::Bubblewrap => SandboxBackend::Bubblewrap,
            SandboxArg::Openshell => SandboxBackend::Openshell,
            SandboxArg::Local => SandboxBackend::Local,
        }),
        gates,
        roles: role_seeds(args)?,
        personas: args.personas,
        scenarios_per_persona: args.scenarios_per_persona,
        model_from_cassette: false,
    })
}

/// The role flags, checked now so a typo fails before the wizard starts.
fn role_seeds(args: &Args) -> Result<crate::lab::roles_step::RoleSeeds, CliError> {
    let check = |flag: &str, v: &Option<String>| -> Result<Option<String>, CliError> {
        if let Some(choice) = v {
            crate::lab::role_models::role_from_choice(choice)
                .map_err(|e| CliError::usage(format!("{flag}: {e}")).because(e))?;
        }
        Ok(v.clone())
    };
    Ok(crate::lab::roles_step::RoleSeeds {
        proposer: check("--proposer-model", &args.proposer_model)?,
        emulator: check("--emulator-model", &args.emulator_model)?,
        judge: check("--judge-model", &args.judge_model)?,
    })
}

/// Flags whose step was already accepted in a resumed job: they change nothing, so say so.
fn ignored_flags(args: &Args, lab: &Lab) -> Vec<String> {
    use crate::lab::StepId;
    let given = [
        ("--from", args.from.is_some(), StepId::Source),
        ("--personas", args.personas.is_some(), StepId::Source),
        (
            "--scenarios-per-persona",
            args.scenarios_per_persona.is_some(),
            StepId::Source,
        ),
        ("--description", args.description.is_some(), StepId::Purpose),
        ("--model", args.model.is_some(), StepId::Model),
        ("--proposer-model", args.proposer_model.is_some(), StepId::Model),
        ("--emulator-model", args.emulator_model.is_some(), StepId::Model),
        ("--judge-model", args.judge_model.is_some(), StepId::Model),
        ("--mcp-config", args.mcp_config.is_some(), StepId::Mcps),
        ("--skill", !args.skill.is_empty(), StepId::Skills),
        ("--sandbox", args.sandbox.is_some(), StepId::Sandbox),
        ("--gate", !args.gates.is_empty(), StepId::Gates),
    ];
    given
        .into_iter()
        .filter(|(_, set, step)| *set && lab.is_completed(*step))
        .map(|(flag, _, step)| {
            format!(
                "{flag} ignored: step {} ({}) was already accepted; go back to it in the terminal wizard to change it",
                step.number(),
                step.title()
            )
        })
        .collect()
}

/// The run-shaping flags: as given, else as this lab was started with (saved when given, so
/// `--resume` runs the same way).
fn run_flags(args: &Args, lab: &Lab) -> Result<RunFlags, CliError> {
    let dir = store::lab_dir(&args.job, &lab.job);
    let given = RunFlags {
        agent_cassette: args.agent_cassette.clone(),
        parallel: args.parallel,
        ..RunFlags::default()
    };
    let saved = if args.resume {
        run_flags::load(&dir).map_err(|e| CliError::from_error(super::error::ErrorKind::BadInput, e))?
    } else {
        None
    };
    if !given.is_empty() {
        run_flags::save(&dir, &given.clone().over(saved.clone()))
            .map_err(|e| CliError::from_error(super::error::ErrorKind::Io, e))?;
    }
    Ok(given.over(saved))
}

fn open_lab(args: &Args) -> Result<Lab, CliError> {
    if !args.resume {
        return Ok(Lab::new());
    }
    let text = crate::util::bounded::read_bounded_string(&args.job, crate::util::bounded::FileKind::Config)
        .map_err(|e| CliError::bad_input(format!("--resume: {e}")).because(e))?;
    let job = crate::spec::parse_job_text(&args.job, &text)?;
    // An edited artifact is never overwritten unasked; a missing one is written again.
    for warning in crate::spec::artifact_refs::verify(&args.job, &job.lab.artifacts)
        .map_err(|e| CliError::from_error(ErrorKind::BadInput, e))?
    {
        eprintln!("warning: {warning}");
    }
    let saved = store::load_saved(&store::lab_dir(&args.job, &job), &job)
        .map_err(|e| CliError::from_error(super::error::ErrorKind::BadInput, e))?;
    Ok(Lab::resume(job, Saved { ..saved }))
}
