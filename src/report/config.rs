//! Section 1: the resolved agent configuration and the sandbox provenance.
//!
//! Literal values under secret-looking keys are masked and `${VAR}` references are kept as
//! references; a value is never resolved here.

use serde_json::Value;
use std::path::Path;

use super::model::*;
use super::read::red;
use crate::redact::{MASK, Redactor};
use crate::run::store::run_dir::RunDir;
use crate::spec::{LoadedJob, McpTransport};
use crate::trial::RunEvent;
use crate::util::secret_ref::{has_reference, is_secret_name};

/// Which of the job's own files (job.yaml, the state folder with the dataset and earlier runs,
/// cassettes, decisions) lie in the workspace and so were left out of every copy the agent got.
fn own_files_left_out(job: &LoadedJob) -> String {
    let Some(ws) = job.job.agent.workspace.as_deref().map(|w| job.resolve(w)) else {
        return "— (no workspace)".into();
    };
    let ws = ws.canonicalize().unwrap_or(ws);
    let inside: Vec<String> = job
        .own_paths()
        .into_iter()
        .filter_map(|p| {
            let p = p.canonicalize().unwrap_or(p);
            p.strip_prefix(&ws).ok().map(|r| r.display().to_string())
        })
        .filter(|r| !r.is_empty())
        .collect();
    if inside.is_empty() {
        "none of the job's own files lie in the workspace".into()
    } else {
        format!("{} (the job's own files: never copied)", inside.join(", "))
    }
}

pub(super) fn config_section(job: &LoadedJob, run_dir: &Path, r: &Redactor) -> ConfigSection {
    let mut agent_value = serde_json::to_value(&job.job.agent).unwrap_or(Value::Null);
    mask_secret_keys(&mut agent_value);
    r.redact_value(&mut agent_value);
    let agent_yaml = yaml_serde::to_string(&agent_value).unwrap_or_default();
    let (backends_used, denied) = sandbox_provenance(run_dir, r);
    ConfigSection {
        agent: agent_rows(job).into_iter().map(|(k, v)| (k, red(r, &v))).collect(),
        mcps: mcp_rows(job, r),
        agent_yaml: red(r, &agent_yaml),
        sandbox: sandbox_rows(job, &backends_used)
            .into_iter()
            .chain(crate::providers::record::rows_for_run(run_dir))
            .map(|(k, v)| (k, red(r, &v)))
            .collect(),
        denied,
    }
}

/// `—` for a value the job leaves unset.
fn or_dash(o: &Option<String>) -> String {
    o.clone().unwrap_or_else(|| "—".into())
}

/// A list joined with commas, `—` when empty.
fn listed(v: &[String]) -> String {
    if v.is_empty() { "—".to_string() } else { v.join(", ") }
}

/// The agent's table, before redaction: identity, runtime, and the optional keys it sets.
fn agent_rows(job: &LoadedJob) -> Vec<(String, String)> {
    let a = &job.job.agent;
    let rt = &a.runtime;
    let mut agent = vec![
        ("Agent id".to_string(), a.id.clone()),
        ("Name".into(), or_dash(&a.name)),
        ("Description".into(), or_dash(&a.description)),
        ("Runtime backend".into(), format!("{:?}", rt.backend).to_lowercase()),
        ("Model".into(), or_dash(&rt.model)),
        ("Small model".into(), or_dash(&rt.small_model)),
        ("Default agent".into(), or_dash(&rt.default_agent)),
        ("Instructions".into(), listed(&rt.instructions)),
        ("Skills".into(), listed(&rt.skills.paths)),
        ("Workspace".into(), or_dash(&a.workspace)),
    ];
    if !rt.tools.is_empty() {
        let tools: Vec<String> = rt.tools.iter().map(|(k, v)| format!("{k}={v}")).collect();
        agent.push(("Tools".into(), tools.join(", ")));
    }
    if let Some(p) = &rt.permission {
        agent.push(("Permission".into(), masked_json(p)));
    }
    if !rt.agents.is_empty() {
        agent.push((
            "Sub-agents".into(),
            rt.agents.keys().cloned().collect::<Vec<_>>().join(", "),
        ));
    }
    agent
}

/// One row per MCP server: transport, target and its environment or headers (secrets masked).
fn mcp_rows(job: &LoadedJob, r: &Redactor) -> Vec<McpRow> {
    job.mcps
        .iter()
        .map(|m| {
            let (transport, target, env) = match &m.transport {
                McpTransport::Stdio { command, env, .. } => ("stdio".to_string(), command.join(" "), pairs(env)),
                McpTransport::Remote { url, headers, kind } => {
                    (format!("{kind:?}").to_lowercase(), url.clone(), pairs(headers))
                }
            };
            McpRow {
                name: red(r, &m.name),
                transport,
                target: red(r, &target),
                env: red(r, &env),
                enabled: m.enabled,
            }
        })
        .collect()
}

