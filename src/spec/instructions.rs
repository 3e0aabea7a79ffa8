//! Instruction entries: a plain file, or a glob such as `.opencode/rules/*.md`, expanded the
//! way OpenCode expands it (`*` stays within a folder, `**` crosses folders, dotfiles match,
//! files only). Ghostlab expands globs when a job loads and sorts each expansion, so the run
//! manifest and the emitted config list exactly the files the agent was given.

use regex::Regex;
use std::path::{Path, PathBuf};

use super::diagnostics::{Diagnostic, diag};
use super::relative_path::{normalize, resolve_against};

/// True when an instruction entry is a glob pattern rather than a file name.
pub(crate) fn is_glob(entry: &str) -> bool {
    entry.contains(['*', '?', '[', '{'])
}

/// True for instructions OpenCode fetches over HTTP instead of reading from disk.
pub(crate) fn is_url(entry: &str) -> bool {
    entry.starts_with("https://") || entry.starts_with("http://")
}

/// The files an entry names, relative entries resolved against `dir`: a plain file as it is
/// (whether or not it exists), a glob as its sorted matches.
pub(crate) fn expand_entry(dir: &Path, entry: &str) -> Vec<PathBuf> {
    if !is_glob(entry) {
        return vec![normalize(&resolve_against(dir, entry))];
    }
    let full = resolve_against(dir, entry);
    let mut base = PathBuf::new();
    let mut rest: Vec<String> = Vec::new();
    for c in full.components() {
        let text = c.as_os_str().to_string_lossy().into_owned();
        if rest.is_empty() && !is_glob(&text) {
            base.push(c);
        } else {
            rest.push(text);
        }
    }
    // The fixed part of the pattern, `..` resolved as for a plain entry.
    let base = normalize(&base);
    let Some(re) = glob_regex(&rest.join("/")) else {
        return Vec::new();
    };
    let deep = rest.iter().any(|r| r.contains("**"));
    let mut walker = walkdir::WalkDir::new(&base).min_depth(1).follow_links(true);
    if !deep {
        walker = walker.max_depth(rest.len());
    }
    let mut out: Vec<PathBuf> = walker
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter(|e| {
            e.path()
                .strip_prefix(&base)
                .map(|rel| re.is_match(&rel.to_string_lossy().replace('\\', "/")))
                .unwrap_or(false)
        })
        .map(|e| e.into_path())
        .collect();
    out.sort();
    out
}

