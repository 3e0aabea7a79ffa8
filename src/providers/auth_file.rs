//! The user's OpenCode login file (`$XDG_DATA_HOME/opencode/auth.json`), read only with
//! `sandbox.credentials.opencode_auth: true`, cut down to the providers the job uses, and
//! staged into one session's HOME as a private file that is removed when the session ends.
//!
//! The values live in memory and in that one file; `Debug` shows provider names only, and every
//! value is handed to the redactor.

use serde_json::{Map, Value};
use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::error::{ProviderError, StageError};

/// Where OpenCode keeps its data below a HOME whose XDG folders follow the defaults.
pub(crate) const DATA_DIR_IN_HOME: &str = ".local/share/opencode";

/// Login entries by provider id.
#[derive(Clone)]
pub(crate) struct AuthFile {
    source: PathBuf,
    exists: bool,
    entries: Map<String, Value>,
}

impl std::fmt::Debug for AuthFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthFile")
            .field("source", &self.source)
            .field("providers", &self.providers())
            .finish()
    }
}

/// The user's OpenCode data folder: `$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode`.
pub(crate) fn user_data_dir() -> Option<PathBuf> {
    if let Some(x) = std::env::var_os("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(x).join("opencode"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(DATA_DIR_IN_HOME))
}

impl AuthFile {
    /// Reads the user's login file; a missing file is an empty one (the credential check then
    /// says so). A file that cannot be read or parsed is an error naming it, never its content.
    pub(crate) fn load_user() -> Result<AuthFile, ProviderError> {
        let dir = user_data_dir().ok_or(ProviderError::NoDataDir)?;
        Self::load(&dir.join("auth.json"))
    }

    /// Reads `path` (see [`AuthFile::load_user`]).
    pub(crate) fn load(path: &Path) -> Result<AuthFile, ProviderError> {
        let text = match crate::util::bounded::read_bounded_string(path, crate::util::bounded::FileKind::Config) {
            Ok(t) => t,
            Err(e) if e.is_not_found() => {
                return Ok(AuthFile {
                    source: path.to_path_buf(),
                    exists: false,
                    entries: Map::new(),
                });
            }
            Err(e) => {
                return Err(ProviderError::AuthUnreadable {
                    path: path.to_path_buf(),
                    reason: e.reason(),
                });
            }
        };
        let entries = match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(m)) => m,
            Ok(_) => {
                return Err(ProviderError::AuthNotObject {
                    path: path.to_path_buf(),
                });
            }
            // The parser's message names a line and column, never the content.
            Err(source) => {
                return Err(ProviderError::AuthNotJson {
                    path: path.to_path_buf(),
                    source,
                });
            }
        };
        Ok(AuthFile {
            source: path.to_path_buf(),
            exists: true,
            entries,
        })
    }

    /// Where it was read from.
    pub(crate) fn source(&self) -> String {
        self.source.display().to_string()
    }

    /// Whether the file was missing (as opposed to lacking an entry).
    pub(crate) fn is_empty_source(&self) -> bool {
        !self.exists
    }

    pub(crate) fn has(&self, provider: &str) -> bool {
        self.entries.contains_key(provider)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Provider ids with an entry.
    pub(crate) fn providers(&self) -> Vec<String> {
        self.entries.keys().cloned().collect()
    }

    /// Only the entries of these providers.
    pub(crate) fn only(&self, providers: &[&str]) -> AuthFile {
        AuthFile {
            source: self.source.clone(),
            exists: self.exists,
            entries: self
                .entries
                .iter()
                .filter(|(k, _)| providers.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        }
    }

    /// Every value that could be secret (all strings but the entry kind), for the redactor.
    pub(crate) fn secrets(&self) -> Vec<String> {
        fn walk(v: &Value, key: &str, out: &mut Vec<String>) {
            match v {
                Value::String(s) if key != "type" => out.push(s.clone()),
                Value::Object(m) => m.iter().for_each(|(k, v)| walk(v, k, out)),
                Value::Array(a) => a.iter().for_each(|v| walk(v, key, out)),
                _ => {}
            }
        }
        let mut out = Vec::new();
        for v in self.entries.values() {
            walk(v, "", &mut out);
        }
        out
    }

    /// Writes the entries to `<home>/.local/share/opencode/auth.json`, mode 0600, owned (like
    /// the folders it creates) by whoever owns `home` — the sandbox user when ghostlab runs as
    /// root. The returned guard removes the file.
    pub(crate) fn stage(&self, home: &Path) -> Result<StagedAuth, StageError> {
        let owner = std::fs::metadata(home)
            .map(|m| (m.uid(), m.gid()))
            .map_err(|source| StageError::Home {
                home: home.to_path_buf(),
                source,
            })?;
        let err = |step: &'static str, path: &Path| {
            let path = path.to_path_buf();
            move |source: std::io::Error| StageError::Step { step, path, source }
        };
        let mut dir = home.to_path_buf();
        for part in DATA_DIR_IN_HOME.split('/') {
            dir.push(part);
            if !dir.exists() {
                std::fs::create_dir(&dir).map_err(err("folder", &dir))?;
                give(&dir, owner).map_err(err("folder owner", &dir))?;
            }
        }
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).map_err(err("folder mode", &dir))?;
        let path = dir.join("auth.json");
        let tmp = dir.join(format!(".auth.json.{:08x}", rand::random::<u32>()));
        let body = serde_json::to_vec(&Value::Object(self.entries.clone()))
            .map_err(|e| err("encode", &path)(std::io::Error::from(e)))?;
        let write = || -> std::io::Result<()> {
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&tmp)?;
            f.write_all(&body)?;
            f.sync_all()?;
            give(&tmp, owner)?;
            std::fs::rename(&tmp, &path)
        };
        if let Err(e) = write() {
            let _ = std::fs::remove_file(&tmp);
            return Err(err("write", &path)(e));
        }
        Ok(StagedAuth { path })
    }
}

