//! Helpers shared by integration tests: paths, the pinned OpenCode binary, isolated homes.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn example_job() -> PathBuf {
    repo().join("examples/release-bot/job.yaml")
}

/// The pinned OpenCode CLI. Tests that need it fail (not skip) when it is missing, because
/// scripts/install-deps.sh always installs it.
pub fn opencode_bin() -> PathBuf {
    let path = std::env::var_os("GHOSTLAB_OPENCODE_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("tools/npm/node_modules/opencode-linux-x64/bin/opencode"));
    assert!(
        path.is_file(),
        "OpenCode CLI not found at {}; run scripts/install-deps.sh",
        path.display()
    );
    path
}

/// An `opencode` command whose HOME and XDG folders live under `home`, offline.
pub fn opencode(home: &Path) -> Command {
    let mut cmd = Command::new(opencode_bin());
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env("TMPDIR", home.join("tmp"))
        .env("OPENCODE_DISABLE_MODELS_FETCH", "1")
        .env("OPENCODE_DISABLE_AUTOUPDATE", "1")
        .stdin(std::process::Stdio::null());
    std::fs::create_dir_all(home.join("tmp")).unwrap();
    cmd
}
