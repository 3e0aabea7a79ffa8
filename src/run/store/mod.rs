//! The run folder on disk: its layout (`RunDir`, `TrialDir`), the replay manifest, each
//! trial's event log, and the commit that turns a finished trial into its stored artifacts.

pub mod event_log;
pub mod events_file;
pub mod manifest;
pub mod run_dir;
pub(super) mod trial_commit;
pub(super) mod trial_committer;