/// Hands `path` to `owner` when this process may (as root); otherwise it already is ours.
fn give(path: &Path, (uid, gid): (u32, u32)) -> std::io::Result<()> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        std::os::unix::fs::lchown(path, Some(uid), Some(gid))?;
    }
    Ok(())
}

/// A staged login file; removed on [`StagedAuth::remove`] or drop.
#[derive(Debug)]
pub(crate) struct StagedAuth {
    path: PathBuf,
}

impl StagedAuth {
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the file; true when it is gone. Its folders are the agent's (HOME is the
    /// session's): the file is reached from HOME without following a link on the way, so a
    /// folder the agent replaced by a link to the user's own OpenCode folder (Ghostlab as root
    /// would delete the user's real login) is refused and reported as not removed.
    pub(crate) fn remove(&self) -> bool {
        let rel = Path::new(DATA_DIR_IN_HOME).join("auth.json");
        let Some(home) = self.path.ancestors().nth(rel.components().count()) else {
            return false;
        };
        match crate::sandbox::beneath::unlink_beneath(home, &rel) {
            Ok(()) => true,
            Err(e) => e.kind() == std::io::ErrorKind::NotFound,
        }
    }
}

impl Drop for StagedAuth {
    fn drop(&mut self) {
        self.remove();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(dir: &Path) -> AuthFile {
        let p = dir.join("auth.json");
        std::fs::write(
            &p,
            r#"{"anthropic":{"type":"api","key":"sk-ant-secret-123456"},"openai":{"type":"oauth","access":"acc-987654","refresh":"ref-555555"}}"#,
        )
        .unwrap();
        AuthFile::load(&p).unwrap()
    }

    #[test]
    fn filters_lists_and_never_debug_prints_values() {
        let tmp = tempfile::tempdir().unwrap();
        let a = sample(tmp.path());
        assert!(a.has("anthropic") && a.has("openai"));
        let only = a.only(&["anthropic", "groq"]);
        assert_eq!(only.providers(), ["anthropic"]);
        assert_eq!(only.secrets(), ["sk-ant-secret-123456"]);
        let mut all = a.secrets();
        all.sort();
        assert_eq!(all, ["acc-987654", "ref-555555", "sk-ant-secret-123456"]);
        assert!(!format!("{a:?}").contains("secret"));
    }

    #[test]
    fn missing_is_empty_and_garbage_is_an_error_without_content() {
        let tmp = tempfile::tempdir().unwrap();
        let a = AuthFile::load(&tmp.path().join("none.json")).unwrap();
        assert!(a.is_empty() && a.is_empty_source());
        let bad = tmp.path().join("bad.json");
        std::fs::write(&bad, "{\"anthropic\": sk-leaked-value").unwrap();
        let e = AuthFile::load(&bad).unwrap_err();
        assert!(matches!(e, ProviderError::AuthNotJson { .. }));
        let e = e.to_string();
        assert!(e.contains("not valid JSON") && !e.contains("sk-leaked"), "{e}");
        std::fs::write(&bad, "[1, 2]").unwrap();
        let e = AuthFile::load(&bad).unwrap_err().to_string();
        assert!(e.ends_with("OpenCode's login file is not a JSON object"), "{e}");
    }

    #[test]
    fn staged_file_is_private_and_removed() {
        let tmp = tempfile::tempdir().unwrap();
        let a = sample(tmp.path()).only(&["anthropic"]);
        let home = tmp.path().join("home");
        std::fs::create_dir(&home).unwrap();
        let staged = a.stage(&home).unwrap();
        let path = home.join(".local/share/opencode/auth.json");
        assert_eq!(staged.path(), path);
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("sk-ant-secret-123456") && !text.contains("openai"));
        drop(staged);
        assert!(!path.exists());
    }

