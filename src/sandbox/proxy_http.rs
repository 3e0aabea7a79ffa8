//! The HTTP side of the egress proxy: reading a request head, turning an absolute-URI request
//! into the origin-form request sent upstream, and carrying exactly one exchange.
//!
//! The proxy checks one destination per client connection, so it serves one plain-HTTP request
//! per connection and must say so to both ends: upstream gets `Connection: close`, and the
//! response head is rewritten to `Connection: close` too. Without the second half a keep-alive
//! client (Bun's fetch inside OpenCode) sends its next request down the same connection; it then
//! reaches the upstream as raw bytes after a request that asked it to close, and a streamable-HTTP
//! MCP server answered 400 to every request after `initialize` — the agent saw no tools.

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpStream, UnixStream};

use super::policy::HostPort;

/// Largest request or response head the proxy reads before refusing.
pub(crate) const MAX_HEAD: usize = 16 * 1024;

/// What the first line of a proxy request asks for.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Target {
    pub(crate) method: String,
    pub(crate) host: String,
    pub(crate) port: u16,
    /// For plain HTTP: the request head rewritten to origin form.
    pub(crate) forward_head: Option<Vec<u8>>,
}

/// Parses a request head (up to and including the blank line).
pub(crate) fn parse_head(head: &[u8]) -> Option<Target> {
    let text = std::str::from_utf8(head).ok()?;
    let (first, rest) = text.split_once("\r\n")?;
    let mut parts = first.split(' ');
    let (method, uri, version) = (parts.next()?, parts.next()?, parts.next()?);
    if method == "CONNECT" {
        let hp = HostPort::parse(uri)?;
        return Some(Target {
            method: method.into(),
            host: hp.host,
            port: hp.port,
            forward_head: None,
        });
    }
    let after = uri.strip_prefix("http://")?;
    let (authority, path) = match after.find('/') {
        Some(i) => (&after[..i], &after[i..]),
        None => (after, "/"),
    };
    if authority.contains('@') {
        return None;
    }
    let hp = if authority
        .rsplit_once(':')
        .is_some_and(|(_, p)| p.bytes().all(|b| b.is_ascii_digit()))
    {
        HostPort::parse(authority)?
    } else {
        HostPort::parse(&format!("{authority}:80"))?
    };
    let mut fwd = format!("{method} {path} {version}\r\n");
    for line in rest.split("\r\n") {
        if line.is_empty() || is_hop_by_hop(line.as_bytes()) {
            continue;
        }
        fwd.push_str(line);
        fwd.push_str("\r\n");
    }
    // One request per upstream connection keeps every request on the checked destination.
    fwd.push_str("Connection: close\r\n\r\n");
    Some(Target {
        method: method.into(),
        host: hp.host,
        port: hp.port,
        forward_head: Some(fwd.into_bytes()),
    })
}

/// A header line that describes one connection, not the message: `Connection`, `Keep-Alive`
/// and any `Proxy-*`.
fn is_hop_by_hop(line: &[u8]) -> bool {
    let name = line.split(|b| *b == b':').next().unwrap_or_default();
    let name = name.trim_ascii().to_ascii_lowercase();
    name == b"connection" || name == b"keep-alive" || name.starts_with(b"proxy-")
}

/// The response head with its connection headers replaced by `Connection: close`, so the
/// client opens a new (and newly checked) connection for its next request. `None` when `head`
/// is not a response head.
pub(crate) fn close_response_head(head: &[u8]) -> Option<Vec<u8>> {
    let body = head.strip_suffix(b"\r\n\r\n")?;
    let mut lines = body.split(|b| *b == b'\n').map(|l| l.strip_suffix(b"\r").unwrap_or(l));
    let status = lines.next()?;
    if !status.starts_with(b"HTTP/1.") {
        return None;
    }
    let mut out = Vec::with_capacity(head.len() + 19);
    out.extend_from_slice(status);
    out.extend_from_slice(b"\r\n");
    for line in lines.filter(|l| !is_hop_by_hop(l)) {
        out.extend_from_slice(line);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"Connection: close\r\n\r\n");
    Some(out)
}

/// The status code of a response head (`HTTP/1.1 204 No Content` → 204).
fn status_code(head: &[u8]) -> Option<u16> {
    let text = std::str::from_utf8(head.get(..head.len().min(32))?).ok()?;
    text.split(' ').nth(1)?.get(..3)?.parse().ok()
}

/// Reads until the end of a head; returns the head and any bytes after it.
pub(crate) async fn read_head(s: &mut (impl AsyncRead + Unpin)) -> Option<(Vec<u8>, Vec<u8>)> {
    read_head_after(s, Vec::new()).await
}

/// Like [`read_head`], starting with bytes already read (`buf`), which may hold a whole head.
async fn read_head_after(s: &mut (impl AsyncRead + Unpin), mut buf: Vec<u8>) -> Option<(Vec<u8>, Vec<u8>)> {
    let mut chunk = [0u8; 2048];
    loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let rest = buf.split_off(i + 4);
            return Some((buf, rest));
        }
        if buf.len() > MAX_HEAD {
            return None;
        }
        let n = s.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
}

