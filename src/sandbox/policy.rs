//! The one internal policy model every backend renders: what a sandboxed process may read,
//! write and reach, which environment it gets, and which limits bind it.
//!
//! Built from `job.yaml` (`SandboxSpec` + `LoadedJob`) by `super::policy_job`. It never holds a secret value in a
//! place that is printed: `Debug` redacts explicit environment values.

use indexmap::IndexMap;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use crate::spec::{LoadedJob, NetworkMode, RootFilesystem, SandboxBackend};

/// Default wall-clock limit for one command when job.yaml sets none.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);
/// Default cap on processes in one sandboxed tree.
pub(crate) const DEFAULT_PROCESSES: u32 = 512;
/// Default largest file a sandboxed process may write.
pub(crate) const DEFAULT_FILE_SIZE: u64 = 4 << 30;
/// Default bound on the workspace copy (and uploads) of one session.
pub(crate) const DEFAULT_WORKSPACE_BYTES: u64 = 1 << 30;
/// Default bound on the entries (files, folders, links) of the workspace copy and uploads.
pub(crate) const DEFAULT_WORKSPACE_FILES: u64 = 100_000;
/// Default memory cap of one sandboxed tree when job.yaml sets none (2 GiB).
pub const DEFAULT_MEMORY: u64 = 2 << 30;

/// Which runner a session belongs to; each role gets its own session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// The agent under test (OpenCode and its MCP servers).
    Agent,
    /// The tool-free user emulator.
    Emulator,
    /// The judge.
    Judge,
}

impl Role {
    /// The lowercase name used in file names (`sandbox-<role>-<session>.log`).
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Role::Agent => "agent",
            Role::Emulator => "emulator",
            Role::Judge => "judge",
        }
    }

    /// Parses `agent`, `emulator` or `judge`.
    pub(crate) fn parse(text: &str) -> Option<Role> {
        match text {
            "agent" => Some(Role::Agent),
            "emulator" => Some(Role::Emulator),
            "judge" => Some(Role::Judge),
            _ => None,
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Network access of a sandboxed process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NetworkPolicy {
    /// No network namespace access at all (only the sandbox's own loopback).
    Disabled,
    /// Only these `host:port` pairs, through Ghostlab's enforcing egress proxy.
    Allowlist(Vec<HostPort>),
    /// An OpenShell policy file (OpenShell backend only).
    OpenShellPolicy(PathBuf),
}

/// One allowed destination.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HostPort {
    /// Host name or IP literal, lowercase.
    pub(crate) host: String,
    /// TCP port.
    pub(crate) port: u16,
}

impl HostPort {
    /// Parses `host:port` (IPv6 literals in brackets).
    pub fn parse(text: &str) -> Option<HostPort> {
        let (host, port) = text.trim().rsplit_once(':')?;
        let host = host.trim_start_matches('[').trim_end_matches(']');
        if host.is_empty() || host.contains('*') || host.contains('/') {
            return None;
        }
        Some(HostPort {
            host: host.to_ascii_lowercase(),
            port: port.parse().ok()?,
        })
    }
}

impl fmt::Display for HostPort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.host.contains(':') {
            write!(f, "[{}]:{}", self.host, self.port)
        } else {
            write!(f, "{}:{}", self.host, self.port)
        }
    }
}

/// Resource limits applied to every sandboxed process tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// RLIMIT_CPU per process, in seconds.
    pub cpu_seconds: Option<u64>,
    /// Memory cap in bytes: the session's memory cgroup (whole tree) when Ghostlab runs as
    /// root, else RLIMIT_DATA per process.
    pub memory_bytes: Option<u64>,
    /// Processes the sandbox user may add (RLIMIT_NPROC above what it already runs).
    pub(crate) processes: Option<u32>,
    /// RLIMIT_FSIZE: largest file, in bytes.
    pub file_size_bytes: Option<u64>,
    /// Bound on the workspace copy and uploads staged into one session, in bytes.
    pub workspace_bytes: u64,
    /// Bound on the files, folders and links of the workspace copy and uploads (and, as root,
    /// the inodes of its tmpfs and of HOME's and TMPDIR's).
    pub(crate) workspace_files: u64,
    /// Bound on HOME and on TMPDIR inside the sandbox, each, in bytes (see `super::scratch`).
    pub scratch_bytes: u64,
    /// Wall-clock limit for one `exec`; the whole tree is killed when it passes.
    pub wall_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            cpu_seconds: None,
            memory_bytes: Some(DEFAULT_MEMORY),
            processes: Some(DEFAULT_PROCESSES),
            file_size_bytes: Some(DEFAULT_FILE_SIZE),
            workspace_bytes: DEFAULT_WORKSPACE_BYTES,
            workspace_files: DEFAULT_WORKSPACE_FILES,
            scratch_bytes: super::scratch::DEFAULT_SCRATCH_BYTES,
            wall_timeout: DEFAULT_TIMEOUT,
        }
    }
}