    #[test]
    fn removal_never_follows_a_folder_the_agent_linked_elsewhere() {
        let tmp = tempfile::tempdir().unwrap();
        let a = sample(tmp.path()).only(&["anthropic"]);
        // The user's real OpenCode folder, which a root Ghostlab could reach.
        let user = tmp.path().join("user-data");
        std::fs::create_dir_all(user.join("share/opencode")).unwrap();
        std::fs::write(user.join("share/opencode/auth.json"), "USER-LOGIN").unwrap();
        let targets = [
            (".local/share/opencode", user.join("share/opencode")),
            (".local/share", user.join("share")),
            (".local", user.clone()),
        ];
        for (linked, target) in targets {
            let home = tmp.path().join(format!("home-{}", linked.replace('/', "-")));
            std::fs::create_dir(&home).unwrap();
            let staged = a.stage(&home).unwrap();
            // The agent's turn: the folder removed and replaced by a link to the user's.
            std::fs::remove_dir_all(home.join(linked)).unwrap();
            std::os::unix::fs::symlink(&target, home.join(linked)).unwrap();
            assert!(!staged.remove(), "{linked}: reported removed through a link");
            drop(staged);
            assert_eq!(
                std::fs::read_to_string(user.join("share/opencode/auth.json")).unwrap(),
                "USER-LOGIN",
                "{linked}: the user's login was deleted through the agent's link"
            );
        }
        // A staged file the agent already deleted is gone.
        let home = tmp.path().join("home-plain");
        std::fs::create_dir(&home).unwrap();
        let staged = a.stage(&home).unwrap();
        std::fs::remove_file(staged.path()).unwrap();
        assert!(staged.remove());
    }

    #[test]
    fn a_stage_that_cannot_write_names_the_step_and_the_path() {
        let tmp = tempfile::tempdir().unwrap();
        let a = sample(tmp.path()).only(&["anthropic"]);
        let missing = tmp.path().join("no-home");
        let e = a.stage(&missing).unwrap_err();
        assert!(matches!(&e, StageError::Home { home, .. } if home == &missing), "{e:?}");
        assert!(e.to_string().starts_with(&format!("{}: ", missing.display())), "{e}");
        // `.local` is a file, so the folder below it cannot be made.
        let home = tmp.path().join("home");
        std::fs::create_dir(&home).unwrap();
        std::fs::write(home.join(".local"), "").unwrap();
        let e = a.stage(&home).unwrap_err();
        let StageError::Step { step, path, .. } = &e else {
            panic!("{e:?}")
        };
        assert_eq!((*step, path.as_path()), ("folder", home.join(".local/share").as_path()));
        assert!(std::error::Error::source(&e).is_some());
        assert!(!e.to_string().contains("sk-ant"), "{e}");
    }
}
