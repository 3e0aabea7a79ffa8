//! What the library does for a person, each as one call that both front ends share: the CLI
//! turns arguments into settings and prints; the lab turns wizard answers into settings and
//! shows. Nothing here prints.

pub mod run_results;
pub(crate) mod test_run;

pub use run_results::{FirstFailure, RunResults, TrialResult};
pub use test_run::TestRunError;
pub(crate) use test_run::{TestSettings, run_tests};
