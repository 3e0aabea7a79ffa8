//! Egress through the proxy of a session whose network is an allowlist: a host off the list
//! is refused (plain, CONNECT, or around the proxy), the listed host is reached (control), and
//! every refusal is recorded in the log and in `denials()`.

use std::path::{Path, PathBuf};

use ghostlab::sandbox::{ExecOptions, ExecOutput, HostPort, NetworkPolicy, Role, Sandbox, SandboxPolicy, Session};

use super::{Row, http_server, row, sh, summary};

/// The probes' names, in the order of their rows.
pub const NAMES: [&str; 5] = [
    "reach a non-allowlisted host via the proxy",
    "CONNECT tunnel to a non-allowlisted host",
    "bypass the proxy with a direct connection",
    "reach the allowlisted host via the proxy (control)",
    "denied egress recorded (log + denials())",
];

async fn run(s: &Session, script: &str) -> ExecOutput {
    s.exec(&sh(script), &ExecOptions::default(), None).await.unwrap()
}

/// `policy` with its network an allowlist of one local HTTP server; a second one is not on it.
pub async fn rows(policy: &SandboxPolicy, logs: &Path, bridge: PathBuf) -> Vec<Row> {
    let allowed_port = http_server("ALLOWED-BODY");
    let denied_port = http_server("DENIED-BODY");
    let mut p2 = policy.clone();
    p2.network = NetworkPolicy::Allowlist(vec![HostPort::parse(&format!("127.0.0.1:{allowed_port}")).unwrap()]);
    let sb2 = Sandbox::open_with(p2, logs.to_path_buf(), Some(bridge)).await.unwrap();
    let s2 = sb2.session(Role::Emulator).await.unwrap();
    let mut rows = Vec::new();
    let o = run(
        &s2,
        &format!("curl -sS --max-time 5 -w ' http=%{{http_code}}' http://127.0.0.1:{denied_port}/"),
    )
    .await;
    let text = o.stdout_text();
    rows.push(row(
        NAMES[0],
        "denied",
        summary(&o),
        !text.contains("DENIED-BODY") && text.contains("http=403"),
    ));
    let o = run(
        &s2,
        &format!("curl -sS -p --max-time 5 http://127.0.0.1:{denied_port}/"),
    )
    .await;
    let all = format!("{}{}", o.stdout_text(), o.stderr_text());
    rows.push(row(
        NAMES[1],
        "denied",
        summary(&o),
        !all.contains("DENIED-BODY") && o.status != 0,
    ));
    let o = run(
        &s2,
        &format!("curl -sS --noproxy '*' --max-time 3 http://127.0.0.1:{allowed_port}/"),
    )
    .await;
    rows.push(row(
        NAMES[2],
        "denied",
        summary(&o),
        !o.stdout_text().contains("ALLOWED-BODY"),
    ));
    let o = run(&s2, &format!("curl -sS --max-time 5 http://127.0.0.1:{allowed_port}/")).await;
    let ok = o.stdout_text().contains("ALLOWED-BODY");
    rows.push(row(NAMES[3], "allowed", summary(&o), !ok));
    rows.push(recorded_denials(&s2, denied_port, allowed_port));
    s2.delete().await.unwrap();
    rows
}

/// The refusals of `denied_port` are in `denials()` and the log; the allowed port is in neither.
fn recorded_denials(s2: &Session, denied_port: u16, allowed_port: u16) -> Row {
    let denials = s2.denials();
    s2.flush_log().unwrap();
    let log2 = std::fs::read_to_string(s2.log_path()).unwrap_or_default();
    let recorded = denials.iter().filter(|d| d.port == denied_port).count() >= 2
        && log2.contains(&format!("egress DENIED CONNECT 127.0.0.1:{denied_port}"))
        && !denials.iter().any(|d| d.port == allowed_port);
    row(
        NAMES[4],
        "denied",
        format!("{} denials recorded, log lines present: {recorded}", denials.len()),
        recorded,
    )
}
