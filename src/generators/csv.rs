//! What the `+operator-sdk:csv:customresourcedefinitions` markers say about each kind version:
//! its entry in an OLM ClusterServiceVersion's owned CRDs (display name, the objects it owns)
//! and the spec/status descriptors of its fields, with their JSON paths as operator-sdk writes
//! them (`nodes[0].name`). Every such marker must be used: one on a struct that is not a kind,
//! or on a field no kind's spec or status reaches, is an error at its line.

use crate::diag::{Diagnostic, Diagnostics};
use crate::markers::Marker;
use crate::markers::typed::{self, CsvMarker, DescriptorType, Typed};
use crate::model::{Field, Model, Shape, Ty, TypeId};
use std::collections::{HashMap, HashSet};

/// `m` as a descriptor marker (`+operator-sdk:csv:customresourcedefinitions`).
fn descriptor(m: &Marker) -> Option<&typed::Descriptor> {
    match &m.typed {
        // The family's one marker: a second would not build until it is read here.
        Typed::Csv(csv) => match csv {
            CsvMarker::Descriptor(d) => Some(d),
        },
        _ => None,
    }
}
const X_DESCRIPTOR_PREFIX: &str = "urn:alm:descriptor:";
/// Deeper nesting than this is not walked for descriptors (recursive types end much sooner).
const MAX_DEPTH: usize = 32;

/// One kind version's CSV description.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct CsvKind {
    pub group: String,
    pub kind: String,
    pub version: String,
    pub display_name: Option<String>,
    pub resources: Vec<ResourceRef>,
    pub order: Option<i64>,
    pub spec_descriptors: Vec<Descriptor>,
    pub status_descriptors: Vec<Descriptor>,
}

/// An object a custom resource owns (`resources={{Deployment,v1,name}}`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct ResourceRef {
    pub kind: String,
    pub version: String,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Descriptor {
    /// Dot-separated JSON path below spec or status; list items as `name[0]`.
    pub path: String,
    /// From the marker, else the field's JSON name split into words.
    pub display_name: String,
    pub description: String,
    pub x_descriptors: Vec<String>,
    pub order: Option<i64>,
}

#[derive(Clone, Copy, PartialEq)]
enum Side {
    Spec,
    Status,
}

impl Side {
    fn name(self) -> &'static str {
        match self {
            Side::Spec => "spec",
            Side::Status => "status",
        }
    }
}

/// The CSV description of every kind version, and errors for misplaced or malformed markers.
pub fn describe(model: &Model<'_>, diags: &mut Diagnostics) -> Vec<CsvKind> {
    // Every descriptor marker of every file, so that the ones nothing uses are reported.
    let mut markers: Vec<(usize, &Marker)> = model
        .markers
        .iter()
        .enumerate()
        .flat_map(|(file, fm)| {
            fm.nodes
                .values()
                .flatten()
                .filter(|m| descriptor(m).is_some())
                .map(move |m| (file, m))
        })
        .collect();
    markers.sort_by_key(|(file, m)| (*file, m.line, m.column));
    if markers.is_empty() {
        return model
            .kinds
            .iter()
            .flat_map(|k| {
                k.versions.iter().map(|v| CsvKind {
                    group: k.group.clone(),
                    kind: k.kind.clone(),
                    version: v.version.clone(),
                    ..CsvKind::default()
                })
            })
            .collect();
    }
    let mut used: HashSet<(usize, usize, usize)> = HashSet::new();
    let mut other_side: HashMap<(usize, usize, usize), (Side, String)> = HashMap::new();
    let mut out = Vec::new();
    for kind in &model.kinds {
        for v in &kind.versions {
            let mut csv = CsvKind {
                group: kind.group.clone(),
                kind: kind.kind.clone(),
                version: v.version.clone(),
                ..CsvKind::default()
            };
            let spec_def = model.type_def(v.spec);
            for m in &spec_def.markers {
                let Some(d) = descriptor(m) else { continue };
                let file = spec_def.loc.file;
                used.insert((file, m.line, m.column));
                kind_marker(model, file, m, d, &mut csv, diags);
            }
            let mut walk = Walk {
                model,
                used: &mut used,
                other_side: &mut other_side,
                diags,
                out: Vec::new(),
                stack: Vec::new(),
            };
            walk.ty(&Ty::Named(v.spec), Side::Spec, &[], 0);
            csv.spec_descriptors = sorted(std::mem::take(&mut walk.out));
            if let Some(status) = &v.status {
                walk.ty(status, Side::Status, &[], 0);
            }
            csv.status_descriptors = sorted(walk.out);
            out.push(csv);
        }
    }
    for (file, m) in markers.iter().copied() {
        let key = (file, m.line, m.column);
        if used.contains(&key) {
            continue;
        }
        let Some(d) = descriptor(m) else { continue };
        let name = m.name();
        if let Some((side, path)) = other_side.get(&key) {
            let said = d.type_.map_or("", DescriptorType::as_str);
            diags.push(
                Diagnostic::error(format!(
                    "`+{name}` says type={said}, but its field is under the kind's {} (path {path}), not its {said}",
                    side.name()
                ))
                .at(model.marker_location(file, m))
                .help(format!("write type={}", side.name())),
            );
            continue;
        }
        let on_field = d.type_.is_some() || d.x_descriptors.is_some();
        let (message, help) = if on_field {
            (
                format!(
                    "`+{name}` is on a field that no kind's spec or status reaches, so no ClusterServiceVersion descriptor can point at it"
                ),
                "put it on a field of the kind's spec or status struct (or a struct they contain, through Option and Vec), with type=spec or type=status saying which",
            )
        } else {
            (
                format!("`+{name}` is not on a kind or on a field of a kind's spec or status"),
                "on a struct, it belongs on the one deriving CustomResource (the kind's spec struct); on a field, the field must be reachable from the kind's spec or status",
            )
        };
        diags.push(
            Diagnostic::error(message)
                .at(model.marker_location(file, m))
                .help(help),
        );
    }
    out
}

