//! The whole lab headless (`lab --yes --from … --proposer-model … --emulator-model …
//! --judge-model …`) with every role on one scripted provider, and what such a run is checked
//! against: the exit code and verdicts, the roles named in job.yaml with the key kept out of
//! every file, the scripted artifacts accepted, the requests on the provider's wire, and the
//! roles' cost in the events, the report and junit.xml.

use std::path::Path;

use serde_json::{Value, json};

use super::{ScriptedLlm, example, script, scripted_artifacts};
use crate::scripted_llm::Seen;

/// The whole lab headless with every role on `provider` (scripted at
/// `GHOSTLAB_<P>_BASE_URL`); `min_pass_rate` decides whether the gates are met (exit 0, "gates
/// met") or not (exit 1, "gates NOT met").
pub(super) async fn full_lab_run(provider: &str, model: &str, key_var: &str, min_pass_rate: &str, gates_met: bool) {
    let (dir, source) = example();
    let (profile, personas, scenarios) = scripted_artifacts(&source).await;
    let server = ScriptedLlm::start(script(&profile, &personas, &scenarios));
    let canary = format!("sk-{provider}-canary-7f3a9c");
    let lab = LabYes {
        dir: dir.path(),
        choice: format!("{provider}/{model}"),
        base_var: format!("GHOSTLAB_{}_BASE_URL", provider.to_ascii_uppercase()),
        url: &server.url,
        key_var,
        key: &canary,
        min_pass_rate,
    };
    let out = lab.run().await;
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    check_exit_and_verdicts(&out, &stdout, &stderr, gates_met);
    let job = ghostlab::spec::load_job(&dir.path().join("job.yaml")).expect("job loads");
    check_roles_named_and_key_kept_out(&job, dir.path(), model, &server.url, &canary, &stdout, &stderr);
    check_accepted_artifacts_are_scripted(&job);
    check_requests_on_the_wire(&server.requests(), provider, &canary);
    let events = run_events(&job);
    assert!(
        events.contains("SCRIPTED-USER: please draft the notes"),
        "the emulator's words reached the agent"
    );
    check_role_costs(&job, provider, &events);
}

/// `ghostlab lab --yes` in `dir` with every role on `choice`, its endpoint and key in the
/// environment.
struct LabYes<'a> {
    dir: &'a Path,
    /// `provider/model`.
    choice: String,
    base_var: String,
    url: &'a str,
    key_var: &'a str,
    key: &'a str,
    min_pass_rate: &'a str,
}

impl LabYes<'_> {
    async fn run(&self) -> std::process::Output {
        let mut cmd = assert_cmd::Command::cargo_bin("ghostlab").expect("binary");
        cmd.current_dir(self.dir)
            .env("NO_COLOR", "1")
            .env("RELEASE_TOKEN", "x-token-value")
            .env(&self.base_var, self.url)
            .env(self.key_var, self.key)
            .env("GHOSTLAB_KEYRING", "keyutils")
            .env("GHOSTLAB_LLM_ATTEMPTS", "1")
            .args(["lab", "--yes", "--from", "source-job.yaml", "--sandbox", "local"])
            .args([
                "--proposer-model",
                &self.choice,
                "--emulator-model",
                &self.choice,
                "--judge-model",
                &self.choice,
            ])
            .args(["--gate", &format!("min_pass_rate={}", self.min_pass_rate)])
            .timeout(std::time::Duration::from_secs(300));
        tokio::task::spawn_blocking(move || cmd.output().expect("run"))
            .await
            .expect("join")
    }
}

/// The exit code and the gates' line; PASS and FAIL among the verdicts; every INCONCLUSIVE
/// only a tool the scripted agent did not call.
fn check_exit_and_verdicts(out: &std::process::Output, stdout: &str, stderr: &str, gates_met: bool) {
    if gates_met {
        assert_eq!(
            out.status.code(),
            Some(0),
            "every gate met → exit 0\n{stdout}\n{stderr}"
        );
        assert!(
            stdout.contains("gates met") && !stdout.contains("gates NOT met"),
            "{stdout}"
        );
    } else {
        assert_eq!(out.status.code(), Some(1), "a gate fails → exit 1\n{stdout}\n{stderr}");
        assert!(stdout.contains("gates NOT met"), "{stdout}");
    }
    assert!(
        verdict_count(stdout, "PASS") >= 1 && verdict_count(stdout, "FAIL") >= 1,
        "PASS and FAIL: {stdout}"
    );
    // The judge answered every criterion: an INCONCLUSIVE here is only the scripted agent not
    // calling a tool its scenario was written to exercise (`judge::exercises`), never a gap in
    // the judge's answers.
    assert!(
        !stdout.contains("not judged"),
        "the judge answered every criterion: {stdout}"
    );
    let lines: Vec<&str> = stdout.lines().collect();
    let reasons: Vec<&str> = lines
        .windows(2)
        .filter(|w| w[0].starts_with("INCONCLUSIVE "))
        .map(|w| w[1])
        .collect();
    assert_eq!(reasons.len() as u32, verdict_count(stdout, "INCONCLUSIVE"), "{stdout}");
    assert!(
        reasons.iter().all(|r| r.contains("was written to exercise")),
        "{stdout}"
    );
}

