//! The folders of a project's `.opencode/` that are not config files: skills, local plugins
//! and custom tools — carried where a job can hold them, reported where it cannot.

use std::path::{Path, PathBuf};

use super::opencode_files::Project;
use super::relative_to;
use super::report::Notes;
use crate::spec::agent::Plugin;

/// Skill folders under `.opencode/skill(s)` are carried as skill paths; local plugins (the
/// `*.ts` and `*.js` files of `.opencode/plugin(s)/`, which OpenCode loads as plugins) as
/// `file:` plugin entries; custom tools under `.opencode/tool(s)` are reported (a job cannot
/// carry them).
pub(super) fn carry_dot_folders(
    project: &Project,
    dst_dir: &Path,
    runtime: &mut crate::spec::Runtime,
    notes: &mut Notes,
) {
    for folder in ["skill", "skills"] {
        let Ok(entries) = std::fs::read_dir(project.dot.join(folder)) else {
            continue;
        };
        let mut dirs: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
        dirs.sort();
        for dir in dirs.into_iter().filter(|d| d.join("SKILL.md").is_file()) {
            let rel = relative_to(&dir, dst_dir);
            if !runtime.skills.paths.contains(&rel) {
                runtime.skills.paths.push(rel);
            }
        }
    }
    for folder in ["plugin", "plugins"] {
        let dir = project.dot.join(folder);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
        files.sort();
        let (plugins, others): (Vec<PathBuf>, Vec<PathBuf>) = files
            .into_iter()
            .partition(|f| f.is_file() && f.extension().is_some_and(|e| e == "ts" || e == "js"));
        for file in plugins {
            let spec = format!("file:{}", relative_to(&file, dst_dir));
            if !runtime.plugins.iter().any(|p| p.spec() == spec) {
                runtime.plugins.push(Plugin::Name(spec));
            }
        }
        if !others.is_empty() {
            let names: Vec<String> = others
                .iter()
                .filter_map(|f| f.file_name().map(|n| format!("`{}`", n.to_string_lossy())))
                .collect();
            notes.warn(
                &dir,
                "",
                format!(
                    "not carried: {} (OpenCode loads only the `.ts` and `.js` files here as plugins); a plugin that imports one of them needs it listed under `agent.inputs.assets`",
                    names.join(", ")
                ),
            );
        }
    }
    for folder in ["tool", "tools"] {
        let dir = project.dot.join(folder);
        if dir.is_dir() {
            notes.warn(
                &dir,
                "",
                "not carried: OpenCode loads custom tools from this folder; a job cannot carry custom tools",
            );
        }
    }
}
