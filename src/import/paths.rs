//! Path arithmetic for imports: relative paths between folders, rebasing.

use std::path::{Component, Path, PathBuf};

use crate::spec::file_refs::{map_file_refs, mentions_file_ref};
use crate::spec::relative_path::normalize;
use crate::spec::resolved::prompt_file;

/// `path` expressed relative to folder `base` (both made absolute first), `./`-prefixed.
pub(crate) fn relative_to(path: &Path, base: &Path) -> String {
    let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let (path, base) = (normalize(&abs(path)), normalize(&abs(base)));
    let p: Vec<Component> = path.components().collect();
    let b: Vec<Component> = base.components().collect();
    let common = p.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &p[common..] {
        out.push(c);
    }
    let text = out.to_string_lossy().into_owned();
    if text.is_empty() {
        ".".into()
    } else if text.starts_with("..") {
        text
    } else {
        format!("./{text}")
    }
}

/// Rewrites a path relative to `src` so it means the same file relative to `dst`.
pub(crate) fn rebase(path: &mut String, src: &Path, dst: &Path) {
    if Path::new(path.as_str()).is_absolute() || path.contains("://") {
        return;
    }
    *path = relative_to(&src.join(path.as_str()), dst);
}

/// Rebases the files a prompt or template refers to (`{file:./x}` anywhere in it, or a whole
/// prompt that is a bare `./x`); inline text is left alone.
pub(crate) fn rebase_prompt(prompt: &mut String, src: &Path, dst: &Path) {
    if mentions_file_ref(prompt) {
        *prompt = map_file_refs(prompt, &mut |p| {
            let mut rebased = p.to_string();
            rebase(&mut rebased, src, dst);
            rebased
        });
        return;
    }
    if let Some(file) = prompt_file(prompt) {
        let mut rebased = file.to_string();
        rebase(&mut rebased, src, dst);
        *prompt = rebased;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_between_folders() {
        assert_eq!(relative_to(Path::new("/a/b/c.md"), Path::new("/a")), "./b/c.md");
        assert_eq!(relative_to(Path::new("/a/x"), Path::new("/a/b")), "../x");
        assert_eq!(relative_to(Path::new("/a"), Path::new("/a")), ".");
    }

    #[test]
    fn rebase_keeps_meaning() {
        let mut p = "./AGENTS.md".to_string();
        rebase(&mut p, Path::new("/proj"), Path::new("/jobs"));
        assert_eq!(p, "../proj/AGENTS.md");
        let mut prompt = "{file:./p.md}".to_string();
        rebase_prompt(&mut prompt, Path::new("/proj"), Path::new("/proj"));
        assert_eq!(prompt, "{file:./p.md}");
        let mut mixed = "Before {file:./a.md} and {file:./b.md}".to_string();
        rebase_prompt(&mut mixed, Path::new("/proj"), Path::new("/jobs"));
        assert_eq!(mixed, "Before {file:../proj/a.md} and {file:../proj/b.md}");
    }
}
