//! The key hints on the last row: what the keys do on the screen shown now.

use super::ui_state::Ui;
use crate::lab::dashboard_state::Screen;
use crate::lab::{Discovery, Lab, Phase, RunOutcome};

/// The key hints for the current screen.
pub(crate) fn key_hints(lab: &Lab, ui: &Ui) -> String {
    if let Some(bulk) = &ui.bulk {
        return format!("{}? y yes · any other key no", bulk.what);
    }
    let hints = screen_hints(lab, ui);
    match &ui.feedback {
        Some(done) => format!("✓ {done} · {hints}"),
        None => hints,
    }
}

fn screen_hints(lab: &Lab, ui: &Ui) -> String {
    if ui.help {
        return "any key closes the help".into();
    }
    if lab.confirm_quit {
        return "y quit (accepted steps are saved) · n stay".into();
    }
    if ui.hint.is_some() {
        return "Enter regenerate with this hint · Esc cancel".into();
    }
    if let Phase::Running { dashboard, .. } = &lab.phase
        && dashboard.confirm_cancel
    {
        return "y cancel the run · n keep running".into();
    }
    let back = if lab.step.prev().is_some_and(|p| lab.is_completed(p)) {
        " · b back"
    } else {
        ""
    };
    match &lab.phase {
        Phase::Proposing { .. } => "Esc cancel · Ctrl-C quit".into(),
        Phase::Deciding { confirm: Some(_), .. } => "Enter confirm · Esc back out · Ctrl-C quit".into(),
        Phase::Deciding { .. } if super::review_keys::hints(lab).is_some() && ui.search.is_some() => {
            super::list_search::hint(ui).unwrap_or_default()
        }
        Phase::Deciding { .. } if super::review_keys::hints(lab).is_some() => {
            format!("{}{back} · ^C quit", super::review_keys::hints(lab).unwrap_or_default())
        }
        Phase::Deciding { proposal, .. } => {
            let mut keys = vec!["Enter accept"];
            if proposal.editable {
                keys.push("e edit");
                keys.push("r regen");
                keys.push("h regen+hint");
            }
            if lab.discovery.values().any(|d| *d == Discovery::Pending) {
                keys.push("Esc skip discovery");
            }
            keys.push("↑↓ scroll");
            format!("{}{back} · ? help · ^C quit", keys.join(" · "))
        }
        Phase::Editing { .. } if lab.review.editing.is_some() => {
            "Ctrl-S save this item · Esc cancel edit · Ctrl-C quit".into()
        }
        Phase::Editing { .. } => "Ctrl-S save & accept · Esc cancel edit · Ctrl-C quit".into(),
        Phase::Failed { .. } => format!("r retry · h regenerate with hint{back} · Ctrl-C quit"),
        Phase::Running { outcome: None, .. } => {
            "↑↓ case · PgUp/Dn scroll · Enter expand · f follow · p pin · Esc cancel run · ? help · Ctrl-C quit".into()
        }
        Phase::Running {
            outcome: Some(RunOutcome::Report(_)),
            dashboard,
            ..
        } if dashboard.screen == Screen::Results => {
            "↑↓ scroll · Tab finding · a accept · w waive · o open report · d dashboard · ? help · q quit".into()
        }
        Phase::Running {
            outcome: Some(RunOutcome::Report(_)),
            ..
        } => "↑↓ case · PgUp/Dn scroll · Enter expand · f follow · p pin · r results · o open report · ? help · q quit"
            .into(),
        Phase::Running { .. } => "↑↓ case · f follow · p pin · q quit".into(),
    }
}
