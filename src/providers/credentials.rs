//! Fail fast: every provider the job's models use must have a credential the sandbox will
//! receive, and only through an explicit opt-in. Checked before the first case, in well under a
//! second (no process is started, nothing is fetched).

use serde::{Deserialize, Serialize};

use super::auth_file::AuthFile;
use super::error::ProviderError;
use super::known::known;
use super::model_uses::{ModelUse, Override, by_provider, provider_block};
use crate::spec::LoadedJob;
use crate::util::loopback::is_loopback_url;
use crate::util::secret_ref::referenced_vars;

/// How a provider's credential reaches the agent (never the value).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "name", rename_all = "snake_case")]
pub(crate) enum CredentialKind {
    /// This variable, opted in by name, in the agent's environment only.
    Env(String),
    /// The provider's entry of the user's OpenCode login file, staged per session.
    OpencodeLogin,
    /// A local endpoint that needs no key.
    Keyless,
}

impl std::fmt::Display for CredentialKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CredentialKind::Env(v) => write!(f, "environment variable {v}"),
            CredentialKind::OpencodeLogin => f.write_str("OpenCode login (auth.json)"),
            CredentialKind::Keyless => f.write_str("none needed (local endpoint)"),
        }
    }
}

/// The credential chosen for one provider.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ProviderCredential {
    pub(crate) provider: String,
    pub(crate) kind: CredentialKind,
}

/// Variables the user opted into: `sandbox.credentials.env` and `sandbox.env_allowlist`.
fn opted_in(job: &LoadedJob) -> Vec<&str> {
    let sb = &job.job.sandbox;
    sb.credentials
        .env
        .iter()
        .chain(sb.env_allowlist.iter())
        .map(String::as_str)
        .collect()
}

/// Whether a variable is set (and not empty) in this process's environment.
pub(crate) fn env_is_set(var: &str) -> bool {
    std::env::var(var).is_ok_and(|v| !v.is_empty())
}

/// Picks each provider's credential, or explains what is missing.
pub(crate) fn check(
    job: &LoadedJob,
    override_: Option<&Override>,
    uses: &[ModelUse],
    auth: Option<&AuthFile>,
) -> Result<Vec<ProviderCredential>, ProviderError> {
    check_with(job, override_, uses, auth, &env_is_set)
}

