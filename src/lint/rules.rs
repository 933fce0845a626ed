//! The rules. kube-api-linter's read on Rust: its "pointer" is an `Option`, "array" a `Vec`,
//! a named type a type alias (what `import go` writes for a Go named type), a json tag serde's
//! name; markers are the same text in both languages.

use super::{Finding, Fix, Rule};
use crate::diag::Severity;
use crate::markers::Marker;
use crate::markers::typed::{ResourceMarker, SchemaMarker, Typed};
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
        check,
    }
}

use Severity::{Error, Warning};

/// Aliases of aliases deeper than the model resolves are not walked.
const MAX_DEPTH: usize = 100;

pub(super) static RULES: &[Rule] = &[
    rule(
        "commentstart",
        true,
        Warning,
        "a field's doc starts with its JSON name",
        commentstart,
    ),
    rule(
        "defaultorrequired",
        true,
        Error,
        "a required field has no default",
        defaultorrequired,
    ),
    rule(
        "duplicatemarkers",
        true,
        Error,
        "no marker twice on one field or type",
        duplicatemarkers,
    ),
    rule(
        "integers",
        true,
        Warning,
        "integers are i32 or i64",
        integers,
    ),
    rule(
        "jsontags",
        true,
        Warning,
        "JSON names are camelCase",
        jsontags,
    ),
    rule(
        "maxlength",
        false,
        Warning,
        "strings and lists are bounded (MaxLength, MaxItems)",
        maxlength,
    ),
    rule(
        "nobools",
        false,
        Warning,
        "no bool: an enum can grow a third value",
        nobools,
    ),
    rule(
        "nodurations",
        true,
        Warning,
        "no duration strings: an integer with its unit in the name",
        nodurations,
    ),
    rule(
        "nofloats",
        true,
        Warning,
        "no floats: they do not round-trip",
        nofloats,
    ),
    rule(
        "nomaps",
        true,
        Warning,
        "no maps but string to string: a list keyed by name",
        nomaps,
    ),
    rule(
        "nonpointerstructs",
        true,
        Warning,
        "a struct field that is no Option says required (it has required fields) or optional",
        nonpointerstructs,
    ),
    rule(
        "nonullable",
        true,
        Warning,
        "no Nullable marker",
        nonullable,
    ),
    rule(
        "nophase",
        true,
        Warning,
        "no phase fields: conditions instead",
        nophase,
    ),
    rule(
        "noreferences",
        true,
        Warning,
        "'Ref', not 'Reference', in field names",
        noreferences,
    ),
    rule(
        "notimestamp",
        true,
        Warning,
        "'time', not 'timestamp', in names",
        notimestamp,
    ),
    rule(
        "optionalorrequired",
        true,
        Warning,
        "every field says optional or required, once",
        optionalorrequired,
    ),
    rule(
        "ssatags",
        true,
        Warning,
        "every list says how server-side apply merges it (listType)",
        ssatags,
    ),
    rule(
        "statusoptional",
        false,
        Warning,
        "every status field is optional",
        statusoptional,
    ),
    rule(
        "statussubresource",
        false,
        Warning,
        "a kind with a status serves the status subresource",
        statussubresource,
    ),
    // What serde does that kube-api-linter cannot see in Go.
    rule(
        "optionnull",
        true,
        Warning,
        "an Option is left out when None, not sent as null",
        optionnull,
    ),
    rule(
        "untaggedenum",
        true,
        Error,
        "no untagged enum: the schema cannot tell its variants apart",
        untaggedenum,
    ),
    rule(
        "denyunknownfields",
        true,
        Warning,
        "no deny_unknown_fields: a newer CRD's fields would fail to deserialize",
        denyunknownfields,
    ),
];

