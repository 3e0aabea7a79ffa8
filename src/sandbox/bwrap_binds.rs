//! Host paths a command sees at their own path, as bwrap binds drawn after every tmpfs of
//! `super::bwrap_root` (a later tmpfs would hide them): the policy's runtimes, the staged
//! inputs' copies, the host symlinks on the way to them, and the rare writable paths. Each
//! shows only what the command's scope keeps of it, and a kept part whose symlinks lead
//! outside its root is left out.

use std::path::{Path, PathBuf};

use super::super::inputs::SYSTEM_RUNTIME;
use super::super::policy::SandboxPolicy;
use super::super::scope::{Access, Scope};
use super::layout::{CommandSpec, Layout, push};
use super::root::MASKED_DIRS;

/// The policy's read-only runtimes, as far as the scope shows them, bound at their real
/// path; only those the root does not already show.
pub(super) fn runtimes(policy: &SandboxPolicy, scope: &Scope, isolated: bool) -> Vec<String> {
    let mut a = Vec::new();
    let hidden: Vec<PathBuf> = MASKED_DIRS
        .iter()
        .map(PathBuf::from)
        .chain(policy.masked.iter().cloned())
        .collect();
    // Only what the scope shows of each path; the whole session's scope shows every path.
    let shown_read_only: Vec<PathBuf> = policy
        .read_only
        .iter()
        .flat_map(|p| {
            scope
                .part_of(p)
                .into_iter()
                .map(|(part, _)| part)
                .filter(move |part| resolves_within(part, p))
        })
        .collect();
    for p in &shown_read_only {
        // Symlinked runtimes are bound at their real path, which is what the link resolves to.
        let real = p.canonicalize().unwrap_or_else(|_| p.clone());
        // In read_only mode anything not under a mask is already visible through the root binds.
        let needed = if isolated {
            !SYSTEM_RUNTIME.iter().any(|s| real.starts_with(s))
        } else {
            hidden.iter().any(|h| real.starts_with(h))
        };
        if real.exists() && needed {
            let s = real.to_string_lossy();
            push(&mut a, &["--ro-bind", &s, &s]);
        }
    }
    a
}

/// The staged inputs the scope shows: each by content when the command has a view of it,
/// else its session copy bound read-only at the input's real path.
pub(super) fn staged_inputs(layout: &Layout, spec: &CommandSpec<'_>) -> Vec<String> {
    let mut a = Vec::new();
    for (from, shown) in staged_parts(layout, spec.scope) {
        match spec.views.inputs.get(&shown) {
            Some(view) => a.extend(view.iter().cloned()),
            None => a.extend([
                "--ro-bind".into(),
                from.to_string_lossy().into_owned(),
                shown.to_string_lossy().into_owned(),
            ]),
        }
    }
    a
}

/// Isolated root only: paths reached through host symlinks (a checkout's node_modules linked
/// elsewhere) must resolve inside as on the host, so each link on the way to a bound real
/// path is recreated (but not one inside a bound path or the system runtime, which shows it).
pub(super) fn links_on_the_way(policy: &SandboxPolicy, layout: &Layout) -> Vec<String> {
    let bound: Vec<PathBuf> = policy
        .read_only
        .iter()
        .map(|p| p.canonicalize().unwrap_or_else(|_| p.clone()))
        .chain(layout.staged.iter().map(|(_, r)| r.clone()))
        .collect();
    let mut links: Vec<(String, String)> = Vec::new();
    for p in policy.read_only.iter().chain(policy.staged.iter()) {
        for link in symlink_chain(p) {
            let under_bound = bound.iter().any(|b| Path::new(&link.1).starts_with(b));
            let in_system = SYSTEM_RUNTIME.iter().any(|s| Path::new(&link.1).starts_with(s));
            if !under_bound && !in_system && !links.contains(&link) {
                links.push(link);
            }
        }
    }
    let mut a = Vec::new();
    for (target, link) in &links {
        push(&mut a, &["--symlink", target, link]);
    }
    a
}

/// The policy's writable host paths, as the scope shows them (writable, or read-only when the
/// scope narrowed them), at their real path.
pub(super) fn writable_paths(policy: &SandboxPolicy, scope: &Scope) -> Vec<String> {
    let mut a = Vec::new();
    for p in &policy.read_write {
        for (shown, access) in scope.part_of(p) {
            if !resolves_within(&shown, p) {
                continue;
            }
            let real = shown.canonicalize().unwrap_or(shown);
            let s = real.to_string_lossy();
            let how = if access == Access::ReadWrite {
                "--bind"
            } else {
                "--ro-bind"
            };
            push(&mut a, &[how, &s, &s]);
        }
    }
    a
}

/// The staged inputs `scope` shows, as (host copy or the part of it, path shown inside); a
/// part whose symlinks lead outside its copy is left out.
pub(crate) fn staged_parts(layout: &Layout, scope: &Scope) -> Vec<(PathBuf, PathBuf)> {
    let mut out = Vec::new();
    for (copy, real) in &layout.staged {
        for (shown, _) in scope.part_of(real) {
            let from = match shown.strip_prefix(real) {
                Ok(rest) if !rest.as_os_str().is_empty() => copy.join(rest),
                _ => copy.clone(),
            };
            if resolves_within(&from, copy) {
                out.push((from, shown));
            }
        }
    }
    out
}

/// Whether `part` of a bound `root` is still inside it once symlinks are followed (bwrap follows
/// them in a bind's source): a scope's part that leads elsewhere — a link to /etc inside a
/// runtime folder — would show more than its parent did, so it is not bound. `root` itself is
/// bound as the policy says.
fn resolves_within(part: &Path, root: &Path) -> bool {
    if part == root {
        return true;
    }
    match (part.canonicalize(), root.canonicalize()) {
        (Ok(p), Ok(r)) => p.starts_with(r),
        _ => false,
    }
}

/// The host symlinks met on the way along `path`, as (link target, link path), each later one
/// resolved against the real target of the one before.
pub(super) fn symlink_chain(path: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut cur = PathBuf::from("/");
    for comp in path.components().skip(1) {
        cur.push(comp);
        let Ok(meta) = std::fs::symlink_metadata(&cur) else {
            break;
        };
        if meta.file_type().is_symlink() {
            let Ok(target) = std::fs::read_link(&cur) else { break };
            out.push((
                target.to_string_lossy().into_owned(),
                cur.to_string_lossy().into_owned(),
            ));
            match cur.canonicalize() {
                Ok(real) => cur = real,
                Err(_) => break,
            }
        }
    }
    out
}
