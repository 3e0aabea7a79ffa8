//! The reference MCP server (`@modelcontextprotocol/server-everything`, pinned in tools/npm)
//! started by a test on a free local port, and stopped when the test ends, pass or fail.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// A running server-everything; killed when dropped.
pub struct ServerEverything {
    child: std::process::Child,
    pub port: u16,
}

impl Drop for ServerEverything {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Its entry point under tools/npm (it may not be installed).
pub fn script() -> PathBuf {
    super::repo().join("tools/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
}

/// Starts it in `mode` (`streamableHttp`, `sse`) on a free port and waits, at most `within`,
/// until it listens.
pub fn start(mode: &str, within: Duration) -> ServerEverything {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = std::process::Command::new("node")
        .arg(script())
        .arg(mode)
        .env("PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let server = ServerEverything { child, port };
    let deadline = Instant::now() + within;
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "server-everything ({mode}) did not listen on {port}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    server
}
