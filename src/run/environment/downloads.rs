//! `sandbox.download`: after each case, the declared paths are fetched from the environment
//! (OpenShell: `openshell sandbox download`; bubblewrap and local: a copy from the session's
//! folders) into the trial's `downloads/`, with a `downloads.json` saying what came back.
//!
//! The trial folder is an artifact boundary: text files are redacted like every artifact; a
//! binary file holding a secret, a symlink, or anything past the size bound is withheld and
//! listed as such. A missing path is recorded, not an error of the case: whether the agent
//! made a file is for the checks to judge.

use serde::Serialize;
use std::path::{Path, PathBuf};

use crate::redact::Redactor;
use crate::run::environment::case_environment::CaseEnvironment;
use crate::sandbox::bwrap::HOME_INSIDE;
use crate::spec::SandboxSpec;
use crate::spec::sandbox_download::{download_artifact_name, resolve_download};

/// The format of `downloads.json`.
pub(crate) const DOWNLOADS_VERSION: u32 = 1;
/// Largest total kept from one trial's downloads.
const KEEP_LIMIT: u64 = 32 << 20;

#[derive(Debug, Serialize)]
struct Manifest {
    version: u32,
    downloads: Vec<Record>,
}

#[derive(Debug, Serialize)]
struct Record {
    /// As written in job.yaml.
    path: String,
    /// The absolute path inside the sandbox.
    inside: String,
    /// Where it was kept, relative to the trial folder.
    #[serde(skip_serializing_if = "Option::is_none")]
    saved: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    /// Files not kept, and why (relative to `saved`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    withheld: Vec<String>,
}

/// The trial's downloads folder and manifest.
pub(crate) fn downloads_dir(trial: &Path) -> PathBuf {
    trial.join("downloads")
}
pub(crate) fn downloads_manifest(trial: &Path) -> PathBuf {
    trial.join("downloads.json")
}

/// Where `inside` (resolved under the job's `workdir`) is in this environment's own view:
/// the workspace and HOME are wherever the environment put them (the host for `local`).
fn in_view(env: &dyn CaseEnvironment, workdir: &str, inside: &str) -> String {
    let below = |root: &str| {
        inside
            .strip_prefix(root)
            .filter(|rest| rest.is_empty() || rest.starts_with('/'))
            .map(str::to_string)
    };
    if let Some(rest) = below(workdir.trim_end_matches('/')) {
        return format!("{}{rest}", env.workdir());
    }
    if let Some(rest) = below(HOME_INSIDE) {
        return format!("{}{rest}", env.home());
    }
    inside.to_string()
}

/// Fetches every `sandbox.download` path of `sb` into `trial`; nothing when none is declared.
pub(crate) async fn fetch_downloads(
    env: &dyn CaseEnvironment,
    sb: &SandboxSpec,
    trial: &Path,
    redactor: &Redactor,
) -> std::io::Result<()> {
    if sb.download.is_empty() {
        return Ok(());
    }
    let staging = tempfile::Builder::new().prefix("ghostlab-download-").tempdir()?;
    let mut budget = KEEP_LIMIT;
    let mut records = Vec::new();
    for (i, declared) in sb.download.iter().enumerate() {
        let mut rec = Record {
            path: declared.clone(),
            inside: String::new(),
            saved: None,
            error: None,
            withheld: Vec::new(),
        };
        match resolve_download(&sb.workdir, declared) {
            Err(why) => rec.error = Some(why.to_string()),
            Ok(inside) => {
                rec.inside = inside.clone();
                // A fresh name that does not exist yet: the download lands exactly there.
                let local = staging.path().join(i.to_string());
                match env.fetch(&in_view(env, &sb.workdir, &inside), &local).await {
                    Err(e) => rec.error = Some(e.to_string()),
                    Ok(()) => {
                        let name = download_artifact_name(&inside).to_string();
                        let dst = downloads_dir(trial).join(&name);
                        rec.withheld = keep(&local, &dst, redactor, &mut budget)?;
                        rec.saved = Some(format!("downloads/{name}"));
                    }
                }
            }
        }
        if let Some(e) = &rec.error {
            tracing::warn!("sandbox.download {declared}: {e}");
        }
        records.push(rec);
    }
    let mut value = serde_json::to_value(Manifest {
        version: DOWNLOADS_VERSION,
        downloads: records,
    })
    .map_err(std::io::Error::other)?;
    redactor.redact_value(&mut value);
    crate::util::write_json_atomic(&downloads_manifest(trial), &value)
}

