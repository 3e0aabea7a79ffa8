//! The catalog of schema-quality rules: stable code, slug, default severity, one-line summary.
//!
//! Codes are stable across releases: a rule may be retired, never renumbered.

use serde::{Deserialize, Serialize};

/// How serious a finding is; ordered from least to most severe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Severity {
    Info,
    Note,
    Warning,
    Error,
}

impl Severity {
    /// The SARIF 2.1.0 `level` for this severity.
    pub(crate) fn sarif_level(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
            Severity::Info => "none",
        }
    }

    /// Lowercase name.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
            Severity::Info => "info",
        }
    }
}

/// One rule of the catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rule {
    pub(crate) code: &'static str,
    pub(crate) slug: &'static str,
    pub(crate) severity: Severity,
    pub(crate) summary: &'static str,
}

macro_rules! rules {
    ($($id:ident = $code:literal, $slug:literal, $sev:ident, $sum:literal;)*) => {
        $(
            #[doc = $sum]
            pub(crate) const $id: Rule = Rule { code: $code, slug: $slug, severity: Severity::$sev, summary: $sum };
        )*
        /// Every rule, in code order.
        pub(crate) const ALL: &[Rule] = &[$($id),*];
    };
}

rules! {
    MISSING_TOOL_DESCRIPTION = "GL001", "missing-tool-description", Error, "The tool has no description, so a model cannot tell when to use it.";
    WEAK_TOOL_DESCRIPTION = "GL002", "weak-tool-description", Warning, "The tool description is too short or only repeats the name.";
    MISSING_PARAM_DESCRIPTION = "GL003", "missing-parameter-description", Warning, "A parameter has no description.";
    REQUIRED_NOT_DEFINED = "GL004", "required-parameter-not-defined", Error, "A required parameter is not defined in properties.";
    UNTYPED_PARAM = "GL005", "untyped-parameter", Warning, "A parameter has no type.";
    UNBOUNDED_STRING = "GL006", "unbounded-free-text", Note, "A free-text parameter (query, command, body…) has no maxLength, pattern or enum.";
    UNBOUNDED_ARRAY = "GL007", "unbounded-array", Note, "An array parameter has no maxItems.";
    SCHEMA_REF = "GL008", "schema-ref", Warning, "The input schema uses $ref, which many clients do not resolve.";
    TOP_LEVEL_COMBINATOR = "GL009", "top-level-combinator", Warning, "The input schema has a top-level oneOf/anyOf/allOf, which many clients mishandle.";
    NOT_OBJECT_SCHEMA = "GL010", "input-schema-not-object", Error, "The input schema is not a JSON object schema with type \"object\", as MCP requires.";
    TOO_MANY_PARAMS = "GL011", "too-many-parameters", Warning, "The tool has more than 12 parameters.";
    UNDOCUMENTED_ENUM = "GL012", "undocumented-enum", Note, "An enum parameter has no description of its values.";
    DUPLICATE_TOOL = "GL013", "duplicate-tool-name", Error, "Two tools of one server share a name.";
    CROSS_SERVER_DUPLICATE = "GL014", "tool-name-on-several-servers", Warning, "Several servers of the job expose a tool of the same name.";
    NEAR_DUPLICATE_TOOL = "GL015", "near-duplicate-tool-names", Warning, "Two tool names differ only in case, separators or one character.";
    UNCALLABLE_NAME = "GL016", "uncallable-tool-name", Error, "The tool name does not match ^[a-zA-Z0-9_-]{1,64}$, so model APIs reject it.";
    TOOL_POISONING = "GL017", "tool-poisoning", Error, "The description hides instructions to the model (ignore previous instructions, secrecy, <IMPORTANT> tags…).";
    INSTRUCTS_MODEL = "GL018", "description-instructs-model", Warning, "The description gives the model orders instead of describing the tool.";
    HIDDEN_CHARACTERS = "GL019", "hidden-characters", Error, "The description holds invisible or bidirectional-control characters.";
    CREDENTIAL_PARAM = "GL020", "credential-parameter", Warning, "A parameter asks the model for a credential; credentials belong in the server's environment.";
    UNDECLARED_DESTRUCTIVE = "GL021", "undeclared-destructive", Warning, "The tool looks destructive but declares no destructiveHint.";
    ANNOTATION_CONTRADICTS_NAME = "GL022", "annotation-contradicts-name", Warning, "readOnlyHint=true on a tool whose name says it changes or deletes things.";
    UI_RESOURCE_MISSING = "GL023", "ui-resource-not-listed", Error, "The tool points to a ui:// resource the server does not list.";
    UI_RESOURCE_MIME = "GL024", "ui-resource-mime-type", Warning, "A ui:// resource does not have the MCP Apps mime type text/html;profile=mcp-app.";
    UI_URI_SCHEME = "GL025", "ui-resource-uri-scheme", Error, "The tool's UI resourceUri does not use the ui:// scheme.";
    NO_ANNOTATIONS = "GL026", "no-annotations", Note, "The tool declares no annotations (readOnlyHint, destructiveHint…).";
    PROMPT_ARG_UNDOCUMENTED = "GL027", "undocumented-prompt-argument", Note, "A prompt argument has no description.";
    MALFORMED_SCHEMA = "GL028", "malformed-schema", Error, "The input schema is structurally invalid (properties not an object, required not a list of strings, bad type).";
    SERVER_UNAVAILABLE = "GL029", "server-unavailable", Error, "The server could not be discovered.";
    LONG_DESCRIPTION = "GL030", "long-description", Warning, "The tool description is over 1024 characters (cost, and room to hide instructions).";
    DEFAULT_NOT_IN_ENUM = "GL031", "default-not-in-enum", Warning, "A parameter's default is not one of its enum values.";
    RESOURCE_NO_MIME = "GL032", "resource-without-mime-type", Info, "A resource declares no mimeType.";
    UI_WITHOUT_RESOURCES = "GL033", "ui-without-resources-capability", Error, "A tool points to a UI resource but the server does not declare the resources capability.";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docs_list_every_rule() {
        let doc = include_str!("../../../docs/mcp-rules.md");
        for r in ALL {
            assert!(
                doc.contains(&format!("| {} | {} |", r.code, r.slug)),
                "docs/mcp-rules.md lacks {}",
                r.code
            );
        }
    }

    #[test]
    fn codes_are_unique_sequential_and_at_least_twenty() {
        assert!(ALL.len() >= 20);
        for (i, r) in ALL.iter().enumerate() {
            assert_eq!(r.code, format!("GL{:03}", i + 1));
        }
        let mut slugs: Vec<_> = ALL.iter().map(|r| r.slug).collect();
        slugs.sort();
        slugs.dedup();
        assert_eq!(slugs.len(), ALL.len());
    }
}
