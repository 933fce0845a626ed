//! The rules. kube-api-linter's read on Rust: its "pointer" is an `Option`, "array" a `Vec`,
//! a named type a type alias (what `import go` writes for a Go named type), a json tag serde's
//! name; markers are the same text in both languages.

mod fields;
mod lists;
mod markers;
mod naming;
mod serialization;
mod types;
mod wire;

use super::{Check, Edit, Finding, Fix, Rule, Settings};
use crate::diag::Severity;
use crate::markers::Marker;
use crate::markers::typed::{ResourceMarker, SchemaMarker, Typed, names};
use crate::model::{EnumRepr, Field, Model, Shape, SrcLoc, Ty, TypeDef, WellKnown};

const fn rule(
    name: &'static str,
    default: bool,
    severity: Severity,
    summary: &'static str,
    check: fn(&Model<'_>, &mut Vec<Finding>),
) -> Rule {
    Rule {
        name,
        default,
        severity,
        summary,
        check: Check::Model(check),
    }
}

/// A rule that reads its settings.
const fn configured(
    name: &'static str,
    default: bool,
    severity: Severity,
    summary: &'static str,
    check: fn(&Model<'_>, &Settings, &mut Vec<Finding>),
) -> Rule {
    Rule {
        name,
        default,
        severity,
        summary,
        check: Check::Configured(check),
    }
}

use Severity::{Error, Warning};

/// Aliases of aliases deeper than the model resolves are not walked.
const MAX_DEPTH: usize = 100;

pub(super) static RULES: &[Rule] = &[
    rule(
        "arrayofstruct",
        true,
        Warning,
        "a list of structs has a required field to tell its items apart",
        lists::arrayofstruct,
    ),
    rule(
        "commentstart",
        true,
        Warning,
        "a field's doc starts with its JSON name",
        naming::commentstart,
    ),
    configured(
        "conditions",
        true,
        Warning,
        "a conditions field is a list of metav1.Condition, keyed by type, optional, first",
        fields::conditions,
    ),
    configured(
        "conflictingmarkers",
        false,
        Error,
        "no markers of two configured conflicting sets on one field",
        markers::conflictingmarkers,
    ),
    rule(
        "defaultorrequired",
        true,
        Error,
        "a required field has no default",
        fields::defaultorrequired,
    ),
    configured(
        "defaults",
        true,
        Warning,
        "a field with a default is optional, left out when unset, with the preferred default marker",
        fields::defaults,
    ),
    configured(
        "dependenttags",
        false,
        Warning,
        "a configured marker comes with the markers it depends on",
        markers::dependenttags,
    ),
    rule(
        "duplicatemarkers",
        true,
        Error,
        "no marker twice on one field or type",
        markers::duplicatemarkers,
    ),
    configured(
        "forbiddenmarkers",
        false,
        Warning,
        "no configured forbidden marker",
        markers::forbiddenmarkers,
    ),
    rule(
        "integers",
        true,
        Warning,
        "integers are i32 or i64",
        types::integers,
    ),
    rule(
        "jsontags",
        true,
        Warning,
        "JSON names are camelCase",
        naming::jsontags,
    ),
    rule(
        "maxlength",
        false,
        Warning,
        "strings and lists are bounded (MaxLength, MaxItems)",
        lists::maxlength,
    ),
    rule(
        "minlength",
        false,
        Warning,
        "strings, lists, maps and structs have a minimum (MinLength, MinItems, MinProperties)",
        lists::minlength,
    ),
    configured(
        "namingconventions",
        false,
        Warning,
        "no field name matching a configured naming convention",
        naming::namingconventions,
    ),
    rule(
        "nobools",
        false,
        Warning,
        "no bool: an enum can grow a third value",
        types::nobools,
    ),
    rule(
        "nodurations",
        true,
        Warning,
        "no duration strings: an integer with its unit in the name",
        types::nodurations,
    ),
    rule(
        "nofloats",
        true,
        Warning,
        "no floats: they do not round-trip",
        types::nofloats,
    ),
    rule(
        "nomaps",
        true,
        Warning,
        "no maps but string to string: a list keyed by name",
        types::nomaps,
    ),
    rule(
        "nonpointerstructs",
        true,
        Warning,
        "a struct field that is no Option says required (it has required fields) or optional",
        fields::nonpointerstructs,
    ),
    rule(
        "nonullable",
        true,
        Warning,
        "no Nullable marker",
        markers::nonullable,
    ),
    rule(
        "nophase",
        true,
        Warning,
        "no phase fields: conditions instead",
        naming::nophase,
    ),
    rule(
        "noreferences",
        true,
        Warning,
        "'Ref', not 'Reference', in field names",
        naming::noreferences,
    ),
    rule(
        "notimestamp",
        true,
        Warning,
        "'time', not 'timestamp', in names",
        naming::notimestamp,
    ),
    configured(
        "optionalfields",
        true,
        Warning,
        "an optional field is an Option, left out when None (lists and maps: left out when empty)",
        serialization::optionalfields,
    ),
    rule(
        "optionalorrequired",
        true,
        Warning,
        "every field says optional or required, once",
        fields::optionalorrequired,
    ),
    configured(
        "preferredmarkers",
        false,
        Warning,
        "configured preferred markers instead of their equivalents",
        markers::preferredmarkers,
    ),
    configured(
        "requiredfields",
        true,
        Warning,
        "a required field is an Option only where its zero value is valid, and left out when empty",
        serialization::requiredfields,
    ),
    rule(
        "ssatags",
        true,
        Warning,
        "every list says how server-side apply merges it (listType)",
        lists::ssatags,
    ),
    rule(
        "statusoptional",
        false,
        Warning,
        "every status field is optional",
        fields::statusoptional,
    ),
    rule(
        "statussubresource",
        false,
        Warning,
        "a kind with a status serves the status subresource",
        fields::statussubresource,
    ),
    configured(
        "uniquemarkers",
        true,
        Error,
        "no marker that takes one value twice on a field (with its type) or type",
        markers::uniquemarkers,
    ),
    // What serde does that kube-api-linter cannot see in Go.
    rule(
        "optionnull",
        true,
        Warning,
        "an Option is left out when None, not sent as null",
        wire::optionnull,
    ),
    rule(
        "bytestring",
        true,
        Error,
        "no Vec<u8>: serde sends a list of numbers where the schema says base64",
        wire::bytestring,
    ),
    rule(
        "untaggedenum",
        true,
        Error,
        "no untagged enum: the schema cannot tell its variants apart",
        wire::untaggedenum,
    ),
    rule(
        "denyunknownfields",
        true,
        Warning,
        "no deny_unknown_fields: a newer CRD's fields would fail to deserialize",
        wire::denyunknownfields,
    ),
];

/// Each struct of the model with its fields (enum variants' fields are not API fields).
fn every_field<'m>(model: &'m Model<'_>) -> impl Iterator<Item = (&'m TypeDef, &'m Field)> {
    model.types.iter().flat_map(|t| {
        let fields: &[Field] = match &t.shape {
            Shape::Struct(fields) => fields,
            _ => &[],
        };
        fields.iter().filter(|f| !f.flatten).map(move |f| (t, f))
    })
}

/// The fields kube-api-linter's rules inspect: every field but a `Schemaless` one, whose
/// schema its markers write by hand (its field inspector skips them).
fn inspected_fields<'m>(model: &'m Model<'_>) -> impl Iterator<Item = (&'m TypeDef, &'m Field)> {
    every_field(model).filter(|(_, f)| {
        !f.markers
            .iter()
            .any(|m| matches!(m.on_node(), Some(SchemaMarker::Schemaless)))
    })
}

