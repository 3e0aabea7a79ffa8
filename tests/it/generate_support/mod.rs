//! Shared helpers for the generate tests: a private copy of examples/release-bot, so no test
//! ever writes into examples/.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The example as checked in (read only).
pub fn example() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples/release-bot")
}

/// Copies examples/release-bot (without any state dir) into a fresh temp dir.
pub fn release_bot_copy() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dest = tmp.path().join("release-bot");
    copy_dir(&example(), &dest);
    (tmp, dest)
}

fn copy_dir(src: &Path, dest: &Path) {
    for entry in walkdir::WalkDir::new(src) {
        let entry = entry.expect("walk example");
        let rel = entry.path().strip_prefix(src).expect("inside example");
        if rel.components().next().is_some_and(|c| c.as_os_str() == ".ghostlab") {
            continue;
        }
        let target = dest.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).expect("mkdir");
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// Rewrites job.yaml in `dir` with `edit` applied to its text.
pub fn edit_job(dir: &Path, edit: impl FnOnce(String) -> String) {
    let path = dir.join("job.yaml");
    let text = std::fs::read_to_string(&path).expect("read job.yaml");
    std::fs::write(&path, edit(text)).expect("write job.yaml");
}

/// The release server's tools as discovery reports them (names, descriptions, annotations).
pub const INVENTORY: &str = r#"{
  "version": 1,
  "servers": [
    {"name": "release", "tools": [
      {"name": "ci_status", "description": "Return the CI status (green or red) of a branch of this repository.",
       "annotations": {"readOnlyHint": true, "openWorldHint": false}},
      {"name": "list_tags", "description": "List the git tags of this repository, newest first.",
       "annotations": {"readOnlyHint": true, "openWorldHint": false}},
      {"name": "create_tag", "description": "Create an annotated git tag for a release version. Requires the maintainer's confirmation first.",
       "annotations": {"readOnlyHint": false, "destructiveHint": false, "openWorldHint": false}},
      {"name": "publish_release", "description": "Publish a tagged version to the package registry. Irreversible.",
       "annotations": {"readOnlyHint": false, "destructiveHint": true, "openWorldHint": true}}
    ]},
    {"name": "filesystem", "tools": [
      {"name": "read_text_file", "description": "Read a file.", "annotations": {"readOnlyHint": true}},
      {"name": "write_file", "description": "Create or overwrite a file.", "annotations": {"readOnlyHint": false}}
    ]}
  ]
}"#;
