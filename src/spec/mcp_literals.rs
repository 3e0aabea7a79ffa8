//! Credentials written as literals in an MCP server's entry or a job's MCP input: refused with
//! the key that holds them, since they would reach generated configs and process listings.
//! The value itself is never echoed.

use indexmap::IndexMap;
use std::path::Path;

use super::diagnostics::{Diagnostic, diag, join};
use super::mcp_dialects::bare_variable;
use crate::util::secret_ref::{env_spelling, has_reference, is_secret_name};

/// Refuses a value shaped like a credential (`sk-ant-…`, `ghp_…`, a bearer token) in a
/// server's argv or URL, where a secret-named `${VAR}` is refused too: both reach generated
/// configs and process listings. The value itself is never echoed.
pub(crate) fn check_literal_token(file: &Path, at: &str, value: &str, ds: &mut Vec<Diagnostic>) {
    if crate::util::token_shape::has_token_shape(value) {
        let mut d = diag(file, at, "holds a literal credential (a token-shaped value)");
        d.hint = Some(if at.ends_with("url") {
            "send it in a header written as a `${VAR}` reference, and export that variable".into()
        } else {
            "pass it through the server's environment as a `${VAR}` reference, and let the server read it there".into()
        });
        ds.push(d);
    }
}

/// Refuses literal values for keys that carry credentials: they would reach generated files.
pub(crate) fn check_literal_secrets(file: &Path, at: &str, map: &IndexMap<String, String>, ds: &mut Vec<Diagnostic>) {
    for (key, value) in map {
        let unclosed = crate::util::secret_ref::unterminated_reference(value).is_some();
        if is_secret_name(key) && !value.is_empty() && (!has_reference(value) || unclosed) {
            if let Some((message, hint)) = crate::util::secret_ref::literal_credential_message(value) {
                let mut d = diag(file, join(at, key), message);
                d.hint = Some(hint);
                ds.push(d);
                continue;
            }
            let mut d = diag(file, join(at, key), "a literal credential is not allowed here");
            d.hint = Some(match bare_variable(value) {
                Some(var) => {
                    format!("`${var}` is not expanded by MCP clients or OpenCode; write `${{{var}}}` and export {var}")
                }
                None => format!(
                    "write it as a reference, e.g. `${{{}}}`, and export that variable",
                    env_spelling(key)
                ),
            });
            ds.push(d);
        }
    }
}