/// The number before the first ` <word>` of the summary (`… 3 PASS, 1 FAIL …`).
fn verdict_count(stdout: &str, word: &str) -> u32 {
    let at = stdout.find(&format!(" {word}")).expect(word);
    stdout[..at]
        .rsplit([' ', ':', ','])
        .next()
        .unwrap()
        .parse()
        .expect("count")
}

/// job.yaml names the roles; the key stays out of every file and of the output.
fn check_roles_named_and_key_kept_out(
    job: &ghostlab::spec::LoadedJob,
    dir: &Path,
    model: &str,
    url: &str,
    canary: &str,
    stdout: &str,
    stderr: &str,
) {
    for role in [
        &job.job.generation.proposer,
        &job.job.generation.emulator,
        &job.job.generation.judge,
    ] {
        assert_eq!(role.model.as_deref(), Some(model));
        assert_eq!(role.base_url.as_deref(), Some(url));
        assert!(role.api_key.is_none());
    }
    assert!(!stdout.contains(canary) && !stderr.contains(canary));
    for entry in walkdir::WalkDir::new(dir).into_iter().flatten() {
        if entry.file_type().is_file() {
            let bytes = std::fs::read(entry.path()).unwrap_or_default();
            assert!(
                !String::from_utf8_lossy(&bytes).contains(canary),
                "the key leaked into {}",
                entry.path().display()
            );
        }
    }
}

/// The accepted artifacts are the scripted text.
fn check_accepted_artifacts_are_scripted(job: &ghostlab::spec::LoadedJob) {
    let lab = job.state_dir().join("lab");
    let read = |f: &str| std::fs::read_to_string(lab.join(f)).expect(f);
    assert!(read("profile.json").contains("SCRIPTED-AUDIENCE"));
    assert!(read("personas.json").contains("SCRIPTED-PERSONA-0"));
    assert!(read("scenarios.json").contains("SCRIPTED-GOAL-0 FAILME"));
}

/// Every request carried the key the way its wire expects, on its path; the judge and the
/// emulator were both asked, and no role was offered tools.
fn check_requests_on_the_wire(seen: &[Seen], provider: &str, canary: &str) {
    let auth = if provider == "anthropic" {
        format!("x-api-key: {canary}")
    } else {
        format!("authorization: bearer {canary}")
    };
    assert!(
        seen.iter()
            .all(|s| s.head.to_ascii_lowercase().contains(&auth.to_ascii_lowercase())),
        "every request authenticated"
    );
    let path = if provider == "anthropic" {
        "/v1/messages"
    } else {
        "/v1/chat/completions"
    };
    assert!(seen.iter().all(|s| s.path == path));
    let text = |s: &Seen| s.body.to_string();
    let judged = seen
        .iter()
        .filter(|s| text(s).contains("You judge a conversation"))
        .count();
    let emulated = seen
        .iter()
        .filter(|s| text(s).contains("Speak only as yourself"))
        .count();
    assert!(judged >= 2 && emulated >= judged, "judge {judged}, emulator {emulated}");
    assert!(
        seen.iter().all(|s| s.body.get("tools").is_none()),
        "no role is offered tools"
    );
}

/// Every `name` file under the job's runs, joined.
fn runs_files(job: &ghostlab::spec::LoadedJob, name: &str) -> String {
    walkdir::WalkDir::new(job.state_dir().join("runs"))
        .into_iter()
        .flatten()
        .filter(|e| e.file_name() == name)
        .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
        .collect()
}

fn run_events(job: &ghostlab::spec::LoadedJob) -> String {
    runs_files(job, "events.jsonl")
}

/// A field of a `model_call` event, at its top or under `event`.
fn event_field(e: &Value, k: &str) -> Value {
    e.get(k)
        .or_else(|| e.pointer(&format!("/event/{k}")))
        .cloned()
        .unwrap_or(Value::Null)
}

