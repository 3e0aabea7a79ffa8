//! The safety-relevant proposals: permissions with their blast radius, the sandbox, and gates.
//!
//! Pure functions of the job and the command-line seeds; nothing here reads files.

use indexmap::IndexMap;

use super::apply::{SandboxAnswer, to_answer_yaml};
pub use super::gate_error::GateError;
use super::types::Proposal;
use crate::spec::review::{Gates, PassK};
use crate::spec::{Action, Job, NetworkMode, Permission, PermissionRule, SandboxBackend};

/// The default permissions proposed when the agent has none, with their blast radius.
pub(crate) const SAFE_PERMISSIONS: [(&str, Action); 4] = [
    ("bash", Action::Ask),
    ("edit", Action::Allow),
    ("external_directory", Action::Deny),
    ("webfetch", Action::Deny),
];

/// What a permission lets the agent do if allowed: the blast radius, spelled out.
pub(crate) fn blast_radius(tool: &str) -> &'static str {
    match tool {
        "bash" => {
            "runs any shell command in the sandbox: can delete files, start processes, use the network if the sandbox has one"
        }
        "edit" => "writes and deletes files in the workspace copy (never your checkout)",
        "read" => "reads any file visible in the sandbox",
        "external_directory" => "touches paths outside the workspace copy",
        "webfetch" => "downloads URLs: data leaves through the request, untrusted text comes back in",
        "websearch" => "sends queries to a search service",
        "task" => "starts subagents that inherit these permissions",
        "todowrite" | "todoread" => "keeps a task list; no effect outside the session",
        "skill" => "loads skill files into the conversation",
        _ => "a tool or MCP server permission; check what the tool can change",
    }
}

/// Proposes the job's own permissions, or the safe defaults, each with its blast radius, and
/// every discovered MCP tool with its risk labels (from `contract`) and effective permission.
pub fn permissions(job: &Job, contract: Option<&crate::mcp::contract::Contract>) -> Proposal {
    let mut map: IndexMap<String, PermissionRule> = match &job.agent.runtime.permission {
        Some(Permission::PerTool(m)) => m.clone(),
        Some(Permission::All(a)) => [("*".to_string(), PermissionRule::Action(*a))].into_iter().collect(),
        None => IndexMap::new(),
    };
    let mut notes = Vec::new();
    if map.is_empty() {
        // Nothing here came from the person: say so, and how to take it back.
        notes.push(
            "Added by Ghostlab because your agent has no permission map: shell asks, edits stay in the \
             workspace copy, nothing outside it, no web. Press e to change or remove any of them."
                .into(),
        );
        for (tool, action) in SAFE_PERMISSIONS {
            map.insert(tool.to_string(), PermissionRule::Action(action));
        }
    }
    for tool in map.keys() {
        notes.push(format!("{tool}: {}", blast_radius(tool)));
    }
    notes.push("allow = runs without asking; ask = the simulated user decides; deny = refused.".into());
    let tools = super::tool_permissions::tool_lines(job, &map, contract);
    if tools.is_empty() {
        notes.push("No MCP tools discovered yet (Step 4 discovers them); their permissions show here then.".into());
    } else {
        notes.push(format!(
            "{} discovered MCP tool(s), as OpenCode names them, with their risk labels and the permission each gets (the last matching key decides; none matching = allow):",
            tools.len()
        ));
        notes.extend(tools);
    }
    Proposal::new(to_answer_yaml(&map), notes)
}

/// Sets one `--gate key=value`.
pub(crate) fn set_gate(g: &mut Gates, key: &str, value: &str) -> Result<(), GateError> {
    let rate = || {
        value.parse::<f64>().map_err(|_| GateError::NotANumber {
            key: key.into(),
            value: value.into(),
        })
    };
    let flag = || {
        value.parse::<bool>().map_err(|_| GateError::NotABool {
            key: key.into(),
            value: value.into(),
        })
    };
    let pass_k_part = |part| GateError::PassKPart {
        value: value.into(),
        part,
    };
    match key {
        "min_pass_rate" => g.min_pass_rate = Some(rate()?),
        "max_inconclusive_rate" => g.max_inconclusive_rate = Some(rate()?),
        "max_infra_error_rate" => g.max_infra_error_rate = Some(rate()?),
        "no_high_security_findings" => g.no_high_security_findings = Some(flag()?),
        "no_tool_schema_errors" => g.no_tool_schema_errors = Some(flag()?),
        "no_denied_egress" => g.no_denied_egress = Some(flag()?),
        "pass_k" => {
            // `pass_k=K:RATE`, e.g. 3:0.9
            let (k, r) = value
                .split_once(':')
                .ok_or_else(|| GateError::PassKShape { value: value.into() })?;
            let k = k.parse().map_err(|_| pass_k_part("K"))?;
            let min_rate = r.parse().map_err(|_| pass_k_part("RATE"))?;
            g.pass_k = Some(PassK { k, min_rate });
        }
        other => return Err(GateError::Unknown { key: other.into() }),
    }
    Ok(())
}

