//! Per-tool risk labels: MCP annotations first, name and description words second.
//!
//! Every label records where it came from (which annotation, or which word of the name, a
//! parameter or the description). Words are matched whole, never as substrings.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::vocabulary::*;
use super::words::{split_identifier, split_text};
use crate::mcp::inventory::{ToolAnnotations, ToolEntry};

/// A risk a tool carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RiskLabel {
    ReadOnly,
    MutatesState,
    Destructive,
    CredentialBearing,
    /// Reaches the network or an open world of entities (MCP's `openWorldHint`).
    ExternalNetwork,
    UiProducing,
}

/// Where a label came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LabelSource {
    /// An MCP tool annotation.
    Annotation,
    /// Tool `_meta` (MCP Apps UI resource).
    Metadata,
    /// A word of the tool name, a parameter name or the description.
    Heuristic,
}

/// One label with its provenance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Label {
    pub label: RiskLabel,
    pub source: LabelSource,
    /// `readOnlyHint=true`, `name word "delete"`, `parameter "api_key"`…
    pub evidence: String,
}

/// The overall effect of a tool on state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Effect {
    ReadOnly,
    MutatesState,
    Unknown,
}

/// True when the identifier words name a credential.
pub(crate) fn credential_word(words: &[String]) -> Option<String> {
    if let Some(w) = words.iter().find(|w| CREDENTIAL_WORDS.contains(&w.as_str())) {
        return Some(w.clone());
    }
    words
        .windows(2)
        .find(|p| CREDENTIAL_PAIRS.contains(&(p[0].as_str(), p[1].as_str())))
        .map(|p| format!("{} {}", p[0], p[1]))
}

/// True when a parameter or key name looks like it carries a credential.
pub(crate) fn is_credential_name(name: &str) -> bool {
    credential_word(&split_identifier(name)).is_some()
}

/// True when a name word says beyond doubt that the tool changes or deletes state.
pub(crate) fn changes_state(word: &str) -> bool {
    DESTRUCTIVE.contains(&word) || CLEARLY_CHANGING.contains(&word)
}

fn first_in(words: &[String], set: &[&str]) -> Option<String> {
    words.iter().find(|w| set.contains(&w.as_str())).cloned()
}

/// The MCP Apps UI resource a tool declares in `_meta` (`ui.resourceUri` or `ui/resourceUri`).
pub(crate) fn ui_resource_uri(tool: &ToolEntry) -> Option<String> {
    let meta = tool.meta.as_ref()?;
    meta.get("ui")
        .and_then(|u| u.get("resourceUri"))
        .or_else(|| meta.get("ui/resourceUri"))
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// Names of the tool's parameters (top level and nested objects), with their JSON pointers.
pub(crate) fn parameter_names(schema: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    walk_properties(schema, "/inputSchema", &mut out, 0);
    out
}

fn walk_properties(schema: &Value, at: &str, out: &mut Vec<(String, String)>, depth: usize) {
    if depth > 4 {
        return;
    }
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (k, v) in props {
            let here = format!("{at}/properties/{}", k.replace('~', "~0").replace('/', "~1"));
            out.push((k.clone(), here.clone()));
            walk_properties(v, &here, out, depth + 1);
            if let Some(items) = v.get("items") {
                walk_properties(items, &format!("{here}/items"), out, depth + 1);
            }
        }
    }
}

fn push(labels: &mut Vec<Label>, label: RiskLabel, source: LabelSource, evidence: String) {
    if !labels.iter().any(|l| l.label == label) {
        labels.push(Label {
            label,
            source,
            evidence,
        });
    }
}

fn heur(labels: &mut Vec<Label>, label: RiskLabel, evidence: String) {
    push(labels, label, LabelSource::Heuristic, evidence);
}

/// The words a tool's heuristics read: its name, description and parameter names.
struct ToolWords {
    name: Vec<String>,
    description: Vec<String>,
    /// Parameter names with their JSON pointers.
    params: Vec<(String, String)>,
}

impl ToolWords {
    fn of(tool: &ToolEntry) -> Self {
        ToolWords {
            name: split_identifier(&tool.name),
            description: split_text(tool.description.as_deref().unwrap_or("")),
            params: parameter_names(&tool.input_schema),
        }
    }
}

/// Labels one tool: annotations first; heuristics only decide what annotations left open.
pub(crate) fn label_tool(tool: &ToolEntry) -> Vec<Label> {
    let ann = tool.annotations.clone().unwrap_or_default();
    let words = ToolWords::of(tool);
    let mut labels = annotation_labels(tool, &ann);
    effect_heuristics(&mut labels, &ann, &words);
    if ann.open_world_hint.is_none() {
        external_heuristics(&mut labels, &words);
    }
    credential_heuristics(&mut labels, &words);
    if !labels.iter().any(|l| l.label == RiskLabel::UiProducing)
        && let Some(w) = first_in(&words.name, UI)
    {
        heur(&mut labels, RiskLabel::UiProducing, format!("name word \"{w}\""));
    }
    labels.sort_by_key(|l| l.label);
    labels
}

