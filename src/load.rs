//! Load: find and parse the project's Rust sources with syn, keeping spans.
//!
//! Nothing is compiled. Every file is parsed even when an earlier one fails, so that
//! all syntax errors are reported at once.

use crate::diag::{Diagnostic, Error, Location, Result};
use crate::writer::{Stamp, Workspace};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

mod hollow;
mod nesting;
mod raw_docs;

pub use raw_docs::merged_doc_lines;

/// Every Rust file of this repository (fixtures and examples included) and its text: a corpus
/// of real code for the tests of what rewrites a text before it is lexed.
#[cfg(test)]
fn repository_rust_files() -> impl Iterator<Item = (PathBuf, String)> {
    walkdir::WalkDir::new(env!("CARGO_MANIFEST_DIR"))
        .into_iter()
        .filter_entry(|e| e.file_name() != "target" && e.file_name() != ".git")
        .map(|entry| entry.unwrap().into_path())
        .filter(|path| path.extension().is_some_and(|e| e == "rs"))
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            (path, text)
        })
}

pub struct SourceFile {
    /// Relative to the project root, e.g. `src/api/v1alpha1/memcached_types.rs`.
    pub path: PathBuf,
    /// Module path from the crate root, e.g. `["api", "v1alpha1", "memcached_types"]`.
    pub module: Vec<String>,
    pub text: String,
    pub ast: syn::File,
    /// Line ranges (first, last) that syn did not see and that hold no comments: the
    /// multi-line literals of the function bodies and the test modules [`hollow`] blanked.
    pub skipped: LineRanges,
}

/// Line ranges (first, last), both included.
pub type LineRanges = Vec<(usize, usize)>;

impl std::fmt::Debug for SourceFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SourceFile")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

/// A file's path and text: all that diagnostics need after the model is built. Unlike syn's
/// tree (its spans index a thread-local source map), it can be shared between threads.
#[derive(Debug, Clone, Copy)]
pub struct SourceText<'a> {
    pub path: &'a Path,
    pub text: &'a str,
}

impl SourceText<'_> {
    pub fn location(&self, line: usize, column: usize, width: usize) -> Location {
        Location::new(self.path, line, column).with_source(self.text, width)
    }
}

impl SourceFile {
    pub fn source(&self) -> SourceText<'_> {
        SourceText {
            path: &self.path,
            text: &self.text,
        }
    }

    /// The directory module ("package") the file belongs to, e.g. `["api", "v1alpha1"]`.
    pub fn package(&self) -> &[String] {
        let stem = self.path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        if matches!(stem, "mod" | "lib" | "main") {
            &self.module
        } else {
            &self.module[..self.module.len().saturating_sub(1)]
        }
    }

    pub fn location(&self, line: usize, column: usize, width: usize) -> Location {
        self.source().location(line, column, width)
    }
}

/// A module path below the crate root, e.g. `["api", "v1"]`.
pub type ModPath = Vec<String>;

/// The library's module tree, read from its `mod` declarations from `src/lib.rs` on, the files
/// found as rustc finds them (`#[path]` included): the module of each file module, and every
/// module, inline ones included. [`load`] takes the module of each file it reads from here,
/// and `edit`'s relayout its whole tree.
#[derive(Debug, Default)]
pub struct ModuleTree {
    pub files: BTreeMap<PathBuf, ModPath>,
    pub modules: BTreeSet<ModPath>,
}

pub const LIB_RS: &str = "src/lib.rs";

/// The module tree of the library at `src/lib.rs`; a file on the way that does not parse is an
/// error.
pub fn module_tree(ws: &Workspace) -> Result<ModuleTree> {
    walk_module_tree(
        Path::new(LIB_RS),
        |file| ws.read(file),
        |file| ws.exists(file),
        |file, text| parse(file, text).map(Some),
    )
}

