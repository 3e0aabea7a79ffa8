//! The model-server over real HTTP (reqwest): JSON and SSE answers, tool calls, recorded
//! entries, unmatched requests; and, when the pinned binary is present, the real OpenCode CLI
//! completing a bash-tool turn against it.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ghostlab::llm::cassette::Cassette;
use ghostlab::llm::model_server::{ServerOptions, start};
use ghostlab::llm::openai::{OpenAiConfig, OpenAiLlm};
use ghostlab::llm::retry::RetryPolicy;
use ghostlab::llm::sse::SseDecoder;
use ghostlab::llm::{ChatMessage, ChatRequest, ChatResponse, Llm, Role, Usage};
use serde_json::{Value, json};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cassettes/scripted-agent.json")
}

async fn post(url: &str, body: Value) -> (u16, String) {
    let resp = ghostlab::util::tls::http_client_builder()
        .build()
        .unwrap()
        .post(format!("{url}/chat/completions"))
        .json(&body)
        .send()
        .await
        .unwrap();
    (resp.status().as_u16(), resp.text().await.unwrap())
}

/// A reassembled SSE answer: content, tool calls as (id, name, arguments), finish, usage, done.
type Streamed = (String, Vec<(String, String, String)>, String, Option<Value>, bool);

fn reassemble(sse: &str) -> Streamed {
    let mut d = SseDecoder::new();
    let (mut text, mut calls, mut finish, mut usage, mut done) = (
        String::new(),
        Vec::<(String, String, String)>::new(),
        String::new(),
        None,
        false,
    );
    for data in d.push(sse.as_bytes()) {
        if data == "[DONE]" {
            done = true;
            continue;
        }
        let c: Value = serde_json::from_str(&data).unwrap();
        if c["usage"].is_object() {
            usage = Some(c["usage"].clone());
        }
        let Some(choice) = c.pointer("/choices/0") else {
            continue;
        };
        if let Some(t) = choice.pointer("/delta/content").and_then(Value::as_str) {
            text.push_str(t);
        }
        for tc in choice
            .pointer("/delta/tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let i = tc["index"].as_u64().unwrap() as usize;
            if calls.len() <= i {
                calls.push((
                    tc["id"].as_str().unwrap().into(),
                    tc["function"]["name"].as_str().unwrap().into(),
                    String::new(),
                ));
            }
            calls[i].2.push_str(tc["function"]["arguments"].as_str().unwrap_or(""));
        }
        if let Some(f) = choice["finish_reason"].as_str() {
            finish = f.to_string();
        }
    }
    (text, calls, finish, usage, done)
}

