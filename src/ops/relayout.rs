//! Moving modules inside a project's library crate, for `opgen edit --multigroup`: each API
//! version, controller and webhook module goes into (or out of) its group's module.
//!
//! Paths are rewritten token by token in the source text, so formatting and comments stay.
//! Every path is resolved as rustc would for the cases opgen can see (`crate::`, the crate's
//! name from tests and `main.rs`, `self::`/`super::`, child modules, glob imports); a path that
//! names a moved module in a way opgen cannot resolve is refused with its location rather than
//! guessed at.

use crate::diag::{Diagnostic, Location};
use crate::load::{self, ModPath, ModuleTree, UseKind, parse};
use proc_macro2::{Span, TokenStream, TokenTree};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// The module moves of one edit.
#[derive(Debug, Clone, Default)]
pub struct Moves {
    /// (from, to), disjoint.
    pub moves: Vec<(ModPath, ModPath)>,
    /// Modules that no longer exist afterwards (the group modules, when leaving multigroup).
    pub vanishing: Vec<ModPath>,
    /// The library's crate name, as tests and `main.rs` write it.
    pub crate_name: String,
}

impl Moves {
    /// Where `path` is after the moves.
    pub fn map(&self, path: &[String]) -> ModPath {
        for (from, to) in &self.moves {
            if path.starts_with(from) {
                let mut out = to.clone();
                out.extend_from_slice(&path[from.len()..]);
                return out;
            }
        }
        path.to_vec()
    }

    /// Names that, unresolved at the start of a path, may well mean a moved module.
    fn suspicious(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for (from, to) in &self.moves {
            let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
            out.extend(from[common..].iter().cloned());
        }
        out
    }
}

/// How a file sees the library.
#[derive(Debug, Clone)]
pub enum FileKind {
    /// A file of the library's module tree, at this module path (before the moves).
    Lib(ModPath),
    /// Another crate of the package (tests, `main.rs`, examples): it names the library by name.
    External,
}

/// `text` with every path that the moves change rewritten. `file` names the file in errors.
pub fn rewrite_paths(
    file: &Path,
    text: &str,
    kind: &FileKind,
    tree: &ModuleTree,
    moves: &Moves,
) -> std::result::Result<String, Vec<Diagnostic>> {
    let ast = parse(file, text).map_err(|e| e.diagnostics)?;
    let mut scan = UseScan::default();
    let (lib, start) = match kind {
        FileKind::Lib(m) => (true, m.clone()),
        FileKind::External => (false, Vec::new()),
    };
    scan.module = start.clone();
    scan.visit_file(&ast);
    // Names that stand for the library: its own, and aliases of it.
    let mut crate_names: BTreeSet<String> = BTreeSet::from([moves.crate_name.clone()]);
    for (name, alias) in &scan.crate_aliases {
        if *name == moves.crate_name || (lib && name == "self") {
            crate_names.insert(alias.clone());
        }
    }
    let mut rw = Rewriter {
        file,
        text,
        lib,
        crate_names,
        module: start,
        tree,
        moves,
        suspicious: moves.suspicious(),
        bound: BTreeMap::new(),
        globs: BTreeMap::new(),
        reexport: false,
        edits: Vec::new(),
        problems: Vec::new(),
    };
    // Glob imports, resolved before the rewrite needs them.
    for (module, prefixes) in &scan.globs {
        for segs in prefixes {
            rw.module = module.clone();
            if let Some((anchor, len, _)) = rw.anchor(segs) {
                let mut target = anchor;
                target.extend(segs[len..].iter().map(|s| s.name.clone()));
                rw.globs.entry(module.clone()).or_default().push(target);
            }
        }
    }
    // What each imported name stands for: `None` when opgen cannot tell (another crate's
    // item, or one name bound to two things in the file).
    let mut bound: BTreeMap<String, Option<ModPath>> = BTreeMap::new();
    for (module, name, segs) in &scan.bound {
        rw.module = module.clone();
        let target = rw.anchor(segs).map(|(anchor, len, _)| {
            let mut target = anchor;
            target.extend(segs[len..].iter().map(|s| s.name.clone()));
            target
        });
        bound
            .entry(name.clone())
            .and_modify(|t| {
                if *t != target {
                    *t = None;
                }
            })
            .or_insert(target);
    }
    rw.bound = bound;
    rw.module = match kind {
        FileKind::Lib(m) => m.clone(),
        FileKind::External => Vec::new(),
    };
    rw.visit_file(&ast);
    if !rw.problems.is_empty() {
        return Err(rw.problems);
    }
    apply_edits(file, text, rw.edits)
}

