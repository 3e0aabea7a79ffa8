//! The seeded HOME (OpenCode's config lock file, the staged login and its count in
//! `providers.json`) and the wrapper that passes every other hook on to the environment it wraps.

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
