//! What each rule means and how to fix what it finds: the `fullDescription` and `help` of a
//! SARIF rule (GitHub code scanning shows them on every alert), and which rules are about
//! security, with their `security-severity` (GitHub's 0–10 scale: 9+ critical, 7+ high,
//! 4+ medium). The security set is also what the `no_high_security_findings` gate counts.

use super::rules::Rule;

/// The longer texts of one rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RuleHelp {
    pub(crate) code: &'static str,
    /// Why the finding matters, beyond the one-line summary.
    pub(crate) why: &'static str,
    /// What to change in the server (its tool list, schemas or annotations).
    pub(crate) fix: &'static str,
    /// GitHub's `security-severity` for a security rule; `None` for a quality rule.
    pub(crate) security_severity: Option<f64>,
}

const fn help(code: &'static str, why: &'static str, fix: &'static str) -> RuleHelp {
    RuleHelp {
        code,
        why,
        fix,
        security_severity: None,
    }
}

const fn security(code: &'static str, severity: f64, why: &'static str, fix: &'static str) -> RuleHelp {
    RuleHelp {
        code,
        why,
        fix,
        security_severity: Some(severity),
    }
}

/// One entry per rule of `rules::ALL`, in code order (a test holds them to it).
pub(crate) const HELP: &[RuleHelp] = &[
    help(
        "GL001",
        "Models choose tools by their descriptions; a tool without one is guessed at or never used.",
        "Give the tool a description that says what it does, what it returns and when to use it.",
    ),
    help(
        "GL002",
        "A description that repeats the name tells a model nothing it can choose by.",
        "Describe the tool's effect, its inputs and its result in a sentence or two.",
    ),
    help(
        "GL003",
        "Without a description a model fills the parameter from its name alone, often wrongly.",
        "Add a `description` to the parameter: its meaning, its format and an example.",
    ),
    help(
        "GL004",
        "A required parameter missing from `properties` cannot be filled correctly; strict clients reject the schema.",
        "Define every name listed in `required` under `properties`, or remove it from `required`.",
    ),
    help(
        "GL005",
        "An untyped parameter lets a model send any JSON value; the server then fails or misreads it.",
        "Give the parameter a `type` (string, number, integer, boolean, array or object).",
    ),
    help(
        "GL006",
        "Unbounded free text (queries, commands, bodies) is where injected or oversized input reaches the server.",
        "Bound the parameter with `maxLength`, a `pattern` or an `enum`.",
    ),
    help(
        "GL007",
        "An unbounded array lets one call carry any number of items.",
        "Set `maxItems` on the array parameter.",
    ),
    help(
        "GL008",
        "Many MCP clients and model APIs do not resolve `$ref`; the tool then has no usable schema.",
        "Inline the referenced definitions into the input schema.",
    ),
    help(
        "GL009",
        "A top-level oneOf/anyOf/allOf is rejected or flattened by many clients.",
        "Use one object schema at the top level; move alternatives into a property.",
    ),
    help(
        "GL010",
        "MCP requires a tool's input schema to be an object schema; clients refuse other shapes.",
        "Make `inputSchema` a JSON object with `\"type\": \"object\"` and its `properties`.",
    ),
    help(
        "GL011",
        "Tools with many parameters are filled less reliably and cost more tokens per call.",
        "Split the tool or group related parameters into an object.",
    ),
    help(
        "GL012",
        "Enum values without an explanation leave a model to guess which one fits.",
        "Describe what each enum value means in the parameter's description.",
    ),
    help(
        "GL013",
        "Two tools with one name on one server: clients call one of them, unpredictably.",
        "Give each tool of the server a unique name.",
    ),
    help(
        "GL014",
        "The same tool name on several servers of one agent makes the model's choice ambiguous.",
        "Rename one of the tools, or prefix the names with the server's purpose.",
    ),
    help(
        "GL015",
        "Names that differ by case, separators or one character are confused by models and people.",
        "Rename the tools so their names differ clearly.",
    ),
    help(
        "GL016",
        "Model APIs reject tool names outside ^[a-zA-Z0-9_-]{1,64}$; the whole request can fail.",
        "Rename the tool with letters, digits, `_` and `-` only, at most 64 characters.",
    ),
    security(
        "GL017",
        9.0,
        "Instructions hidden in a tool description (tool poisoning) steer the agent without the user seeing them: exfiltration, secrecy, overriding the user.",
        "Remove the instructions from the description; describe the tool only. Treat the server as compromised until its source is reviewed.",
    ),
    help(
        "GL018",
        "Orders to the model in a description compete with the user's and the agent's own instructions.",
        "Describe what the tool does instead of telling the model what to do.",
    ),
    security(
        "GL019",
        8.0,
        "Invisible or bidirectional-control characters hide text from the people reviewing the description while the model still reads it.",
        "Remove the zero-width, bidirectional-control and other invisible characters from the description.",
    ),
    security(
        "GL020",
        7.0,
        "A parameter that asks the model for a credential puts the secret in the conversation, its logs and the model provider's hands.",
        "Take the credential from the server's environment or configuration, not from a tool argument.",
    ),
    security(
        "GL021",
        5.0,
        "A destructive tool without `destructiveHint` is not flagged for confirmation by clients that ask before destructive calls.",
        "Declare `annotations.destructiveHint: true` on the tool (and `readOnlyHint: false`).",
    ),
    security(
        "GL022",
        6.0,
        "`readOnlyHint: true` on a tool that changes or deletes things lets clients run it without asking.",
        "Correct the annotation (`readOnlyHint: false`, `destructiveHint` as fits), or rename the tool if it is truly read-only.",
    ),
    help(
        "GL023",
        "A tool whose UI resource the server does not list renders nothing in MCP Apps hosts.",
        "List the ui:// resource in `resources/list`, or fix the tool's resourceUri.",
    ),
    help(
        "GL024",
        "MCP Apps hosts render only resources with the MCP Apps mime type.",
        "Serve the ui:// resource with mimeType `text/html;profile=mcp-app`.",
    ),
    help(
        "GL025",
        "MCP Apps hosts load UI only from ui:// resources.",
        "Point the tool's UI resourceUri at a ui:// resource.",
    ),
    help(
        "GL026",
        "Without annotations clients cannot tell read-only tools from ones that change things.",
        "Declare `annotations` (readOnlyHint, destructiveHint, idempotentHint, openWorldHint).",
    ),
    help(
        "GL027",
        "A prompt argument without a description is filled by guesswork.",
        "Add a description to each prompt argument.",
    ),
    help(
        "GL028",
        "A structurally invalid schema is refused by strict clients and misread by lenient ones.",
        "Make `properties` an object, `required` a list of strings and every `type` a JSON Schema type.",
    ),
    help(
        "GL029",
        "A server that cannot be discovered gives the agent none of its tools; every case that needs them fails.",
        "Check the server's command or URL, its credentials and its log (the discovery error names what it did).",
    ),
    help(
        "GL030",
        "Long descriptions cost tokens on every request and leave room to hide instructions.",
        "Shorten the description to what a model needs to choose and call the tool.",
    ),
    help(
        "GL031",
        "A default outside the enum is a value the schema itself forbids.",
        "Make the default one of the enum values, or add it to the enum.",
    ),
    help(
        "GL032",
        "Without a mimeType clients must guess how to show the resource.",
        "Declare the resource's `mimeType`.",
    ),
    help(
        "GL033",
        "A UI resource cannot be read from a server that does not declare the resources capability.",
        "Declare the `resources` capability in the server's initialize response.",
    ),
];