/// The module of each file module reached from `<dir>/lib.rs`, the texts being `texts`. Only
/// files that may declare a file module (`mod name;`) are parsed, so the tree's `modules` are
/// those of the files on the way only; a file that does not parse declares none.
fn file_modules(dir: &Path, texts: &BTreeMap<PathBuf, String>) -> BTreeMap<PathBuf, ModPath> {
    let tree = walk_module_tree(
        &dir.join("lib.rs"),
        |file| Ok(texts.get(file).cloned()),
        |file| texts.contains_key(file),
        |file, text| {
            Ok(declares_file_module(text)
                .then(|| parse_source(file, text).ok().map(|(ast, _)| ast))
                .flatten())
        },
    );
    tree.map(|t| t.files).unwrap_or_default()
}

/// The tree from `root`, each file read with `read` and parsed with `parse` (`None`: the file
/// declares no modules).
fn walk_module_tree(
    root: &Path,
    mut read: impl FnMut(&Path) -> Result<Option<String>>,
    exists: impl Fn(&Path) -> bool,
    mut parse: impl FnMut(&Path, &str) -> Result<Option<syn::File>>,
) -> Result<ModuleTree> {
    let mut tree = ModuleTree::default();
    tree.modules.insert(Vec::new());
    // (file, its module, whether it is a mod-rs file: its child modules are beside it)
    let mut queue = vec![(root.to_path_buf(), Vec::new(), true)];
    while let Some((file, module, mod_rs)) = queue.pop() {
        let Some(text) = read(&file)? else {
            continue;
        };
        if let Some(ast) = parse(&file, &text)? {
            let here = file.parent().map(Path::to_path_buf).unwrap_or_default();
            let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
            let dir = if mod_rs || matches!(stem, "lib" | "mod") {
                here.clone()
            } else {
                file.with_extension("")
            };
            let mut walk = ModWalk {
                tree: &mut tree,
                queue: &mut queue,
                exists: &exists,
            };
            walk.items(&ast.items, &module, &dir, &here);
        }
        tree.files.insert(file, module);
    }
    Ok(tree)
}

struct ModWalk<'a, E> {
    tree: &'a mut ModuleTree,
    queue: &'a mut Vec<(PathBuf, ModPath, bool)>,
    exists: &'a E,
}

impl<E: Fn(&Path) -> bool> ModWalk<'_, E> {
    /// The `mod` items of module `module`: `dir` holds its child modules' files, and a
    /// `#[path]` is relative to `path_dir` (the file's directory outside inline modules).
    fn items(&mut self, items: &[syn::Item], module: &[String], dir: &Path, path_dir: &Path) {
        for item in items {
            let syn::Item::Mod(m) = item else { continue };
            let name = m.ident.to_string();
            let mut child = module.to_vec();
            child.push(name.clone());
            self.tree.modules.insert(child.clone());
            match (&m.content, path_attr(&m.attrs)) {
                (Some((_, items)), _) => {
                    let inner = dir.join(&name);
                    self.items(items, &child, &inner, &inner);
                }
                // A file named by `#[path]` holds its child modules beside it, as `mod.rs` does.
                (None, Some(path)) => {
                    let file = lexically_normal(&path_dir.join(path));
                    if (self.exists)(&file) {
                        self.queue.push((file, child, true));
                    }
                }
                (None, None) => {
                    let candidates = [
                        dir.join(format!("{name}.rs")),
                        dir.join(&name).join("mod.rs"),
                    ];
                    if let Some(file) = candidates.into_iter().find(|f| (self.exists)(f)) {
                        self.queue.push((file, child, false));
                    }
                }
            }
        }
    }
}

/// `path` without `.` and with each `..` taking the component before it away.
fn lexically_normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir if out.file_name().is_some() => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// The file a `#[path = "…"]` attribute names.
fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs
        .iter()
        .find_map(|a| Some(str_attr(&a.meta, "path")?.value()))
}

/// The string of a `name = "…"` attribute: `doc` (what `///` lines and `/** */` blocks are),
/// `path`; None for any other attribute, or one whose value is no string literal.
pub fn str_attr<'a>(meta: &'a syn::Meta, name: &str) -> Option<&'a syn::LitStr> {
    let syn::Meta::NameValue(nv) = meta else {
        return None;
    };
    let syn::Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Str(lit),
        ..
    }) = &nv.value
    else {
        return None;
    };
    nv.path.is_ident(name).then_some(lit)
}