/// Each struct of the model with its fields (enum variants' fields are not API fields).
fn structs<'m>(model: &'m Model<'_>) -> impl Iterator<Item = (&'m TypeDef, &'m Field)> {
    model.types.iter().flat_map(|t| {
        let fields: &[Field] = match &t.shape {
            Shape::Struct(fields) => fields,
            _ => &[],
        };
        fields.iter().filter(|f| !f.flatten).map(move |f| (t, f))
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
    for (t, f) in structs(model) {
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

fn nobools(model: &Model<'_>, out: &mut Vec<Finding>) {
    type_rule(model, out, "nobools", |ty| {
        (*ty == Ty::Bool).then(|| "should not use a bool. Use a string type with meaningful constant values as an enum.".to_owned())
    });
}

fn nofloats(model: &Model<'_>, out: &mut Vec<Finding>) {
    type_rule(model, out, "nofloats", |ty| {
        matches!(ty, Ty::Float { .. }).then(|| {
            "should not use a float value because they cannot be reliably round-tripped.".to_owned()
        })
    });
}

fn integers(model: &Model<'_>, out: &mut Vec<Finding>) {
    type_rule(model, out, "integers", |ty| {
        match ty {
        Ty::Integer { signed: false, .. } | Ty::Foreign { known: Some(WellKnown::NonZero { signed: false, .. }), .. } => {
            Some("should not use unsigned integers, use only i32 or i64 and apply validation to ensure the value is positive".to_owned())
        }
        Ty::Integer { bits, .. } | Ty::Foreign { known: Some(WellKnown::NonZero { bits, .. }), .. } if !matches!(bits, 32 | 64) => {
            Some("should not use an isize, i8 or i16. Use i32 or i64 depending on bounding requirements".to_owned())
        }
        _ => None,
    }
    });
}

fn nodurations(model: &Model<'_>, out: &mut Vec<Finding>) {
    type_rule(model, out, "nodurations", |ty| {
        match ty {
        Ty::Foreign { known: Some(WellKnown::DurationText), .. } => Some("should not use a Duration. Use an integer type with units in the name to avoid the need for clients to implement duration parsing.".to_owned()),
        _ => None,
    }
    });
}

fn nomaps(model: &Model<'_>, out: &mut Vec<Finding>) {
    const MESSAGE: &str =
        "should not use a map type, use a list type with a unique name/identifier instead";
    for (t, f) in structs(model) {
        if map_value(model, &f.ty).is_some_and(|v| !is_string(model, v)) {
            out.push(on_field(
                "nomaps",
                t,
                f,
                format!("{} {MESSAGE}", field_name(t, f)),
            ));
        }
    }
    for (t, inner) in aliases(model) {
        if map_value(model, inner).is_some_and(|v| !is_string(model, v)) {
            out.push(on_type("nomaps", t, format!("type {} {MESSAGE}", t.name)));
        }
    }
}

/// The value type of a map, through `Option` and aliases.
fn map_value<'m>(model: &'m Model<'_>, ty: &'m Ty) -> Option<&'m Ty> {
    match ty {
        Ty::Option(inner) => map_value(model, inner),
        Ty::Map(value) => Some(value),
        Ty::Named(id) => match &model.type_def(*id).shape {
            Shape::Wrapper(inner) if model.type_def(*id).transparent => map_value(model, inner),
            _ => None,
        },
        _ => None,
    }
}

fn is_string(model: &Model<'_>, ty: &Ty) -> bool {
    match ty {
        Ty::String => true,
        Ty::Named(id) => match &model.type_def(*id).shape {
            Shape::Wrapper(inner) => is_string(model, inner),
            _ => false,
        },
        _ => false,
    }
}

/// A list's markers where kube-api-linter reads them: the field's and its aliases' (a Go
/// named type's), with the item type; None for a field that is no list.
fn list_markers<'m>(model: &'m Model<'_>, f: &'m Field) -> Option<(Vec<&'m Marker>, &'m Ty)> {
    let mut markers: Vec<&Marker> = f.markers.iter().collect();
    let mut ty = &f.ty;
    for _ in 0..MAX_DEPTH {
        match ty {
            Ty::Option(inner) => ty = inner,
            Ty::List { item, .. } => return Some((markers, item)),
            Ty::Named(id) => match &model.type_def(*id).shape {
                Shape::Wrapper(inner) if model.type_def(*id).transparent => {
                    markers.extend(&model.type_def(*id).markers);
                    ty = inner;
                }
                _ => return None,
            },
            _ => return None,
        }
    }
    None
}

