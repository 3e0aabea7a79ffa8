//! Written paths resolved to files: the file-level import graph, its test edges kept apart,
//! and its strongly connected components.

use super::modules::{ModPath, Tree};
use super::syntax::{Collected, collect};
use std::collections::{BTreeMap, BTreeSet};

/// One import of one file by another, where it is written.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Edge {
    pub from: String,
    pub to: String,
    pub line: usize,
}

/// The file graph: product edges (which the rules judge), a module's re-exports of its own
/// descendants, and test edges.
#[derive(Debug, Default)]
pub struct Graph {
    pub product: Vec<Edge>,
    /// A module's `pub use` of its own descendants: the module tree's facade, which a child's
    /// `super::` use of its parent does not make a cycle. A parent's calls, types and private
    /// imports of its children are product edges like any other.
    pub down: Vec<Edge>,
    pub test: Vec<Edge>,
}

pub type Adjacency = BTreeMap<String, BTreeSet<String>>;

impl Graph {
    /// Parses every file reachable from `lib.rs` in `sources` and resolves its paths.
    pub fn build(sources: &BTreeMap<String, String>) -> Result<Graph, String> {
        let tree = Tree::build(sources)?;
        let mut all = Collected::default();
        for (path, test, file) in tree.files.values() {
            let c = collect(file, path.clone(), *test);
            all.written.extend(c.written);
            for (m, s) in c.scopes {
                let scope = all.scopes.entry(m).or_default();
                scope.aliases.extend(s.aliases);
                scope.children.extend(s.children);
                scope.globs.extend(s.globs);
                scope.defines.extend(s.defines);
            }
        }
        let mut graph = Graph::default();
        for w in &all.written {
            let Some(target) = resolve(&all, &w.module, &w.segs, 0) else {
                continue;
            };
            let target = through_imports(&tree, &all, target);
            let Some((to_path, to)) = tree.deepest(&target) else {
                continue;
            };
            let (from_file, from_test) = match tree.deepest(&w.module) {
                Some((_, m)) => (m.file.clone(), m.test),
                None => continue,
            };
            if to.file == from_file {
                continue;
            }
            let from_root = &tree.files[&from_file].0;
            let edge = Edge {
                from: from_file,
                to: to.file.clone(),
                line: w.line,
            };
            if w.test || from_test || to.test {
                graph.test.push(edge);
            } else if w.reexport && to_path.starts_with(from_root) {
                graph.down.push(edge);
            } else {
                graph.product.push(edge);
            }
        }
        for edges in [&mut graph.product, &mut graph.down, &mut graph.test] {
            edges.sort();
            edges.dedup();
        }
        Ok(graph)
    }

    pub fn adjacency(&self) -> Adjacency {
        let mut adj = Adjacency::new();
        for e in &self.product {
            adj.entry(e.from.clone()).or_default().insert(e.to.clone());
        }
        adj
    }

    /// The product edges between files of one component, with their lines.
    pub fn edges_within(&self, component: &[String]) -> Vec<&Edge> {
        let inside = |f: &String| component.contains(f);
        self.product
            .iter()
            .filter(|e| inside(&e.from) && inside(&e.to))
            .collect()
    }
}

/// Follows a name a module only imports (a facade's `pub use`, a parent's `use` its children
/// see through `super::`) to the module it comes from, so a facade hides no dependency.
fn through_imports(tree: &Tree, all: &Collected, mut target: Vec<String>) -> Vec<String> {
    for _ in 0..8 {
        let Some((module, _)) = tree.deepest(&target) else {
            break;
        };
        let module = module.clone();
        let Some(name) = target.get(module.len()) else { break };
        let Some(scope) = all.scopes.get(&module) else { break };
        let Some(alias) = scope.aliases.get(name) else {
            // A name the module neither defines nor imports by name may come from a glob
            // (`pub use model::*`): continue in the globbed module that has it.
            match (!scope.defines.contains(name))
                .then(|| globbed_home(tree, all, &module, name))
                .flatten()
            {
                Some(home) => {
                    let mut next = home;
                    next.extend(target[module.len()..].iter().cloned());
                    target = next;
                    continue;
                }
                None => break,
            }
        };
        // An item of another crate (`use std::fs`) stays where it was imported.
        let Some(mut next) = resolve(all, &module, alias, 0) else {
            break;
        };
        next.extend(target[module.len() + 1..].iter().cloned());
        if next == target {
            break;
        }
        target = next;
    }
    target
}

/// The module a glob import of `module` brings `name` from: one that defines, imports or holds
/// it as a child.
fn globbed_home(tree: &Tree, all: &Collected, module: &ModPath, name: &str) -> Option<Vec<String>> {
    all.scopes.get(module)?.globs.iter().find_map(|glob| {
        let target = resolve(all, module, glob, 0)?;
        let (found, _) = tree.deepest(&target).filter(|(m, _)| m.len() == target.len())?;
        let scope = all.scopes.get(found)?;
        let has = scope.defines.contains(name) || scope.aliases.contains_key(name) || scope.children.contains(name);
        (has && found != module).then(|| found.clone())
    })
}

/// A written path as a crate-absolute module path, or `None` for another crate or a local name.
fn resolve(all: &Collected, module: &ModPath, segs: &[String], depth: usize) -> Option<Vec<String>> {
    let first = segs.first()?.as_str();
    let rest = || segs[1..].iter().cloned();
    match first {
        "crate" => Some(rest().collect()),
        "self" => Some(module.iter().cloned().chain(rest()).collect()),
        "super" => {
            let ups = segs.iter().take_while(|s| *s == "super").count();
            let base = &module[..module.len().checked_sub(ups)?];
            Some(base.iter().cloned().chain(segs[ups..].iter().cloned()).collect())
        }
        _ if depth > 8 => None,
        name => {
            let scope = all.scopes.get(module)?;
            if scope.children.contains(name) {
                return Some(module.iter().cloned().chain(segs.iter().cloned()).collect());
            }
            if let Some(alias) = scope.aliases.get(name).filter(|a| a.as_slice() != segs) {
                let mut base = resolve(all, module, alias, depth + 1)?;
                base.extend(rest());
                return Some(base);
            }
            // A name a glob import brings in resolves as it does in the globbed module.
            scope.globs.iter().find_map(|glob| {
                let target = resolve(all, module, glob, depth + 1)?;
                resolve(all, &target, segs, depth + 1)
            })
        }
    }
}

/// Strongly connected components with more than one file (Tarjan), each sorted.
pub fn cycles(graph: &Adjacency) -> Vec<Vec<String>> {
    struct State<'g> {
        graph: &'g Adjacency,
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

/// Each component with the edges that close it, as `from:line → to` (first line of each pair).
pub fn describe(graph: &Graph, components: &[Vec<String>]) -> String {
    let mut out = String::new();
    for (n, comp) in components.iter().enumerate() {
        out.push_str(&format!(
            "cycle {} over {} files: {}\n",
            n + 1,
            comp.len(),
            comp.join(", ")
        ));
        let mut pairs: BTreeMap<(&str, &str), Vec<usize>> = BTreeMap::new();
        for e in graph.edges_within(comp) {
            pairs.entry((&e.from, &e.to)).or_default().push(e.line);
        }
        for ((from, to), lines) in pairs {
            let more = match lines.len() {
                1 => String::new(),
                n => format!(" (+{} more)", n - 1),
            };
            out.push_str(&format!("  src/{from}:{}{more} → src/{to}\n", lines[0]));
        }
    }
    out
}
