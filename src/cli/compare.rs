//! `ghostlab compare RUN_A RUN_B [--json]`.

use std::path::PathBuf;

use super::{CliError, Exit};
use crate::judge::compare::{ALPHA, compare_runs};
use crate::run::suite::SuiteSummary;

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The baseline run folder (holding summary.json).
    pub(crate) run_a: PathBuf,
    /// The run to compare with it.
    pub(crate) run_b: PathBuf,
    #[arg(long)]
    pub(crate) json: bool,
}

fn read(dir: &std::path::Path) -> Result<SuiteSummary, CliError> {
    let path = dir.join("summary.json");
    // A summary of a newer Ghostlab (or without a version) is refused, naming the file.
    let doc = crate::util::format_version::read_checked(&path, "summary.json", crate::run::suite::SUMMARY_VERSION)
        .map_err(|e| CliError::from_error(super::error::ErrorKind::BadInput, e))?
        .ok_or_else(|| CliError::missing(format!("{}: not found", path.display())))?;
    serde_json::from_value(doc)
        .map_err(|e| CliError::bad_input(format!("{}: not a run summary: {e}", path.display())).because(e))
}

pub(crate) fn run(args: Args) -> Result<Exit, CliError> {
    let (a, b) = (read(&args.run_a)?, read(&args.run_b)?);
    let c = compare_runs(&a.cases, &b.cases);
    if args.json {
        super::out::say!("{}", serde_json::to_string_pretty(&c).expect("comparison serializes"));
        return Ok(Exit::Success);
    }
    let side = |label: &str, run_id: &str, pass: usize, trials: usize| {
        let rate = if trials == 0 {
            0.0
        } else {
            100.0 * pass as f64 / trials as f64
        };
        super::out::say!("{label} {run_id}: {pass}/{trials} trials pass ({rate:.1}%)");
    };
    side("A", &a.run_id, c.passes_a, c.trials_a);
    side("B", &b.run_id, c.passes_b, c.trials_b);
    super::out::say!(
        "Fisher's exact test (two-sided): p = {:.4} → {}",
        c.p_value,
        if c.beyond_noise {
            format!("the change is beyond noise (p < {ALPHA})")
        } else {
            format!("within noise (p ≥ {ALPHA})")
        }
    );
    for ch in &c.changes {
        super::out::say!(
            "  {}: {} → {}",
            ch.case_id,
            ch.before.as_deref().unwrap_or("absent"),
            ch.after.as_deref().unwrap_or("absent")
        );
    }
    Ok(Exit::Success)
}