/// The help of `rule`; every rule has one (a test checks the table against the catalog).
pub(crate) fn help_of(rule: &Rule) -> Option<&'static RuleHelp> {
    HELP.iter().find(|h| h.code == rule.code)
}

/// Whether findings of the rule with `code` are security findings.
pub(crate) fn is_security(code: &str) -> bool {
    HELP.iter().any(|h| h.code == code && h.security_severity.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::contract::rules::ALL;

    #[test]
    fn every_rule_has_help_in_code_order() {
        let codes: Vec<&str> = HELP.iter().map(|h| h.code).collect();
        let rules: Vec<&str> = ALL.iter().map(|r| r.code).collect();
        assert_eq!(codes, rules);
        for h in HELP {
            assert!(h.why.ends_with('.') && h.fix.ends_with('.'), "{}", h.code);
            if let Some(s) = h.security_severity {
                assert!((0.0..=10.0).contains(&s), "{}", h.code);
            }
        }
    }

    #[test]
    fn the_security_rules_are_poisoning_hidden_text_credentials_and_destructive_labels() {
        let security: Vec<&str> = HELP
            .iter()
            .filter(|h| h.security_severity.is_some())
            .map(|h| h.code)
            .collect();
        assert_eq!(security, ["GL017", "GL019", "GL020", "GL021", "GL022"]);
        assert!(is_security("GL017") && !is_security("GL001") && !is_security("GL999"));
    }
}
