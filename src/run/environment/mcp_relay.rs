//! Keeps each stdio MCP server out of the agent's sandbox: the agent host is configured to
//! start `ghostlab __mcp-connect --socket /run/ghostlab-mcp/<n>.sock` instead of the server;
//! every connection to that socket starts the real server as a separate command of the same
//! session (its own bubblewrap: own PID namespace, same workspace copy, the session narrowed to
//! [`relay_scope`]) with the server's declared environment resolved here, and pipes the bytes
//! both ways.
//!
//! So the agent cannot read the server's `/proc/<pid>/environ` or `/proc/<pid>/mem` (the
//! process does not exist in its PID namespace), and the server's credentials never pass
//! through the agent's environment or its config file.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::net::{UnixListener, UnixStream};
use tokio::task::JoinHandle;

use crate::mcp::client::Endpoint;
use crate::mcp::discover::endpoint_of;
use crate::mcp::launcher::LaunchSpec;
use crate::sandbox::{Area, Capability, ExecOptions, HostPort, Scope, Session, bwrap};
use crate::spec::resolved::{McpTransport, ResolvedMcp};

/// What a relayed server may use: the workspace copy (file tools work on what the agent edits),
/// the session's runtimes and inputs, its credentials, and the hosts the job declares for the
/// sandbox (`server_hosts`: `sandbox.allow` and the remote MCP hosts) — not the agent's model
/// endpoints; its own HOME and TMPDIR instead of the agent's (which hold the agent host's
/// login and its warm-mode socket), uploads read-only, no agent config, no other server's
/// relay socket.
pub fn relay_scope(session: Scope, server_hosts: &[HostPort]) -> Scope {
    session
        .hide(Area::Home)
        .hide(Area::Tmp)
        .read_only(Area::Uploads)
        .without(Capability::AgentConfig)
        .without(Capability::McpRelay)
        .allow_only(server_hosts)
}

/// The relay of one session: one listening socket per stdio server.
pub struct McpRelay {
    /// server name → the agent-side command.
    commands: HashMap<String, Vec<String>>,
    tasks: Vec<JoinHandle<()>>,
}

