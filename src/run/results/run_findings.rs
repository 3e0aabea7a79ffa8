//! The verdict findings of a stored run (`judge::verdict_findings`), read from each finished
//! trial's verdict.json and case.json: what `ghostlab findings` and `view --json` list.

use std::path::Path;

use crate::judge::verdict_findings::{VerdictFinding, trial_findings};
use crate::run::store::run_dir::RunDir;
use crate::run::suite::read_verdict;
use crate::trial::CaseSpec;

/// Every verdict finding of the finished trials in `run_dir`, in trial order. A trial without a
/// readable verdict.json or case.json has none here (`report` and `view` name such trials).
pub(crate) fn run_findings(run_dir: &Path) -> Vec<VerdictFinding> {
    let mut out = Vec::new();
    for t in RunDir::new(run_dir).trials() {
        let Some(v) = read_verdict(&t.verdict()) else {
            continue;
        };
        let Some(case) = read_case(&t.case_file()) else {
            continue;
        };
        out.extend(trial_findings(&v, &case));
    }
    out
}

/// A trial's case.json; `None` when absent or unreadable.
pub(crate) fn read_case(path: &Path) -> Option<CaseSpec> {
    let text = crate::util::bounded::read_bounded_string(path, crate::util::bounded::FileKind::State).ok()?;
    serde_json::from_str(&text).ok()
}
