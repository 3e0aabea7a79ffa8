//! Findings across a server (and across the job): callable and unique tool names, annotation
//! consistency, MCP Apps `ui://` metadata, prompts, resources, and servers that failed.

use regex::Regex;
use std::collections::HashMap;
use std::sync::LazyLock;

use super::finding::{Finding, Sink};
use super::labels::{Label, LabelSource, RiskLabel, ui_resource_uri};
use super::rules::*;
use crate::mcp::inventory::{Inventory, ServerInventory, ServerStatus, ToolEntry};

static CALLABLE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[a-zA-Z0-9_-]{1,64}$").expect("valid name pattern"));

/// The MCP Apps mime type of a UI resource.
pub(crate) const MCP_APP_MIME: &str = "text/html;profile=mcp-app";

/// Checks names, annotations, UI metadata, prompts and resources of one server.
pub(crate) fn check_server(sink: &mut Sink, server: &ServerInventory, labels: &[Vec<Label>]) {
    if server.status == ServerStatus::Error {
        let why = server.error.clone().unwrap_or_else(|| "unknown reason".into());
        let prefix = format!("server `{}`: ", server.name);
        let why = why.strip_prefix(&prefix).unwrap_or(&why);
        sink.add(
            SERVER_UNAVAILABLE,
            None,
            "",
            format!("server `{}` could not be discovered: {why}", server.name),
        );
    }
    let mut seen: HashMap<&str, usize> = HashMap::new();
    // Near duplicates are told on the name that sorts later of each pair, against the first
    // name in sort order it clashes with: the same tool is flagged, with the same words,
    // whatever order the server lists its tools in (SARIF fingerprints stay put).
    let mut sorted: Vec<&str> = server.tools.iter().map(|t| t.name.as_str()).collect();
    sorted.sort_unstable();
    sorted.dedup();
    for (i, tool) in server.tools.iter().enumerate() {
        let at = format!("/tools/{i}");
        // A second listing of a name is told once; its other checks were told on the first.
        if !check_name(sink, &mut seen, &sorted, i, &at, tool.name.as_str()) {
            continue;
        }
        let tool_labels = labels.get(i).map(Vec::as_slice).unwrap_or_default();
        check_annotations(sink, &at, tool, tool_labels);
        check_ui_meta(sink, server, &at, tool);
    }
    for (i, r) in server.resources.iter().enumerate() {
        let at = format!("/resources/{i}");
        match r.mime_type.as_deref() {
            None => sink.add(
                RESOURCE_NO_MIME,
                Some(&r.uri),
                &at,
                format!("resource {} declares no mimeType", r.uri),
            ),
            Some(m) if r.uri.starts_with("ui://") && m.replace(' ', "") != MCP_APP_MIME => sink.add(
                UI_RESOURCE_MIME,
                Some(&r.uri),
                &format!("{at}/mimeType"),
                format!("UI resource {} has mimeType {m:?}, expected {MCP_APP_MIME:?}", r.uri),
            ),
            Some(_) => {}
        }
    }
    for (i, p) in server.prompts.iter().enumerate() {
        for (j, a) in p.arguments.iter().enumerate() {
            if a.description.as_deref().is_none_or(|d| d.trim().is_empty()) {
                sink.add(
                    PROMPT_ARG_UNDOCUMENTED,
                    Some(&p.name),
                    &format!("/prompts/{i}/arguments/{j}"),
                    format!("argument `{}` of prompt `{}` has no description", a.name, p.name),
                );
            }
        }
    }
}

/// A tool's name: callable, listed once, not a near duplicate of an earlier name in sort
/// order. False when the name was listed before.
fn check_name<'a>(
    sink: &mut Sink,
    seen: &mut HashMap<&'a str, usize>,
    sorted: &[&str],
    i: usize,
    at: &str,
    name: &'a str,
) -> bool {
    if !CALLABLE.is_match(name) {
        sink.add(
            UNCALLABLE_NAME,
            Some(name),
            &format!("{at}/name"),
            format!("tool name {name:?} does not match ^[a-zA-Z0-9_-]{{1,64}}$"),
        );
    }
    if let Some(first) = seen.insert(name, i) {
        sink.add(
            DUPLICATE_TOOL,
            Some(name),
            &format!("{at}/name"),
            format!("tool `{name}` is listed twice (also at /tools/{first})"),
        );
        return false;
    }
    let earlier = sorted.iter().copied().take_while(|o| *o < name);
    if let Some(other) = earlier.clone().find(|o| normalized(o) == normalized(name)) {
        sink.add(
            NEAR_DUPLICATE_TOOL,
            Some(name),
            &format!("{at}/name"),
            format!("`{name}` and `{other}` differ only in case or separators"),
        );
    } else if let Some(other) = earlier
        .clone()
        .find(|o| name.len() > 5 && strsim::levenshtein(o, name) == 1)
    {
        sink.add(
            NEAR_DUPLICATE_TOOL,
            Some(name),
            &format!("{at}/name"),
            format!("`{name}` and `{other}` differ by one character"),
        );
    }
    true
}

