//! Which host paths a sandbox shows, and how: the job's own inputs are staged (copied into the
//! session, readable by the sandbox user, so a job in a private folder still works), while
//! runtimes (an MCP server's package, the agent host's package) are bound read-only from the
//! host because they are large and shared.
//!
//! In `isolated` mode this is also what decides whether a command can start at all: a program
//! that is neither part of the system runtime nor a declared runtime does not exist inside.

use std::path::{Path, PathBuf};

/// Host folders that form the system runtime every isolated sandbox shows (read-only).
pub(crate) const SYSTEM_RUNTIME: &[&str] = &["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/// PATH inside the sandbox, the one commands are resolved against.
pub(crate) const SANDBOX_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// Whether `path` lies in the system runtime (visible in every mode).
pub(crate) fn in_system_runtime(path: &Path) -> bool {
    SYSTEM_RUNTIME.iter().any(|s| path.starts_with(s))
}

/// The outermost `node_modules` folder above `path`, if any.
pub(crate) fn topmost_node_modules(path: &Path) -> Option<PathBuf> {
    path.ancestors()
        .filter(|a| a.file_name().is_some_and(|n| n == "node_modules"))
        .last()
        .map(Path::to_path_buf)
}

/// Splits read-only paths into (staged inputs, bound runtimes). A path inside a
/// `node_modules` tree or the system runtime is a runtime; anything else is the job's own
/// input and is copied. Staged paths inside another staged folder are dropped (the folder's
/// copy holds them).
pub(crate) fn partition(paths: Vec<PathBuf>) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let (mut runtimes, mut staged): (Vec<PathBuf>, Vec<PathBuf>) = paths.into_iter().partition(|p| {
        let real = p.canonicalize().unwrap_or_else(|_| p.clone());
        in_system_runtime(&real) || topmost_node_modules(&real).is_some()
    });
    staged.sort();
    staged.dedup();
    let all = staged.clone();
    staged.retain(|p| !all.iter().any(|o| o != p && p.starts_with(o)));
    runtimes.sort();
    runtimes.dedup();
    (staged, runtimes)
}

/// Resolves a program name the way the sandbox will: an absolute path as is, a bare name
/// against [`SANDBOX_PATH`] on the host (the sandbox shows the same /usr). Returns the real
/// path of the executable.
pub(crate) fn resolve_program(program: &str) -> Option<PathBuf> {
    let p = Path::new(program);
    let found = if p.is_absolute() {
        p.is_file().then(|| p.to_path_buf())
    } else if program.contains('/') {
        None
    } else {
        SANDBOX_PATH
            .split(':')
            .map(|d| Path::new(d).join(program))
            .find(|c| c.is_file())
    }?;
    Some(found.canonicalize().unwrap_or(found))
}

/// The folder a program belongs to: its topmost `node_modules`, else the folder above its
/// `bin/`, else its own folder.
pub(crate) fn package_folder(exe: &Path) -> Option<PathBuf> {
    if let Some(nm) = topmost_node_modules(exe) {
        return Some(nm);
    }
    let parent = exe.parent()?;
    if parent.file_name().is_some_and(|n| n == "bin") {
        return parent.parent().map(Path::to_path_buf);
    }
    Some(parent.to_path_buf())
}

/// Why a command cannot run in the isolated sandbox; each names the command.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ProgramNotShown {
    #[error(
        "command `{program}` cannot be resolved: not an existing absolute path and not on the sandbox PATH ({SANDBOX_PATH})"
    )]
    Unresolved { program: String },
    /// `exe` is where `program` resolves on the host.
    #[error(
        "command `{program}` resolves to {}, which the isolated sandbox does not show (only /usr, the declared \
         runtimes and staged inputs exist); name it as an MCP server command or agent host so its package is \
         bound, or set `sandbox.root_filesystem: read_only`",
        exe.display()
    )]
    Hidden { program: String, exe: PathBuf },
}

/// In isolated mode: whether `program` exists inside, given the paths the sandbox shows.
/// The error says why not, so a server whose runtime is missing fails with that reason.
pub(crate) fn check_program(program: &str, visible: &[PathBuf]) -> Result<(), ProgramNotShown> {
    if program.starts_with("/sandbox/") || (!program.starts_with('/') && program.contains('/')) {
        // Inside the session's own folders or relative to the workdir: decided at exec time.
        return Ok(());
    }
    let Some(exe) = resolve_program(program) else {
        return Err(ProgramNotShown::Unresolved {
            program: program.to_string(),
        });
    };
    let shown = |p: &Path| {
        in_system_runtime(p)
            || visible.iter().any(|v| {
                let real = v.canonicalize().unwrap_or_else(|_| v.clone());
                p.starts_with(&real) || p.starts_with(v)
            })
    };
    let original = Path::new(program);
    if shown(&exe) || (original.is_absolute() && shown(original)) {
        Ok(())
    } else {
        Err(ProgramNotShown::Hidden {
            program: program.to_string(),
            exe,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_staged_and_packages_bound() {
        let (staged, bound) = partition(vec![
            PathBuf::from("/srv/job/AGENTS.md"),
            PathBuf::from("/srv/job/skills"),
            PathBuf::from("/srv/job/skills/a/SKILL.md"),
            PathBuf::from("/opt/tools/node_modules/pkg/dist/index.js"),
            PathBuf::from("/usr/lib/node_modules/x"),
        ]);
        assert_eq!(
            staged,
            vec![PathBuf::from("/srv/job/AGENTS.md"), PathBuf::from("/srv/job/skills")]
        );
        assert_eq!(bound.len(), 2);
    }

    #[test]
    fn programs_resolve_on_the_sandbox_path() {
        assert!(resolve_program("sh").is_some());
        assert!(resolve_program("definitely-not-a-program-ghostlab").is_none());
        assert!(check_program("sh", &[]).is_ok());
        let err = check_program("definitely-not-a-program-ghostlab", &[]).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "command `definitely-not-a-program-ghostlab` cannot be resolved: not an existing absolute path and not on the sandbox PATH ({SANDBOX_PATH})"
            )
        );
        let d = tempfile::tempdir().unwrap();
        let exe = d.path().join("bin/server");
        std::fs::create_dir_all(exe.parent().unwrap()).unwrap();
        std::fs::write(&exe, "#!/bin/sh\n").unwrap();
        let e = exe.to_string_lossy();
        let hidden = check_program(&e, &[]).unwrap_err();
        assert!(
            matches!(&hidden, ProgramNotShown::Hidden { exe: p, .. } if *p == exe),
            "{hidden:?}"
        );
        assert!(hidden.to_string().contains("does not show"), "{hidden}");
        assert!(check_program(&e, &[package_folder(&exe).unwrap()]).is_ok());
        assert_eq!(package_folder(&exe).unwrap(), d.path());
    }
}
