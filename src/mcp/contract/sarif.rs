//! SARIF 2.1.0 output of contract findings, for CI code scanning.
//!
//! Every result points at the inventory file (physical location) and at `server/tool`
//! (logical location); rules carry their stable codes.

use serde_json::{Value, json};

use super::Contract;
use super::rules::ALL;

/// The SARIF schema URI written in `$schema`.
pub const SARIF_SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// Renders `contract` as a SARIF 2.1.0 log; `artifact` is the inventory's path or URI.
pub fn to_sarif(contract: &Contract, artifact: &str) -> Value {
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
                    "physicalLocation": { "artifactLocation": { "uri": artifact } },
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
