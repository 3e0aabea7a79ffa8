//! JSON Schema violations as diagnostics: each at its key path, with the nearest valid key,
//! the allowed values of an enum, the range of a number, and for an untagged enum (`oneOf` /
//! `anyOf` of shapes) the deepest member that failed.

use jsonschema::ValidationError;
use jsonschema::error::ValidationErrorKind;
use jsonschema::paths::LocationSegment;
use serde_json::Value;
use std::path::Path;
use std::sync::LazyLock;

use super::diagnostics::{Diagnostic, diag, join, nearest};
use super::document::json_type;
use super::limits::pattern_meaning;
use super::schema::{job_schema, node_at, resolve_ref};

static JOB_VALIDATOR: LazyLock<jsonschema::Validator> =
    LazyLock::new(|| jsonschema::validator_for(job_schema()).expect("job schema compiles"));

/// Unknown keys of one mapping named one by one (each with its nearest valid key); the rest
/// are counted: a file of 60,000 stray keys is a wrong file, not 60,000 typos.
const UNKNOWN_KEYS_NAMED: usize = 40;

/// Validates `value` against `schema` and turns every violation into a diagnostic.
pub(crate) fn schema_diagnostics(path: &Path, schema: &Value, value: &Value) -> Vec<Diagnostic> {
    let owned;
    let validator = if std::ptr::eq(schema, job_schema()) {
        &*JOB_VALIDATOR
    } else {
        owned = match jsonschema::validator_for(schema) {
            Ok(v) => v,
            Err(e) => return vec![diag(path, "", format!("internal schema error: {e}"))],
        };
        &owned
    };
    let mut out = Vec::new();
    for error in validator.iter_errors(value) {
        describe(path, schema, &error, &mut out);
    }
    out
}

/// The job's schema violations, and whether every one breaks only a value rule (a range, a
/// text form, a length, a key another key needs) on a value of the right type.
pub(crate) fn schema_rule_check(path: &Path, value: &Value) -> (Vec<Diagnostic>, bool) {
    let mut out = Vec::new();
    let mut only_rules = true;
    for error in JOB_VALIDATOR.iter_errors(value) {
        only_rules &= is_value_rule(&error);
        describe(path, job_schema(), &error, &mut out);
    }
    (out, only_rules)
}

fn is_value_rule(error: &ValidationError<'_>) -> bool {
    let conditional = error
        .schema_path()
        .segments()
        .any(|s| matches!(s, LocationSegment::Property(p) if p == "allOf"));
    conditional
        || matches!(
            error.kind(),
            ValidationErrorKind::Minimum { .. }
                | ValidationErrorKind::Maximum { .. }
                | ValidationErrorKind::ExclusiveMinimum { .. }
                | ValidationErrorKind::ExclusiveMaximum { .. }
                | ValidationErrorKind::Pattern { .. }
                | ValidationErrorKind::MinLength { .. }
                | ValidationErrorKind::MinItems { .. }
                | ValidationErrorKind::MaxItems { .. }
        )
}

/// One violation as diagnostics.
fn describe(path: &Path, schema: &Value, error: &ValidationError<'_>, out: &mut Vec<Diagnostic>) {
    let v = Violation {
        path,
        schema,
        error,
        at: dotted(error.instance_path().segments()),
        schema_tokens: error.schema_path().segments().map(|s| s.to_string()).collect(),
    };
    let at = v.at.clone();
    match error.kind() {
        ValidationErrorKind::AdditionalProperties { unexpected } => v.unknown_keys(unexpected, out),
        ValidationErrorKind::Required { property } => {
            let key = property.as_str().unwrap_or_default();
            out.push(diag(path, join(&at, key), "missing required key"));
        }
        ValidationErrorKind::Type { kind } => {
            out.push(diag(
                path,
                at,
                format!(
                    "wrong type: expected {}, found {}",
                    type_names(kind),
                    json_type(error.instance())
                ),
            ));
        }
        ValidationErrorKind::Enum { options } => {
            let allowed: Vec<String> = options
                .as_array()
                .map(|a| a.iter().map(plain).collect())
                .unwrap_or_default();
            out.push(v.not_one_of(&allowed));
        }
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            out.push(v.no_alternative(context))
        }
        ValidationErrorKind::Minimum { .. } | ValidationErrorKind::Maximum { .. } => out.push(v.out_of_range()),
        ValidationErrorKind::Pattern { pattern } => {
            let found = short(error.instance());
            let message = match pattern_meaning(pattern) {
                Some(meaning) => format!("{found} {meaning}"),
                None => format!("{found} does not have the form `{pattern}`"),
            };
            out.push(diag(path, at, message));
        }
        ValidationErrorKind::MinLength { .. } => out.push(diag(path, at, "must not be empty")),
        ValidationErrorKind::MinItems { limit } => out.push(diag(
            path,
            at,
            format!("needs at least {limit} entr{}", plural_y(*limit)),
        )),
        ValidationErrorKind::MaxItems { limit: 0 } => {
            out.push(diag(path, at, "must be empty here (see the keys it depends on)"))
        }
        ValidationErrorKind::Constant { expected_value } => {
            out.push(diag(path, at, format!("must be {expected_value}")))
        }
        _ => out.push(diag(path, at, error.to_string())),
    }
}