/// An item type that is no scalar (an object, a list or a map), through aliases: what
/// kube-api-linter calls a list of non-scalars.
fn is_object(model: &Model<'_>, ty: &Ty) -> bool {
    match ty {
        Ty::Option(inner) => is_object(model, inner),
        Ty::K8s(_) | Ty::JsonObject | Ty::List { .. } | Ty::Map(_) => true,
        Ty::Named(id) => match &model.type_def(*id).shape {
            Shape::Wrapper(inner) => is_object(model, inner),
            Shape::Struct(_) | Shape::DataEnum { .. } => true,
            _ => false,
        },
        _ => false,
    }
}

fn is_bytes(ty: &Ty) -> bool {
    match ty {
        Ty::Option(inner) => is_bytes(inner),
        Ty::Bytes => true,
        Ty::K8s(path) => path.ends_with("ByteString"),
        _ => false,
    }
}

/// The JSON names of a struct item type's fields, flattened ones' included; None for an item
/// that is no struct opgen reads.
fn item_fields(model: &Model<'_>, ty: &Ty) -> Option<Vec<String>> {
    let mut names = Vec::new();
    let mut pending = vec![ty];
    while let Some(ty) = pending.pop() {
        let mut ty = ty;
        while let Ty::Option(inner) = ty {
            ty = inner;
        }
        let Ty::Named(id) = ty else { return None };
        match &model.type_def(*id).shape {
            Shape::Struct(fields) => {
                for f in fields {
                    if f.flatten {
                        pending.push(&f.ty);
                    } else {
                        names.push(f.json_name.clone());
                    }
                }
            }
            Shape::Wrapper(inner) => pending.push(inner),
            _ => return None,
        }
        if names.len() > 10_000 {
            return None;
        }
    }
    Some(names)
}

fn ssatags(model: &Model<'_>, out: &mut Vec<Finding>) {
    use crate::markers::typed::ListType;
    for (t, f) in structs(model) {
        let name = field_name(t, f);
        if is_bytes(&f.ty)
            && f.markers
                .iter()
                .any(|m| matches!(m.on_node(), Some(SchemaMarker::ListType(_))))
        {
            out.push(on_field("ssatags", t, f, format!("{name} is a byte array, which does not support the listType marker. Remove the listType marker")));
            continue;
        }
        // A field whose markers replace its schema (Schemaless, Type=) is no list to the API server.
        if f.markers.iter().any(|m| m.typed.replaces_schema()) {
            continue;
        }
        let Some((markers, item)) = list_markers(model, f) else {
            continue;
        };
        let list_types: Vec<&ListType> = markers
            .iter()
            .filter_map(|m| match m.on_node() {
                Some(SchemaMarker::ListType(l)) => Some(l),
                _ => None,
            })
            .collect();
        let keyed = markers
            .iter()
            .any(|m| matches!(m.on_node(), Some(SchemaMarker::ListMapKey(_))));
        let mut messages = Vec::new();
        if list_types.is_empty() {
            messages.push(format!("{name} should have a listType marker for proper Server-Side Apply behavior (atomic, set, or map)"));
        }
        for l in list_types {
            match l {
                ListType::Map if !is_object(model, item) => messages.push(format!("{name} with listType=map can only be used for object lists, not primitive lists")),
                ListType::Map if !keyed => messages.push(format!("{name} with listType=map must have at least one listMapKey marker")),
                ListType::Set if is_object(model, item) => messages.push(format!("{name} with listType=set is not recommended due to Server-Side Apply compatibility issues. Consider using listType=atomic or listType=map instead")),
                _ => {}
            }
        }
        for key in markers.iter().filter_map(|m| match m.on_node() {
            Some(SchemaMarker::ListMapKey(key)) => Some(key),
            _ => None,
        }) {
            if item_fields(model, item).is_some_and(|names| !names.contains(key)) {
                messages.push(format!(
                    "{name} listMapKey {key:?} does not exist as a field in the struct"
                ));
            }
        }
        for message in messages {
            out.push(on_field("ssatags", t, f, message));
        }
    }
}

