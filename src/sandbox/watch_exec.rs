//! What the watch records of a notified `execve`/`execveat`: the program's path and its
//! arguments, as the sandbox saw them start. The call always goes on.
//!
//! A program is shown by the path the kernel was asked to run *and* by its `argv[0]`, which the
//! caller chooses freely and some programs dispatch on (`exec -a git-push git origin` pushes):
//! a rule sees both lines, with `git-X` read as `git X`. Not seen through: a copy or a link of a
//! program under another name (`/tmp/g push`). Like every read of the caller's memory, a thread
//! could rewrite the strings after the read; what runs is then not what was recorded, which is
//! why these records add evidence and never clear an agent (see docs/verdicts.md).
//!
//! Ghostlab's own hops are not the agent's: the command Ghostlab issued (the egress bridge, the
//! agent host's command line, which carries the user's message) and every tail of it that the
//! bridge execs are left out, each once ([`IssuedHops`]).

use serde::{Deserialize, Serialize};

use super::watch_memory::{self, ReadError};

/// At most this many commands are kept between two reads of the log; later ones are counted.
pub(crate) const MAX_COMMANDS: usize = 5000;
/// At most this many bytes of command lines are kept between two reads of the log (one per
/// turn): one argv may be 1 MiB, and what is kept lands in events.jsonl.
pub(crate) const MAX_BYTES: usize = 2 << 20;

/// One program a sandboxed process started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObservedCommand {
    /// The path passed to exec (as the caller wrote it: absolute after a PATH search).
    pub(crate) program: String,
    /// `argv[0]` as the caller set it.
    pub(crate) argv0: String,
    /// Its arguments after `argv[0]`.
    pub args: Vec<String>,
    /// RFC 3339 UTC time of the call.
    pub(crate) time: String,
}

impl ObservedCommand {
    /// The command as shell-quoted lines a rule is matched against: by the program's path and,
    /// when it differs, by `argv[0]`; each by its base name, `git-push` read as `git push`.
    pub(crate) fn lines(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for name in [&self.program, &self.argv0] {
            let base = name.rsplit('/').next().unwrap_or(name);
            if base.is_empty() {
                continue;
            }
            let mut words: Vec<String> = match base.strip_prefix("git-") {
                Some(sub) if !sub.is_empty() => vec!["git".into(), sub.into()],
                _ => vec![base.to_string()],
            };
            words.extend(self.args.iter().cloned());
            let line = shell_words::join(words);
            if !out.contains(&line) {
                out.push(line);
            }
        }
        out
    }
}

/// The command Ghostlab issued (what follows the watch shim's `--`) and which of its hops
/// have been seen: the shim's exec of the whole command, then each tail a bridge execs
/// (`ghostlab __egress-bridge -- opencode run …` execs `opencode run …`).
///
/// A hop is matched by `argv[0]`, the arguments *and* the program's name, and each by one
/// process only: any process inside can read the issued command from /proc, so `exec -a <its
/// last word> /usr/bin/git` must not pass for a hop, nor may another process's copy of a real
/// one. The same process may try a hop again: a PATH search execs each folder in turn.
#[derive(Debug)]
pub(crate) struct IssuedHops {
    argv: Vec<String>,
    /// Per tail start: the process that made that hop.
    by: std::sync::Mutex<Vec<Option<u32>>>,
}

impl IssuedHops {
    pub(crate) fn new(argv: Vec<String>) -> IssuedHops {
        let by = std::sync::Mutex::new(vec![None; argv.len()]);
        IssuedHops { argv, by }
    }

    /// Whether process `pid` starting `c` is one of Ghostlab's hops.
    pub(crate) fn take(&self, pid: u32, c: &ObservedCommand) -> bool {
        let n = c.args.len() + 1;
        let Some(start) = self.argv.len().checked_sub(n) else {
            return false;
        };
        let tail = &self.argv[start..];
        let named = &tail[0];
        // An absolute name must be the very program; a bare one is found on PATH by the hop.
        let same_program = if named.starts_with('/') {
            c.program == *named
        } else {
            !named.contains('/') && c.program.rsplit('/').next() == Some(named.as_str())
        };
        if !(same_program && tail[0] == c.argv0 && tail[1..] == c.args[..]) {
            return false;
        }
        let mut by = self.by.lock().unwrap_or_else(|p| p.into_inner());
        *by[start].get_or_insert(pid) == pid
    }
}

/// The commands of one session, bounded.
#[derive(Debug, Clone, Default)]
pub struct CommandLog {
    pub kept: Vec<ObservedCommand>,
    /// Commands seen beyond [`MAX_COMMANDS`] or [`MAX_BYTES`] (or unreadable): not kept, so
    /// not checkable.
    pub(crate) missed: usize,
    /// Bytes of the kept commands.
    bytes: usize,
}

impl CommandLog {
    pub(crate) fn push(&mut self, c: Option<ObservedCommand>) {
        let Some(c) = c else {
            self.missed += 1;
            return;
        };
        let size = c.program.len() + c.argv0.len() + c.args.iter().map(String::len).sum::<usize>();
        if self.kept.len() < MAX_COMMANDS && self.bytes + size <= MAX_BYTES {
            self.bytes += size;
            self.kept.push(c);
        } else {
            self.missed += 1;
        }
    }
}