/// Whether `text` may declare a file module: `mod`, a name and `;` (in a comment or a string
/// too: the caller parses to know).
fn declares_file_module(text: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    memchr::memmem::find_iter(text.as_bytes(), "mod").any(|at| {
        if text[..at].chars().next_back().is_some_and(ident) {
            return false;
        }
        let rest = &text[at + 3..];
        let name = rest.trim_start();
        if name.len() == rest.len() {
            return false;
        }
        let name = name.strip_prefix("r#").unwrap_or(name);
        let len = name.find(|c: char| !ident(c)).unwrap_or(name.len());
        len > 0 && name[len..].trim_start().starts_with(';')
    })
}

/// `file` parsed, or the error at its place.
pub fn parse(file: &Path, text: &str) -> Result<syn::File> {
    syn::parse_file(text).map_err(|e| {
        let start = e.span().start();
        Error::new(
            Diagnostic::error(format!("cannot parse {}: {e}", file.display())).at(Location::new(
                file,
                start.line,
                start.column + 1,
            )
            .with_source(text, 1)),
        )
    })
}

/// Which files [`load`] parses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Every `.rs` file.
    All,
    /// Only the API modules (`src/api/**`) and files that declare a kind or hold a marker.
    /// Parsing is most of a manifests run, and operator code (managers, servers, tests) has
    /// neither; a caller that then misses a type loads [`Scope::All`].
    Relevant,
}

/// Whether a source text can contribute to the manifests by itself. A top-level test module
/// (`#[cfg(test)]` then `mod`) does not count: its kinds are fixtures, which the model ignores.
fn is_relevant(text: &str) -> bool {
    may_declare_kind(text)
        || without_test_module(text).lines().any(|line| {
            let t = line.trim_start();
            let Some(comment) = t.strip_prefix("//") else {
                return false;
            };
            let body = comment.trim_start_matches(['/', '!']).trim_start();
            body.strip_prefix('+').is_some_and(|m| {
                m.starts_with(|c: char| c.is_ascii_alphabetic()) && !m.starts_with("opgen:scaffold")
            })
        })
}

/// Whether a source text may declare a kind: it names `CustomResource` before any top-level
/// test module (whose kinds are fixtures, which the model ignores).
pub fn may_declare_kind(text: &str) -> bool {
    // memmem, not `str::contains`: a whole run asks this of every file (1.5 M instructions of
    // gateway-api's 160 M with str's two-way searcher).
    memchr::memmem::find(without_test_module(text).as_bytes(), b"CustomResource").is_some()
}

/// `text` up to its top-level test module (`#[cfg(test)]` then `mod`), if it has one.
pub fn without_test_module(text: &str) -> &str {
    memchr::memmem::find(text.as_bytes(), b"\n#[cfg(test)]\nmod ").map_or(text, |end| &text[..end])
}

/// Parses the `.rs` files under `dir` (relative to the workspace root) that `scope` selects.
/// Returns the files and whether any file was left out.
pub fn load(ws: &Workspace, dir: &Path, scope: Scope) -> Result<(Vec<SourceFile>, bool)> {
    let texts = read_sources(ws, dir)?;
    let modules = modules_of(dir, &texts);
    load_texts(dir, &texts, &modules, scope)
}

/// [`load`] of `texts`, read by [`read_sources`] from `dir`, whose modules are `modules`
/// ([`modules_of`]).
pub fn load_texts(
    dir: &Path,
    texts: &BTreeMap<PathBuf, String>,
    modules: &BTreeMap<PathBuf, ModPath>,
    scope: Scope,
) -> Result<(Vec<SourceFile>, bool)> {
    let mut skipped = false;
    let mut selected = Vec::new();
    for (path, text) in texts {
        if is_selected(dir, path, text, scope) {
            selected.push((path.clone(), modules[path].clone(), text.clone()));
        } else {
            skipped = true;
        }
    }
    Ok((parse_all(selected)?, skipped))
}

/// The `.rs` files under `dir` and their texts, by path.
pub fn read_sources(ws: &Workspace, dir: &Path) -> Result<BTreeMap<PathBuf, String>> {
    let mut sources = Sources::list(ws, dir, false)?;
    sources.read_all(ws)?;
    Ok(sources.texts)
}

