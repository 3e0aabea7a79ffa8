//! SARIF 2.1.0 output of contract findings, for CI code scanning.
//!
//! Every result points at the inventory file (physical location) and at `server/tool`
//! (logical location); rules carry their stable codes.

use serde_json::{Value, json};

use super::Contract;
use super::rules::ALL;

/// The SARIF schema URI written in `$schema`.
pub const SARIF_SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// A file path as a SARIF `uri-reference` (percent-encodes what a URI cannot hold).
fn uri_reference(path: &str) -> String {
    let mut out = String::new();
    for b in path.replace('\\', "/").bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' | b':' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Renders `contract` as a SARIF 2.1.0 log; `artifact` is the inventory's path.
pub fn to_sarif(contract: &Contract, artifact: &str) -> Value {
    let artifact = uri_reference(artifact);
    let rules: Vec<Value> = ALL
        .iter()
        .map(|r| {
            json!({
                "id": r.code,
                "name": r.slug,
                "shortDescription": { "text": r.summary },
                "defaultConfiguration": { "level": r.severity.sarif_level() },
                "properties": { "ghostlabSeverity": r.severity.as_str() }
            })
        })
        .collect();
    let results: Vec<Value> = contract
        .findings
        .iter()
        .map(|f| {
            let index = ALL.iter().position(|r| r.code == f.code);
            let name = match &f.item {
                Some(i) => format!("{}/{}", f.server, i),
                None => f.server.clone(),
            };
            let mut result = json!({
                "ruleId": f.code,
                "level": f.severity.sarif_level(),
                "message": { "text": f.message },
                "locations": [{
                    "physicalLocation": { "artifactLocation": { "uri": artifact.clone() } },
                    "logicalLocations": [{
                        "name": f.item.clone().unwrap_or_else(|| f.server.clone()),
                        "fullyQualifiedName": name,
                        "kind": if f.item.is_some() { "member" } else { "module" }
                    }]
                }],
                "properties": { "jsonPointer": f.pointer, "server": f.server }
            });
            if let Some(i) = index {
                result["ruleIndex"] = json!(i);
            }
            result
        })
        .collect();
    json!({
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
            "results": results
        }]
    })
}
