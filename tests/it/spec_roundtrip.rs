//! load → save → load round-trips; the checked-in job schema is current; imports normalize
//! every source into a job that validates.

use crate::common;

use assert_cmd::Command;
use common::{example_job, repo};
use ghostlab::spec::{load_job, save_job};

#[test]
fn load_save_load_round_trips_the_example() {
    let first = load_job(&example_job()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    // Save beside the example's files by copying the folder, so relative paths still resolve.
    let copy = dir.path().join("release-bot");
    copy_dir(&repo().join("examples/release-bot"), &copy);
    let saved = copy.join("saved.yaml");
    save_job(&saved, &first.job).unwrap();
    let second = load_job(&saved).unwrap();
    assert_eq!(first.job, second.job);
    assert_eq!(first.mcps.len(), second.mcps.len());
    let text = std::fs::read_to_string(&saved).unwrap();
    assert!(text.contains("version: 1"));
}

#[test]
fn checked_in_job_schema_is_current() {
    let on_disk = std::fs::read_to_string(repo().join("schemas/job.schema.json")).unwrap();
    assert!(
        on_disk == ghostlab::spec::schema::job_schema_text(),
        "schemas/job.schema.json is stale: run `cargo run -- schema --write schemas/job.schema.json`"
    );
}

fn init(args: &[&str], out: &std::path::Path) -> std::process::Output {
    Command::cargo_bin("ghostlab")
        .unwrap()
        .arg("init")
        .args(args)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap()
}

#[test]
fn init_from_opencode_project_gives_the_same_agent_surface() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("job.yaml");
    let res = init(
        &[
            "--from",
            repo().join("examples/release-bot/opencode.json").to_str().unwrap(),
        ],
        &out,
    );
    assert!(res.status.success(), "{}", String::from_utf8_lossy(&res.stderr));
    let imported = load_job(&out).unwrap();
    let rt = &imported.job.agent.runtime;
    assert_eq!(rt.default_agent.as_deref(), Some("release"));
    assert_eq!(rt.instructions.len(), 2);
    assert!(
        rt.agents["release"]
            .prompt
            .as_deref()
            .unwrap()
            .contains("prompts/release.md")
    );
    assert_eq!(rt.agents["release"].steps, Some(30));
    // Paths were rebased from the project folder to the job's folder and still resolve.
    assert!(
        imported
            .resolve(&rt.instructions[0])
            .ends_with("examples/release-bot/AGENTS.md")
    );
}

#[test]
fn init_from_mcp_servers_file_resolves_relative_commands() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("job.yaml");
    let res = init(
        &["--from", repo().join("examples/release-bot/mcp.json").to_str().unwrap()],
        &out,
    );
    assert!(res.status.success(), "{}", String::from_utf8_lossy(&res.stderr));
    let imported = load_job(&out).unwrap();
    assert_eq!(imported.mcps.len(), 2);
    let ghostlab::spec::McpTransport::Stdio { command, .. } = &imported.mcps[0].transport else {
        panic!()
    };
    assert!(
        command[1].ends_with("examples/release-bot/mcp/release-tools.mjs"),
        "{command:?}"
    );
    assert!(std::path::Path::new(&command[1]).is_absolute());
}

#[test]
fn init_shorthands_target_and_skill() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t.yaml");
    let res = init(&["--target", "node ./server.js --verbose"], &out);
    assert!(res.status.success(), "{}", String::from_utf8_lossy(&res.stderr));
    let job = load_job(&out).unwrap();
    assert_eq!(job.mcps[0].name, "server");

    let out = dir.path().join("s.yaml");
    let skill = repo().join("examples/release-bot/skills/release-notes");
    let res = init(&["--skill", skill.to_str().unwrap()], &out);
    assert!(res.status.success(), "{}", String::from_utf8_lossy(&res.stderr));
    assert_eq!(load_job(&out).unwrap().job.agent.inputs.skills.len(), 1);
}

#[test]
fn init_from_agent_yaml() {
    let dir = tempfile::tempdir().unwrap();
    let agent = dir.path().join("agent.yaml");
    std::fs::write(
        &agent,
        "id: support\ndescription: Triage support tickets\nruntime: { model: x/y }\n",
    )
    .unwrap();
    let out = dir.path().join("job.yaml");
    let res = init(&["--from", agent.to_str().unwrap()], &out);
    assert!(res.status.success(), "{}", String::from_utf8_lossy(&res.stderr));
    assert_eq!(
        load_job(&out).unwrap().job.agent.description.as_deref(),
        Some("Triage support tickets")
    );

    std::fs::write(&agent, "id: support\nruntime: { modle: x/y }\n").unwrap();
    let res = init(&["--from", agent.to_str().unwrap(), "--force"], &out);
    assert_eq!(res.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&res.stderr).contains("runtime.modle"));
}

#[test]
fn init_refuses_to_overwrite_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("job.yaml");
    std::fs::write(&out, "keep me").unwrap();
    let res = init(&["--target", "node x.js"], &out);
    assert_eq!(res.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "keep me");
}

fn copy_dir(src: &std::path::Path, dst: &std::path::Path) {
    for entry in walkdir::WalkDir::new(src) {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(src).unwrap();
        let target = dst.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}