/// The `.rs` files under a directory of the workspace, each read the first time it is asked
/// for: the manifests cache tells most of them unchanged by their [`Stamp`]s alone.
pub struct Sources {
    paths: Vec<PathBuf>,
    /// Taken before any file is read, so that an edit made while opgen reads shows in the next
    /// run's stamp (`None`: staged, unreadable, or not asked for).
    stamps: Vec<Option<Stamp>>,
    taken: SystemTime,
    /// The files read so far, by path.
    texts: BTreeMap<PathBuf, String>,
}

impl Sources {
    /// The files under `dir` (relative to the workspace root), in path order, each stamped when
    /// `stamped`, none read yet. Only on Unix: elsewhere a stamp has no change time and no
    /// inode, and a file whose size and modification time are kept would pass for unchanged.
    pub fn list(ws: &Workspace, dir: &Path, stamped: bool) -> Result<Self> {
        let taken = SystemTime::now();
        let paths = ws.list_files(dir, ".rs")?;
        let stamps = if stamped && cfg!(unix) {
            paths.iter().map(|p| ws.stamp(p)).collect()
        } else {
            vec![None; paths.len()]
        };
        Ok(Sources {
            paths,
            stamps,
            taken,
            texts: BTreeMap::new(),
        })
    }

    pub fn len(&self) -> usize {
        self.paths.len()
    }

    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }

    pub fn path(&self, i: usize) -> &Path {
        &self.paths[i]
    }

    pub fn stamp(&self, i: usize) -> Option<Stamp> {
        self.stamps[i]
    }

    /// When the stamps were taken: before the first of them.
    pub fn taken(&self) -> SystemTime {
        self.taken
    }

    /// The text of file `i`, read now if it was not yet.
    pub fn text(&mut self, ws: &Workspace, i: usize) -> Result<&str> {
        let path = &self.paths[i];
        if !self.texts.contains_key(path) {
            let text = ws
                .read(path)?
                .ok_or_else(|| Error::msg(format!("{} vanished while reading", path.display())))?;
            self.texts.insert(path.clone(), text);
        }
        Ok(&self.texts[path])
    }

    /// Every file's text, by path: those not read yet are read now.
    pub fn read_all(&mut self, ws: &Workspace) -> Result<&BTreeMap<PathBuf, String>> {
        for i in 0..self.paths.len() {
            self.text(ws, i)?;
        }
        Ok(&self.texts)
    }

    /// The texts read so far, by path.
    pub fn texts(&self) -> &BTreeMap<PathBuf, String> {
        &self.texts
    }
}

/// The module of each of `texts` (read by [`read_sources`] from `dir`): the module tree's, or
/// for a file no `mod` declaration reaches, its path's.
pub fn modules_of(dir: &Path, texts: &BTreeMap<PathBuf, String>) -> BTreeMap<PathBuf, ModPath> {
    let mut modules = file_modules(dir, texts);
    texts
        .keys()
        .map(|path| {
            let module = modules
                .remove(path)
                .unwrap_or_else(|| module_path(dir, path));
            (path.clone(), module)
        })
        .collect()
}

/// Whether [`load`] with `scope` parses the file at `path` (under `dir`) holding `text`.
pub fn is_selected(dir: &Path, path: &Path, text: &str, scope: Scope) -> bool {
    scope == Scope::All || path.starts_with(dir.join("api")) || is_relevant(text)
}

/// Each (path, module, text) parsed, every syntax error reported at once.
pub fn parse_all(selected: Vec<(PathBuf, ModPath, String)>) -> Result<Vec<SourceFile>> {
    let mut files = Vec::with_capacity(selected.len());
    let mut errors = Vec::new();
    for (path, module, text) in selected {
        match parse_source(&path, &text) {
            Ok((ast, skipped)) => files.push(SourceFile {
                path,
                module,
                text,
                ast,
                skipped,
            }),
            Err(diagnostic) => errors.push(*diagnostic),
        }
    }
    if errors.is_empty() {
        Ok(files)
    } else {
        Err(Error::many(errors))
    }
}

