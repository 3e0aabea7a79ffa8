//! A real-terminal test: the built binary in tmux (send-keys, capture-pane) on a copy of
//! examples/release-bot. It accepts steps with Enter, is killed with SIGKILL midway, resumes
//! with --resume, and goes on until step 8; job.yaml must load at every point.
//!
//! Steps 8–12 need `src/generate` and the suite runner, which are not wired into the binary yet:
//! the test checks that step 8 fails with that reason and that Ctrl-C → y quits with state saved.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

pub(crate) struct Tmux {
    pub(crate) socket: String,
}

impl Tmux {
    fn cmd(&self) -> Command {
        let mut c = Command::new("tmux");
        c.args(["-L", &self.socket, "-f", "/dev/null"]);
        c
    }

    pub(crate) fn start(&self, dir: &Path, args: &str) {
        self.start_with(dir, "NO_COLOR=1", args);
    }

    fn start_with(&self, dir: &Path, env: &str, args: &str) {
        self.start_sized(dir, env, args, (110, 34));
    }

    /// The lab in a `width`×`height` terminal.
    pub(crate) fn start_sized(&self, dir: &Path, env: &str, args: &str, size: (u16, u16)) {
        self.start_command(dir, env, &format!("lab {args}"), size);
    }

    /// `ghostlab <command>` in a `width`×`height` terminal.
    pub(crate) fn start_command(&self, dir: &Path, env: &str, command: &str, (width, height): (u16, u16)) {
        let bin = env!("CARGO_BIN_EXE_ghostlab");
        let line = format!("exec env {env} GHOSTLAB_LOG=debug RELEASE_TOKEN=tmux-test-token {bin} {command}");
        let ok = self
            .cmd()
            .args([
                "new-session",
                "-d",
                "-s",
                "lab",
                "-x",
                &width.to_string(),
                "-y",
                &height.to_string(),
                "-c",
            ])
            .arg(dir)
            .arg(line)
            .status()
            .expect("tmux new-session");
        assert!(ok.success());
    }

