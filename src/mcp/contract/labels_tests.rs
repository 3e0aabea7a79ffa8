use super::*;
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

#[test]
fn url_parameter_names_are_whole_words() {
    for name in ["source_url", "callbackWebhook", "api-endpoint", "uri", "URL"] {
        assert!(is_url_name(name), "{name}");
    }
    // "curl" holds "url", a URL count is not a URL, and "uri" is only whole on its own.
    for name in ["curl", "url_count", "resource_uri_prefix", "urls"] {
        assert!(!is_url_name(name), "{name}");
    }
}
