//! Prepares each case's private HOME for OpenCode before the agent starts, and cleans it after:
//!
//! - the login file (only with the opt-in, only the job's providers), 0600, removed when the
//!   case's environment closes — also when the session is kept for debugging;
//! - OpenCode's start-up dependency install switched off: on every start OpenCode installs
//!   `@opencode-ai/plugin` into its config folder unless that folder already has a
//!   `node_modules` and a lock file naming it (opencode-ai 1.18.33, `Npm.install`). Without it
//!   each run tries registry.npmjs.org (denied by the proxy, reported as a finding). Seeding the
//!   lock file stops the attempt; anything that still tries stays a denied-egress finding.
//!
//! It wraps any [`EnvironmentFactory`], so no backend needs to know about it.

use futures::future::BoxFuture;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::providers::auth_file::{AuthFile, StagedAuth};
use crate::providers::{ProviderPlan, ProvidersRecord};
use crate::run::environment::case_environment::{
    CaseEnvironment, EgressDenial, EnvironmentError, EnvironmentFactory, ServeLink, TransferError,
};
use crate::run::environment::spawn::CommandFactory;
use crate::spec::LoadedJob;

/// The run folder or its `providers.json` could not be written.
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", run_dir.display())]
pub struct ProvidersRecordError {
    pub(crate) run_dir: PathBuf,
    #[source]
    pub(crate) source: std::io::Error,
}

/// Puts a plan into effect for a run: writes `providers.json` into `run_dir`, registers every
/// staged login value with `redactor`, and wraps `environments` so each case's HOME gets the
/// login (with the opt-in) and OpenCode's start-up install switched off.
pub(crate) fn apply_provider_plan(
    plan: &ProviderPlan,
    job: &LoadedJob,
    run_dir: &Path,
    environments: Arc<dyn EnvironmentFactory>,
    redactor: &mut crate::redact::Redactor,
) -> Result<Arc<dyn EnvironmentFactory>, ProvidersRecordError> {
    let mut record = ProvidersRecord::from_plan(plan, job.job.sandbox.credentials.opencode_auth);
    // A resumed run keeps counting the sessions that received the login.
    if let Some(old) = ProvidersRecord::read(run_dir) {
        record.opencode_auth.staged_sessions = old.opencode_auth.staged_sessions;
    }
    let record_error = |source| ProvidersRecordError {
        run_dir: run_dir.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(run_dir).map_err(record_error)?;
    record.write(run_dir).map_err(record_error)?;
    for s in plan.auth.iter().flat_map(AuthFile::secrets) {
        redactor.add_secret(&s);
    }
    for e in &plan.endpoints {
        tracing::info!(
            provider = %e.provider,
            hosts = %e.hosts.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "),
            source = %e.source,
            "model provider endpoints allowlisted"
        );
    }
    let seed = HomeSeed {
        auth: plan.auth.clone(),
    };
    Ok(SeededEnvironments::wrap(
        environments,
        seed,
        Some((run_dir.to_path_buf(), record)),
    ))
}

/// OpenCode's config folder below a HOME whose XDG folders follow the defaults.
pub(crate) const CONFIG_DIR_IN_HOME: &str = ".config/opencode";

/// What goes into every agent HOME.
#[derive(Debug, Clone, Default)]
pub(crate) struct HomeSeed {
    /// The login entries to stage, if the user opted in and any apply.
    pub(crate) auth: Option<AuthFile>,
}

/// Writes the lock file that makes OpenCode skip its start-up npm install.
pub(crate) fn seed_opencode_config(home: &Path) -> std::io::Result<()> {
    let owner = {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(home)?;
        (m.uid(), m.gid())
    };
    let mut dir = home.to_path_buf();
    for part in CONFIG_DIR_IN_HOME.split('/').chain(["node_modules"]) {
        dir.push(part);
        if !dir.exists() {
            std::fs::create_dir(&dir)?;
            chown_if_root(&dir, owner)?;
        }
    }
    let lock = home.join(CONFIG_DIR_IN_HOME).join("package-lock.json");
    let body = serde_json::json!({
        "name": "opencode-config",
        "lockfileVersion": 3,
        "packages": {"": {"dependencies": {"@opencode-ai/plugin": "*"}}}
    });
    std::fs::write(&lock, serde_json::to_vec_pretty(&body).unwrap_or_default())?;
    chown_if_root(&lock, owner)
}

fn chown_if_root(path: &Path, (uid, gid): (u32, u32)) -> std::io::Result<()> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        std::os::unix::fs::lchown(path, Some(uid), Some(gid))?;
    }
    Ok(())
}

/// Wraps a factory: every environment it creates gets the seed; closing removes the login.
pub(crate) struct SeededEnvironments {
    inner: Arc<dyn EnvironmentFactory>,
    seed: HomeSeed,
    /// The run folder and its `providers.json`, updated each time a login file is staged.
    record: Option<(PathBuf, Mutex<ProvidersRecord>)>,
}

