//! A command's standard output. `println!` panics when the reader has gone (`ghostlab findings
//! list | head -1`); here a closed pipe stops the command quietly with the status a program
//! killed by SIGPIPE would have (141), so a pipeline still sees that the output was cut, and any
//! other write error says so on stderr. Ghostlab keeps SIGPIPE ignored: its writes to peers (an
//! MCP server's stdin, a socket) must fail as errors, never kill it.

use std::io::Write;

use super::error::ErrorKind;
use super::exit::Exit;

/// Writes `text` to standard output, then flushes.
pub(crate) fn write(text: std::fmt::Arguments<'_>) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(text).and_then(|()| out.flush()) {
        stopped(&e);
    }
}

/// Writes `bytes` to standard output, then flushes.
pub(crate) fn write_bytes(bytes: &[u8]) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(bytes).and_then(|()| out.flush()) {
        stopped(&e);
    }
}

/// `eprintln!` (used for notes and errors everywhere) panics when standard error is a pipe whose
/// reader has gone (`ghostlab lab --yes … 2>&1 | head -2`). Nothing can be said then, so the
/// panic is turned into the same quiet 141 as a closed standard output; every other panic is
/// reported as before.
pub fn exit_quietly_when_output_is_gone() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("failed printing to std") && message.contains("Broken pipe") {
            Exit::OutputClosed.now();
        }
        previous(info);
    }));
}

fn stopped(e: &std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        Exit::OutputClosed.now();
    }
    eprintln!("ghostlab: cannot write to standard output: {e}");
    Exit::Failed(ErrorKind::Io).now()
}

/// `println!` for commands: see the module.
macro_rules! say {
    () => {
        $crate::cli::out::write(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::cli::out::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` for commands: see the module.
macro_rules! say_raw {
    ($($arg:tt)*) => {
        $crate::cli::out::write(format_args!($($arg)*))
    };
}

pub(crate) use {say, say_raw};