/// Descriptors by order (unordered last), then path, as operator-sdk sorts them.
fn sorted(mut ds: Vec<Descriptor>) -> Vec<Descriptor> {
    ds.sort_by(|a, b| {
        let key = |d: &Descriptor| d.order.unwrap_or(i64::MAX);
        key(a).cmp(&key(b)).then_with(|| a.path.cmp(&b.path))
    });
    ds
}

fn kind_marker(
    model: &Model<'_>,
    file: usize,
    m: &Marker,
    d: &typed::Descriptor,
    csv: &mut CsvKind,
    diags: &mut Diagnostics,
) {
    let at = model.marker_location(file, m);
    for (key, given) in [
        ("type", d.type_.is_some()),
        ("xDescriptors", d.x_descriptors.is_some()),
    ] {
        if given {
            diags.push(
                Diagnostic::error(format!(
                    "`{key}` describes a field, but this `+{}` is on the kind `{}`",
                    m.name(),
                    csv.kind
                ))
                .at(at.clone())
                .help("on a kind, use displayName, resources and order; put type= and xDescriptors= on a field of its spec or status"),
            );
        }
    }
    if let Some(name) = &d.display_name {
        csv.display_name = Some(name.clone());
    }
    if let Some(order) = d.order {
        csv.order = Some(order);
    }
    if let Some(items) = &d.resources {
        for parts in items {
            let describe = parts.join(",");
            let bad = |what: String| {
                Diagnostic::error(format!("resources entry {{{describe}}}: {what}"))
                    .at(at.clone())
                    .help("write each owned object as {Kind,version} or {Kind,version,name}, e.g. resources={{Deployment,v1,memcached-deployment}}")
            };
            if !(2..=3).contains(&parts.len()) {
                diags.push(bad(format!(
                    "has {} parts, not a kind, a version and an optional name",
                    parts.len()
                )));
                continue;
            }
            let (kind, version) = (parts[0].trim(), parts[1].trim());
            if crate::names::validate_kind(kind).is_err() || kind.len() > 63 {
                diags.push(bad(format!(
                    "`{kind}` is not a kind (PascalCase, e.g. Deployment)"
                )));
                continue;
            }
            if crate::names::validate_version(version).is_err() {
                diags.push(bad(format!(
                    "`{version}` is not an API version (e.g. v1, v1beta1)"
                )));
                continue;
            }
            csv.resources.push(ResourceRef {
                kind: kind.to_owned(),
                version: version.to_owned(),
                name: parts
                    .get(2)
                    .map(|n| n.trim().to_owned())
                    .unwrap_or_default(),
            });
        }
    }
}

struct Walk<'m, 'a, 'd> {
    model: &'m Model<'a>,
    used: &'m mut HashSet<(usize, usize, usize)>,
    /// Markers met under the side their `type=` does not name, and where.
    other_side: &'m mut HashMap<(usize, usize, usize), (Side, String)>,
    diags: &'d mut Diagnostics,
    out: Vec<Descriptor>,
    /// Types being walked, so that a recursive type ends.
    stack: Vec<TypeId>,
}