/// Proposes the sandbox: the `--sandbox` choice or the job's own, never `local` unasked.
/// `gateway` is `doctor`'s OpenShell probe: OpenShell is offered only when it works.
pub(crate) fn sandbox(job: &Job, seed: Option<SandboxBackend>, gateway: &crate::sandbox::doctor::Probe) -> Proposal {
    let s = &job.sandbox;
    let answer = SandboxAnswer {
        backend: seed.unwrap_or(s.backend),
        image: s.image.clone(),
        network: s.network,
        allow: s.allow.clone(),
        credentials: s.credentials.clone(),
    };
    let mut notes = vec![
        "backend: bubblewrap (namespaces + seccomp), local (no isolation; only if you say so).".to_string(),
        openshell_note(answer.backend, gateway),
        "network: disabled, or allowlist with `allow: [host:port]`.".into(),
        "credentials: opencode_auth uploads OpenCode's login; env lists variables passed to the agent. Both off unless you opt in.".into(),
    ];
    if let Some(ws) = &job.agent.workspace {
        notes.push(format!(
            "workspace: `{ws}` is copied for every case, leaving out the job's own files (job.yaml, the state folder `{}`, cassettes): the agent never reads the test's criteria or earlier results.",
            job.paths.state_dir
        ));
    }
    let hosts = crate::providers::endpoints::preview_hosts(job);
    if !hosts.is_empty() {
        notes.push(format!(
            "Model provider hosts the run adds to the allowlist (nothing else): {}",
            hosts.join("; ")
        ));
    }
    for var in &answer.credentials.env {
        let whose = crate::llm::providers::OPENCODE_BUILTIN
            .iter()
            .find(|k| k.env.contains(&var.as_str()))
            .map(|k| format!("the agent's key for {} ({var})", k.id))
            .unwrap_or_else(|| var.clone());
        notes.push(format!(
            "Blast radius: {whose} is inside the sandbox for the run, in the agent's environment; its tools can read it and reach only the allowlisted hosts."
        ));
    }
    if answer.credentials.opencode_auth {
        notes.push(
            "Blast radius: your OpenCode login for the job's providers is inside the sandbox for the run (a private file, removed with the session)."
                .into(),
        );
    }
    if answer.backend == SandboxBackend::Local {
        notes.push("WARNING: local runs the agent without isolation.".into());
    } else {
        notes.push(match s.root_filesystem {
            crate::spec::RootFilesystem::Isolated => "root_filesystem: isolated (job.yaml `sandbox.root_filesystem`): only /usr, a generated /etc, the agent's and MCP servers' runtimes, staged inputs and the workspace copy exist inside.".to_string(),
            crate::spec::RootFilesystem::ReadOnly => "root_filesystem: read_only (job.yaml `sandbox.root_filesystem`): the whole host is visible read-only; the agent can read any world-readable host file.".to_string(),
        });
    }
    notes.push(format!(
        "memory cap: {} (job.yaml `sandbox.memory`; whole tree through a cgroup as root, per process otherwise).",
        s.memory.clone().unwrap_or_else(|| "2GiB (the default cap)".into())
    ));
    notes.push(format!("{}.", crate::sandbox::scratch::bound_summary()));
    if answer.network == NetworkMode::Allowlist {
        notes.push(format!("The agent can reach: {}", answer.allow.join(", ")));
    }
    Proposal::new(to_answer_yaml(&answer), notes)
}

/// What Step 7 says about OpenShell, from the probe `ghostlab doctor` runs.
fn openshell_note(chosen: SandboxBackend, gateway: &crate::sandbox::doctor::Probe) -> String {
    match (gateway.works, chosen == SandboxBackend::Openshell) {
        (true, _) => format!(
            "openshell: offered, a gateway answers here ({}); `backend: openshell` runs each case in an OpenShell sandbox from `sandbox.image` (cold turns).",
            gateway.detail
        ),
        (false, true) => format!(
            "WARNING: backend openshell, but {}{}: every case would end INFRA_ERROR.",
            gateway.detail,
            gateway.fix.as_deref().map(|f| format!(" ({f})")).unwrap_or_default()
        ),
        (false, false) => format!("openshell: not offered here, {}.", gateway.detail),
    }
}

