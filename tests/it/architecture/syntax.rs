//! Every path a file writes, found with `syn`: `use` trees (groups, nested groups, renames,
//! globs), paths in types, expressions, patterns and bounds, and `a::b` token runs inside macro
//! calls. Each is kept with the module it is written in, its line and whether it is test code.

use super::modules::ModPath;
use proc_macro2::{TokenStream, TokenTree};
use std::collections::{BTreeMap, BTreeSet};
use syn::visit::{self, Visit};

/// A path as written, not yet resolved.
#[derive(Debug, Clone)]
pub struct Written {
    /// The module (inline ones included) whose scope the path is written in.
    pub module: ModPath,
    pub segs: Vec<String>,
    pub line: usize,
    pub test: bool,
    /// Written in a `pub use` (any visibility but private): a re-export, which from a parent
    /// into its own children is the module tree rather than a dependency.
    pub reexport: bool,
}

/// The names each module brings into scope: `use` aliases and child modules.
#[derive(Debug, Default)]
pub struct Scope {
    pub aliases: BTreeMap<String, Vec<String>>,
    pub children: BTreeSet<String>,
    /// Glob imports (`use super::*`), whose names are in scope too.
    pub globs: Vec<Vec<String>>,
    /// The names of the items the module itself defines (structs, functions, traits, …), so a
    /// name reached through a facade's glob is found in the module that defines it.
    pub defines: BTreeSet<String>,
}

/// The paths of one file and the scopes of its modules.
#[derive(Debug, Default)]
pub struct Collected {
    pub written: Vec<Written>,
    pub scopes: BTreeMap<ModPath, Scope>,
}

/// `#[cfg(test)]` or `#[cfg(all(test, …))]`; `cfg(not(test))` and `cfg(any(test, …))` are not.
pub fn is_cfg_test(attr: &syn::Attribute) -> bool {
    if !attr.path().is_ident("cfg") {
        return false;
    }
    let Ok(meta) = attr.parse_args::<syn::Meta>() else {
        return false;
    };
    match meta {
        syn::Meta::Path(p) => p.is_ident("test"),
        syn::Meta::List(l) if l.path.is_ident("all") => l
            .parse_args_with(syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated)
            .is_ok_and(|args| args.iter().any(|m| m.path().is_ident("test"))),
        _ => false,
    }
}

/// The value of a `#[path = "…"]` attribute.
pub fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs
        .iter()
        .find(|a| a.path().is_ident("path"))
        .and_then(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s), ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
}

/// Collects the paths of a file whose root module is `module`.
pub fn collect(file: &syn::File, module: ModPath, test: bool) -> Collected {
    let mut c = Collector {
        module,
        test,
        reexport: false,
        out: Collected::default(),
    };
    c.visit_items(&file.items);
    c.out
}

struct Collector {
    module: ModPath,
    test: bool,
    reexport: bool,
    out: Collected,
}

impl Collector {
    fn visit_items(&mut self, items: &[syn::Item]) {
        let scope = self.out.scopes.entry(self.module.clone()).or_default();
        for item in items {
            if let syn::Item::Mod(m) = item {
                scope.children.insert(m.ident.to_string());
            }
            if let Some(name) = defined_name(item) {
                scope.defines.insert(name);
            }
        }
        for item in items {
            self.visit_item(item);
        }
    }

    fn push(&mut self, segs: Vec<String>, line: usize) {
        if segs.is_empty() {
            return;
        }
        let w = Written {
            module: self.module.clone(),
            segs,
            line,
            test: self.test,
            reexport: self.reexport,
        };
        self.out.written.push(w);
    }

    /// Runs `f` with the test flag raised when `attrs` hold `#[cfg(test)]`.
    fn guarded(&mut self, attrs: &[syn::Attribute], f: impl FnOnce(&mut Self)) {
        let was = self.test;
        self.test |= attrs.iter().any(is_cfg_test);
        f(self);
        self.test = was;
    }

    fn use_tree(&mut self, tree: &syn::UseTree, prefix: &[String]) {
        let join = |last: Option<String>| {
            let mut p = prefix.to_vec();
            p.extend(last);
            p
        };
        match tree {
            syn::UseTree::Path(p) => {
                let prefix = join(Some(p.ident.to_string()));
                self.use_tree(&p.tree, &prefix);
            }
            syn::UseTree::Name(n) => {
                // `a::{self}` names `a` itself.
                let segs = if n.ident == "self" {
                    join(None)
                } else {
                    join(Some(n.ident.to_string()))
                };
                let alias = segs.last().cloned().unwrap_or_default();
                self.alias(alias, &segs);
                self.push(segs, n.ident.span().start().line);
            }
            syn::UseTree::Rename(r) => {
                let segs = if r.ident == "self" {
                    join(None)
                } else {
                    join(Some(r.ident.to_string()))
                };
                self.alias(r.rename.to_string(), &segs);
                self.push(segs, r.ident.span().start().line);
            }
            syn::UseTree::Glob(g) => {
                let segs = join(None);
                let scope = self.out.scopes.entry(self.module.clone()).or_default();
                scope.globs.push(segs.clone());
                self.push(segs, g.star_token.spans[0].start().line);
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(t, prefix);
                }
            }
        }
    }

    fn alias(&mut self, name: String, segs: &[String]) {
        if name != "_" && !segs.is_empty() {
            let scope = self.out.scopes.entry(self.module.clone()).or_default();
            scope.aliases.insert(name, segs.to_vec());
        }
    }

    /// `a::b::c` runs in a macro's tokens (which `syn` cannot parse as one grammar).
    fn tokens(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < trees.len() {
            if let TokenTree::Group(g) = &trees[i] {
                self.tokens(g.stream());
                i += 1;
                continue;
            }
            let TokenTree::Ident(first) = &trees[i] else {
                i += 1;
                continue;
            };
            let line = first.span().start().line;
            let mut segs = vec![first.to_string()];
            i += 1;
            while let (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)), Some(TokenTree::Ident(id))) =
                (trees.get(i), trees.get(i + 1), trees.get(i + 2))
            {
                if a.as_char() != ':' || b.as_char() != ':' {
                    break;
                }
                segs.push(id.to_string());
                i += 3;
            }
            if segs.len() > 1 {
                self.push(segs, line);
            }
        }
    }
}

