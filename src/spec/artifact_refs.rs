//! `lab.artifacts` in job.yaml: the generated files the lab wrote (profile, personas,
//! scenarios, dataset), each by path (relative to the job's folder) and SHA-256 of its bytes,
//! so the job file alone identifies the lab's inputs. `record` refreshes the references when
//! the lab saves the job; `check` says which file changed or went missing since.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::Path;

use super::relative_path::resolve_against;

/// The keys of `lab.artifacts` and the files under the state folder they name.
pub(crate) const ARTIFACTS: [(&str, &str); 4] = [
    ("profile", "agent-profile.json"),
    ("personas", "personas.json"),
    ("scenarios", "scenarios.json"),
    ("dataset", "dataset.json"),
];

/// One generated file the lab wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ArtifactRef {
    /// The file, relative to the job's folder.
    pub path: String,
    /// SHA-256 of the file's bytes, lowercase hex.
    #[schemars(regex(pattern = r"^[0-9a-f]{64}$"))]
    pub sha256: String,
}

/// `lab.artifacts`: one optional reference per generated file.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LabArtifacts {
    /// agent-profile.json.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) profile: Option<ArtifactRef>,
    /// personas.json.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) personas: Option<ArtifactRef>,
    /// scenarios.json.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) scenarios: Option<ArtifactRef>,
    /// dataset.json.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) dataset: Option<ArtifactRef>,
}

impl LabArtifacts {
    pub(crate) fn is_empty(&self) -> bool {
        self.entries().is_empty()
    }

    /// The references present, by key, in `ARTIFACTS` order.
    pub fn entries(&self) -> Vec<(&'static str, &ArtifactRef)> {
        [
            ("profile", &self.profile),
            ("personas", &self.personas),
            ("scenarios", &self.scenarios),
            ("dataset", &self.dataset),
        ]
        .into_iter()
        .filter_map(|(k, r)| r.as_ref().map(|r| (k, r)))
        .collect()
    }

    fn slot(&mut self, key: &str) -> Option<&mut Option<ArtifactRef>> {
        match key {
            "profile" => Some(&mut self.profile),
            "personas" => Some(&mut self.personas),
            "scenarios" => Some(&mut self.scenarios),
            "dataset" => Some(&mut self.dataset),
            _ => None,
        }
    }
}

/// What is wrong with one reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ArtifactProblem {
    Missing {
        key: String,
        path: String,
    },
    Changed {
        key: String,
        path: String,
        recorded: String,
        now: String,
    },
}

impl ArtifactProblem {
    /// A missing file is something the lab writes again from its accepted answers; a changed
    /// one means the job no longer identifies what it ran with.
    pub(crate) fn is_error(&self) -> bool {
        matches!(self, ArtifactProblem::Changed { .. })
    }
}

impl std::fmt::Display for ArtifactProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArtifactProblem::Missing { key, path } => write!(
                f,
                "{path} (lab.artifacts.{key}) is missing; `ghostlab generate` (or the lab, resumed before its step 8) writes it again"
            ),
            ArtifactProblem::Changed {
                key,
                path,
                recorded,
                now,
            } => write!(
                f,
                "{path} (lab.artifacts.{key}) changed since the lab wrote it (sha256 {} recorded, {} now): \
                 restore it, or delete it so the lab writes it again (Ghostlab's own commands that rewrite it — \
                 `generate`, `profile`, `dataset` — record the new hash themselves)",
                &recorded[..recorded.len().min(12)],
                &now[..now.len().min(12)]
            ),
        }
    }
}

fn sha256_of(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    Some(format!("{:x}", Sha256::digest(&bytes)))
}

/// The path of `file` under the state folder, relative to the job's folder.
fn relative(state_dir: &str, file: &str) -> String {
    let dir = state_dir.trim_end_matches('/');
    if dir.is_empty() || dir == "." {
        file.to_string()
    } else {
        format!("{dir}/{file}")
    }
}