impl SeededEnvironments {
    pub(crate) fn wrap(
        inner: Arc<dyn EnvironmentFactory>,
        seed: HomeSeed,
        record: Option<(PathBuf, ProvidersRecord)>,
    ) -> Arc<dyn EnvironmentFactory> {
        let record = record.map(|(dir, r)| (dir, Mutex::new(r)));
        Arc::new(SeededEnvironments { inner, seed, record })
    }

    /// Counts a staged login in the run's record, so the report says only what happened.
    fn count_staged(&self) -> Result<(), EnvironmentError> {
        let Some((dir, record)) = &self.record else {
            return Ok(());
        };
        let mut r = record.lock().unwrap_or_else(|e| e.into_inner());
        r.opencode_auth.staged_sessions += 1;
        r.write(dir).map_err(|source| EnvironmentError::ProvidersRecord {
            run_dir: dir.clone(),
            source,
        })
    }
}

impl EnvironmentFactory for SeededEnvironments {
    fn create<'a>(&'a self, case_id: &'a str) -> BoxFuture<'a, Result<Box<dyn CaseEnvironment>, EnvironmentError>> {
        Box::pin(async move {
            let env = self.inner.create(case_id).await?;
            let home = env.home_host();
            let prepared = seed_opencode_config(&home)
                .map_err(|source| EnvironmentError::Folder {
                    what: "preparing OpenCode's config folder in the session HOME",
                    source,
                })
                .and_then(|()| {
                    let staged = self.seed.auth.as_ref().map(|a| a.stage(&home)).transpose();
                    staged.map_err(|e| EnvironmentError::Credentials(e.to_string()))
                });
            let prepared = prepared.and_then(|auth| {
                if auth.is_some() {
                    self.count_staged()?;
                }
                Ok(auth)
            });
            match prepared {
                Ok(auth) => Ok(Box::new(SeededEnvironment { inner: env, auth }) as Box<dyn CaseEnvironment>),
                Err(e) => {
                    env.close().await;
                    Err(e)
                }
            }
        })
    }
}

struct SeededEnvironment {
    inner: Box<dyn CaseEnvironment>,
    auth: Option<StagedAuth>,
}

impl CaseEnvironment for SeededEnvironment {
    fn backend(&self) -> String {
        self.inner.backend()
    }
    fn factory(&self) -> Arc<dyn CommandFactory> {
        self.inner.factory()
    }
    fn workdir(&self) -> String {
        self.inner.workdir()
    }
    fn home(&self) -> String {
        self.inner.home()
    }
    fn home_host(&self) -> PathBuf {
        self.inner.home_host()
    }
    fn serve_link(&self) -> ServeLink {
        self.inner.serve_link()
    }
    fn config_dir_host(&self) -> PathBuf {
        self.inner.config_dir_host()
    }
    fn config_dir(&self) -> String {
        self.inner.config_dir()
    }
    fn map_path(&self, host: &Path) -> String {
        self.inner.map_path(host)
    }
    fn final_workspace(&self) -> Option<PathBuf> {
        self.inner.final_workspace()
    }
    fn keep_final_workspace_by(&self) -> crate::run::environment::workspace_keep::KeepBy {
        self.inner.keep_final_workspace_by()
    }
    fn denials(&self) -> Vec<EgressDenial> {
        self.inner.denials()
    }
    fn take_programs(&self) -> crate::sandbox::watch_exec::CommandLog {
        self.inner.take_programs()
    }
    fn watch_fault(&self) -> Option<String> {
        self.inner.watch_fault()
    }
    fn mcp_command(&self, server: &crate::spec::resolved::ResolvedMcp) -> Option<Vec<String>> {
        self.inner.mcp_command(server)
    }
    fn scratch_dirs(&self) -> Vec<(String, PathBuf)> {
        self.inner.scratch_dirs()
    }
    fn push_prepared(&self) -> BoxFuture<'_, Result<(), TransferError>> {
        self.inner.push_prepared()
    }
    fn pull_results(&self) -> BoxFuture<'_, Result<(), TransferError>> {
        self.inner.pull_results()
    }
    fn fetch<'a>(&'a self, inside: &'a str, local: &'a Path) -> BoxFuture<'a, Result<(), TransferError>> {
        self.inner.fetch(inside, local)
    }
    fn close(self: Box<Self>) -> BoxFuture<'static, ()> {
        let SeededEnvironment { inner, auth } = *self;
        Box::pin(async move {
            // The login goes first: the session may be kept (`sandbox.keep`) for debugging.
            if let Some(a) = auth
                && !a.remove()
            {
                tracing::warn!(
                    "the staged OpenCode login file {} could not be removed",
                    a.path().display()
                );
            }
            inner.close().await;
        })
    }
}

#[cfg(test)]
#[path = "provider_home_tests.rs"]
mod tests;