/// Copies the fetched tree at `src` to `dst`: folders and regular files, text redacted.
/// Returns what was withheld and why.
fn keep(src: &Path, dst: &Path, redactor: &Redactor, budget: &mut u64) -> std::io::Result<Vec<String>> {
    let mut withheld = Vec::new();
    for e in walkdir::WalkDir::new(src).follow_links(false) {
        let e = e.map_err(std::io::Error::other)?;
        let rel = e.path().strip_prefix(src).unwrap_or(Path::new(""));
        let shown = if rel.as_os_str().is_empty() {
            ".".to_string()
        } else {
            rel.display().to_string()
        };
        let target = if rel.as_os_str().is_empty() {
            dst.to_path_buf()
        } else {
            dst.join(rel)
        };
        let kind = e.file_type();
        if kind.is_dir() {
            std::fs::create_dir_all(&target)?;
            continue;
        }
        if !kind.is_file() {
            withheld.push(format!("{shown}: not a regular file"));
            continue;
        }
        let len = e.metadata().map_err(std::io::Error::other)?.len();
        if len > *budget {
            withheld.push(format!("{shown}: over the {} MiB bound on downloads", KEEP_LIMIT >> 20));
            continue;
        }
        let bytes = crate::util::bounded::read_limited(e.path(), len)?;
        // Not text and holding a secret: withheld, since masking would corrupt it.
        let Some(kept) = redactor.redact_file_bytes(&bytes) else {
            withheld.push(format!("{shown}: not text, and holds a secret"));
            continue;
        };
        *budget -= len;
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&target, kept)?;
    }
    Ok(withheld)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_text_is_redacted_and_secret_binaries_and_links_are_withheld() {
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join("src");
        std::fs::create_dir_all(src.join("sub")).unwrap();
        std::fs::write(src.join("report.txt"), "token=canary-secret-value-1234 ok\n").unwrap();
        let mut binary = vec![0xffu8, 0xfe, 0x00];
        binary.extend_from_slice(b"canary-secret-value-1234");
        std::fs::write(src.join("sub/blob.bin"), &binary).unwrap();
        std::fs::write(src.join("sub/plain.bin"), [0xffu8, 0x01, 0x02]).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", src.join("link")).unwrap();
        let mut r = Redactor::new();
        r.add_secret("canary-secret-value-1234");
        let dst = tmp.path().join("dst");
        let mut budget = KEEP_LIMIT;
        let mut withheld = keep(&src, &dst, &r, &mut budget).unwrap();
        withheld.sort();
        assert_eq!(
            withheld,
            ["link: not a regular file", "sub/blob.bin: not text, and holds a secret"]
        );
        let report = std::fs::read_to_string(dst.join("report.txt")).unwrap();
        assert!(
            !report.contains("canary-secret") && report.ends_with(" ok\n"),
            "{report}"
        );
        assert_eq!(std::fs::read(dst.join("sub/plain.bin")).unwrap(), [0xff, 0x01, 0x02]);
        assert!(!dst.join("link").exists() && !dst.join("sub/blob.bin").exists());
        // A single file lands at the destination itself.
        let one = tmp.path().join("one.txt");
        keep(&src.join("report.txt"), &one, &r, &mut budget).unwrap();
        assert!(one.is_file());
        // Past the bound: withheld.
        let mut none = 3;
        let w = keep(&src.join("report.txt"), &tmp.path().join("two.txt"), &r, &mut none).unwrap();
        assert!(w[0].contains("over the"), "{w:?}");
    }

    #[test]
    fn the_workspace_and_home_map_to_the_environments_own_view() {
        let env = crate::run::environment::case_environment::LocalEnvironment::create(None).unwrap();
        let ws = env.workdir();
        assert_eq!(
            in_view(&env, "/sandbox/workspace", "/sandbox/workspace/out/a"),
            format!("{ws}/out/a")
        );
        assert_eq!(in_view(&env, "/sandbox/workspace/", "/sandbox/workspace"), ws);
        assert_eq!(
            in_view(&env, "/sandbox/workspace", "/sandbox/home/n.md"),
            format!("{}/n.md", env.home())
        );
        // Not a prefix match on a longer name; other paths pass through.
        assert_eq!(
            in_view(&env, "/sandbox/workspace", "/sandbox/workspace2/x"),
            "/sandbox/workspace2/x"
        );
    }
}
