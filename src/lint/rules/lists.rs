//! Rules on lists and strings: how server-side apply merges a list, and their bounds.

use super::*;

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

/// Bytes (`Vec<u8>`, k8s-openapi's ByteString): Go's `[]byte`, a slice to kube-api-linter.
pub(super) fn is_bytes(ty: &Ty) -> bool {
    match ty {
        Ty::Option(inner) => is_bytes(inner),
        Ty::Bytes { .. } => true,
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

pub(super) fn ssatags(model: &Model<'_>, out: &mut Vec<Finding>) {
    use crate::markers::typed::ListType;
    for (t, f) in inspected_fields(model) {
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

pub(super) fn maxlength(model: &Model<'_>, out: &mut Vec<Finding>) {
    for (t, f) in inspected_fields(model) {
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
                Ty::String | Ty::Bytes { .. } => {
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

/// The item type of a list field, through `Option` and aliases of the list.
fn list_item<'m>(model: &'m Model<'_>, ty: &'m Ty) -> Option<&'m Ty> {
    let mut ty = ty;
    for _ in 0..MAX_DEPTH {
        match ty {
            Ty::Option(inner) => ty = inner,
            Ty::List { item, .. } => return Some(item),
            Ty::Named(id) => match &model.type_def(*id).shape {
                Shape::Wrapper(inner) if model.type_def(*id).transparent => ty = inner,
                _ => return None,
            },
            _ => return None,
        }
    }
    None
}

pub(super) fn arrayofstruct(model: &Model<'_>, out: &mut Vec<Finding>) {
    use crate::markers::typed::names::KUBEBUILDER_VALIDATION_EXACTLY_ONE_OF as EXACTLY_ONE_OF;
    for (t, f) in inspected_fields(model) {
        let Some((item, fields)) = list_item(model, &f.ty).and_then(|i| struct_of(model, i)) else {
            continue;
        };
        if fields::has(&item.markers, EXACTLY_ONE_OF)
            || fields.iter().any(|g| marked_required(&g.markers))
        {
            continue;
        }
        let mut finding = on_field(
            "arrayofstruct",
            t,
            f,
            format!(
                "{}.{} is an array of structs, but the struct has no required fields. At least one field should be marked as required to prevent ambiguous YAML configurations",
                t.name, f.json_name
            ),
        );
        finding.help = Some(format!(
            "mark the field of {} that identifies an item +required (or the struct +kubebuilder:validation:ExactlyOneOf)",
            item.name
        ));
        out.push(finding);
    }
}

/// What gives a string a minimum for kube-api-linter: a minimum length, an enum, or a date,
/// date-time or duration format; `items` reads the `items:` spellings.
fn bounds_string_below(markers: &[&Marker], items: bool) -> bool {
    markers
        .iter()
        .filter(|m| m.def.items == items)
        .any(|m| match &m.typed {
            Typed::Schema(SchemaMarker::MinLength(_) | SchemaMarker::Enum(_)) => true,
            Typed::Schema(SchemaMarker::Format(f)) => {
                matches!(f.as_str(), "date" | "date-time" | "duration")
            }
            _ => false,
        })
}

fn has_node_marker(markers: &[&Marker], want: fn(&SchemaMarker) -> bool) -> bool {
    markers.iter().any(|m| m.on_node().is_some_and(want))
}

pub(super) fn minlength(model: &Model<'_>, out: &mut Vec<Finding>) {
    for (t, f) in inspected_fields(model) {
        for message in min_bounds(model, f, &field_name(t, f)) {
            out.push(on_field("minlength", t, f, message));
        }
    }
}

/// A field's minlength findings: strings, lists, maps and structs, through aliases, with the
/// markers of the field and every alias on the way.
fn min_bounds(model: &Model<'_>, f: &Field, prefix: &str) -> Vec<String> {
    let mut markers: Vec<&Marker> = f.markers.iter().collect();
    let mut prefix = prefix.to_owned();
    let mut ty = &f.ty;
    for _ in 0..MAX_DEPTH {
        match ty {
            Ty::Option(inner) => ty = inner,
            Ty::String | Ty::Bytes { .. } => {
                return (!bounds_string_below(&markers, false))
                    .then(|| format!("{prefix} must have a minimum length, add kubebuilder:validation:MinLength marker"))
                    .into_iter()
                    .collect();
            }
            Ty::List { item, .. } => {
                let mut messages = Vec::new();
                if let Some(message) = min_item_length(model, &markers, item, &prefix) {
                    messages.push(message);
                }
                if !has_node_marker(&markers, |m| matches!(m, SchemaMarker::MinItems(_))) {
                    messages.push(format!("{prefix} must have a minimum items, add kubebuilder:validation:MinItems marker"));
                }
                return messages;
            }
            Ty::Map(_) => {
                return (!has_node_marker(&markers, |m| matches!(m, SchemaMarker::MinProperties(_))))
                    .then(|| format!("{prefix} must have a minimum properties, add kubebuilder:validation:MinProperties marker"))
                    .into_iter()
                    .collect();
            }
            Ty::Named(id) => {
                let def = model.type_def(*id);
                markers.extend(&def.markers);
                prefix = format!("{prefix} type {}", def.name);
                match &def.shape {
                    Shape::Wrapper(inner) if def.transparent => ty = inner,
                    Shape::Struct(fields) => {
                        let bounded = has_node_marker(&markers, |m| {
                            matches!(
                                m,
                                SchemaMarker::MinProperties(_)
                                    | SchemaMarker::ExactlyOneOf(_)
                                    | SchemaMarker::AtLeastOneOf(_)
                            )
                        }) || fields.iter().any(|g| marked_required(&g.markers));
                        return (!bounded)
                            .then(|| format!("{prefix} must have either a required field or a minimum properties, add kubebuilder:validation:MinProperties marker"))
                            .into_iter()
                            .collect();
                    }
                    _ => return Vec::new(),
                }
            }
            _ => return Vec::new(),
        }
    }
    Vec::new()
}

/// A list's string items without a minimum length (directly, or through an alias of string).
fn min_item_length(
    model: &Model<'_>,
    markers: &[&Marker],
    item: &Ty,
    prefix: &str,
) -> Option<String> {
    let element = format!("{prefix} array element");
    match item {
        Ty::String => (!bounds_string_below(markers, true)).then(|| {
            format!("{element} must have a minimum length, add kubebuilder:validation:items:MinLength marker")
        }),
        Ty::Named(id) if model.type_def(*id).transparent => {
            let def = model.type_def(*id);
            let Shape::Wrapper(Ty::String) = &def.shape else {
                return None;
            };
            let mut all: Vec<&Marker> = markers.to_vec();
            all.extend(&def.markers);
            let bounded = bounds_string_below(&all, false) || bounds_string_below(&all, true);
            (!bounded).then(|| {
                format!("{element} type {} must have a minimum length, add kubebuilder:validation:MinLength marker", def.name)
            })
        }
        _ => None,
    }
}
