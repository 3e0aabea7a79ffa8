//! The terminal driver of `ghostlab lab`: ratatui + crossterm drawing of the `crate::lab` state
//! machine, themes, key map, the review screens, the run dashboard and the results screen.
//!
//! Views are pure functions of state; this module holds no wizard logic and never writes files
//! itself (the shared `lab::Executor` does).

pub mod app;
pub mod dashboard;
pub mod footer;
pub mod help;
#[cfg(test)]
mod help_tests;
pub mod intent;
mod key_hints;
pub mod keymap;
pub mod list_search;
pub mod panel;
pub mod personas;
pub mod profile_view;
pub mod results;
pub mod review_keys;
pub mod run_view;
pub mod scenarios;
pub mod scroll;
pub mod stderr;
mod step_panel;
pub mod terminal;
pub mod theme;
pub mod transcript;
pub mod ui_state;
pub mod view;

pub use app::{TuiError, TuiOutcome, run_tui};
pub use theme::{Theme, ThemeError};
pub use ui_state::Ui;
pub use view::draw;
