//! HTTP headers for remote MCP servers: `${VAR}` references resolved from the environment at
//! connect time.
//!
//! Resolved values exist only in the returned header map; they are never logged, never put in
//! an error message and never written to a file.

use indexmap::IndexMap;
use reqwest::header::{HeaderName, HeaderValue};
use std::collections::HashMap;

use crate::util::secret_ref::{is_secret_name, referenced_vars};

/// Why a header could not be built; names the header and variable, never a value.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum HeaderError {
    #[error("`{header}` references ${{{var}}}, which is not set in the environment")]
    MissingVar { header: String, var: String },
    #[error("`{0}` is not a valid HTTP header name")]
    BadName(String),
    #[error("the value of header `{0}` is not a valid HTTP header value")]
    BadValue(String),
}

/// Expands every `${VAR}` in `text` with `lookup`; a missing variable is an error.
pub(crate) fn expand(header: &str, text: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Result<String, HeaderError> {
    let mut out = text.to_string();
    for var in referenced_vars(text) {
        let value = lookup(&var).ok_or_else(|| HeaderError::MissingVar {
            header: header.to_string(),
            var: var.clone(),
        })?;
        // A value that a secret-named key or variable carries is a secret wherever it might be
        // echoed back. Other values (a log level, a folder) are not: masking them would rewrite
        // ordinary words in every artifact.
        if is_secret_name(header) || is_secret_name(&var) {
            crate::redact::register_secret(&value);
        }
        out = out.replace(&format!("${{{var}}}"), &value);
    }
    Ok(out)
}

/// Builds the header map from the process environment.
pub(crate) fn resolve_headers(
    headers: &IndexMap<String, String>,
) -> Result<HashMap<HeaderName, HeaderValue>, HeaderError> {
    resolve_headers_with(headers, &|v| std::env::var(v).ok())
}

/// Builds the header map with an explicit variable lookup (tests).
pub(crate) fn resolve_headers_with(
    headers: &IndexMap<String, String>,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<HashMap<HeaderName, HeaderValue>, HeaderError> {
    let mut out = HashMap::new();
    for (k, v) in headers {
        let name = HeaderName::from_bytes(k.as_bytes()).map_err(|_| HeaderError::BadName(k.clone()))?;
        let value = expand(k, v, lookup)?;
        let mut value = HeaderValue::from_str(&value).map_err(|_| HeaderError::BadValue(k.clone()))?;
        value.set_sensitive(true);
        out.insert(name, value);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_references_and_names_missing_ones() {
        let lookup = |v: &str| (v == "TOK").then(|| "s3cr3t".to_string());
        let h = IndexMap::from([("Authorization".to_string(), "Bearer ${TOK}".to_string())]);
        let map = resolve_headers_with(&h, &lookup).unwrap();
        assert_eq!(
            map.get(&HeaderName::from_static("authorization"))
                .unwrap()
                .to_str()
                .unwrap(),
            "Bearer s3cr3t"
        );
        let h = IndexMap::from([("X-Key".to_string(), "${NOPE}".to_string())]);
        let err = resolve_headers_with(&h, &lookup).unwrap_err();
        assert!(err.to_string().contains("NOPE") && err.to_string().contains("X-Key"));
    }

    #[test]
    fn a_bad_value_error_does_not_echo_the_value() {
        let lookup = |_: &str| Some("bad\nvalue".to_string());
        let h = IndexMap::from([("X-Key".to_string(), "${V}".to_string())]);
        let err = resolve_headers_with(&h, &lookup).unwrap_err();
        assert!(!err.to_string().contains("bad"));
    }
}