/// Why a relay or one of its servers could not start. The socket errors name the socket.
#[derive(Debug, thiserror::Error)]
pub enum RelayError {
    #[error("MCP relay socket {}: {source}", path.display())]
    Socket {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The server's declared environment or headers could not be resolved.
    #[error(transparent)]
    Endpoint(crate::mcp::headers::HeaderError),
    #[error("not a stdio server")]
    NotStdio,
    /// The session refused the server's command (its scope is not within the session's).
    #[error(transparent)]
    Command(#[from] crate::sandbox::SandboxError),
    #[error("{0}")]
    Spawn(#[source] std::io::Error),
}

impl McpRelay {
    /// Starts listening for every stdio server of `mcps`, each started in `scope` of the
    /// session (see [`relay_scope`]). Needs the ghostlab executable inside the session;
    /// without it (or for other backends) there is no relay and the agent host starts its
    /// servers itself.
    pub fn start(session: &Arc<Session>, mcps: &[ResolvedMcp], scope: Scope) -> Result<Option<McpRelay>, RelayError> {
        let Some(exe) = session.relay_exe().map(|p| p.to_string_lossy().into_owned()) else {
            return Ok(None);
        };
        let mut relay = McpRelay {
            commands: HashMap::new(),
            tasks: Vec::new(),
        };
        for (i, mcp) in mcps.iter().enumerate() {
            if !matches!(mcp.transport, McpTransport::Stdio { .. }) {
                continue;
            }
            let host = session.mcp_socket_dir().join(format!("{i}.sock"));
            let socket_error = |source| RelayError::Socket {
                path: host.clone(),
                source,
            };
            let listener = UnixListener::bind(&host).map_err(socket_error)?;
            share_socket(&host, session.owner()).map_err(socket_error)?;
            let inside = format!("{}/{i}.sock", bwrap::MCP_SOCKETS_INSIDE);
            relay.commands.insert(
                mcp.name.clone(),
                vec![exe.clone(), "__mcp-connect".into(), "--socket".into(), inside],
            );
            session.note(&format!(
                "MCP relay: server `{}` runs in its own sandbox command (own PID namespace; scope: {scope}); the agent reaches it through {}",
                mcp.name,
                host.display()
            ));
            relay.tasks.push(tokio::spawn(accept_loop(
                listener,
                Arc::downgrade(session),
                mcp.clone(),
                scope.clone(),
            )));
        }
        Ok(Some(relay))
    }

    /// The command the agent host runs for `server`, if it is relayed.
    pub fn command_for(&self, server: &str) -> Option<Vec<String>> {
        self.commands.get(server).cloned()
    }

    /// Stops accepting; running servers end when their connection closes or the session is
    /// deleted.
    pub fn stop(&self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

impl Drop for McpRelay {
    fn drop(&mut self) {
        self.stop();
    }
}

fn share_socket(path: &std::path::Path, owner: Option<(u32, u32)>) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    if let Some((u, g)) = owner {
        std::os::unix::fs::lchown(path, Some(u), Some(g))?;
    }
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
}

/// At most this many connections per relayed server are served at once: each starts a
/// sandboxed server and host threads, and the agent can connect as often as it likes. An
/// agent host opens one per server (a few with subagents).
pub const MAX_RELAYED: usize = 8;
/// Back-off after a failed accept (EMFILE…), doubling up to the maximum: the loop must not
/// end for good, nor spin.
const ACCEPT_BACKOFF: (Duration, Duration) = (Duration::from_millis(5), Duration::from_secs(1));

async fn accept_loop(listener: UnixListener, session: Weak<Session>, mcp: ResolvedMcp, scope: Scope) {
    let active = Arc::new(AtomicUsize::new(0));
    let mut backoff = ACCEPT_BACKOFF.0;
    // Connections refused since the last one served (one log line per episode).
    let mut refused = 0u64;
    loop {
        let accepted = listener.accept().await;
        let Some(session) = session.upgrade() else { return };
        let conn = match accepted {
            Ok((conn, _)) => conn,
            Err(e) => {
                if backoff == ACCEPT_BACKOFF.0 {
                    session.note(&format!(
                        "MCP relay: server `{}`: accept failed ({e}); retrying",
                        mcp.name
                    ));
                }
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(ACCEPT_BACKOFF.1);
                continue;
            }
        };
        backoff = ACCEPT_BACKOFF.0;
        if active.load(Ordering::SeqCst) >= MAX_RELAYED {
            refused += 1;
            if refused == 1 {
                session.note(&format!(
                    "MCP relay REFUSED connection: server `{}` already serves {MAX_RELAYED} connections (the cap); \
                     further refusals are counted",
                    mcp.name
                ));
            }
            drop(conn);
            continue;
        }
        if refused > 0 {
            session.note(&format!(
                "MCP relay: server `{}`: {refused} connection(s) refused over the cap",
                mcp.name
            ));
            refused = 0;
        }
        match spawn_server(&session, &mcp, &scope) {
            Ok(child) => {
                session.note(&format!("MCP relay: server `{}` started for a connection", mcp.name));
                active.fetch_add(1, Ordering::SeqCst);
                let slot = Slot(active.clone());
                tokio::spawn(async move {
                    pipe(conn, child).await;
                    drop(slot);
                });
            }
            Err(reason) => {
                session.note(&format!("MCP relay: server `{}` could not start: {reason}", mcp.name));
                // Closing the connection is what the agent host sees: the server exited.
                drop(conn);
            }
        }
    }
}

/// One served connection; its end frees the place.
struct Slot(Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

fn spawn_server(session: &Session, mcp: &ResolvedMcp, scope: &Scope) -> Result<tokio::process::Child, RelayError> {
    let spec: LaunchSpec = match endpoint_of(mcp).map_err(RelayError::Endpoint)? {
        Endpoint::Stdio(spec) => spec,
        _ => return Err(RelayError::NotStdio),
    };
    let opts = ExecOptions {
        workdir: spec.cwd.as_ref().map(|c: &PathBuf| c.to_string_lossy().into_owned()),
        env: spec.env,
        timeout: None,
    };
    let mut cmd = session.command_in(scope, &spec.argv, &opts)?;
    cmd.stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    cmd.spawn().map_err(RelayError::Spawn)
}

async fn pipe(conn: UnixStream, mut child: tokio::process::Child) {
    let (Some(mut stdin), Some(mut stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return;
    };
    let (mut rd, mut wr) = conn.into_split();
    let up = async {
        let _ = tokio::io::copy(&mut rd, &mut stdin).await;
        let _ = stdin.shutdown().await;
    };
    let down = async {
        let _ = tokio::io::copy(&mut stdout, &mut wr).await;
        let _ = wr.shutdown().await;
    };
    // Either side ending ends the server: the agent host closed it, or it exited.
    tokio::select! {
        _ = up => {}
        _ = down => {}
    }
    let _ = child.start_kill();
    let _ = child.wait().await;
}
