//! The import structure of `src/`: no file-level import cycle, no module-level cycle, and no
//! import upward between the named layers of docs/ARCHITECTURE.md.
//!
//! Every file reachable from `lib.rs` is parsed with `syn`. Every path form counts: `use crate::…`,
//! `use super::…`, `use self::…`, groups and nested groups, renames, globs, inline paths in
//! expressions, types, patterns and macro calls, paths in attributes (tokens and `serde`-style
//! strings), names brought in by a `use` or a glob, and child modules named from their parent.
//! Each path resolves to the deepest module file it names, and a name that module only imports
//! (a facade's `pub use`, by name or by glob) is followed to the file that defines it.
//! Only a module's `pub use` of its own descendants is the module tree itself; its calls and
//! types from a child are dependencies like a child's use of its parent, so a parent and child
//! that use each other are a cycle.
//! Test code (`#[cfg(test)]` items, inline modules and module files) is kept apart: it never
//! counts toward the rules. Run it alone with `cargo test --test it architecture`.

mod graph;
mod modules;
mod parser_tests;
mod syntax;

use graph::{Adjacency, Graph, cycles, describe};
use std::collections::BTreeMap;
use std::path::Path;

/// The layers, lowest first. A module may import its own layer's or a lower layer's modules.
const LAYERS: &[&[&str]] = &[
    &["util"],
    &["trial", "spec"],
    &["redact"],
    &["sandbox", "llm", "emit", "import"],
    &["mcp", "generate", "providers"],
    &["judge"],
    &["run"],
    &["report"],
    &["app"],
    &["lab"],
    &["tui"],
    &["cli"],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// Every `.rs` file under `src/`, keyed by its path relative to `src/`.
fn sources() -> BTreeMap<String, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    walkdir::WalkDir::new(&root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
        .map(|e| {
            let rel = e
                .path()
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (rel, std::fs::read_to_string(e.path()).unwrap())
        })
        .collect()
}

fn src_graph() -> Graph {
    Graph::build(&sources()).unwrap_or_else(|e| panic!("src/ cannot be read: {e}"))
}

fn top_module(rel: &str) -> String {
    rel.split('/').next().unwrap_or(rel).trim_end_matches(".rs").to_string()
}

fn module_graph(files: &Adjacency) -> Adjacency {
    let mut graph = Adjacency::new();
    for (from, tos) in files {
        for to in tos {
            let (a, b) = (top_module(from), top_module(to));
            if a != b {
                graph.entry(a).or_default().insert(b);
            }
        }
    }
    graph
}

#[test]
fn no_file_imports_form_a_cycle() {
    let graph = src_graph();
    let found = cycles(&graph.adjacency());
    assert!(
        found.is_empty(),
        "file-level import cycles:\n{}",
        describe(&graph, &found)
    );
}

#[test]
fn no_modules_import_each_other_in_a_cycle() {
    let found = cycles(&module_graph(&src_graph().adjacency()));
    assert!(found.is_empty(), "module-level import cycles:\n{found:#?}");
}

#[test]
fn no_module_imports_a_higher_layer() {
    let mut upward = Vec::new();
    for e in &src_graph().product {
        let (a, b) = (top_module(&e.from), top_module(&e.to));
        match (layer_of(&a), layer_of(&b)) {
            (Some(la), Some(lb)) if lb > la => upward.push(format!("src/{}:{} → src/{}", e.from, e.line, e.to)),
            (None, _) => upward.push(format!("src/{}: module `{a}` is in no layer", e.from)),
            (_, None) => upward.push(format!("src/{}: module `{b}` is in no layer", e.to)),
            _ => {}
        }
    }
    assert!(upward.is_empty(), "imports of a higher layer:\n{}", upward.join("\n"));
}

/// The folders of `run/`, lowest first; `suite.rs` and `setup.rs` sit in `run/` itself
/// (`"."`). A file may import its own folder's files or a lower folder's.
const RUN_FOLDERS: &[&str] = &["environment", "agents", "store", "case", ".", "results"];

/// The folder of `run/` a file is in (`"."` for `run/` itself), if it is in `run/`.
fn run_folder(rel: &str) -> Option<&str> {
    let rest = rel.strip_prefix("run/")?;
    Some(rest.split_once('/').map_or(".", |(folder, _)| folder))
}

#[test]
fn run_folders_import_only_their_own_or_lower_folders() {
    let mut upward = Vec::new();
    for e in &src_graph().product {
        let (Some(a), Some(b)) = (run_folder(&e.from), run_folder(&e.to)) else {
            continue;
        };
        let rank = |f: &str| RUN_FOLDERS.iter().position(|x| *x == f);
        match (rank(a), rank(b)) {
            (Some(ra), Some(rb)) if rb > ra => upward.push(format!("src/{}:{} → src/{}", e.from, e.line, e.to)),
            (None, _) | (_, None) => upward.push(format!("src/{}: run/ folder not in RUN_FOLDERS", e.from)),
            _ => {}
        }
    }
    assert!(
        upward.is_empty(),
        "imports of a higher run/ folder:\n{}",
        upward.join("\n")
    );
    assert_eq!(run_folder("run/case/case_run.rs"), Some("case"));
    assert_eq!(run_folder("run/suite.rs"), Some("."));
    assert_eq!(run_folder("runtime.rs"), None);
}

#[test]
fn the_graph_sees_known_product_and_test_edges() {
    let graph = src_graph();
    let has =
        |edges: &[graph::Edge], from: &str, to: &str| edges.iter().any(|e| e.from == from && e.to.starts_with(to));
    assert!(has(&graph.product, "run/suite.rs", "judge/"), "{:#?}", graph.product);
    // Files in run/'s folders are seen, and their imports across folders.
    assert!(
        has(&graph.product, "run/case/case_run.rs", "run/store/"),
        "{:#?}",
        graph.product
    );
    // `#[path]` modules are found under their module name, and their imports are seen.
    assert!(graph.product.iter().any(|e| e.from == "sandbox/session_prepare.rs"));
    // Unit tests import their own file's module; that is a test edge, never a product one.
    assert!(!graph.test.is_empty());
    assert!(!graph.product.iter().any(|e| e.from.ends_with("_tests.rs")));
}