#[tokio::test]
async fn answers_text_tool_calls_and_streams_from_the_script() {
    let server = start(Cassette::load(&fixture()).unwrap(), ServerOptions::default())
        .await
        .unwrap();
    let url = server.base_url();

    // Non-streaming text.
    let (status, body) = post(
        &url,
        json!({"model": "fake-model", "messages": [{"role": "user", "content": "hello?"}]}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["choices"][0]["message"]["content"], "Hello from the scripted model.");
    assert_eq!(v["choices"][0]["finish_reason"], "stop");
    assert!(v["usage"]["prompt_tokens"].as_u64().unwrap() > 0);

    // Streaming tool call, OpenCode style (content parts, tools offered, usage asked for).
    let turn = json!({"model": "fake-model", "stream": true, "stream_options": {"include_usage": true},
        "tools": [{"type": "function", "function": {"name": "bash", "parameters": {"type": "object"}}}], "tool_choice": "auto",
        "messages": [{"role": "system", "content": "You are opencode. Today is Sun Nov 29 2026."},
                     {"role": "user", "content": [{"type": "text", "text": "GHOSTLAB-LIST please"}]}]});
    let (status, sse) = post(&url, turn.clone()).await;
    assert_eq!(status, 200, "{sse}");
    let (text, calls, finish, usage, done) = reassemble(&sse);
    assert!(done && usage.is_some());
    assert_eq!(text, "");
    assert_eq!(finish, "tool_calls");
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].1, "bash");
    let args: Value = serde_json::from_str(&calls[0].2).unwrap();
    assert_eq!(args["command"], "ls && echo from-bash > bash.txt");

    // The follow-up carrying the tool result gets the final text.
    let mut follow = turn.clone();
    let msgs = follow["messages"].as_array_mut().unwrap();
    msgs.push(json!({"role": "assistant", "content": null, "tool_calls": [{"id": calls[0].0, "type": "function", "function": {"name": "bash", "arguments": calls[0].2}}]}));
    msgs.push(json!({"role": "tool", "tool_call_id": calls[0].0, "content": "README.md"}));
    let (status, sse) = post(&url, follow).await;
    assert_eq!(status, 200);
    let (text, calls, finish, _, done) = reassemble(&sse);
    assert!(done && calls.is_empty());
    assert_eq!(
        (text.as_str(), finish.as_str()),
        ("I listed the workspace. GHOSTLAB-DONE", "stop")
    );

    // Title generation.
    let (status, body) = post(&url, json!({"model": "fake-model", "messages": [{"role": "system", "content": "You are a title generator. You output ONLY a thread title."}, {"role": "user", "content": "GHOSTLAB-LIST please"}]})).await;
    assert_eq!(status, 200);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["choices"][0]["message"]["content"],
        "Listing the workspace"
    );

    // Models.
    let models: Value = ghostlab::util::tls::http_client_builder()
        .build()
        .unwrap()
        .get(format!("{url}/models"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(models["object"], "list");
    assert!(!models["data"].as_array().unwrap().is_empty());
    assert!(server.unmatched().is_empty());
    assert_eq!(
        server.answered(),
        [
            "rule:greeting",
            "rule:call-bash",
            "rule:answer-after-bash",
            "rule:title"
        ]
    );
    server.shutdown().await;
}

#[tokio::test]
async fn unmatched_request_is_an_http_error_naming_what_was_asked() {
    let server = start(Cassette::load(&fixture()).unwrap(), ServerOptions::default())
        .await
        .unwrap();
    let (status, body) = post(
        &server.base_url(),
        json!({"model": "fake-model", "stream": true, "messages": [{"role": "user", "content": "deploy the release to production"}]}),
    )
    .await;
    assert_eq!(status, 400);
    let v: Value = serde_json::from_str(&body).unwrap();
    let msg = v["error"]["message"].as_str().unwrap();
    assert!(
        msg.contains("deploy the release to production") && msg.contains("fake-model"),
        "{msg}"
    );
    assert_eq!(v["error"]["type"], "not_in_cassette");
    assert_eq!(server.unmatched().len(), 1);
    // A tool result nobody scripted is not answered by the fresh-turn rule either.
    let (status, _) = post(&server.base_url(), json!({"model": "m", "messages": [
        {"role": "user", "content": "GHOSTLAB-LIST"},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "c9", "type": "function", "function": {"name": "read", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c9", "content": "x"}]})).await;
    assert_eq!(status, 400);
    let (status, _) = post(&server.base_url(), json!({"messages": "not a list"})).await;
    assert_eq!(status, 400);
    server.shutdown().await;
}

#[tokio::test]
async fn recorded_entries_serve_ghostlab_requests_and_latency_applies() {
    let req = ChatRequest {
        model: Some("rec-model".into()),
        messages: vec![
            ChatMessage::new(Role::System, "s"),
            ChatMessage::new(Role::User, "what is the release policy?"),
        ],
        temperature: Some(0.25),
        max_tokens: Some(64),
        json_schema: None,
    };
    let recorded = ChatResponse {
        content: "Tag, then publish.".into(),
        model: "rec-model".into(),
        usage: Usage {
            prompt_tokens: 9,
            completion_tokens: 4,
            cost_usd: None,
        },
        latency_ms: 12,
    };
    let mut cassette = Cassette::default();
    cassette.upsert(serde_json::to_value(&req).unwrap(), recorded);
    let server = start(
        cassette,
        ServerOptions {
            port: 0,
            latency: Duration::from_millis(150),
        },
    )
    .await
    .unwrap();
    for stream in [false, true] {
        let mut cfg = OpenAiConfig::new(server.base_url(), "unused");
        cfg.stream = stream;
        cfg.retry = RetryPolicy::quick(1);
        let llm = OpenAiLlm::new(cfg).unwrap();
        let t = Instant::now();
        let r = llm.chat(&req).await.unwrap();
        assert!(t.elapsed() >= Duration::from_millis(150));
        assert_eq!(r.content, "Tag, then publish.");
        assert_eq!((r.usage.prompt_tokens, r.usage.completion_tokens), (9, 4));
    }
    let mut other = req.clone();
    other.messages[1].content.push('!');
    let llm = OpenAiLlm::new(OpenAiConfig::new(server.base_url(), "unused")).unwrap();
    assert!(matches!(
        llm.chat(&other).await,
        Err(ghostlab::llm::LlmError::Rejected { status: 400, .. })
    ));
    server.shutdown().await;
}

fn opencode_bin() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/npm/node_modules/opencode-linux-x64/bin/opencode")
}

/// OpenCode's configuration for one model, `fake/fake-model`, on the model-server at `url`.
fn opencode_config(url: &str) -> Value {
    json!({
        "$schema": "https://opencode.ai/config.json",
        "model": "fake/fake-model", "small_model": "fake/fake-model",
        "share": "disabled", "autoupdate": false, "permission": "allow", "lsp": false, "formatter": false,
        "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "Ghostlab model-server",
            "options": {"baseURL": url, "apiKey": "unused"},
            "models": {"fake-model": {"name": "Fake", "tool_call": true, "limit": {"context": 128000, "output": 4096}}}}}
    })
}

/// `opencode run --format json` in `ws` with a HOME, XDG folders and TMPDIR of its own under
/// `tmp`, the `config` given, and nothing else from this environment but PATH.
async fn opencode_run(bin: &Path, tmp: &Path, ws: &Path, config: &Value) -> std::process::Output {
    let home = tmp.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let run = tokio::process::Command::new(bin)
        .args([
            "run",
            "--format",
            "json",
            "-m",
            "fake/fake-model",
            "GHOSTLAB-LIST the workspace",
        ])
        .current_dir(ws)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", &home)
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .env("TMPDIR", tmp)
        .env("OPENCODE_DISABLE_MODELS_FETCH", "1")
        .env("OPENCODE_DISABLE_PROJECT_CONFIG", "1")
        .env("OPENCODE_CONFIG_CONTENT", config.to_string())
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output();
    tokio::time::timeout(Duration::from_secs(120), run)
        .await
        .expect("opencode did not finish within 120 s")
        .unwrap()
}

/// The real OpenCode CLI runs one turn against the model-server: it calls `bash` as scripted,
/// gets the follow-up answer, and finishes with `stop` — proving the server speaks its dialect.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_opencode_completes_a_bash_turn_against_the_model_server() {
    let bin = opencode_bin();
    if !bin.exists() {
        ghostlab::util::skip::skipped(&format!(
            "SKIPPED real_opencode_completes_a_bash_turn_against_the_model_server: {} is not installed",
            bin.display()
        ));
        return;
    }
    let server = start(Cassette::load(&fixture()).unwrap(), ServerOptions::default())
        .await
        .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("README.md"), "# demo\n").unwrap();
    let started = Instant::now();
    let out = opencode_run(&bin, tmp.path(), &ws, &opencode_config(&server.base_url())).await;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let context = format!(
        "exit {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}\nunmatched: {:?}",
        out.status.code(),
        server.unmatched()
    );
    assert!(out.status.success(), "{context}");
    let events: Vec<Value> = stdout.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    the_turn_ran_bash_and_stopped(&events, &context);
    assert_eq!(
        std::fs::read_to_string(ws.join("bash.txt")).unwrap().trim(),
        "from-bash"
    );
    assert!(server.unmatched().is_empty(), "{context}");
    // The title request, the tool call, then the answer after the tool result.
    let answered = server.answered();
    for rule in ["rule:title", "rule:call-bash", "rule:answer-after-bash"] {
        assert!(
            answered.iter().any(|a| a == rule),
            "{rule} not used: {answered:?}\n{context}"
        );
    }
    eprintln!(
        "opencode turn took {:.1} s; the model-server answered {answered:?}",
        started.elapsed().as_secs_f64()
    );
    server.shutdown().await;
}

/// OpenCode's events: no error, a completed `bash` call that listed the workspace, the
/// scripted answer, and a last step that finished with `stop`.
fn the_turn_ran_bash_and_stopped(events: &[Value], context: &str) {
    assert!(!events.iter().any(|e| e["type"] == "error"), "{context}");
    let bash = events
        .iter()
        .find(|e| e["type"] == "tool_use" && e["part"]["tool"] == "bash")
        .unwrap_or_else(|| panic!("no bash tool_use event\n{context}"));
    assert_eq!(bash["part"]["state"]["status"], "completed", "{context}");
    assert!(
        bash["part"]["state"]["output"]
            .as_str()
            .unwrap_or("")
            .contains("README.md"),
        "{context}"
    );
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "text" && e["part"]["text"].as_str().unwrap_or("").contains("GHOSTLAB-DONE")),
        "{context}"
    );
    let last_finish = events.iter().rev().find(|e| e["type"] == "step_finish").unwrap();
    assert_eq!(last_finish["part"]["reason"], "stop", "{context}");
}

