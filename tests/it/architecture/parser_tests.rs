//! The graph builder on small made-up crates: each path form the old line-based reader missed.

use super::graph::{Graph, cycles};
use std::collections::BTreeMap;

fn crate_of(files: &[(&str, &str)]) -> Graph {
    let sources: BTreeMap<String, String> = files.iter().map(|(p, s)| (p.to_string(), s.to_string())).collect();
    Graph::build(&sources).unwrap()
}

fn product(g: &Graph) -> Vec<(String, String)> {
    g.product.iter().map(|e| (e.from.clone(), e.to.clone())).collect()
}

fn pair(a: &str, b: &str) -> (String, String) {
    (a.to_string(), b.to_string())
}

const LIB: &str = "pub mod a; pub mod b;";

#[test]
fn nested_use_groups_and_renames_are_edges() {
    let g = crate_of(&[
        ("lib.rs", "pub mod a; pub mod b; pub mod c;"),
        ("a.rs", "use crate::{b::{X as Y, self}, c::{*}};"),
        ("b.rs", "pub struct X;"),
        ("c.rs", ""),
    ]);
    assert_eq!(product(&g), [pair("a.rs", "b.rs"), pair("a.rs", "c.rs")]);
}

#[test]
fn super_super_in_an_expression_is_an_edge() {
    let g = crate_of(&[
        ("lib.rs", "pub mod a; pub mod b;"),
        ("a/mod.rs", "pub mod inner;"),
        ("a/inner.rs", "fn f() { let _ = super::super::b::make(); }"),
        ("b.rs", "pub fn make() {}"),
    ]);
    assert_eq!(product(&g), [pair("a/inner.rs", "b.rs")]);
}

