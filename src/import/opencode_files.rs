//! Finding and reading an OpenCode project's config files the way OpenCode 1.18.33 does.
//!
//! In a project folder OpenCode reads, in this order, each that exists: `opencode.json`,
//! `opencode.jsonc`, `.opencode/opencode.json`, `.opencode/opencode.jsonc`; later files
//! override earlier ones key by key, except `instructions` and `plugin`, which are
//! concatenated. `{file:…}` resolves against the folder of the file that holds it.

use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

use crate::spec::diagnostics::{Diagnostic, SpecError, diag, join};
use crate::spec::file_refs::{expand_home, file_refs, map_file_refs, mentions_file_ref};
use crate::spec::jsonc::read_jsonc_document;
use crate::spec::path_policy::is_system_path;
use crate::spec::relative_path::normalize;

/// Where a project's configuration lives.
#[derive(Debug, Clone)]
pub(crate) struct Project {
    /// The project root: the folder given (or the one holding `.opencode/`).
    pub(crate) root: PathBuf,
    /// `<root>/.opencode`.
    pub(crate) dot: PathBuf,
    /// Config files in the order OpenCode merges them.
    pub(crate) configs: Vec<PathBuf>,
}

/// The rules files OpenCode reads by itself, in order (the first found wins).
pub(crate) const RULES_FILES: &[&str] = &["AGENTS.md", "CLAUDE.md", "CONTEXT.md"];

/// Locates a project from a folder, its `.opencode` folder, or one of its config files.
pub(crate) fn locate(source: &Path) -> Result<Project, SpecError> {
    let abs = std::path::absolute(source).unwrap_or_else(|_| source.to_path_buf());
    if abs.is_file() {
        let parent = abs.parent().unwrap_or(Path::new("/")).to_path_buf();
        let root = if parent.file_name().is_some_and(|n| n == ".opencode") {
            parent.parent().unwrap_or(&parent).to_path_buf()
        } else {
            parent
        };
        return Ok(Project {
            dot: root.join(".opencode"),
            root,
            configs: vec![abs],
        });
    }
    let root = if abs.file_name().is_some_and(|n| n == ".opencode") {
        abs.parent().unwrap_or(&abs).to_path_buf()
    } else {
        abs
    };
    let dot = root.join(".opencode");
    let configs: Vec<PathBuf> = [
        root.join("opencode.json"),
        root.join("opencode.jsonc"),
        dot.join("opencode.json"),
        dot.join("opencode.jsonc"),
    ]
    .into_iter()
    .filter(|p| p.is_file())
    .collect();
    // OpenCode runs in a folder with only a rules file (a Claude Code project's CLAUDE.md):
    // its defaults plus those rules are the agent.
    let rules = RULES_FILES.iter().any(|f| root.join(f).is_file());
    if configs.is_empty() && !dot.is_dir() && !rules {
        return Err(SpecError::one(
            &root,
            "",
            "not an agent project: no opencode.json, opencode.jsonc, .opencode/ folder, AGENTS.md or CLAUDE.md here",
        ));
    }
    Ok(Project { root, dot, configs })
}

/// The folders OpenCode searches above `root` (up to the git root), nearest first; empty
/// outside a git checkout.
pub(crate) fn parent_folders(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dir = root.to_path_buf();
    loop {
        if dir.join(".git").exists() {
            return out;
        }
        match dir.parent() {
            Some(p) => {
                dir = p.to_path_buf();
                out.push(dir.clone());
            }
            None => return Vec::new(),
        }
    }
}

/// Config files in parent folders that OpenCode would also merge (not imported).
pub(crate) fn parent_configs(root: &Path) -> Vec<PathBuf> {
    parent_folders(root)
        .iter()
        .flat_map(|d| {
            [
                d.join("opencode.json"),
                d.join("opencode.jsonc"),
                d.join(".opencode/opencode.json"),
                d.join(".opencode/opencode.jsonc"),
            ]
        })
        .filter(|p| p.is_file())
        .collect()
}

/// Reads one config file: JSONC, with each `{file:…}` checked and kept as a reference to an
/// absolute path inside the project `root` (see `carry_file_refs`).
pub(crate) fn read_layer(file: &Path, root: &Path) -> Result<Map<String, Value>, SpecError> {
    let doc = read_jsonc_document(file)?;
    let Value::Object(mut map) = doc else {
        unreachable!("read_jsonc_document returns objects")
    };
    let base = file.parent().unwrap_or(Path::new(".")).to_path_buf();
    let mut ds = Vec::new();
    for (key, value) in map.iter_mut() {
        resolve_file_refs(file, &base, root, key, value, &mut ds);
    }
    if ds.is_empty() {
        Ok(map)
    } else {
        Err(SpecError { diagnostics: ds })
    }
}

