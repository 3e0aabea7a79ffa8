//! inventory.json: what every MCP server of a job exposes, as discovered (versioned).
//!
//! Entries keep MCP's own JSON field names (`inputSchema`, `_meta`, …) so an inventory can be
//! written by hand or by another tool and linted offline. Never holds a header value.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::client::{McpClient, McpError};

/// The inventory.json format version this build reads and writes.
pub(crate) const INVENTORY_VERSION: u32 = 1;

/// Every server of one discovery run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Inventory {
    pub version: u32,
    /// RFC 3339 time of the discovery.
    #[serde(default)]
    pub generated_at: String,
    #[serde(default)]
    pub servers: Vec<ServerInventory>,
}

/// Outcome of discovering one server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ServerStatus {
    Ok,
    Error,
    Disabled,
}

/// One server: identity, handshake, and everything it lists.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerInventory {
    pub name: String,
    /// `stdio`, `streamable-http` or `sse`.
    #[serde(default)]
    pub transport: String,
    pub status: ServerStatus,
    /// Why discovery failed (names what the server did); set when `status` is `error`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// `serverInfo` from `initialize` (name, version, title).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_info: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    #[serde(default)]
    pub tools: Vec<ToolEntry>,
    #[serde(default)]
    pub resources: Vec<ResourceEntry>,
    #[serde(default)]
    pub resource_templates: Vec<Value>,
    #[serde(default)]
    pub prompts: Vec<PromptEntry>,
    /// Wall time of the discovery in milliseconds.
    #[serde(default)]
    pub elapsed_ms: u64,
}

/// One tool as MCP lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolEntry {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Kept as raw JSON: a malformed schema must survive to be reported.
    #[serde(default)]
    pub input_schema: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
}

/// MCP tool annotations (hints only).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) read_only_hint: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) destructive_hint: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) idempotent_hint: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) open_world_hint: Option<bool>,
}

/// One resource as MCP lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceEntry {
    pub(crate) uri: String,
    #[serde(default)]
    pub(crate) name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) mime_type: Option<String>,
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub(crate) meta: Option<Value>,
}

/// One prompt as MCP lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptEntry {
    pub(crate) name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) description: Option<String>,
    #[serde(default)]
    pub(crate) arguments: Vec<PromptArgument>,
}

/// One prompt argument.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PromptArgument {
    pub(crate) name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) required: Option<bool>,
}

impl ServerInventory {
    /// An entry with no data yet.
    pub fn empty(name: &str, transport: &str, status: ServerStatus) -> Self {
        ServerInventory {
            name: name.to_string(),
            transport: transport.to_string(),
            status,
            error: None,
            server_info: None,
            protocol_version: None,
            capabilities: None,
            instructions: None,
            tools: Vec::new(),
            resources: Vec::new(),
            resource_templates: Vec::new(),
            prompts: Vec::new(),
            elapsed_ms: 0,
        }
    }

    /// True when the server's capabilities declare `key` (`tools`, `resources`, `prompts`).
    pub fn declares(&self, key: &str) -> bool {
        self.capabilities
            .as_ref()
            .and_then(|c| c.get(key))
            .is_some_and(|v| !v.is_null())
    }
}

/// Why an inventory file's text, or a server's listed item, cannot be read (the caller names
/// the file or server).
#[derive(Debug, thiserror::Error)]
pub enum InventoryError {
    #[error("not valid JSON: {0}")]
    NotJson(#[source] serde_json::Error),
    #[error("`version` is {0}; this build reads version {INVENTORY_VERSION}")]
    OtherVersion(u64),
    #[error("missing `version`")]
    NoVersion,
    #[error("not an inventory: {0}")]
    NotAnInventory(#[source] serde_json::Error),
    #[error("{what} #{index} is malformed: {source}")]
    MalformedItem {
        what: &'static str,
        index: usize,
        #[source]
        source: serde_json::Error,
    },
}

impl Inventory {
    /// Parses an inventory file's text, refusing unknown versions.
    pub fn from_json(text: &str) -> Result<Inventory, InventoryError> {
        let value: Value = serde_json::from_str(text).map_err(InventoryError::NotJson)?;
        match value.get("version").and_then(Value::as_u64) {
            Some(v) if v == u64::from(INVENTORY_VERSION) => {}
            Some(v) => return Err(InventoryError::OtherVersion(v)),
            None => return Err(InventoryError::NoVersion),
        }
        serde_json::from_value(value).map_err(InventoryError::NotAnInventory)
    }
}

/// Decodes listed items into typed entries, naming the first one that does not fit.
fn decode<T: serde::de::DeserializeOwned>(what: &'static str, items: Vec<Value>) -> Result<Vec<T>, InventoryError> {
    items
        .into_iter()
        .enumerate()
        .map(|(index, v)| {
            serde_json::from_value(v).map_err(|source| InventoryError::MalformedItem { what, index, source })
        })
        .collect()
}

/// Fills `entry` from a connected client: handshake, then each list the server declares.
pub async fn collect(client: &mut McpClient, entry: &mut ServerInventory) -> Result<(), McpError> {
    let init = client.initialize_result();
    entry.server_info = init.get("serverInfo").cloned();
    entry.protocol_version = init.get("protocolVersion").and_then(Value::as_str).map(str::to_string);
    entry.capabilities = init.get("capabilities").cloned();
    entry.instructions = init.get("instructions").and_then(Value::as_str).map(str::to_string);
    let malformed = |e: InventoryError| McpError::Request {
        method: "list",
        reason: e.to_string(),
        detail: String::new(),
    };
    // Servers without a capability answer -32601 to its list call: ask only for what is declared.
    if entry.declares("tools") {
        entry.tools = decode("tool", client.list_tools().await?).map_err(malformed)?;
    }
    if entry.declares("resources") {
        entry.resources = decode("resource", client.list_resources().await?).map_err(malformed)?;
        entry.resource_templates = client.list_resource_templates().await?;
    }
    if entry.declares("prompts") {
        entry.prompts = decode("prompt", client.list_prompts().await?).map_err(malformed)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inventory_errors_say_what_is_wrong_in_the_words_shown_before() {
        let err = |text: &str| Inventory::from_json(text).unwrap_err().to_string();
        assert!(err("{").starts_with("not valid JSON: "));
        assert_eq!(err("{}"), "missing `version`");
        assert_eq!(
            err(r#"{"version": 999}"#),
            format!("`version` is 999; this build reads version {INVENTORY_VERSION}")
        );
        assert!(err(&format!(r#"{{"version": {INVENTORY_VERSION}, "servers": 3}}"#)).starts_with("not an inventory: "));
        let item: Result<Vec<ToolEntry>, _> = decode("tool", vec![Value::from(7)]);
        assert!(item.unwrap_err().to_string().starts_with("tool #0 is malformed: "));
    }
}
