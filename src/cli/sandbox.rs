//! `ghostlab sandbox exec|shell`: run one command (or an interactive shell) in a fresh session
//! of the job's sandbox exactly as the agent gets it, and the hidden `__egress-bridge`.

use std::path::PathBuf;
use std::process::Stdio;

use super::{CliError, Exit};
use crate::sandbox::{ExecOptions, Role, Sandbox, SandboxPolicy, Session};
use crate::spec::SandboxBackend;

pub(crate) type Args = super::action_args::ActionArgs<Action>;

#[derive(Debug, clap::Subcommand)]
pub(crate) enum Action {
    /// Run one command in a fresh session (same policy, workspace copy and environment as the agent).
    Exec(ExecArgs),
    /// Open an interactive shell in a fresh session.
    Shell(ShellArgs),
}

#[derive(Debug, clap::Args)]
pub(crate) struct ExecArgs {
    /// The job file.
    #[arg(long, default_value = "job.yaml")]
    pub(crate) job: PathBuf,
    /// Whose sandbox: agent, emulator or judge.
    #[arg(long, default_value = "agent")]
    pub(crate) role: String,
    /// The command and its arguments, after `--`.
    #[arg(last = true, required = true)]
    pub(crate) command: Vec<String>,
}

#[derive(Debug, clap::Args)]
pub(crate) struct ShellArgs {
    /// The job file.
    #[arg(long, default_value = "job.yaml")]
    pub(crate) job: PathBuf,
    /// Whose sandbox: agent, emulator or judge.
    #[arg(long, default_value = "agent")]
    pub(crate) role: String,
}

/// Arguments of the hidden reaper (see `crate::sandbox::reaper`).
#[derive(Debug, clap::Args)]
pub(crate) struct ReaperArgs {
    /// The Ghostlab process whose sandboxes to clean up once it is gone.
    #[arg(long)]
    pub(crate) owner: u32,
    /// Its start time (clock ticks after boot), so a reused pid is not taken for it.
    #[arg(long)]
    pub(crate) stamp: u64,
}

pub(crate) fn run_reaper(args: ReaperArgs) -> Result<Exit, CliError> {
    crate::sandbox::reaper::run(args.owner, args.stamp);
    Ok(Exit::Success)
}

/// Arguments of the hidden bridge that runs inside the sandbox.
#[derive(Debug, clap::Args)]
pub(crate) struct BridgeArgs {
    /// The egress proxy's unix socket (inside path).
    #[arg(long, requires = "listen")]
    pub(crate) socket: Option<PathBuf>,
    /// The loopback address to listen on for the egress proxy.
    #[arg(long, requires = "socket")]
    pub(crate) listen: Option<String>,
    /// `ADDR=SOCKET`: listen on loopback ADDR and pass each connection to the unix SOCKET.
    #[arg(long, value_parser = parse_forward)]
    pub(crate) forward: Vec<(String, PathBuf)>,
    /// `SOCKET=ADDR`: listen on the unix SOCKET and pass each connection to loopback ADDR.
    #[arg(long, value_parser = parse_expose)]
    pub(crate) expose: Vec<(PathBuf, String)>,
    /// The command to run under the bridge.
    #[arg(last = true, required = true)]
    pub(crate) command: Vec<String>,
}

/// Arguments of the hidden network watch shim that runs inside the sandbox.
#[derive(Debug, clap::Args)]
pub(crate) struct WatchArgs {
    /// The inherited unix socket the watch's listener is handed over.
    #[arg(long)]
    pub(crate) socket_fd: i32,
    /// The command to run under the watch.
    #[arg(last = true, required = true)]
    pub(crate) command: Vec<String>,
}

/// Installs the watch and becomes the command; returns only when that failed (the command
/// never ran).
pub(crate) fn run_network_watch(args: WatchArgs) -> Result<Exit, CliError> {
    let err = crate::sandbox::watch_shim::run(args.socket_fd, &args.command);
    eprintln!("ghostlab network watch: {err}");
    Ok(Exit::Child(crate::sandbox::watch_shim::SETUP_FAILED))
}

pub(crate) fn run(args: Args) -> Result<Exit, CliError> {
    let rt = crate::util::runtime::multi_thread()?;
    match args.action {
        Action::Exec(a) => rt.block_on(run_in_session(&a.job, &a.role, a.command)),
        Action::Shell(a) => {
            let shell = if std::path::Path::new("/bin/bash").exists() {
                "/bin/bash"
            } else {
                "/bin/sh"
            };
            rt.block_on(run_in_session(
                &a.job,
                &a.role,
                vec![shell.to_string(), "-i".to_string()],
            ))
        }
    }
}

