//! The Codex CLI config (`$CODEX_HOME/config.toml`) for a job's agent: the model (or the local
//! model server of a run), no approval prompts (a non-interactive run cannot answer them), and
//! the agent's MCP servers — under bubblewrap each stdio server through the MCP relay
//! (`run::mcp_relay`), as for OpenCode: Codex starts `ghostlab __mcp-connect`, and the server
//! runs as its own sandbox command with its environment resolved on the host.
//!
//! Secrets stay references. Codex cannot expand `${VAR}` inside its config, so a server's
//! `KEY: ${KEY}` becomes `env_vars = ["KEY"]` (Codex passes its own variable through), and
//! `Authorization: Bearer ${VAR}` becomes `bearer_token_env_var`; any other use of a reference
//! is refused with the server's name rather than written out expanded.

use std::path::Path;
use toml_edit::{Array, DocumentMut, InlineTable, Item, Table, value};

use super::EmitOptions;
use crate::spec::resolved::{LoadedJob, McpTransport, ResolvedMcp};
use crate::util::secret_ref::{has_reference, referenced_vars};

/// The provider id a run's local model server gets in the config.
const LOCAL_PROVIDER: &str = "ghostlab";

/// A setting of the job that Codex's config cannot express; `server` is the MCP server's name
/// in the job, so the person knows which entry to change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum CodexConfigError {
    #[error("the model override has no baseURL")]
    OverrideWithoutBaseUrl,
    #[error("mcp `{server}`: empty relay command")]
    EmptyRelayCommand { server: String },
    #[error("mcp `{server}`: empty command")]
    EmptyCommand { server: String },
    #[error(
        "mcp `{server}`: env {key} = {value}: Codex can only pass a variable through under its own name (use {key}: ${{{key}}})"
    )]
    RenamedVariable { server: String, key: String, value: String },
    #[error("mcp `{server}`: Codex cannot expand a reference in a url")]
    ReferenceInUrl { server: String },
    #[error(
        "mcp `{server}`: header {header}: Codex takes a header either literal, as `Bearer ${{VAR}}` (Authorization) or as one whole `${{VAR}}`"
    )]
    HeaderShape { server: String, header: String },
}

/// Builds the Codex config for `loaded`, or says which setting Codex cannot take.
pub(crate) fn emit_codex_config(loaded: &LoadedJob, opts: &EmitOptions<'_>) -> Result<DocumentMut, CodexConfigError> {
    let mut doc = DocumentMut::new();
    doc["approval_policy"] = value("never");
    match &opts.provider_override {
        Some((_, provider, model)) => {
            let base_url = provider
                .pointer("/options/baseURL")
                .and_then(serde_json::Value::as_str)
                .ok_or(CodexConfigError::OverrideWithoutBaseUrl)?;
            doc["model"] = value(model.as_str());
            doc["model_provider"] = value(LOCAL_PROVIDER);
            let mut p = Table::new();
            p["name"] = value("Ghostlab model server");
            p["base_url"] = value(base_url);
            // Codex dropped the chat-completions wire API in 0.122; Responses is all it speaks.
            p["wire_api"] = value("responses");
            let mut providers = Table::new();
            providers.set_implicit(true);
            providers[LOCAL_PROVIDER] = Item::Table(p);
            doc["model_providers"] = Item::Table(providers);
        }
        None => {
            if let Some(m) = &loaded.job.agent.runtime.model {
                // OpenCode writes `provider/model`; Codex takes the model name.
                doc["model"] = value(m.rsplit('/').next().unwrap_or(m));
            }
        }
    }
    let mut servers = Table::new();
    servers.set_implicit(true);
    for mcp in loaded.mcps.iter().filter(|m| m.enabled) {
        servers[&mcp.name] = Item::Table(server_table(mcp, opts)?);
    }
    if !servers.is_empty() {
        doc["mcp_servers"] = Item::Table(servers);
    }
    Ok(doc)
}

