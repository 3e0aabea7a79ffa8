//! The in-sandbox end of the MCP relay (`ghostlab __mcp-connect --socket S`): the agent host
//! starts it as if it were the MCP server; it joins its stdin and stdout to the relay's unix
//! socket, behind which Ghostlab runs the real server in a sandbox command of its own (own
//! PID namespace, own environment). So the server's process, its `/proc/<pid>/environ` and
//! memory do not exist in the agent's view, and its credentials never enter the agent's
//! environment.
//!
//! Plain threads: it needs no runtime inside the sandbox.

use std::net::Shutdown;
use std::os::unix::net::UnixStream;
use std::path::Path;

use super::bridge::copy;

/// Pipes stdin to the socket and the socket to stdout until the server side closes;
/// returns the exit code (0, or 1 when the relay cannot be reached).
pub(crate) fn connect_stdio(socket: &Path) -> std::io::Result<i32> {
    let stream = UnixStream::connect(socket)
        .map_err(|e| std::io::Error::new(e.kind(), format!("MCP relay {}: {e}", socket.display())))?;
    let mut up = stream.try_clone()?;
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let _ = copy(&mut stdin, &mut up);
        let _ = up.shutdown(Shutdown::Write);
    });
    let mut down = stream;
    let mut stdout = std::io::stdout().lock();
    copy(&mut down, &mut stdout)?;
    Ok(0)
}