/// What bounds a string for kube-api-linter: a maximum length, an enum, or a date, date-time or
/// duration format; `items` reads the `items:` spellings (a list's strings).
fn bounds_string(markers: &[&Marker], items: bool) -> bool {
    markers
        .iter()
        .filter(|m| m.def.items == items)
        .any(|m| match &m.typed {
            Typed::Schema(SchemaMarker::MaxLength(_) | SchemaMarker::Enum(_)) => true,
            Typed::Schema(SchemaMarker::Format(f)) => {
                matches!(f.as_str(), "date" | "date-time" | "duration")
            }
            _ => false,
        })
}

fn maxlength(model: &Model<'_>, out: &mut Vec<Finding>) {
    for (t, f) in structs(model) {
        // The field's markers and those of each alias on the way, as kube-api-linter combines them.
        let mut markers: Vec<&Marker> = f.markers.iter().collect();
        let mut prefix = field_name(t, f);
        let mut ty = &f.ty;
        let mut messages = Vec::new();
        for _ in 0..MAX_DEPTH {
            match ty {
                Ty::Option(inner) => ty = inner,
                Ty::Named(id) if model.type_def(*id).transparent => {
                    let alias = model.type_def(*id);
                    let Shape::Wrapper(inner) = &alias.shape else {
                        break;
                    };
                    markers.extend(&alias.markers);
                    prefix = format!("{prefix} type {}", alias.name);
                    ty = inner;
                }
                Ty::String | Ty::Bytes => {
                    if !bounds_string(&markers, false) {
                        messages.push(format!(
                            "{prefix} must have a maximum length, add kubebuilder:validation:MaxLength marker"
                        ));
                    }
                    break;
                }
                Ty::List { item, .. } => {
                    messages = list_bounds(model, &markers, item, &prefix);
                    break;
                }
                _ => break,
            }
        }
        for message in messages {
            out.push(on_field("maxlength", t, f, message));
        }
    }
}

/// A list's findings: its strings' length, and its number of items.
fn list_bounds(model: &Model<'_>, markers: &[&Marker], item: &Ty, prefix: &str) -> Vec<String> {
    let mut messages = Vec::new();
    let mut item_markers: Vec<&Marker> = markers.to_vec();
    let mut item = item;
    let mut element = format!("{prefix} array element");
    let mut aliased = false;
    while let Ty::Named(id) = item {
        let alias = model.type_def(*id);
        let (true, Shape::Wrapper(inner)) = (alias.transparent, &alias.shape) else {
            break;
        };
        item_markers.extend(&alias.markers);
        element = format!("{element} type {}", alias.name);
        aliased = true;
        item = inner;
    }
    let is_string = matches!(item, Ty::String);
    // An aliased string item is bounded by the alias's MaxLength or the list's items:MaxLength.
    let bounded =
        bounds_string(&item_markers, true) || (aliased && bounds_string(&item_markers, false));
    if is_string && !bounded {
        messages.push(format!(
            "{element} must have a maximum length, add kubebuilder:validation:items:MaxLength marker"
        ));
    }
    let max_items = markers
        .iter()
        .any(|m| !m.def.items && matches!(m.typed, Typed::Schema(SchemaMarker::MaxItems(_))));
    if !max_items {
        messages.push(format!(
            "{prefix} must have a maximum items, add kubebuilder:validation:MaxItems marker"
        ));
    }
    messages
}

fn has(markers: &[Marker], name: &str) -> bool {
    markers.iter().any(|m| m.name() == name)
}

