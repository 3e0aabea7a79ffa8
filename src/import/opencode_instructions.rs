//! OpenCode's `instructions` as OpenCode 1.18.33 resolves them: a relative entry is a glob
//! searched from the project folder up to the git root; an entry that matches nothing is
//! skipped without a word; `~/` is the home folder; URLs are fetched. The project's
//! `AGENTS.md` (else `CLAUDE.md`, else `CONTEXT.md`) is read even when not listed.
//!
//! Ghostlab runs OpenCode with project files switched off, so the import lists everything the
//! agent would have read, and warns about what it cannot carry.

use std::path::{Path, PathBuf};

use super::opencode_files::parent_folders;
use super::relative_to;
use super::report::Notes;
use crate::spec::diagnostics::index;
use crate::spec::instructions::{expand_entry, instruction_files, is_glob, is_url};

/// The names OpenCode looks for by itself, in order; the first name found wins.
const AUTOMATIC: &[&str] = super::opencode_files::RULES_FILES;

/// Job-relative instruction entries for `entries` (OpenCode's list, merged), plus the
/// automatic file. `file` is the config file the list came from (for warnings).
pub(crate) fn import_instructions(
    entries: &[String],
    root: &Path,
    dst: &Path,
    file: &Path,
    notes: &mut Notes,
) -> Vec<String> {
    let mut search = vec![root.to_path_buf()];
    search.extend(parent_folders(root));
    let mut out: Vec<String> = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let at = index("instructions", i);
        if is_url(entry) {
            notes.warn(
                file,
                at,
                format!("not carried: `{entry}` is fetched over the network; save it in the project and list the file"),
            );
            continue;
        }
        if entry.starts_with("~/") {
            notes.warn(
                file,
                at,
                format!("not carried: `{entry}` is in your home folder; test runs have a home of their own"),
            );
            continue;
        }
        let found = search.iter().find(|dir| matches(dir, entry));
        match found {
            Some(dir) => {
                let rel = relative_to(&dir.join(entry), dst);
                if !out.contains(&rel) {
                    out.push(rel);
                }
            }
            None => {
                let what = if is_glob(entry) {
                    "matches no file"
                } else {
                    "does not exist"
                };
                notes.warn(
                    file,
                    at,
                    format!(
                        "not carried: `{entry}` {what} (looked in {} and up to the git root); OpenCode skips it",
                        root.display()
                    ),
                );
            }
        }
    }
    let listed = instruction_files(dst, &out);
    for path in automatic_files(&search) {
        if !listed.contains(&path) {
            let shown = notes.show(&path);
            notes.sources.push(format!(
                "instructions: {shown} (OpenCode reads it without being told; listed so the test run does too)"
            ));
            out.push(relative_to(&path, dst));
        }
    }
    out
}

fn matches(dir: &Path, entry: &str) -> bool {
    if is_glob(entry) {
        !expand_entry(dir, entry).is_empty()
    } else {
        dir.join(entry).is_file()
    }
}

/// All files of the first automatic name found in the searched folders.
fn automatic_files(search: &[PathBuf]) -> Vec<PathBuf> {
    for name in AUTOMATIC {
        let found: Vec<PathBuf> = search.iter().map(|d| d.join(name)).filter(|p| p.is_file()).collect();
        if !found.is_empty() {
            return found;
        }
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_kept_missing_skipped_agents_md_added() {
        let d = tempfile::tempdir().unwrap();
        let root = std::path::absolute(d.path()).unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(root.join("rules")).unwrap();
        std::fs::write(root.join("rules/a.md"), "a").unwrap();
        std::fs::write(root.join("AGENTS.md"), "x").unwrap();
        let mut notes = Notes::new(&root);
        let entries = vec![
            "rules/*.md".to_string(),
            "missing.md".to_string(),
            "https://example.com/x.md".to_string(),
        ];
        let out = import_instructions(&entries, &root, &root, &root.join("opencode.json"), &mut notes);
        assert_eq!(out, ["./rules/*.md", "./AGENTS.md"]);
        assert_eq!(notes.warnings.len(), 2);
        assert_eq!(notes.warnings[0].path, "instructions[1]");
        assert!(notes.sources[0].contains("AGENTS.md"));
    }
}
