//! Names are shown in terminals, logs and reports: a key, an id or a name holding a control
//! character (an escape sequence that recolours or rewrites the terminal, a NUL, a bell) is
//! refused at load with its path, before anything echoes it.

use serde_json::Value;
use std::path::Path;

use super::diagnostics::{Diagnostic, diag, join};

/// String fields whose values are names (shown as such) rather than free text.
const NAME_FIELDS: &[&str] = &["id", "name", "server", "default_agent", "title"];

/// The first control character in `text` (tab and line breaks are text, not control).
pub(crate) fn control_char(text: &str) -> Option<char> {
    text.chars()
        .find(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
}

fn refuse(file: &Path, at: String, what: &str, c: char, ds: &mut Vec<Diagnostic>) {
    let mut d = diag(
        file,
        at,
        format!("{what} holds the control character U+{:04X}", c as u32),
    );
    d.hint = Some("names are shown in terminals and reports; use printable characters only".into());
    ds.push(d);
}

/// Collects every key, and every value of a name field, that holds a control character.
pub(crate) fn find_control_chars(file: &Path, value: &Value, at: &str, ds: &mut Vec<Diagnostic>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                // Shown escaped: the key itself is what must not reach the terminal raw.
                let here = join(at, &key.escape_debug().to_string());
                if let Some(c) = control_char(key) {
                    refuse(file, here.clone(), "the key", c, ds);
                    continue;
                }
                if let (true, Value::String(s)) = (NAME_FIELDS.contains(&key.as_str()), v)
                    && let Some(c) = control_char(s)
                {
                    refuse(file, here.clone(), "the name", c, ds);
                }
                find_control_chars(file, v, &here, ds);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                find_control_chars(file, v, &format!("{at}[{i}]"), ds);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn found(v: Value) -> Vec<String> {
        let mut ds = Vec::new();
        find_control_chars(Path::new("job.yaml"), &v, "", &mut ds);
        ds.into_iter().map(|d| format!("{}: {}", d.path, d.message)).collect()
    }

    #[test]
    fn escape_sequences_nul_and_bell_in_names_and_keys_are_refused_with_their_path() {
        let v = json!({
            "agent": {
                "id": "bot\u{1b}[2J",
                "inputs": { "mcps": [ { "server": "x\u{1b}[31mRED" } ] },
                "runtime": { "agents": { "re\u{7}lease": {} } }
            },
            "personas": [ { "name": "Ann\u{0}" } ],
            "x\u{9b}y": 1
        });
        let got = found(v);
        assert_eq!(got.len(), 5, "{got:#?}");
        assert!(
            got.iter()
                .any(|g| g.starts_with("agent.id: the name holds the control character U+001B"))
        );
        assert!(got.iter().any(|g| g.starts_with("agent.inputs.mcps[0].server:")));
        assert!(
            got.iter().any(|g| g.contains("re\\u{7}lease") && g.contains("U+0007")),
            "{got:#?}"
        );
        assert!(
            got.iter()
                .any(|g| g.starts_with("personas[0].name:") && g.contains("U+0000"))
        );
        assert!(got.iter().any(|g| g.contains("U+009B")), "a C1 control (CSI) too");
        // No raw control character in any message.
        assert!(got.iter().all(|g| control_char(g).is_none()));
    }

    #[test]
    fn free_text_and_printable_names_pass() {
        let v = json!({
            "agent": { "id": "release-bot", "instructions": "Line one\n\tindented\r\n" },
            "prompt": "text with a \u{1b} in a prompt is free text, not a name",
            "name": "Zoë 🚀"
        });
        assert!(found(v).is_empty());
    }
}