/// `text`, the file at `path`, parsed, with the lines syn did not see: its function bodies and
/// test modules [`hollow`]ed, its doc comments lexed as the raw strings [`raw_docs`] writes them
/// as. An error is reported from the text as written.
fn parse_source(path: &Path, text: &str) -> Result<(syn::File, LineRanges), Box<Diagnostic>> {
    let (blanked, skipped) = match hollow::blank(text) {
        Some((blanked, skipped)) => (Some(blanked), skipped),
        None => (None, Vec::new()),
    };
    let base = blanked.as_deref().unwrap_or(text);
    let raw = raw_docs::with_raw_doc_attributes(base);
    if blanked.is_some() || raw.is_some() {
        let prepared = raw.as_deref().unwrap_or(base);
        if let Ok(tokens) = checked_tokens(path, prepared)
            && let Ok(ast) = parse_tokens(prepared, tokens)
        {
            return Ok((ast, skipped));
        }
    }
    let tokens = checked_tokens(path, text)?;
    parse_tokens(text, tokens)
        .map(|ast| (ast, Vec::new()))
        .map_err(|e| Box::new(syntax_error(path, text, &e)))
}

/// Whether `#[derive(...)]` among `attrs` names `name` (by the last segment of its path).
pub fn derives(attrs: &[syn::Attribute], name: &str) -> bool {
    use proc_macro2::TokenTree;
    attrs.iter().any(|a| {
        let syn::Meta::List(list) = &a.meta else {
            return false;
        };
        if !list.path.is_ident("derive") {
            return false;
        }
        // Each path's last identifier is the derive's name.
        let tokens: Vec<TokenTree> = list.tokens.clone().into_iter().collect();
        tokens
            .split(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ','))
            .any(|path| matches!(path.last(), Some(TokenTree::Ident(i)) if i == name))
    })
}

/// Brackets and generics nest at most this deep in a source file. syn parses recursively,
/// so a file nested thousands deep would overflow the stack; no real code comes close.
pub const MAX_NESTING: usize = 256;

/// The tokens of a source file, or an error: where the file does not split into tokens, or at
/// the first token nested deeper than [`MAX_NESTING`] brackets (`()`, `[]`, `{}`) plus generic
/// angle brackets ([`nesting::too_deep`], read from the text).
fn checked_tokens(path: &Path, text: &str) -> Result<proc_macro2::TokenStream, Box<Diagnostic>> {
    let tokens: proc_macro2::TokenStream = text
        .parse()
        .map_err(|_| Box::new(token_error(path, text)))?;
    if let Some(at) = nesting::too_deep(text, MAX_NESTING) {
        let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
        let line = 1 + text[..line_start].bytes().filter(|b| *b == b'\n').count();
        let column = 1 + text[line_start..at].chars().count();
        return Err(Box::new(
            Diagnostic::error(format!(
                "brackets and generics nest more than {MAX_NESTING} levels deep here"
            ))
            .at(Location::new(path, line, column).with_source(text, 1))
            .help("opgen parses the sources without compiling them, one level at a time; split the expression or name the inner type"),
        ));
    }
    Ok(tokens)
}

/// Why a file does not split into tokens (syn only says "cannot parse string into token
/// stream"): the unclosed or mismatched bracket, or the unterminated string, with its place.
fn token_error(path: &Path, text: &str) -> Diagnostic {
    let (line, column, message) =
        unbalanced(text).unwrap_or((1, 1, "the file does not split into Rust tokens".to_owned()));
    Diagnostic::error(format!("Rust syntax error: {message}"))
        .at(Location::new(path, line, column).with_source(text, 1))
        .help("opgen parses the sources without compiling them; fix the syntax (cargo check shows the same error)")
}

