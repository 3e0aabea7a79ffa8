//! Discovering every MCP server of a job concurrently, each under its own timeouts; a broken
//! server becomes an error entry naming it and the reason, never a stop for the others.
//!
//! Progress goes through a callback so this module never prints.

use futures::future::join_all;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::client::{ConnectOptions, Endpoint, connect};
use super::headers::{HeaderError, expand};
use super::inventory::{INVENTORY_VERSION, Inventory, ServerInventory, ServerStatus, collect};
use super::launcher::{LaunchSpec, Launcher};
use crate::spec::agent_inputs::RemoteTransport;
use crate::spec::{McpTransport, ResolvedMcp};

/// Default bound on startup and on each request when the job sets no `timeout`.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// A state change of one server, for progress lines.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Progress {
    Starting {
        transport: &'static str,
    },
    Listing,
    Done {
        tools: usize,
        resources: usize,
        prompts: usize,
        elapsed: Duration,
    },
    Failed {
        reason: String,
        elapsed: Duration,
    },
    Disabled,
}

/// How discovery runs.
#[derive(Clone)]
pub(crate) struct DiscoverOptions {
    /// Starts stdio servers (host or sandbox).
    pub(crate) launcher: Arc<dyn Launcher>,
    /// Overrides every server's timeout when set.
    pub(crate) timeout: Option<Duration>,
    /// Folder for the servers' stderr logs.
    pub(crate) log_dir: Option<PathBuf>,
}

/// The connection target of a resolved server; fails when a stdio env value references an
/// unset variable.
pub(crate) fn endpoint_of(mcp: &ResolvedMcp) -> Result<Endpoint, HeaderError> {
    Ok(match &mcp.transport {
        McpTransport::Stdio { command, cwd, env } => Endpoint::Stdio(LaunchSpec {
            argv: command.clone(),
            env: resolve_env(env)?,
            cwd: cwd.clone(),
        }),
        McpTransport::Remote { url, headers, kind } => match kind {
            RemoteTransport::StreamableHttp => Endpoint::StreamableHttp {
                url: url.clone(),
                headers: headers.clone(),
            },
            RemoteTransport::Sse => Endpoint::Sse {
                url: url.clone(),
                headers: headers.clone(),
            },
        },
    })
}

/// Expands `${VAR}` in a stdio server's env values from the environment, for the child's
/// environment only; an unset variable is an error naming the key.
fn resolve_env(env: &indexmap::IndexMap<String, String>) -> Result<indexmap::IndexMap<String, String>, HeaderError> {
    env.iter()
        .map(|(k, v)| Ok((k.clone(), expand(k, v, &|var| std::env::var(var).ok())?)))
        .collect()
}

/// Discovers one server; never fails, a failure is an entry with `status: error`.
pub(crate) async fn discover_one(
    mcp: &ResolvedMcp,
    opts: &DiscoverOptions,
    progress: &(dyn Fn(&str, Progress) + Sync),
) -> ServerInventory {
    let kind = match &mcp.transport {
        McpTransport::Stdio { .. } => "stdio",
        McpTransport::Remote {
            kind: RemoteTransport::Sse,
            ..
        } => "sse",
        McpTransport::Remote { .. } => "streamable-http",
    };
    let mut entry = ServerInventory::empty(&mcp.name, kind, ServerStatus::Ok);
    if !mcp.enabled {
        entry.status = ServerStatus::Disabled;
        progress(&mcp.name, Progress::Disabled);
        return entry;
    }
    let timeout = opts
        .timeout
        .or(mcp.timeout_ms.map(Duration::from_millis))
        .unwrap_or(DEFAULT_TIMEOUT);
    let connect_opts = ConnectOptions {
        startup_timeout: timeout,
        request_timeout: timeout,
        stderr_log: opts
            .log_dir
            .as_ref()
            .map(|d| d.join(format!("mcp-{}.stderr.log", safe_file_name(&mcp.name)))),
    };
    progress(&mcp.name, Progress::Starting { transport: kind });
    let started = Instant::now();
    let result = async {
        let endpoint = endpoint_of(mcp)?;
        let mut client = connect(&endpoint, opts.launcher.as_ref(), &connect_opts).await?;
        progress(&mcp.name, Progress::Listing);
        let listed = collect(&mut client, &mut entry).await;
        client.close().await;
        listed
    }
    .await;
    let elapsed = started.elapsed();
    entry.elapsed_ms = elapsed.as_millis() as u64;
    match result {
        Ok(()) => progress(
            &mcp.name,
            Progress::Done {
                tools: entry.tools.len(),
                resources: entry.resources.len(),
                prompts: entry.prompts.len(),
                elapsed,
            },
        ),
        Err(e) => {
            let reason = format!("server `{}`: {e}", mcp.name);
            entry.status = ServerStatus::Error;
            entry.error = Some(reason.clone());
            progress(&mcp.name, Progress::Failed { reason, elapsed });
        }
    }
    entry
}

/// Discovers all servers concurrently, in declaration order in the result.
pub(crate) async fn discover_all(
    mcps: &[ResolvedMcp],
    opts: &DiscoverOptions,
    progress: &(dyn Fn(&str, Progress) + Sync),
) -> Inventory {
    let servers = join_all(mcps.iter().map(|m| discover_one(m, opts, progress))).await;
    Inventory {
        version: INVENTORY_VERSION,
        generated_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        servers,
    }
}

/// A server name made safe for a file name.
fn safe_file_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The names job.yaml's `capabilities` keeps for one server.
pub(crate) fn capabilities_of(server: &ServerInventory) -> crate::spec::job::Capabilities {
    crate::spec::job::Capabilities {
        tools: server.tools.iter().map(|t| t.name.clone()).collect(),
        resources: server.resources.iter().map(|r| r.uri.clone()).collect(),
        prompts: server.prompts.iter().map(|p| p.name.clone()).collect(),
    }
}

/// Writes the inventory to `<state_dir>/inventory.json` atomically; returns its path.
pub(crate) fn write_inventory(state_dir: &Path, inventory: &Inventory) -> std::io::Result<PathBuf> {
    let path = state_dir.join("inventory.json");
    crate::util::write_json_atomic(&path, inventory)?;
    Ok(path)
}
