//! Facts for the non-verdict gates, read from the MCP contract (`contract.json`) of the job's
//! state folder. Every front end that writes a run's outcome (`test`, the lab, `merge`,
//! `rescore`) reads them through `job_contract_facts`, so one job's gates read the same facts
//! whichever command applied them. A contract that is absent is not "no findings": the gates
//! that read it are then not met, with the reason.

use std::path::{Path, PathBuf};

use super::gates::{ContractFacts, GateFacts};
use crate::mcp::contract::{CONTRACT_VERSION, Contract};
use crate::util::bounded::{BoundedError, FileKind, read_optional_string};

/// Rule codes about schema quality whose error-level findings fail `no_tool_schema_errors`.
pub(crate) const SCHEMA_CODES: &[&str] = &["GL001", "GL004", "GL010", "GL013", "GL016", "GL028"];

/// Why the contract gates are not met when the state folder holds no contract.json.
pub(crate) const NOT_LINTED: &str = "contract not linted: run `ghostlab discover` (it writes contract.json) \
or `ghostlab lint --format json --out <state>/contract.json`, or let the lab's Step 4 discover and lint";

/// Why the contract's facts could not be read.
#[derive(Debug, thiserror::Error)]
pub enum FactsError {
    #[error("{0}")]
    Read(#[from] BoundedError),
    #[error("{}: not a contract.json: {source}", path.display())]
    Parse { path: PathBuf, source: serde_json::Error },
    #[error("{}: contract version {found}, this build reads version {CONTRACT_VERSION}; run `ghostlab discover` again", path.display())]
    Version { path: PathBuf, found: u64 },
    #[error("{0}")]
    Decisions(String),
}

/// The gate facts of a job: its contract's counts without the findings people accepted or
/// waived (`<job>.decisions.json`) while the evidence is what they decided on; an expired
/// decision counts again. The one reader for `test`, the lab, `merge` and `rescore`.
pub(crate) fn job_contract_facts(job: &crate::spec::LoadedJob) -> Result<GateFacts, FactsError> {
    use crate::mcp::contract::decisions::{decisions_path, load};
    let decisions = load(&decisions_path(&job.file)).map_err(|e| FactsError::Decisions(e.to_string()))?;
    let facts = facts_with(&job.state_dir(), Some(&decisions))?;
    Ok(GateFacts { decisions, ..facts })
}

/// The gate facts of the job whose state folder is `state_dir`, no decisions applied: the
/// contract's counts, or why there are none (for tests of the contract's reading).
#[cfg(test)]
pub(crate) fn contract_facts(state_dir: &Path) -> Result<GateFacts, FactsError> {
    facts_with(state_dir, None)
}

fn facts_with(
    state_dir: &Path,
    decisions: Option<&crate::mcp::contract::decisions::Decisions>,
) -> Result<GateFacts, FactsError> {
    let path = state_dir.join("contract.json");
    let Some(text) = read_optional_string(&path, FileKind::State)? else {
        return Ok(GateFacts {
            contract: ContractFacts::Missing {
                reason: NOT_LINTED.into(),
            },
            ..GateFacts::default()
        });
    };
    let value: serde_json::Value = serde_json::from_str(&text).map_err(|source| FactsError::Parse {
        path: path.clone(),
        source,
    })?;
    // The version first: a newer contract may not parse as this build's, and "cannot parse"
    // would hide that the file is simply from another version.
    match value.get("version").and_then(serde_json::Value::as_u64) {
        Some(v) if v == u64::from(CONTRACT_VERSION) => {}
        found => {
            return Err(FactsError::Version {
                path,
                found: found.unwrap_or(0),
            });
        }
    }
    let contract: Contract = serde_json::from_value(value).map_err(|source| FactsError::Parse {
        path: path.clone(),
        source,
    })?;
    // The inventory, for the evidence a decision was taken on; without it a decision still
    // matches a finding whose words are unchanged and that points at nothing.
    let inventory: Option<serde_json::Value> = match decisions {
        Some(_) => read_optional_string(&state_dir.join("inventory.json"), FileKind::State)?
            .and_then(|t| serde_json::from_str(&t).ok()),
        None => None,
    };
    let counts = |f: &&crate::mcp::contract::Finding| {
        decisions.is_none_or(|d| crate::mcp::contract::decisions::standing(f, inventory.as_ref(), d).counts())
    };
    let errors_among = |of_kind: &dyn Fn(&str) -> bool| {
        contract
            .findings
            .iter()
            .filter(counts)
            .filter(|f| of_kind(&f.code))
            .filter(|f| f.severity == crate::mcp::contract::rules::Severity::Error)
            .count()
    };
    Ok(GateFacts {
        contract: ContractFacts::Linted {
            // The security rules are those with a security-severity (`contract::rule_help`, SARIF's too).
            high_security_findings: errors_among(&crate::mcp::contract::rule_help::is_security),
            tool_schema_errors: errors_among(&|code| SCHEMA_CODES.contains(&code)),
        },
        ..GateFacts::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_contract_is_not_zero_findings() {
        let dir = tempfile::tempdir().unwrap();
        let facts = contract_facts(dir.path()).unwrap();
        assert!(matches!(facts.contract, ContractFacts::Missing { .. }), "{facts:?}");
    }

    #[test]
    fn a_contract_of_another_version_is_refused_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("contract.json"), r#"{"version": 7, "findings": []}"#).unwrap();
        let e = contract_facts(dir.path()).unwrap_err().to_string();
        assert!(e.contains("contract.json") && e.contains("version 7"), "{e}");
    }

    #[test]
    fn a_contract_that_is_not_json_is_refused_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("contract.json"), "{ not json").unwrap();
        let e = contract_facts(dir.path()).unwrap_err().to_string();
        assert!(e.contains("contract.json") && e.contains("not a contract.json"), "{e}");
    }
}
