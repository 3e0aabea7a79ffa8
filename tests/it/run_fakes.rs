//! Named fakes of a finished run's typed results, for state and snapshot tests that never run
//! a suite.

use ghostlab::app::RunResults;
use ghostlab::app::run_results::ReadinessLine;
use ghostlab::judge::{GateResult, Summary};
use std::path::PathBuf;

/// A fake finished run in `run_dir` with one `min_pass_rate` gate, met or not.
pub fn fake_results(run_dir: &str, gates_met: bool) -> RunResults {
    let summary = Summary {
        cases: 1,
        trials: 1,
        pass: usize::from(gates_met),
        fail: usize::from(!gates_met),
        ..Summary::default()
    };
    let run = PathBuf::from(run_dir);
    RunResults {
        run_id: run
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        line: format!(
            "1 case(s), 1 trial(s): {} PASS, {} FAIL, 0 INCONCLUSIVE, 0 INFRA_ERROR · gates {}",
            summary.pass,
            summary.fail,
            if gates_met { "met" } else { "NOT met" }
        ),
        counts: summary,
        gates: vec![GateResult {
            gate: "min_pass_rate".into(),
            required: "≥ 90.0%".into(),
            actual: if gates_met { "100.0%" } else { "0.0%" }.into(),
            met: gates_met,
            figures: None,
        }],
        gates_met,
        readiness: ReadinessLine {
            ready: gates_met,
            label: if gates_met { "READY" } else { "NOT READY" }.into(),
            reasons: vec![],
        },
        trials: vec![],
        reports: vec![run.join("report.md"), run.join("report.html")],
        report_error: None,
        run_dir: run,
    }
}
