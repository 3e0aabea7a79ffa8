//! `ghostlab inspect --stdio CMD… | --url URL`: the low-level direct MCP client.
//!
//! Runs the server on the host, unsandboxed; for debugging servers, not for testing agents.

use indexmap::IndexMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use super::{CliError, Exit};
use crate::mcp::contract::{effect_of, label_tool};
use crate::mcp::inventory::{ServerInventory, ServerStatus, collect};
use crate::mcp::{ConnectOptions, Endpoint, HostLauncher, LaunchSpec, Launcher, connect};

/// List what one MCP server exposes, or call one of its tools.
///
/// Runs on the HOST, UNSANDBOXED: the server gets your user's rights and environment.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("server").required(true).args(["stdio", "url"])))]
pub(crate) struct Args {
    /// Start a stdio server: the command and its arguments (put this option last).
    #[arg(long, num_args = 1.., allow_hyphen_values = true, value_name = "CMD")]
    pub(crate) stdio: Vec<String>,
    /// Connect to a streamable-HTTP server (or a legacy SSE one with `--sse`).
    #[arg(long)]
    pub(crate) url: Option<String>,
    /// `--url` is a legacy HTTP+SSE endpoint (MCP 2024-11-05), not streamable HTTP.
    #[arg(long, requires = "url")]
    pub(crate) sse: bool,
    /// An HTTP header `K=V`; write secrets as `${VAR}` in single quotes so the shell leaves them
    /// for Ghostlab to resolve at connect time: `--header 'Authorization=Bearer ${TOKEN}'`.
    #[arg(long = "header", value_name = "K=V")]
    pub(crate) headers: Vec<String>,
    /// Working directory of a stdio server.
    #[arg(long)]
    pub(crate) cwd: Option<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub(crate) json: bool,
    /// Call this tool after listing.
    #[arg(long, value_name = "NAME")]
    pub(crate) call: Option<String>,
    /// Arguments of `--call`, a JSON object.
    #[arg(long, value_name = "JSON", requires = "call")]
    pub(crate) args: Option<String>,
    /// Bound on startup and on each request (`30s`, `500ms`).
    #[arg(long, default_value = "30s")]
    pub(crate) timeout: String,
    /// Write the server's stderr to this file (it is drained either way).
    #[arg(long)]
    pub(crate) stderr_log: Option<PathBuf>,
}

pub(crate) fn run(args: Args) -> Result<Exit, CliError> {
    let timeout = crate::util::units::parse_duration(&args.timeout)
        .ok_or_else(|| CliError::usage(format!("--timeout: cannot read {:?} as a duration", args.timeout)))?;
    let endpoint = endpoint(&args)?;
    let call_args = match &args.args {
        None => None,
        Some(text) => match serde_json::from_str::<serde_json::Value>(text) {
            Ok(serde_json::Value::Object(m)) => Some(m),
            Ok(_) => return Err(CliError::usage("--args must be a JSON object")),
            Err(e) => return Err(CliError::usage(format!("--args is not valid JSON: {e}")).because(e)),
        },
    };
    let opts = ConnectOptions {
        startup_timeout: timeout,
        request_timeout: timeout,
        stderr_log: args.stderr_log.clone(),
    };
    let rt = crate::util::runtime::multi_thread()?;
    let launcher: Arc<dyn Launcher> = Arc::new(HostLauncher);
    let outcome = rt.block_on(async {
        let mut client = connect(&endpoint, launcher.as_ref(), &opts).await?;
        let mut entry = ServerInventory::empty("inspect", endpoint.kind(), ServerStatus::Ok);
        let listed = collect(&mut client, &mut entry).await;
        let called = match (&listed, &args.call) {
            (Ok(()), Some(name)) => Some(client.call_tool(name, call_args).await),
            _ => None,
        };
        client.close().await;
        listed.map(|()| (entry, called))
    });
    rt.shutdown_timeout(Duration::from_secs(1));
    let (entry, called) = outcome.map_err(|e| CliError::peer(format!("inspect: {e}")).because(e))?;
    let called = called
        .transpose()
        .map_err(|e| CliError::peer(format!("inspect: {e}")).because(e))?;
    if args.json {
        let mut v = serde_json::to_value(&entry).map_err(|e| CliError::from_error(super::error::ErrorKind::Io, e))?;
        if let Some(c) = called {
            v["callResult"] = c;
        }
        super::out::say!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
    } else {
        print_text(&entry);
        if let Some(c) = called {
            super::out::say!(
                "\ncall result:\n{}",
                serde_json::to_string_pretty(&c).unwrap_or_default()
            );
        }
    }
    Ok(Exit::Success)
}

fn endpoint(args: &Args) -> Result<Endpoint, CliError> {
    if !args.stdio.is_empty() {
        return Ok(Endpoint::Stdio(LaunchSpec {
            argv: args.stdio.clone(),
            env: IndexMap::new(),
            cwd: args.cwd.clone(),
        }));
    }
    let url = args
        .url
        .clone()
        .ok_or_else(|| CliError::usage("give --stdio CMD… or --url URL"))?;
    let mut headers = IndexMap::new();
    for h in &args.headers {
        let (k, v) = h.split_once('=').ok_or_else(|| {
            CliError::usage(format!(
                "--header {:?}: expected K=V",
                h.split('=').next().unwrap_or("")
            ))
        })?;
        headers.insert(k.trim().to_string(), v.to_string());
    }
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        Err(CliError::usage(format!("--url {url:?} is not an http(s) URL")))
    } else if args.sse {
        Ok(Endpoint::Sse { url, headers })
    } else {
        Ok(Endpoint::StreamableHttp { url, headers })
    }
}

fn print_text(e: &ServerInventory) {
    let info = e.server_info.clone().unwrap_or_default();
    super::out::say!(
        "server {} {} (protocol {})",
        info.get("name").and_then(|v| v.as_str()).unwrap_or("?"),
        info.get("version").and_then(|v| v.as_str()).unwrap_or("?"),
        e.protocol_version.as_deref().unwrap_or("?")
    );
    if let Some(c) = &e.capabilities {
        super::out::say!("capabilities: {c}");
    }
    super::out::say!("\ntools ({}):", e.tools.len());
    for t in &e.tools {
        let labels = label_tool(t);
        let names: Vec<String> = labels
            .iter()
            .map(|l| {
                serde_json::to_value(l.label)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default()
            })
            .collect();
        let effect = serde_json::to_value(effect_of(&labels))
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        super::out::say!("- {} [{effect}; labels: {}]", t.name, names.join(", "));
        if let Some(d) = &t.description {
            super::out::say!("    {}", d.lines().next().unwrap_or(""));
        }
        if let Some(a) = &t.annotations {
            super::out::say!("    annotations: {}", serde_json::to_string(a).unwrap_or_default());
        }
        super::out::say!("    input: {}", t.input_schema);
    }
    super::out::say!("\nresources ({}):", e.resources.len());
    for r in &e.resources {
        super::out::say!("- {} {} {}", r.uri, r.name, r.mime_type.as_deref().unwrap_or(""));
    }
    super::out::say!("\nresource templates ({}):", e.resource_templates.len());
    for t in &e.resource_templates {
        super::out::say!("- {}", t.get("uriTemplate").and_then(|v| v.as_str()).unwrap_or("?"));
    }
    super::out::say!("\nprompts ({}):", e.prompts.len());
    for p in &e.prompts {
        let args: Vec<&str> = p.arguments.iter().map(|a| a.name.as_str()).collect();
        super::out::say!("- {}({})", p.name, args.join(", "));
    }
}
