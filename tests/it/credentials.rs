//! `ghostlab auth` on this machine's keyring, and the canary rule: a key given to `auth set`
//! never shows up in any output, log or file of the run — yet reaches the endpoint.
//!
//! The commands run inside `keyctl session -` (a fresh session keyring) so the test neither
//! needs nor disturbs the caller's keyring. Where that is impossible the test says SKIPPED and why.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

fn keyutils_usable() -> Result<(), String> {
    let probe = Command::new("keyctl").args(["session", "-", "true"]).output();
    match probe {
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => Err(format!(
            "`keyctl session - true` failed: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Err(e) => Err(format!("keyctl is not installed ({e})")),
    }
}

/// A one-shot local `/v1/models` endpoint that remembers the Authorization header it saw.
fn models_endpoint() -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let seen2 = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { return };
            let mut buf = [0u8; 8192];
            let n = s.read(&mut buf).unwrap_or(0);
            let head = String::from_utf8_lossy(&buf[..n]).to_string();
            let auth = head
                .lines()
                .find(|l| l.to_ascii_lowercase().starts_with("authorization:"))
                .unwrap_or("")
                .to_string();
            seen2.lock().unwrap().push(auth);
            let body = r#"{"object":"list","data":[{"id":"model-b"},{"id":"model-a"}]}"#;
            let reply = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            use std::io::Write;
            let _ = s.write_all(reply.as_bytes());
        }
    });
    (url, seen)
}

fn files_containing(dir: &Path, needle: &str) -> Vec<String> {
    let mut hits = Vec::new();
    for entry in walkdir::WalkDir::new(dir).into_iter().filter_map(Result::ok) {
        if entry.file_type().is_file()
            && let Ok(bytes) = std::fs::read(entry.path())
            && bytes.windows(needle.len()).any(|w| w == needle.as_bytes())
        {
            hits.push(entry.path().display().to_string());
        }
    }
    hits
}

#[test]
fn keyring_set_status_use_remove_and_the_canary_never_leaks() {
    if let Err(why) = keyutils_usable() {
        ghostlab::util::skip::skipped(&format!("SKIPPED keyring test: {why}"));
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let provider = format!("gltest{}", std::process::id());
    let canary = format!("sk-CANARY-{}-{}", std::process::id(), rand_suffix());
    let (url, seen) = models_endpoint();
    let bin = env!("CARGO_BIN_EXE_ghostlab");
    // One shell inside a fresh session keyring; the canary arrives on stdin only.
    let script = r#"
        set -u
        echo "== set"; "$GL" auth set "$P"; echo "rc=$?"
        echo "== status"; "$GL" auth status "$P"
        echo "== models"; "$GL" models --base-url "$URL" --provider "$P"; echo "rc=$?"
        echo "== env override"; env "GHOSTLAB_${PU}_API_KEY=from-env" "$GL" auth status "$P"
        echo "== remove"; "$GL" auth remove "$P"
        echo "== status after"; "$GL" auth status "$P"
        echo "== models after"; "$GL" models --base-url https://models.invalid/v1 --provider "$P"; echo "rc=$?"
    "#;
    let mut child = Command::new("keyctl")
        .args(["session", "-", "sh", "-c", script])
        .current_dir(tmp.path())
        .env("GL", bin)
        .env("P", &provider)
        .env("PU", provider.to_ascii_uppercase())
        .env("URL", &url)
        .env("HOME", tmp.path())
        .env("GHOSTLAB_KEYRING", "keyutils")
        .env("GHOSTLAB_LOG", "trace")
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        writeln!(stdin, "{canary}").unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let all = format!("stdout:\n{stdout}\nstderr:\n{stderr}");
    // Make sure no key is left behind even if an assertion below fails.
    let _ = Command::new(bin)
        .args(["auth", "remove", &provider])
        .env("GHOSTLAB_KEYRING", "keyutils")
        .output();

    assert!(
        stdout.contains(&format!("stored the key for `{provider}` in keyutils")),
        "{all}"
    );
    assert!(stdout.contains("keyutils: set"), "{all}");
    assert!(stdout.contains("model-a") && stdout.contains("model-b"), "{all}");
    assert!(stdout.contains("set (overrides the keyring)"), "{all}");
    assert!(
        stdout.contains(&format!("removed the key for `{provider}` from keyutils")),
        "{all}"
    );
    let after = stdout.split("== status after").nth(1).unwrap_or("");
    assert!(after.contains("keyutils: not set"), "{all}");
    assert!(
        stderr.contains(&format!("ghostlab auth set {provider}")),
        "missing key says how to set it:\n{all}"
    );
    // The stored key did reach the endpoint...
    assert_eq!(
        seen.lock().unwrap().first().map(String::as_str),
        Some(format!("authorization: Bearer {canary}").as_str())
    );
    // ...and nowhere else.
    assert!(!all.contains(&canary), "canary leaked into output/logs:\n{all}");
    assert!(!all.contains(&canary[..20]), "canary prefix leaked:\n{all}");
    let hits = files_containing(tmp.path(), &canary);
    assert!(hits.is_empty(), "canary written to files: {hits:?}");
}

fn rand_suffix() -> String {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    format!("{t:x}")
}

/// Secret Service round trip in a private D-Bus session; skipped (with the store's own reason)
/// where no Secret Service provider answers on the bus.
#[test]
fn secret_service_round_trip_or_reported_skip() {
    let bin = env!("CARGO_BIN_EXE_ghostlab");
    let provider = format!("glss{}", std::process::id());
    let script = r#""$GL" auth status "$P"; printf 'ss-value\n' | "$GL" auth set "$P" && "$GL" auth status "$P" && "$GL" auth remove "$P""#;
    let out = Command::new("dbus-run-session")
        .args(["--", "sh", "-c", script])
        .env("GL", bin)
        .env("P", &provider)
        .env("GHOSTLAB_KEYRING", "secret-service")
        .output();
    let out = match out {
        Ok(o) => o,
        Err(e) => {
            ghostlab::util::skip::skipped(&format!(
                "SKIPPED secret-service round trip: dbus-run-session cannot run ({e})"
            ));
            return;
        }
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let first = stdout
        .lines()
        .find(|l| l.starts_with("secret-service:"))
        .unwrap_or("")
        .to_string();
    if first.contains("unavailable") {
        // The chain must then say so instead of pretending to store.
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("no OS keyring is usable"),
            "{stdout}"
        );
        eprintln!("SKIPPED secret-service round trip: {first}");
        return;
    }
    assert!(
        stdout.contains("in secret-service") && stdout.contains("secret-service: set"),
        "{stdout}"
    );
    assert!(stdout.contains("removed the key"), "{stdout}");
}
