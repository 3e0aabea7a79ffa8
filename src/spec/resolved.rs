//! A job after loading: the typed document plus absolute paths and every MCP server resolved
//! from its config_ref or inline definition.

use indexmap::IndexMap;
use std::path::PathBuf;

use super::agent_inputs::RemoteTransport;
use super::job::Job;
use super::relative_path::resolve_against;

/// A validated job and its resolved inputs.
#[derive(Debug, Clone)]
pub struct LoadedJob {
    pub job: Job,
    /// Absolute path of job.yaml.
    pub file: PathBuf,
    /// Directory relative paths resolve against.
    pub dir: PathBuf,
    /// Every MCP server of the agent, in declaration order.
    pub mcps: Vec<ResolvedMcp>,
}

impl LoadedJob {
    /// Resolves a path written in job.yaml against the job's directory.
    pub fn resolve(&self, rel: &str) -> PathBuf {
        resolve_against(&self.dir, rel)
    }

    /// The folder for discovery, profile, dataset and runs.
    pub fn state_dir(&self) -> PathBuf {
        self.resolve(&self.job.paths.state_dir)
    }

    /// The job's own files as absolute paths: job.yaml, its state folder (datasets, verdicts,
    /// reports, runs) and the cassettes its roles replay. Never part of the agent's workspace
    /// copy or of an input's fingerprint, even when the workspace holds them.
    pub(crate) fn own_paths(&self) -> Vec<PathBuf> {
        let g = &self.job.generation;
        let cassettes = [&g.proposer, &g.emulator, &g.judge]
            .into_iter()
            .filter_map(|r| r.cassette.as_deref())
            .map(|c| self.resolve(c));
        // The decisions file beside the job (`mcp::contract::decisions`) is the job's too.
        [
            self.file.clone(),
            self.file.with_extension("decisions.json"),
            self.state_dir(),
        ]
        .into_iter()
        .chain(cassettes)
        .map(|p| std::path::absolute(&p).unwrap_or(p))
        .collect()
    }

    /// The workspace folder on the host, if the agent has one.
    pub fn workspace(&self) -> Option<PathBuf> {
        self.job.agent.workspace.as_deref().map(|w| self.resolve(w))
    }

    /// The instruction files, globs expanded and sorted (see `spec::instructions`).
    pub(crate) fn instruction_files(&self) -> Vec<PathBuf> {
        super::instructions::instruction_files(&self.dir, &self.job.agent.runtime.instructions)
    }

    /// Every host path the agent's configuration reads (instructions, prompts, skills,
    /// assets, MCP server files): a sandbox must make these visible read-only.
    pub(crate) fn input_paths(&self) -> Vec<PathBuf> {
        let rt = &self.job.agent.runtime;
        let mut out: Vec<PathBuf> = Vec::new();
        out.extend(self.instruction_files());
        out.extend(rt.skills.paths.iter().map(|p| self.resolve(p)));
        out.extend(self.job.agent.inputs.skills.iter().map(|p| self.resolve(p)));
        out.extend(self.job.agent.inputs.assets.iter().map(|p| self.resolve(p)));
        out.extend(
            rt.plugins
                .iter()
                .filter_map(|p| p.local_file())
                .map(|p| self.resolve(p)),
        );
        for def in rt.agents.values() {
            if let Some(file) = def.prompt.as_deref().and_then(prompt_file) {
                out.push(self.resolve(file));
            }
        }
        let texts = rt.agents.values().filter_map(|d| d.prompt.as_deref());
        for text in texts.chain(rt.commands.values().map(|c| c.template.as_str())) {
            for r in super::file_refs::file_refs(text).unwrap_or_default() {
                out.push(self.resolve(&super::file_refs::expand_home(r.path).to_string_lossy()));
            }
        }
        for mcp in &self.mcps {
            out.extend(mcp.host_paths());
        }
        out.sort();
        out.dedup();
        out
    }
}

/// The file a prompt refers to: `{file:./x.md}` or a bare relative path; `None` for inline text.
pub(crate) fn prompt_file(prompt: &str) -> Option<&str> {
    let trimmed = prompt.trim();
    if let Some(inner) = trimmed.strip_prefix("{file:").and_then(|s| s.strip_suffix('}')) {
        return Some(inner);
    }
    let looks_like_path =
        !trimmed.contains('\n') && (trimmed.starts_with("./") || trimmed.starts_with("../")) && !trimmed.contains(' ');
    looks_like_path.then_some(trimmed)
}

/// One MCP server, normalized from any input format.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedMcp {
    pub name: String,
    pub transport: McpTransport,
    pub enabled: bool,
    pub timeout_ms: Option<u64>,
    /// A remote server's OpenCode `oauth` as the source wrote it (`false`, `{}` or client
    /// settings with references only); `None` when it said nothing, so none is added.
    pub oauth: Option<serde_json::Value>,
    /// Where it was declared: file and key path, for error messages.
    pub origin: (PathBuf, String),
}

#[derive(Debug, Clone, PartialEq)]
pub enum McpTransport {
    /// A local child process speaking MCP on stdin/stdout. Paths are absolute.
    Stdio {
        command: Vec<String>,
        cwd: Option<PathBuf>,
        env: IndexMap<String, String>,
    },
    /// A remote server. Header values may hold `${VAR}` references.
    Remote {
        url: String,
        headers: IndexMap<String, String>,
        kind: RemoteTransport,
    },
}

impl ResolvedMcp {
    /// Host paths this server's command reads (absolute argv entries and cwd).
    pub(crate) fn host_paths(&self) -> Vec<PathBuf> {
        match &self.transport {
            McpTransport::Stdio { command, cwd, .. } => {
                let mut out: Vec<PathBuf> = command
                    .iter()
                    .map(PathBuf::from)
                    .filter(|p| p.is_absolute() && p.exists())
                    .collect();
                out.extend(cwd.clone());
                out
            }
            McpTransport::Remote { .. } => Vec::new(),
        }
    }

    /// The `host:port` a remote server needs in the egress allowlist.
    pub(crate) fn remote_endpoint(&self) -> Option<String> {
        match &self.transport {
            McpTransport::Remote { url, .. } => host_port(url),
            McpTransport::Stdio { .. } => None,
        }
    }
}

/// `host:port` of an http(s) URL, with the scheme's default port.
pub fn host_port(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit('@').next()?;
    if authority.is_empty() {
        return None;
    }
    let has_port = authority
        .rsplit_once(':')
        .is_some_and(|(_, p)| p.chars().all(|c| c.is_ascii_digit()));
    if has_port {
        return Some(authority.to_string());
    }
    let port = match scheme {
        "https" => 443,
        "http" => 80,
        _ => return None,
    };
    Some(format!("{authority}:{port}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_file_forms() {
        assert_eq!(prompt_file("{file:./p.md}"), Some("./p.md"));
        assert_eq!(prompt_file("./prompts/release.md"), Some("./prompts/release.md"));
        assert_eq!(prompt_file("You cut releases."), None);
    }

    #[test]
    fn host_port_defaults() {
        assert_eq!(
            host_port("https://api.example.com/v1").as_deref(),
            Some("api.example.com:443")
        );
        assert_eq!(
            host_port("http://127.0.0.1:8080/mcp").as_deref(),
            Some("127.0.0.1:8080")
        );
        assert_eq!(host_port("ftp://x"), None);
    }
}