/// The `ghostlab model-server` command: prints its URL, serves, and refuses a broken cassette.
#[test]
fn model_server_command_serves_and_rejects_bad_cassettes() {
    use std::io::BufRead;
    let bin = env!("CARGO_BIN_EXE_ghostlab");
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, r#"{"version": 9}"#).unwrap();
    let out = std::process::Command::new(bin)
        .args(["model-server", "--cassette"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("version 9"));

    let mut child = std::process::Command::new(bin)
        .args(["model-server", "--port", "0", "--cassette"])
        .arg(fixture())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line.trim().rsplit(' ').next().unwrap().to_string();
    assert!(url.starts_with("http://127.0.0.1:") && url.ends_with("/v1"), "{line}");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (status, body) = rt.block_on(post(
        &url,
        json!({"model": "m", "messages": [{"role": "user", "content": "hello"}]}),
    ));
    let (miss, _) = rt.block_on(post(
        &url,
        json!({"model": "m", "messages": [{"role": "user", "content": "unscripted"}]}),
    ));
    child.kill().unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("Hello from the scripted model."));
    assert_eq!(miss, 400);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("unscripted"),
        "the server logs what was asked: {stderr}"
    );
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from).into_iter().filter_map(Result::ok) {
        let rel = entry.path().strip_prefix(from).unwrap();
        let target = to.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else if entry.file_type().is_file() {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// `ghostlab models --job`: lists what the job's openai role endpoint serves; an all-offline job
/// is a clear usage error.
#[test]
fn models_command_reads_the_job_roles() {
    let bin = env!("CARGO_BIN_EXE_ghostlab");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let server = rt
        .block_on(start(Cassette::load(&fixture()).unwrap(), ServerOptions::default()))
        .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/release-bot");
    copy_dir(&example, tmp.path());
    let job = tmp.path().join("job.yaml");

    let out = std::process::Command::new(bin)
        .args(["models", "--job"])
        .arg(&job)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no generation role uses"));

    let text = std::fs::read_to_string(&job).unwrap();
    let text = text.replace(
        "  proposer: { provider: offline }",
        &format!(
            "  proposer: {{ provider: openai, model: fake-model, base_url: \"{}\" }}",
            server.base_url()
        ),
    );
    std::fs::write(&job, text).unwrap();
    let out = std::process::Command::new(bin)
        .args(["models", "--job"])
        .arg(&job)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("serves 1 model(s)") && stdout.contains("ghostlab-scripted"),
        "{stdout}"
    );
    rt.block_on(server.shutdown());
}