/// `{file:X}` in an agent prompt or a command template stays a reference (OpenCode reads the
/// file when it starts); anywhere else it cannot be carried and is an error.
fn resolve_file_refs(file: &Path, base: &Path, root: &Path, at: &str, value: &mut Value, ds: &mut Vec<Diagnostic>) {
    match value {
        Value::Object(m) => {
            for (k, v) in m.iter_mut() {
                resolve_file_refs(file, base, root, &join(at, k), v, ds);
            }
        }
        Value::Array(a) => {
            for (i, v) in a.iter_mut().enumerate() {
                resolve_file_refs(file, base, root, &format!("{at}[{i}]"), v, ds);
            }
        }
        Value::String(s) if mentions_file_ref(s) => {
            let parts: Vec<&str> = at.split('.').collect();
            let is_prompt = parts.len() == 3 && matches!(parts[0], "agent" | "mode") && parts[2] == "prompt";
            let is_template = parts.len() == 3 && parts[0] == "command" && parts[2] == "template";
            if is_prompt || is_template {
                carry_file_refs(file, base, root, at, s, ds);
            } else {
                let mut d = diag(
                    file,
                    at,
                    "`{file:…}` is carried only in agent prompts and command templates",
                );
                d.hint = Some("for a credential, write a `{env:VAR}` reference instead".into());
                ds.push(d);
            }
        }
        _ => {}
    }
}

/// Rewrites each `{file:X}` in `text` to `{file:<absolute X>}` after checking that X is a
/// regular file inside the project `root` (symlinks followed). The file is never read: its
/// text must not end up in job.yaml, where a reference to `/proc/self/environ` or a symlink
/// to `/etc/shadow` would copy secrets into a file the user shares.
pub(crate) fn carry_file_refs(
    file: &Path,
    base: &Path,
    root: &Path,
    at: &str,
    text: &mut String,
    ds: &mut Vec<Diagnostic>,
) {
    let refs = match file_refs(text) {
        Ok(refs) => refs,
        Err(e) => {
            ds.push(diag(file, at, format!("bad file reference: {e}")));
            return;
        }
    };
    let before = ds.len();
    for r in &refs {
        if let Err(msg) = check_ref_target(base, root, r.path) {
            let mut d = diag(file, at, format!("`{{file:{}}}` {msg}", r.path));
            d.hint = Some("keep referenced files inside the project folder; secrets belong in `{env:VAR}`".into());
            ds.push(d);
        }
    }
    if ds.len() == before {
        *text = map_file_refs(text, &mut |p| resolve_file(base, p).display().to_string());
    }
}

