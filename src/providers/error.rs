//! Why the agent's model providers cannot be used: an unreadable OpenCode login file, a
//! provider without a credential, or a host Ghostlab cannot allowlist. `ghostlab test` exits 2
//! with these words, before anything slow starts.

use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    #[error("neither XDG_DATA_HOME nor HOME is set, so OpenCode's login file cannot be found")]
    NoDataDir,
    #[error("{}: cannot read OpenCode's login file: {reason}", path.display())]
    AuthUnreadable { path: PathBuf, reason: String },
    #[error("{}: OpenCode's login file is not a JSON object", path.display())]
    AuthNotObject { path: PathBuf },
    /// The parser's message names a line and column, never the content.
    #[error("{}: OpenCode's login file is not valid JSON: {source}", path.display())]
    AuthNotJson {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    /// One explanation per provider without a credential (what would supply it, which job key
    /// opts it in).
    #[error("{}", .0.join("\n"))]
    MissingCredentials(Vec<String>),
    /// `at`: `job.yaml: agent.runtime.model: model `m` (provider `p`)`.
    #[error("{at}: {problem}")]
    Endpoint { at: String, problem: EndpointProblem },
}

/// Why one provider's hosts cannot be known.
#[derive(Debug, thiserror::Error)]
pub enum EndpointProblem {
    #[error("options.baseURL `{0}` is not an http(s) URL Ghostlab can allowlist")]
    BaseUrl(String),
    #[error(
        "Azure needs its resource name: set `options.resourceName` in the provider block or export AZURE_RESOURCE_NAME"
    )]
    AzureResourceName,
    #[error(
        "Ghostlab does not know this provider's host and has no OpenCode binary to ask its catalog; set `options.baseURL` in agent.runtime.provider"
    )]
    NoCatalog,
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    #[error("not in OpenCode's catalog")]
    NotInCatalog,
    #[error("the catalog URL `{0}` cannot be allowlisted")]
    CatalogUrl(String),
    #[error("its package {0} has no host Ghostlab knows; set `options.baseURL` in agent.runtime.provider")]
    UnknownPackage(String),
}

/// Why the pinned OpenCode binary could not say where a provider lives.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error("cannot create a temporary HOME: {0}")]
    TempHome(#[source] std::io::Error),
    #[error("`opencode models {provider}` took longer than {after:?}")]
    TimedOut { provider: String, after: Duration },
    #[error("cannot run {}: {source}", bin.display())]
    Run {
        bin: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// `last_line`: the last line OpenCode wrote on stderr (or "no output").
    #[error("OpenCode's catalog has no provider `{provider}` ({last_line})")]
    UnknownProvider { provider: String, last_line: String },
}

/// Why OpenCode's login file could not be staged into a session's HOME. Names the path and
/// the step; never a value of the file.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StageError {
    #[error("{}: {source}", home.display())]
    Home {
        home: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("staging OpenCode's login file ({step}, {}): {source}", path.display())]
    Step {
        step: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_provider_error_names_the_file_or_the_job_key() {
        let e = ProviderError::AuthNotObject {
            path: "/h/auth.json".into(),
        };
        assert_eq!(
            e.to_string(),
            "/h/auth.json: OpenCode's login file is not a JSON object"
        );
        let e = ProviderError::MissingCredentials(vec!["a: no key".into(), "b: no key".into()]);
        assert_eq!(e.to_string(), "a: no key\nb: no key");
        let e = ProviderError::Endpoint {
            at: "job.yaml: agent.runtime.model: model `m` (provider `p`)".into(),
            problem: EndpointProblem::BaseUrl("ftp://x".into()),
        };
        assert_eq!(
            e.to_string(),
            "job.yaml: agent.runtime.model: model `m` (provider `p`): options.baseURL `ftp://x` is not an http(s) URL Ghostlab can allowlist"
        );
        let e = EndpointProblem::from(CatalogError::UnknownProvider {
            provider: "corp".into(),
            last_line: "no output".into(),
        });
        assert_eq!(e.to_string(), "OpenCode's catalog has no provider `corp` (no output)");
        let e = CatalogError::Run {
            bin: "/bin/opencode".into(),
            source: std::io::Error::from(std::io::ErrorKind::NotFound),
        };
        assert!(e.to_string().starts_with("cannot run /bin/opencode: "), "{e}");
        assert!(std::error::Error::source(&e).is_some());
    }
}