/// The first bracket that is closed by the wrong one, the last one never closed, or an
/// unterminated string or block comment: (line, column, message).
fn unbalanced(text: &str) -> Option<(usize, usize, String)> {
    let chars: Vec<char> = text.chars().collect();
    let mut open: Vec<(char, usize, usize)> = Vec::new();
    let (mut line, mut column) = (1, 1);
    let mut i = 0;
    let advance = |i: &mut usize, line: &mut usize, column: &mut usize| {
        if chars[*i] == '\n' {
            *line += 1;
            *column = 1;
        } else {
            *column += 1;
        }
        *i += 1;
    };
    while i < chars.len() {
        let (c, here) = (chars[i], (line, column));
        let next = chars.get(i + 1).copied();
        match c {
            '/' if next == Some('/') => {
                while i < chars.len() && chars[i] != '\n' {
                    advance(&mut i, &mut line, &mut column);
                }
                continue;
            }
            '/' if next == Some('*') => {
                let mut depth = 0;
                loop {
                    if i + 1 >= chars.len() {
                        return Some((
                            here.0,
                            here.1,
                            "a block comment `/*` is never closed".into(),
                        ));
                    }
                    if chars[i] == '/' && chars[i + 1] == '*' {
                        depth += 1;
                        advance(&mut i, &mut line, &mut column);
                    } else if chars[i] == '*' && chars[i + 1] == '/' {
                        depth -= 1;
                        advance(&mut i, &mut line, &mut column);
                        if depth == 0 {
                            advance(&mut i, &mut line, &mut column);
                            break;
                        }
                    }
                    advance(&mut i, &mut line, &mut column);
                }
                continue;
            }
            '"' => {
                let raw_hashes = (i > 0 && matches!(chars[i - 1], 'r' | '#'))
                    .then(|| chars[..i].iter().rev().take_while(|c| **c == '#').count());
                advance(&mut i, &mut line, &mut column);
                loop {
                    let Some(&c) = chars.get(i) else {
                        return Some((here.0, here.1, "a string is never closed".into()));
                    };
                    if c == '\\' && raw_hashes.is_none() {
                        advance(&mut i, &mut line, &mut column);
                    } else if c == '"'
                        && chars[i + 1..]
                            .iter()
                            .take(raw_hashes.unwrap_or(0))
                            .all(|c| *c == '#')
                    {
                        break;
                    }
                    if i < chars.len() {
                        advance(&mut i, &mut line, &mut column);
                    }
                }
            }
            // A char literal ('x', '\n'); a lifetime ('a) has no closing quote right after.
            '\'' if next == Some('\\') || chars.get(i + 2) == Some(&'\'') => {
                advance(&mut i, &mut line, &mut column);
                while i < chars.len() && chars[i] != '\'' {
                    if chars[i] == '\\' {
                        advance(&mut i, &mut line, &mut column);
                    }
                    advance(&mut i, &mut line, &mut column);
                }
            }
            '(' | '[' | '{' => open.push((c, here.0, here.1)),
            ')' | ']' | '}' => {
                let want = match c {
                    ')' => '(',
                    ']' => '[',
                    _ => '{',
                };
                match open.pop() {
                    Some((o, _, _)) if o == want => {}
                    Some((o, l, col)) => {
                        return Some((
                            here.0,
                            here.1,
                            format!("`{c}` closes the `{o}` opened at {l}:{col}"),
                        ));
                    }
                    None => return Some((here.0, here.1, format!("`{c}` closes nothing"))),
                }
            }
            _ => {}
        }
        if i < chars.len() {
            advance(&mut i, &mut line, &mut column);
        }
    }
    open.pop()
        .map(|(o, l, col)| (l, col, format!("the file ends before this `{o}` is closed")))
}

/// `text`, whose tokens are `tokens`, parsed. The tokens are parsed once; syn::parse_file would
/// split the text again. It stays for the rare file with a byte-order mark or a shebang line,
/// which it strips.
fn parse_tokens(text: &str, tokens: proc_macro2::TokenStream) -> syn::Result<syn::File> {
    if text.starts_with('\u{feff}') || (text.starts_with("#!") && !text.starts_with("#![")) {
        syn::parse_file(text)
    } else {
        syn::parse2::<syn::File>(tokens)
    }
}

fn syntax_error(path: &Path, text: &str, e: &syn::Error) -> Diagnostic {
    let start = e.span().start();
    Diagnostic::error(format!("Rust syntax error: {e}"))
        .at(Location::new(path, start.line, start.column + 1).with_source(text, 1))
        .help("opgen parses the sources without compiling them; fix the syntax (cargo check shows the same error)")
}