/// The labels the MCP annotations and the `_meta` UI resource state outright.
fn annotation_labels(tool: &ToolEntry, ann: &ToolAnnotations) -> Vec<Label> {
    let mut labels = Vec::new();
    let ann_src = LabelSource::Annotation;
    match ann.read_only_hint {
        Some(true) => push(&mut labels, RiskLabel::ReadOnly, ann_src, "readOnlyHint=true".into()),
        Some(false) => push(
            &mut labels,
            RiskLabel::MutatesState,
            ann_src,
            "readOnlyHint=false".into(),
        ),
        None => {}
    }
    if ann.destructive_hint == Some(true) && ann.read_only_hint != Some(true) {
        push(
            &mut labels,
            RiskLabel::Destructive,
            ann_src,
            "destructiveHint=true".into(),
        );
        push(
            &mut labels,
            RiskLabel::MutatesState,
            ann_src,
            "destructiveHint=true".into(),
        );
    }
    if ann.open_world_hint == Some(true) {
        push(
            &mut labels,
            RiskLabel::ExternalNetwork,
            ann_src,
            "openWorldHint=true".into(),
        );
    }
    if let Some(uri) = ui_resource_uri(tool) {
        push(
            &mut labels,
            RiskLabel::UiProducing,
            LabelSource::Metadata,
            format!("_meta ui resourceUri {uri}"),
        );
    }
    labels
}

/// Effect on state from the words, unless `readOnlyHint` already decided it; with
/// `readOnlyHint=false` and no `destructiveHint`, a destructive name word still marks it.
fn effect_heuristics(labels: &mut Vec<Label>, ann: &ToolAnnotations, words: &ToolWords) {
    if ann.read_only_hint.is_none() {
        effect_from_words(labels, ann, words);
    } else if ann.read_only_hint == Some(false)
        && ann.destructive_hint.is_none()
        && let Some(w) = first_in(&words.name, DESTRUCTIVE)
    {
        heur(labels, RiskLabel::Destructive, format!("name word \"{w}\""));
    }
}

/// The name decides first, the description only when the name says nothing.
fn effect_from_words(labels: &mut Vec<Label>, ann: &ToolAnnotations, words: &ToolWords) {
    let name = &words.name;
    let desc = &words.description;
    let external = first_in(name, EXTERNAL);
    let reading = first_in(name, READING);
    if let Some(w) = first_in(name, DESTRUCTIVE) {
        destructive(labels, ann, format!("name word \"{w}\""));
    } else if let Some(w) = first_in(name, MUTATING) {
        heur(labels, RiskLabel::MutatesState, format!("name word \"{w}\""));
    } else if external.is_some() && reading.as_deref() != external.as_deref() {
        // `export_all_users`: data leaves the system; not read-only, effect unknown.
    } else if let Some(w) = reading {
        heur(labels, RiskLabel::ReadOnly, format!("name word \"{w}\""));
    } else if let Some(w) = first_in(desc, DESC_DESTRUCTIVE) {
        destructive(labels, ann, format!("description word \"{w}\""));
    } else if let Some(w) = first_in(desc, DESC_MUTATING) {
        heur(labels, RiskLabel::MutatesState, format!("description word \"{w}\""));
    } else if let Some(w) = desc.first().filter(|w| DESC_READING.contains(&w.as_str())) {
        heur(labels, RiskLabel::ReadOnly, format!("description word \"{w}\""));
    }
}

/// A destructive word: destructive unless `destructiveHint=false` says otherwise, and
/// state-changing either way.
fn destructive(labels: &mut Vec<Label>, ann: &ToolAnnotations, evidence: String) {
    if ann.destructive_hint != Some(false) {
        heur(labels, RiskLabel::Destructive, evidence.clone());
    }
    heur(labels, RiskLabel::MutatesState, evidence);
}

/// Network reach from a name word, a URL-like parameter, or a description word.
fn external_heuristics(labels: &mut Vec<Label>, words: &ToolWords) {
    if let Some(w) = first_in(&words.name, EXTERNAL) {
        heur(labels, RiskLabel::ExternalNetwork, format!("name word \"{w}\""));
    } else if let Some((p, _)) = words.params.iter().find(|(p, _)| is_url_name(p)) {
        heur(labels, RiskLabel::ExternalNetwork, format!("parameter \"{p}\""));
    } else if let Some(w) = first_in(&words.description, DESC_EXTERNAL) {
        heur(labels, RiskLabel::ExternalNetwork, format!("description word \"{w}\""));
    }
}

/// A parameter named like a URL: `…_url`, `…Webhook`, `…_endpoint`, or exactly `uri`.
fn is_url_name(param: &str) -> bool {
    let w = split_identifier(param);
    matches!(w.last().map(String::as_str), Some("url" | "webhook" | "endpoint")) || w == ["uri"]
}

/// A credential in the name first, else in a parameter name.
fn credential_heuristics(labels: &mut Vec<Label>, words: &ToolWords) {
    if let Some(w) = credential_word(&words.name) {
        heur(labels, RiskLabel::CredentialBearing, format!("name word \"{w}\""));
    } else if let Some((p, _)) = words.params.iter().find(|(p, _)| is_credential_name(p)) {
        heur(labels, RiskLabel::CredentialBearing, format!("parameter \"{p}\""));
    }
}

/// The overall effect from a tool's labels.
pub(crate) fn effect_of(labels: &[Label]) -> Effect {
    if labels
        .iter()
        .any(|l| matches!(l.label, RiskLabel::MutatesState | RiskLabel::Destructive))
    {
        Effect::MutatesState
    } else if labels.iter().any(|l| l.label == RiskLabel::ReadOnly) {
        Effect::ReadOnly
    } else {
        Effect::Unknown
    }
}

#[cfg(test)]
#[path = "labels_tests.rs"]
mod tests;
