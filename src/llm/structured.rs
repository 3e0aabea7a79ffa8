//! Structured answers: pull the JSON out of a model's text and validate it against a schema.
//!
//! Validation uses the `jsonschema` crate; a failure message names the JSON path and the rule
//! broken so the model can be asked to fix exactly that. Nothing here calls a model.

use super::JsonSchemaSpec;

/// The instruction added when the server cannot enforce a schema itself.
pub(crate) fn schema_instruction(spec: &JsonSchemaSpec) -> String {
    format!(
        "Answer with a single JSON document and nothing else (no prose, no code fences). \
         It must validate against this JSON Schema named `{}`:\n{}",
        spec.name,
        serde_json::to_string(&spec.schema).unwrap_or_default()
    )
}

/// The follow-up sent after an answer failed validation.
pub(crate) fn repair_instruction(problem: &str) -> String {
    format!(
        "Your previous answer was rejected: {problem}. Reply again with only the corrected JSON \
         document that validates against the schema."
    )
}

/// Returns the JSON text inside `content`: the whole text, or the body of a ```json fence.
pub(crate) fn extract_json(content: &str) -> &str {
    let t = content.trim();
    if let Some(rest) = t.strip_prefix("```") {
        let rest = rest.trim_start_matches(|c: char| c.is_ascii_alphanumeric());
        if let Some(end) = rest.rfind("```") {
            return rest[..end].trim();
        }
    }
    t
}

/// Compiled validators of the schemas seen last on this thread. The emulator and the judge send
/// the same few schemas with every call, and compiling one costs more than checking an answer;
/// per thread, so no lock is shared between cases.
const CACHED_SCHEMAS: usize = 8;

type Compiled = std::rc::Rc<jsonschema::Validator>;

thread_local! {
    static VALIDATORS: std::cell::RefCell<Vec<(serde_json::Value, Compiled)>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn compiled(schema: &serde_json::Value) -> Result<Compiled, jsonschema::ValidationError<'static>> {
    if let Some(hit) = VALIDATORS.with(|v| v.borrow().iter().find(|(s, _)| s == schema).map(|(_, c)| c.clone())) {
        return Ok(hit);
    }
    let validator: Compiled = jsonschema::validator_for(schema)?.into();
    VALIDATORS.with(|v| {
        let mut v = v.borrow_mut();
        if v.len() == CACHED_SCHEMAS {
            v.remove(0);
        }
        v.push((schema.clone(), validator.clone()));
    });
    Ok(validator)
}

/// Why a structured answer is refused; the words are sent back to the model once.
#[derive(Debug, thiserror::Error)]
pub(crate) enum AnswerError {
    #[error("the answer is not valid JSON ({0})")]
    NotJson(#[source] serde_json::Error),
    #[error("the schema `{name}` itself is invalid: {reason}")]
    BadSchema { name: String, reason: String },
    /// Up to eight problems, each `at PATH: message`.
    #[error("the answer does not match schema `{name}`: {}", problems.join("; "))]
    Mismatch { name: String, problems: Vec<String> },
}

/// Parses and validates `content`; `Err` describes every problem found (path: message).
pub(crate) fn validate_answer(content: &str, spec: &JsonSchemaSpec) -> Result<serde_json::Value, AnswerError> {
    let text = extract_json(content);
    let value: serde_json::Value = serde_json::from_str(text).map_err(AnswerError::NotJson)?;
    let validator = compiled(&spec.schema).map_err(|e| AnswerError::BadSchema {
        name: spec.name.clone(),
        reason: e.to_string(),
    })?;
    let problems: Vec<String> = validator
        .iter_errors(&value)
        .take(8)
        .map(|e| {
            let path = e.instance_path().to_string();
            let at = if path.is_empty() { "/".to_string() } else { path };
            format!("at {at}: {e}")
        })
        .collect();
    if problems.is_empty() {
        Ok(value)
    } else {
        Err(AnswerError::Mismatch {
            name: spec.name.clone(),
            problems,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec() -> JsonSchemaSpec {
        JsonSchemaSpec {
            name: "verdict".into(),
            schema: json!({"type":"object","required":["ok"],"properties":{"ok":{"type":"boolean"}}}),
        }
    }

    #[test]
    fn answer_errors_keep_their_words() {
        let mismatch = AnswerError::Mismatch {
            name: "verdict".into(),
            problems: vec!["at /ok: 1 is not a boolean".into(), "at /: x".into()],
        };
        assert_eq!(
            mismatch.to_string(),
            "the answer does not match schema `verdict`: at /ok: 1 is not a boolean; at /: x"
        );
        let not_json = validate_answer("{", &spec()).unwrap_err();
        assert!(matches!(not_json, AnswerError::NotJson(_)));
        assert!(std::error::Error::source(&not_json).is_some());
        assert!(
            not_json.to_string().starts_with("the answer is not valid JSON ("),
            "{not_json}"
        );
    }

    #[test]
    fn accepts_fenced_and_plain_json() {
        assert!(validate_answer("{\"ok\":true}", &spec()).is_ok());
        assert!(validate_answer("```json\n{\"ok\": false}\n```", &spec()).is_ok());
    }

    #[test]
    fn names_the_path_and_rule_broken() {
        let err = validate_answer("{\"ok\":\"yes\"}", &spec()).unwrap_err().to_string();
        assert!(err.contains("/ok") && err.contains("boolean"), "{err}");
        let err = validate_answer("{}", &spec()).unwrap_err().to_string();
        assert!(err.contains("ok"), "{err}");
        let err = validate_answer("not json", &spec()).unwrap_err().to_string();
        assert!(err.contains("not valid JSON"), "{err}");
    }

    #[test]
    fn a_cached_validator_is_never_used_for_another_schema_of_the_same_name() {
        assert!(validate_answer("{\"ok\":true}", &spec()).is_ok());
        let other = JsonSchemaSpec {
            name: "verdict".into(),
            schema: json!({"type":"object","required":["ok"],"properties":{"ok":{"type":"string"}}}),
        };
        assert!(validate_answer("{\"ok\":true}", &other).is_err());
        assert!(validate_answer("{\"ok\":true}", &spec()).is_ok());
        let broken = JsonSchemaSpec {
            name: "broken".into(),
            schema: json!({"type": 12}),
        };
        let err = validate_answer("{}", &broken).unwrap_err().to_string();
        assert!(err.contains("schema `broken` itself is invalid"), "{err}");
    }
}