fn optionalorrequired(model: &Model<'_>, out: &mut Vec<Finding>) {
    // The spellings of one typed marker are told apart by name: kube-api-linter prefers some.
    use crate::markers::typed::names::{
        K8S_OPTIONAL, K8S_REQUIRED, KUBEBUILDER_VALIDATION_OPTIONAL as KB_OPTIONAL,
        KUBEBUILDER_VALIDATION_REQUIRED as KB_REQUIRED, OPTIONAL, REQUIRED,
    };
    for (t, f) in structs(model) {
        let m = &f.markers;
        let optional = has(m, OPTIONAL) || has(m, KB_OPTIONAL) || has(m, K8S_OPTIONAL);
        let required = has(m, REQUIRED) || has(m, KB_REQUIRED) || has(m, K8S_REQUIRED);
        let name = field_name(t, f);
        let message = if optional && required {
            Some(format!(
                "{name} must not be marked as both optional and required"
            ))
        } else if has(m, KB_OPTIONAL) && !has(m, OPTIONAL) {
            Some(format!(
                "{name} should use marker {OPTIONAL} instead of {KB_OPTIONAL}"
            ))
        } else if has(m, KB_REQUIRED) && !has(m, REQUIRED) {
            Some(format!(
                "{name} should use marker {REQUIRED} instead of {KB_REQUIRED}"
            ))
        } else if has(m, KB_OPTIONAL) || has(m, KB_REQUIRED) {
            Some(format!(
                "{name} has both the marker and its kubebuilder:validation spelling"
            ))
        } else if !optional && !required {
            Some(format!("{name} must be marked as {OPTIONAL} or {REQUIRED}"))
        } else {
            None
        };
        if let Some(message) = message {
            out.push(on_field("optionalorrequired", t, f, message));
        }
    }
}

fn is_required(m: &Marker) -> bool {
    matches!(
        m.on_node(),
        Some(SchemaMarker::Required | SchemaMarker::K8sRequired)
    )
}

fn defaultorrequired(model: &Model<'_>, out: &mut Vec<Finding>) {
    for (t, f) in structs(model) {
        let default = f.markers.iter().any(|m| {
            matches!(
                m.on_node(),
                Some(SchemaMarker::Default(_) | SchemaMarker::KubebuilderDefault(_))
            )
        });
        if default && f.markers.iter().any(is_required) {
            out.push(on_field("defaultorrequired", t, f, format!("{} has both a default and a required marker: a required field's default is never used", field_name(t, f))));
        }
    }
}

fn duplicatemarkers(model: &Model<'_>, out: &mut Vec<Finding>) {
    let twice = |markers: &[Marker]| -> Vec<String> {
        let mut seen: Vec<&str> = Vec::new();
        let mut dup = Vec::new();
        for m in markers {
            let text = m.text.trim();
            if seen.contains(&text) && !dup.iter().any(|d: &String| d == text) {
                dup.push(text.to_owned());
            }
            seen.push(text);
        }
        dup
    };
    for t in &model.types {
        for marker in twice(&t.markers) {
            out.push(on_type(
                "duplicatemarkers",
                t,
                format!(
                    "{} has duplicated markers {}",
                    t.name,
                    marker.trim_start_matches('+')
                ),
            ));
        }
    }
    for (t, f) in structs(model) {
        for marker in twice(&f.markers) {
            out.push(on_field(
                "duplicatemarkers",
                t,
                f,
                format!(
                    "{} has duplicated markers {}",
                    field_name(t, f),
                    marker.trim_start_matches('+')
                ),
            ));
        }
    }
}

/// kube-api-linter's camelCase, `^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)*$`: a lower-case letter, then
/// letters and digits (an upper-case letter may start a one-letter word, as in `podIP`).
fn is_camel_case(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase()) && chars.all(|c| c.is_ascii_alphanumeric())
}

