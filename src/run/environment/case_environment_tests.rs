//! The environment errors keep their source and their text; `backend: local` moves its workspace.

use super::*;

#[tokio::test]
async fn a_missing_workspace_is_a_folder_error_that_keeps_its_io_source() {
    let factory = LocalEnvironmentFactory {
        workspace: Some(PathBuf::from("/nonexistent/ghostlab-workspace")),
        exclude: Vec::new(),
    };
    let Err(err) = factory.create("c1").await else {
        panic!("a missing workspace made an environment");
    };
    let EnvironmentError::Folder { what, source } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(*what, "cannot prepare the local workspace copy");
    assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
    assert!(std::error::Error::source(&err).is_some());
    // The text the trial's INFRA_ERROR reason carries is what it was before.
    assert!(
        err.to_string().starts_with("cannot prepare the local workspace copy: "),
        "{err}"
    );
}

#[test]
fn a_sandbox_refusal_stays_a_sandbox_error_with_its_own_text() {
    let err = EnvironmentError::from(crate::sandbox::SandboxError::Unavailable("no bwrap".into()));
    assert_eq!(err.to_string(), "sandbox backend unavailable: no bwrap");
    assert!(matches!(
        err,
        EnvironmentError::Sandbox(crate::sandbox::SandboxError::Unavailable(_))
    ));
}

#[test]
fn relay_and_credential_failures_say_only_their_reason() {
    let socket = EnvironmentError::from(crate::run::environment::mcp_relay::RelayError::Socket {
        path: "/s/0.sock".into(),
        source: std::io::Error::from(std::io::ErrorKind::AddrInUse),
    });
    assert!(
        socket.to_string().starts_with("MCP relay socket /s/0.sock: "),
        "{socket}"
    );
    assert!(std::error::Error::source(&socket).is_some(), "{socket:?}");
    let record = EnvironmentError::ProvidersRecord {
        run_dir: "/runs/r1".into(),
        source: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
    };
    assert!(record.to_string().starts_with("/runs/r1: "), "{record}");
    assert_eq!(
        EnvironmentError::Credentials("auth.json: y".into()).to_string(),
        "auth.json: y"
    );
}

#[test]
fn a_local_workspace_is_moved_and_checked_for_processes_once_a_command_ran() {
    let env = LocalEnvironment::create(None).unwrap();
    let by = |processes_may_remain| KeepBy::Move { processes_may_remain };
    assert_eq!(env.keep_final_workspace_by(), by(false), "no command ran");
    let _ = env.factory();
    assert_eq!(env.keep_final_workspace_by(), by(true));
}
