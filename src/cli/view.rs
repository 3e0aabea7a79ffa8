//! `ghostlab view [RUN]`: the run dashboard and results screens over a stored run (the newest
//! of `--job` by default), read-only; `--json` prints what it would show, for scripts.

use crossterm::event::{Event as TermEvent, KeyEventKind};
use std::io::IsTerminal;
use std::path::PathBuf;

use super::{CliError, Exit};
use crate::judge::verdict_findings::VerdictFinding;
use crate::lab::dashboard_state::{Filter, Nav};
use crate::lab::stored_run::{load_run, pick_run};
use crate::lab::view_findings::{JobPaths, view_findings};
use crate::run::results::run_findings::run_findings;
use crate::trial::Verdict;
use crate::tui::run_view::{ViewIntent, ViewUi, draw_view, on_view_key, on_view_mouse};
use crate::tui::terminal::TerminalGuard;
use crate::tui::{Theme, results::open_report};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// A run folder, or a run id under the job's runs folder; the newest run by default.
    pub(crate) run: Option<PathBuf>,
    /// The job whose runs to look in when RUN is not a folder.
    #[arg(long, default_value = "job.yaml")]
    pub(crate) job: PathBuf,
    /// Print the cases (after the filters) and the results as JSON instead of drawing.
    #[arg(long)]
    pub(crate) json: bool,
    /// Only trials with this verdict: pass, fail, inconclusive, infra-error, in any case and as
    /// the screens spell them (`FAIL`, `INFRA_ERROR`).
    #[arg(long, value_enum, ignore_case = true)]
    pub(crate) verdict: Option<VerdictArg>,
    /// Only trials of this persona id.
    #[arg(long)]
    pub(crate) persona: Option<String>,
    /// Only trials whose case, persona, scenario or transcript mentions this text.
    #[arg(long)]
    pub(crate) search: Option<String>,
    /// Color theme: default, light, high-contrast (NO_COLOR turns colors off).
    #[arg(long, default_value = "default")]
    pub(crate) theme: String,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub(crate) enum VerdictArg {
    Pass,
    Fail,
    Inconclusive,
    #[value(alias = "infra_error")]
    InfraError,
}

impl From<VerdictArg> for Verdict {
    fn from(v: VerdictArg) -> Self {
        match v {
            VerdictArg::Pass => Verdict::Pass,
            VerdictArg::Fail => Verdict::Fail,
            VerdictArg::Inconclusive => Verdict::Inconclusive,
            VerdictArg::InfraError => Verdict::InfraError,
        }
    }
}

pub(crate) fn run(args: Args) -> Result<Exit, CliError> {
    let given_dir = args.run.as_deref().filter(|p| p.is_dir());
    // The job finds the run unless a folder is given; `--json` also reads its decisions and
    // contract, and shows a run folder given without a job all the same (with a note).
    let job = match given_dir {
        Some(_) if !(args.json && args.job.is_file()) => None,
        _ => Some(crate::spec::load_job(&args.job)?),
    };
    let dir = match (given_dir, &job) {
        (Some(d), _) => d.to_path_buf(),
        (None, None) => return Err(CliError::usage(format!("{}: no job", args.job.display()))),
        (None, Some(job)) => pick_run(args.run.as_deref(), &job.state_dir()).ok_or_else(|| match &args.run {
            Some(r) => CliError::usage(format!("{}: no such run folder or run id", r.display())),
            None => CliError::missing(format!(
                "no runs of {} yet: run `ghostlab test` or `ghostlab lab` first",
                args.job.display()
            )),
        })?,
    };
    let mut run = load_run(&dir).map_err(|e| CliError::from_error(super::error::ErrorKind::BadInput, e))?;
    run.navigate(Nav::SetFilter(Filter {
        verdict: args.verdict.map(Verdict::from),
        persona: args.persona.clone(),
        text: args.search.clone().unwrap_or_default(),
    }));
    if args.json {
        let mut dump = run.dump(&dir);
        // Verdict findings of the trials the filter shows; the contract's always.
        let shown: Vec<VerdictFinding> = run_findings(&dir)
            .into_iter()
            .filter(|f| dump.trials.iter().any(|t| t.case == f.case && t.trial == f.trial))
            .collect();
        let paths = job.as_ref().map(|j| (j.file.clone(), j.state_dir()));
        let job_paths = paths.as_ref().map(|(file, state_dir)| JobPaths { file, state_dir });
        dump.findings =
            view_findings(job_paths, &shown).map_err(|e| CliError::from_error(super::error::ErrorKind::BadInput, e))?;
        let text =
            serde_json::to_string_pretty(&dump).map_err(|e| CliError::from_error(super::error::ErrorKind::Io, e))?;
        super::out::say!("{text}");
        return Ok(Exit::Success);
    }
    if !(std::io::stdin().is_terminal() && std::io::stdout().is_terminal()) {
        return Err(CliError::usage(
            "ghostlab view needs a terminal; pass --json to print what it shows",
        ));
    }
    let theme = Theme::load(&args.theme).map_err(|e| CliError::from_error(super::error::ErrorKind::BadInput, e))?;
    let mut guard = TerminalGuard::enter()?;
    let mut ui = ViewUi::default();
    loop {
        guard.terminal.draw(|f| draw_view(f, &run, &ui, &theme))?;
        match crossterm::event::read()? {
            TermEvent::Key(key) if key.kind != KeyEventKind::Release => match on_view_key(key, &mut run, &mut ui) {
                ViewIntent::Quit => break,
                ViewIntent::OpenReport => ui.notice = run.results.as_ref().map(open_report),
                ViewIntent::Changed | ViewIntent::None => {}
            },
            TermEvent::Mouse(m) => {
                on_view_mouse(m, &mut run, &ui);
            }
            _ => {}
        }
    }
    Ok(Exit::Success)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        args: Args,
    }

    /// The parsed filter, or `None` when clap refused the spelling.
    fn verdict(given: &str) -> Option<Option<Verdict>> {
        Cli::try_parse_from(["view", "--verdict", given])
            .map(|c| c.args.verdict.map(Verdict::from))
            .ok()
    }

    #[test]
    fn verdict_filter_accepts_the_spelling_the_screens_show_in_any_case() {
        assert_eq!(verdict("FAIL"), Some(Some(Verdict::Fail)));
        assert_eq!(verdict("Pass"), Some(Some(Verdict::Pass)));
        assert_eq!(verdict("inconclusive"), Some(Some(Verdict::Inconclusive)));
        assert_eq!(verdict("INFRA_ERROR"), Some(Some(Verdict::InfraError)));
        assert_eq!(verdict("Infra-Error"), Some(Some(Verdict::InfraError)));
        assert_eq!(verdict("passed"), None, "an unknown verdict is still refused");
    }
}