/// [`check`] with the environment given as a lookup (for tests).
pub(crate) fn check_with(
    job: &LoadedJob,
    override_: Option<&Override>,
    uses: &[ModelUse],
    auth: Option<&AuthFile>,
    is_set: &dyn Fn(&str) -> bool,
) -> Result<Vec<ProviderCredential>, ProviderError> {
    let opted = opted_in(job);
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for (provider, models) in by_provider(uses) {
        let block = provider_block(job, override_, &provider);
        let options = block.as_ref().map(|b| b.options.clone()).unwrap_or_default();
        // An `apiKey: ${VAR}` in the provider block names the one variable that counts.
        let key_vars: Vec<String> = options
            .get("apiKey")
            .and_then(|v| v.as_str())
            .map(referenced_vars)
            .unwrap_or_default();
        let has_literal_key = options.get("apiKey").is_some() && key_vars.is_empty();
        let mut vars: Vec<String> = key_vars.clone();
        if vars.is_empty() {
            vars.extend(block.iter().flat_map(|b| b.env.iter().cloned()));
            vars.extend(
                known(&provider)
                    .iter()
                    .flat_map(|k| k.env.iter().map(|s| s.to_string())),
            );
        }
        let keyless = options
            .get("baseURL")
            .and_then(serde_json::Value::as_str)
            .is_some_and(is_loopback_url)
            && (key_vars.is_empty() || has_literal_key);
        let kind = if keyless {
            Some(CredentialKind::Keyless)
        } else if let Some(v) = vars.iter().find(|v| opted.contains(&v.as_str()) && is_set(v)) {
            Some(CredentialKind::Env(v.clone()))
        } else if auth.is_some_and(|a| a.has(&provider)) {
            Some(CredentialKind::OpencodeLogin)
        } else {
            None
        };
        match kind {
            Some(kind) => out.push(ProviderCredential { provider, kind }),
            None => problems.push(explain(job, &provider, &models[0], &vars, &opted, auth, is_set)),
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(ProviderError::MissingCredentials(problems))
    }
}

fn explain(
    job: &LoadedJob,
    provider: &str,
    model: &ModelUse,
    vars: &[String],
    opted: &[&str],
    auth: Option<&AuthFile>,
    is_set: &dyn Fn(&str) -> bool,
) -> String {
    let login = known(provider).is_none_or(|k| k.login);
    let mut supply = Vec::new();
    if !vars.is_empty() {
        supply.push(format!("the variable {}", vars.join(" or ")));
    }
    if login {
        supply.push(format!("an OpenCode login (`opencode auth login {provider}`)"));
    }
    let mut notes = Vec::new();
    for v in vars.iter().filter(|v| opted.contains(&v.as_str()) && !is_set(v)) {
        notes.push(format!("{v} is opted in but not set in this environment"));
    }
    match auth {
        Some(a) if !a.is_empty_source() => notes.push(format!("{} has no entry for `{provider}`", a.source())),
        Some(a) => notes.push(format!("{} does not exist", a.source())),
        None => {}
    }
    let mut keys = Vec::new();
    if let Some(v) = vars.first() {
        keys.push(format!("`sandbox.credentials.env: [{v}]` (and export {v})"));
    }
    if login {
        keys.push("`sandbox.credentials.opencode_auth: true`".to_string());
    }
    format!(
        "{}: {}: model `{}` needs a credential for provider `{provider}` and the sandbox would receive none. \
         It is supplied by {}; opt in with {}.{}",
        job.file.display(),
        model.key,
        model.model,
        if supply.is_empty() {
            "a provider block with `options.apiKey: ${VAR}`".to_string()
        } else {
            supply.join(" or ")
        },
        if keys.is_empty() {
            "`sandbox.credentials.env`".to_string()
        } else {
            keys.join(" or ")
        },
        if notes.is_empty() {
            String::new()
        } else {
            format!(" ({})", notes.join("; "))
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::model_uses::models_used;
    use serde_json::json;
    use std::path::PathBuf;

    fn job(value: serde_json::Value) -> LoadedJob {
        LoadedJob {
            job: serde_json::from_value(value).unwrap(),
            file: PathBuf::from("/x/job.yaml"),
            dir: PathBuf::from("/x"),
            mcps: Vec::new(),
        }
    }

    fn anthropic_job(credentials: serde_json::Value) -> LoadedJob {
        job(
            json!({"version": 1, "agent": {"id": "a", "runtime": {"model": "anthropic/claude-sonnet-4-5"}},
                   "sandbox": {"credentials": credentials}}),
        )
    }

    fn run(j: &LoadedJob, auth: Option<&AuthFile>, set: &[&str]) -> Result<Vec<ProviderCredential>, ProviderError> {
        let set: Vec<String> = set.iter().map(|s| s.to_string()).collect();
        check_with(j, None, &models_used(j, None), auth, &|v| set.iter().any(|s| s == v))
    }

    #[test]
    fn an_opted_in_and_exported_variable_is_the_credential() {
        let j = anthropic_job(json!({"env": ["ANTHROPIC_API_KEY"]}));
        let c = run(&j, None, &["ANTHROPIC_API_KEY"]).unwrap();
        assert_eq!(c[0].kind, CredentialKind::Env("ANTHROPIC_API_KEY".into()));
    }

    #[test]
    fn an_exported_variable_without_the_opt_in_is_not_enough() {
        let j = anthropic_job(json!({}));
        let e = run(&j, None, &["ANTHROPIC_API_KEY"]).unwrap_err().to_string();
        for part in [
            "/x/job.yaml: agent.runtime.model: model `anthropic/claude-sonnet-4-5`",
            "provider `anthropic`",
            "ANTHROPIC_API_KEY",
            "`opencode auth login anthropic`",
            "`sandbox.credentials.env: [ANTHROPIC_API_KEY]`",
            "`sandbox.credentials.opencode_auth: true`",
        ] {
            assert!(e.contains(part), "missing {part} in {e}");
        }
    }

    #[test]
    fn an_opted_in_variable_that_is_not_exported_is_named() {
        let j = anthropic_job(json!({"env": ["ANTHROPIC_API_KEY"]}));
        let e = run(&j, None, &[]).unwrap_err().to_string();
        assert!(e.contains("ANTHROPIC_API_KEY is opted in but not set"), "{e}");
    }

    #[test]
    fn a_login_entry_counts_only_with_the_opt_in_file() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("auth.json");
        std::fs::write(
            &p,
            r#"{"github-copilot": {"type": "oauth", "refresh": "gho_xxxxxxxx"}}"#,
        )
        .unwrap();
        let auth = AuthFile::load(&p).unwrap();
        let j = job(
            json!({"version": 1, "agent": {"id": "a", "runtime": {"model": "github-copilot/claude-sonnet-4.5",
                   "small_model": "anthropic/claude-haiku-4-5"}}, "sandbox": {"credentials": {"opencode_auth": true}}}),
        );
        let e = run(&j, Some(&auth), &[]).unwrap_err().to_string();
        // Copilot is covered by the login; anthropic is not, and the file is named.
        assert!(!e.contains("github-copilot/"), "{e}");
        assert!(
            e.contains("agent.runtime.small_model") && e.contains("has no entry for `anthropic`"),
            "{e}"
        );
    }

    #[test]
    fn a_local_endpoint_needs_no_key_and_an_api_key_reference_names_its_variable() {
        let j = job(
            json!({"version": 1, "agent": {"id": "a", "runtime": {"model": "local/m", "agents": {"r": {"model": "corp/m"}},
            "provider": {
                "local": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "http://127.0.0.1:11434/v1"}},
                "corp": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "https://llm.corp.example/v1", "apiKey": "${CORP_LLM_KEY}"}}
            }}}}),
        );
        let e = run(&j, None, &["CORP_LLM_KEY"]).unwrap_err().to_string();
        assert!(
            e.contains("agent.runtime.agents.r.model") && e.contains("CORP_LLM_KEY"),
            "{e}"
        );
        let j2 = {
            let mut j2 = j.clone();
            j2.job.sandbox.credentials.env = vec!["CORP_LLM_KEY".into()];
            j2
        };
        let c = run(&j2, None, &["CORP_LLM_KEY"]).unwrap();
        assert_eq!(c[0].kind, CredentialKind::Keyless);
        assert_eq!(c[1].kind, CredentialKind::Env("CORP_LLM_KEY".into()));
    }
}
