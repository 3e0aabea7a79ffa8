//! The enforcing egress proxy that Ghostlab runs on the host for `network: allowlist`.
//!
//! It listens on a unix socket that is bound into the sandbox (the sandbox has no other way
//! out), accepts `CONNECT host:port` and absolute-URI HTTP requests, lets through only listed
//! `host:port` pairs and answers 403 to everything else. Every refusal is recorded with host,
//! port and time. It never resolves or connects to a destination before the check passes.
//! A plain-HTTP request is one exchange per connection, and both ends are told so
//! (`super::proxy_http`): each request is checked on its own connection.
//!
//! A sandboxed process must not be able to exhaust it: at most [`MAX_CONNECTIONS`] client
//! connections of one session are served at a time (about twice as many descriptors with their
//! upstreams: the session's descriptor budget); connections beyond it are closed at once, the
//! episode logged and recorded as a denial. An accept error (EMFILE, ENFILE, ENOBUFS) is logged
//! and retried after a back-off; it never ends the loop.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::net::{TcpStream, UnixListener, UnixStream};

use super::denials::{Denial, DenialLog, MAX_DENIALS, kept_host};
use super::log::SessionLog;
use super::policy::HostPort;
use super::proxy_http::{exchange, parse_head, read_head};

/// How long a client may take to send its request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(30);
/// Client connections one session's proxy serves at once.
pub(crate) const MAX_CONNECTIONS: usize = 256;
/// The `host` of the denial that records connections refused over [`MAX_CONNECTIONS`].
pub(crate) const CONNECTION_CAP_HOST: &str = "egress-proxy-connection-cap";
/// Back-off after a failed accept, doubling up to [`ACCEPT_BACKOFF_MAX`].
const ACCEPT_BACKOFF_MIN: Duration = Duration::from_millis(5);
const ACCEPT_BACKOFF_MAX: Duration = Duration::from_secs(1);

/// A running proxy; dropping it stops accepting.
#[derive(Debug)]
pub(crate) struct EgressProxy {
    denials: Arc<Mutex<DenialLog>>,
    task: tokio::task::JoinHandle<()>,
}

impl EgressProxy {
    /// Binds `socket` (mode 0666 so the unprivileged sandbox user can connect) and serves.
    pub(crate) fn start(socket: &Path, allow: Vec<HostPort>, log: SessionLog) -> std::io::Result<Self> {
        use std::os::unix::fs::PermissionsExt;
        let listener = UnixListener::bind(socket)?;
        std::fs::set_permissions(socket, std::fs::Permissions::from_mode(0o666))?;
        let denials = Arc::new(Mutex::new(DenialLog::default()));
        let shared = Arc::new(Shared {
            allow,
            log,
            denials: denials.clone(),
            active: AtomicUsize::new(0),
        });
        let task = tokio::spawn(accept_loop(listener, shared, MAX_CONNECTIONS));
        Ok(EgressProxy { denials, task })
    }

    /// Every refused attempt so far (bounded: see [`DenialLog`]).
    pub(crate) fn denials(&self) -> Vec<Denial> {
        self.denials.lock().unwrap_or_else(|p| p.into_inner()).all()
    }
}

impl Drop for EgressProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

struct Shared {
    allow: Vec<HostPort>,
    log: SessionLog,
    denials: Arc<Mutex<DenialLog>>,
    /// Client connections being served now.
    active: AtomicUsize,
}

/// Accepts until the proxy is dropped. Over `cap` a connection is closed unserved; a failed
/// accept backs off and retries.
async fn accept_loop(listener: UnixListener, shared: Arc<Shared>, cap: usize) {
    let mut backoff = ACCEPT_BACKOFF_MIN;
    let mut failing = false;
    // Connections refused in the current over-cap episode.
    let mut refused: u64 = 0;
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                if !failing {
                    shared.log.note(&format!(
                        "egress proxy: accept failed ({e}); retrying with back-off up to {} ms",
                        ACCEPT_BACKOFF_MAX.as_millis()
                    ));
                    failing = true;
                }
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(ACCEPT_BACKOFF_MAX);
                continue;
            }
        };
        if failing {
            shared.log.note("egress proxy: accepting again");
            failing = false;
        }
        backoff = ACCEPT_BACKOFF_MIN;
        if shared.active.load(Ordering::SeqCst) >= cap {
            if refused == 0 {
                shared.refuse_over_cap(cap);
            }
            refused += 1;
            drop(stream);
            continue;
        }
        if refused > 0 {
            shared.log.note(&format!(
                "egress proxy: {refused} connection(s) refused over the cap of {cap}"
            ));
            refused = 0;
        }
        let slot = Slot::take(shared.clone());
        tokio::spawn(async move {
            slot.0.serve(stream).await;
            drop(slot);
        });
    }
}

