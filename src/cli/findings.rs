//! `ghostlab findings list|accept|waive --job J`: people's decisions on the MCP contract's
//! findings, stored beside the job (`<job>.decisions.json`) and honoured by the gates until the
//! finding's evidence changes.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::CliError;
use crate::mcp::contract::Contract;
use crate::mcp::contract::decisions::{
    Decision, Standing, Verdict, decisions_path, evidence_digest, finding_id, load, save, standing,
};
use crate::util::bounded::{FileKind, read_bounded_string, read_optional_string};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub action: Action,
}

#[derive(Debug, clap::Subcommand)]
pub enum Action {
    /// Show every finding of the job's contract with its id and standing.
    List(ListArgs),
    /// Accept findings: they are right, and the risk is taken knowingly.
    Accept(DecideArgs),
    /// Waive findings: they do not apply here.
    Waive(DecideArgs),
}

#[derive(Debug, clap::Args)]
pub struct ListArgs {
    #[arg(long, default_value = "job.yaml")]
    pub job: PathBuf,
}

#[derive(Debug, clap::Args)]
pub struct DecideArgs {
    #[arg(long, default_value = "job.yaml")]
    pub job: PathBuf,
    /// Finding ids (see `findings list`), e.g. `GL020:release/publish_release@1a2b3c`.
    #[arg(required = true)]
    pub findings: Vec<String>,
    /// Why: stored with the decision and shown in the report.
    #[arg(long)]
    pub reason: String,
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    match args.action {
        Action::List(a) => list(&a.job),
        Action::Accept(a) => decide(a, Verdict::Accepted),
        Action::Waive(a) => decide(a, Verdict::Waived),
    }
}

/// The job's contract and inventory (as JSON, for the evidence digests).
fn contract_of(job: &Path) -> Result<(Contract, Option<serde_json::Value>), CliError> {
    let state = crate::spec::load_job(job)?.state_dir();
    let path = state.join("contract.json");
    let text = match read_optional_string(&path, FileKind::State) {
        Ok(Some(t)) => t,
        Ok(None) => {
            return Err(CliError::usage(format!(
                "{}: no contract yet; run `ghostlab discover --job {}` first",
                path.display(),
                job.display()
            )));
        }
        Err(e) => return Err(CliError::usage(format!("{}: {}", path.display(), e.reason()))),
    };
    let contract: Contract =
        serde_json::from_str(&text).map_err(|e| CliError::usage(format!("{}: {e}", path.display())))?;
    let inventory_path = state.join("inventory.json");
    let inventory = read_bounded_string(&inventory_path, FileKind::State)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok());
    Ok((contract, inventory))
}

fn list(job: &Path) -> Result<ExitCode, CliError> {
    let (contract, inventory) = contract_of(job)?;
    let decisions = load(&decisions_path(job)).map_err(|e| CliError::usage(e.to_string()))?;
    for f in &contract.findings {
        let state = match standing(f, inventory.as_ref(), &decisions) {
            Standing::Open => "open".to_string(),
            Standing::Decided(d) => format!("{} by {} ({})", as_word(d.decision), d.who, d.reason),
            Standing::Expired(d) => format!(
                "{} by {}, EXPIRED: the finding's evidence changed",
                as_word(d.decision),
                d.who
            ),
        };
        println!("{}  {:?}  {}  [{state}]", finding_id(f), f.severity, f.message);
    }
    println!("{} finding(s)", contract.findings.len());
    Ok(ExitCode::SUCCESS)
}

fn decide(args: DecideArgs, verdict: Verdict) -> Result<ExitCode, CliError> {
    if args.reason.trim().is_empty() {
        return Err(CliError::usage("--reason must say why (it is shown in the report)"));
    }
    let (contract, inventory) = contract_of(&args.job)?;
    let path = decisions_path(&args.job);
    // One decision command at a time per folder, so concurrent ones do not lose each other.
    let folder = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let _lock = crate::util::folder_lock::lock_folder(folder).map_err(|e| CliError::usage(e.to_string()))?;
    let mut decisions = load(&path).map_err(|e| CliError::usage(e.to_string()))?;
    let mut new = Vec::new();
    for id in &args.findings {
        let Some(f) = contract.findings.iter().find(|f| &finding_id(f) == id) else {
            // Nothing is written when any id is wrong: a typo must not half-apply.
            return Err(CliError::usage(format!(
                "no finding `{id}` in the job's contract; `ghostlab findings list --job {}` shows the ids",
                args.job.display()
            )));
        };
        new.push(Decision {
            finding: id.clone(),
            decision: verdict,
            reason: args.reason.trim().to_string(),
            who: who(),
            when: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            evidence: evidence_digest(f, inventory.as_ref()),
        });
    }
    decisions.decisions.extend(new);
    save(&path, &decisions).map_err(|e| CliError::usage(e.to_string()))?;
    println!(
        "{} finding(s) {} in {}",
        args.findings.len(),
        as_word(verdict),
        path.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn as_word(v: Verdict) -> &'static str {
    match v {
        Verdict::Accepted => "accepted",
        Verdict::Waived => "waived",
    }
}

/// Who decided: the login name, as the environment gives it.
fn who() -> String {
    ["GHOSTLAB_USER", "USER", "LOGNAME"]
        .iter()
        .find_map(|k| std::env::var(k).ok().filter(|v| !v.trim().is_empty()))
        .unwrap_or_else(|| "unknown".into())
}