/// Every instruction file of a job, in declaration order, globs expanded and sorted,
/// duplicates dropped. URLs are not files and are left out.
pub(crate) fn instruction_files(dir: &Path, entries: &[String]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for entry in entries.iter().filter(|e| !is_url(e)) {
        for p in expand_entry(dir, entry) {
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}

/// The load-time check of one instruction entry: a plain file must exist; a glob must match
/// at least one file (a job is strict where OpenCode would silently skip).
pub(crate) fn check_instruction(file: &Path, dir: &Path, at: &str, entry: &str, ds: &mut Vec<Diagnostic>) {
    if is_url(entry) {
        let mut d = diag(file, at, format!("remote instructions (`{entry}`) are not supported"));
        d.hint = Some("the sandbox may not reach it; save the file in the project and list its path".into());
        ds.push(d);
        return;
    }
    if is_glob(entry) {
        if expand_entry(dir, entry).is_empty() {
            ds.push(diag(
                file,
                at,
                format!(
                    "pattern `{entry}` matches no file (looked in {})",
                    resolve_against(dir, entry).display()
                ),
            ));
        }
        return;
    }
    let p = resolve_against(dir, entry);
    if !p.is_file() {
        ds.push(diag(
            file,
            at,
            format!("referenced file `{entry}` does not exist (looked for {})", p.display()),
        ));
    }
}

/// Translates a glob (`/`-separated) into an anchored regex: `**` crosses folders, `*` and `?`
/// do not, `[...]` and `{a,b}` as in shells.
fn glob_regex(glob: &str) -> Option<Regex> {
    let mut re = String::from("^");
    let chars: Vec<char> = glob.chars().collect();
    let mut i = 0;
    let mut braces = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '*' if chars.get(i + 1) == Some(&'*') => {
                if chars.get(i + 2) == Some(&'/') {
                    re.push_str("(?:.*/)?");
                    i += 3;
                } else {
                    re.push_str(".*");
                    i += 2;
                }
                continue;
            }
            '*' => re.push_str("[^/]*"),
            '?' => re.push_str("[^/]"),
            '[' => {
                let close = chars[i + 1..].iter().position(|&x| x == ']')? + i + 1;
                let mut class: String = chars[i + 1..close].iter().collect();
                if let Some(rest) = class.strip_prefix('!') {
                    class = format!("^{rest}");
                }
                re.push('[');
                re.push_str(&class.replace('\\', "\\\\"));
                re.push(']');
                i = close + 1;
                continue;
            }
            '{' => {
                braces += 1;
                re.push_str("(?:");
            }
            '}' if braces > 0 => {
                braces -= 1;
                re.push(')');
            }
            ',' if braces > 0 => re.push('|'),
            other => re.push_str(&regex::escape(&other.to_string())),
        }
        i += 1;
    }
    re.push('$');
    Regex::new(&re).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(dir: &Path, rel: &str) {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, "x").unwrap();
    }

    #[test]
    fn star_stays_in_its_folder_and_results_are_sorted() {
        let d = tempfile::tempdir().unwrap();
        for f in [
            ".opencode/rules/b.md",
            ".opencode/rules/a.md",
            ".opencode/rules/deep/c.md",
            ".opencode/rules/n.txt",
        ] {
            touch(d.path(), f);
        }
        let got = expand_entry(d.path(), ".opencode/rules/*.md");
        let names: Vec<_> = got
            .iter()
            .map(|p| p.strip_prefix(d.path()).unwrap().to_path_buf())
            .collect();
        assert_eq!(
            names,
            [
                PathBuf::from(".opencode/rules/a.md"),
                PathBuf::from(".opencode/rules/b.md")
            ]
        );
        assert_eq!(expand_entry(d.path(), ".opencode/rules/**/*.md").len(), 3);
        assert_eq!(expand_entry(d.path(), ".opencode/rules/*.{md,txt}").len(), 3);
        assert!(expand_entry(d.path(), "nothing/*.md").is_empty());
    }

    #[test]
    fn a_glob_below_dot_dot_or_dot_names_the_same_files_as_a_plain_entry_would() {
        let d = tempfile::tempdir().unwrap();
        touch(d.path(), "shared/rules/a.md");
        touch(d.path(), "agent/x.txt");
        let job_dir = d.path().join("agent");
        let plain = expand_entry(&job_dir, "../shared/rules/a.md");
        assert_eq!(plain, [d.path().join("shared/rules/a.md")]);
        for pattern in [
            "../shared/rules/*.md",
            "./../shared/./rules/*.md",
            "../agent/../shared/rules/*.md",
        ] {
            assert_eq!(expand_entry(&job_dir, pattern), plain, "{pattern}");
        }
    }

    #[test]
    fn check_reports_empty_globs_and_missing_files() {
        let d = tempfile::tempdir().unwrap();
        touch(d.path(), "AGENTS.md");
        let mut ds = Vec::new();
        check_instruction(Path::new("job.yaml"), d.path(), "i[0]", "AGENTS.md", &mut ds);
        check_instruction(Path::new("job.yaml"), d.path(), "i[1]", "rules/*.md", &mut ds);
        check_instruction(Path::new("job.yaml"), d.path(), "i[2]", "missing.md", &mut ds);
        assert_eq!(ds.len(), 2);
        assert!(ds[0].message.contains("matches no file"));
        assert!(ds[1].message.contains("does not exist"));
    }

    #[test]
    fn globs_translate_like_shells() {
        let re = glob_regex("a/**/x?.md").unwrap();
        assert!(re.is_match("a/x1.md") && re.is_match("a/b/c/x1.md"));
        assert!(!re.is_match("a/x12.md"));
        let re = glob_regex("[!a]*.md").unwrap();
        assert!(re.is_match("b.md") && !re.is_match("a.md"));
    }
}
