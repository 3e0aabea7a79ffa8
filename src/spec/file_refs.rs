//! `{file:PATH}` references inside agent prompts and command templates.
//!
//! OpenCode replaces each `{file:PATH}` in its config by the file's text when it starts. A
//! job keeps them as references: the path is checked like any other input (inside the job
//! folder, never a system file), the sandbox makes the file visible read-only, and the
//! emitted config points at it. Ghostlab never copies the text into job.yaml or an artifact,
//! so a reference to `/proc/self/environ` cannot smuggle the environment into a file.

use std::path::Path;

/// The opening of a reference.
pub(crate) const OPEN: &str = "{file:";

/// One reference found in a text: the path as written and its byte range (braces included).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileRef<'a> {
    pub(crate) path: &'a str,
    pub(crate) start: usize,
    pub(crate) end: usize,
}

/// Why a text's references cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum FileRefError {
    #[error("`{{file:` at byte {0} has no closing `}}`")]
    Unterminated(usize),
    #[error("`{{file:}}` at byte {0} names no file")]
    Empty(usize),
}

/// Every `{file:…}` in `text`, in order.
pub(crate) fn file_refs(text: &str) -> Result<Vec<FileRef<'_>>, FileRefError> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find(OPEN) {
        let start = from + found;
        let after = start + OPEN.len();
        let Some(close) = text[after..].find('}') else {
            return Err(FileRefError::Unterminated(start));
        };
        let path = text[after..after + close].trim();
        if path.is_empty() {
            return Err(FileRefError::Empty(start));
        }
        let end = after + close + 1;
        out.push(FileRef { path, start, end });
        from = end;
    }
    Ok(out)
}

/// `text` with each reference's path replaced by `map(path)`; text without references (or
/// with a malformed one, which the checks report) is returned unchanged.
pub(crate) fn map_file_refs(text: &str, map: &mut dyn FnMut(&str) -> String) -> String {
    let Ok(refs) = file_refs(text) else {
        return text.to_string();
    };
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for r in refs {
        out.push_str(&text[last..r.start]);
        out.push_str(OPEN);
        out.push_str(&map(r.path));
        out.push('}');
        last = r.end;
    }
    out.push_str(&text[last..]);
    out
}

/// True when `text` holds anything that looks like a reference (well-formed or not).
pub(crate) fn mentions_file_ref(text: &str) -> bool {
    text.contains(OPEN)
}

/// The path written in a reference, `~/` expanded from HOME, for checks that need a file.
pub(crate) fn expand_home(path: &str) -> std::path::PathBuf {
    match path.strip_prefix("~/") {
        Some(rest) => std::env::var_os("HOME")
            .map(std::path::PathBuf::from)
            .unwrap_or_default()
            .join(rest),
        None => Path::new(path).to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_reference_with_its_range() {
        let t = "Read {file:./a.md} then {file: /b.md }.";
        let refs = file_refs(t).unwrap();
        assert_eq!(refs.len(), 2);
        assert_eq!(refs[0].path, "./a.md");
        assert_eq!(&t[refs[0].start..refs[0].end], "{file:./a.md}");
        assert_eq!(refs[1].path, "/b.md");
        assert!(file_refs("no refs").unwrap().is_empty());
    }

    #[test]
    fn malformed_references_are_errors_not_text() {
        assert_eq!(file_refs("x {file:./a.md"), Err(FileRefError::Unterminated(2)));
        assert_eq!(file_refs("{file:}"), Err(FileRefError::Empty(0)));
        assert_eq!(file_refs("{file:  }"), Err(FileRefError::Empty(0)));
    }

    #[test]
    fn mapping_rewrites_only_the_paths() {
        let t = "A {file:./a.md} B {file:../b.md} C";
        let out = map_file_refs(t, &mut |p| format!("/sandbox/{}", p.trim_start_matches("./")));
        assert_eq!(out, "A {file:/sandbox/a.md} B {file:/sandbox/../b.md} C");
        assert_eq!(map_file_refs("plain", &mut |_| unreachable!()), "plain");
    }
}