/// Everything a backend needs to build one role's sandbox.
#[derive(Clone, PartialEq)]
pub struct SandboxPolicy {
    /// Which backend renders this policy.
    pub(crate) backend: SandboxBackend,
    /// How much of the host exists inside (bubblewrap).
    pub root_filesystem: RootFilesystem,
    /// OpenShell `--from` image.
    pub image: Option<String>,
    /// Host paths visible read-only at the same path inside: runtimes (the agent host's
    /// package, MCP servers' packages), bound from the host.
    pub read_only: Vec<PathBuf>,
    /// The job's own inputs: copied into each session (readable by the sandbox user) and
    /// shown read-only at their real host path.
    pub(crate) staged: Vec<PathBuf>,
    /// Folders brought only because an MCP server's command lives there (see
    /// `super::mcp_staging`): staged without dotfiles or owner-only files.
    pub(crate) implied: Vec<PathBuf>,
    /// Paths the job names itself; an implied folder's copy always keeps these.
    pub(crate) declared: Vec<PathBuf>,
    /// Host paths bound writable at the same path inside (rare; the workspace is a copy).
    pub(crate) read_write: Vec<PathBuf>,
    /// Host paths hidden behind an empty tmpfs (the user's checkout); `read_only` entries
    /// inside them are bound again afterwards.
    pub(crate) masked: Vec<PathBuf>,
    /// The user's workspace; copied per session, never bound itself.
    pub workspace: Option<PathBuf>,
    /// Absolute paths inside the workspace left out of its copy: the job's own files (job.yaml,
    /// its state folder with datasets, verdicts and reports, cassettes), which would hand the
    /// agent the test's answers and grow the copy with every run.
    pub(crate) workspace_exclude: Vec<PathBuf>,
    /// Where the workspace copy is mounted and commands start.
    pub workdir: String,
    /// Network access.
    pub network: NetworkPolicy,
    /// Host variables copied into the sandbox environment by name.
    pub(crate) env_allowlist: Vec<String>,
    /// Explicit values; they only ever go into the child environment.
    pub env_values: IndexMap<String, String>,
    /// Resource limits.
    pub limits: Limits,
    /// Keep the session directory (and OpenShell sandbox) after delete.
    pub keep: bool,
    /// OpenShell providers attached at creation.
    pub providers: Vec<String>,
    /// Extra host files staged into the session: (host source, path inside).
    pub(crate) uploads: Vec<(PathBuf, String)>,
}

impl fmt::Debug for SandboxPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let redacted: Vec<String> = self.env_values.keys().map(|k| format!("{k}=<redacted>")).collect();
        f.debug_struct("SandboxPolicy")
            .field("backend", &self.backend)
            .field("root_filesystem", &self.root_filesystem)
            .field("image", &self.image)
            .field("read_only", &self.read_only)
            .field("staged", &self.staged)
            .field("implied", &self.implied)
            .field("read_write", &self.read_write)
            .field("masked", &self.masked)
            .field("workspace", &self.workspace)
            .field("workspace_exclude", &self.workspace_exclude)
            .field("workdir", &self.workdir)
            .field("network", &self.network)
            .field("env_allowlist", &self.env_allowlist)
            .field("env_values", &redacted)
            .field("limits", &self.limits)
            .field("keep", &self.keep)
            .finish()
    }
}

impl SandboxPolicy {
    /// A policy with no inputs, no workspace, no network and default limits.
    pub fn minimal(backend: SandboxBackend) -> Self {
        SandboxPolicy {
            backend,
            root_filesystem: RootFilesystem::Isolated,
            image: None,
            read_only: Vec::new(),
            staged: Vec::new(),
            implied: Vec::new(),
            declared: Vec::new(),
            read_write: Vec::new(),
            masked: Vec::new(),
            workspace: None,
            workspace_exclude: Vec::new(),
            workdir: "/sandbox/workspace".to_string(),
            network: NetworkPolicy::Disabled,
            env_allowlist: Vec::new(),
            env_values: IndexMap::new(),
            limits: Limits::default(),
            keep: false,
            providers: Vec::new(),
            uploads: Vec::new(),
        }
    }

    /// The allowed destinations, empty unless the network mode is an allowlist.
    pub fn allowlist(&self) -> &[HostPort] {
        match &self.network {
            NetworkPolicy::Allowlist(l) => l,
            _ => &[],
        }
    }
}

/// The `host:port` pairs of `sandbox.allow` under `network: allowlist` (none otherwise): the
/// destinations the job itself declares for what runs in the sandbox, without the remote MCP
/// hosts or the model's endpoints the harness adds. Unparsable entries are left to
/// [`SandboxPolicy::from_job`], which refuses them.
pub(crate) fn declared_allow_hosts(job: &LoadedJob) -> Vec<HostPort> {
    if job.job.sandbox.network != NetworkMode::Allowlist {
        return Vec::new();
    }
    job.job
        .sandbox
        .allow
        .iter()
        .filter_map(|e| HostPort::parse(e))
        .collect()
}

/// `host:port` of every enabled remote (streamable HTTP / SSE) MCP server the job declares, in
/// order, without repeats. A server with `enabled: false` is not started, so its host is not
/// opened.
pub(crate) fn declared_remote_hosts(job: &LoadedJob) -> Vec<HostPort> {
    let mut hosts: Vec<HostPort> = Vec::new();
    for hp in job
        .mcps
        .iter()
        .filter(|m| m.enabled)
        .filter_map(|m| m.remote_endpoint())
        .filter_map(|e| HostPort::parse(&e))
    {
        if !hosts.contains(&hp) {
            hosts.push(hp);
        }
    }
    hosts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_port_parsing() {
        assert_eq!(
            HostPort::parse("api.example.com:443"),
            Some(HostPort {
                host: "api.example.com".into(),
                port: 443
            })
        );
        assert_eq!(
            HostPort::parse("[::1]:8080").map(|h| h.to_string()),
            Some("[::1]:8080".into())
        );
        assert_eq!(HostPort::parse("*.example.com:443"), None);
        assert_eq!(HostPort::parse("example.com"), None);
        assert_eq!(HostPort::parse("example.com:99999"), None);
    }

    #[test]
    fn debug_redacts_values() {
        let mut p = SandboxPolicy::minimal(SandboxBackend::Bubblewrap);
        p.env_values.insert("API_KEY".into(), "sk-very-secret".into());
        let text = format!("{p:?}");
        assert!(text.contains("API_KEY=<redacted>"));
        assert!(!text.contains("sk-very-secret"));
    }
}