fn apply_edits(
    file: &Path,
    text: &str,
    mut edits: Vec<(usize, usize, String)>,
) -> std::result::Result<String, Vec<Diagnostic>> {
    edits.sort();
    edits.dedup();
    for pair in edits.windows(2) {
        if pair[1].0 < pair[0].1 || (pair[1].0 == pair[0].0 && pair[0].0 == pair[0].1) {
            let (line, column) = line_col(text, pair[1].0);
            return Err(vec![
                Diagnostic::error("two rewrites of this path disagree")
                    .at(Location::new(file, line, column).with_source(text, 1))
                    .help(
                        "write the path from the crate root (`crate::…`) and run the command again",
                    ),
            ]);
        }
    }
    let mut out = text.to_owned();
    for (start, end, with) in edits.into_iter().rev() {
        out.replace_range(start..end, &with);
    }
    Ok(out)
}

fn line_col(text: &str, byte: usize) -> (usize, usize) {
    let before = &text[..byte];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, column)
}

#[derive(Debug, Clone)]
struct Seg {
    name: String,
    span: Span,
    /// The first segment inside a `{ … }` of a use tree.
    group_start: bool,
}

fn seg(ident: &proc_macro2::Ident) -> Seg {
    Seg {
        name: ident.to_string(),
        span: ident.span(),
        group_start: false,
    }
}

/// The names `use` binds in the file (with their module and path), and each module's glob
/// imports.
#[derive(Default)]
struct UseScan {
    module: ModPath,
    bound: Vec<(ModPath, String, Vec<Seg>)>,
    globs: BTreeMap<ModPath, Vec<Vec<Seg>>>,
    /// `extern crate <name> as <alias>;` (or `extern crate self as <alias>;`): (name, alias).
    crate_aliases: Vec<(String, String)>,
}

impl<'ast> Visit<'ast> for UseScan {
    fn visit_item_extern_crate(&mut self, e: &'ast syn::ItemExternCrate) {
        if let Some((_, alias)) = &e.rename {
            self.crate_aliases
                .push((e.ident.to_string(), alias.to_string()));
        }
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        self.module.push(m.ident.to_string());
        syn::visit::visit_item_mod(self, m);
        self.module.pop();
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        if u.leading_colon.is_some() {
            return;
        }
        for leaf in use_leaves(&u.tree) {
            match leaf.kind {
                UseKind::Glob(_) => self
                    .globs
                    .entry(self.module.clone())
                    .or_default()
                    .push(leaf.segs),
                UseKind::Name | UseKind::SelfName(_) => {
                    if let Some(last) = leaf.segs.last() {
                        let name = last.name.clone();
                        self.bound.push((self.module.clone(), name, leaf.segs));
                    }
                }
                UseKind::Rename(name) => {
                    self.bound
                        .push((self.module.clone(), name.to_string(), leaf.segs));
                }
            }
        }
    }
}

struct UseLeaf<'a> {
    segs: Vec<Seg>,
    kind: UseKind<'a>,
}

/// [`load::use_leaves`] with each segment's name and span.
fn use_leaves(tree: &syn::UseTree) -> Vec<UseLeaf<'_>> {
    load::use_leaves(tree)
        .into_iter()
        .map(|leaf| UseLeaf {
            segs: leaf
                .path
                .iter()
                .map(|(ident, group_start)| Seg {
                    group_start: *group_start,
                    ..seg(ident)
                })
                .collect(),
            kind: leaf.kind,
        })
        .collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Anchor {
    /// `crate::` or the crate's name.
    Root,
    /// `self::` or `super::`…
    Relative,
    /// A name in scope: a child module, or one of a glob import's.
    Implicit,
    /// A name a `use` imported: the path goes on from what it names.
    Imported,
}

