//! Giving each marker comment to the node it annotates.
//!
//! syn keeps doc comments (as `#[doc]` attributes) but drops plain `//` comments, so
//! markers are read from the source lines and attached by position:
//!
//! * a type's or field's markers are in the comment lines directly above it and between
//!   its attributes, plus one comment block separated from those by blank lines;
//! * `//!` lines are package markers of the file's directory module;
//! * markers that target any item (RBAC, webhooks) are collected wherever they stand at
//!   item level, directly above `async fn reconcile` included.
//!
//! Every marker ends up somewhere or is reported: unknown names, bad arguments, markers
//! on the wrong kind of node and markers attached to nothing are all errors.

use super::attrs;
use super::catalog::{MarkerCatalog, MarkerDef, Target};
use super::grammar;
use super::typed::{SchemaMarker, Typed};
use crate::diag::{Diagnostic, Diagnostics};
use crate::load::SourceFile;
use std::collections::HashMap;
use syn::spanned::Spanned;
use syn::visit::Visit;

/// A parsed marker and where it stands.
#[derive(Debug, Clone)]
pub struct Marker {
    pub def: &'static MarkerDef,
    /// The marker as the generator that applies it reads it.
    pub typed: Typed,
    /// 1-based line and column of the `+`.
    pub line: usize,
    pub column: usize,
    /// The marker text from the `+` on.
    pub text: String,
}

impl Marker {
    pub fn name(&self) -> &str {
        self.def.name
    }

    /// This marker as a schema marker of the node it stands on: `None` for a marker of
    /// another family and for the `items:` spelling, which applies to a list's items.
    pub fn on_node(&self) -> Option<&SchemaMarker> {
        match &self.typed {
            Typed::Schema(m) if !self.def.items => Some(m),
            _ => None,
        }
    }

    /// This marker as a schema marker of a list's items (the `items:` spelling).
    pub fn on_items(&self) -> Option<&SchemaMarker> {
        match &self.typed {
            Typed::Schema(m) if self.def.items => Some(m),
            _ => None,
        }
    }
}

/// A node is identified by the line and column of its first token after attributes.
pub type NodeId = (usize, usize);

#[derive(Debug, Default)]
pub struct FileMarkers {
    /// `//!` markers: they apply to the file's directory module.
    pub package: Vec<Marker>,
    /// Markers of types (struct, enum, type alias) and fields or variants.
    pub nodes: HashMap<NodeId, Vec<Marker>>,
    /// Markers that may stand at any item (RBAC, webhooks), in source order.
    pub items: Vec<Marker>,
}

/// What [`attach`] found in a file.
pub struct Attached {
    pub markers: FileMarkers,
}

impl FileMarkers {
    pub fn for_node(&self, id: NodeId) -> &[Marker] {
        self.nodes.get(&id).map_or(&[], Vec::as_slice)
    }
}