/// Carries one plain-HTTP exchange: `head` and `body_start` upstream, then the rest of the
/// request body, and the response back with `Connection: close`. Interim (1xx) heads pass as
/// they are; a protocol switch (101) becomes a tunnel to the same checked destination. The
/// client connection ends when the upstream's response does.
pub(crate) async fn exchange(mut client: UnixStream, mut upstream: TcpStream, head: &[u8], body_start: &[u8]) {
    if upstream.write_all(head).await.is_err() || upstream.write_all(body_start).await.is_err() {
        return;
    }
    let (mut client_read, mut client_write) = client.split();
    let (mut up_read, mut up_write) = upstream.split();
    let request_body = async {
        let _ = tokio::io::copy(&mut client_read, &mut up_write).await;
        let _ = up_write.shutdown().await;
        // The client finished its request: the response decides when this exchange ends.
        std::future::pending::<()>().await
    };
    let response = async {
        let mut carry = Vec::new();
        loop {
            let Some((head, rest)) = read_head_after(&mut up_read, carry).await else {
                let _ = client_write
                    .write_all(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    .await;
                return;
            };
            let code = status_code(&head);
            let interim = code.is_some_and(|c| (100..200).contains(&c) && c != 101);
            if interim {
                if client_write.write_all(&head).await.is_err() {
                    return;
                }
                carry = rest;
                continue;
            }
            let out = if code == Some(101) {
                head
            } else {
                match close_response_head(&head) {
                    Some(h) => h,
                    None => return,
                }
            };
            if client_write.write_all(&out).await.is_ok() && client_write.write_all(&rest).await.is_ok() {
                let _ = tokio::io::copy(&mut up_read, &mut client_write).await;
            }
            let _ = client_write.shutdown().await;
            return;
        }
    };
    tokio::select! {
        _ = request_body => {}
        _ = response => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_connect_and_plain_requests() {
        let t = parse_head(b"CONNECT api.example.com:443 HTTP/1.1\r\nHost: api.example.com:443\r\n\r\n").unwrap();
        assert_eq!(
            (t.host.as_str(), t.port, t.forward_head.is_none()),
            ("api.example.com", 443, true)
        );
        let t = parse_head(
            b"GET http://127.0.0.1:8080/x?y HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nProxy-Connection: keep-alive\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\n\r\n",
        )
        .unwrap();
        assert_eq!((t.host.as_str(), t.port), ("127.0.0.1", 8080));
        let fwd = String::from_utf8(t.forward_head.unwrap()).unwrap();
        assert!(fwd.starts_with("GET /x?y HTTP/1.1\r\n"));
        assert!(!fwd.to_ascii_lowercase().contains("keep-alive"), "{fwd}");
        assert!(fwd.ends_with("Connection: close\r\n\r\n"));
        let t = parse_head(b"GET http://example.com HTTP/1.1\r\n\r\n").unwrap();
        assert_eq!(t.port, 80);
        let t = parse_head(b"GET http://[::1]:9000/mcp HTTP/1.1\r\n\r\n").unwrap();
        assert_eq!((t.host.as_str(), t.port), ("::1", 9000));
        assert!(parse_head(b"GET /relative HTTP/1.1\r\n\r\n").is_none());
        assert!(parse_head(b"GET http://user@evil.com/ HTTP/1.1\r\n\r\n").is_none());
    }

    #[test]
    fn a_response_head_is_told_to_close_whatever_it_said() {
        let head = b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: keep-alive\r\nKeep-Alive: timeout=5\r\nProxy-Connection: keep-alive\r\nmcp-session-id: abc\r\n\r\n";
        let out = String::from_utf8(close_response_head(head).unwrap()).unwrap();
        assert_eq!(
            out,
            "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nmcp-session-id: abc\r\nConnection: close\r\n\r\n"
        );
        // No connection header at all (HTTP/1.1 defaults to keep-alive): one is added.
        let out = close_response_head(b"HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n").unwrap();
        assert!(out.ends_with(b"Content-Length: 0\r\nConnection: close\r\n\r\n"));
        // A header whose value mentions keep-alive is not a connection header.
        let out = close_response_head(b"HTTP/1.1 200 OK\r\nX-Note: connection: keep-alive\r\n\r\n").unwrap();
        assert!(
            String::from_utf8(out)
                .unwrap()
                .contains("X-Note: connection: keep-alive\r\n")
        );
        assert!(close_response_head(b"GET / HTTP/1.1\r\n\r\n").is_none());
        assert_eq!(status_code(b"HTTP/1.1 101 Switching Protocols\r\n\r\n"), Some(101));
        assert_eq!(status_code(b"HTTP/1.0 404 Not Found\r\n\r\n"), Some(404));
    }
}
