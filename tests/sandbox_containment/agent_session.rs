//! The probes that run one after another in one agent session of the job's sandbox (network
//! disabled, tight limits), as a table: each entry is a probe name and a check that runs it.
//! The families live in their own files; this one holds what they share.

use std::path::PathBuf;

use futures::future::LocalBoxFuture;
use ghostlab::sandbox::{ExecOptions, ExecOutput, Session};

use super::{Row, row, sh, summary};

#[path = "agent_host_data.rs"]
mod agent_host_data;
#[path = "agent_limits.rs"]
pub mod agent_limits;
#[path = "agent_reach.rs"]
mod agent_reach;

/// What every agent-session probe can use.
pub struct AgentCtx {
    pub session: Session,
    /// The job's folder (the user's checkout).
    pub checkout: PathBuf,
    /// The canaries' secret.
    pub secret: String,
    /// The value of the env canary set in this process (`SECRET_VAR`).
    pub secret_env: String,
    /// The /home folder holding `canary.txt`, where one could be planted.
    pub planted_home: Option<PathBuf>,
    pub root_canary: Option<PathBuf>,
}

impl AgentCtx {
    /// Runs `script` with `sh -c` in the agent session.
    async fn run(&self, script: &str) -> ExecOutput {
        self.session
            .exec(&sh(script), &ExecOptions::default(), None)
            .await
            .unwrap()
    }

    fn checkout_path(&self) -> String {
        self.checkout.display().to_string()
    }

    /// Whether the network watch recorded a denied attempt to reach `host`.
    fn recorded(&self, host: &str) -> bool {
        self.session.denials().iter().any(|d| d.host == host)
    }

    /// Flushes and deletes the session; returns its log.
    pub async fn close(self) -> String {
        self.session.flush_log().unwrap();
        let log = std::fs::read_to_string(self.session.log_path()).unwrap_or_default();
        self.session.delete().await.unwrap();
        log
    }
}

pub type Check = for<'a> fn(&'a AgentCtx, &'static str) -> LocalBoxFuture<'a, Row>;

/// The table, in the order the probes run: host data, then reach (network, host processes,
/// environment), then limits.
pub fn probes() -> impl Iterator<Item = &'static (&'static str, Check)> {
    agent_host_data::PROBES
        .iter()
        .chain(agent_reach::PROBES)
        .chain(agent_limits::PROBES)
}

/// Runs every probe of the table.
pub async fn rows(ctx: &AgentCtx) -> Vec<Row> {
    let mut out = Vec::new();
    for (name, check) in probes() {
        out.push(check(ctx, name).await);
    }
    out
}

/// A probe the sandbox holds when `script` fails.
async fn refused(ctx: &AgentCtx, name: &'static str, script: &str) -> Row {
    let o = ctx.run(script).await;
    row(name, "denied", summary(&o), o.status != 0)
}