/// What the run's events say about the sandbox: the backends sessions were ready on (in order
/// of first use) and every egress the proxy denied.
fn sandbox_provenance(run_dir: &Path, r: &Redactor) -> (Vec<String>, Vec<DeniedEgress>) {
    let mut seen: Vec<String> = Vec::new();
    let mut denied = Vec::new();
    for dir in RunDir::new(run_dir).trials() {
        let trial = dir.trial;
        for e in dir.read_events().unwrap_or_default() {
            match &e.event {
                RunEvent::SandboxReady { role, backend, .. } => {
                    let s = format!("{backend} ({role:?})");
                    if !seen.contains(&s) {
                        seen.push(s);
                    }
                }
                RunEvent::EgressDenied { host, port, at } => denied.push(DeniedEgress {
                    case: red(r, &e.case),
                    trial,
                    host: red(r, host),
                    port: *port,
                    at: at.format("%H:%M:%S").to_string(),
                }),
                _ => {}
            }
        }
    }
    (seen, denied)
}

/// The sandbox's table, before redaction: the job's settings and the backends actually used.
fn sandbox_rows(job: &LoadedJob, backends_used: &[String]) -> Vec<(String, String)> {
    let sb = &job.job.sandbox;
    let or_none = |n: Option<String>| n.unwrap_or_else(|| "—".into());
    vec![
        (
            "Configured backend".to_string(),
            format!("{:?}", sb.backend).to_lowercase(),
        ),
        ("Backends used".into(), listed(backends_used)),
        ("Root filesystem".into(), sb.root_filesystem.as_str().to_string()),
        ("Image".into(), or_dash(&sb.image)),
        ("Workdir".into(), sb.workdir.clone()),
        ("Left out of the agent's copy".into(), own_files_left_out(job)),
        ("Network".into(), format!("{:?}", sb.network).to_lowercase()),
        ("Allowlist".into(), listed(&sb.allow)),
        ("Policy".into(), or_dash(&sb.policy)),
        ("Environment allowlist (names)".into(), listed(&sb.env_allowlist)),
        ("Credential variables (names)".into(), listed(&sb.credentials.env)),
        ("CPU".into(), or_none(sb.cpu.map(|c| c.to_string()))),
        (
            "Memory".into(),
            sb.memory.clone().unwrap_or_else(|| "2GiB (default)".into()),
        ),
        ("Timeout".into(), or_dash(&sb.timeout)),
        ("Processes".into(), or_none(sb.processes.map(|c| c.to_string()))),
        ("File size".into(), or_dash(&sb.file_size)),
        ("HOME and TMPDIR".into(), crate::sandbox::scratch::bound_summary()),
        ("Keep after run".into(), sb.keep.to_string()),
    ]
}

/// `KEY=value` pairs where a secret-named key shows only its reference, never a literal.
fn pairs(map: &indexmap::IndexMap<String, String>) -> String {
    map.iter()
        .map(|(k, v)| {
            let shown = if has_reference(v) || !is_secret_name(k) {
                v.as_str()
            } else {
                MASK
            };
            format!("{k}={shown}")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn masked_json<T: serde::Serialize>(v: &T) -> String {
    let mut value = serde_json::to_value(v).unwrap_or(Value::Null);
    mask_secret_keys(&mut value);
    serde_json::to_string(&value).unwrap_or_default()
}

/// Replaces literal values of secret-named keys; `${VAR}` references stay as they are.
pub(super) fn mask_secret_keys(v: &mut Value) {
    match v {
        Value::Object(map) => {
            for (k, val) in map.iter_mut() {
                match val {
                    Value::String(s) if is_secret_name(k) && !has_reference(s) => *s = MASK.into(),
                    other => mask_secret_keys(other),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(mask_secret_keys),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_named_literals_are_masked_and_references_kept() {
        let mut v =
            serde_json::json!({"env": {"API_TOKEN": "literal-value", "GH_TOKEN": "${GH_TOKEN}", "MODE": "fast"}});
        mask_secret_keys(&mut v);
        assert_eq!(v["env"]["API_TOKEN"], MASK);
        assert_eq!(v["env"]["GH_TOKEN"], "${GH_TOKEN}");
        assert_eq!(v["env"]["MODE"], "fast");
    }
}

#[cfg(test)]
mod own_files_tests {
    use super::own_files_left_out;

    #[test]
    fn the_provenance_names_the_job_files_left_out_of_a_workspace_that_holds_them() {
        let d = tempfile::tempdir().unwrap();
        let job = d.path().join("job.yaml");
        std::fs::write(
            &job,
            "version: 1\nagent:\n  id: a\n  workspace: .\n  runtime: { backend: mock }\nsandbox: { backend: local }\n",
        )
        .unwrap();
        let loaded = crate::spec::load_job(&job).unwrap();
        let row = own_files_left_out(&loaded);
        assert!(row.contains("job.yaml") && row.contains(".ghostlab"), "{row}");
        std::fs::create_dir(d.path().join("repo")).unwrap();
        std::fs::write(
            &job,
            std::fs::read_to_string(&job)
                .unwrap()
                .replace("workspace: .", "workspace: ./repo"),
        )
        .unwrap();
        let loaded = crate::spec::load_job(&job).unwrap();
        assert_eq!(
            own_files_left_out(&loaded),
            "none of the job's own files lie in the workspace"
        );
    }
}
