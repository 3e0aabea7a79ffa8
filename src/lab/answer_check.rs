//! Reading a step's typed answer with the same words `validate` uses: the answer is placed at
//! its key of the job (`agent.inputs.mcps`, `review.gates`, …) and checked against the job's
//! JSON Schema, so a wrong value is named by its key, the allowed values and the fix, never by
//! a serde internal ("untagged enum PermissionRule", "expected f64", "struct SandboxAnswer").

use serde::de::DeserializeOwned;
use serde_json::Value;
use std::path::Path;

use super::answer_error::AnswerError;
use crate::spec::Job;
use crate::spec::schema::job_schema;
use crate::spec::schema_errors::schema_diagnostics;

/// Where a step's answer goes in the job, as a path of object keys.
pub(crate) struct AnswerKey {
    pub(crate) keys: &'static [&'static str],
    /// Merge the answer's keys into the object already there (a step that edits part of it).
    pub(crate) merge: bool,
}

/// Parses `text` (YAML) as the answer at `key` of `job`; `what` names it in messages.
pub(crate) fn parse_answer<T: DeserializeOwned>(
    text: &str,
    what: &str,
    key: AnswerKey,
    job: &Job,
) -> Result<T, AnswerError> {
    let answer: Value = crate::spec::yaml_guard::parse_guarded(text).map_err(|reason| AnswerError::Unreadable {
        what: what.to_string(),
        reason: reason.to_string(),
    })?;
    let mut doc = serde_json::to_value(job).map_err(AnswerError::JobNotJson)?;
    place(&mut doc, &key, answer.clone());
    let dotted = key.keys.join(".");
    let problems: Vec<String> = schema_diagnostics(Path::new("job.yaml"), job_schema(), &doc)
        .into_iter()
        .filter(|d| {
            d.path == dotted || d.path.starts_with(&format!("{dotted}.")) || d.path.starts_with(&format!("{dotted}["))
        })
        .map(|d| {
            let at = d.path.strip_prefix(&dotted).unwrap_or(&d.path).trim_start_matches('.');
            let place = if at.is_empty() {
                String::new()
            } else {
                format!("`{at}`: ")
            };
            let hint = d.hint.map(|h| format!(" ({h})")).unwrap_or_default();
            format!("{place}{}{hint}", d.message)
        })
        .collect();
    if !problems.is_empty() {
        return Err(AnswerError::Unusable {
            what: what.to_string(),
            problems: problems.join("; "),
        });
    }
    serde_json::from_value(answer).map_err(|e| AnswerError::Unusable {
        what: what.to_string(),
        problems: plain(&e.to_string()),
    })
}

fn place(doc: &mut Value, key: &AnswerKey, answer: Value) {
    let mut at = doc;
    for k in key.keys {
        if !at.is_object() {
            *at = Value::Object(Default::default());
        }
        at = at
            .as_object_mut()
            .expect("made an object above")
            .entry(k.to_string())
            .or_insert(Value::Null);
    }
    match (key.merge, at.as_object_mut(), answer) {
        (true, Some(existing), Value::Object(new)) => existing.extend(new),
        (_, _, answer) => *at = answer,
    }
}

/// A serde message in plain words, for what the schema did not already catch.
pub(super) fn plain(message: &str) -> String {
    let (message, place) = match message.find(" at line ") {
        Some(at) => message.split_at(at),
        None => (message, ""),
    };
    if message.contains("did not match any variant") {
        return format!("the value has none of the accepted forms{place}");
    }
    let mut out = message.to_string();
    for (internal, words) in [
        ("f64", "a number"),
        ("f32", "a number"),
        ("u64", "a whole number"),
        ("u32", "a whole number"),
        ("usize", "a whole number"),
        ("i64", "a whole number"),
        ("a sequence", "a list"),
        ("a map", "a mapping of keys"),
    ] {
        out = out.replace(internal, words);
    }
    if let Some(pos) = out.find("expected struct ") {
        out.replace_range(pos.., "expected a mapping of keys");
    }
    out + place
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::Gates;

    const GATES: AnswerKey = AnswerKey {
        keys: &["review", "gates"],
        merge: false,
    };

    #[test]
    fn a_wrong_value_is_named_by_its_key_in_the_schemas_words() {
        let job = Job::default();
        let err = parse_answer::<Gates>("min_pass_rate: lots\n", "the gates", GATES, &job)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("the gates cannot be used: `min_pass_rate`"), "{err}");
        assert!(!err.contains("f64") && !err.contains("is not valid"), "{err}");
        let ok: Gates = parse_answer("min_pass_rate: 0.9\n", "the gates", GATES, &job).unwrap();
        assert_eq!(ok.min_pass_rate, Some(0.9));
    }

    #[test]
    fn hostile_answers_meet_the_same_guard_as_job_yaml() {
        let job = Job::default();
        let deep = format!(
            "min_pass_rate: 0.9 # ok\rrequired: {}1{}\n",
            "[".repeat(50_000),
            "]".repeat(50_000)
        );
        let err = parse_answer::<Gates>(&deep, "the gates", GATES, &job).unwrap_err();
        assert!(matches!(err, AnswerError::Unreadable { .. }), "{err:?}");
        let err = err.to_string();
        assert!(err.contains("nesting") && err.contains("line 2"), "{err}");
        let mut bomb = String::from("a: &a [x,x,x,x,x,x,x,x,x]\n");
        for w in ["a", "b", "c", "d", "e", "f", "g", "h", "i"].windows(2) {
            bomb.push_str(&format!(
                "{}: &{} [{}]\n",
                w[1],
                w[1],
                vec![format!("*{}", w[0]); 9].join(",")
            ));
        }
        let err = parse_answer::<Gates>(&bomb, "the gates", GATES, &job)
            .unwrap_err()
            .to_string();
        assert!(err.contains("alias-expansion budget"), "{err}");
    }

    #[test]
    fn plain_words_replace_serde_internals() {
        assert_eq!(
            plain("data did not match any variant of untagged enum PermissionRule at line 2 column 3"),
            "the value has none of the accepted forms at line 2 column 3"
        );
        assert_eq!(
            plain("invalid type: string \"x\", expected struct SandboxAnswer"),
            "invalid type: string \"x\", expected a mapping of keys"
        );
        assert_eq!(
            plain("invalid type: string \"x\", expected f64"),
            "invalid type: string \"x\", expected a number"
        );
    }
}