/// One of the [`MAX_CONNECTIONS`] places, given back when the connection ends (even by panic).
struct Slot(Arc<Shared>);

impl Slot {
    fn take(shared: Arc<Shared>) -> Self {
        shared.active.fetch_add(1, Ordering::SeqCst);
        Slot(shared)
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.active.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Shared {
    /// The start of an over-cap episode: a log line and one denial, so it becomes a finding.
    fn refuse_over_cap(&self, cap: usize) {
        self.log.note(&format!(
            "egress REFUSED connection: {cap} connections to the egress proxy already open (the session's cap); \
             further refusals are counted"
        ));
        self.denials.lock().unwrap_or_else(|p| p.into_inner()).push(Denial {
            host: CONNECTION_CAP_HOST.to_string(),
            port: 0,
            method: "OVER_CAP".to_string(),
            time: chrono::Utc::now().to_rfc3339(),
        });
    }

    async fn serve(&self, mut client: UnixStream) {
        let (head, body_start) = match tokio::time::timeout(HEAD_TIMEOUT, read_head(&mut client)).await {
            Ok(Some(x)) => x,
            _ => {
                let _ = client
                    .write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
                    .await;
                return;
            }
        };
        let Some(target) = parse_head(&head) else {
            self.log.note("egress: refused a request the proxy cannot parse");
            let _ = client
                .write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
                .await;
            return;
        };
        let allowed = self
            .allow
            .iter()
            .any(|a| a.host == target.host && a.port == target.port);
        if !allowed {
            let denial = Denial {
                host: kept_host(&target.host),
                port: target.port,
                method: target.method.clone(),
                time: chrono::Utc::now().to_rfc3339(),
            };
            let line = format!(
                "egress DENIED {} {}:{} (not on the allowlist)",
                denial.method, denial.host, denial.port
            );
            let (kept, first_dropped) = {
                let mut log = self.denials.lock().unwrap_or_else(|p| p.into_inner());
                let kept = log.push(denial);
                (kept, log.more == 1)
            };
            // The log is bounded like the record: past it, one line says the rest is counted.
            if kept {
                self.log.note(&line);
            } else if first_dropped {
                self.log.note(&format!(
                    "egress: {MAX_DENIALS} refusals logged; further ones are only counted"
                ));
            }
            let body = "egress to this destination is not allowed by the sandbox policy\n";
            let resp = format!(
                "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = client.write_all(resp.as_bytes()).await;
            return;
        }
        let (addr, addr_port) = match super::test_resolve::target(&target.host, target.port) {
            Some(to) => {
                self.log.note(&format!(
                    "egress TEST RESOLVE {}:{} -> {}:{} (test-hooks override)",
                    target.host, target.port, to.0, to.1
                ));
                to
            }
            None => (target.host.clone(), target.port),
        };
        let mut upstream = match TcpStream::connect((addr.as_str(), addr_port)).await {
            Ok(s) => s,
            Err(e) => {
                self.log.note(&format!(
                    "egress allowed {}:{} but connect failed: {e}",
                    target.host, target.port
                ));
                let _ = client
                    .write_all(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
                    .await;
                return;
            }
        };
        self.log.note(&format!(
            "egress allowed {} {}:{}",
            target.method, target.host, target.port
        ));
        match &target.forward_head {
            None => {
                if client
                    .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
                    .await
                    .is_ok()
                    && (body_start.is_empty() || upstream.write_all(&body_start).await.is_ok())
                {
                    let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
                }
            }
            Some(fwd) => exchange(client, upstream, fwd, &body_start).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    /// Reads what the proxy sends before closing; empty when it closed unserved.
    async fn answer(c: &mut UnixStream) -> Vec<u8> {
        let mut out = Vec::new();
        let _ = tokio::time::timeout(Duration::from_secs(5), c.read_to_end(&mut out)).await;
        out
    }

    #[tokio::test]
    async fn connections_over_the_cap_are_refused_logged_and_recorded_then_served_again() {
        let d = tempfile::tempdir().unwrap();
        let log = SessionLog::create(&d.path().join("log"), "test", Vec::new()).unwrap();
        let sock = d.path().join("p.sock");
        let proxy = EgressProxy::start(&sock, Vec::new(), log.clone()).unwrap();
        let mut held = Vec::new();
        for _ in 0..MAX_CONNECTIONS {
            held.push(UnixStream::connect(&sock).await.unwrap());
        }
        // Let the loop accept all of them before the ones over the cap arrive.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let mut over = Vec::new();
        for _ in 0..5 {
            over.push(UnixStream::connect(&sock).await.unwrap());
        }
        for c in &mut over {
            assert!(answer(c).await.is_empty(), "a connection over the cap was served");
        }
        let caps: Vec<Denial> = proxy
            .denials()
            .into_iter()
            .filter(|d| d.host == CONNECTION_CAP_HOST)
            .collect();
        assert_eq!(caps.len(), 1, "one denial per over-cap episode");
        drop(held);
        tokio::time::sleep(Duration::from_millis(300)).await;
        let mut c = UnixStream::connect(&sock).await.unwrap();
        c.write_all(b"CONNECT denied.example:443 HTTP/1.1\r\n\r\n")
            .await
            .unwrap();
        let got = String::from_utf8_lossy(&answer(&mut c).await).into_owned();
        assert!(got.starts_with("HTTP/1.1 403"), "served again after the flood: {got:?}");
        log.flush().unwrap();
        let text = std::fs::read_to_string(log.path()).unwrap();
        assert!(text.contains("egress REFUSED connection"), "{text}");
        assert!(text.contains("5 connection(s) refused over the cap"), "{text}");
    }

    /// A keep-alive upstream like Node's HTTP server: it answers `connection: keep-alive`
    /// whatever it was asked and closes only when the request said `Connection: close`.
    async fn keep_alive_upstream() -> (u16, Arc<AtomicUsize>) {
        let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = l.local_addr().unwrap().port();
        let served = Arc::new(AtomicUsize::new(0));
        let count = served.clone();
        tokio::spawn(async move {
            while let Ok((mut c, _)) = l.accept().await {
                let count = count.clone();
                tokio::spawn(async move {
                    while let Some((head, _)) = super::super::proxy_http::read_head(&mut c).await {
                        let n = count.fetch_add(1, Ordering::SeqCst) + 1;
                        let body = format!("answer {n}");
                        let reply = format!(
                            "HTTP/1.1 200 OK\r\nconnection: keep-alive\r\nKeep-Alive: timeout=5\r\nContent-Length: {}\r\n\r\n{body}",
                            body.len()
                        );
                        if c.write_all(reply.as_bytes()).await.is_err()
                            || String::from_utf8_lossy(&head)
                                .to_ascii_lowercase()
                                .contains("connection: close")
                        {
                            return;
                        }
                    }
                });
            }
        });
        (port, served)
    }

    #[tokio::test]
    async fn a_plain_http_exchange_tells_the_client_to_close_and_ends_with_the_response() {
        let (port, served) = keep_alive_upstream().await;
        let d = tempfile::tempdir().unwrap();
        let log = SessionLog::create(&d.path().join("log"), "test", Vec::new()).unwrap();
        let sock = d.path().join("p.sock");
        let allow = vec![HostPort::parse(&format!("127.0.0.1:{port}")).unwrap()];
        let _proxy = EgressProxy::start(&sock, allow, log).unwrap();
        for round in 1..=2 {
            let mut c = UnixStream::connect(&sock).await.unwrap();
            let req = format!(
                "POST http://127.0.0.1:{port}/mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nProxy-Connection: Keep-Alive\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\n{{}}"
            );
            c.write_all(req.as_bytes()).await.unwrap();
            // The proxy ends the connection after the response: read_to_end returns.
            let got = String::from_utf8_lossy(&answer(&mut c).await).into_owned();
            assert!(got.starts_with("HTTP/1.1 200 OK\r\n"), "round {round}: {got:?}");
            assert!(got.contains("\r\nConnection: close\r\n"), "round {round}: {got:?}");
            assert!(
                !got.to_ascii_lowercase().contains("keep-alive"),
                "round {round}: {got:?}"
            );
            assert!(got.ends_with(&format!("answer {round}")), "round {round}: {got:?}");
        }
        assert_eq!(served.load(Ordering::SeqCst), 2);
    }
}
