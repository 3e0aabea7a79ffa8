//! The terminal driver of `ghostlab lab`: ratatui + crossterm drawing of the `crate::lab` state
//! machine, themes, key map, the review screens, the run dashboard and the results screen.
//!
//! Views are pure functions of state; this module holds no wizard logic and never writes files
//! itself (the shared `lab::Executor` does).

pub(crate) mod app;
pub mod dashboard;
pub(crate) mod footer;
pub mod help;
#[cfg(test)]
mod help_tests;
pub mod intent;
mod key_hints;
pub mod keymap;
pub(crate) mod list_search;
pub(crate) mod panel;
pub(crate) mod personas;
pub(crate) mod profile_view;
pub mod results;
pub mod review_keys;
pub mod run_view;
pub mod scenarios;
pub(crate) mod scroll;
pub(crate) mod stderr;
mod step_panel;
pub(crate) mod terminal;
pub mod theme;
pub(crate) mod transcript;
pub mod ui_state;
pub(crate) mod view;

pub(crate) use app::{TuiOutcome, run_tui};
pub use theme::{Theme, ThemeError};
pub use ui_state::Ui;
pub use view::draw;
