//! Per-tool risk labels: MCP annotations first, name and description words second.
//!
//! Every label records where it came from (which annotation, or which word of the name, a
//! parameter or the description). Words are matched whole, never as substrings.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::vocabulary::*;
use super::words::{split_identifier, split_text};
use crate::mcp::inventory::ToolEntry;

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

/// Labels one tool: annotations first; heuristics only decide what annotations left open.
pub(crate) fn label_tool(tool: &ToolEntry) -> Vec<Label> {
    let mut labels = Vec::new();
    let ann = tool.annotations.clone().unwrap_or_default();
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

    let name_words = split_identifier(&tool.name);
    let desc = tool.description.as_deref().unwrap_or("");
    let desc_words = split_text(desc);
    let params = parameter_names(&tool.input_schema);

    // Effect on state, unless readOnlyHint already decided it.
    if ann.read_only_hint.is_none() {
        let destructive = first_in(&name_words, DESTRUCTIVE);
        let mutating = first_in(&name_words, MUTATING);
        let external = first_in(&name_words, EXTERNAL);
        let reading = first_in(&name_words, READING);
        if let Some(w) = destructive {
            if ann.destructive_hint != Some(false) {
                heur(&mut labels, RiskLabel::Destructive, format!("name word \"{w}\""));
            }
            heur(&mut labels, RiskLabel::MutatesState, format!("name word \"{w}\""));
        } else if let Some(w) = mutating {
            heur(&mut labels, RiskLabel::MutatesState, format!("name word \"{w}\""));
        } else if external.is_some() && reading.as_deref() != external.as_deref() {
            // `export_all_users`: data leaves the system; not read-only, effect unknown.
        } else if let Some(w) = reading {
            heur(&mut labels, RiskLabel::ReadOnly, format!("name word \"{w}\""));
        } else if let Some(w) = first_in(&desc_words, DESC_DESTRUCTIVE) {
            if ann.destructive_hint != Some(false) {
                heur(&mut labels, RiskLabel::Destructive, format!("description word \"{w}\""));
            }
            heur(
                &mut labels,
                RiskLabel::MutatesState,
                format!("description word \"{w}\""),
            );
        } else if let Some(w) = first_in(&desc_words, DESC_MUTATING) {
            heur(
                &mut labels,
                RiskLabel::MutatesState,
                format!("description word \"{w}\""),
            );
        } else if let Some(w) = desc_words.first().filter(|w| DESC_READING.contains(&w.as_str())) {
            heur(&mut labels, RiskLabel::ReadOnly, format!("description word \"{w}\""));
        }
    } else if ann.read_only_hint == Some(false)
        && ann.destructive_hint.is_none()
        && let Some(w) = first_in(&name_words, DESTRUCTIVE)
    {
        heur(&mut labels, RiskLabel::Destructive, format!("name word \"{w}\""));
    }

    if ann.open_world_hint.is_none() {
        if let Some(w) = first_in(&name_words, EXTERNAL) {
            heur(&mut labels, RiskLabel::ExternalNetwork, format!("name word \"{w}\""));
        } else if let Some((p, _)) = params.iter().find(|(p, _)| {
            let w = split_identifier(p);
            matches!(w.last().map(String::as_str), Some("url" | "webhook" | "endpoint")) || w == ["uri"]
        }) {
            heur(&mut labels, RiskLabel::ExternalNetwork, format!("parameter \"{p}\""));
        } else if let Some(w) = first_in(&desc_words, DESC_EXTERNAL) {
            heur(
                &mut labels,
                RiskLabel::ExternalNetwork,
                format!("description word \"{w}\""),
            );
        }
    }

    if let Some(w) = credential_word(&name_words) {
        heur(&mut labels, RiskLabel::CredentialBearing, format!("name word \"{w}\""));
    } else if let Some((p, _)) = params.iter().find(|(p, _)| is_credential_name(p)) {
        heur(&mut labels, RiskLabel::CredentialBearing, format!("parameter \"{p}\""));
    }

    if !labels.iter().any(|l| l.label == RiskLabel::UiProducing)
        && let Some(w) = first_in(&name_words, UI)
    {
        heur(&mut labels, RiskLabel::UiProducing, format!("name word \"{w}\""));
    }
    labels.sort_by_key(|l| l.label);
    labels
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
mod tests {
    use super::*;
    use crate::mcp::inventory::ToolAnnotations;
    use serde_json::json;

    fn tool(name: &str) -> ToolEntry {
        ToolEntry {
            name: name.into(),
            title: None,
            description: None,
            input_schema: json!({"type": "object"}),
            output_schema: None,
            annotations: None,
            meta: None,
        }
    }

    fn has(labels: &[Label], l: RiskLabel) -> bool {
        labels.iter().any(|x| x.label == l)
    }

    #[test]
    fn camel_case_get_user_is_read_only() {
        let l = label_tool(&tool("getUser"));
        assert!(has(&l, RiskLabel::ReadOnly), "{l:?}");
        assert_eq!(l[0].evidence, "name word \"get\"");
        assert_eq!(effect_of(&l), Effect::ReadOnly);
    }

    #[test]
    fn max_tokens_and_author_are_not_credentials() {
        let mut t = tool("create_post");
        t.input_schema = json!({"type": "object", "properties": {"max_tokens": {"type": "integer"}, "author": {"type": "string"}, "maxTokens": {"type": "integer"}}});
        assert!(!has(&label_tool(&t), RiskLabel::CredentialBearing));
        assert!(!is_credential_name("max_tokens"));
        assert!(!is_credential_name("author"));
        assert!(!is_credential_name("authorName"));
        assert!(is_credential_name("api_key"));
        assert!(is_credential_name("apiKey"));
        assert!(is_credential_name("authToken"));
        assert!(is_credential_name("client_secret"));
        let mut t = tool("call_api");
        t.input_schema = json!({"type": "object", "properties": {"apiKey": {"type": "string"}}});
        let l = label_tool(&t);
        assert!(has(&l, RiskLabel::CredentialBearing));
        assert!(l.iter().any(|x| x.evidence == "parameter \"apiKey\""));
    }

    #[test]
    fn export_all_users_is_not_read_only() {
        let l = label_tool(&tool("export_all_users"));
        assert!(!has(&l, RiskLabel::ReadOnly), "{l:?}");
        assert!(has(&l, RiskLabel::ExternalNetwork));
        assert_ne!(effect_of(&l), Effect::ReadOnly);
    }

    #[test]
    fn delete_file_and_rm_are_destructive() {
        for name in ["deleteFile", "rm", "delete-file", "RemoveUser"] {
            let l = label_tool(&tool(name));
            assert!(has(&l, RiskLabel::Destructive), "{name}: {l:?}");
            assert!(has(&l, RiskLabel::MutatesState), "{name}: {l:?}");
            assert_eq!(
                l.iter().find(|x| x.label == RiskLabel::Destructive).unwrap().source,
                LabelSource::Heuristic
            );
        }
    }

    #[test]
    fn substrings_do_not_match() {
        // "format" holds "rm", "getaway" holds "get": whole words only.
        assert!(!has(&label_tool(&tool("format")), RiskLabel::Destructive));
        assert!(!has(&label_tool(&tool("getaway")), RiskLabel::ReadOnly));
    }

    #[test]
    fn annotations_win_over_names() {
        let mut t = tool("delete_cache_entry");
        t.annotations = Some(ToolAnnotations {
            read_only_hint: Some(true),
            ..Default::default()
        });
        let l = label_tool(&t);
        assert!(has(&l, RiskLabel::ReadOnly));
        assert!(!has(&l, RiskLabel::Destructive));
        assert_eq!(l[0].source, LabelSource::Annotation);
        assert_eq!(l[0].evidence, "readOnlyHint=true");
    }

    #[test]
    fn description_decides_when_the_name_says_nothing() {
        let mut t = tool("cleanup");
        t.description = Some("Permanently removes stale branches.".into());
        let l = label_tool(&t);
        assert!(has(&l, RiskLabel::Destructive));
        assert!(l.iter().any(|x| x.evidence.starts_with("description word")));
    }

    #[test]
    fn ui_meta_and_url_parameters() {
        let mut t = tool("show_chart");
        t.meta = Some(json!({"ui": {"resourceUri": "ui://charts/bar"}}));
        t.input_schema = json!({"type": "object", "properties": {"source_url": {"type": "string"}}});
        let l = label_tool(&t);
        assert!(
            l.iter()
                .any(|x| x.label == RiskLabel::UiProducing && x.source == LabelSource::Metadata)
        );
        assert!(
            l.iter()
                .any(|x| x.label == RiskLabel::ExternalNetwork && x.evidence == "parameter \"source_url\"")
        );
    }
}
