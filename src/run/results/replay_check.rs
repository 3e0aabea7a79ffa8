//! Whether a stored run's inputs are still those it ran with: the manifest's fingerprints
//! compared with the files as they are now. `rescore`, `merge` and `report` say what changed,
//! and refuse with `--strict`: a run re-judged or reported over changed inputs is no longer a
//! replay of what ran (seed 003: never overstate replay).

use serde_json::Value;
use std::path::Path;

use crate::run::store::manifest::fingerprint_skipping;

/// One input whose fingerprint no longer matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct InputDrift {
    pub(crate) path: String,
    /// `changed` or `missing`.
    pub(crate) how: &'static str,
}

/// What a stored run's manifest says about its inputs now.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct ReplayCheck {
    pub(crate) drifted: Vec<InputDrift>,
    /// Why some inputs could not be compared (no manifest, relative paths of an older run).
    pub(crate) unchecked: Vec<String>,
}

impl ReplayCheck {
    pub(crate) fn is_clean(&self) -> bool {
        self.drifted.is_empty() && self.unchecked.is_empty()
    }

    /// One line for the terminal; empty when every input is as it was.
    pub(crate) fn summary(&self) -> String {
        let mut parts = Vec::new();
        if !self.drifted.is_empty() {
            let list: Vec<String> = self.drifted.iter().map(|d| format!("{} ({})", d.path, d.how)).collect();
            parts.push(format!("inputs changed since the run: {}", list.join(", ")));
        }
        if !self.unchecked.is_empty() {
            parts.push(format!("not compared: {}", self.unchecked.join("; ")));
        }
        parts.join("; ")
    }
}

/// Compares the fingerprints in `run`'s manifest (a merged run's shards too) with the inputs now.
/// `skip` are the job's own paths left out of folder fingerprints, as when the run was made.
pub(crate) fn check_run(run: &Path, skip: &[std::path::PathBuf]) -> ReplayCheck {
    let mut out = ReplayCheck::default();
    let manifest_path = run.join("manifest.json");
    let manifest: Value = match read_manifest(&manifest_path) {
        Ok(v) => v,
        Err(why) => {
            out.unchecked.push(why.to_string());
            return out;
        }
    };
    let mut manifests = vec![&manifest];
    if let Some(shards) = manifest.get("shards").and_then(Value::as_array) {
        manifests.extend(shards.iter());
    }
    for m in manifests {
        let Some(prints) = m.get("fingerprints").and_then(Value::as_object) else {
            continue;
        };
        for (path, recorded) in prints {
            let p = Path::new(path);
            if !p.is_absolute() {
                out.unchecked
                    .push(format!("{path} (recorded relative to an unknown folder)"));
                continue;
            }
            let now = fingerprint_skipping(p, skip);
            let how = match now {
                None => Some("missing"),
                Some(h) if Some(h.as_str()) != recorded.as_str() => Some("changed"),
                Some(_) => None,
            };
            if let Some(how) = how
                && !out.drifted.iter().any(|d| d.path == *path)
            {
                out.drifted.push(InputDrift {
                    path: path.clone(),
                    how,
                });
            }
        }
    }
    out
}

/// Why the manifest could not be read; each names the file.
#[derive(Debug, thiserror::Error)]
enum ManifestError {
    #[error(transparent)]
    Read(#[from] crate::util::bounded::BoundedError),
    #[error("{}: not JSON: {source}", path.display())]
    NotJson {
        path: std::path::PathBuf,
        #[source]
        source: serde_json::Error,
    },
}

/// The manifest as JSON, through the shared bounded reader (a FIFO is refused, not waited on).
fn read_manifest(path: &Path) -> Result<Value, ManifestError> {
    let text = crate::util::bounded::read_bounded_string(path, crate::util::bounded::FileKind::State)?;
    serde_json::from_str(&text).map_err(|source| ManifestError::NotJson {
        path: path.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_with(dir: &Path, prints: Value) -> std::path::PathBuf {
        let run = dir.join("run");
        std::fs::create_dir_all(&run).unwrap();
        std::fs::write(
            run.join("manifest.json"),
            serde_json::json!({"version": 1, "fingerprints": prints}).to_string(),
        )
        .unwrap();
        run
    }

    #[test]
    fn changed_missing_and_unchanged_inputs_are_told_apart() {
        let d = tempfile::tempdir().unwrap();
        let (same, edited, gone) = (
            d.path().join("same.md"),
            d.path().join("edited.md"),
            d.path().join("gone.md"),
        );
        for f in [&same, &edited, &gone] {
            std::fs::write(f, "v1").unwrap();
        }
        let fp = |p: &Path| fingerprint_skipping(p, &[]).unwrap();
        let run = run_with(
            d.path(),
            serde_json::json!({
                same.to_str().unwrap(): fp(&same), edited.to_str().unwrap(): fp(&edited), gone.to_str().unwrap(): fp(&gone),
            }),
        );
        assert!(check_run(&run, &[]).is_clean());
        std::fs::write(&edited, "v2").unwrap();
        std::fs::remove_file(&gone).unwrap();
        let check = check_run(&run, &[]);
        let hows: Vec<(&str, &str)> = check
            .drifted
            .iter()
            .map(|d| (d.path.rsplit('/').next().unwrap(), d.how))
            .collect();
        assert_eq!(hows, [("edited.md", "changed"), ("gone.md", "missing")]);
        assert!(check.summary().contains("edited.md (changed)"), "{}", check.summary());
    }

    #[test]
    fn what_cannot_be_compared_is_said_not_passed_over() {
        let d = tempfile::tempdir().unwrap();
        let run = run_with(d.path(), serde_json::json!({"job.yaml": "00"}));
        let check = check_run(&run, &[]);
        assert!(!check.is_clean() && check.drifted.is_empty());
        assert!(check.summary().contains("recorded relative"), "{}", check.summary());
        let none = d.path().join("empty");
        std::fs::create_dir_all(&none).unwrap();
        assert!(check_run(&none, &[]).summary().contains("manifest.json"));
    }

    #[test]
    fn an_unreadable_manifest_is_named_with_its_reason() {
        let d = tempfile::tempdir().unwrap();
        let manifest = d.path().join("manifest.json");
        let missing = check_run(d.path(), &[]);
        assert_eq!(missing.unchecked.len(), 1);
        assert!(
            missing.unchecked[0].starts_with(&format!("{}: cannot read the file: ", manifest.display())),
            "{:?}",
            missing.unchecked
        );
        std::fs::write(&manifest, "{ not json").unwrap();
        let garbled = check_run(d.path(), &[]);
        assert!(
            garbled.unchecked[0].starts_with(&format!("{}: not JSON: ", manifest.display())),
            "{:?}",
            garbled.unchecked
        );
        let e = read_manifest(&manifest).unwrap_err();
        assert!(
            std::error::Error::source(&e).is_some_and(|s| s.is::<serde_json::Error>()),
            "{e:?}"
        );
    }
}