/// Why the target of a `{file:}` reference cannot be carried (the words follow the reference).
#[derive(Debug, thiserror::Error)]
enum RefTargetError {
    #[error("is a symlink loop ({})", .0.display())]
    Loop(PathBuf),
    #[error("does not exist ({}: {source})", path.display())]
    Missing {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("resolves to {}, outside the project {}", target.display(), root.display())]
    Outside { target: PathBuf, root: PathBuf },
    #[error("cannot be read: {0}")]
    Unreadable(#[source] std::io::Error),
    #[error("({}) is not a regular file", .0.display())]
    NotAFile(PathBuf),
}

/// Why the target of a reference cannot be carried, if it cannot.
fn check_ref_target(base: &Path, root: &Path, rel: &str) -> Result<(), RefTargetError> {
    let lexical = resolve_file(base, rel);
    let canonical = std::fs::canonicalize(&lexical).map_err(|e| match e.raw_os_error() {
        Some(libc::ELOOP) => RefTargetError::Loop(lexical.clone()),
        _ => RefTargetError::Missing {
            path: lexical.clone(),
            source: e,
        },
    })?;
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    if is_system_path(&canonical) || !canonical.starts_with(&root) {
        return Err(RefTargetError::Outside {
            target: canonical,
            root,
        });
    }
    let meta = std::fs::metadata(&canonical).map_err(RefTargetError::Unreadable)?;
    if !meta.is_file() {
        return Err(RefTargetError::NotAFile(canonical));
    }
    Ok(())
}

/// Resolves a `{file:}` path: `~/` from HOME, relative from the config file's folder.
pub(crate) fn resolve_file(base: &Path, rel: &str) -> PathBuf {
    let p = expand_home(rel);
    if p.is_absolute() {
        return normalize(&p);
    }
    normalize(&crate::spec::relative_path::resolve_against(base, rel))
}

/// Merges `source` over `target` as OpenCode does: objects key by key, other values
/// replaced, `instructions` and `plugin` concatenated without duplicates.
pub(crate) fn merge_config(target: &mut Map<String, Value>, source: Map<String, Value>) {
    for (key, value) in source {
        match (key.as_str(), target.get_mut(&key), value) {
            ("instructions" | "plugin", Some(Value::Array(old)), Value::Array(new)) => {
                for v in new {
                    if !old.contains(&v) {
                        old.push(v);
                    }
                }
            }
            (_, Some(old), new) => merge_value(old, new),
            (_, None, new) => {
                target.insert(key, new);
            }
        }
    }
}

/// Deep merge of two values: objects key by key, anything else replaced.
pub(crate) fn merge_value(target: &mut Value, source: Value) {
    match (target, source) {
        (Value::Object(t), Value::Object(s)) => {
            for (k, v) in s {
                match t.get_mut(&k) {
                    Some(old) => merge_value(old, v),
                    None => {
                        t.insert(k, v);
                    }
                }
            }
        }
        (t, s) => *t = s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn later_files_override_and_lists_concatenate() {
        let mut a = json!({"model": "a/1", "instructions": ["x.md"], "agent": {"r": {"temperature": 0.1, "permission": {"bash": "ask", "edit": "allow"}}}});
        let b = json!({"model": "b/2", "instructions": ["y.md", "x.md"], "agent": {"r": {"permission": {"bash": "deny", "webfetch": "ask"}}}});
        let (Value::Object(t), Value::Object(s)) = (&mut a, b) else {
            panic!()
        };
        merge_config(t, s);
        assert_eq!(a["model"], "b/2");
        assert_eq!(a["instructions"], json!(["x.md", "y.md"]));
        assert_eq!(a["agent"]["r"]["temperature"], 0.1);
        let keys: Vec<&String> = a["agent"]["r"]["permission"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["bash", "edit", "webfetch"]);
        assert_eq!(a["agent"]["r"]["permission"]["bash"], "deny");
    }

    #[test]
    fn file_references_resolve_against_the_config_folder() {
        let d = tempfile::tempdir().unwrap();
        let dot = d.path().join(".opencode");
        std::fs::create_dir_all(dot.join("prompts")).unwrap();
        std::fs::write(dot.join("prompts/t.md"), "Run tests.\n").unwrap();
        let cfg = dot.join("opencode.jsonc");
        std::fs::write(
            &cfg,
            r#"{ "agent": {"a": {"prompt": "{file:./prompts/t.md}"}}, "command": {"t": {"template": "{file:prompts/t.md}"}}, }"#,
        )
        .unwrap();
        let layer = read_layer(&cfg, d.path()).unwrap();
        let prompt = layer["agent"]["a"]["prompt"].as_str().unwrap();
        assert_eq!(prompt, format!("{{file:{}}}", dot.join("prompts/t.md").display()));
        let template = format!("{{file:{}}}", dot.join("prompts/t.md").display());
        assert_eq!(layer["command"]["t"]["template"], template.as_str());
        std::fs::write(
            &cfg,
            r#"{ "provider": {"p": {"options": {"apiKey": "{file:~/.key}"}}} }"#,
        )
        .unwrap();
        let e = read_layer(&cfg, d.path()).unwrap_err();
        assert_eq!(e.diagnostics[0].path, "provider.p.options.apiKey");
    }

    #[test]
    fn a_dot_opencode_project_is_rooted_above_it() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join(".opencode")).unwrap();
        std::fs::write(d.path().join(".opencode/opencode.jsonc"), "{}").unwrap();
        let root = std::path::absolute(d.path()).unwrap();
        let p = locate(d.path()).unwrap();
        assert_eq!(p.root, root);
        assert_eq!(p.configs, [root.join(".opencode/opencode.jsonc")]);
        let p = locate(&d.path().join(".opencode/opencode.jsonc")).unwrap();
        assert_eq!(p.root, root);
        assert!(locate(&d.path().join(".opencode")).unwrap().root == root);
        let empty = tempfile::tempdir().unwrap();
        assert!(locate(empty.path()).is_err());
    }
}