/// One name a `use` item binds, or one glob it imports: its tree flattened, so that `use
/// a::{b, c as d, e::*};` has three. The one reading of use trees that the model's resolver,
/// `edit`'s relayout and `upgrade`'s reference scan share.
#[derive(Debug, Clone)]
pub struct UseLeaf<'a> {
    /// The path's segments, each with whether it is the first of an item inside `{ … }`. For
    /// [`UseKind::Name`] and [`UseKind::Rename`] the last segment is the name imported.
    pub path: Vec<(&'a syn::Ident, bool)>,
    pub kind: UseKind<'a>,
}

#[derive(Debug, Clone, Copy)]
pub enum UseKind<'a> {
    /// The path's last segment, by its own name.
    Name,
    /// `self` in a group (`a::{self}`): the path itself, by its last segment's name.
    SelfName(&'a syn::Ident),
    /// The path's last segment, by another name (`as`).
    Rename(&'a syn::Ident),
    /// `*`: every name the path exports.
    Glob(&'a syn::token::Star),
}

/// The leaves of a `use` tree, in source order.
pub fn use_leaves(tree: &syn::UseTree) -> Vec<UseLeaf<'_>> {
    fn walk<'a>(
        tree: &'a syn::UseTree,
        prefix: &mut Vec<(&'a syn::Ident, bool)>,
        group_start: bool,
        out: &mut Vec<UseLeaf<'a>>,
    ) {
        let with = |prefix: &[(&'a syn::Ident, bool)], ident: &'a syn::Ident| {
            let mut path = prefix.to_vec();
            path.push((ident, group_start));
            path
        };
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push((&p.ident, group_start));
                walk(&p.tree, prefix, false, out);
                prefix.pop();
            }
            syn::UseTree::Name(n) if n.ident == "self" => out.push(UseLeaf {
                path: prefix.clone(),
                kind: UseKind::SelfName(&n.ident),
            }),
            syn::UseTree::Name(n) => out.push(UseLeaf {
                path: with(prefix, &n.ident),
                kind: UseKind::Name,
            }),
            syn::UseTree::Rename(r) => out.push(UseLeaf {
                path: with(prefix, &r.ident),
                kind: UseKind::Rename(&r.rename),
            }),
            syn::UseTree::Glob(g) => out.push(UseLeaf {
                path: prefix.clone(),
                kind: UseKind::Glob(&g.star_token),
            }),
            syn::UseTree::Group(g) => {
                for item in &g.items {
                    walk(item, prefix, true, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(tree, &mut Vec::new(), false, &mut out);
    out
}

/// `src/api/v1/foo.rs` → `api::v1::foo`; `mod.rs`, `lib.rs` and `main.rs` name their directory.
fn module_path(root: &Path, path: &Path) -> Vec<String> {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let mut parts: Vec<String> = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts
        .last()
        .is_some_and(|l| l == "mod" || (parts.len() == 1 && (l == "lib" || l == "main")))
    {
        parts.pop();
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn use_trees_flatten_to_their_leaves() {
        let tree: syn::ItemUse =
            syn::parse_str("use a::{b, c::{self, d as e}, f::*, self as g};").unwrap();
        let leaves: Vec<String> = use_leaves(&tree.tree)
            .iter()
            .map(|leaf| {
                let path: Vec<String> = leaf
                    .path
                    .iter()
                    .map(|(i, start)| format!("{}{i}", if *start { "{" } else { "" }))
                    .collect();
                let kind = match leaf.kind {
                    UseKind::Name => "name".to_owned(),
                    UseKind::SelfName(_) => "self".to_owned(),
                    UseKind::Rename(r) => format!("as {r}"),
                    UseKind::Glob(_) => "*".to_owned(),
                };
                format!("{} {kind}", path.join("::"))
            })
            .collect();
        assert_eq!(
            leaves,
            [
                "a::{b name",
                "a::{c self",
                "a::{c::{d as e",
                "a::{f *",
                // As rustc reads it: `a` by the name `g`.
                "a::{self as g",
            ]
        );
    }

    #[test]
    fn modules_come_from_the_mod_declarations() {
        let dir = tempfile::tempdir().unwrap();
        let mut ws = Workspace::new(dir.path());
        ws.stage("src/lib.rs", "pub mod api;\n#[path = \"extra/types.rs\"]\nmod odd;\nmod inline {\n    mod nested;\n}\n");
        ws.stage("src/api/mod.rs", "pub mod v1;\n");
        ws.stage(
            "src/api/v1.rs",
            "mod kinds;\n#[path = \"../common.rs\"]\nmod common;\n",
        );
        ws.stage("src/api/v1/kinds.rs", "pub struct A;\n");
        ws.stage("src/common.rs", "pub struct S;\n");
        ws.stage("src/extra/types.rs", "mod child;\n");
        ws.stage("src/extra/child.rs", "pub struct C;\n");
        ws.stage("src/inline/nested.rs", "pub struct N;\n");
        ws.stage("src/main.rs", "fn main() {}\n");
        ws.stage("src/orphan/x.rs", "pub struct X;\n");
        let (files, _) = load(&ws, Path::new("src"), Scope::All).unwrap();
        let modules: Vec<(String, String)> = files
            .iter()
            .map(|f| (f.path.display().to_string(), f.module.join("::")))
            .collect();
        let want = [
            ("src/api/mod.rs", "api"),
            ("src/api/v1/kinds.rs", "api::v1::kinds"),
            ("src/api/v1.rs", "api::v1"),
            ("src/common.rs", "api::v1::common"),
            ("src/extra/child.rs", "odd::child"),
            ("src/extra/types.rs", "odd"),
            ("src/inline/nested.rs", "inline::nested"),
            ("src/lib.rs", ""),
            ("src/main.rs", ""),
            ("src/orphan/x.rs", "orphan::x"),
        ];
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(p, m)| ((*p).to_owned(), (*m).to_owned()))
            .collect();
        assert_eq!(modules, want);
        // edit's tree agrees.
        let tree = module_tree(&ws).unwrap();
        for f in files.iter().filter(|f| tree.files.contains_key(&f.path)) {
            assert_eq!(tree.files[&f.path], f.module, "{}", f.path.display());
        }
        assert_eq!(tree.files.len(), 8);
    }

    #[test]
    fn only_files_that_may_declare_a_file_module_are_parsed_for_the_index() {
        assert!(declares_file_module("pub mod api;\n"));
        assert!(declares_file_module("mod r#type ;"));
        assert!(declares_file_module("mod\n    x\n;"));
        assert!(!declares_file_module("mod tests {\n}\n"));
        assert!(!declares_file_module("let module = 1; // mod"));
        assert!(!declares_file_module("fn modx();"));
    }

    #[test]
    fn module_paths() {
        let m = |p: &str| module_path(Path::new("src"), Path::new(p));
        assert_eq!(m("src/lib.rs"), Vec::<String>::new());
        assert_eq!(m("src/api/mod.rs"), ["api"]);
        assert_eq!(m("src/api/v1/foo_types.rs"), ["api", "v1", "foo_types"]);
    }

    #[test]
    fn relevance_is_kinds_and_markers_but_not_scaffold_markers() {
        assert!(is_relevant("#[derive(CustomResource)]\nstruct A;"));
        assert!(is_relevant(
            "// +kubebuilder:rbac:groups=a,resources=b,verbs=get\nfn f() {}"
        ));
        assert!(is_relevant("//! +groupName=a.io\n"));
        assert!(is_relevant("    /// +optional\n"));
        assert!(!is_relevant("pub mod a;\n// +opgen:scaffold:controllers\n"));
        assert!(!is_relevant("let x = 1 // +1 for this\n"));
        assert!(!is_relevant(
            "fn f() {}\n#[cfg(test)]\nmod tests {\n    #[derive(CustomResource)]\n    struct W;\n}\n"
        ));
    }

    #[test]
    fn all_syntax_errors_are_reported_with_locations() {
        let dir = tempfile::tempdir().unwrap();
        let mut ws = Workspace::new(dir.path());
        ws.stage("src/a.rs", "struct A {\n    x: i32,,\n}\n");
        ws.stage("src/b.rs", "fn b( {}\n");
        ws.stage("src/ok.rs", "pub struct Ok;\n");
        let err = load(&ws, Path::new("src"), Scope::All).unwrap_err();
        assert_eq!(err.diagnostics.len(), 2);
        let text = err.to_string();
        assert!(text.contains("--> src/a.rs:2:"), "{text}");
        assert!(text.contains("--> src/b.rs:1:"), "{text}");
    }
}