/// References to the generated files that exist now under `state_dir` (as job.yaml names
/// it), by key; a file that does not exist has none.
pub(crate) fn record(job_dir: &Path, state_dir: &str) -> LabArtifacts {
    let mut out = LabArtifacts::default();
    for (key, file) in ARTIFACTS {
        let path = relative(state_dir, file);
        let sha256 = sha256_of(&resolve_against(job_dir, &path));
        if let Some(slot) = out.slot(key) {
            *slot = sha256.map(|sha256| ArtifactRef { path, sha256 });
        }
    }
    out
}

/// Every reference whose file is missing or no longer has the recorded hash.
pub(crate) fn check(job_dir: &Path, refs: &LabArtifacts) -> Vec<ArtifactProblem> {
    refs.entries()
        .into_iter()
        .filter_map(|(key, r)| {
            let (key, path) = (key.to_string(), r.path.clone());
            match sha256_of(&resolve_against(job_dir, &r.path)) {
                None => Some(ArtifactProblem::Missing { key, path }),
                Some(now) if now != r.sha256 => Some(ArtifactProblem::Changed {
                    key,
                    path,
                    recorded: r.sha256.clone(),
                    now,
                }),
                Some(_) => None,
            }
        })
        .collect()
}

/// Generated files changed since the lab recorded them: one line each, naming job.yaml.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", .0.join("\n"))]
pub(crate) struct ChangedArtifacts(pub Vec<String>);

/// Checks job.yaml's `lab.artifacts` against the files: the warnings (missing files, which
/// the lab writes again), or one error naming every changed file, each line with job.yaml.
pub(crate) fn verify(job_file: &Path, artifacts: &LabArtifacts) -> Result<Vec<String>, ChangedArtifacts> {
    let problems = check(&super::load::job_dir(job_file), artifacts);
    let name = job_file.display();
    let (errors, warnings): (Vec<_>, Vec<_>) = problems.into_iter().partition(ArtifactProblem::is_error);
    let lines = |ps: Vec<ArtifactProblem>| ps.iter().map(|p| format!("{name}: {p}")).collect::<Vec<_>>();
    if errors.is_empty() {
        Ok(lines(warnings))
    } else {
        Err(ChangedArtifacts(lines(errors)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_name_each_file_and_catch_a_change_or_a_removal() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join(".ghostlab");
        std::fs::create_dir_all(&state).unwrap();
        std::fs::write(state.join("agent-profile.json"), "{}").unwrap();
        std::fs::write(state.join("dataset.json"), "{\"cases\":[]}").unwrap();
        let refs = record(dir.path(), ".ghostlab");
        let keys: Vec<&str> = refs.entries().iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, ["profile", "dataset"], "only files that exist");
        let profile = refs.profile.as_ref().unwrap();
        assert_eq!(profile.path, ".ghostlab/agent-profile.json");
        assert_eq!(
            profile.sha256,
            "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        );
        assert!(check(dir.path(), &refs).is_empty());

        std::fs::write(state.join("dataset.json"), "{\"cases\":[1]}").unwrap();
        std::fs::remove_file(state.join("agent-profile.json")).unwrap();
        let problems = check(dir.path(), &refs);
        assert_eq!(problems.len(), 2);
        assert!(!problems[0].is_error() && problems[1].is_error());
        assert_eq!(
            problems[0].to_string(),
            ".ghostlab/agent-profile.json (lab.artifacts.profile) is missing; `ghostlab generate` (or the lab, resumed before its step 8) writes it again"
        );
        let changed = problems[1].to_string();
        assert!(
            changed.starts_with(".ghostlab/dataset.json (lab.artifacts.dataset) changed since the lab wrote it"),
            "{changed}"
        );
        // A state folder given as `.` or with a trailing slash names files the same way.
        assert_eq!(relative("./", "x.json"), "x.json");
        assert_eq!(relative(".", "x.json"), "x.json");
        assert_eq!(relative("state/", "x.json"), "state/x.json");
    }
}