struct Rewriter<'a> {
    file: &'a Path,
    text: &'a str,
    lib: bool,
    crate_names: BTreeSet<String>,
    module: ModPath,
    tree: &'a ModuleTree,
    moves: &'a Moves,
    suspicious: BTreeSet<String>,
    bound: BTreeMap<String, Option<ModPath>>,
    globs: BTreeMap<ModPath, Vec<ModPath>>,
    /// The `use` being visited is `pub` (a re-export).
    reexport: bool,
    edits: Vec<(usize, usize, String)>,
    problems: Vec<Diagnostic>,
}

impl Rewriter<'_> {
    /// The module a path starts from (before the moves) and how many of its segments say so.
    fn anchor(&self, segs: &[Seg]) -> Option<(ModPath, usize, Anchor)> {
        let first = segs.first()?.name.as_str();
        match first {
            "crate" if self.lib => Some((Vec::new(), 1, Anchor::Root)),
            "self" if self.lib => Some((self.module.clone(), 1, Anchor::Relative)),
            "super" if self.lib => {
                let n = segs.iter().take_while(|s| s.name == "super").count();
                (n <= self.module.len()).then(|| {
                    (
                        self.module[..self.module.len() - n].to_vec(),
                        n,
                        Anchor::Relative,
                    )
                })
            }
            name if self.crate_names.contains(name) => Some((Vec::new(), 1, Anchor::Root)),
            name => {
                let mut child = self.module.clone();
                child.push(name.to_owned());
                if self.lib && self.tree.modules.contains(&child) {
                    return Some((self.module.clone(), 0, Anchor::Implicit));
                }
                if let Some(target) = self.bound.get(name) {
                    return target.clone().map(|t| (t, 1, Anchor::Imported));
                }
                self.globs
                    .get(&self.module)
                    .into_iter()
                    .flatten()
                    .find(|target| {
                        let mut child = (*target).clone();
                        child.push(name.to_owned());
                        self.tree.modules.contains(&child)
                    })
                    .map(|target| (target.clone(), 0, Anchor::Implicit))
            }
        }
    }

    fn location(&self, span: Span) -> Location {
        let start = span.start();
        Location::new(self.file, start.line, start.column + 1)
            .with_source(self.text, span.end().column.saturating_sub(start.column))
    }

    fn refuse(&mut self, span: Span, what: String) {
        self.problems.push(
            Diagnostic::error(what)
                .at(self.location(span))
                .help("write the path from the crate root (`crate::…`, or the crate's name outside it) and run the command again, or fix it by hand afterwards"),
        );
    }

    fn process(&mut self, segs: &[Seg], glob: bool) {
        let Some(first) = segs.first() else { return };
        let shown = segs
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>()
            .join("::");
        let Some((anchor_mod, anchor_len, anchor)) = self.anchor(segs) else {
            if segs.len() >= 2
                && self.suspicious.contains(&first.name)
                && !self.bound.contains_key(&first.name)
            {
                self.refuse(
                    first.span,
                    format!("cannot tell which module `{shown}` names, so it cannot be moved"),
                );
            }
            return;
        };
        let mut old: ModPath = anchor_mod.clone();
        old.extend(segs[anchor_len..].iter().map(|s| s.name.clone()));
        if let Some(gone) = self.moves.vanishing.iter().find(|v| {
            old.starts_with(v)
                && !self
                    .moves
                    .moves
                    .iter()
                    .any(|(from, _)| old.starts_with(from))
        }) {
            self.refuse(
                first.span,
                format!(
                    "`{shown}` names the module `{}`, which this change removes",
                    gone.join("::")
                ),
            );
            return;
        }
        // A glob re-export hands its modules to code opgen cannot follow (other crates, or
        // paths through the re-export): one of them going is refused like a `use` of it.
        if glob
            && self.reexport
            && let Some(gone) = self
                .moves
                .vanishing
                .iter()
                .find(|v| v.len() == old.len() + 1 && v.starts_with(&old))
        {
            self.refuse(
                first.span,
                format!(
                    "`{shown}::*` re-exports the module `{}`, which this change removes",
                    gone.join("::")
                ),
            );
            return;
        }
        let new_abs = self.moves.map(&old);
        let new_anchor = match anchor {
            Anchor::Root => Vec::new(),
            Anchor::Relative => {
                let here = self.moves.map(&self.module);
                let ups = if first.name == "self" { 0 } else { anchor_len };
                here[..here.len().saturating_sub(ups)].to_vec()
            }
            Anchor::Implicit => self.moves.map(&anchor_mod),
            // The `use` is rewritten too: the name stands for the moved item.
            Anchor::Imported => self.moves.map(&anchor_mod),
        };
        let names: Vec<String> = segs.iter().map(|s| s.name.clone()).collect();
        // The same anchor words, if they still lead to the moved path.
        let relative = new_abs.starts_with(&new_anchor).then(|| {
            let mut v: Vec<String> = names[..anchor_len].to_vec();
            v.extend(new_abs[new_anchor.len()..].iter().cloned());
            v
        });
        let new = match relative {
            Some(v) if v == names => return,
            Some(v) if new_anchor == self.moves.map(&anchor_mod) => v,
            _ if self.lib => {
                let mut v = vec!["crate".to_owned()];
                v.extend(new_abs.iter().cloned());
                v
            }
            _ => return,
        };
        self.diff(segs, &new, glob, &shown);
    }

    fn diff(&mut self, old: &[Seg], new: &[String], glob: bool, shown: &str) {
        // The common end first: the last segment is the name a `use` binds, so
        // `controllers::cache` → `controllers::cache::cache` (a kind named like its group)
        // gains the group before it, keeping what the path ends in.
        let s = old
            .iter()
            .rev()
            .zip(new.iter().rev())
            .take_while(|(o, n)| o.name == **n)
            .count();
        let p = old[..old.len() - s]
            .iter()
            .zip(&new[..new.len() - s])
            .take_while(|(o, n)| o.name == **n)
            .count();
        let old_mid = &old[p..old.len() - s];
        let new_mid = &new[p..new.len() - s];
        if old_mid.is_empty() && new_mid.is_empty() {
            return;
        }
        let span_of = |i: usize| old[i].span.byte_range();
        if s == 0 && !glob {
            self.refuse(
                old[old.len() - 1].span,
                format!("`{shown}` ends in a module this change moves or removes"),
            );
            return;
        }
        if old_mid.iter().skip(1).any(|s| s.group_start) {
            self.refuse(
                old[p].span,
                format!("`{shown}` spans a `{{…}}` group at the part this change rewrites"),
            );
            return;
        }
        if old_mid.is_empty() {
            let edit = if s > 0 {
                let at = span_of(p).start;
                (at, at, format!("{}::", new_mid.join("::")))
            } else {
                let at = span_of(old.len() - 1).end;
                (at, at, format!("::{}", new_mid.join("::")))
            };
            self.edits.push(edit);
            return;
        }
        let start = span_of(p).start;
        let last_end = span_of(p + old_mid.len() - 1).end;
        if new_mid.is_empty() {
            if p == 0 && s == 0 {
                self.refuse(old[0].span, format!("cannot rewrite `{shown}`"));
                return;
            }
            // Removed segments take their `::` with them.
            let rest = &self.text[last_end..];
            let trimmed = rest.trim_start();
            let Some(after) = trimmed.strip_prefix("::") else {
                self.refuse(old[p].span, format!("cannot rewrite `{shown}`"));
                return;
            };
            let end = self.text.len() - after.trim_start().len();
            self.edits.push((start, end, String::new()));
        } else {
            self.edits.push((start, last_end, new_mid.join("::")));
        }
    }

    /// Where the file at `path` (under src/) is after the moves.
    fn map_file(&self, path: &Path) -> PathBuf {
        for (from, to) in &self.moves.moves {
            let dir = Path::new("src").join(from.join("/"));
            let new_dir = Path::new("src").join(to.join("/"));
            if let Ok(rest) = path.strip_prefix(&dir) {
                return new_dir.join(rest);
            }
            if path == dir.with_extension("rs") {
                return new_dir.with_extension("rs");
            }
        }
        path.to_path_buf()
    }

    /// A file path relative to this file (`#[path]`, `include_str!`…) is not rewritten: it is
    /// refused unless it leads to the same file after the moves.
    fn check_file_path(&mut self, lit: &syn::LitStr, what: &str) {
        let resolve = |from: &Path| {
            let mut target = from.parent().map(Path::to_path_buf).unwrap_or_default();
            for part in Path::new(&lit.value()).components() {
                match part {
                    std::path::Component::ParentDir => {
                        target.pop();
                    }
                    std::path::Component::Normal(p) => target.push(p),
                    _ => {}
                }
            }
            target
        };
        let before = resolve(self.file);
        let after = resolve(&self.map_file(self.file));
        let wanted = self.map_file(&before);
        // A file under a module that goes away without a move goes with it.
        let vanishes = wanted == before
            && self.moves.vanishing.iter().any(|gone| {
                let dir = Path::new("src").join(gone.join("/"));
                before.starts_with(&dir) || before == dir.with_extension("rs")
            });
        if after != wanted || vanishes {
            self.problems.push(
                Diagnostic::error(format!(
                    "{what} {:?}: opgen does not rewrite file paths, and after this change it would lead to {} instead of {}",
                    lit.value(),
                    after.display(),
                    wanted.display()
                ))
                .at(self.location(lit.span()))
                .help("replace it with a `mod`/`crate::` path, or move the file by hand after the command; nothing was written"),
            );
        }
    }

    fn scan_tokens(&mut self, tokens: TokenStream) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < tokens.len() {
            match &tokens[i] {
                TokenTree::Group(g) => {
                    self.scan_tokens(g.stream());
                    i += 1;
                }
                TokenTree::Ident(ident) => {
                    let is_punct = |t: &TokenTree, c: char| matches!(t, TokenTree::Punct(p) if p.as_char() == c);
                    // The middle of a longer path, or a macro variable: not a path start.
                    let after_colons =
                        i >= 2 && is_punct(&tokens[i - 1], ':') && is_punct(&tokens[i - 2], ':');
                    // `::name::…` starts a path when nothing comes before the `::`.
                    let leading_colons = after_colons
                        && self.crate_names.contains(&ident.to_string())
                        && (i < 3
                            || !(matches!(&tokens[i - 3], TokenTree::Ident(_))
                                || is_punct(&tokens[i - 3], '>')));
                    // `$crate` in a macro body is `crate`.
                    let dollar_crate = i >= 1 && is_punct(&tokens[i - 1], '$') && ident == "crate";
                    let preceded = (after_colons && !leading_colons)
                        || (i >= 1 && is_punct(&tokens[i - 1], '$') && !dollar_crate);
                    let mut segs = vec![seg(ident)];
                    let mut j = i + 1;
                    while j + 2 < tokens.len()
                        && is_punct(&tokens[j], ':')
                        && is_punct(&tokens[j + 1], ':')
                    {
                        let TokenTree::Ident(next) = &tokens[j + 2] else {
                            break;
                        };
                        segs.push(seg(next));
                        j += 3;
                    }
                    if !preceded && segs.len() >= 2 {
                        self.process(&segs, false);
                    }
                    i = j;
                }
                _ => i += 1,
            }
        }
    }
}