/// The first token of a syn node after its attributes.
pub fn node_id<T: Spanned>(node_without_attrs: &T) -> NodeId {
    let start = node_without_attrs.span().start();
    (start.line, start.column + 1)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CommentKind {
    /// `//!`
    Inner,
    /// `///` or `//`
    Outer,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LineKind {
    Blank,
    Comment(CommentKind),
    Code,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NodeKind {
    Type,
    Field,
    /// Functions, impls, modules...: only item-target markers may stand above them.
    Other,
}

struct Node {
    id: NodeId,
    /// Line of the first attribute (or the node itself when it has none).
    first_line: usize,
    kind: NodeKind,
    what: &'static str,
}

/// Collects the nodes and the line ranges that cannot hold markers.
#[derive(Default)]
struct NodeCollector {
    nodes: Vec<Node>,
    /// Multi-line literals and macro bodies: comment-looking lines there are not comments.
    opaque: Vec<(usize, usize)>,
    /// Function bodies: markers there have no effect, which is worth an error.
    bodies: Vec<(usize, usize)>,
    /// What the validation attributes (schemars, validate, garde, x_kube, kube) of each field
    /// and type mean, with what the node is.
    from_attributes: Vec<(NodeId, attrs::Read, &'static str)>,
}

impl NodeCollector {
    fn add<T: NodeStart>(&mut self, node: &T, kind: NodeKind, what: &'static str) {
        let id = node.start();
        let first_line = node
            .attrs()
            .first()
            .map_or(id.0, |a| a.pound_token.span.start().line.min(id.0));
        self.nodes.push(Node {
            id,
            first_line,
            kind,
            what,
        });
    }

    /// The markers a struct's or enum's own attributes mean (its CEL rules).
    fn type_attributes(&mut self, id: NodeId, attrs: &[syn::Attribute], what: &'static str) {
        let read = attrs::read_type(attrs);
        if read != attrs::Read::default() {
            self.from_attributes.push((id, read, what));
        }
    }

    fn body(&mut self, block: &syn::Block) {
        self.delimited(block.brace_token.span, true);
    }

    /// The lines strictly inside a delimited group: a function body or an opaque region.
    fn delimited(&mut self, span: proc_macro2::extra::DelimSpan, body: bool) {
        let (s, e) = (span.open().start().line, span.close().start().line);
        if e > s {
            if body {
                self.bodies.push((s + 1, e));
            } else {
                self.opaque.push((s + 1, e));
            }
        }
    }
}

fn pos(span: proc_macro2::Span) -> NodeId {
    let start = span.start();
    (start.line, start.column + 1)
}

fn vis_start(v: &syn::Visibility) -> Option<NodeId> {
    match v {
        syn::Visibility::Public(p) => Some(pos(p.span)),
        syn::Visibility::Restricted(r) => Some(pos(r.pub_token.span)),
        _ => None,
    }
}

fn sig_start(sig: &syn::Signature) -> NodeId {
    sig.constness
        .map(|t| pos(t.span))
        .or(sig.asyncness.map(|t| pos(t.span)))
        .or(match &sig.safety {
            syn::Safety::Safe(t) => Some(pos(t.span)),
            syn::Safety::Unsafe(t) => Some(pos(t.span)),
            _ => None,
        })
        .or(sig.abi.as_ref().map(|a| pos(a.extern_token.span)))
        .unwrap_or_else(|| pos(sig.fn_token.span))
}

/// Where a node starts after its attributes, computed from its first token. (The span of a
/// whole item is the join of all its tokens: for a function, that prints its whole body.)
pub trait NodeStart {
    fn start(&self) -> NodeId;
    fn attrs(&self) -> &[syn::Attribute];
}

macro_rules! node_start {
    ($ty:ty, |$n:ident| $start:expr) => {
        impl NodeStart for $ty {
            fn start(&self) -> NodeId {
                let $n = self;
                $start
            }
            fn attrs(&self) -> &[syn::Attribute] {
                &self.attrs
            }
        }
    };
}

node_start!(syn::ItemStruct, |n| vis_start(&n.vis)
    .unwrap_or_else(|| pos(n.struct_token.span)));
node_start!(syn::ItemEnum, |n| vis_start(&n.vis)
    .unwrap_or_else(|| pos(n.enum_token.span)));
node_start!(syn::ItemType, |n| vis_start(&n.vis)
    .unwrap_or_else(|| pos(n.type_token.span)));
node_start!(syn::Field, |n| vis_start(&n.vis)
    .or(n.ident.as_ref().map(|i| pos(i.span())))
    .unwrap_or_else(|| pos(n.ty.span())));
node_start!(syn::Variant, |n| pos(n.ident.span()));
node_start!(syn::ItemFn, |n| vis_start(&n.vis)
    .unwrap_or_else(|| sig_start(&n.sig)));
// `default fn`, `default impl` and `auto trait` are unstable and not looked for.
node_start!(syn::ImplItemFn, |n| vis_start(&n.vis)
    .unwrap_or_else(|| sig_start(&n.sig)));
node_start!(syn::ItemImpl, |n| n
    .unsafety
    .map(|t| pos(t.span))
    .unwrap_or_else(|| pos(n.impl_token.span)));
node_start!(syn::ItemMod, |n| vis_start(&n.vis)
    .or(n.unsafety.map(|t| pos(t.span)))
    .unwrap_or_else(|| pos(n.mod_token.span)));
node_start!(syn::ItemConst, |n| vis_start(&n.vis)
    .unwrap_or_else(|| pos(n.const_token.span)));
node_start!(syn::ItemStatic, |n| vis_start(&n.vis)
    .unwrap_or_else(|| pos(n.static_token.span)));
node_start!(syn::ItemUse, |n| vis_start(&n.vis)
    .unwrap_or_else(|| pos(n.use_token.span)));
node_start!(syn::ItemTrait, |n| vis_start(&n.vis)
    .or(n.unsafety.map(|t| pos(t.span)))
    .unwrap_or_else(|| pos(n.trait_token.span)));
node_start!(syn::ItemMacro, |n| n
    .mac
    .path
    .leading_colon
    .map(|c| pos(c.spans[0]))
    .unwrap_or_else(|| pos(n.mac.path.segments[0].ident.span())));

impl<'ast> Visit<'ast> for NodeCollector {
    fn visit_item_struct(&mut self, i: &'ast syn::ItemStruct) {
        self.add(i, NodeKind::Type, "struct");
        self.type_attributes(i.start(), &i.attrs, "struct");
        syn::visit::visit_item_struct(self, i);
    }

    fn visit_item_enum(&mut self, i: &'ast syn::ItemEnum) {
        self.add(i, NodeKind::Type, "enum");
        self.type_attributes(i.start(), &i.attrs, "enum");
        syn::visit::visit_item_enum(self, i);
    }

    fn visit_item_type(&mut self, i: &'ast syn::ItemType) {
        self.add(i, NodeKind::Type, "type alias");
    }

    fn visit_field(&mut self, f: &'ast syn::Field) {
        self.add(f, NodeKind::Field, "field");
        let read = attrs::read(&f.attrs, &f.ty);
        if read != attrs::Read::default() {
            self.from_attributes.push((f.start(), read, "field"));
        }
    }

    fn visit_variant(&mut self, v: &'ast syn::Variant) {
        self.add(v, NodeKind::Field, "variant");
        syn::visit::visit_variant(self, v);
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.add(f, NodeKind::Other, "function");
        self.body(&f.block);
        syn::visit::visit_block(self, &f.block);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.add(f, NodeKind::Other, "function");
        self.body(&f.block);
        syn::visit::visit_block(self, &f.block);
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        self.add(i, NodeKind::Other, "impl block");
        syn::visit::visit_item_impl(self, i);
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        self.add(m, NodeKind::Other, "module");
        syn::visit::visit_item_mod(self, m);
    }

    fn visit_item_const(&mut self, c: &'ast syn::ItemConst) {
        self.add(c, NodeKind::Other, "constant");
        let (s, e) = (c.expr.span().start().line, c.expr.span().end().line);
        if e > s {
            self.opaque.push((s + 1, e));
        }
    }

    fn visit_item_static(&mut self, c: &'ast syn::ItemStatic) {
        self.add(c, NodeKind::Other, "static");
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.add(u, NodeKind::Other, "use declaration");
    }

    fn visit_item_trait(&mut self, t: &'ast syn::ItemTrait) {
        self.add(t, NodeKind::Other, "trait");
        syn::visit::visit_item_trait(self, t);
    }

    fn visit_item_macro(&mut self, m: &'ast syn::ItemMacro) {
        self.add(m, NodeKind::Other, "macro invocation");
        let span = match &m.mac.delimiter {
            syn::MacroDelimiter::Paren(d) => d.span,
            syn::MacroDelimiter::Brace(d) => d.span,
            syn::MacroDelimiter::Bracket(d) => d.span,
        };
        self.delimited(span, false);
    }

    fn visit_attribute(&mut self, a: &'ast syn::Attribute) {
        // `///` lines the loader merged into one attribute are comments in the text: the
        // markers among them are read as those of any doc comment.
        if let Some(l) = crate::load::str_attr(&a.meta, "doc")
            && l.span().end().line > l.span().start().line
            && crate::load::merged_doc_lines(l, &l.value()).is_some()
        {
            return;
        }
        syn::visit::visit_attribute(self, a);
    }

    fn visit_lit_str(&mut self, l: &'ast syn::LitStr) {
        let (s, e) = (l.span().start().line, l.span().end().line);
        if e > s {
            self.opaque.push((s + 1, e));
        }
    }
}

fn classify(line: &str) -> LineKind {
    let t = line.trim();
    if t.is_empty() {
        LineKind::Blank
    } else if t.starts_with("//!") {
        LineKind::Comment(CommentKind::Inner)
    } else if t.starts_with("//") {
        LineKind::Comment(CommentKind::Outer)
    } else {
        LineKind::Code
    }
}

/// The marker text (from `+`) of a comment line and its 1-based column, if it is a marker.
fn marker_in(line: &str) -> Option<(usize, &str)> {
    // Not `find("//")`: that sets up a substring searcher for each of a file's comment lines.
    let bytes = line.as_bytes();
    let start = memchr::memchr_iter(b'/', bytes).find(|&at| bytes.get(at + 1) == Some(&b'/'))?;
    let body = line[start..]
        .trim_start_matches('/')
        .trim_start_matches('!');
    let body_trimmed = body.trim_start();
    let rest = body_trimmed.strip_prefix('+')?;
    if !rest.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    let offset = line.len() - body_trimmed.len();
    let column = line[..offset].chars().count() + 1;
    Some((column, body_trimmed.trim_end()))
}

/// Which node claims each comment line (by 1-based line, the index in `nodes`, sorted by id):
/// the comment lines among its attributes, the block directly above it, and one more block
/// separated from that by blank lines unless a node below claimed it. `kinds[l]` is line `l`'s
/// kind (`kinds[0]` stands for no line).
fn comment_owners(nodes: &[Node], kinds: &[LineKind]) -> Vec<Option<usize>> {
    let kind = |l: usize| kinds.get(l).copied().unwrap_or(LineKind::Code);
    let mut owner: Vec<Option<usize>> = vec![None; kinds.len()];
    for (idx, node) in nodes.iter().enumerate() {
        let claim = |l: usize, owner: &mut [Option<usize>]| {
            if let Some(slot @ None) = owner.get_mut(l) {
                *slot = Some(idx);
            }
        };
        // Comment lines among the attributes.
        for l in node.first_line..node.id.0 {
            if kind(l) == LineKind::Comment(CommentKind::Outer) {
                claim(l, &mut owner);
            }
        }
        // The block directly above.
        let mut l = node.first_line.saturating_sub(1);
        while l > 0 && kind(l) == LineKind::Comment(CommentKind::Outer) {
            claim(l, &mut owner);
            l -= 1;
        }
        // One more block, separated by blank lines.
        if l > 0 && kind(l) == LineKind::Blank {
            while l > 0 && kind(l) == LineKind::Blank {
                l -= 1;
            }
            while l > 0
                && kind(l) == LineKind::Comment(CommentKind::Outer)
                && owner.get(l).is_some_and(Option::is_none)
            {
                claim(l, &mut owner);
                l -= 1;
            }
        }
    }
    owner
}

/// Attaches every marker of `file` to its node; problems go to `diags`.
pub fn attach(
    file: &SourceFile,
    catalog: &'static MarkerCatalog,
    diags: &mut Diagnostics,
) -> FileMarkers {
    let mut collector = NodeCollector::default();
    collector.visit_file(&file.ast);
    collector.opaque.extend_from_slice(&file.skipped);
    let lines: Vec<&str> = file.text.lines().collect();
    // Each line's kind, once (index 0 stands for no line): the lines of multi-line literals,
    // test modules and the like are code, whatever they look like.
    let mut kinds: Vec<LineKind> = std::iter::once(LineKind::Code)
        .chain(lines.iter().map(|l| classify(l)))
        .collect();
    for &(s, e) in &collector.opaque {
        for kind in kinds.iter_mut().take(e + 1).skip(s) {
            *kind = LineKind::Code;
        }
    }
    let in_body = |l: usize| collector.bodies.iter().any(|&(s, e)| l >= s && l <= e);

    collector.nodes.sort_by_key(|n| n.id);
    let owner = comment_owners(&collector.nodes, &kinds);

    let mut out = FileMarkers::default();
    for (i, raw) in lines.iter().enumerate() {
        let line_no = i + 1;
        let LineKind::Comment(comment) = kinds[line_no] else {
            continue;
        };
        let Some((column, text)) = marker_in(raw) else {
            continue;
        };
        let (def, args) = match grammar::parse(catalog, text) {
            Ok(parsed) => parsed,
            Err(e) => {
                let mut d = Diagnostic::error(e.message).at(file.location(
                    line_no,
                    column + e.offset,
                    e.width,
                ));
                d.help = e.help;
                diags.push(d);
                continue;
            }
        };
        if def.ignored {
            continue;
        }
        let typed = match Typed::from_parsed(def.name, args) {
            Ok(typed) => typed,
            Err(e) => {
                diags.push(
                    Diagnostic::error(format!("`{}`: {e}", def.name)).at(file.location(
                        line_no,
                        column,
                        text.chars().count(),
                    )),
                );
                continue;
            }
        };
        let marker = Marker {
            def,
            typed,
            line: line_no,
            column,
            text: text.to_owned(),
        };
        let misplaced = |target: &str| {
            let allowed: Vec<&str> = def.targets.iter().map(|t| t.describe()).collect();
            Diagnostic::error(format!("`{}` cannot be used on {target}", def.name))
                .at(file.location(line_no, column, text.chars().count()))
                .help(format!("it applies to {}", allowed.join(" or ")))
        };
        if in_body(line_no) {
            diags.push(
                Diagnostic::error(format!("marker `{}` is inside a function body, where it has no effect", def.name))
                    .at(file.location(line_no, column, text.chars().count()))
                    .help("move it above the function (RBAC markers) or above the type or field it applies to"),
            );
            continue;
        }
        if def.targets.contains(&Target::Item) {
            out.items.push(marker);
            continue;
        }
        if comment == CommentKind::Inner {
            if def.targets.contains(&Target::Package) {
                out.package.push(marker);
            } else {
                diags.push(misplaced("a module (`//!` docs)"));
            }
            continue;
        }
        let Some(idx) = owner[line_no] else {
            diags.push(
                Diagnostic::error(format!("marker `{}` is not attached to any type or field", def.name))
                    .at(file.location(line_no, column, text.chars().count()))
                    .help("put it in the comment block directly above the type or field it applies to (one blank line between the block and the item is allowed); markers inside function bodies have no effect"),
            );
            continue;
        };
        let node = &collector.nodes[idx];
        let target = match node.kind {
            NodeKind::Type => Target::Type,
            NodeKind::Field => Target::Field,
            NodeKind::Other => {
                diags.push(misplaced(&format!("a {}", node.what)));
                continue;
            }
        };
        if !def.targets.contains(&target) {
            diags.push(misplaced(&format!("a {}", node.what)));
            continue;
        }
        push_once(
            &mut out,
            node.id,
            node.what,
            marker,
            text.chars().count(),
            file,
            diags,
        );
    }
    for (id, read, what) in std::mem::take(&mut collector.from_attributes) {
        from_attributes(&mut out, id, read, what, file, catalog, diags);
    }
    out
}

/// Adds `marker` to the node `id`, unless a marker that does not accumulate is there already.
fn push_once(
    out: &mut FileMarkers,
    id: NodeId,
    what: &str,
    marker: Marker,
    width: usize,
    file: &SourceFile,
    diags: &mut Diagnostics,
) {
    let on_node = out.nodes.entry(id).or_default();
    if let Some(first) = on_node
        .iter()
        .find(|m| !marker.def.repeatable && std::ptr::eq(m.def, marker.def))
    {
        // controller-gen silently uses the first of the two.
        diags.push(
            Diagnostic::error(format!(
                "`{}` is given twice for this {what} (first on line {})",
                marker.def.name, first.line
            ))
            .at(file.location(marker.line, marker.column, width))
            .help(
                "keep one; only markers such as XValidation, listMapKey and printcolumn accumulate",
            ),
        );
        return;
    }
    on_node.push(marker);
}

/// The markers a field's or type's validation attributes mean, added as if written above it;
/// what they cannot say is a warning at the attribute.
fn from_attributes(
    out: &mut FileMarkers,
    id: NodeId,
    read: attrs::Read,
    what: &str,
    file: &SourceFile,
    catalog: &'static MarkerCatalog,
    diags: &mut Diagnostics,
) {
    for (at, message) in read.warnings {
        diags.push(Diagnostic::warning(message).at(file.location(at.line, at.column, at.width)));
    }
    for at in read.markers {
        let location = file.location(at.line, at.column, at.width);
        let parsed = grammar::parse(catalog, &at.text)
            .map_err(|e| e.message)
            .and_then(|(def, args)| {
                Typed::from_parsed(def.name, args)
                    .map(|typed| (def, typed))
                    .map_err(|e| format!("`{}`: {e}", def.name))
            });
        match parsed {
            Ok((def, typed)) => {
                let marker = Marker {
                    def,
                    typed,
                    line: at.line,
                    column: at.column,
                    text: format!("+{}", at.text),
                };
                push_once(out, id, what, marker, at.width, file, diags);
            }
            Err(message) => diags.push(
                Diagnostic::error(format!(
                    "this attribute means `+{}`, which is refused: {message}",
                    at.text
                ))
                .at(location),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// `text` as loaded for the manifests: doc comments as raw strings, bodies hollowed.
    fn file(text: &str) -> SourceFile {
        let module = vec!["api".into(), "v1".into(), "foo_types".into()];
        let path = PathBuf::from("src/api/v1/foo_types.rs");
        let mut files = crate::load::parse_all(vec![(path, module, text.to_owned())]).unwrap();
        files.pop().unwrap()
    }

    fn run(text: &str) -> (FileMarkers, Vec<Diagnostic>) {
        let f = file(text);
        let mut diags = Diagnostics::default();
        let m = attach(&f, MarkerCatalog::get(), &mut diags);
        let all = match diags.finish() {
            Ok(w) => w,
            Err(e) => e.diagnostics,
        };
        (m, all)
    }

    fn names(m: &FileMarkers, id: NodeId) -> Vec<&str> {
        m.for_node(id).iter().map(|m| m.name()).collect()
    }

    const SPEC: &str = r#"//! +groupName=cache.example.com

// +kubebuilder:printcolumn:name="Size",type=integer,JSONPath=`.spec.size`

/// FooSpec is the spec.
// +kubebuilder:resource:shortName=fo
#[derive(Clone)]
// +kubebuilder:subresource:status
pub struct FooSpec {
    /// size of it.
    // +kubebuilder:validation:Minimum=1
    #[serde(default)]
    // +optional
    pub size: i32,

    // +kubebuilder:validation:MaxLength=3

    /// name doc
    pub name: String,
    pub other: String,
}
"#;

    #[test]
    fn markers_attach_to_types_and_fields() {
        let (m, diags) = run(SPEC);
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(
            m.package.iter().map(|m| m.name()).collect::<Vec<_>>(),
            ["groupName"]
        );
        assert_eq!(
            names(&m, (9, 1)),
            [
                "kubebuilder:printcolumn",
                "kubebuilder:resource",
                "kubebuilder:subresource:status"
            ]
        );
        assert_eq!(
            names(&m, (14, 5)),
            ["kubebuilder:validation:Minimum", "optional"]
        );
        assert_eq!(names(&m, (19, 5)), ["kubebuilder:validation:MaxLength"]);
        assert!(names(&m, (20, 5)).is_empty());
    }

    #[test]
    fn markers_among_doc_lines_attach_though_the_lines_are_one_attribute() {
        let text = "/// Foo is a type.\n/// +kubebuilder:resource:shortName=fo\n/// More docs.\npub struct Foo {\n    /// size of it.\n    /// +kubebuilder:validation:Minimum=1\n    pub size: i32,\n    /// A doc with a string: \"// +optional\" is not a marker here.\n    /// second line\n    pub name: String,\n}\nconst S: &str = \"a\n// +optional\n\";\n";
        let (m, diags) = run(text);
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(names(&m, (4, 1)), ["kubebuilder:resource"]);
        assert_eq!(names(&m, (7, 5)), ["kubebuilder:validation:Minimum"]);
        assert!(names(&m, (10, 5)).is_empty());
        // A real multi-line string still hides what looks like a marker in it.
        assert_eq!(m.nodes.values().flatten().count(), 2, "{:?}", m.nodes);
    }

    #[test]
    fn rbac_markers_above_functions_are_collected() {
        let text = "// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get\n/// Reconciles.\n// +kubebuilder:rbac:groups=\"\",resources=pods,verbs=list\npub async fn reconcile() {\n    // +kubebuilder:rbac:groups=x,resources=y,verbs=get\n    let a = 1;\n}\n";
        let (m, diags) = run(text);
        assert_eq!(m.items.len(), 2, "{:?}", m.items);
        assert_eq!(diags.len(), 1);
        assert!(
            diags[0].message.contains("inside a function body"),
            "{diags:?}"
        );
        assert_eq!(diags[0].location.as_ref().unwrap().line, 5);
    }

    #[test]
    fn errors_name_the_line_and_suggest() {
        let text = "pub struct A {\n    // +kubebuilder:validation:Maxlength=3\n    pub a: String,\n    // +kubebuilder:printcolumn:name=x,type=string,JSONPath=.a\n    pub b: String,\n}\n// +optional\nfn f() {}\n";
        let (_, diags) = run(text);
        let text: Vec<String> = diags.iter().map(|d| d.to_string()).collect();
        assert_eq!(text.len(), 3, "{text:#?}");
        assert!(text[0].contains("unknown marker `kubebuilder:validation:Maxlength`"));
        assert!(
            text[0].contains("src/api/v1/foo_types.rs:2:9"),
            "{}",
            text[0]
        );
        assert!(text[0].contains("did you mean `kubebuilder:validation:MaxLength`"));
        assert!(
            text[1].contains("`kubebuilder:printcolumn` cannot be used on a field"),
            "{}",
            text[1]
        );
        assert!(
            text[2].contains("`optional` cannot be used on a function"),
            "{}",
            text[2]
        );
    }

    #[test]
    fn single_valued_markers_may_not_repeat() {
        let text = "pub struct A {\n    // +kubebuilder:validation:MaxLength=3\n    // +kubebuilder:validation:MaxLength=4\n    // +listMapKey=a\n    // +listMapKey=b\n    pub a: String,\n}\n";
        let (m, diags) = run(text);
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert!(
            diags[0]
                .message
                .contains("is given twice for this field (first on line 2)"),
            "{diags:?}"
        );
        assert_eq!(diags[0].location.as_ref().unwrap().line, 3);
        assert_eq!(m.for_node((6, 5)).len(), 3);
    }

    #[test]
    fn multi_line_strings_are_not_comments() {
        let text = "const X: &str = \"\n// +kubebuilder:validation:Bogus\n\";\npub struct A;\n";
        let (_, diags) = run(text);
        assert!(diags.is_empty(), "{diags:?}");
    }

    #[test]
    fn multi_line_strings_in_function_bodies_are_not_comments() {
        let text = "fn f() {\n    let y = \"\n// +kubebuilder:validation:Bogus\n\";\n    // +kubebuilder:rbac:groups=x,resources=y,verbs=get\n}\npub struct A;\n";
        let (_, diags) = run(text);
        assert_eq!(diags.len(), 1, "{diags:?}");
        assert!(
            diags[0].message.contains("inside a function body"),
            "{diags:?}"
        );
        assert_eq!(diags[0].location.as_ref().unwrap().line, 5);
    }

    #[test]
    fn markers_in_test_modules_are_fixtures_and_ignored() {
        let text = "pub struct A {\n    pub a: String,\n}\n\n#[cfg(test)]\nmod tests {\n    // +kubebuilder:validation:Bogus\n    struct W {\n        // +kubebuilder:validation:MaxLength=3\n        w: String,\n    }\n}\n";
        let (m, diags) = run(text);
        assert!(diags.is_empty(), "{diags:?}");
        assert!(
            m.nodes.is_empty() && m.items.is_empty(),
            "{:?}",
            m.nodes.keys()
        );
    }
}
