//! Facts for the non-verdict gates, read from the MCP contract (`contract.json`).

use std::path::{Path, PathBuf};

use super::gates::GateFacts;
use crate::mcp::contract::Contract;

/// Rule codes that concern security (tool poisoning, hidden characters, credentials in
/// arguments, undeclared or mislabelled destructive tools).
pub const SECURITY_CODES: &[&str] = &["GL017", "GL019", "GL020", "GL021", "GL022"];

/// Rule codes about schema quality whose error-level findings fail `no_tool_schema_errors`.
pub const SCHEMA_CODES: &[&str] = &["GL001", "GL004", "GL010", "GL013", "GL016", "GL028"];

/// Why the contract's facts could not be read.
#[derive(Debug, thiserror::Error)]
pub enum FactsError {
    #[error("{}: {source}", path.display())]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{}: {source}", path.display())]
    Parse { path: PathBuf, source: serde_json::Error },
}

/// Counts high-severity security findings and schema errors; no contract means no facts.
pub fn contract_facts(state_dir: &Path) -> Result<GateFacts, FactsError> {
    let path = state_dir.join("contract.json");
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(GateFacts::default()),
        Err(source) => return Err(FactsError::Read { path, source }),
    };
    let contract: Contract = serde_json::from_str(&text).map_err(|source| FactsError::Parse {
        path: path.clone(),
        source,
    })?;
    let is_error =
        |f: &&crate::mcp::contract::finding::Finding| f.severity == crate::mcp::contract::rules::Severity::Error;
    Ok(GateFacts {
        high_security_findings: contract
            .findings
            .iter()
            .filter(|f| SECURITY_CODES.contains(&f.code.as_str()))
            .filter(is_error)
            .count(),
        tool_schema_errors: contract
            .findings
            .iter()
            .filter(|f| SCHEMA_CODES.contains(&f.code.as_str()))
            .filter(is_error)
            .count(),
        // Filled from the trials' observed network attempts when the run's outcome is written.
        denied_egress: 0,
    })
}
