//! A low-level MCP client on rmcp: connect over stdio or streamable HTTP with a startup
//! timeout, then list or call with a per-request timeout.
//!
//! rmcp has no initialize timeout, so every await on the peer here is bounded. Header values
//! are resolved from `${VAR}` references at connect time and never logged or returned.

use indexmap::IndexMap;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, ClientConfig};
use rmcp::service::{RoleClient, RunningService, ServiceError};
use serde_json::Value;
use std::future::Future;
use std::path::PathBuf;
use std::time::Duration;

use super::headers::{HeaderError, resolve_headers};
use super::launcher::{LaunchSpec, Launcher};
use super::stdio::{SpawnError, StdioChild, spawn};

/// Where a server lives.
#[derive(Debug, Clone)]
pub enum Endpoint {
    /// A local child process speaking MCP on stdin/stdout.
    Stdio(LaunchSpec),
    /// A streamable-HTTP server; header values may hold `${VAR}` references.
    StreamableHttp {
        url: String,
        headers: IndexMap<String, String>,
    },
    /// A legacy HTTP+SSE server (MCP 2024-11-05); header values may hold `${VAR}` references.
    Sse {
        url: String,
        headers: IndexMap<String, String>,
    },
}

impl Endpoint {
    /// `stdio`, `streamable-http` or `sse`.
    pub fn kind(&self) -> &'static str {
        match self {
            Endpoint::Stdio(_) => "stdio",
            Endpoint::StreamableHttp { .. } => "streamable-http",
            Endpoint::Sse { .. } => "sse",
        }
    }
}

/// Timeouts and log location for one connection.
#[derive(Debug, Clone)]
pub struct ConnectOptions {
    /// Bound on spawn + `initialize`.
    pub startup_timeout: Duration,
    /// Bound on each request after initialize.
    pub request_timeout: Duration,
    /// Where a stdio server's stderr goes (drained either way).
    pub stderr_log: Option<PathBuf>,
}

impl Default for ConnectOptions {
    fn default() -> Self {
        ConnectOptions {
            startup_timeout: Duration::from_secs(30),
            request_timeout: Duration::from_secs(30),
            stderr_log: None,
        }
    }
}

/// Why talking to a server failed; messages carry what the server did (exit status, stray
/// stdout, stderr tail) but never a header value.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    #[error(transparent)]
    Spawn(#[from] SpawnError),
    #[error(transparent)]
    Header(#[from] HeaderError),
    #[error("the server did not answer `initialize` within {}; {detail}", secs(*.after))]
    StartupTimeout { after: Duration, detail: String },
    #[error("`initialize` failed: {reason}{}", with_detail(.detail))]
    Initialize { reason: String, detail: String },
    #[error("`{method}` did not answer within {}{}", secs(*.after), with_detail(.detail))]
    RequestTimeout {
        method: &'static str,
        after: Duration,
        detail: String,
    },
    #[error("`{method}` failed: {reason}{}", with_detail(.detail))]
    Request {
        method: &'static str,
        reason: String,
        detail: String,
    },
}

/// rmcp error text without the Rust type names it embeds (`Transport [rmcp::…] error:`).
fn tidy(reason: String) -> String {
    static TYPE_NOISE: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"Transport \[[^\]]*\] error: ").expect("valid regex"));
    TYPE_NOISE.replace_all(&reason, "transport error: ").into_owned()
}

fn secs(d: Duration) -> String {
    format!("{:.1}s", d.as_secs_f64())
}

fn with_detail(detail: &str) -> String {
    if detail.is_empty() {
        String::new()
    } else {
        format!("; {detail}")
    }
}

/// A connected MCP server. Dropping it kills a stdio server's process group.
pub struct McpClient {
    service: RunningService<RoleClient, ClientConfig>,
    child: Option<StdioChild>,
    /// Keeps a legacy SSE session's HTTP legs alive.
    sse: Option<super::sse::SseSession>,
    request_timeout: Duration,
}

/// The client identity sent in `initialize`.
fn client_info() -> ClientConfig {
    let mut info = ClientConfig::default();
    info.client_info.name = "ghostlab".into();
    info.client_info.version = env!("CARGO_PKG_VERSION").into();
    info
}

