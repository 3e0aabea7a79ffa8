//! One role's tokens and model calls over a run, and how the report words them.

use serde::Serialize;

/// One role's figures summed over the run's trials.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RoleSpend {
    pub role: String,
    pub calls: u64,
    pub tokens: u64,
    /// Trials in which this role did model work but recorded no usage for it.
    pub unrecorded_trials: u32,
    /// The role used no model in this run (the offline emulator or judge).
    pub offline: bool,
}

impl RoleSpend {
    /// Every call and token of this role is known.
    pub(crate) fn known(&self) -> bool {
        self.unrecorded_trials == 0
    }

    /// `1830 tokens in 2 calls`, `none (offline)`, or `unknown (…)`; never a made-up 0.
    pub(crate) fn shown(&self) -> String {
        let counted = format!("{} tokens in {}", self.tokens, calls(self.calls));
        match (self.known(), self.calls) {
            (true, 0) if self.offline => "none (offline)".into(),
            (true, _) => counted,
            (false, 0) => format!("unknown (not recorded in {})", trials(self.unrecorded_trials)),
            (false, _) => format!(
                "unknown (at least {counted}; not recorded in {})",
                trials(self.unrecorded_trials)
            ),
        }
    }
}

fn calls(n: u64) -> String {
    if n == 1 { "1 call".into() } else { format!("{n} calls") }
}

fn trials(n: u32) -> String {
    if n == 1 {
        "1 trial".into()
    } else {
        format!("{n} trials")
    }
}