/// A `--forward`/`--expose` value without its `=`; the message says the form expected.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("expected {0}")]
struct PairExpected(&'static str);

fn parse_forward(s: &str) -> Result<(String, PathBuf), PairExpected> {
    let (addr, socket) = s.split_once('=').ok_or(PairExpected("ADDR=SOCKET"))?;
    Ok((addr.to_string(), PathBuf::from(socket)))
}

fn parse_expose(s: &str) -> Result<(PathBuf, String), PairExpected> {
    let (socket, addr) = s.split_once('=').ok_or(PairExpected("SOCKET=ADDR"))?;
    Ok((PathBuf::from(socket), addr.to_string()))
}

/// `__mcp-connect`: the agent's end of the MCP relay.
#[derive(Debug, clap::Args)]
pub(crate) struct McpConnectArgs {
    /// The relay's unix socket (inside path).
    #[arg(long)]
    pub(crate) socket: PathBuf,
}

pub(crate) fn run_mcp_connect(args: McpConnectArgs) -> Result<Exit, CliError> {
    let code = crate::sandbox::mcp_link::connect_stdio(&args.socket)
        .map_err(|e| CliError::from_error(super::error::ErrorKind::Peer, e))?;
    Ok(Exit::Child(code))
}

pub(crate) fn run_bridge(args: BridgeArgs) -> Result<Exit, CliError> {
    let mut forwards = args.forward;
    if let (Some(socket), Some(listen)) = (args.socket, args.listen) {
        forwards.push((listen, socket));
    }
    let code = crate::sandbox::bridge::run_links(&forwards, &args.expose, &args.command)
        .map_err(|e| CliError::peer(format!("egress bridge: {e}")).because(e))?;
    Ok(Exit::Child(code))
}

async fn run_in_session(job: &std::path::Path, role: &str, argv: Vec<String>) -> Result<Exit, CliError> {
    let role =
        Role::parse(role).ok_or_else(|| CliError::usage(format!("--role `{role}`: use agent, emulator or judge")))?;
    let loaded = crate::spec::load_job(job)?;
    let policy =
        SandboxPolicy::from_job(&loaded).map_err(|e| CliError::from_error(super::error::ErrorKind::BadInput, e))?;
    if policy.backend == SandboxBackend::Local {
        eprintln!("warning: sandbox backend `local` runs commands on this host WITHOUT isolation");
    }
    let timeout = policy.limits.wall_timeout;
    let log_dir = loaded.state_dir().join("sandbox");
    let sandbox = Sandbox::open(policy, log_dir)
        .await
        .map_err(|e| CliError::from_error(super::error::ErrorKind::Peer, e))?;
    let session = sandbox
        .session(role)
        .await
        .map_err(|e| CliError::from_error(super::error::ErrorKind::Peer, e))?;
    let result = run_attached(&session, &argv, timeout).await;
    let denials = session.denials();
    for d in &denials {
        eprintln!(
            "sandbox: egress denied {} {}:{} at {}",
            d.method, d.host, d.port, d.time
        );
    }
    eprintln!("sandbox log: {}", session.log_path().display());
    session
        .delete()
        .await
        .map_err(|e| CliError::from_error(super::error::ErrorKind::Peer, e))?;
    result
}

/// Runs with the terminal attached (streamed output, interactive stdin), bounded by `timeout`.
async fn run_attached(session: &Session, argv: &[String], timeout: std::time::Duration) -> Result<Exit, CliError> {
    let mut cmd = session
        .command(argv, &ExecOptions::default())
        .map_err(|e| CliError::from_error(super::error::ErrorKind::Peer, e))?;
    cmd.stdin(Stdio::inherit())
        .stdout(Stdio::inherit())
        .stderr(Stdio::inherit());
    let mut child = cmd
        .spawn()
        .map_err(|e| CliError::missing(format!("cannot start bwrap: {e}")).because(e))?;
    let status = match tokio::time::timeout(timeout, child.wait()).await {
        Ok(s) => s?,
        Err(_) => {
            let _ = child.kill().await;
            eprintln!(
                "sandbox: command killed after the wall-clock limit of {}s",
                timeout.as_secs()
            );
            return Ok(Exit::TimedOut);
        }
    };
    use std::os::unix::process::ExitStatusExt;
    let code = status.code().unwrap_or_else(|| 128 + status.signal().unwrap_or(0));
    Ok(Exit::Child(code))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pair_without_its_equals_sign_names_the_form_expected() {
        assert_eq!(
            parse_forward("127.0.0.1:9").unwrap_err().to_string(),
            "expected ADDR=SOCKET"
        );
        assert_eq!(parse_expose("/s").unwrap_err().to_string(), "expected SOCKET=ADDR");
        assert_eq!(
            parse_forward("127.0.0.1:9=/run/s").unwrap(),
            ("127.0.0.1:9".to_string(), PathBuf::from("/run/s"))
        );
    }
}
