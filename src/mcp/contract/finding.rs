//! A schema-quality finding: which rule, where in the inventory, and what is wrong.

use serde::{Deserialize, Serialize};

use super::rules::{Rule, Severity};

/// One problem found in a server's contract.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// Stable rule code, `GL001`…
    pub code: String,
    pub(crate) rule: String,
    pub(crate) severity: Severity,
    pub server: String,
    /// The tool, resource or prompt concerned, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) item: Option<String>,
    /// JSON pointer into inventory.json.
    pub(crate) pointer: String,
    pub(crate) message: String,
}

/// Collects findings for one server, with the server's JSON pointer prefix.
pub(crate) struct Sink<'a> {
    pub(crate) server: &'a str,
    pub(crate) base: String,
    pub(crate) out: &'a mut Vec<Finding>,
}

impl Sink<'_> {
    /// Records a finding at `pointer` (relative to the server) about `item`.
    pub(crate) fn add(&mut self, rule: Rule, item: Option<&str>, pointer: &str, message: impl Into<String>) {
        self.out.push(Finding {
            code: rule.code.to_string(),
            rule: rule.slug.to_string(),
            severity: rule.severity,
            server: self.server.to_string(),
            item: item.map(str::to_string),
            pointer: format!("{}{}", self.base, pointer),
            message: message.into(),
        });
    }
}
