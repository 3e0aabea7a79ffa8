//! `ghostlab lint --inventory FILE`: the MCP contract from a saved inventory, offline.

use clap::ValueEnum;
use std::path::PathBuf;
use std::process::ExitCode;

use super::CliError;
use crate::mcp::contract::sarif::to_sarif;
use crate::mcp::contract::{Severity, build_contract, render_text};
use crate::mcp::inventory::Inventory;

/// Exit 1 when findings at or above `--fail-on` exist, 2 when the inventory cannot be read.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// An inventory.json written by `ghostlab discover`.
    #[arg(long)]
    pub inventory: PathBuf,
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
    /// Lowest severity that makes the command exit 1.
    #[arg(long, value_enum, default_value = "error")]
    pub fail_on: FailOn,
    /// Write the report here (atomically) instead of stdout.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Format {
    Text,
    Json,
    Sarif,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum FailOn {
    Error,
    Warning,
    Note,
}

pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let file = args.inventory.display().to_string();
    let text = crate::util::bounded::read_bounded_string(&args.inventory, crate::util::bounded::FileKind::State)
        .map_err(|e| CliError::usage(e.to_string()))?;
    let inventory = Inventory::from_json(&text).map_err(|e| CliError::usage(format!("{file}: {e}")))?;
    let contract = build_contract(&inventory);
    let rendered = match args.format {
        Format::Text => render_text(&contract),
        Format::Json => format!("{}\n", serde_json::to_string_pretty(&contract).unwrap_or_default()),
        Format::Sarif => format!(
            "{}\n",
            serde_json::to_string_pretty(&to_sarif(&contract, &file)).unwrap_or_default()
        ),
    };
    match &args.out {
        Some(path) => crate::util::write_atomic(path, rendered.as_bytes())?,
        None => print!("{rendered}"),
    }
    let level = match args.fail_on {
        FailOn::Error => Severity::Error,
        FailOn::Warning => Severity::Warning,
        FailOn::Note => Severity::Note,
    };
    Ok(if contract.has_findings_at(level) {
        ExitCode::from(super::error::EXIT_NOT_MET)
    } else {
        ExitCode::SUCCESS
    })
}
