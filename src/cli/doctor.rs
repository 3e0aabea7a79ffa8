//! `ghostlab doctor`: which sandbox backends work on this machine, and why not.

use super::{CliError, Exit};
use crate::sandbox::doctor::{Probe, leftover_sessions, probe_bubblewrap, probe_cgroups, probe_openshell};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {}

pub(crate) fn run(_args: Args) -> Result<Exit, CliError> {
    let rt = crate::util::runtime::multi_thread()?;
    let (bw, os) = rt.block_on(async { (probe_bubblewrap().await, probe_openshell().await) });
    print_probe(&bw);
    print_probe(&os);
    super::out::say!("local: available only when selected explicitly (no isolation; never a fallback)");
    super::out::say!("{}", probe_cgroups());
    super::out::say!("{}", leftover_sessions());
    if bw.works || os.works {
        Ok(Exit::Success)
    } else {
        Err(CliError::missing("no isolating sandbox backend works on this machine"))
    }
}

fn print_probe(p: &Probe) {
    let verdict = if p.works { "OK" } else { "NOT AVAILABLE" };
    super::out::say!("{}: {verdict} — {}", p.backend, p.detail);
    if let Some(fix) = &p.fix {
        super::out::say!("  fix: {fix}");
    }
}
