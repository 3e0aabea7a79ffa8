//! `{file:…}` through `ghostlab init --from` and `validate`: a reference stays a reference in
//! job.yaml, never the file's text; one that points outside the project (a system file, a
//! symlink out, a `../` escape) is refused with the file and key path, exit 2; and no
//! command's output or job.yaml holds the text of the file it names.

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A value only this test's process environment holds: it must never be written anywhere.
const CANARY: &str = "canary-env-5f0e2d9b7a";
/// Text of a file outside the project: it must never be copied in.
const OUTSIDE: &str = "outside-text-91c3a";

fn ghostlab(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::cargo_bin("ghostlab")
        .unwrap()
        .current_dir(dir)
        .env("GHOSTLAB_TEST_SECRET", CANARY)
        .env("NO_COLOR", "1")
        .args(args)
        .timeout(Duration::from_secs(20))
        .output()
        .unwrap()
}

/// A project `<tmp>/proj` with `opencode.json` = `config`, and a secret file next to it.
fn project(tmp: &Path, config: &str) -> PathBuf {
    let root = tmp.join("proj");
    std::fs::create_dir_all(root.join(".opencode")).unwrap();
    std::fs::write(root.join("opencode.json"), config).unwrap();
    std::fs::write(tmp.join("outside.txt"), OUTSIDE).unwrap();
    root
}

/// Runs `init --from root` into `root/job.yaml`; returns (exit, stdout+stderr, job.yaml text).
fn init(root: &Path) -> (Option<i32>, String, String) {
    let out = ghostlab(root, &["init", "--from", ".", "--out", "job.yaml"]);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let job = std::fs::read_to_string(root.join("job.yaml")).unwrap_or_default();
    (out.status.code(), text, job)
}

fn assert_refused(root: &Path, expect: &[&str]) {
    let (code, text, job) = init(root);
    assert_eq!(code, Some(2), "{text}");
    for e in expect {
        assert!(text.contains(e), "missing `{e}` in:\n{text}");
    }
    for leak in [CANARY, OUTSIDE] {
        assert!(
            !text.contains(leak) && !job.contains(leak),
            "leaked `{leak}`:\n{text}\n{job}"
        );
    }
}

#[test]
fn proc_environ_in_a_command_template_is_refused_not_inlined() {
    let tmp = tempfile::tempdir().unwrap();
    let root = project(
        tmp.path(),
        r#"{"command": {"leak": {"template": "Say {file:/proc/self/environ}"}}}"#,
    );
    assert_refused(
        &root,
        &[
            "opencode.json",
            "command.leak.template",
            "/proc/self/environ",
            "outside the project",
        ],
    );
}

#[test]
fn proc_environ_inside_a_longer_agent_prompt_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let root = project(
        tmp.path(),
        r#"{"agent": {"a": {"prompt": "You help.\n{file:/proc/self/environ}"}}}"#,
    );
    assert_refused(&root, &["agent.a.prompt", "/proc/self/environ"]);
}

#[test]
fn proc_environ_in_a_markdown_agent_body_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let root = project(tmp.path(), "{}");
    std::fs::create_dir_all(root.join(".opencode/agent")).unwrap();
    std::fs::write(
        root.join(".opencode/agent/spy.md"),
        "---\ndescription: spy\n---\nHello {file:/proc/self/environ}\n",
    )
    .unwrap();
    assert_refused(&root, &["spy.md", "prompt", "/proc/self/environ"]);
}

#[test]
fn a_symlink_in_the_project_to_a_file_outside_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let root = project(tmp.path(), r#"{"command": {"c": {"template": "{file:./notes.md}"}}}"#);
    std::os::unix::fs::symlink(tmp.path().join("outside.txt"), root.join("notes.md")).unwrap();
    assert_refused(&root, &["command.c.template", "notes.md", "outside the project"]);
    std::fs::remove_file(root.join("notes.md")).unwrap();
    std::os::unix::fs::symlink("/etc/shadow", root.join("notes.md")).unwrap();
    assert_refused(&root, &["command.c.template", "/etc/shadow"]);
}