/// Reads the command of an `execve(path, argv, envp)` or `execveat(dirfd, path, argv, …)`,
/// and whether it was cut at a bound (more arguments, a longer string, an fexecve whose file
/// could not be named): then what ran is not wholly known, and it counts as missed too.
pub(crate) fn read(req: &libc::seccomp_notif) -> Result<(ObservedCommand, bool), ReadError> {
    let (path, argv) = if i64::from(req.data.nr) == libc::SYS_execveat {
        (req.data.args[1], req.data.args[2])
    } else {
        (req.data.args[0], req.data.args[1])
    };
    let unread = |e: std::io::Error| ReadError::of(req.pid, &e);
    let mem = watch_memory::open(req.pid)?;
    let program = watch_memory::read_c_string(&mem, path).map_err(unread)?;
    let (mut name, mut cut) = (program.value, program.cut);
    // `execveat(fd, "", …, AT_EMPTY_PATH)` (fexecve) runs the open file itself.
    if name.is_empty() && i64::from(req.data.nr) == libc::SYS_execveat {
        let fd = req.data.args[0] as i32;
        match std::fs::read_link(format!("/proc/{}/fd/{fd}", req.pid)) {
            Ok(p) => name = p.to_string_lossy().into_owned(),
            Err(_) => cut = true,
        }
    }
    let argv = watch_memory::read_string_array(&mem, argv).map_err(unread)?;
    let mut args = argv.value;
    let argv0 = if args.is_empty() { String::new() } else { args.remove(0) };
    let command = ObservedCommand {
        program: name,
        argv0,
        args,
        time: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
    };
    Ok((command, cut || argv.cut))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(program: &str, args: &[&str]) -> ObservedCommand {
        ObservedCommand {
            program: program.into(),
            argv0: program.rsplit('/').next().unwrap_or(program).into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            time: String::new(),
        }
    }

    #[test]
    fn lines_name_the_program_by_its_path_and_by_argv0_with_git_subcommands_split() {
        assert_eq!(
            cmd("/usr/bin/git", &["push", "origin main"]).lines(),
            ["git push 'origin main'"]
        );
        let disguised = ObservedCommand {
            argv0: "ls".into(),
            ..cmd("/usr/bin/git", &["push"])
        };
        assert_eq!(disguised.lines(), ["git push", "ls push"]);
        let dispatched = ObservedCommand {
            argv0: "git-push".into(),
            ..cmd("/usr/bin/git", &["origin", "main"])
        };
        assert_eq!(dispatched.lines(), ["git origin main", "git push origin main"]);
        assert_eq!(
            cmd("/usr/lib/git-core/git-push", &["origin"]).lines(),
            ["git push origin"]
        );
    }

    #[test]
    fn only_a_tail_of_what_ghostlab_issued_is_its_own_hop_and_only_once() {
        let issued: Vec<String> = ["/g/ghostlab", "__egress-bridge", "--", "opencode", "run", "push it"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let hops = IssuedHops::new(issued);
        let whole = ObservedCommand {
            argv0: "/g/ghostlab".into(),
            ..cmd("/g/ghostlab", &["__egress-bridge", "--", "opencode", "run", "push it"])
        };
        let hop = ObservedCommand {
            argv0: "opencode".into(),
            ..cmd("/x/opencode", &["run", "push it"])
        };
        assert!(hops.take(10, &whole));
        assert!(hops.take(10, &hop), "the bridge execs in its own process");
        let tried = ObservedCommand {
            program: "/usr/local/bin/opencode".into(),
            ..hop.clone()
        };
        assert!(hops.take(10, &tried), "a PATH search tries each folder");
        assert!(!hops.take(11, &hop), "another process's copy of a hop is the agent's");
        let fresh = || IssuedHops::new(hops.argv.clone());
        let agent = ObservedCommand {
            argv0: "git".into(),
            ..cmd("/usr/bin/git", &["push"])
        };
        assert!(!fresh().take(10, &agent));
        let altered = ObservedCommand {
            argv0: "opencode".into(),
            ..cmd("/x/opencode", &["run", "push it", "--extra"])
        };
        assert!(!fresh().take(10, &altered));
        // Any program under the last word (read from /proc) or a hop's argv is not a hop.
        let disguised_last = ObservedCommand {
            argv0: "push it".into(),
            ..cmd("/usr/bin/git", &[])
        };
        assert!(!fresh().take(10, &disguised_last));
        let disguised_hop = ObservedCommand {
            argv0: "opencode".into(),
            ..cmd("/usr/bin/git", &["run", "push it"])
        };
        assert!(!fresh().take(10, &disguised_hop));
        let other_ghostlab = ObservedCommand {
            argv0: "/g/ghostlab".into(),
            ..cmd(
                "/tmp/ghostlab",
                &["__egress-bridge", "--", "opencode", "run", "push it"],
            )
        };
        assert!(
            !fresh().take(10, &other_ghostlab),
            "an absolute name must be that very program"
        );
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
        let mut big = CommandLog::default();
        let huge = "x".repeat(256 << 10);
        for _ in 0..10 {
            big.push(Some(cmd("/bin/echo", &[&huge])));
        }
        assert_eq!(big.kept.len(), 7, "2 MiB of 256 KiB command lines");
        assert_eq!(big.missed, 3);
    }
}
