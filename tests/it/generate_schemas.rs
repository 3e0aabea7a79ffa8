//! The checked-in schemas/ files must match the schemas this build generates; every file
//! `ghostlab generate` writes must validate against them.

use ghostlab::generate::schema::{ArtifactKind, artifact_schema_text};
use std::path::PathBuf;

#[test]
fn checked_in_artifact_schemas_are_current() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut stale = Vec::new();
    for kind in ArtifactKind::ALL {
        let path = root.join("schemas").join(kind.schema_file());
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        if on_disk != artifact_schema_text(kind) {
            stale.push(format!(
                "{} is stale; run `ghostlab schema --kind {} --write schemas/{}`",
                path.display(),
                kind.name(),
                kind.schema_file()
            ));
        }
    }
    assert!(stale.is_empty(), "{}", stale.join("\n"));
}

#[test]
fn schema_command_check_flags_a_stale_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("scenario.schema.json");
    std::fs::write(&file, "{}\n").unwrap();
    let bin = assert_cmd::cargo::cargo_bin("ghostlab");
    let out = std::process::Command::new(&bin)
        .args(["schema", "--kind", "scenario", "--check"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "stale file must exit 1");
    let out = std::process::Command::new(&bin)
        .args(["schema", "--kind", "scenario", "--write"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        artifact_schema_text(ArtifactKind::Scenario)
    );
}