/// One schema violation with where it is: `at` in the document, `schema_tokens` in the schema.
struct Violation<'a, 'e> {
    path: &'a Path,
    schema: &'a Value,
    error: &'a ValidationError<'e>,
    at: String,
    schema_tokens: Vec<String>,
}

impl Violation<'_, '_> {
    /// The schema node holding the failed keyword.
    fn node(&self) -> Option<&Value> {
        node_at(
            self.schema,
            &self.schema_tokens[..self.schema_tokens.len().saturating_sub(1)],
        )
    }

    /// Each unknown key with its nearest valid key (or the valid keys), then a count of the rest.
    fn unknown_keys(&self, unexpected: &[String], out: &mut Vec<Diagnostic>) {
        let (path, at) = (self.path, &self.at);
        let parent_tokens = &self.schema_tokens[..self.schema_tokens.len().saturating_sub(1)];
        let known = known_keys(self.schema, parent_tokens);
        for key in unexpected.iter().take(UNKNOWN_KEYS_NAMED) {
            let mut d = diag(path, join(at, key), format!("unknown key `{key}`"));
            d.hint = match nearest(key, known.iter().map(String::as_str)) {
                Some(k) => Some(format!("did you mean `{k}`?")),
                None if !known.is_empty() => Some(format!("valid keys here: {}", known.join(", "))),
                None => None,
            };
            out.push(d);
        }
        if unexpected.len() > UNKNOWN_KEYS_NAMED {
            let rest = unexpected.len() - UNKNOWN_KEYS_NAMED;
            let place = if at.is_empty() { "(document)" } else { at.as_str() };
            out.push(diag(
                path,
                at.clone(),
                format!("… and {rest} more unknown keys in {place}; is this the right file?"),
            ));
        }
    }

    /// The value is not among `allowed`; the nearest one is suggested.
    fn not_one_of(&self, allowed: &[String]) -> Diagnostic {
        let found = plain(self.error.instance());
        let mut d = diag(
            self.path,
            self.at.clone(),
            format!("`{found}` is not one of: {}", allowed.join(", ")),
        );
        d.hint = nearest(&found, allowed.iter().map(String::as_str)).map(|k| format!("did you mean `{k}`?"));
        d
    }

