//! SARIF 2.1.0 output of contract findings, for CI code scanning (GitHub's ingestion rules:
//! every rule with `fullDescription` and `help`, security rules with `security-severity`,
//! results with a region, relative URIs under `%SRCROOT%`, stable `partialFingerprints`).
//!
//! A finding's physical location is where its server is declared in the user's own files (the
//! MCP servers file, or job.yaml; `sarif_sources`), never the generated inventory.json; the
//! `server/tool` it concerns is its logical location.

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::PathBuf;

use super::decide::verdict_word;
use super::decisions::{Decisions, Standing, standing};
use super::rule_help::help_of;
use super::rules::ALL;
use super::{Contract, Finding};

/// The SARIF schema URI written in `$schema`.
pub(crate) const SARIF_SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// The base id every result's URI is relative to: the repository (or job) folder.
pub(crate) const SOURCE_ROOT_ID: &str = "%SRCROOT%";

/// The `partialFingerprints` key; the `/v1` changes if what it hashes ever does.
pub(crate) const FINGERPRINT_KEY: &str = "ghostlabFinding/v1";

/// Where one server is declared, relative to the source root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Declared {
    /// A relative URI reference (`/`-separated, percent-encoded), e.g. `config/mcp.json`.
    pub(crate) uri: String,
    pub(crate) line: usize,
    pub(crate) column: usize,
    pub(crate) end_column: usize,
}

/// The source root and where each server of the job is declared under it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SarifSources {
    /// The absolute folder `%SRCROOT%` stands for.
    pub(crate) root: PathBuf,
    pub(crate) declared: BTreeMap<String, Declared>,
}

/// A finding whose server the sources do not declare (an inventory of another job).
#[derive(Debug, thiserror::Error)]
#[error(
    "the inventory names server `{0}`, which the job does not declare: the inventory is not this job's (run `ghostlab discover --job …` again)"
)]
pub(crate) struct Undeclared(pub String);

/// A relative path as a SARIF relative `uri-reference`: `/`-separated, every byte outside the
/// unreserved set percent-encoded (a `:` too, which would otherwise read as a scheme).
pub(crate) fn relative_uri(path: &std::path::Path) -> String {
    let text = path.to_string_lossy().replace('\\', "/");
    let mut out = String::new();
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// The root folder as the absolute `file:` URI `originalUriBaseIds` gives, ending in `/`.
fn root_uri(root: &std::path::Path) -> String {
    let mut uri = format!("file://{}", relative_uri(root));
    if !uri.ends_with('/') {
        uri.push('/');
    }
    uri
}

/// The finding's pointer without the inventory positions of its server and item (their names
/// are hashed instead), so a tool added or reordered does not change other fingerprints.
fn stable_pointer(pointer: &str) -> String {
    let mut parts: Vec<&str> = pointer.split('/').collect();
    // "", "servers", N, ("tools" | "resources" | "prompts" | …), M, rest…
    if parts.len() >= 3 && parts[1] == "servers" {
        parts.drain(1..3);
        if parts.len() >= 3 && parts[2].parse::<usize>().is_ok() {
            parts.remove(2);
        }
    }
    parts.join("/")
}

/// A fingerprint of what the finding is about, the same across runs, machines and checkouts.
pub fn fingerprint(f: &Finding) -> String {
    let mut h = Sha256::new();
    for part in [
        f.code.as_str(),
        f.server.as_str(),
        f.item.as_deref().unwrap_or(""),
        &stable_pointer(&f.pointer),
    ] {
        h.update(part.as_bytes());
        h.update([0]);
    }
    hex::encode(h.finalize())
}

fn rule_entry(rule: &super::rules::Rule) -> Value {
    let help = help_of(rule);
    let (why, fix) = help.map_or(("", ""), |h| (h.why, h.fix));
    let mut properties = json!({
        "tags": ["mcp", if help.and_then(|h| h.security_severity).is_some() { "security" } else { "quality" }],
        "ghostlabSeverity": rule.severity.as_str(),
    });
    if let Some(s) = help.and_then(|h| h.security_severity) {
        properties["security-severity"] = json!(format!("{s:.1}"));
    }
    json!({
        "id": rule.code,
        "name": rule.slug,
        "shortDescription": { "text": rule.summary },
        "fullDescription": { "text": format!("{} {why}", rule.summary) },
        "help": {
            "text": format!("{fix}\n\nRule {} ({}) of `ghostlab lint`: {}", rule.code, rule.slug, rule.summary),
            "markdown": format!(
                "**How to fix:** {fix}\n\n**Why:** {why}\n\n`ghostlab lint` rule `{}` (`{}`).",
                rule.code, rule.slug
            ),
        },
        "defaultConfiguration": { "level": rule.severity.sarif_level() },
        "properties": properties,
    })
}

fn result_entry(f: &Finding, at: &Declared) -> Value {
    let name = match &f.item {
        Some(i) => format!("{}/{}", f.server, i),
        None => f.server.clone(),
    };
    let mut result = json!({
        "ruleId": f.code,
        "level": f.severity.sarif_level(),
        "message": { "text": f.message },
        "locations": [{
            "physicalLocation": {
                "artifactLocation": { "uri": at.uri, "uriBaseId": SOURCE_ROOT_ID },
                "region": {
                    "startLine": at.line,
                    "startColumn": at.column,
                    "endLine": at.line,
                    "endColumn": at.end_column.max(at.column + 1),
                }
            },
            "logicalLocations": [{
                "name": f.item.clone().unwrap_or_else(|| f.server.clone()),
                "fullyQualifiedName": name,
                "kind": if f.item.is_some() { "member" } else { "module" }
            }]
        }],
        "partialFingerprints": { FINGERPRINT_KEY: fingerprint(f) },
        "properties": { "jsonPointer": f.pointer, "server": f.server }
    });
    if let Some(i) = ALL.iter().position(|r| r.code == f.code) {
        result["ruleIndex"] = json!(i);
    }
    result
}

/// A finding people accepted or waived (and whose evidence is unchanged) as SARIF's
/// `suppressions`: external (the decision lives in `<job>.decisions.json`, not in the source),
/// accepted, with the reason as justification. Open and expired findings have none.
fn suppressions(s: &Standing) -> Option<Value> {
    let Standing::Decided(d) = s else {
        return None;
    };
    Some(json!([{
        "kind": "external",
        "status": "accepted",
        "justification": d.reason,
        "properties": { "decision": verdict_word(d.decision), "who": d.who, "when": d.when }
    }]))
}

/// What people decided on the contract's findings, for `to_sarif`.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct SarifDecisions<'a> {
    pub(crate) decisions: Option<&'a Decisions>,
    /// inventory.json as JSON, for the evidence digests.
    pub(crate) inventory: Option<&'a Value>,
}

