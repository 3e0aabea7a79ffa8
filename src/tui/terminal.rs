//! Entering and leaving the terminal's raw, alternate-screen mode with mouse reporting (wheel,
//! clicks). A RAII guard restores it on every exit path, and a panic hook restores it before
//! the panic message is printed.

use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use std::io::{Stdout, stdout};

use crossterm::ExecutableCommand;
use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::terminal::{EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode};

/// Owns the terminal while the wizard runs; dropping it gives the terminal back.
pub(crate) struct TerminalGuard {
    pub(crate) terminal: Terminal<CrosstermBackend<Stdout>>,
}

impl TerminalGuard {
    /// Switches to raw mode, the alternate screen and mouse reporting.
    pub(crate) fn enter() -> std::io::Result<Self> {
        install_panic_hook();
        enable_raw_mode()?;
        if let Err(e) = stdout()
            .execute(EnterAlternateScreen)
            .and_then(|o| o.execute(EnableMouseCapture))
        {
            restore();
            return Err(e);
        }
        let terminal = match Terminal::new(CrosstermBackend::new(stdout())) {
            Ok(t) => t,
            Err(e) => {
                restore();
                return Err(e);
            }
        };
        Ok(TerminalGuard { terminal })
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        let _ = self.terminal.show_cursor();
        restore();
    }
}

/// Best-effort restore; safe to call more than once.
pub(crate) fn restore() {
    super::stderr::restore_stderr();
    let _ = stdout().execute(DisableMouseCapture);
    let _ = disable_raw_mode();
    let _ = stdout().execute(LeaveAlternateScreen);
    let _ = stdout().execute(crossterm::cursor::Show);
}

fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            // The UI loop runs on the main thread; a panic in a worker task is caught and
            // reported as a failed step, and must not tear the screen down under a live UI.
            if std::thread::current().name() == Some("main") {
                restore();
            }
            previous(info);
        }));
    });
}
