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
    pub run_dir: PathBuf,
    #[source]
    pub source: std::io::Error,
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
    pub auth: Option<AuthFile>,
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
    pub fn wrap(
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
mod tests {
    use super::*;

    #[test]
    fn seeded_config_names_the_plugin_package() {
        let tmp = tempfile::tempdir().unwrap();
        seed_opencode_config(tmp.path()).unwrap();
        let dir = tmp.path().join(CONFIG_DIR_IN_HOME);
        assert!(dir.join("node_modules").is_dir());
        let lock: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("package-lock.json")).unwrap()).unwrap();
        assert!(
            lock.pointer("/packages//dependencies/@opencode-ai~1plugin").is_some(),
            "{lock}"
        );
        // Idempotent: a second seed of the same HOME works.
        seed_opencode_config(tmp.path()).unwrap();
    }

    fn record(opted_in: bool) -> ProvidersRecord {
        ProvidersRecord {
            version: crate::providers::record::VERSION,
            endpoints: Vec::new(),
            credentials: vec![crate::providers::record::CredentialRecord {
                provider: "anthropic".into(),
                kind: crate::providers::CredentialKind::OpencodeLogin,
            }],
            opencode_auth: crate::providers::record::AuthRecord {
                opted_in,
                providers: vec!["anthropic".into()],
                staged_sessions: 0,
            },
        }
    }

    fn mounted_row(run: &Path) -> String {
        crate::providers::record::rows_for_run(run)
            .into_iter()
            .find(|(k, _)| k == "OpenCode auth mounted")
            .map(|(_, v)| v)
            .unwrap()
    }

    /// "OpenCode auth mounted" is counted from files really written into a session HOME (that
    /// the file is gone after a kept session is proven end to end in `tests/it/real_model.rs`).
    #[tokio::test]
    async fn mounted_is_true_only_for_sessions_that_received_the_file() {
        let tmp = tempfile::tempdir().unwrap();
        let login = tmp.path().join("auth.json");
        std::fs::write(
            &login,
            r#"{"anthropic": {"type": "api", "key": "gl-login-canary-1f2e"}}"#,
        )
        .unwrap();
        let run = tmp.path().join("run");
        std::fs::create_dir_all(&run).unwrap();
        record(true).write(&run).unwrap();
        let local = Arc::new(crate::run::environment::case_environment::LocalEnvironmentFactory {
            workspace: None,
            exclude: Vec::new(),
        });

        // Opted in, but nothing to stage: the report must not claim a mount.
        let none = SeededEnvironments::wrap(local.clone(), HomeSeed::default(), Some((run.clone(), record(true))));
        let env = none.create("c1").await.unwrap();
        assert!(!env.home_host().join(".local/share/opencode/auth.json").exists());
        env.close().await;
        assert_eq!(mounted_row(&run), "false (opted in, but no login entry was staged)");

        let seed = HomeSeed {
            auth: Some(AuthFile::load(&login).unwrap()),
        };
        let staged = SeededEnvironments::wrap(local, seed, Some((run.clone(), record(true))));
        let env = staged.create("c2").await.unwrap();
        let file = env.home_host().join(".local/share/opencode/auth.json");
        assert!(file.is_file());
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
        }
        assert_eq!(mounted_row(&run), "true (anthropic for 1 session(s))");
        env.close().await;
        let rows = format!("{:?}", crate::providers::record::rows_for_run(&run));
        assert!(
            rows.contains("anthropic: OpenCode login (auth.json)") && !rows.contains("gl-login-canary"),
            "{rows}"
        );
        assert!(
            !std::fs::read_to_string(run.join("providers.json"))
                .unwrap()
                .contains("gl-login-canary")
        );
    }
    /// A fake inner environment that relays MCP servers and has a second scratch folder, as
    /// the bubblewrap one does: the wrapper must pass both on (it once kept the defaults,
    /// which ran every MCP server inside the agent's processes).
    struct FakeRelayingEnv(Box<dyn CaseEnvironment>);

    impl CaseEnvironment for FakeRelayingEnv {
        fn backend(&self) -> String {
            "fake-relaying".into()
        }
        fn factory(&self) -> Arc<dyn CommandFactory> {
            self.0.factory()
        }
        fn workdir(&self) -> String {
            self.0.workdir()
        }
        fn home(&self) -> String {
            self.0.home()
        }
        fn home_host(&self) -> PathBuf {
            self.0.home_host()
        }
        fn serve_link(&self) -> ServeLink {
            self.0.serve_link()
        }
        fn config_dir_host(&self) -> PathBuf {
            self.0.config_dir_host()
        }
        fn config_dir(&self) -> String {
            self.0.config_dir()
        }
        fn map_path(&self, host: &Path) -> String {
            self.0.map_path(host)
        }
        fn mcp_command(&self, server: &crate::spec::resolved::ResolvedMcp) -> Option<Vec<String>> {
            Some(vec!["fake-relay".into(), server.name.clone()])
        }
        fn final_workspace(&self) -> Option<PathBuf> {
            self.0.final_workspace()
        }
        fn keep_final_workspace_by(&self) -> crate::run::environment::workspace_keep::KeepBy {
            crate::run::environment::workspace_keep::KeepBy::Copy
        }
        fn denials(&self) -> Vec<EgressDenial> {
            self.0.denials()
        }
        fn take_programs(&self) -> crate::sandbox::watch_exec::CommandLog {
            self.0.take_programs()
        }
        fn watch_fault(&self) -> Option<String> {
            self.0.watch_fault()
        }
        fn scratch_dirs(&self) -> Vec<(String, PathBuf)> {
            vec![("HOME".into(), self.home_host()), ("TMPDIR".into(), "/fake/tmp".into())]
        }
        fn push_prepared(&self) -> BoxFuture<'_, Result<(), TransferError>> {
            Box::pin(async {
                Err(TransferError::Outside {
                    inside: "fake: push".into(),
                })
            })
        }
        fn pull_results(&self) -> BoxFuture<'_, Result<(), TransferError>> {
            Box::pin(async {
                Err(TransferError::Outside {
                    inside: "fake: pull".into(),
                })
            })
        }
        fn fetch<'a>(&'a self, inside: &'a str, local: &'a Path) -> BoxFuture<'a, Result<(), TransferError>> {
            self.0.fetch(inside, local)
        }
        fn close(self: Box<Self>) -> BoxFuture<'static, ()> {
            self.0.close()
        }
    }

    struct FakeRelayingFactory(Arc<dyn EnvironmentFactory>);

    impl EnvironmentFactory for FakeRelayingFactory {
        fn create<'a>(&'a self, case_id: &'a str) -> BoxFuture<'a, Result<Box<dyn CaseEnvironment>, EnvironmentError>> {
            Box::pin(async move {
                let inner = self.0.create(case_id).await?;
                Ok(Box::new(FakeRelayingEnv(inner)) as Box<dyn CaseEnvironment>)
            })
        }
    }

    #[tokio::test]
    async fn the_seeded_wrapper_passes_on_the_relay_scratch_folders_and_transfers() {
        let local = Arc::new(crate::run::environment::case_environment::LocalEnvironmentFactory {
            workspace: None,
            exclude: Vec::new(),
        });
        let wrapped = SeededEnvironments::wrap(Arc::new(FakeRelayingFactory(local)), HomeSeed::default(), None);
        let env = wrapped.create("c1").await.unwrap();
        let server = crate::spec::resolved::ResolvedMcp {
            name: "release".into(),
            transport: crate::spec::resolved::McpTransport::Stdio {
                command: vec!["node".into()],
                cwd: None,
                env: Default::default(),
            },
            enabled: true,
            timeout_ms: None,
            oauth: None,
            origin: (PathBuf::from("job.yaml"), "mcp[0]".into()),
        };
        assert_eq!(
            env.mcp_command(&server),
            Some(vec!["fake-relay".into(), "release".into()])
        );
        let labels: Vec<String> = env.scratch_dirs().into_iter().map(|(l, _)| l).collect();
        assert_eq!(labels, ["HOME", "TMPDIR"]);
        let said = |r: Result<(), TransferError>| r.unwrap_err().to_string();
        assert!(said(env.push_prepared().await).starts_with("fake: push"));
        assert!(said(env.pull_results().await).starts_with("fake: pull"));
        env.close().await;
    }
}