/// The type aliases and transparent wrappers: Go's `type X <type>`.
fn aliases<'m>(model: &'m Model<'_>) -> impl Iterator<Item = (&'m TypeDef, &'m Ty)> {
    model.types.iter().filter_map(|t| match &t.shape {
        Shape::Wrapper(inner) if t.transparent => Some((t, inner)),
        _ => None,
    })
}

fn on_field(rule: &'static str, t: &TypeDef, f: &Field, message: String) -> Finding {
    Finding {
        rule,
        message,
        help: None,
        type_name: t.name.clone(),
        field: Some(f.json_name.clone()),
        rust_field: Some(f.rust_name.clone()),
        at: f.loc,
        width: f.rust_name.chars().count(),
        fix: None,
    }
}

fn on_type(rule: &'static str, t: &TypeDef, message: String) -> Finding {
    Finding {
        rule,
        message,
        help: None,
        type_name: t.name.clone(),
        field: None,
        rust_field: None,
        at: t.loc,
        width: t.name.chars().count(),
        fix: None,
    }
}

fn field_name(t: &TypeDef, f: &Field) -> String {
    format!("field {}.{}", t.name, f.rust_name)
}

/// Walks a type as kube-api-linter's type checker does: through `Option` ("pointer"), `Vec`
/// ("array element"), map values and type aliases, calling `leaf` with the words that led there.
fn walk(model: &Model<'_>, ty: &Ty, prefix: String, leaf: &mut dyn FnMut(&Ty, &str), depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match ty {
        Ty::Option(inner) => walk(model, inner, format!("{prefix} pointer"), leaf, depth + 1),
        Ty::List { item, .. } => walk(
            model,
            item,
            format!("{prefix} array element"),
            leaf,
            depth + 1,
        ),
        Ty::Map(value) => walk(model, value, format!("{prefix} map value"), leaf, depth + 1),
        Ty::Named(id) => {
            let t = model.type_def(*id);
            match &t.shape {
                Shape::Wrapper(inner) if t.transparent => {
                    walk(
                        model,
                        inner,
                        format!("{prefix} type {}", t.name),
                        leaf,
                        depth + 1,
                    );
                }
                _ => leaf(ty, &prefix),
            }
        }
        _ => leaf(ty, &prefix),
    }
}