/// Connects to `endpoint`, starting stdio servers through `launcher`.
pub async fn connect(
    endpoint: &Endpoint,
    launcher: &dyn Launcher,
    opts: &ConnectOptions,
) -> Result<McpClient, McpError> {
    match endpoint {
        Endpoint::Stdio(spec) => {
            let (mut child, reader, writer) = spawn(launcher, spec, opts.stderr_log.clone())?;
            let started = tokio::time::timeout(opts.startup_timeout, client_info().serve((reader, writer))).await;
            match started {
                Ok(Ok(service)) => Ok(McpClient {
                    service,
                    child: Some(child),
                    sse: None,
                    request_timeout: opts.request_timeout,
                }),
                Ok(Err(e)) => {
                    let detail = child.explain().await;
                    Err(McpError::Initialize {
                        reason: e.to_string(),
                        detail,
                    })
                }
                Err(_) => {
                    let detail = child.explain().await;
                    child.kill();
                    Err(McpError::StartupTimeout {
                        after: opts.startup_timeout,
                        detail,
                    })
                }
            }
        }
        Endpoint::StreamableHttp { url, headers } => {
            use rmcp::transport::StreamableHttpClientTransport;
            use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
            let resolved = resolve_headers(headers)?;
            crate::util::tls::ensure_crypto_provider();
            let config = StreamableHttpClientTransportConfig::with_uri(url.as_str()).custom_headers(resolved);
            let transport = StreamableHttpClientTransport::from_config(config);
            let started = tokio::time::timeout(opts.startup_timeout, client_info().serve(transport)).await;
            match started {
                Ok(Ok(service)) => Ok(McpClient {
                    service,
                    child: None,
                    sse: None,
                    request_timeout: opts.request_timeout,
                }),
                Ok(Err(e)) => Err(McpError::Initialize {
                    reason: tidy(e.to_string()),
                    detail: String::new(),
                }),
                Err(_) => Err(McpError::StartupTimeout {
                    after: opts.startup_timeout,
                    detail: format!("no answer from {url}"),
                }),
            }
        }
        Endpoint::Sse { url, headers } => {
            let resolved = resolve_headers(headers)?;
            let started = tokio::time::timeout(opts.startup_timeout, async {
                let (reader, writer, session) =
                    super::sse::open(url, resolved)
                        .await
                        .map_err(|e| McpError::Initialize {
                            reason: e.to_string(),
                            detail: String::new(),
                        })?;
                let diag = session.diag.clone();
                match client_info().serve((reader, writer)).await {
                    Ok(service) => Ok((service, session)),
                    Err(e) => Err(McpError::Initialize {
                        reason: tidy(e.to_string()),
                        detail: diag.get().unwrap_or_default(),
                    }),
                }
            })
            .await;
            match started {
                Ok(Ok((service, session))) => Ok(McpClient {
                    service,
                    child: None,
                    sse: Some(session),
                    request_timeout: opts.request_timeout,
                }),
                Ok(Err(e)) => Err(e),
                Err(_) => Err(McpError::StartupTimeout {
                    after: opts.startup_timeout,
                    detail: format!("no answer from {url}"),
                }),
            }
        }
    }
}

impl McpClient {
    /// The server's `initialize` result (server info, protocol version, capabilities,
    /// instructions) as MCP JSON.
    pub(crate) fn initialize_result(&self) -> Value {
        self.service
            .peer_info()
            .and_then(|info| serde_json::to_value(&*info).ok())
            .unwrap_or(Value::Null)
    }

    /// Runs one request with the per-request timeout and turns failures into messages.
    async fn timed<T, F>(&mut self, method: &'static str, fut: F) -> Result<T, McpError>
    where
        F: Future<Output = Result<T, ServiceError>>,
    {
        let outcome = tokio::time::timeout(self.request_timeout, fut).await;
        match outcome {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => {
                let detail = match self.child.as_mut() {
                    Some(c) if matches!(e, ServiceError::TransportClosed | ServiceError::TransportSend(_)) => {
                        c.explain().await
                    }
                    _ => self.sse.as_ref().and_then(|s| s.diag.get()).unwrap_or_default(),
                };
                let reason = match e {
                    // rmcp says only "Unexpected response type" when a result fails MCP's types.
                    ServiceError::UnexpectedResponse => {
                        "the answer does not fit MCP's result type (malformed result, e.g. a tool whose inputSchema is not an object)".to_string()
                    }
                    other => tidy(other.to_string()),
                };
                Err(McpError::Request { method, reason, detail })
            }
            Err(_) => {
                let detail = match self.child.as_mut() {
                    Some(c) => c.explain().await,
                    None => String::new(),
                };
                Err(McpError::RequestTimeout {
                    method,
                    after: self.request_timeout,
                    detail,
                })
            }
        }
    }

    /// Every tool (all pages), as MCP JSON.
    pub async fn list_tools(&mut self) -> Result<Vec<Value>, McpError> {
        let peer = self.service.peer().clone();
        let tools = self.timed("tools/list", peer.list_all_tools()).await?;
        Ok(tools.iter().filter_map(|t| serde_json::to_value(t).ok()).collect())
    }

    /// Every resource (all pages), as MCP JSON.
    pub(crate) async fn list_resources(&mut self) -> Result<Vec<Value>, McpError> {
        let peer = self.service.peer().clone();
        let items = self.timed("resources/list", peer.list_all_resources()).await?;
        Ok(items.iter().filter_map(|t| serde_json::to_value(t).ok()).collect())
    }

    /// Every resource template (all pages), as MCP JSON.
    pub(crate) async fn list_resource_templates(&mut self) -> Result<Vec<Value>, McpError> {
        let peer = self.service.peer().clone();
        let items = self
            .timed("resources/templates/list", peer.list_all_resource_templates())
            .await?;
        Ok(items.iter().filter_map(|t| serde_json::to_value(t).ok()).collect())
    }

    /// Every prompt (all pages), as MCP JSON.
    pub(crate) async fn list_prompts(&mut self) -> Result<Vec<Value>, McpError> {
        let peer = self.service.peer().clone();
        let items = self.timed("prompts/list", peer.list_all_prompts()).await?;
        Ok(items.iter().filter_map(|t| serde_json::to_value(t).ok()).collect())
    }

    /// Calls one tool with JSON object arguments; returns the `CallToolResult` as JSON.
    pub async fn call_tool(
        &mut self,
        name: &str,
        args: Option<serde_json::Map<String, Value>>,
    ) -> Result<Value, McpError> {
        let mut params = CallToolRequestParams::new(name.to_string());
        if let Some(a) = args {
            params = params.with_arguments(a);
        }
        let peer = self.service.peer().clone();
        let result = self.timed("tools/call", peer.call_tool(params)).await?;
        Ok(serde_json::to_value(&result).unwrap_or(Value::Null))
    }

    /// Ends the session: a bounded close, then the process group is killed.
    pub async fn close(mut self) {
        let _ = self.service.close_with_timeout(Duration::from_secs(2)).await;
        if let Some(c) = self.child.as_mut() {
            c.finish(Duration::from_secs(5)).await;
        }
    }
}