/// Every emulator and judge call is a model_call event priced from the catalog (or unknown).
/// Anthropic models are priced by name; an OpenAI-compatible role on a local endpoint is not.
/// The report's Cost row and junit.xml carry the same figures.
fn check_role_costs(job: &ghostlab::spec::LoadedJob, provider: &str, events: &str) {
    let price = ghostlab::llm::role::price_key(&job.job.generation.judge)
        .and_then(|(p, m)| ghostlab::llm::catalog::price(&p, &m));
    assert_eq!(price.is_some(), provider == "anthropic");
    let calls: Vec<Value> = events
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e.to_string().contains("\"model_call\""))
        .collect();
    assert!(
        calls.iter().any(|e| event_field(e, "role") == "emulator")
            && calls.iter().any(|e| event_field(e, "role") == "judge"),
        "{calls:?}"
    );
    let mut total = 0.0;
    for e in &calls {
        let p = event_field(e, "prompt_tokens").as_u64().expect("prompt tokens");
        let c = event_field(e, "completion_tokens").as_u64().expect("completion tokens");
        let cost = event_field(e, "cost_usd").as_f64().expect("cost");
        match price {
            Some(price) => {
                assert!((cost - price.cost(p, c)).abs() < 1e-12, "{e}");
                assert_eq!(event_field(e, "cost_unknown"), Value::Null, "{e}");
            }
            None => assert_eq!(event_field(e, "cost_unknown"), json!(true), "{e}"),
        }
        total += cost;
    }
    check_report_cost_row(&runs_files(job, "report.md"), price.is_some(), total);
    junit_carries_the_same_cost(&job.state_dir().join("runs"), &calls, price.is_some(), total);
}

/// The report's Cost row: the catalog cost of the events, or "unknown" per role (never $0).
fn check_report_cost_row(report: &str, priced: bool, total: f64) {
    let cost_row = report
        .lines()
        .find(|l| l.starts_with("| Cost |"))
        .unwrap_or_else(|| panic!("a Cost row: {report}"))
        .to_string();
    if priced {
        assert!(total > 0.0);
        assert!(
            cost_row.contains(&format!("${total:.4}")),
            "the report's cost is the catalog cost {total}: {cost_row}"
        );
    } else {
        assert!(
            cost_row.contains("judge unknown") && cost_row.contains("emulator unknown"),
            "a local endpoint's price is unknown, never $0: {cost_row}"
        );
    }
}

/// junit.xml: per trial the emulator's and judge's tokens and cost as `name=value` lines in
/// the case's `<system-out>` (the strict XSD allows properties only on the suite), the same
/// figures as the events (so as the report); the suite's total as properties before the first
/// case.
fn junit_carries_the_same_cost(runs: &std::path::Path, calls: &[Value], priced: bool, total: f64) {
    let junit = walkdir::WalkDir::new(runs)
        .into_iter()
        .flatten()
        .find(|e| e.file_name() == "junit.xml")
        .map(|e| std::fs::read_to_string(e.path()).expect("junit.xml"))
        .expect("a junit.xml");
    let prop = |scope: &str, name: &str| -> String {
        let needle = format!("<property name=\"{name}\" value=\"");
        let at = scope.find(&needle).unwrap_or_else(|| panic!("{name} in {scope}"));
        let rest = &scope[at + needle.len()..];
        rest[..rest.find('"').unwrap()].to_string()
    };
    let case_figure = |case: &str, name: &str| -> String {
        let out = case
            .split("<system-out>")
            .nth(1)
            .and_then(|rest| rest.split("</system-out>").next())
            .unwrap_or_else(|| panic!("system-out in {case}"));
        let prefix = format!("{name}=");
        out.lines()
            .find_map(|l| l.strip_prefix(&prefix))
            .unwrap_or_else(|| panic!("{name} in {case}"))
            .to_string()
    };
    let suite = &junit[..junit.find("<testcase").expect("test cases")];
    let tokens: u64 = calls
        .iter()
        .map(|e| {
            let f = |k: &str| {
                e.get(k)
                    .or_else(|| e.pointer(&format!("/event/{k}")))
                    .and_then(Value::as_u64)
            };
            f("prompt_tokens").unwrap_or(0) + f("completion_tokens").unwrap_or(0)
        })
        .sum();
    let role_tokens: u64 = ["emulator", "judge"]
        .iter()
        .map(|r| {
            prop(suite, &format!("ghostlab.{r}.tokens"))
                .parse::<u64>()
                .expect("tokens")
        })
        .sum();
    assert_eq!(role_tokens, tokens, "{junit}");
    let cases: Vec<&str> = junit.split("<testcase ").skip(1).collect();
    assert!(!cases.is_empty());
    let mut sum = 0.0;
    for case in &cases {
        for role in ["emulator", "judge"] {
            let cost = case_figure(case, &format!("ghostlab.{role}.cost_usd"));
            if priced {
                sum += cost.parse::<f64>().unwrap_or_else(|_| panic!("a figure: {case}"));
            } else {
                assert_eq!(cost, "unknown", "never 0 without a price: {case}");
            }
        }
    }
    if priced {
        assert!((sum - total).abs() < 1e-5, "junit {sum} vs events {total}: {junit}");
        let suite_roles: f64 = ["emulator", "judge"]
            .iter()
            .map(|r| {
                prop(suite, &format!("ghostlab.{r}.cost_usd"))
                    .parse::<f64>()
                    .expect("figure")
            })
            .sum();
        assert!((suite_roles - total).abs() < 1e-5, "{junit}");
    } else {
        assert_eq!(prop(suite, "ghostlab.cost_usd"), "unknown", "{junit}");
    }
}