/// A type rule: `bad` says what is wrong with a leaf type, for every field and type alias.
fn type_rule(
    model: &Model<'_>,
    out: &mut Vec<Finding>,
    rule: &'static str,
    bad: fn(&Ty) -> Option<String>,
) {
    for (t, f) in inspected_fields(model) {
        let mut found = None;
        walk(
            model,
            &f.ty,
            field_name(t, f),
            &mut |ty, prefix| {
                if found.is_none() {
                    found = bad(ty).map(|what| format!("{prefix} {what}"));
                }
            },
            0,
        );
        if let Some(message) = found {
            out.push(on_field(rule, t, f, message));
        }
    }
    for (t, inner) in aliases(model) {
        let mut found = None;
        walk(
            model,
            inner,
            format!("type {}", t.name),
            &mut |ty, prefix| {
                if found.is_none() {
                    found = bad(ty).map(|what| format!("{prefix} {what}"));
                }
            },
            0,
        );
        if let Some(message) = found {
            out.push(on_type(rule, t, message));
        }
    }
}

/// A marker's argument as text, `""` naming its value, as kube-api-linter's attributes do.
fn marker_arg(m: &Marker, name: &str) -> Option<String> {
    let catalog = crate::markers::MarkerCatalog::get();
    let (_, args) = crate::markers::grammar::parse(catalog, &m.text).ok()?;
    let value = if name.is_empty() {
        args.value?
    } else {
        args.fields.get(name)?.clone()
    };
    Some(match value.as_str() {
        Some(s) => s.to_owned(),
        None => value.to_json().to_string(),
    })
}

/// A field's markers with those of its named type, as kube-api-linter reads a field whose type
/// is a type of its package; each with the model file it is in.
fn field_and_type_markers<'m>(model: &'m Model<'_>, f: &'m Field) -> Vec<(&'m Marker, usize)> {
    let mut markers: Vec<(&Marker, usize)> = f.markers.iter().map(|m| (m, f.loc.file)).collect();
    let mut ty = &f.ty;
    while let Ty::Option(inner) = ty {
        ty = inner;
    }
    if let Ty::Named(id) = ty {
        let def = model.type_def(*id);
        markers.extend(def.markers.iter().map(|m| (m, def.loc.file)));
    }
    markers
}