/// Renders `contract` as a SARIF 2.1.0 log whose results point where `sources` says each
/// server is declared; a decided finding carries its decision as a suppression.
pub(crate) fn to_sarif(
    contract: &Contract,
    sources: &SarifSources,
    decided: SarifDecisions<'_>,
) -> Result<Value, Undeclared> {
    let rules: Vec<Value> = ALL.iter().map(rule_entry).collect();
    let results = contract
        .findings
        .iter()
        .map(|f| {
            let at = sources
                .declared
                .get(&f.server)
                .ok_or_else(|| Undeclared(f.server.clone()))?;
            let mut result = result_entry(f, at);
            let standing = decided.decisions.map(|d| standing(f, decided.inventory, d));
            if let Some(s) = standing.as_ref().and_then(suppressions) {
                result["suppressions"] = s;
            }
            Ok(result)
        })
        .collect::<Result<Vec<Value>, Undeclared>>()?;
    Ok(json!({
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "ghostlab",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": rules
                }
            },
            "originalUriBaseIds": {
                SOURCE_ROOT_ID: {
                    "uri": root_uri(&sources.root),
                    "description": { "text": "The repository (or job) folder the results' files are relative to." }
                }
            },
            "columnKind": "utf16CodeUnits",
            "results": results
        }]
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(pointer: &str, item: Option<&str>) -> Finding {
        Finding {
            code: "GL003".into(),
            rule: "missing-parameter-description".into(),
            severity: super::super::Severity::Warning,
            server: "gh".into(),
            item: item.map(str::to_string),
            pointer: pointer.into(),
            message: "m".into(),
        }
    }

    #[test]
    fn fingerprints_ignore_inventory_positions_but_not_what_the_finding_is_about() {
        let a = fingerprint(&finding("/servers/0/tools/3/inputSchema/properties/q", Some("search")));
        let moved = fingerprint(&finding("/servers/2/tools/0/inputSchema/properties/q", Some("search")));
        assert_eq!(a, moved, "a tool reordered keeps its fingerprint");
        let other_param = fingerprint(&finding("/servers/0/tools/3/inputSchema/properties/r", Some("search")));
        let other_tool = fingerprint(&finding("/servers/0/tools/3/inputSchema/properties/q", Some("fetch")));
        assert_ne!(a, other_param);
        assert_ne!(a, other_tool);
        assert_eq!(stable_pointer("/servers/1"), "");
        assert_eq!(stable_pointer("/servers/1/capabilities"), "/capabilities");
    }

    /// The fingerprints of the contract of `inventory` (as JSON), sorted.
    fn prints_of(inventory: &serde_json::Value) -> Vec<String> {
        let inv = crate::mcp::inventory::Inventory::from_json(&inventory.to_string()).unwrap();
        let mut out: Vec<String> = super::super::build_contract(&inv)
            .findings
            .iter()
            .map(fingerprint)
            .collect();
        out.sort();
        out
    }

    #[test]
    fn a_reordered_inventory_keeps_every_fingerprint() {
        let flawed: serde_json::Value =
            serde_json::from_str(include_str!("../../../tests/fixtures/mcp/inventory-flawed.json")).unwrap();
        let mut reordered = flawed.clone();
        let servers = reordered["servers"].as_array_mut().unwrap();
        servers.reverse();
        for s in servers.iter_mut() {
            if let Some(tools) = s.get_mut("tools").and_then(serde_json::Value::as_array_mut) {
                tools.reverse();
            }
        }
        assert_eq!(prints_of(&flawed), prints_of(&reordered));
        // Near duplicates and cross-server names, the pairwise rules, are among them.
        let inv = crate::mcp::inventory::Inventory::from_json(&flawed.to_string()).unwrap();
        let codes: Vec<String> = super::super::build_contract(&inv)
            .findings
            .into_iter()
            .map(|f| f.code)
            .collect();
        assert!(
            codes.iter().any(|c| c == "GL014") && codes.iter().any(|c| c == "GL015"),
            "{codes:?}"
        );
    }

    #[test]
    fn uris_are_relative_references_without_a_scheme() {
        assert_eq!(
            relative_uri(std::path::Path::new("cfg/my mcp.json")),
            "cfg/my%20mcp.json"
        );
        assert_eq!(relative_uri(std::path::Path::new("c:x.json")), "c%3Ax.json");
        assert_eq!(root_uri(std::path::Path::new("/work/repo")), "file:///work/repo/");
    }
}