impl Walk<'_, '_, '_> {
    fn ty(&mut self, ty: &Ty, side: Side, path: &[String], depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        match ty {
            Ty::Option(inner) => self.ty(inner, side, path, depth + 1),
            Ty::List { item, .. } => {
                // operator-sdk marks a list's segment `[0]` when a child segment follows.
                let mut p = path.to_vec();
                if let Some(last) = p.last_mut() {
                    last.push_str("[0]");
                }
                self.ty(item, side, &p, depth + 1);
            }
            Ty::Named(id) => {
                if self.stack.contains(id) {
                    return;
                }
                self.stack.push(*id);
                let def = self.model.type_def(*id);
                match &def.shape {
                    Shape::Struct(fields) => {
                        for f in fields {
                            let mut p = path.to_vec();
                            if !f.flatten {
                                p.push(f.json_name.clone());
                            }
                            if !f.flatten {
                                self.field(f, side, &p);
                            }
                            self.ty(&f.ty, side, &p, depth + 1);
                        }
                    }
                    Shape::Wrapper(inner) => self.ty(inner, side, path, depth + 1),
                    _ => {}
                }
                self.stack.pop();
            }
            _ => {}
        }
    }

    fn field(&mut self, f: &Field, side: Side, path: &[String]) {
        let mut found = false;
        let mut display = None;
        let mut xs = Vec::new();
        let mut order = None;
        for m in &f.markers {
            let Some(d) = descriptor(m) else { continue };
            let file = f.loc.file;
            let at = self.model.marker_location(file, m);
            let Some(kind) = d.type_.map(DescriptorType::as_str) else {
                if self.used.insert((file, m.line, m.column)) {
                    self.diags.push(
                        Diagnostic::error(format!(
                            "`+{}` on field `{}` needs type=spec or type=status",
                            m.name(),
                            f.rust_name
                        ))
                        .at(at)
                        .help(format!(
                            "this field is under the kind's {side}: add type={side}",
                            side = side.name()
                        )),
                    );
                }
                continue;
            };
            if kind != side.name() {
                // Reached from the other side: the walk of that side may use it.
                self.other_side
                    .entry((file, m.line, m.column))
                    .or_insert_with(|| (side, path.join(".")));
                continue;
            }
            self.used.insert((file, m.line, m.column));
            if d.resources.is_some() {
                self.diags.push(
                    Diagnostic::error(format!(
                        "`resources` describes a kind, but this `+{}` is on field `{}`",
                        m.name(),
                        f.rust_name
                    ))
                    .at(at.clone())
                    .help("move resources={{...}} to the marker on the kind's spec struct"),
                );
            }
            for x in d.x_descriptors.iter().flatten() {
                if !x.starts_with(X_DESCRIPTOR_PREFIX) {
                    self.diags.push(
                        Diagnostic::error(format!(
                            "xDescriptors value `{x}` is not an OLM descriptor (they start with `{X_DESCRIPTOR_PREFIX}`)"
                        ))
                        .at(at.clone())
                        .help(format!("e.g. {X_DESCRIPTOR_PREFIX}com.tectonic.ui:podCount; the OpenShift console lists them (openshift/console, descriptors)")),
                    );
                } else if !xs.contains(x) {
                    xs.push(x.clone());
                }
            }
            if display.is_none() {
                display = d.display_name.clone();
            }
            if let Some(o) = d.order {
                order = Some(o);
            }
            found = true;
        }
        if !found {
            return;
        }
        self.out.push(Descriptor {
            path: path.join("."),
            display_name: display.unwrap_or_else(|| display_name(&f.json_name)),
            description: f.doc.clone(),
            x_descriptors: xs,
            order,
        });
    }
}

/// A name split into capitalised words, as operator-sdk's `GetDisplayName` does for Go names:
/// `containerPort` → `Container Port`, `podCIDRs` → `Pod CIDRs`.
pub fn display_name(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c == '_' || c == '-' {
            out.push(' ');
            continue;
        }
        if i > 0 && c.is_uppercase() {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            // Plural acronyms (`CIDRs`) keep their `s`.
            let plural_s = next_lower
                && chars.get(i + 1) == Some(&'s')
                && chars.get(i + 2).is_none_or(|n| n.is_uppercase());
            if prev.is_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_uppercase() && next_lower && !plural_s)
            {
                out.push(' ');
            }
        }
        if i == 0 {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::display_name;

    #[test]
    fn display_names_split_words_like_operator_sdk() {
        assert_eq!(display_name("size"), "Size");
        assert_eq!(display_name("containerPort"), "Container Port");
        assert_eq!(display_name("MemcachedBackup"), "Memcached Backup");
        assert_eq!(display_name("CPUUsage"), "CPU Usage");
        assert_eq!(display_name("podCIDRs"), "Pod CIDRs");
        assert_eq!(display_name("v1Alpha"), "V1 Alpha");
    }
}
