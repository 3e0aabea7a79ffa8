//! `sandbox.download`: paths brought back from the sandbox after each case. One rule for
//! validation and for the run, so a path that validated is the path that is fetched.

use std::path::{Component, Path};

/// The folder every sandbox path lives under.
pub(crate) const SANDBOX_ROOT: &str = "/sandbox";

/// Why a `sandbox.download` entry names no path Ghostlab may fetch. The words follow the job
/// key that holds the entry (`job.yaml: sandbox.download[0]: …`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum DownloadPathError {
    #[error("is empty; name a file or folder inside the sandbox")]
    Empty,
    /// `floor`: what `..` left, `/` (an absolute entry) or `the workspace` (a relative one).
    #[error("`{declared}` leaves {floor} through `..`")]
    Escapes { declared: String, floor: &'static str },
    #[error(
        "`{declared}` (resolved: {resolved}) is not under {}/; downloads come from inside the sandbox",
        SANDBOX_ROOT
    )]
    OutsideSandbox { declared: String, resolved: String },
}

/// The absolute path inside the sandbox that `declared` names: relative paths are taken from
/// `workdir`; `..` may not leave the workspace (relative) or /sandbox (absolute), and /sandbox
/// itself is not a download.
pub(crate) fn resolve_download(workdir: &str, declared: &str) -> Result<String, DownloadPathError> {
    if declared.trim().is_empty() {
        return Err(DownloadPathError::Empty);
    }
    let (base, rest, floor) = match declared.strip_prefix('/') {
        Some(abs) => (SANDBOX_ROOT.to_string(), abs.to_string(), 1),
        None => (workdir.trim_end_matches('/').to_string(), declared.to_string(), 0),
    };
    // Components below `base`; an absolute path starts at /, so its first one must be `sandbox`.
    let mut parts: Vec<String> = Vec::new();
    if floor == 1 {
        parts.push(String::new());
    }
    for c in Path::new(&rest).components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if parts.len() <= floor {
                    return Err(DownloadPathError::Escapes {
                        declared: declared.to_string(),
                        floor: if floor == 1 { "/" } else { "the workspace" },
                    });
                }
                parts.pop();
            }
            Component::Normal(n) => parts.push(n.to_string_lossy().into_owned()),
            Component::RootDir | Component::Prefix(_) => {}
        }
    }
    let resolved = if floor == 1 {
        format!("/{}", parts[1..].join("/"))
    } else if parts.is_empty() {
        base.clone()
    } else {
        format!("{base}/{}", parts.join("/"))
    };
    if !resolved.starts_with(&format!("{SANDBOX_ROOT}/")) {
        return Err(DownloadPathError::OutsideSandbox {
            declared: declared.to_string(),
            resolved,
        });
    }
    Ok(resolved)
}

/// Where a resolved download lands below the trial's `downloads/` folder: its path below
/// /sandbox (`/sandbox/workspace/out/a.txt` → `workspace/out/a.txt`).
pub(crate) fn download_artifact_name(resolved: &str) -> &str {
    resolved
        .strip_prefix(SANDBOX_ROOT)
        .unwrap_or(resolved)
        .trim_start_matches('/')
}

#[cfg(test)]
mod tests {
    use super::*;

    const WD: &str = "/sandbox/workspace";

    #[test]
    fn relative_paths_are_taken_from_the_workdir() {
        assert_eq!(
            resolve_download(WD, "out/report.txt").unwrap(),
            "/sandbox/workspace/out/report.txt"
        );
        assert_eq!(
            resolve_download(WD, "./a/../b.txt").unwrap(),
            "/sandbox/workspace/b.txt"
        );
        assert_eq!(resolve_download(WD, "dist/").unwrap(), "/sandbox/workspace/dist");
    }

    #[test]
    fn absolute_paths_stay_under_sandbox() {
        assert_eq!(
            resolve_download(WD, "/sandbox/home/notes.md").unwrap(),
            "/sandbox/home/notes.md"
        );
        assert_eq!(
            resolve_download(WD, "/sandbox/workspace/../uploads/x").unwrap(),
            "/sandbox/uploads/x"
        );
        assert_eq!(
            download_artifact_name("/sandbox/workspace/out/a.txt"),
            "workspace/out/a.txt"
        );
    }

    #[test]
    fn escapes_and_outside_paths_are_refused_with_the_reason() {
        for (p, why) in [
            ("../secret", "leaves the workspace"),
            ("a/../../x", "leaves the workspace"),
            (
                "/sandbox/../etc/passwd",
                "(resolved: /etc/passwd) is not under /sandbox/",
            ),
            ("/../sandbox/x", "leaves / through"),
            ("/etc/passwd", "is not under /sandbox/"),
            ("/sandbox", "is not under /sandbox/"),
            ("/sandbox/", "is not under /sandbox/"),
            ("", "is empty"),
            ("  ", "is empty"),
        ] {
            let e = resolve_download(WD, p).unwrap_err().to_string();
            assert!(e.contains(why), "{p:?}: {e}");
        }
        // `.` is the workspace itself: a folder under /sandbox, allowed.
        assert_eq!(resolve_download(WD, ".").unwrap(), WD);
    }

    #[test]
    fn each_refusal_is_its_own_kind_carrying_the_declared_path() {
        assert_eq!(resolve_download(WD, "\t"), Err(DownloadPathError::Empty));
        assert_eq!(
            resolve_download("/sandbox/workspace/", "../../.."),
            Err(DownloadPathError::Escapes {
                declared: "../../..".into(),
                floor: "the workspace"
            })
        );
        assert_eq!(
            resolve_download(WD, "/sandbox/./.."),
            Err(DownloadPathError::OutsideSandbox {
                declared: "/sandbox/./..".into(),
                resolved: "/".into()
            })
        );
    }
}