impl<'a> Visit<'a> for Collector {
    fn visit_item(&mut self, item: &'a syn::Item) {
        let attrs: &[syn::Attribute] = match item {
            syn::Item::Const(i) => &i.attrs,
            syn::Item::Enum(i) => &i.attrs,
            syn::Item::Fn(i) => &i.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Macro(i) => &i.attrs,
            syn::Item::Mod(i) => &i.attrs,
            syn::Item::Static(i) => &i.attrs,
            syn::Item::Struct(i) => &i.attrs,
            syn::Item::Trait(i) => &i.attrs,
            syn::Item::Type(i) => &i.attrs,
            syn::Item::Use(i) => &i.attrs,
            _ => &[],
        };
        self.guarded(attrs, |c| visit::visit_item(c, item));
    }

    fn visit_item_mod(&mut self, m: &'a syn::ItemMod) {
        // Out-of-line modules are files of their own; inline ones open a new scope.
        if let Some((_, items)) = &m.content {
            self.module.push(m.ident.to_string());
            self.visit_items(items);
            self.module.pop();
        }
    }

    fn visit_item_use(&mut self, u: &'a syn::ItemUse) {
        let root = u.leading_colon.map(|_| vec!["".to_string()]).unwrap_or_default();
        self.reexport = !matches!(u.vis, syn::Visibility::Inherited);
        self.use_tree(&u.tree, &root);
        self.reexport = false;
    }

    fn visit_impl_item_fn(&mut self, f: &'a syn::ImplItemFn) {
        self.guarded(&f.attrs, |c| visit::visit_impl_item_fn(c, f));
    }

    fn visit_path(&mut self, p: &'a syn::Path) {
        let segs = p.segments.iter().map(|s| s.ident.to_string()).collect::<Vec<_>>();
        let line = p.segments.first().map_or(0, |s| s.ident.span().start().line);
        if segs.len() > 1 && p.leading_colon.is_none() {
            self.push(segs, line);
        }
        visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'a syn::Macro) {
        self.visit_path(&m.path);
        self.tokens(m.tokens.clone());
    }

    // `pub(in crate::x)` names no dependency.
    fn visit_vis_restricted(&mut self, _: &'a syn::VisRestricted) {}

    /// Attributes name code too: `#[schemars(transform = crate::x::f)]` in their tokens and
    /// `#[serde(skip_serializing_if = "super::x::f")]` in a string. Doc text never counts.
    fn visit_attribute(&mut self, attr: &'a syn::Attribute) {
        if attr.path().is_ident("doc") {
            return;
        }
        let syn::Meta::List(list) = &attr.meta else {
            return;
        };
        self.tokens(list.tokens.clone());
        self.string_paths(list.tokens.clone());
    }
}

impl Collector {
    /// String literals in an attribute's tokens that are exactly a path of two or more segments.
    fn string_paths(&mut self, tokens: TokenStream) {
        for tree in tokens {
            match tree {
                TokenTree::Group(g) => self.string_paths(g.stream()),
                TokenTree::Literal(lit) => {
                    let line = lit.span().start().line;
                    if let Ok(syn::Lit::Str(s)) = syn::parse_str::<syn::Lit>(&lit.to_string())
                        && let Some(segs) = path_in_string(&s.value())
                    {
                        self.push(segs, line);
                    }
                }
                _ => {}
            }
        }
    }
}

/// `a::b::c` (identifiers only, two or more) as its segments; anything else is not a path.
fn path_in_string(text: &str) -> Option<Vec<String>> {
    let segs: Vec<String> = text.split("::").map(str::to_string).collect();
    let ident = |s: &String| {
        let mut chars = s.chars();
        chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    (segs.len() > 1 && segs.iter().all(ident)).then_some(segs)
}

/// The name an item defines in its module's namespace, if it defines one.
fn defined_name(item: &syn::Item) -> Option<String> {
    let ident = match item {
        syn::Item::Const(i) => &i.ident,
        syn::Item::Enum(i) => &i.ident,
        syn::Item::Fn(i) => &i.sig.ident,
        syn::Item::Static(i) => &i.ident,
        syn::Item::Struct(i) => &i.ident,
        syn::Item::Trait(i) => &i.ident,
        syn::Item::Type(i) => &i.ident,
        syn::Item::Union(i) => &i.ident,
        syn::Item::Macro(i) => i.ident.as_ref()?,
        _ => return None,
    };
    Some(ident.to_string())
}