/// Whether a field says it is required (any spelling).
fn marked_required(markers: &[Marker]) -> bool {
    markers.iter().any(fields::is_required)
}

/// The struct a type names, through `Option` and aliases (a Go struct type of the package).
fn struct_of<'m>(model: &'m Model<'_>, ty: &'m Ty) -> Option<(&'m TypeDef, &'m [Field])> {
    let mut ty = ty;
    for _ in 0..MAX_DEPTH {
        match ty {
            Ty::Option(inner) => ty = inner,
            Ty::Named(id) => {
                let def = model.type_def(*id);
                match &def.shape {
                    Shape::Wrapper(inner) if def.transparent => ty = inner,
                    Shape::Struct(fields) => return Some((def, fields)),
                    _ => return None,
                }
            }
            _ => return None,
        }
    }
    None
}

/// A marker line's fix: the line removed, where the marker is alone on its comment line.
fn remove_marker_line(model: &Model<'_>, file: usize, m: &Marker) -> Option<(usize, Edit)> {
    let line = model.files[file].text.lines().nth(m.line.checked_sub(1)?)?;
    // `// +marker` or `/// +marker`.
    let rest = line
        .trim_start()
        .strip_prefix("//")?
        .trim_start_matches('/')
        .trim();
    (rest == m.text.trim()).then_some((m.line, Edit::Remove))
}

/// A marker line's fix: its marker text replaced by `text`.
fn replace_marker(model: &Model<'_>, file: usize, m: &Marker, text: &str) -> Option<(usize, Edit)> {
    let line = model.files[file].text.lines().nth(m.line.checked_sub(1)?)?;
    let old = m.text.trim();
    line.contains(old)
        .then(|| (m.line, Edit::Replace(line.replacen(old, text, 1))))
}

/// Marker lines inserted above the field at `loc`.
fn insert_markers(model: &Model<'_>, loc: SrcLoc, markers: &[String]) -> Option<Fix> {
    let lines: Vec<String> = markers.iter().map(|m| format!("/// +{m}")).collect();
    insert_above_field(model, loc, &lines)
}

/// `lines` inserted above the field at `loc`, indented as its first line is; only where the
/// field starts its line (`pub name: T`), so that each insertion is a line of its own.
pub(super) fn insert_above_field(model: &Model<'_>, loc: SrcLoc, lines: &[String]) -> Option<Fix> {
    let line = model.files[loc.file]
        .text
        .lines()
        .nth(loc.line.checked_sub(1)?)?;
    let indent: String = line.chars().take_while(|c| c.is_whitespace()).collect();
    (indent.chars().count() + 1 == loc.column).then(|| Fix {
        file: loc.file,
        edits: lines
            .iter()
            .map(|l| (loc.line, Edit::Insert(format!("{indent}{l}"))))
            .collect(),
    })
}

/// Runs a configured rule on one API file's `text`: its findings as (rust field, message, fixed
/// lines), the fixes applied to the field's lines for reading.
#[cfg(test)]
pub(super) fn run_on(
    text: &str,
    settings: &Settings,
    check: fn(&Model<'_>, &Settings, &mut Vec<Finding>),
) -> Vec<(String, String, Option<Fix>)> {
    use crate::diag::Diagnostics;
    use crate::markers::{attach::attach, catalog::MarkerCatalog};
    let files = crate::model::api_file_for_tests(text);
    let mut diags = Diagnostics::default();
    let markers = files
        .iter()
        .map(|f| attach(f, MarkerCatalog::get(), &mut diags))
        .collect();
    let model = crate::model::build_with_every_type(&files, markers, &mut diags);
    if let Err(e) = diags.finish() {
        panic!("the test's model builds: {e:?}");
    }
    let mut out = Vec::new();
    check(&model, settings, &mut out);
    out.into_iter()
        .map(|f| (f.rust_field.unwrap_or_default(), f.message, f.fix))
        .collect()
}
