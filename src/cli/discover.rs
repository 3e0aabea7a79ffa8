//! `ghostlab discover --job J`: discover every MCP server of the job, write inventory.json and
//! contract.json, refresh `capabilities` in job.yaml.

use std::path::PathBuf;
use std::time::Duration;

use super::{CliError, Exit};
use crate::mcp::contract::build_contract;
use crate::mcp::discover::{DiscoverOptions, Progress, capabilities_of, discover_all, write_inventory};
use crate::mcp::inventory::ServerStatus;

/// Exit 0 when every enabled server was discovered, 2 when one failed (files are written anyway).
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Local stdio servers start inside a session of the job's sandbox (on the host only with an \
explicit `sandbox.backend: local`). Each server has its own timeout; a broken one becomes an error \
entry and the others are still discovered. Exit 0 when every enabled server was discovered, 2 otherwise \
(inventory.json and contract.json are written either way)."
)]
pub(crate) struct Args {
    /// The job file.
    #[arg(long, default_value = "job.yaml")]
    pub(crate) job: PathBuf,
    /// Bound on each server's startup and on each request, overriding the job (`10s`).
    #[arg(long)]
    pub(crate) timeout: Option<String>,
}

fn line(name: &str, p: Progress) {
    let state = match p {
        Progress::Starting { transport } => format!("starting ({transport})"),
        Progress::Listing => "connected, listing".to_string(),
        Progress::Done {
            tools,
            resources,
            prompts,
            elapsed,
        } => {
            format!(
                "ok: {tools} tools, {resources} resources, {prompts} prompts in {} ms",
                elapsed.as_millis()
            )
        }
        Progress::Failed { reason, elapsed } => format!("FAILED after {} ms: {reason}", elapsed.as_millis()),
        Progress::Disabled => "disabled, skipped".to_string(),
    };
    eprintln!("[{name}] {state}");
}

pub(crate) fn run(args: Args) -> Result<Exit, CliError> {
    let timeout = match &args.timeout {
        None => None,
        Some(t) => Some(
            crate::util::units::parse_duration(t)
                .ok_or_else(|| CliError::usage(format!("--timeout: cannot read {t:?} as a duration")))?,
        ),
    };
    let loaded = crate::spec::load_job(&args.job)?;
    let state_dir = loaded.state_dir();
    let rt = crate::util::runtime::multi_thread()?;
    let (launcher, session) = rt
        .block_on(crate::mcp::sandboxed::launcher_for_job(&loaded, state_dir.join("logs")))
        .map_err(|e| CliError::bad_input(format!("{}: sandbox: {e}", args.job.display())).because(e))?;
    eprintln!("starting stdio servers through: {}", launcher.label());
    let opts = DiscoverOptions {
        launcher,
        timeout,
        log_dir: Some(state_dir.join("logs")),
    };
    let inventory = rt.block_on(discover_all(&loaded.mcps, &opts, &line));
    drop(opts);
    rt.block_on(crate::mcp::sandboxed::close_session(session));
    rt.shutdown_timeout(Duration::from_secs(1));

    let inv_path = write_inventory(&state_dir, &inventory)?;
    let contract = build_contract(&inventory);
    let contract_path = state_dir.join("contract.json");
    crate::util::write_json_atomic(&contract_path, &contract)?;

    let mut job = loaded.job.clone();
    let names: Vec<&str> = loaded.mcps.iter().map(|m| m.name.as_str()).collect();
    job.capabilities.retain(|k, _| names.contains(&k.as_str()));
    for server in inventory.servers.iter().filter(|s| s.status == ServerStatus::Ok) {
        job.capabilities.insert(server.name.clone(), capabilities_of(server));
    }
    if job.capabilities != loaded.job.capabilities {
        crate::spec::save_job(&loaded.file, &job)?;
    }
    let failed: Vec<&str> = inventory
        .servers
        .iter()
        .filter(|s| s.status == ServerStatus::Error)
        .map(|s| s.name.as_str())
        .collect();
    let s = &contract.summary;
    super::out::say!(
        "wrote {} and {} ({} errors, {} warnings, {} notes)",
        inv_path.display(),
        contract_path.display(),
        s.error,
        s.warning,
        s.note
    );
    if failed.is_empty() {
        Ok(Exit::Success)
    } else {
        Err(CliError::peer(format!("discovery failed for: {}", failed.join(", "))))
    }
}