/// Proposes gates: the job's own or the defaults, then each `--gate key=value`.
pub(crate) fn gates(job: &Job, overrides: &[(String, String)]) -> Result<Proposal, GateError> {
    let mut g = job.review.gates.clone();
    if g == Gates::default() {
        g = Gates {
            min_pass_rate: Some(0.8),
            max_inconclusive_rate: Some(crate::judge::default_gates::DEFAULT_MAX_INCONCLUSIVE_RATE),
            max_infra_error_rate: Some(crate::judge::default_gates::DEFAULT_MAX_INFRA_ERROR_RATE),
            no_high_security_findings: Some(true),
            no_denied_egress: Some(true),
            ..Gates::default()
        };
    }
    for (k, v) in overrides {
        set_gate(&mut g, k, v)?;
    }
    let notes = vec![
        "min_pass_rate: PASS over all cases; INCONCLUSIVE and INFRA_ERROR never count as PASS.".into(),
        "pass_k: {k, min_rate}: every one of k trials must pass, for min_rate of cases.".into(),
        "max_inconclusive_rate / max_infra_error_rate: budgets for cases that could not be judged.".into(),
        "no_high_security_findings, no_tool_schema_errors, no_denied_egress: security gates.".into(),
        format!(
            "A job with no gates still gets max_infra_error_rate {} and max_inconclusive_rate {}; a run where every trial is INFRA_ERROR never meets its gates.",
            crate::judge::default_gates::DEFAULT_MAX_INFRA_ERROR_RATE,
            crate::judge::default_gates::DEFAULT_MAX_INCONCLUSIVE_RATE
        ),
    ];
    Ok(Proposal::new(to_answer_yaml(&g), notes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::doctor::Probe;

    fn no_gateway() -> Probe {
        Probe {
            backend: "openshell",
            works: false,
            detail: "the `openshell` CLI is not on PATH".into(),
            fix: Some("install OpenShell and start its gateway".into()),
        }
    }

    #[test]
    fn permissions_the_person_did_not_choose_are_named_as_added_by_ghostlab() {
        let added = permissions(&Job::default(), None).notes.join("\n");
        assert!(
            added.contains("Added by Ghostlab because your agent has no permission map"),
            "{added}"
        );
        assert!(added.contains("e to change or remove"), "{added}");
        // The person's own map is proposed as written, with nothing added and no such note.
        let mut job = Job::default();
        let own: IndexMap<String, PermissionRule> = [("edit".to_string(), PermissionRule::Action(Action::Deny))]
            .into_iter()
            .collect();
        job.agent.runtime.permission = Some(Permission::PerTool(own));
        let p = permissions(&job, None);
        assert!(!p.text.contains("bash"), "{}", p.text);
        assert!(!p.notes.join("\n").contains("Added by Ghostlab"));
    }

    #[test]
    fn a_refused_gate_names_the_flag_as_typed() {
        let refused = |key: &str, value: &str| set_gate(&mut Gates::default(), key, value).unwrap_err().to_string();
        assert_eq!(
            refused("min_pass_rate", "most"),
            "--gate min_pass_rate=most: not a number"
        );
        assert_eq!(
            refused("no_denied_egress", "yes"),
            "--gate no_denied_egress=yes: not true/false"
        );
        assert_eq!(refused("pass_k", "3"), "--gate pass_k=3: expected K:RATE");
        assert_eq!(refused("pass_k", "x:0.9"), "--gate pass_k=x:0.9: K is not a number");
        assert_eq!(
            refused("pass_k", "3:most"),
            "--gate pass_k=3:most: RATE is not a number"
        );
        assert_eq!(refused("max_pass_rate", "1"), "--gate max_pass_rate: unknown gate");
        let mut g = Gates::default();
        set_gate(&mut g, "pass_k", "3:0.9").unwrap();
        assert_eq!(g.pass_k, Some(PassK { k: 3, min_rate: 0.9 }));
    }

    #[test]
    fn a_refused_override_refuses_the_gates_proposal_with_its_variant() {
        let overrides = [
            ("min_pass_rate".to_string(), "0.9".to_string()),
            ("bogus".to_string(), "1".to_string()),
        ];
        assert_eq!(
            gates(&Job::default(), &overrides).unwrap_err(),
            GateError::Unknown { key: "bogus".into() }
        );
    }

    #[test]
    fn openshell_is_offered_only_when_a_gateway_answers() {
        let job = Job::default();
        let notes = |p: &Probe, seed| sandbox(&job, seed, p).notes.join("\n");
        let with = notes(&Probe::ok("openshell", "gateway reachable: local"), None);
        assert!(
            with.contains("openshell: offered, a gateway answers here (gateway reachable: local)"),
            "{with}"
        );
        let without = notes(&no_gateway(), None);
        assert!(
            without.contains("openshell: not offered here, the `openshell` CLI is not on PATH."),
            "{without}"
        );
        assert!(!without.contains("offered, a gateway"), "{without}");
        // Chosen anyway: said plainly, with the fix, before the run turns every case INFRA_ERROR.
        let chosen = notes(&no_gateway(), Some(SandboxBackend::Openshell));
        assert!(
            chosen.contains("WARNING: backend openshell, but the `openshell` CLI is not on PATH (install OpenShell"),
            "{chosen}"
        );
    }
}
