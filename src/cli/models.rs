//! `ghostlab models`: the models an OpenAI-compatible endpoint actually serves.
//!
//! Takes `--base-url` (key from `--api-key-env`), or the `openai`/`record` roles of a job.

use std::path::PathBuf;
use std::time::Duration;

use super::{CliError, Exit};
use crate::llm::credentials;
use crate::spec::ModelProvider;

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Endpoint base URL including the version path, e.g. http://127.0.0.1:11434/v1.
    #[arg(long)]
    pub(crate) base_url: Option<String>,
    /// Environment variable holding the API key (default: GHOSTLAB_OPENAI_API_KEY or the keyring).
    #[arg(long)]
    pub(crate) api_key_env: Option<String>,
    /// Keyring entry to use when no key variable is given (`ghostlab auth set PROVIDER`).
    #[arg(long, default_value = "openai")]
    pub(crate) provider: String,
    /// Use the generation roles of this job instead of --base-url.
    #[arg(long)]
    pub(crate) job: Option<PathBuf>,
    /// Seconds to wait for the endpoint.
    #[arg(long, default_value_t = 20)]
    pub(crate) timeout_secs: u64,
}

pub(crate) fn run(args: Args) -> Result<Exit, CliError> {
    let mut targets: Vec<(String, Option<String>)> = Vec::new();
    if let Some(url) = &args.base_url {
        targets.push((url.clone(), args.api_key_env.clone()));
    } else if let Some(job) = &args.job {
        let loaded = crate::spec::load_job(job)?;
        let g = &loaded.job.generation;
        for role in [&g.proposer, &g.emulator, &g.judge] {
            if matches!(role.provider, ModelProvider::Openai | ModelProvider::Record) {
                let cfg = crate::llm::role::openai_config(role)
                    .map_err(|e| CliError::from_error(super::error::ErrorKind::MissingPrerequisite, e))?;
                let env = match cfg.api_key {
                    crate::llm::openai::ApiKey::Env(v) => Some(v),
                    _ => None,
                };
                if !targets.iter().any(|(u, _)| *u == cfg.base_url) {
                    targets.push((cfg.base_url, env));
                }
            }
        }
        if targets.is_empty() {
            return Err(CliError::bad_input(format!(
                "{}: no generation role uses an `openai` or `record` provider",
                job.display()
            )));
        }
    } else {
        return Err(CliError::usage("give --base-url URL or --job job.yaml"));
    }
    let rt = crate::util::runtime::multi_thread()?;
    for (url, env) in targets {
        let key =
            match env {
                Some(var) => Some(std::env::var(&var).map_err(|_| {
                    CliError::missing(format!("{var} is not set; export it with the API key for {url}"))
                })?),
                None => rt
                    .block_on(credentials::lookup_async(&args.provider))
                    .map_err(|e| CliError::from_error(super::error::ErrorKind::MissingPrerequisite, e))?
                    .map(|f| f.secret.expose().to_string()),
            };
        if key.is_none() && !crate::util::loopback::is_loopback_url(&url) {
            return Err(CliError::missing(format!(
                "no API key for `{}` to query {url}: {}",
                args.provider,
                credentials::how_to_set(&args.provider)
            )));
        }
        let ids = rt
            .block_on(crate::llm::models::list_models(
                &url,
                key.as_deref(),
                Duration::from_secs(args.timeout_secs),
            ))
            .map_err(|e| CliError::peer(format!("{url}: {e}")).because(e))?;
        super::out::say!("{url} serves {} model(s):", ids.len());
        for id in ids {
            super::out::say!("  {id}");
        }
    }
    Ok(Exit::Success)
}
