//! `ghostlab profile --job J`: infer the agent's purpose profile and write agent-profile.json.

use super::generate::proposer_for;
use super::{CliError, ErrorKind, Exit};
use crate::generate::pipeline::write_profile;
use crate::generate::profile::{AgentProfile, EvidenceRef};
use crate::util::runtime::block_on;

pub(crate) use super::job_arg::JobArg as Args;

pub(crate) fn run(args: Args) -> Result<Exit, CliError> {
    let loaded = crate::spec::load_job(&args.job)?;
    let proposer = proposer_for(&loaded)?;
    let _state_lock = crate::util::folder_lock::lock_state_folder(&loaded.state_dir())
        .map_err(|e| CliError::from_error(super::error::ErrorKind::Io, e))?;
    let (profile, path) = block_on(write_profile(&loaded, proposer.as_ref()))?
        .map_err(|e| CliError::from_error(super::error::ErrorKind::Peer, e))?;
    crate::spec::artifact_refresh::refresh_recorded(&args.job).map_err(|e| CliError::from_error(ErrorKind::Io, e))?;
    super::out::say!("wrote {} (proposer {})", path.display(), proposer.label());
    print_summary(&profile);
    Ok(Exit::Success)
}

fn origin(evidence: &[EvidenceRef]) -> String {
    let Some(first) = evidence.first() else {
        return String::new();
    };
    let at = match &first.section {
        Some(s) => format!("{} § {s}", first.source),
        None => first.source.clone(),
    };
    match evidence.len() {
        1 => format!("  <- {at}"),
        n => format!("  <- {at} (+{} more)", n - 1),
    }
}

/// Prints what the profile says and where it came from.
pub(crate) fn print_summary(p: &AgentProfile) {
    let source = if p.evidence.from_description {
        "the description"
    } else {
        "inferred"
    };
    super::out::say!("purpose ({source}): {}", p.purpose.replace('\n', " "));
    super::out::say!("audience: {}", p.audience);
    super::out::say!("workflows ({}):", p.workflows.len());
    for w in &p.workflows {
        super::out::say!(
            "  {}  {} [{}]{}",
            w.id,
            w.name,
            w.capabilities_used.join(", "),
            origin(&w.evidence)
        );
    }
    super::out::say!("risks ({}):", p.risk_surface.len());
    for r in &p.risk_surface {
        let severity = format!("{:?}", r.severity).to_lowercase();
        super::out::say!("  {}  [{severity}] {}{}", r.id, r.risk, origin(&r.evidence));
    }
    super::out::say!("out of scope ({}):", p.out_of_scope.len());
    for s in &p.out_of_scope {
        super::out::say!("  {}  {}{}", s.id, s.what, origin(&s.evidence));
    }
    let e = &p.evidence;
    let tools_from = e.mcp_tools.first().map(|t| t.source.as_str()).unwrap_or("none");
    super::out::say!(
        "read: {} instruction file(s), {} skill(s), {} agent prompt(s), {} MCP tool(s) (from {tools_from}), {} permission rule(s){}",
        e.instructions.len(),
        e.skills.len(),
        e.agents.len(),
        e.mcp_tools.len(),
        e.permissions.len(),
        e.workspace
            .as_ref()
            .map(|w| format!(", workspace {} ({} top-level entries)", w.path, w.layout.len()))
            .unwrap_or_default()
    );
}
