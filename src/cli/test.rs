//! `ghostlab test --job J [--repeat K] [--parallel N] [--case ID]… [--partition I/N]
//! [--junit FILE] [--resume] [--run DIR] [--agent-cassette F] [--pdf F]`.
//!
//! Exit codes: 0 every gate met, 1 a gate not met, 2 the run could not happen.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use super::CliError;
use super::generate::block_on;
use crate::judge::facts::contract_facts;
use crate::run::dataset_cases::{Selection, load_cases};
use crate::run::manifest::{Manifest, new_run_id};
use crate::run::setup::{context, start_agent_model};
use crate::run::suite::{SuiteOptions, run_suite};
use crate::spec::SandboxBackend;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[arg(long, default_value = "job.yaml")]
    pub job: PathBuf,
    /// Trials per case (pass^k needs k).
    #[arg(long, default_value_t = 1)]
    pub repeat: u32,
    /// Cases running at once.
    #[arg(long, default_value_t = 4)]
    pub parallel: usize,
    /// Only these cases (repeatable).
    #[arg(long = "case")]
    pub cases: Vec<String>,
    /// Also run cases still pending review.
    #[arg(long)]
    pub include_pending: bool,
    /// Run a deterministic share `I/N` of the cases (for a CI matrix); merge with `ghostlab merge`.
    #[arg(long, value_parser = parse_partition)]
    pub partition: Option<(u32, u32)>,
    /// Also write JUnit XML here.
    #[arg(long)]
    pub junit: Option<PathBuf>,
    /// Run folder (default: a new one under the job's state folder).
    #[arg(long)]
    pub run: Option<PathBuf>,
    /// Skip trials already judged in the run folder (the newest run unless --run is given).
    #[arg(long)]
    pub resume: bool,
    /// Serve the agent's model from this cassette through a local model server.
    #[arg(long)]
    pub agent_cassette: Option<PathBuf>,
    /// Also write the rollout report as PDF here (Markdown and HTML go beside the run).
    #[arg(long)]
    pub pdf: Option<PathBuf>,
    /// No live transcript on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

fn parse_partition(text: &str) -> Result<(u32, u32), String> {
    let (i, n) = text.split_once('/').ok_or("expected I/N, e.g. 2/4")?;
    let (i, n): (u32, u32) = (
        i.parse().map_err(|_| "I is not a number")?,
        n.parse().map_err(|_| "N is not a number")?,
    );
    if n == 0 || i == 0 || i > n {
        return Err(format!("{i}/{n}: I must be between 1 and N"));
    }
    Ok((i, n))
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let job = crate::spec::load_job(&args.job)?;
    let state = job.state_dir();
    let selection = Selection {
        ids: args.cases.clone(),
        include_pending: args.include_pending,
        partition: args.partition,
    };
    let cases = load_cases(&state, &selection).map_err(|e| CliError::usage(format!("{}: {e}", args.job.display())))?;
    if cases.is_empty() {
        return Err(CliError::usage(
            "no cases selected: approve cases with `ghostlab dataset approve --all --job …`, or pass --include-pending",
        ));
    }
    let runs = state.join("runs");
    let run_dir = match (&args.run, args.resume) {
        (Some(d), _) => d.clone(),
        (None, true) => {
            newest_run(&runs).ok_or_else(|| CliError::usage(format!("--resume: no run under {}", runs.display())))?
        }
        (None, false) => runs.join(new_run_id()),
    };
    if job.job.sandbox.backend == SandboxBackend::Local {
        eprintln!(
            "warning: sandbox.backend is `local`: the agent and its tools run on this machine WITHOUT isolation (only the workspace is a copy)"
        );
    }
    let facts = contract_facts(&state).map_err(CliError::usage)?;
    let opts = SuiteOptions {
        repeat: args.repeat,
        parallel: args.parallel,
        resume: args.resume,
    };
    let quiet = args.quiet;
    let outcome = block_on(async {
        let agent_model = match &args.agent_cassette {
            Some(c) => Some(start_agent_model(c).await?),
            None => None,
        };
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<crate::run::Envelope>();
        let printer = tokio::spawn(async move {
            while let Some(env) = rx.recv().await {
                if !quiet {
                    eprintln!("[{}] {}", env.case, env.event.one_line());
                }
            }
        });
        let ctx = context(job.clone(), &run_dir, agent_model.as_ref(), Some(tx)).await?;
        let manifest = Manifest::new(
            &job,
            &run_dir.file_name().unwrap_or_default().to_string_lossy(),
            cases.iter().map(|c| c.id.clone()).collect(),
            opts.repeat,
            args.partition,
            ctx.emulator.label(),
            ctx.judge.label(),
        );
        crate::util::write_json_atomic(&run_dir.join("manifest.json"), &manifest).map_err(|e| e.to_string())?;
        let summary = run_suite(Arc::new(ctx), cases, &opts, &run_dir, facts)
            .await
            .map_err(|e| e.to_string());
        let _ = printer.await;
        if let Some(m) = agent_model {
            let unmatched = m.server.unmatched();
            if !unmatched.is_empty() {
                eprintln!(
                    "note: the agent's model server had no answer for {} request(s): {}",
                    unmatched.len(),
                    unmatched.join(" | ")
                );
            }
            m.server.shutdown().await;
        }
        summary
    })?
    .map_err(CliError::usage)?;
    let s = &outcome.summary;
    println!("run {}", run_dir.display());
    println!(
        "{} case(s), {} trial(s): {} PASS, {} FAIL, {} INCONCLUSIVE, {} INFRA_ERROR · pass@1 {:.1}% · pass^k {:.1}%",
        s.cases,
        s.trials,
        s.pass,
        s.fail,
        s.inconclusive,
        s.infra_error,
        s.pass_at_1 * 100.0,
        s.pass_hat_k * 100.0
    );
    if !s.flaky_cases.is_empty() {
        println!("flaky: {}", s.flaky_cases.join(", "));
    }
    for g in &outcome.gates {
        println!(
            "gate {:<28} required {:<10} actual {:<12} {}",
            g.gate,
            g.required,
            g.actual,
            if g.met { "met" } else { "NOT MET" }
        );
    }
    if let Some(path) = &args.junit {
        std::fs::copy(run_dir.join("junit.xml"), path)
            .map_err(|e| CliError::usage(format!("{}: {e}", path.display())))?;
    }
    let mut outputs = crate::report::ReportOutputs::defaults(&run_dir);
    if let Some(pdf) = &args.pdf {
        outputs.pdf = Some(pdf.clone());
    }
    match crate::report::write_all(&job, &run_dir, &outputs) {
        Ok(paths) => paths.iter().for_each(|p| println!("report {}", p.display())),
        Err(e) => eprintln!("warning: the report could not be written: {e}"),
    }
    println!(
        "readiness: {}",
        if outcome.gates_met {
            "gates met"
        } else {
            "gates NOT met"
        }
    );
    Ok(if outcome.gates_met {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The most recent run folder (run ids sort by time).
fn newest_run(runs: &std::path::Path) -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(runs)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs.pop()
}