    /// No `anyOf`/`oneOf` alternative matched: an enum of constants lists its values; an
    /// untagged enum of shapes names its deepest failing member; else the node's description.
    fn no_alternative(&self, context: &[Vec<ValidationError<'static>>]) -> Diagnostic {
        let node = self.node();
        if let Some(allowed) = node.and_then(|n| enum_choices(self.schema, n)) {
            return self.not_one_of(&allowed);
        }
        let base = self.error.instance_path().segments().count();
        if let Some(d) = deepest_member(self.path, self.schema, base, context) {
            return d;
        }
        let what = node
            .and_then(|n| n.get("description"))
            .and_then(Value::as_str)
            .map(|d| d.lines().next().unwrap_or(d).to_string())
            .unwrap_or_else(|| "one of the allowed forms".to_string());
        diag(
            self.path,
            self.at.clone(),
            format!("invalid value {}: expected {what}", short(self.error.instance())),
        )
    }

    /// A number outside `minimum..=maximum`; a 0.0..=1.0 range reads as a fraction.
    fn out_of_range(&self) -> Diagnostic {
        let node = self.node();
        // `0.0` reads as `0`, as in the semantic checks' messages.
        let bound = |k: &str| {
            node.and_then(|n| n.get(k)).map(|b| match b.as_f64() {
                Some(f) if b.is_f64() => f.to_string(),
                _ => b.to_string(),
            })
        };
        let (min, max) = (
            bound("minimum").unwrap_or_default(),
            bound("maximum").unwrap_or_default(),
        );
        let found = short(self.error.instance());
        let is_fraction = (min.as_str(), max.as_str()) == ("0", "1")
            && node.and_then(|n| n.get("minimum")).is_some_and(Value::is_f64);
        let message = if is_fraction {
            format!("{found} is not a fraction between 0 and 1")
        } else {
            format!("{found} is out of range {min}..={max}")
        };
        diag(self.path, self.at.clone(), message)
    }
}

/// A value as the user wrote it: a string without its quotes, anything else as JSON.
fn plain(v: &Value) -> String {
    v.as_str().map(str::to_string).unwrap_or(v.to_string())
}

/// For an untagged enum: the member that got deepest into the value, named at its own key
/// path. At that depth, every allowed value (enums) and shape (types) is listed.
fn deepest_member(
    path: &Path,
    schema: &Value,
    base: usize,
    context: &[Vec<ValidationError<'static>>],
) -> Option<Diagnostic> {
    let mut leaves: Vec<&ValidationError<'static>> = Vec::new();
    collect_leaves(context, &mut leaves);
    let depth = |e: &ValidationError<'_>| e.instance_path().segments().count();
    let deepest = leaves.iter().map(|e| depth(e)).max()?;
    let at_depth: Vec<&ValidationError<'static>> = leaves.iter().copied().filter(|e| depth(e) == deepest).collect();
    if deepest > base && at_depth.len() == 1 {
        let mut out = Vec::new();
        describe(path, schema, at_depth[0], &mut out);
        return out.into_iter().next();
    }
    let mut forms: Vec<String> = Vec::new();
    for e in &at_depth {
        match e.kind() {
            ValidationErrorKind::Enum { options } => forms.extend(options.as_array().into_iter().flatten().map(plain)),
            ValidationErrorKind::Constant { expected_value } => forms.push(plain(expected_value)),
            ValidationErrorKind::Type { kind } => forms.push(format!("<{}>", type_names(kind))),
            _ => {}
        }
    }
    if forms.is_empty() {
        return None;
    }
    forms.dedup();
    let (values, shapes): (Vec<String>, Vec<String>) = forms.into_iter().partition(|f| !f.starts_with('<'));
    let mut expected = Vec::new();
    if !values.is_empty() {
        expected.push(format!("one of {}", values.join("|")));
    }
    expected.extend(shapes.iter().map(|s| match s.trim_matches(['<', '>']) {
        "object" => "a mapping".to_string(),
        "array" => "a list".to_string(),
        other => format!("a {other}"),
    }));
    let e = at_depth[0];
    let member_at = dotted(e.instance_path().segments());
    let found = e
        .instance()
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| short(e.instance()));
    let mut d = diag(
        path,
        member_at,
        format!("`{found}`: expected {}", expected.join(", or ")),
    );
    d.hint = nearest(&found, values.iter().map(String::as_str)).map(|k| format!("did you mean `{k}`?"));
    Some(d)
}

/// Every non-combinator error under `context`, descending into nested `anyOf`/`oneOf`.
fn collect_leaves<'e>(context: &'e [Vec<ValidationError<'static>>], out: &mut Vec<&'e ValidationError<'static>>) {
    for branch in context {
        for e in branch {
            match e.kind() {
                ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
                    collect_leaves(context, out)
                }
                _ => out.push(e),
            }
        }
    }
}

/// For a `oneOf`/`anyOf` whose alternatives are all constants (how documented enums are
/// generated), the allowed values.
fn enum_choices(schema: &Value, node: &Value) -> Option<Vec<String>> {
    let node = resolve_ref(schema, node)?;
    let alternatives = node.get("oneOf").or_else(|| node.get("anyOf"))?.as_array()?;
    let mut out = Vec::new();
    for alt in alternatives {
        let alt = resolve_ref(schema, alt)?;
        if let Some(c) = alt.get("const").and_then(Value::as_str) {
            out.push(c.to_string());
        } else if let Some(values) = alt.get("enum").and_then(Value::as_array) {
            out.extend(values.iter().filter_map(Value::as_str).map(str::to_string));
        } else {
            return None;
        }
    }
    Some(out)
}

/// The property names valid at the schema node reached by `tokens`.
fn known_keys(schema: &Value, tokens: &[String]) -> Vec<String> {
    node_at(schema, tokens)
        .and_then(|n| resolve_ref(schema, n))
        .and_then(|n| n.get("properties"))
        .and_then(Value::as_object)
        .map(|props| props.keys().cloned().collect())
        .unwrap_or_default()
}

fn dotted<'a>(segments: impl Iterator<Item = LocationSegment<'a>>) -> String {
    let mut out = String::new();
    for segment in segments {
        match segment {
            LocationSegment::Index(i) => out.push_str(&format!("[{i}]")),
            LocationSegment::Property(p) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&p);
            }
        }
    }
    out
}

fn type_names(kind: &jsonschema::error::TypeKind) -> String {
    match kind {
        jsonschema::error::TypeKind::Single(t) => t.to_string(),
        jsonschema::error::TypeKind::Multiple(set) => {
            set.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(" or ")
        }
    }
}

fn plural_y(n: u64) -> &'static str {
    if n == 1 { "y" } else { "ies" }
}

fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 60 {
        format!("{}…", text.chars().take(60).collect::<String>())
    } else {
        text
    }
}