/// Annotations: declared at all, destructive-looking tools that do not say so, and a
/// read-only hint the name contradicts.
fn check_annotations(sink: &mut Sink, at: &str, tool: &ToolEntry, tool_labels: &[Label]) {
    let name = tool.name.as_str();
    let ann = tool.annotations.clone().unwrap_or_default();
    if tool.annotations.is_none() {
        sink.add(
            NO_ANNOTATIONS,
            Some(name),
            at,
            format!("tool `{name}` declares no annotations"),
        );
    }
    let heuristic_destructive = tool_labels
        .iter()
        .find(|l| l.label == RiskLabel::Destructive && l.source == LabelSource::Heuristic);
    if let Some(l) = heuristic_destructive
        && ann.destructive_hint.is_none()
    {
        sink.add(
            UNDECLARED_DESTRUCTIVE,
            Some(name),
            at,
            format!(
                "`{name}` looks destructive ({}) but declares no destructiveHint",
                l.evidence
            ),
        );
    }
    if ann.read_only_hint == Some(true) {
        let words = super::words::split_identifier(name);
        let changing = words.iter().find(|w| super::labels::changes_state(w));
        if let Some(w) = changing {
            sink.add(
                ANNOTATION_CONTRADICTS_NAME,
                Some(name),
                &format!("{at}/annotations/readOnlyHint"),
                format!("`{name}` is marked readOnlyHint=true but its name says \"{w}\""),
            );
        }
    }
}

/// MCP Apps: a tool's `ui://` resource exists, and the server can serve it.
fn check_ui_meta(sink: &mut Sink, server: &ServerInventory, at: &str, tool: &ToolEntry) {
    let name = tool.name.as_str();
    if let Some(uri) = ui_resource_uri(tool) {
        if !uri.starts_with("ui://") {
            sink.add(
                UI_URI_SCHEME,
                Some(name),
                &format!("{at}/_meta"),
                format!("UI resourceUri {uri:?} of `{name}` does not use ui://"),
            );
        } else if !server.declares("resources") && server.status == ServerStatus::Ok {
            sink.add(
                UI_WITHOUT_RESOURCES,
                Some(name),
                &format!("{at}/_meta"),
                format!("`{name}` points to {uri} but the server declares no resources capability"),
            );
        } else if !server.resources.iter().any(|r| r.uri == uri) && server.status == ServerStatus::Ok {
            sink.add(
                UI_RESOURCE_MISSING,
                Some(name),
                &format!("{at}/_meta"),
                format!("`{name}` points to {uri}, which resources/list does not include"),
            );
        }
    }
}

/// A tool name as compared for near duplicates: letters and digits, lowercase.
fn normalized(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Tool names exposed by more than one server of the inventory; told on every server but the
/// first by name, so the servers' order in the job does not move the finding.
pub(crate) fn check_cross_server(inventory: &Inventory, out: &mut Vec<Finding>) {
    let mut owners: HashMap<&str, Vec<(usize, usize)>> = HashMap::new();
    for (s, server) in inventory.servers.iter().enumerate() {
        for (t, tool) in server.tools.iter().enumerate() {
            let list = owners.entry(tool.name.as_str()).or_default();
            if !list.iter().any(|(os, _)| *os == s) {
                list.push((s, t));
            }
        }
    }
    let mut names: Vec<_> = owners.into_iter().filter(|(_, v)| v.len() > 1).collect();
    names.sort();
    for (name, mut places) in names {
        places.sort_by_key(|(s, _)| inventory.servers[*s].name.as_str());
        let servers: Vec<&str> = places
            .iter()
            .map(|(s, _)| inventory.servers[*s].name.as_str())
            .collect();
        for (s, t) in &places[1..] {
            let mut sink = Sink {
                server: &inventory.servers[*s].name,
                base: format!("/servers/{s}"),
                out,
            };
            sink.add(
                CROSS_SERVER_DUPLICATE,
                Some(name),
                &format!("/tools/{t}/name"),
                format!("tool `{name}` is exposed by servers {}", servers.join(", ")),
            );
        }
    }
}