fn jsontags(model: &Model<'_>, out: &mut Vec<Finding>) {
    for (t, f) in structs(model) {
        if !is_camel_case(&f.json_name) {
            let mut finding = on_field(
                "jsontags",
                t,
                f,
                format!(
                    "{} json name does not match pattern \"^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)*$\": {}",
                    field_name(t, f),
                    f.json_name
                ),
            );
            finding.help = Some("rename it with #[serde(rename = \"...\")] or the struct's #[serde(rename_all = \"camelCase\")]".to_owned());
            out.push(finding);
        }
    }
}

fn commentstart(model: &Model<'_>, out: &mut Vec<Finding>) {
    for (t, f) in structs(model) {
        let message = if f.doc.is_empty() {
            format!("{} is missing its doc comment", field_name(t, f))
        } else if !f.doc.starts_with(&format!("{} ", f.json_name)) {
            format!(
                "the doc of {} should start with '{} ...'",
                field_name(t, f),
                f.json_name
            )
        } else {
            continue;
        };
        let mut finding = on_field("commentstart", t, f, message);
        finding.help = Some("the doc is the field's description in the CRD (`kubectl explain`), which names fields by their JSON names".to_owned());
        out.push(finding);
    }
}

fn nonullable(model: &Model<'_>, out: &mut Vec<Finding>) {
    let nullable = |m: &Marker| matches!(m.on_node(), Some(SchemaMarker::Nullable));
    for t in model
        .types
        .iter()
        .filter(|t| t.markers.iter().any(nullable))
    {
        out.push(on_type(
            "nonullable",
            t,
            format!("type {} has the nullable marker", t.name),
        ));
    }
    // A field is nullable by its own marker or its type alias's.
    let alias_nullable = |ty: &Ty| {
        let mut ty = ty;
        while let Ty::Option(inner) = ty {
            ty = inner;
        }
        matches!(ty, Ty::Named(id) if model.type_def(*id).transparent && model.type_def(*id).markers.iter().any(nullable))
    };
    for (t, f) in
        structs(model).filter(|(_, f)| f.markers.iter().any(nullable) || alias_nullable(&f.ty))
    {
        out.push(on_field(
            "nonullable",
            t,
            f,
            format!("{} has the nullable marker", field_name(t, f)),
        ));
    }
}

/// A naming rule on field names (Rust and JSON): `word` anywhere in them, case-insensitive.
fn naming(
    model: &Model<'_>,
    out: &mut Vec<Finding>,
    rule: &'static str,
    word: &str,
    message: &str,
) {
    for (t, f) in structs(model) {
        let hit = |name: &str| name.to_ascii_lowercase().contains(word);
        if hit(&f.json_name) || hit(&f.rust_name) {
            out.push(on_field(
                rule,
                t,
                f,
                format!("{}: {message}", field_name(t, f)),
            ));
        }
    }
}

fn noreferences(model: &Model<'_>, out: &mut Vec<Finding>) {
    // kube-api-linter's default policy (PreferAbbreviatedReference), `^[Rr]eference|Reference(s?)$`,
    // on the JSON name (the Go field name it reads is the same word in PascalCase).
    for (t, f) in structs(model) {
        let name = f.json_name.as_str();
        let hit = name.starts_with("reference")
            || name.starts_with("Reference")
            || name.ends_with("Reference")
            || name.ends_with("References");
        if hit {
            let mut finding = on_field(
                "noreferences",
                t,
                f,
                format!(
                    "{}: field names should use 'Ref' instead of 'Reference'",
                    field_name(t, f)
                ),
            );
            finding.help =
                Some("e.g. nodeRef for nodeReference, configRefs for configReferences".to_owned());
            out.push(finding);
        }
    }
}

