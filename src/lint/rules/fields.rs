//! Rules on whether a field is optional or required, and what follows from it.

use super::*;

pub(super) fn has(markers: &[Marker], name: &str) -> bool {
    markers.iter().any(|m| m.name() == name)
}

pub(super) fn optionalorrequired(model: &Model<'_>, out: &mut Vec<Finding>) {
    // The spellings of one typed marker are told apart by name: kube-api-linter prefers some.
    use crate::markers::typed::names::{
        K8S_OPTIONAL, K8S_REQUIRED, KUBEBUILDER_VALIDATION_OPTIONAL as KB_OPTIONAL,
        KUBEBUILDER_VALIDATION_REQUIRED as KB_REQUIRED, OPTIONAL, REQUIRED,
    };
    for (t, f) in inspected_fields(model) {
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

pub(super) fn is_required(m: &Marker) -> bool {
    matches!(
        m.on_node(),
        Some(SchemaMarker::Required | SchemaMarker::K8sRequired)
    )
}

pub(super) fn defaultorrequired(model: &Model<'_>, out: &mut Vec<Finding>) {
    for (t, f) in inspected_fields(model) {
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

pub(super) fn nonpointerstructs(model: &Model<'_>, out: &mut Vec<Finding>) {
    let marked = |markers: &[Marker], want: fn(&SchemaMarker) -> bool| {
        markers.iter().any(|m| m.on_node().is_some_and(want))
    };
    let optional = |m: &SchemaMarker| matches!(m, SchemaMarker::Optional);
    let required =
        |m: &SchemaMarker| matches!(m, SchemaMarker::Required | SchemaMarker::K8sRequired);
    for (t, f) in inspected_fields(model) {
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
    for (_, f) in inspected_fields(model).filter(|(_, f)| f.json_name == "status") {
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

pub(super) fn statusoptional(model: &Model<'_>, out: &mut Vec<Finding>) {
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

pub(super) fn statussubresource(model: &Model<'_>, out: &mut Vec<Finding>) {
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

fn marked_optional(markers: &[Marker]) -> bool {
    markers
        .iter()
        .any(|m| matches!(m.on_node(), Some(SchemaMarker::Optional)))
}

pub(super) fn defaults(model: &Model<'_>, settings: &Settings, out: &mut Vec<Finding>) {
    use crate::lint::settings::{DefaultMarker, Policy};
    let s = &settings.defaults;
    let (preferred, secondary) = match s.preferred_default_marker {
        DefaultMarker::Default => (names::DEFAULT, names::KUBEBUILDER_DEFAULT),
        DefaultMarker::Kubebuilder => (names::KUBEBUILDER_DEFAULT, names::DEFAULT),
    };
    for (t, f) in inspected_fields(model) {
        let of = |name: &str| -> Vec<&Marker> {
            f.markers.iter().filter(|m| m.name() == name).collect()
        };
        let (first, second) = (of(preferred), of(secondary));
        if first.is_empty() && second.is_empty() {
            continue;
        }
        let name = field_name(t, f);
        let file = f.loc.file;
        if !second.is_empty() {
            let (message, edits): (String, Vec<_>) = if first.is_empty() {
                let edits = second.iter().enumerate().filter_map(|(i, m)| {
                    if i == 0 {
                        let text = m.text.trim().replacen(secondary, preferred, 1);
                        replace_marker(model, file, m, &text)
                    } else {
                        remove_marker_line(model, file, m)
                    }
                });
                (
                    format!("{name} should use +{preferred} marker instead of +{secondary}"),
                    edits.collect(),
                )
            } else {
                let edits = second
                    .iter()
                    .filter_map(|m| remove_marker_line(model, file, m));
                (
                    format!(
                        "{name} should use only the marker +{preferred}, +{secondary} is not required"
                    ),
                    edits.collect(),
                )
            };
            let mut finding = on_field("defaults", t, f, message);
            finding.fix = (edits.len() == second.len()).then_some(Fix { file, edits });
            out.push(finding);
        }
        if marked_required(&f.markers) {
            out.push(on_field(
                "defaults",
                t,
                f,
                format!(
                    "{name} has a default value but is marked as required, which is contradictory"
                ),
            ));
        } else if !marked_optional(&f.markers) {
            let mut finding = on_field(
                "defaults",
                t,
                f,
                format!("{name} has a default value but is not marked as optional"),
            );
            finding.fix = insert_markers(model, f.loc, &["optional".to_owned()]);
            out.push(finding);
        }
        // Go's omitempty (omitzero for a struct): a field left out when unset, so that the API
        // server applies the default; serde's skip_serializing_if.
        let is_struct = !model.is_option(&f.ty) && struct_of(model, &f.ty).is_some();
        let policy = if is_struct && s.omitzero.policy != Policy::Forbid {
            s.omitzero.policy
        } else {
            s.omitempty.policy
        };
        if f.skip_serializing_if || f.custom_with || policy == Policy::Ignore {
            continue;
        }
        let tag = if is_struct && s.omitzero.policy != Policy::Forbid {
            "omitzero"
        } else {
            "omitempty"
        };
        let mut finding = on_field(
            "defaults",
            t,
            f,
            format!(
                "{name} has a default value but does not have {tag} in its json tag: serde always writes it, so the API server never applies the default"
            ),
        );
        finding.help = Some(
            "make it an Option with #[serde(skip_serializing_if = \"Option::is_none\")]".to_owned(),
        );
        if policy == Policy::SuggestFix && model.is_option(&f.ty) {
            finding.fix = super::wire::fix_before_field(
                model,
                f.loc,
                "#[serde(skip_serializing_if = \"Option::is_none\")]",
            );
        }
        out.push(finding);
    }
}

/// metav1.Condition, as k8s-openapi names it.
fn is_condition_list(ty: &Ty) -> bool {
    let mut ty = ty;
    while let Ty::Option(inner) = ty {
        ty = inner;
    }
    matches!(ty, Ty::List { item, .. } if matches!(&**item, Ty::K8s(path) if path.ends_with("meta::v1::Condition")))
}

pub(super) fn conditions(model: &Model<'_>, settings: &Settings, out: &mut Vec<Finding>) {
    use crate::lint::settings::FirstField;
    for t in &model.types {
        let Shape::Struct(fields) = &t.shape else {
            continue;
        };
        for (index, f) in fields
            .iter()
            .enumerate()
            .filter(|(_, f)| f.rust_name == "conditions")
        {
            if !is_condition_list(&f.ty) {
                out.push(on_field(
                    "conditions",
                    t,
                    f,
                    format!(
                        "Conditions field in {} must be a slice of metav1.Condition",
                        t.name
                    ),
                ));
                continue;
            }
            let has = |name: &str, value: Option<&str>| {
                f.markers.iter().any(|m| {
                    m.name() == name
                        && value.is_none_or(|v| marker_arg(m, "").as_deref() == Some(v))
                })
            };
            let mut missing = Vec::new();
            if !has(names::LIST_TYPE, Some("map")) {
                missing.push("listType=map".to_owned());
            }
            if !has(names::LIST_MAP_KEY, Some("type")) {
                missing.push("listMapKey=type".to_owned());
            }
            if !has("optional", None) {
                missing.push("optional".to_owned());
            }
            if !missing.is_empty() {
                let mut finding = on_field(
                    "conditions",
                    t,
                    f,
                    format!(
                        "Conditions field in {} is missing the following markers: {}",
                        t.name,
                        missing.join(", ")
                    ),
                );
                finding.fix = insert_markers(model, f.loc, &missing);
                out.push(finding);
            }
            if settings.conditions.is_first_field == FirstField::Warn && index != 0 {
                out.push(on_field(
                    "conditions",
                    t,
                    f,
                    format!(
                        "Conditions field in {} must be the first field in the struct",
                        t.name
                    ),
                ));
            }
        }
    }
}