#[test]
fn paths_inside_macro_calls_are_edges_but_strings_are_not() {
    let g = crate_of(&[
        ("lib.rs", LIB),
        ("a.rs", r#"fn f() { println!("{} crate::b::Y", crate::b::name()); }"#),
        ("b.rs", "pub fn name() -> u8 { 0 }"),
    ]);
    assert_eq!(product(&g), [pair("a.rs", "b.rs")]);
    let g = crate_of(&[
        ("lib.rs", LIB),
        ("a.rs", r#"const S: &str = "crate::b::x";"#),
        ("b.rs", ""),
    ]);
    assert!(g.product.is_empty(), "{:?}", g.product);
}

#[test]
fn product_code_after_a_test_module_still_counts() {
    let g = crate_of(&[
        ("lib.rs", LIB),
        (
            "a.rs",
            "#[cfg(test)] mod tests { use crate::b::T; }\nfn late() { crate::b::g(); }",
        ),
        ("b.rs", "pub fn g() {} pub struct T;"),
    ]);
    assert_eq!(product(&g), [pair("a.rs", "b.rs")]);
    assert_eq!(g.product[0].line, 2);
    assert_eq!(g.test.len(), 1);
}

#[test]
fn test_module_files_and_test_items_are_test_edges() {
    let g = crate_of(&[
        ("lib.rs", "pub mod a; pub mod b; #[cfg(test)] mod checks;"),
        (
            "a.rs",
            "#[cfg(test)] use crate::b::T;\n#[cfg(all(test, unix))] fn t() { super::b::g(); }",
        ),
        ("b.rs", "pub fn g() {} pub struct T;"),
        ("checks.rs", "use crate::a::*;"),
    ]);
    assert!(g.product.is_empty(), "{:?}", g.product);
    assert_eq!(g.test.len(), 3);
}

#[test]
fn names_brought_in_by_use_or_glob_resolve_through_their_module() {
    let g = crate_of(&[
        ("lib.rs", "pub mod a; pub mod run;"),
        ("a.rs", "use crate::run;\nfn f() { run::suite::go(); }"),
        ("run/mod.rs", "pub mod suite; pub mod case;"),
        ("run/suite.rs", "use super::*;\npub fn go() { case::step(); }"),
        ("run/case.rs", "pub fn step() {}"),
    ]);
    let p = product(&g);
    assert!(p.contains(&pair("a.rs", "run/suite.rs")), "{p:?}");
    assert!(p.contains(&pair("run/suite.rs", "run/case.rs")), "{p:?}");
}

#[test]
fn a_parents_re_export_of_a_child_is_the_tree_but_its_calls_into_the_child_are_edges() {
    let g = crate_of(&[
        ("lib.rs", "pub mod run;"),
        (
            "run/mod.rs",
            "mod case;\npub use case::Case;\nfn f() { case::helper(); }\npub struct Shared;",
        ),
        (
            "run/case.rs",
            "pub struct Case;\npub fn helper() { let _ = super::Shared; }",
        ),
    ]);
    // The call on line 3 is a dependency; the `pub use` on line 2 is the module's facade.
    let down: Vec<usize> = g.down.iter().map(|e| e.line).collect();
    assert_eq!(down, [2]);
    assert_eq!(
        product(&g),
        [pair("run/case.rs", "run/mod.rs"), pair("run/mod.rs", "run/case.rs")]
    );
    assert_eq!(
        cycles(&g.adjacency()),
        [vec!["run/case.rs".to_string(), "run/mod.rs".to_string()]]
    );
}

#[test]
fn a_parent_and_child_loop_through_a_type_a_private_use_or_a_group_is_a_cycle() {
    // Each way a parent can depend on its child, with the child using the parent's error type.
    for parent in [
        "mod open;\npub struct Error;\nfn f() -> open::Sandbox { todo!() }",
        "mod open;\nuse open::start;\npub struct Error;\nfn f() { start() }",
        "mod open;\nuse self::{open::{start}};\npub struct Error;\nfn f() { start() }",
    ] {
        let g = crate_of(&[
            ("lib.rs", "pub mod sandbox;"),
            ("sandbox/mod.rs", parent),
            (
                "sandbox/open.rs",
                "use super::Error;\npub struct Sandbox;\npub fn start() { let _: Option<Error> = None; }",
            ),
        ]);
        assert_eq!(cycles(&g.adjacency()).len(), 1, "{parent}: {:?}", g.product);
    }
}

#[test]
fn a_facade_glob_leads_to_the_file_that_defines_the_name() {
    let g = crate_of(&[
        ("lib.rs", "pub mod report; pub mod cli;"),
        ("report/mod.rs", "mod model;\npub use model::*;\npub fn write() {}"),
        ("report/model.rs", "pub struct Trial;"),
        ("cli.rs", "fn f(_: crate::report::Trial) { crate::report::write() }"),
    ]);
    let p = product(&g);
    assert!(p.contains(&pair("cli.rs", "report/model.rs")), "{p:?}");
    assert!(p.contains(&pair("cli.rs", "report/mod.rs")), "{p:?}");
    assert_eq!(g.down.len(), 1, "{:?}", g.down);
}

#[test]
fn paths_in_attributes_are_edges_but_doc_text_is_not() {
    let g = crate_of(&[
        ("lib.rs", "pub mod a; pub mod b; pub mod c; pub mod d;"),
        (
            "a.rs",
            "#[derive(serde::Serialize)]\npub struct A {\n    #[serde(skip_serializing_if = \"crate::b::is_empty\")]\n    x: u8,\n}",
        ),
        ("b.rs", "pub fn is_empty(_: &u8) -> bool { true }"),
        ("c.rs", "#[schemars(transform = crate::b::t)]\npub struct C;"),
        (
            "d.rs",
            "/// see crate::b::is_empty\n#[doc = \"crate::b::is_empty\"]\npub struct D;",
        ),
    ]);
    assert_eq!(product(&g), [pair("a.rs", "b.rs"), pair("c.rs", "b.rs")]);
    assert_eq!(g.product[0].line, 3);
}

#[test]
fn a_sibling_loop_through_super_paths_is_a_cycle_with_its_lines() {
    let g = crate_of(&[
        ("lib.rs", "pub mod run;"),
        ("run/mod.rs", "pub mod case_run; pub mod setup;"),
        (
            "run/case_run.rs",
            "pub fn go() {\n    super::setup::prepare();\n}\npub struct Dirs;",
        ),
        ("run/setup.rs", "use super::case_run::Dirs;\npub fn prepare() {}"),
    ]);
    let found = cycles(&g.adjacency());
    assert_eq!(found, [vec!["run/case_run.rs".to_string(), "run/setup.rs".to_string()]]);
    let text = super::graph::describe(&g, &found);
    assert!(text.contains("src/run/case_run.rs:2 → src/run/setup.rs"), "{text}");
    assert!(text.contains("src/run/setup.rs:1 → src/run/case_run.rs"), "{text}");
}

#[test]
fn a_name_a_facade_reexports_resolves_to_the_file_that_defines_it() {
    // setup.rs names `super::Ctx`, which run/mod.rs only re-exports from case.rs: the loop
    // case.rs -> setup.rs -> case.rs is real, though it passes through the facade.
    let g = crate_of(&[
        ("lib.rs", "pub mod run;"),
        ("run/mod.rs", "mod case;\nmod setup;\npub use case::Ctx;"),
        (
            "run/case.rs",
            "pub struct Ctx;\npub fn go() { super::setup::prepare(); }",
        ),
        ("run/setup.rs", "use super::Ctx;\npub fn prepare() {}"),
    ]);
    let p = product(&g);
    assert!(p.contains(&pair("run/setup.rs", "run/case.rs")), "{p:?}");
    assert_eq!(cycles(&g.adjacency()).len(), 1);
}

#[test]
fn an_item_of_another_crate_stays_with_the_module_that_imports_it() {
    let g = crate_of(&[
        ("lib.rs", "pub mod a; pub mod b;"),
        ("a.rs", "pub use std::collections::BTreeMap;"),
        ("b.rs", "fn f() -> crate::a::BTreeMap<u8, u8> { Default::default() }"),
    ]);
    assert_eq!(product(&g), [pair("b.rs", "a.rs")]);
}

#[test]
fn path_attributes_and_inline_modules_resolve_like_rustc() {
    let g = crate_of(&[
        ("lib.rs", "pub mod s; pub mod t;"),
        ("s/mod.rs", "pub mod session;"),
        (
            "s/session.rs",
            "#[path = \"session_prep.rs\"] mod prep;\nmod inner { use super::super::super::t; }",
        ),
        ("s/session_prep.rs", "use crate::t::X;"),
        ("t.rs", "pub struct X;"),
    ]);
    assert_eq!(
        product(&g),
        [pair("s/session.rs", "t.rs"), pair("s/session_prep.rs", "t.rs")]
    );
}