impl<'ast> Visit<'ast> for Rewriter<'_> {
    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.reexport = !matches!(u.vis, syn::Visibility::Inherited);
        for leaf in use_leaves(&u.tree) {
            // `::name::…` is another crate's path, unless it names the library.
            if u.leading_colon.is_some()
                && leaf
                    .segs
                    .first()
                    .is_none_or(|s| !self.crate_names.contains(&s.name))
            {
                continue;
            }
            self.process(&leaf.segs, matches!(leaf.kind, UseKind::Glob(_)));
        }
        self.reexport = false;
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        for lit in m
            .attrs
            .iter()
            .filter_map(|a| load::str_attr(&a.meta, "path"))
        {
            self.check_file_path(lit, "#[path]");
        }
        self.module.push(m.ident.to_string());
        syn::visit::visit_item_mod(self, m);
        self.module.pop();
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let own_crate = p
            .segments
            .first()
            .is_some_and(|s| self.crate_names.contains(&s.ident.to_string()));
        if (p.leading_colon.is_none() || own_crate) && p.segments.len() >= 2 {
            let segs: Vec<Seg> = p.segments.iter().map(|s| seg(&s.ident)).collect();
            self.process(&segs, false);
        }
        syn::visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        let name = m.path.segments.last().map(|s| s.ident.to_string());
        if let Some(name @ ("include_str" | "include_bytes" | "include")) = name.as_deref()
            && let Ok(lit) = m.parse_body::<syn::LitStr>()
        {
            self.check_file_path(&lit, &format!("{name}!"));
        }
        self.scan_tokens(m.tokens.clone());
        syn::visit::visit_macro(self, m);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> ModPath {
        s.split("::").map(str::to_owned).collect()
    }

    fn forward() -> Moves {
        Moves {
            moves: vec![
                (p("api::v1"), p("api::cache::v1")),
                (
                    p("controllers::memcached"),
                    p("controllers::cache::memcached"),
                ),
            ],
            vanishing: Vec::new(),
            crate_name: "demo".to_owned(),
        }
    }

    fn tree() -> ModuleTree {
        let mut tree = ModuleTree::default();
        for m in [
            "",
            "api",
            "api::v1",
            "api::v1::memcached_types",
            "controllers",
            "controllers::memcached",
            "controllers::backoff",
            "controllers::tests",
        ] {
            tree.modules
                .insert(if m.is_empty() { Vec::new() } else { p(m) });
        }
        tree
    }

    fn rewrite(text: &str, kind: FileKind, moves: &Moves) -> std::result::Result<String, String> {
        rewrite_paths(Path::new("src/x.rs"), text, &kind, &tree(), moves)
            .map_err(|d| d.iter().map(ToString::to_string).collect::<String>())
    }

    #[test]
    fn registry_entries_and_uses_get_the_group() {
        let text = "use crate::api::v1::Memcached;\nuse crate::api::{v1, self};\npub mod memcached;\npub const ALL: &[E] = &[\n    memcached::CONTROLLER,\n];\n#[cfg(test)]\nmod tests {\n    use super::*;\n    fn f() { assert!(matches!(memcached::X, _)); let _ = memcached::Y; }\n}\n";
        let out = rewrite(text, FileKind::Lib(p("controllers")), &forward()).unwrap();
        assert_eq!(
            out,
            "use crate::api::cache::v1::Memcached;\nuse crate::api::{cache::v1, self};\npub mod memcached;\npub const ALL: &[E] = &[\n    cache::memcached::CONTROLLER,\n];\n#[cfg(test)]\nmod tests {\n    use super::*;\n    fn f() { assert!(matches!(cache::memcached::X, _)); let _ = cache::memcached::Y; }\n}\n"
        );
    }

    #[test]
    fn a_moved_file_keeps_what_its_relative_paths_meant() {
        let text = "use super::backoff::Backoff;\nuse super::{backoff, conditions};\nuse crate::api::v1::Memcached;\nmod tests {\n    use super::*;\n}\n";
        let out = rewrite(text, FileKind::Lib(p("controllers::memcached")), &forward()).unwrap();
        assert_eq!(
            out,
            "use crate::controllers::backoff::Backoff;\nuse crate::controllers::{backoff, conditions};\nuse crate::api::cache::v1::Memcached;\nmod tests {\n    use super::*;\n}\n"
        );
    }

    #[test]
    fn tests_name_the_crate() {
        let text = "use demo::api::v1::Memcached;\nuse demo::{PROJECT_NAME, controllers::memcached};\nfn f() { memcached::CONTROLLER; demo::controllers::memcached::X; }\n";
        let out = rewrite(text, FileKind::External, &forward()).unwrap();
        assert_eq!(
            out,
            "use demo::api::cache::v1::Memcached;\nuse demo::{PROJECT_NAME, controllers::cache::memcached};\nfn f() { memcached::CONTROLLER; demo::controllers::cache::memcached::X; }\n"
        );
    }

    #[test]
    fn leaving_a_group_removes_it_from_paths() {
        let moves = Moves {
            moves: vec![(p("api::cache::v1"), p("api::v1"))],
            vanishing: vec![p("api::cache")],
            crate_name: "demo".to_owned(),
        };
        let out = rewrite(
            "use crate::api::cache::{v1};\nuse crate::api::cache :: v1::Memcached;\n",
            FileKind::Lib(Vec::new()),
            &moves,
        )
        .unwrap();
        assert_eq!(
            out,
            "use crate::api::{v1};\nuse crate::api::v1::Memcached;\n"
        );
        let err = rewrite(
            "use crate::api::cache;\n",
            FileKind::Lib(Vec::new()),
            &moves,
        )
        .unwrap_err();
        assert!(err.contains("src/x.rs:1:5"), "{err}");
        assert!(
            err.contains("names the module `api::cache`, which this change removes"),
            "{err}"
        );
    }

    #[test]
    fn an_unresolvable_path_to_a_moved_module_is_refused_with_its_place() {
        let err = rewrite(
            "use crate::api;\nfn f() {\n    let _ = api::x();\n    let _: v1::Memcached;\n}\n",
            FileKind::Lib(p("other")),
            &forward(),
        )
        .unwrap_err();
        assert!(
            err.contains("cannot tell which module `v1::Memcached` names"),
            "{err}"
        );
        assert!(err.contains("src/x.rs:4:12"), "{err}");
        // Bound by a use, the name is fine: the use itself is rewritten.
        let out = rewrite(
            "use crate::api::v1;\nfn f() { let _: v1::Memcached; }\n",
            FileKind::Lib(p("other")),
            &forward(),
        )
        .unwrap();
        assert_eq!(
            out,
            "use crate::api::cache::v1;\nfn f() { let _: v1::Memcached; }\n"
        );
    }

    /// Issue 24: `controllers::cache` → `controllers::cache::cache` keeps the name the `use`
    /// binds (it was refused as ending in a moved module), and back.
    #[test]
    fn a_kind_named_like_its_group_gains_the_group_before_it() {
        let forward = Moves {
            moves: vec![(p("controllers::cache"), p("controllers::cache::cache"))],
            vanishing: Vec::new(),
            crate_name: "demo".to_owned(),
        };
        let single = "use demo::{PROJECT_NAME, controllers::cache};\nfn f() { demo::controllers::cache::CONTROLLER; }\n";
        let multi = "use demo::{PROJECT_NAME, controllers::cache::cache};\nfn f() { demo::controllers::cache::cache::CONTROLLER; }\n";
        assert_eq!(
            rewrite(single, FileKind::External, &forward).unwrap(),
            multi
        );
        let back = Moves {
            moves: vec![(p("controllers::cache::cache"), p("controllers::cache"))],
            vanishing: vec![p("controllers::cache")],
            crate_name: "demo".to_owned(),
        };
        assert_eq!(rewrite(multi, FileKind::External, &back).unwrap(), single);
    }

    /// Issue 24: a `pub use …::*` of a module one of whose modules goes re-exports it.
    #[test]
    fn a_glob_reexport_of_a_removed_module_is_refused() {
        let moves = Moves {
            moves: Vec::new(),
            vanishing: vec![p("api::v1::memcached_types")],
            crate_name: "demo".to_owned(),
        };
        let err = rewrite(
            "pub use crate::api::v1::*;\n",
            FileKind::Lib(Vec::new()),
            &moves,
        )
        .unwrap_err();
        assert!(
            err.contains("`crate::api::v1::*` re-exports the module `api::v1::memcached_types`"),
            "{err}"
        );
        assert!(err.contains("src/x.rs:1:9"), "{err}");
        // A private glob binds names for its module only: the paths through it are checked.
        let text = "use crate::api::v1::*;\n";
        assert_eq!(
            rewrite(text, FileKind::Lib(Vec::new()), &moves).unwrap(),
            text
        );
    }

    #[test]
    fn imported_names_lead_on_to_what_they_import() {
        let text = "use crate::controllers::{self, memcached as m};
use kube::Api;
fn f() { controllers::memcached::X; m::Y; vec![controllers::backoff::Z]; Api::all(); }
";
        let out = rewrite(text, FileKind::Lib(p("other")), &forward()).unwrap();
        assert_eq!(
            out,
            "use crate::controllers::{self, cache::memcached as m};
use kube::Api;
fn f() { controllers::cache::memcached::X; m::Y; vec![controllers::backoff::Z]; Api::all(); }
"
        );
    }
}
