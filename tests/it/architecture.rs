//! The import structure of `src/`: no file-level import cycle, no module-level cycle, and no
//! import upward between the named layers of docs/ARCHITECTURE.md.
//!
//! Edges come from `use crate::…`, `use super::…`, `use self::…` and inline `crate::a::b` paths,
//! each resolved to the deepest file that exists. A `mod.rs` re-exporting its children
//! (`pub use child::…`) is a facade, not a dependency, and is not counted; neither is code after
//! a file's first `#[cfg(test)]` (test code).
//! Run it alone with `cargo test --test it architecture`.

use regex::Regex;
use std::collections::{BTreeMap, BTreeSet};
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

type Graph = BTreeMap<String, BTreeSet<String>>;

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

/// The module path of a file: `run/suite.rs` → [run, suite]; `run/mod.rs` → [run].
fn module_path(rel: &str) -> Vec<String> {
    let mut parts: Vec<String> = rel.trim_end_matches(".rs").split('/').map(String::from).collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The deepest file a module path names (`[run, suite, SuiteOptions]` → `run/suite.rs`).
fn resolve(files: &BTreeMap<String, String>, segs: &[String]) -> Option<String> {
    let mut best = None;
    for i in 1..=segs.len() {
        let prefix = segs[..i].join("/");
        if files.contains_key(&format!("{prefix}.rs")) {
            best = Some(format!("{prefix}.rs"));
        } else if files.contains_key(&format!("{prefix}/mod.rs")) {
            best = Some(format!("{prefix}/mod.rs"));
        } else {
            break;
        }
    }
    best
}

/// The non-test code of a file, without line comments.
fn code(src: &str) -> String {
    let src = src.split("#[cfg(test)]").next().unwrap_or("");
    let comment = Regex::new(r"//[^\n]*").unwrap();
    comment.replace_all(src, "").into_owned()
}

/// Expands a use tree (`a::{b, c::{d, e}}`) into its paths.
fn expand(tree: &str, prefix: &[String], out: &mut Vec<Vec<String>>) {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let base: Vec<String> = tree[..open]
            .split("::")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        let pre: Vec<String> = prefix.iter().cloned().chain(base).collect();
        let Some(close) = tree.rfind('}').filter(|c| *c > open) else {
            return;
        };
        let inner = &tree[open + 1..close];
        let (mut depth, mut start) = (0, 0);
        for (i, ch) in inner.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand(&inner[start..i], &pre, out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        if !inner[start..].trim().is_empty() {
            expand(&inner[start..], &pre, out);
        }
        return;
    }
    let tree = tree.split(" as ").next().unwrap_or("");
    let path: Vec<String> = prefix
        .iter()
        .cloned()
        .chain(
            tree.split("::")
                .map(str::trim)
                .filter(|s| !s.is_empty() && *s != "*")
                .map(String::from),
        )
        .collect();
    if !path.is_empty() {
        out.push(path);
    }
}

/// File → files it imports.
fn file_graph(files: &BTreeMap<String, String>) -> Graph {
    // A `use` item starts its line (after an optional visibility); text in strings does not.
    let use_stmt = Regex::new(r"(?m)^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+([^;]+);").unwrap();
    let inline = Regex::new(r"(?:^|[^\w:])crate::([\w:]+)").unwrap();
    let mut graph = Graph::new();
    for (rel, src) in files {
        if rel == "lib.rs" || rel == "main.rs" {
            continue;
        }
        let body = code(src);
        let me = module_path(rel);
        let mut paths = Vec::new();
        for m in use_stmt.captures_iter(&body) {
            expand(&m[1], &[], &mut paths);
        }
        for m in inline.captures_iter(&body) {
            paths.push(
                std::iter::once("crate".to_string())
                    .chain(m[1].split("::").map(String::from))
                    .collect(),
            );
        }
        for p in paths {
            let segs: Vec<String> = match p[0].as_str() {
                "crate" => p[1..].to_vec(),
                "self" => me.iter().cloned().chain(p[1..].iter().cloned()).collect(),
                "super" => {
                    let ups = p.iter().take_while(|s| *s == "super").count();
                    let base = &me[..me.len().saturating_sub(ups)];
                    base.iter().cloned().chain(p[ups..].iter().cloned()).collect()
                }
                // A bare path: another crate, or a facade re-export of a child.
                _ => continue,
            };
            if let Some(target) = resolve(files, &segs).filter(|t| t != rel) {
                graph.entry(rel.clone()).or_default().insert(target);
            }
        }
    }
    graph
}

/// Strongly connected components with more than one node (Tarjan).
fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    struct State<'g> {
        graph: &'g Graph,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        out: Vec<Vec<String>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g str) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.graph.get(v).into_iter().flatten() {
            if !s.index.contains_key(w.as_str()) {
                visit(s, w);
                let lw = s.low[w.as_str()];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w.as_str()) {
                let iw = s.index[w.as_str()];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on_stack.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out
}

fn top_module(rel: &str) -> String {
    rel.split('/').next().unwrap_or(rel).trim_end_matches(".rs").to_string()
}

fn module_graph(files: &Graph) -> Graph {
    let mut graph = Graph::new();
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
    let found = cycles(&file_graph(&sources()));
    assert!(found.is_empty(), "file-level import cycles:\n{found:#?}");
}

#[test]
fn no_modules_import_each_other_in_a_cycle() {
    let found = cycles(&module_graph(&file_graph(&sources())));
    assert!(found.is_empty(), "module-level import cycles:\n{found:#?}");
}

#[test]
fn no_module_imports_a_higher_layer() {
    let files = file_graph(&sources());
    let mut upward = Vec::new();
    for (from, tos) in &files {
        let a = top_module(from);
        for to in tos {
            let b = top_module(to);
            match (layer_of(&a), layer_of(&b)) {
                (Some(la), Some(lb)) if lb > la => upward.push(format!("{from} → {to}")),
                (None, _) => upward.push(format!("{from}: module `{a}` is in no layer")),
                (_, None) => upward.push(format!("{to}: module `{b}` is in no layer")),
                _ => {}
            }
        }
    }
    assert!(upward.is_empty(), "imports of a higher layer:\n{}", upward.join("\n"));
}

#[test]
fn the_import_parser_sees_a_known_edge_and_a_planted_cycle() {
    let files = sources();
    let graph = file_graph(&files);
    assert!(
        graph["run/suite.rs"].iter().any(|t| t.starts_with("judge/")),
        "{graph:#?}"
    );
    let mut planted = graph.clone();
    let (from, to) = graph
        .iter()
        .find_map(|(f, ts)| Some((f.clone(), ts.iter().next()?.clone())))
        .unwrap();
    planted.entry(to).or_default().insert(from);
    assert!(!cycles(&planted).is_empty());
}
