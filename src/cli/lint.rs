//! `ghostlab lint --inventory FILE`: the MCP contract from a saved inventory, offline. SARIF
//! results point where each server is declared in the job's own files (`--job`).

use clap::ValueEnum;
use std::path::PathBuf;

use super::{CliError, ErrorKind, Exit};
use crate::mcp::contract::decisions::{decisions_path, load};
use crate::mcp::contract::sarif::{SarifDecisions, to_sarif};
use crate::mcp::contract::sarif_sources::{default_source_root, sources_for_job};
use crate::mcp::contract::{Severity, build_contract, render_text};
use crate::mcp::inventory::Inventory;

/// Exit 1 when findings at or above `--fail-on` exist, 2 when the inventory cannot be read.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// An inventory.json written by `ghostlab discover`.
    #[arg(long)]
    pub(crate) inventory: PathBuf,
    #[arg(long, value_enum, default_value = "text")]
    pub(crate) format: Format,
    /// Lowest severity that makes the command exit 1.
    #[arg(long, value_enum, default_value = "error")]
    pub(crate) fail_on: FailOn,
    /// Write the report here (atomically) instead of stdout.
    #[arg(long)]
    pub(crate) out: Option<PathBuf>,
    /// The job whose MCP servers the inventory lists (SARIF results point where each server
    /// is declared: its MCP servers file or job.yaml).
    #[arg(long, default_value = "job.yaml")]
    pub(crate) job: PathBuf,
    /// The folder SARIF URIs are relative to (`%SRCROOT%`): by default the git work tree
    /// holding the job, or the job's folder outside git.
    #[arg(long)]
    pub(crate) source_root: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum Format {
    Text,
    Json,
    Sarif,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum FailOn {
    Error,
    Warning,
    Note,
}

pub(crate) fn run(args: Args) -> Result<Exit, CliError> {
    let file = args.inventory.display().to_string();
    let text = crate::util::bounded::read_bounded_string(&args.inventory, crate::util::bounded::FileKind::State)
        .map_err(|e| CliError::from_error(super::error::ErrorKind::Io, e))?;
    let inventory = Inventory::from_json(&text).map_err(|e| CliError::bad_input(format!("{file}: {e}")).because(e))?;
    let contract = build_contract(&inventory);
    let rendered = match args.format {
        Format::Text => render_text(&contract),
        Format::Json => format!("{}\n", serde_json::to_string_pretty(&contract).unwrap_or_default()),
        Format::Sarif => format!(
            "{}\n",
            serde_json::to_string_pretty(&sarif(&args, &contract, &inventory_json(&text, &file)?)?).unwrap_or_default()
        ),
    };
    match &args.out {
        Some(path) => crate::util::write_atomic(path, rendered.as_bytes())?,
        None => super::out::say_raw!("{rendered}"),
    }
    let level = match args.fail_on {
        FailOn::Error => Severity::Error,
        FailOn::Warning => Severity::Warning,
        FailOn::Note => Severity::Note,
    };
    Ok(if contract.has_findings_at(level) {
        Exit::NotMet
    } else {
        Exit::Success
    })
}

/// The SARIF log of `contract`, located in the job's files under the source root.
fn sarif(
    args: &Args,
    contract: &crate::mcp::contract::Contract,
    inventory: &serde_json::Value,
) -> Result<serde_json::Value, CliError> {
    if !args.job.is_file() {
        return Err(CliError::missing(format!(
            "{}: not found; SARIF results point where each server is declared, so `--format sarif` needs the job (--job)",
            args.job.display()
        )));
    }
    let job = crate::spec::load_job(&args.job)?;
    let root = args
        .source_root
        .clone()
        .unwrap_or_else(|| default_source_root(&job.file));
    let sources = sources_for_job(&job, &root).map_err(|e| CliError::from_error(ErrorKind::BadInput, e))?;
    // Accepted and waived findings are marked suppressed, with the reason.
    let decisions =
        load(&decisions_path(&job.file)).map_err(|e| CliError::from_error(super::error::ErrorKind::BadInput, e))?;
    let decided = SarifDecisions {
        decisions: Some(&decisions),
        inventory: Some(inventory),
    };
    to_sarif(contract, &sources, decided)
        .map_err(|e| CliError::bad_input(format!("{}: {e}", args.inventory.display())).because(e))
}

/// The inventory as JSON, for the evidence a decision was taken on.
fn inventory_json(text: &str, file: &str) -> Result<serde_json::Value, CliError> {
    serde_json::from_str(text).map_err(|e| CliError::bad_input(format!("{file}: {e}")).because(e))
}