/// One enabled MCP server as Codex takes it: the relay command, a local command (variables
/// passed through under their own names) or a remote URL (headers literal or from variables).
fn server_table(mcp: &ResolvedMcp, opts: &EmitOptions<'_>) -> Result<Table, CodexConfigError> {
    let mut t = Table::new();
    let relayed = match &mcp.transport {
        McpTransport::Stdio { .. } => (opts.mcp_command)(mcp),
        McpTransport::Remote { .. } => None,
    };
    match &mcp.transport {
        McpTransport::Stdio { .. } if relayed.is_some() => {
            // The relay starts the real server outside the agent's sandbox: its cwd and
            // environment stay with the relay, out of this file and the agent's reach.
            let argv = relayed.unwrap_or_default();
            let (program, args) = argv.split_first().ok_or_else(|| CodexConfigError::EmptyRelayCommand {
                server: mcp.name.clone(),
            })?;
            t["command"] = value(program.as_str());
            t["args"] = value(argv_array(args));
            // Each connection starts a sandbox before the server: more than Codex's 10 s.
            let ms = mcp.timeout_ms.unwrap_or(super::opencode::RELAYED_TIMEOUT_MS);
            t["startup_timeout_sec"] = value(ms.div_ceil(1000) as i64);
        }
        McpTransport::Stdio { command, cwd, env } => {
            let argv: Vec<String> = command.iter().map(|a| map_if_path(a, opts)).collect();
            let (program, args) = argv.split_first().ok_or_else(|| CodexConfigError::EmptyCommand {
                server: mcp.name.clone(),
            })?;
            t["command"] = value(program.as_str());
            t["args"] = value(argv_array(args));
            if let Some(c) = cwd {
                t["cwd"] = value((opts.map_path)(c));
            }
            let mut literal = InlineTable::new();
            let mut passed = Array::new();
            for (k, v) in env {
                if !has_reference(v) {
                    literal.insert(k, v.as_str().into());
                } else if v == &format!("${{{k}}}") {
                    passed.push(k.as_str());
                } else {
                    return Err(CodexConfigError::RenamedVariable {
                        server: mcp.name.clone(),
                        key: k.clone(),
                        value: v.clone(),
                    });
                }
            }
            if !literal.is_empty() {
                t["env"] = value(literal);
            }
            if !passed.is_empty() {
                t["env_vars"] = value(passed);
            }
        }
        McpTransport::Remote { url, headers, .. } => {
            if has_reference(url) {
                return Err(CodexConfigError::ReferenceInUrl {
                    server: mcp.name.clone(),
                });
            }
            t["url"] = value(url.as_str());
            let mut literal = InlineTable::new();
            let mut from_env = InlineTable::new();
            for (k, v) in headers {
                let vars = referenced_vars(v);
                if vars.is_empty() {
                    literal.insert(k, v.as_str().into());
                } else if k.eq_ignore_ascii_case("authorization") && v == &format!("Bearer ${{{}}}", vars[0]) {
                    t["bearer_token_env_var"] = value(vars[0].as_str());
                } else if vars.len() == 1 && v == &format!("${{{}}}", vars[0]) {
                    from_env.insert(k, vars[0].as_str().into());
                } else {
                    return Err(CodexConfigError::HeaderShape {
                        server: mcp.name.clone(),
                        header: k.clone(),
                    });
                }
            }
            if !literal.is_empty() {
                t["http_headers"] = value(literal);
            }
            if !from_env.is_empty() {
                t["env_http_headers"] = value(from_env);
            }
        }
    }
    Ok(t)
}

fn map_if_path(arg: &str, opts: &EmitOptions<'_>) -> String {
    let p = Path::new(arg);
    if p.is_absolute() && p.exists() {
        (opts.map_path)(p)
    } else {
        arg.to_string()
    }
}