    fn screen_with_styles(&self) -> String {
        let out = self
            .cmd()
            .args(["capture-pane", "-e", "-p", "-t", "lab"])
            .output()
            .expect("capture-pane");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub(crate) fn screen(&self) -> String {
        let out = self
            .cmd()
            .args(["capture-pane", "-p", "-t", "lab"])
            .output()
            .expect("capture-pane");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub(crate) fn wait_for(&self, needle: &str) -> String {
        // Generous: step 3 asks the user's `opencode models`, which takes 20 s on a loaded 2-core machine.
        let deadline = Instant::now() + Duration::from_secs(90);
        loop {
            let s = self.screen();
            if s.contains(needle) {
                return s;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for `{needle}`; screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub(crate) fn keys(&self, keys: &[&str]) {
        let ok = self
            .cmd()
            .args(["send-keys", "-t", "lab"])
            .args(keys)
            .status()
            .expect("send-keys");
        assert!(ok.success());
    }

    fn pane_pid(&self) -> i32 {
        let out = self
            .cmd()
            .args(["display-message", "-p", "-t", "lab", "#{pane_pid}"])
            .output()
            .expect("display");
        String::from_utf8_lossy(&out.stdout).trim().parse().expect("pid")
    }

    fn session_alive(&self) -> bool {
        self.cmd()
            .args(["has-session", "-t", "lab"])
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }

    pub(crate) fn wait_gone(&self) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.session_alive() {
            assert!(
                Instant::now() < deadline,
                "the lab did not exit; screen:\n{}",
                self.screen()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self
            .cmd()
            .arg("kill-server")
            .stderr(std::process::Stdio::null())
            .status();
    }
}

pub(crate) fn copy_example() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    crate::common::copy_release_bot(dir.path());
    // A mock agent keeps the run at step 12 fast; the real OpenCode path has its own tests.
    let text = std::fs::read_to_string(dir.path().join("job.yaml"))
        .expect("job")
        .replace("backend: opencode", "backend: mock");
    let text = format!("{text}hosts:\n  mock:\n    replies: [\"I can help with releases.\"]\n");
    std::fs::write(dir.path().join("source-job.yaml"), text).expect("write");
    std::fs::remove_file(dir.path().join("job.yaml")).expect("rm");
    let job = dir.path().join("job.yaml");
    (dir, job)
}

/// True when the captured screen holds a foreground or background color.
fn has_color(styled: &str) -> bool {
    let re = regex::Regex::new(r"\x1b\[[0-9;]*?\b(3[0-7]|4[0-7]|9[0-7]|10[0-7]|38;|48;)").expect("regex");
    re.is_match(styled)
}

#[test]
fn no_color_is_honoured_in_a_real_terminal() {
    if Command::new("tmux").arg("-V").output().is_err() {
        ghostlab::util::skip::skipped("skipped: tmux is not installed");
        return;
    }
    let (dir, _) = copy_example();
    for (env, colored) in [("NO_COLOR=1", false), ("TERM=xterm-256color", true)] {
        let tmux = Tmux {
            socket: format!("ghostlab-lab-color-{}-{colored}", std::process::id()),
        };
        tmux.start_with(dir.path(), env, "--from source-job.yaml");
        tmux.wait_for("1/12 Source — deciding");
        let styled = tmux.screen_with_styles();
        assert_eq!(has_color(&styled), colored, "{env}: {styled:?}");
        tmux.keys(&["C-c"]);
        tmux.wait_for("Quit the lab?");
        tmux.keys(&["y"]);
        tmux.wait_gone();
    }
}

pub(crate) fn completed(job: &Path) -> usize {
    let loaded = ghostlab::spec::load_job(job).unwrap_or_else(|e| panic!("job.yaml must load: {e}"));
    loaded.job.lab.completed.len()
}

pub(crate) fn title(step: usize) -> String {
    let s = ghostlab::lab::StepId::ALL[step - 1];
    format!("{step}/12 {} — ", s.title())
}

/// Accepts each step of `steps` with Enter once it is deciding; step 4 once discovery of both
/// servers (inside the sandbox) has answered.
pub(crate) fn accept_steps(tmux: &Tmux, steps: std::ops::RangeInclusive<usize>) {
    for step in steps {
        tmux.wait_for(&format!("{}deciding", title(step)));
        if step == 4 {
            tmux.wait_for("✓ release:");
            tmux.wait_for("✓ filesystem:");
        }
        tmux.keys(&["Enter"]);
        tmux.wait_for(&title(step + 1));
    }
}

/// The copy's source job with its mock agent host replaced by `hosts` (a `hosts:` block).
pub(crate) fn replace_agent_host(dir: &Path, hosts: &str) {
    let source = dir.join("source-job.yaml");
    let text = std::fs::read_to_string(&source).expect("source job");
    let (head, _) = text.split_once("hosts:\n  mock:").expect("the copy's mock host");
    std::fs::write(&source, format!("{head}{hosts}")).expect("write");
}

#[test]
fn tmux_accept_kill_resume_and_quit() {
    if Command::new("tmux").arg("-V").output().is_err() {
        ghostlab::util::skip::skipped("skipped: tmux is not installed");
        return;
    }
    let (dir, job) = copy_example();
    let tmux = Tmux {
        socket: format!("ghostlab-lab-test-{}", std::process::id()),
    };
    tmux.start(dir.path(), "--from source-job.yaml");
    accept_steps_1_to_4_editing_the_purpose(&tmux, &job);
    kill_9_keeps_job_yaml(&tmux, &job);
    tmux.start(dir.path(), "--resume");
    let screen = tmux.wait_for(&format!("{}deciding", title(5)));
    assert!(screen.contains("✓  4 MCPs"), "{screen}");
    // Steps 8-10 generate for real (offline proposer), 11 sets gates, 12 previews and runs.
    for step in 5..=11 {
        accept_step(&tmux, &job, step);
    }
    tmux.wait_for(&format!("{}deciding", title(12)));
    help_and_quit_question_accept_nothing(&tmux, &job);
    tmux.keys(&["Enter"]);
    // The dashboard while it runs, then the results screen when it finishes.
    tmux.wait_for("Cases (");
    let results = tmux.wait_for("Results of run");
    assert!(
        results.contains("12/12") && results.contains("Finished: gates"),
        "{results}"
    );
    assert_eq!(completed(&job), 12);
    run_screen_keys_then_quit(&tmux);
    view_states_what_the_results_screen_showed(dir.path(), &results);
}

/// Accepts step `step` with Enter once it is deciding; job.yaml is saved right after.
fn accept_step(tmux: &Tmux, job: &Path, step: usize) {
    tmux.wait_for(&format!("{}deciding", title(step)));
    enter_saves(tmux, job, step);
}

/// Enter accepts the deciding step `step`; job.yaml is saved right after.
fn enter_saves(tmux: &Tmux, job: &Path, step: usize) {
    tmux.keys(&["Enter"]);
    tmux.wait_for(&title(step + 1));
    assert_eq!(completed(job), step, "saved right after step {step}");
}

/// Steps 1 to 4, step 2 by editing the purpose in its textarea.
fn accept_steps_1_to_4_editing_the_purpose(tmux: &Tmux, job: &Path) {
    for step in 1..=4 {
        tmux.wait_for(&format!("{}deciding", title(step)));
        if step == 2 {
            // Edit the purpose in the textarea: end of the first line, type, save with Ctrl-S.
            tmux.keys(&["e"]);
            tmux.wait_for(&format!("{}editing", title(2)));
            tmux.keys(&["C-e"]);
            tmux.keys(&["-l", " Edited in tmux."]);
            tmux.wait_for("Edited in tmux.");
            tmux.keys(&["C-s"]);
            tmux.wait_for(&title(3));
            let loaded = ghostlab::spec::load_job(job).expect("loads");
            let description = loaded.job.agent.description.unwrap_or_default();
            assert!(description.contains("checks CI, Edited in tmux."), "{description}");
            assert_eq!(completed(job), 2);
            continue;
        }
        if step == 4 {
            // Discovery of both servers runs inside the sandbox; accept once it has answered.
            tmux.wait_for("✓ release:");
            tmux.wait_for("✓ filesystem:");
        }
        enter_saves(tmux, job, step);
    }
}

/// The lab dies without any chance to clean up; job.yaml keeps the four accepted steps.
fn kill_9_keeps_job_yaml(tmux: &Tmux, job: &Path) {
    let pid = tmux.pane_pid();
    let killed = Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    tmux.wait_gone();
    assert_eq!(completed(job), 4, "job.yaml intact after SIGKILL");
}

/// At step 12: `?` lists this screen's keys and any key closes it without acting (Enter does
/// not accept); Ctrl-C asks, and declining keeps going, never accepts on its own.
fn help_and_quit_question_accept_nothing(tmux: &Tmux, job: &Path) {
    tmux.keys(&["?"]);
    let help = tmux.wait_for("Keys: 12 Preview & run");
    assert!(help.contains("Enter") && help.contains("Ctrl-C"), "{help}");
    tmux.keys(&["Enter"]);
    std::thread::sleep(Duration::from_millis(300));
    assert!(!tmux.screen().contains("Keys: "));
    assert_eq!(completed(job), 11, "the key that closed the help accepted nothing");
    tmux.keys(&["C-c"]);
    tmux.wait_for("Quit the lab?");
    tmux.keys(&["Enter"]);
    tmux.wait_for("Quit the lab?");
    tmux.keys(&["n"]);
    std::thread::sleep(Duration::from_millis(300));
    assert!(!tmux.screen().contains("Quit the lab?"));
    assert_eq!(completed(job), 11);
}

/// Back to the dashboard: pin the trial above the newest, follow again, the run screen's help
/// naming its transcript keys, then the results and quit.
fn run_screen_keys_then_quit(tmux: &Tmux) {
    tmux.keys(&["d"]);
    tmux.wait_for("following newest");
    tmux.keys(&["k"]);
    tmux.wait_for("pinned ");
    tmux.keys(&["f"]);
    tmux.wait_for("following newest");
    tmux.keys(&["?"]);
    let help = tmux.wait_for("Keys: the run");
    assert!(help.contains("PgUp") && help.contains("in full"), "{help}");
    tmux.keys(&["x"]);
    tmux.keys(&["r"]);
    tmux.wait_for("Results of run");
    tmux.keys(&["q"]);
    tmux.wait_gone();
}

/// `ghostlab view` opens the same run and states the same verdicts as the `results` screen.
fn view_states_what_the_results_screen_showed(dir: &Path, results: &str) {
    let out = Command::new(env!("CARGO_BIN_EXE_ghostlab"))
        .current_dir(dir)
        .env("RELEASE_TOKEN", "tmux-test-token")
        .args(["view", "--json"])
        .output()
        .expect("view");
    // The verdict filter takes the spelling the screens show.
    let upper = Command::new(env!("CARGO_BIN_EXE_ghostlab"))
        .current_dir(dir)
        .args(["view", "--json", "--verdict", "FAIL"])
        .output()
        .expect("view --verdict FAIL");
    assert!(upper.status.success(), "{}", String::from_utf8_lossy(&upper.stderr));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let view: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let r = &view["results"];
    assert!(
        results.contains(r["readiness"]["label"].as_str().expect("a finished run")),
        "{results}"
    );
    let gate = &r["gates"][0];
    let row = format!(
        "{:<30} {:<14} {:<14}",
        gate["gate"].as_str().unwrap(),
        gate["required"].as_str().unwrap(),
        gate["actual"].as_str().unwrap()
    );
    assert!(results.contains(row.trim_end()), "{row}\n{results}");
    let first = view["results"]["trials"][0]["case_id"].as_str().expect("a trial");
    assert!(results.contains(first), "{first}\n{results}");
}

/// A FAKE `opencode` for Step 3: it answers only `opencode models`, with a fixed list (two
/// Anthropic models, and an OpenAI model standing for an OpenCode login the roles may not use).
fn fake_opencode_on_path(dir: &Path) -> String {
    use std::os::unix::fs::PermissionsExt;
    let bin = dir.join("fake-opencode-bin");
    std::fs::create_dir_all(&bin).expect("mkdir");
    let script = bin.join("opencode");
    std::fs::write(
        &script,
        "#!/bin/sh\n# FAKE opencode for a Ghostlab test: only `opencode models` is answered.\n\
         if [ \"$1\" = models ] && [ $# -eq 1 ]; then\n\
         printf 'anthropic/claude-haiku-4-5\\nanthropic/claude-sonnet-4-5\\nopenai/gpt-4.1\\n'\n\
         exit 0\nfi\necho \"fake opencode: only 'models' is scripted\" >&2\nexit 1\n",
    )
    .expect("write fake");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default())
}

#[test]
fn tmux_step_3_lists_authenticated_providers_and_edits_the_judge() {
    if Command::new("tmux").arg("-V").output().is_err() {
        ghostlab::util::skip::skipped("skipped: tmux is not installed");
        return;
    }
    let (dir, job) = copy_example();
    let path = fake_opencode_on_path(dir.path());
    let tmux = Tmux {
        socket: format!("ghostlab-lab-roles-{}", std::process::id()),
    };
    // The fake `opencode models` on PATH is the person's own list; the env key makes Anthropic
    // "actually authenticated" for Ghostlab's roles. OpenAI is listed by OpenCode but has no key
    // the roles may use (its login counts only with generation.credentials: opencode_auth).
    tmux.start_with(
        dir.path(),
        &format!(
            "-u GHOSTLAB_OPENCODE_BIN -u OPENAI_API_KEY PATH={path} NO_COLOR=1 GHOSTLAB_KEYRING=keyutils \
             ANTHROPIC_API_KEY=sk-tmux-test-not-secret"
        ),
        "--from source-job.yaml",
    );
    for step in 1..=2 {
        tmux.wait_for(&format!("{}deciding", title(step)));
        tmux.keys(&["Enter"]);
        tmux.wait_for(&title(step + 1));
    }
    let screen = tmux.wait_for(&format!("{}deciding", title(3)));
    let flat = screen.split_whitespace().collect::<Vec<_>>().join(" ");
    let (cheap, strong) = ("claude-haiku-4-5", "claude-sonnet-4-5");
    assert!(
        flat.contains("Authenticated for the roles: anthropic: env ANTHROPIC_API_KEY"),
        "{screen}"
    );
    assert!(
        flat.contains("Models (2):"),
        "only the listed, authenticated models: {screen}"
    );
    assert!(!flat.contains("judge: openai/"), "{screen}");
    assert!(
        screen.contains(&format!("judge: anthropic/{strong}")),
        "the strongest listed model, not the catalog's: {screen}"
    );
    assert!(screen.contains(&format!("proposer: anthropic/{cheap}")), "{screen}");
    assert!(screen.contains("Estimated cost"), "{screen}");
    // Pick another judge model in the textarea: the judge line is the fourth.
    tmux.keys(&["e"]);
    tmux.wait_for(&format!("{}editing", title(3)));
    tmux.keys(&["Down", "Down", "Down", "C-e"]);
    for _ in 0..strong.chars().count() {
        tmux.keys(&["BSpace"]);
    }
    tmux.keys(&["-l", cheap]);
    tmux.wait_for(&format!("judge: anthropic/{cheap}"));
    tmux.keys(&["C-s"]);
    tmux.wait_for(&title(4));
    let loaded = ghostlab::spec::load_job(&job).expect("loads");
    let judge = &loaded.job.generation.judge;
    assert_eq!(judge.provider, ghostlab::spec::ModelProvider::Anthropic);
    assert_eq!(judge.model.as_deref(), Some(cheap));
    let text = std::fs::read_to_string(&job).expect("job.yaml");
    assert!(!text.contains("sk-tmux-test"), "the key is not written");
    tmux.keys(&["C-c"]);
    tmux.wait_for("Quit the lab?");
    tmux.keys(&["y"]);
    tmux.wait_gone();
}
