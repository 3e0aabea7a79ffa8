//! The interactive driver: one loop selecting over terminal input, the effect channel and a
//! spinner tick; only this loop draws.

use futures::StreamExt;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc::unbounded_channel;

use crossterm::event::{Event as TermEvent, EventStream, KeyEventKind};

use super::intent::Intent;
use super::keymap::on_key;
use super::stderr::StderrToFile;
use super::terminal::TerminalGuard;
use super::theme::Theme;
use super::ui_state::Ui;
use super::view::draw;
use crate::lab::{Event, Executor, Lab, LabError, McpDiscovery, Phase, RunOutcome, StepProposer, SuiteRunner};

/// Why the TUI stopped with an error.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TuiError {
    #[error("terminal error: {0}")]
    Terminal(#[from] std::io::Error),
    #[error(transparent)]
    Lab(#[from] LabError),
}

/// How the session ended.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum TuiOutcome {
    /// The person quit; accepted steps are saved.
    Quit { completed: usize },
    /// The run finished.
    Finished(RunOutcome),
}

/// Runs the wizard in the terminal until the person quits or the run ends and they leave.
pub(crate) async fn run_tui(
    mut lab: Lab,
    proposer: StepProposer,
    discovery: Arc<dyn McpDiscovery>,
    runner: Arc<dyn SuiteRunner>,
    theme: Theme,
    stderr_log: Option<PathBuf>,
) -> Result<TuiOutcome, TuiError> {
    // Declared before the guard so it is dropped after the terminal is restored.
    let _stderr = match &stderr_log {
        Some(path) => Some(StderrToFile::redirect(path)?),
        None => None,
    };
    let mut guard = TerminalGuard::enter()?;
    let (tx, mut rx) = unbounded_channel();
    let mut exec = Executor::new(proposer, discovery, runner, tx);
    let mut ui = Ui::default();
    let mut input = EventStream::new();
    let mut tick = tokio::time::interval(Duration::from_millis(120));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut quit = feed(&mut lab, &mut ui, &mut exec, Event::Start)?;
    while !quit {
        guard.terminal.draw(|f| draw(f, &lab, &ui, &theme))?;
        tokio::select! {
            Some(event) = rx.recv() => quit = feed(&mut lab, &mut ui, &mut exec, event)?,
            _ = tick.tick() => {
                if matches!(lab.phase, Phase::Proposing { .. } | Phase::Running { outcome: None, .. }) {
                    quit = feed(&mut lab, &mut ui, &mut exec, Event::Tick)?;
                }
                // The live run's clock moves between events (elapsed, ETA).
                if matches!(lab.phase, Phase::Running { outcome: None, .. }) {
                    quit |= feed(&mut lab, &mut ui, &mut exec, Event::Clock(chrono::Utc::now()))?;
                }
            }
            term = input.next() => match term {
                Some(Ok(TermEvent::Key(key))) if key.kind != KeyEventKind::Release => {
                    match on_key(key, &lab, &mut ui) {
                        Intent::Lab(event) => quit = feed(&mut lab, &mut ui, &mut exec, event)?,
                        Intent::Exit => quit = true,
                        Intent::OpenReport => {
                            if let Phase::Running { outcome: Some(RunOutcome::Report(r)), .. } = &lab.phase {
                                ui.run_notice = Some(super::results::open_report(r));
                            }
                        }
                        Intent::Ui | Intent::None => {}
                    }
                }
                Some(Ok(TermEvent::Mouse(m))) => {
                    if let Intent::Lab(event) = super::keymap::on_mouse(m, &lab, &mut ui) {
                        quit = feed(&mut lab, &mut ui, &mut exec, event)?;
                    }
                }
                // Resize and the rest: the next draw lays out for the new size.
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(e.into()),
                None => break,
            },
        }
    }
    drop(guard);
    Ok(match &lab.phase {
        Phase::Running {
            outcome: Some(outcome), ..
        } if !lab.quit => TuiOutcome::Finished(outcome.clone()),
        _ => TuiOutcome::Quit {
            completed: lab.job.lab.completed.len(),
        },
    })
}

/// Feeds one event through the lab and performs its effects; true when it is time to quit.
fn feed(lab: &mut Lab, ui: &mut Ui, exec: &mut Executor, event: Event) -> Result<bool, LabError> {
    let mut quit = false;
    for effect in lab.handle(event) {
        quit |= exec.perform(effect)?;
    }
    ui.sync(lab);
    Ok(quit)
}