fn argv_array(args: &[String]) -> Array {
    args.iter().map(String::as_str).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::resolved::McpTransport;

    fn example() -> LoadedJob {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/release-bot/job.yaml");
        crate::spec::load_job(&path).expect("the example loads")
    }

    #[test]
    fn secrets_stay_references_and_the_model_server_is_the_provider() {
        let job = example();
        let opts = EmitOptions {
            provider_override: Some((
                "ghostlab-local".into(),
                serde_json::json!({"options": {"baseURL": "http://127.0.0.1:9/v1"}}),
                "scripted".into(),
            )),
            ..EmitOptions::default()
        };
        let text = emit_codex_config(&job, &opts).unwrap().to_string();
        let doc: DocumentMut = text.parse().unwrap();
        assert_eq!(doc["approval_policy"].as_str(), Some("never"));
        assert_eq!(doc["model_provider"].as_str(), Some("ghostlab"));
        assert_eq!(
            doc["model_providers"]["ghostlab"]["base_url"].as_str(),
            Some("http://127.0.0.1:9/v1")
        );
        let release = &doc["mcp_servers"]["release"];
        assert_eq!(release["command"].as_str(), Some("node"));
        let passed: Vec<&str> = release["env_vars"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|v| v.as_str())
            .collect();
        assert_eq!(passed, ["RELEASE_TOKEN"]);
        assert!(!text.contains("${"), "{text}");
    }

    #[test]
    fn a_relayed_stdio_server_is_the_relay_command_without_env_or_cwd() {
        let job = example();
        let relay = |m: &crate::spec::resolved::ResolvedMcp| {
            Some(vec![
                "/opt/ghostlab".to_string(),
                "__mcp-connect".into(),
                "--socket".into(),
                format!("/run/ghostlab-mcp/{}.sock", m.name),
            ])
        };
        let opts = EmitOptions {
            mcp_command: &relay,
            ..EmitOptions::default()
        };
        let text = emit_codex_config(&job, &opts).unwrap().to_string();
        let doc: DocumentMut = text.parse().unwrap();
        let release = &doc["mcp_servers"]["release"];
        assert_eq!(release["command"].as_str(), Some("/opt/ghostlab"));
        let args: Vec<&str> = release["args"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|v| v.as_str())
            .collect();
        assert_eq!(args, ["__mcp-connect", "--socket", "/run/ghostlab-mcp/release.sock"]);
        assert!(
            release.get("env").is_none() && release.get("env_vars").is_none(),
            "{text}"
        );
        assert!(release.get("cwd").is_none(), "{text}");
        assert!(
            !text.contains("RELEASE_TOKEN"),
            "the server's credentials stay with the relay: {text}"
        );
        assert!(release["startup_timeout_sec"].as_integer().unwrap() >= 10);
    }

    #[test]
    fn a_reference_codex_cannot_pass_through_is_refused_not_expanded() {
        let mut job = example();
        if let McpTransport::Stdio { env, .. } = &mut job.mcps[0].transport {
            env.insert("GH_AUTH".into(), "token ${RELEASE_TOKEN}".into());
        }
        let err = emit_codex_config(&job, &EmitOptions::default()).unwrap_err();
        assert_eq!(
            err,
            CodexConfigError::RenamedVariable {
                server: job.mcps[0].name.clone(),
                key: "GH_AUTH".into(),
                value: "token ${RELEASE_TOKEN}".into(),
            }
        );
        let words = err.to_string();
        assert!(words.contains("GH_AUTH") && words.contains("own name"), "{words}");
    }

    /// The first server of the example, made remote with `url` and one header.
    fn remote(url: &str, header: (&str, &str)) -> LoadedJob {
        let mut job = example();
        job.mcps[0].transport = McpTransport::Remote {
            url: url.into(),
            headers: [(header.0.to_string(), header.1.to_string())].into_iter().collect(),
            kind: crate::spec::agent_inputs::RemoteTransport::StreamableHttp,
        };
        job
    }

    #[test]
    fn each_setting_codex_cannot_take_is_named_with_its_server() {
        let server = example().mcps[0].name.clone();
        let opts = EmitOptions::default();
        let job = remote("https://${HOST}/mcp", ("X-A", "a"));
        assert_eq!(
            emit_codex_config(&job, &opts).unwrap_err(),
            CodexConfigError::ReferenceInUrl { server: server.clone() }
        );
        let job = remote("https://h/mcp", ("X-Token", "pre-${TOKEN}"));
        let err = emit_codex_config(&job, &opts).unwrap_err();
        assert_eq!(
            err,
            CodexConfigError::HeaderShape {
                server: server.clone(),
                header: "X-Token".into()
            }
        );
        assert!(
            err.to_string()
                .starts_with(&format!("mcp `{server}`: header X-Token: ")),
            "{err}"
        );
        // The shapes Codex does take still pass.
        let job = remote("https://h/mcp", ("Authorization", "Bearer ${TOKEN}"));
        let doc = emit_codex_config(&job, &opts).unwrap();
        assert_eq!(
            doc["mcp_servers"][&server]["bearer_token_env_var"].as_str(),
            Some("TOKEN")
        );
        let no_url = EmitOptions {
            provider_override: Some(("local".into(), serde_json::json!({"options": {}}), "m".into())),
            ..EmitOptions::default()
        };
        assert_eq!(
            emit_codex_config(&example(), &no_url).unwrap_err(),
            CodexConfigError::OverrideWithoutBaseUrl
        );
    }
}
