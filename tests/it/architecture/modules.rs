//! The crate's module tree, walked from `lib.rs` through its `mod` items as rustc does
//! (`#[path]` included), so each file is known by its module path and test files are marked.

use super::syntax::{is_cfg_test, path_attr};
use std::collections::BTreeMap;

/// A module path inside the crate: `["run", "suite"]`; the crate root is empty.
pub type ModPath = Vec<String>;

/// Where a module lives and whether it exists only in test builds.
#[derive(Debug, Clone)]
pub struct Module {
    pub file: String,
    pub test: bool,
}

/// Every module of the crate (inline ones included) and the parsed files.
pub struct Tree {
    pub modules: BTreeMap<ModPath, Module>,
    /// File → (its module path, whether the whole file is test code, its syntax).
    pub files: BTreeMap<String, (ModPath, bool, syn::File)>,
}

impl Tree {
    /// Walks the tree from `lib.rs` in `sources` (file path relative to `src/` → text).
    pub fn build(sources: &BTreeMap<String, String>) -> Result<Tree, String> {
        let mut tree = Tree {
            modules: BTreeMap::new(),
            files: BTreeMap::new(),
        };
        tree.add_file(sources, "lib.rs", Vec::new(), false)?;
        Ok(tree)
    }

    /// The deepest module a crate-absolute path names, if any of its prefixes is a module.
    pub fn deepest(&self, segs: &[String]) -> Option<(&ModPath, &Module)> {
        (1..=segs.len())
            .rev()
            .find_map(|n| self.modules.get_key_value(&segs[..n]))
    }

    fn add_file(
        &mut self,
        sources: &BTreeMap<String, String>,
        rel: &str,
        path: ModPath,
        test: bool,
    ) -> Result<(), String> {
        let text = sources
            .get(rel)
            .ok_or_else(|| format!("module file {rel} is missing"))?;
        let file = syn::parse_file(text).map_err(|e| format!("{rel}: {e}"))?;
        self.modules.insert(
            path.clone(),
            Module {
                file: rel.to_string(),
                test,
            },
        );
        // Children of `lib.rs`/`mod.rs` sit beside it; children of `x.rs` sit in `x/`.
        let dir = match rel.rsplit_once('/') {
            Some((dir, "mod.rs")) => format!("{dir}/"),
            None if rel == "lib.rs" || rel == "mod.rs" => String::new(),
            _ => format!("{}/", rel.trim_end_matches(".rs")),
        };
        let here = rel.rsplit_once('/').map_or(String::new(), |(d, _)| format!("{d}/"));
        let mut children = Vec::new();
        collect_mods(
            &file.items,
            &path,
            test,
            rel,
            &mut |m| children.push(m),
            &mut self.modules,
        );
        self.files.insert(rel.to_string(), (path.clone(), test, file));
        for (child_path, child_test, attr_path) in children {
            if child_path.len() != path.len() + 1 {
                return Err(format!("{rel}: `mod x;` inside an inline module is not supported"));
            }
            let name = child_path.last().unwrap().clone();
            let child_rel = match attr_path {
                Some(p) => format!("{here}{p}"),
                None if sources.contains_key(&format!("{dir}{name}.rs")) => format!("{dir}{name}.rs"),
                None => format!("{dir}{name}/mod.rs"),
            };
            self.add_file(sources, &child_rel, child_path, child_test)?;
        }
        Ok(())
    }
}

/// Records the inline modules of `items` and hands out their out-of-line `mod x;` children
/// (module path, test-only, `#[path]`).
fn collect_mods(
    items: &[syn::Item],
    path: &ModPath,
    test: bool,
    rel: &str,
    out_of_line: &mut dyn FnMut((ModPath, bool, Option<String>)),
    modules: &mut BTreeMap<ModPath, Module>,
) {
    for item in items {
        let syn::Item::Mod(m) = item else { continue };
        let mut child = path.clone();
        child.push(m.ident.to_string());
        let child_test = test || m.attrs.iter().any(is_cfg_test);
        match &m.content {
            Some((_, inner)) => {
                modules.insert(
                    child.clone(),
                    Module {
                        file: rel.to_string(),
                        test: child_test,
                    },
                );
                collect_mods(inner, &child, child_test, rel, out_of_line, modules);
            }
            None => out_of_line((child, child_test, path_attr(&m.attrs))),
        }
    }
}