fn nonpointerstructs(model: &Model<'_>, out: &mut Vec<Finding>) {
    let marked = |markers: &[Marker], want: fn(&SchemaMarker) -> bool| {
        markers.iter().any(|m| m.on_node().is_some_and(want))
    };
    let optional = |m: &SchemaMarker| matches!(m, SchemaMarker::Optional);
    let required =
        |m: &SchemaMarker| matches!(m, SchemaMarker::Required | SchemaMarker::K8sRequired);
    for (t, f) in structs(model) {
        // Go's non-pointer struct: a struct type, not an Option, through aliases.
        let mut ty = &f.ty;
        let inner = loop {
            let Ty::Named(id) = ty else { break None };
            let def = model.type_def(*id);
            match &def.shape {
                Shape::Wrapper(w) if def.transparent => ty = w,
                Shape::Struct(fields) => break Some((def, fields)),
                _ => break None,
            }
        };
        let Some((def, fields)) = inner else { continue };
        let min_properties = def
            .markers
            .iter()
            .any(|m| matches!(m.on_node(), Some(SchemaMarker::MinProperties(n)) if *n > 0));
        let has_required = min_properties || fields.iter().any(|g| marked(&g.markers, required));
        let message = match (
            has_required,
            marked(&f.markers, required),
            marked(&f.markers, optional),
        ) {
            (true, false, _) => {
                "is a non-pointer struct with required fields. It must be marked as required."
            }
            (false, _, false) => {
                "is a non-pointer struct with no required fields. It must be marked as optional."
            }
            _ => continue,
        };
        out.push(on_field(
            "nonpointerstructs",
            t,
            f,
            format!("{} {message}", field_name(t, f)),
        ));
    }
}

fn nophase(model: &Model<'_>, out: &mut Vec<Finding>) {
    naming(
        model,
        out,
        "nophase",
        "phase",
        "phase fields are deprecated and conditions should be preferred, avoid phase like enum fields",
    );
}

fn notimestamp(model: &Model<'_>, out: &mut Vec<Finding>) {
    naming(
        model,
        out,
        "notimestamp",
        "timestamp",
        "prefer use of the term 'time' over 'timestamp'",
    );
}

/// The status types: the kinds' and those of fields named `status`.
fn status_types<'m>(model: &'m Model<'_>) -> Vec<&'m TypeDef> {
    let mut ids: Vec<usize> = Vec::new();
    for v in model.kinds.iter().flat_map(|k| &k.versions) {
        let mut ty = v.status.as_ref();
        while let Some(Ty::Option(inner)) = ty {
            ty = Some(inner);
        }
        if let Some(Ty::Named(id)) = ty
            && !ids.contains(id)
        {
            ids.push(*id);
        }
    }
    // As kube-api-linter finds them: the type of any field named `status`.
    for (_, f) in structs(model).filter(|(_, f)| f.json_name == "status") {
        let mut ty = &f.ty;
        while let Ty::Option(inner) = ty {
            ty = inner;
        }
        if let Ty::Named(id) = ty
            && !ids.contains(id)
        {
            ids.push(*id);
        }
    }
    ids.into_iter().map(|id| model.type_def(id)).collect()
}

fn statusoptional(model: &Model<'_>, out: &mut Vec<Finding>) {
    // A status struct's flattened structs are its fields too, as Go's inline embedding is.
    let mut pending = status_types(model);
    let mut seen: Vec<&str> = Vec::new();
    while let Some(t) = pending.pop() {
        let Shape::Struct(fields) = &t.shape else {
            continue;
        };
        if seen.contains(&t.path.as_str()) {
            continue;
        }
        seen.push(&t.path);
        for f in fields {
            if f.flatten {
                if let Ty::Named(id) = &f.ty {
                    pending.push(model.type_def(*id));
                }
                continue;
            }
            let optional = f
                .markers
                .iter()
                .any(|m| matches!(m.on_node(), Some(SchemaMarker::Optional)))
                || model.package_optional(&t.package);
            let message = if f.markers.iter().any(is_required) {
                format!(
                    "status field {:?} must be marked as optional, not required",
                    f.json_name
                )
            } else if !optional {
                format!("status field {:?} must be marked as optional", f.json_name)
            } else {
                continue;
            };
            out.push(on_field("statusoptional", t, f, message));
        }
    }
}