#[test]
fn a_relative_escape_and_a_symlink_loop_are_refused_with_their_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let root = project(
        tmp.path(),
        r#"{"command": {"c": {"template": "{file:../outside.txt}"}}}"#,
    );
    assert_refused(&root, &["command.c.template", "../outside.txt", "outside the project"]);
    std::fs::write(
        root.join("opencode.json"),
        r#"{"command": {"c": {"template": "{file:./loop.md}"}}}"#,
    )
    .unwrap();
    std::os::unix::fs::symlink(root.join("loop.md"), root.join("loop.md")).unwrap();
    assert_refused(&root, &["command.c.template", "symlink loop"]);
}

#[test]
fn a_reference_inside_the_project_stays_a_reference_through_init_validate_and_emit() {
    let tmp = tempfile::tempdir().unwrap();
    let root = project(
        tmp.path(),
        r#"{"command": {"c": {"template": "Steps: {file:./steps.md} then go"}},
            "agent": {"a": {"prompt": "Intro {file:./steps.md}"}}}"#,
    );
    std::fs::write(root.join("steps.md"), "step-text-4471").unwrap();
    let (code, text, job) = init(&root);
    assert_eq!(code, Some(0), "{text}");
    assert!(job.contains("Steps: {file:./steps.md} then go"), "{job}");
    assert!(job.contains("Intro {file:./steps.md}"), "{job}");
    assert!(!job.contains("step-text-4471"), "{job}");
    let out = ghostlab(&root, &["validate", "--job", "job.yaml"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = ghostlab(&root, &["emit", "--job", "job.yaml", "--out", "emitted"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let emitted = std::fs::read_to_string(root.join("emitted/opencode.json")).unwrap();
    let abs = std::fs::canonicalize(&root).unwrap().join("steps.md");
    let abs_lexical = root.join("steps.md");
    assert!(
        emitted.contains(&format!("{{file:{}}}", abs.display()))
            || emitted.contains(&format!("{{file:{}}}", abs_lexical.display())),
        "{emitted}"
    );
    assert!(!emitted.contains("step-text-4471"), "{emitted}");
}

/// A hand-written job.yaml: references are inputs under the path policy wherever they are.
#[test]
fn validate_refuses_references_outside_the_job_or_outside_prompts_and_templates() {
    let cases: &[(&str, &[&str])] = &[
        (
            "    commands:\n      c:\n        template: \"Go {file:/proc/self/environ}\"\n",
            &["agent.runtime.commands.c.template", "/proc/self/environ"],
        ),
        (
            "    agents:\n      a:\n        prompt: \"Be kind. {file:../outside.txt}\"\n",
            &["agent.runtime.agents.a.prompt", "outside the job folder"],
        ),
        (
            "    commands:\n      c:\n        template: \"Go {file:./x.md\"\n",
            &["agent.runtime.commands.c.template", "no closing"],
        ),
        (
            "    agents:\n      a:\n        options:\n          key: \"{file:./x.md}\"\n",
            &[
                "agent.runtime.agents.a.options.key",
                "only in agent prompts and command templates",
            ],
        ),
    ];
    for (runtime, expect) in cases {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("job");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(tmp.path().join("outside.txt"), OUTSIDE).unwrap();
        std::fs::write(dir.join("x.md"), "x").unwrap();
        std::fs::write(
            dir.join("job.yaml"),
            format!("version: 1\nagent:\n  id: refs\n  runtime:\n{runtime}"),
        )
        .unwrap();
        let out = ghostlab(&dir, &["validate", "--job", "job.yaml"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{runtime}\n{stderr}");
        for e in *expect {
            assert!(stderr.contains(e), "missing `{e}` for\n{runtime}\n{stderr}");
        }
        assert!(!stderr.contains(OUTSIDE) && !stderr.contains(CANARY), "{stderr}");
    }
}
