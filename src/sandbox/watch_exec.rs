//! What the watch records of a notified `execve`/`execveat`: the program's path and its
//! arguments, as the sandbox saw them start. The call always goes on.
//!
//! The program is named by the path the kernel was asked to run, not by `argv[0]`, which the
//! caller chooses freely (`exec -a ls git push`). Like every read of the caller's memory, a
//! thread could rewrite the strings after the read; what runs is then not what was recorded,
//! which is why these records add evidence and never clear an agent (see docs/verdicts.md).

use serde::{Deserialize, Serialize};

use super::watch_memory;

/// At most this many commands are kept per session; later ones are counted, not kept.
pub const MAX_COMMANDS: usize = 5000;

/// One program a sandboxed process started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObservedCommand {
    /// The path passed to exec (as the caller wrote it: absolute after a PATH search).
    pub program: String,
    /// Its arguments after `argv[0]`.
    pub args: Vec<String>,
    /// RFC 3339 UTC time of the call.
    pub time: String,
}

impl ObservedCommand {
    /// The command as one shell-quoted line, the program by its base name: `git push origin`.
    pub fn line(&self) -> String {
        let base = self.program.rsplit('/').next().unwrap_or(&self.program).to_string();
        let mut words = vec![base];
        words.extend(self.args.iter().cloned());
        shell_words::join(words)
    }
}

/// The commands of one session, bounded.
#[derive(Debug, Clone, Default)]
pub struct CommandLog {
    pub kept: Vec<ObservedCommand>,
    /// Commands seen after [`MAX_COMMANDS`] (or unreadable): not kept, so not checkable.
    pub missed: usize,
}

impl CommandLog {
    pub fn push(&mut self, c: Option<ObservedCommand>) {
        match c {
            Some(c) if self.kept.len() < MAX_COMMANDS => self.kept.push(c),
            _ => self.missed += 1,
        }
    }
}

/// Reads the command of an `execve(path, argv, envp)` or `execveat(dirfd, path, argv, …)`;
/// `None` when its memory cannot be read.
pub fn read(req: &libc::seccomp_notif) -> Option<ObservedCommand> {
    let (path, argv) = if i64::from(req.data.nr) == libc::SYS_execveat {
        (req.data.args[1], req.data.args[2])
    } else {
        (req.data.args[0], req.data.args[1])
    };
    let mem = watch_memory::open(req.pid).ok()?;
    let program = watch_memory::read_c_string(&mem, path).ok()?;
    let mut args = watch_memory::read_string_array(req.pid, argv).ok()?;
    if !args.is_empty() {
        args.remove(0);
    }
    Some(ObservedCommand {
        program,
        args,
        time: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(program: &str, args: &[&str]) -> ObservedCommand {
        ObservedCommand {
            program: program.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            time: String::new(),
        }
    }

    #[test]
    fn the_line_names_the_program_by_its_path_not_argv0() {
        assert_eq!(
            cmd("/usr/bin/git", &["push", "origin main"]).line(),
            "git push 'origin main'"
        );
        assert_eq!(cmd("git", &[]).line(), "git");
    }

    #[test]
    fn the_log_keeps_a_bounded_number_and_counts_the_rest() {
        let mut log = CommandLog::default();
        for _ in 0..MAX_COMMANDS + 3 {
            log.push(Some(cmd("/bin/true", &[])));
        }
        log.push(None);
        assert_eq!(log.kept.len(), MAX_COMMANDS);
        assert_eq!(log.missed, 4);
    }
}