fn statussubresource(model: &Model<'_>, out: &mut Vec<Finding>) {
    for (kind, v) in model
        .kinds
        .iter()
        .flat_map(|k| k.versions.iter().map(move |v| (k, v)))
    {
        let no_subresource = v
            .markers
            .iter()
            .any(|m| m.typed == Typed::Resource(ResourceMarker::NoStatusSubresource));
        if v.status.is_some() && no_subresource {
            let spec = model.type_def(v.spec);
            out.push(on_type(
                "statussubresource",
                spec,
                format!(
                    "kind {} {} has a status but does not serve the status subresource",
                    kind.kind, v.version
                ),
            ));
        }
    }
}

fn optionnull(model: &Model<'_>, out: &mut Vec<Finding>) {
    for (t, f) in structs(model) {
        if !model.is_option(&f.ty) || f.skip_serializing_if || f.custom_with {
            continue;
        }
        let mut finding = on_field(
            "optionnull",
            t,
            f,
            format!(
                "{} is an Option written as null when None: the API server keeps an explicit null where the schema is nullable and refuses it elsewhere, and server-side apply takes it for a field this manager owns",
                field_name(t, f)
            ),
        );
        finding.help = Some(
            "add #[serde(skip_serializing_if = \"Option::is_none\")] (opgen lint --fix does)"
                .to_owned(),
        );
        finding.fix = fix_before_field(
            model,
            f.loc,
            "#[serde(skip_serializing_if = \"Option::is_none\")]",
        );
        out.push(finding);
    }
}

/// An attribute line inserted above the field at `loc`, indented as it is.
fn fix_before_field(model: &Model<'_>, loc: SrcLoc, attribute: &str) -> Option<Fix> {
    let line = model.files[loc.file]
        .text
        .lines()
        .nth(loc.line.checked_sub(1)?)?;
    let indent: String = line.chars().take_while(|c| c.is_whitespace()).collect();
    // Only where the field starts its line (`pub name: T`), so the insertion is its own line.
    (indent.chars().count() + 1 == loc.column).then(|| Fix {
        file: loc.file,
        before: loc.line,
        line: format!("{indent}{attribute}"),
    })
}

fn untaggedenum(model: &Model<'_>, out: &mut Vec<Finding>) {
    for t in &model.types {
        if let Shape::DataEnum {
            repr: EnumRepr::Untagged,
            ..
        } = &t.shape
        {
            let mut finding = on_type(
                "untaggedenum",
                t,
                format!(
                    "enum {} is #[serde(untagged)]: an object is read as the first variant that fits, which no OpenAPI schema says",
                    t.name
                ),
            );
            finding.help = Some("a struct of optional members with +kubebuilder:validation:XValidation saying exactly one is set, or an internally tagged enum".to_owned());
            out.push(finding);
        }
    }
}

fn denyunknownfields(model: &Model<'_>, out: &mut Vec<Finding>) {
    for t in model.types.iter().filter(|t| t.deny_unknown_fields) {
        let mut finding = on_type(
            "denyunknownfields",
            t,
            format!(
                "{} has #[serde(deny_unknown_fields)]: an object written by a newer version of the CRD (a field this build does not know) fails to deserialize, where the API server's pruning keeps it",
                t.name
            ),
        );
        finding.help = Some("remove deny_unknown_fields; the CRD's structural schema already refuses unknown fields on write".to_owned());
        out.push(finding);
    }
}

#[cfg(test)]
mod tests {
    use super::is_camel_case;

    #[test]
    fn camel_case_is_kube_api_linters() {
        for good in ["a", "fooBar", "foo2Bar", "podIP"] {
            assert!(is_camel_case(good), "{good}");
        }
        for bad in ["Foo", "foo_bar", "", "1a", "foo-bar"] {
            assert!(!is_camel_case(bad), "{bad}");
        }
    }
}
