//! Rules on markers themselves: given twice, or ones the conventions refuse.

use super::*;

pub(super) fn duplicatemarkers(model: &Model<'_>, out: &mut Vec<Finding>) {
    // The same marker twice: the same name and value, however spelled (`Enum:=a` is
    // `Enum=a`), or the same text for a marker no generator reads.
    let same = |a: &Marker, b: &Marker| match (&a.typed, &b.typed) {
        (Typed::Ignored, _) | (_, Typed::Ignored) => a.text.trim() == b.text.trim(),
        (x, y) => a.name() == b.name() && x == y,
    };
    let twice = |markers: &[&Marker]| -> Vec<String> {
        let mut dup: Vec<String> = Vec::new();
        for (i, m) in markers.iter().enumerate() {
            let text = m.text.trim();
            if markers[..i].iter().any(|seen| same(seen, m)) && !dup.iter().any(|d| d == text) {
                dup.push(text.to_owned());
            }
        }
        dup
    };
    for t in &model.types {
        for marker in twice(&t.markers.iter().collect::<Vec<_>>()) {
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
    for (t, f) in inspected_fields(model) {
        // As kube-api-linter, a field's markers with those of the type it names in its own
        // package (directly or as an Option: a Go pointer), first.
        let named = match &f.ty {
            Ty::Option(inner) => inner.as_ref(),
            ty => ty,
        };
        let mut markers: Vec<&Marker> = match named {
            Ty::Named(id) if model.type_def(*id).package == t.package => {
                model.type_def(*id).markers.iter().collect()
            }
            _ => Vec::new(),
        };
        markers.extend(&f.markers);
        for marker in twice(&markers) {
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

pub(super) fn nonullable(model: &Model<'_>, out: &mut Vec<Finding>) {
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
    for (t, f) in inspected_fields(model)
        .filter(|(_, f)| f.markers.iter().any(nullable) || alias_nullable(&f.ty))
    {
        out.push(on_field(
            "nonullable",
            t,
            f,
            format!("{} has the nullable marker", field_name(t, f)),
        ));
    }
}

/// kube-api-linter's default unique markers: each at most once on a field (with its type) or a
/// type; XValidation once per rule.
const UNIQUE: &[(&str, &[&str])] = &[
    (names::DEFAULT, &[]),
    (names::KUBEBUILDER_DEFAULT, &[]),
    (names::KUBEBUILDER_EXAMPLE, &[]),
    (names::KUBEBUILDER_VALIDATION_ENUM, &[]),
    (names::KUBEBUILDER_VALIDATION_EXCLUSIVE_MAXIMUM, &[]),
    (names::KUBEBUILDER_VALIDATION_EXCLUSIVE_MINIMUM, &[]),
    (names::KUBEBUILDER_VALIDATION_FORMAT, &[]),
    (names::KUBEBUILDER_VALIDATION_MAX_ITEMS, &[]),
    (names::KUBEBUILDER_VALIDATION_MAX_LENGTH, &[]),
    (names::KUBEBUILDER_VALIDATION_MAX_PROPERTIES, &[]),
    (names::KUBEBUILDER_VALIDATION_MAXIMUM, &[]),
    (names::KUBEBUILDER_VALIDATION_MIN_ITEMS, &[]),
    (names::KUBEBUILDER_VALIDATION_MIN_LENGTH, &[]),
    (names::KUBEBUILDER_VALIDATION_MIN_PROPERTIES, &[]),
    (names::KUBEBUILDER_VALIDATION_MINIMUM, &[]),
    (names::KUBEBUILDER_VALIDATION_MULTIPLE_OF, &[]),
    (names::KUBEBUILDER_VALIDATION_PATTERN, &[]),
    (names::KUBEBUILDER_VALIDATION_TYPE, &[]),
    (names::KUBEBUILDER_VALIDATION_UNIQUE_ITEMS, &[]),
    (names::KUBEBUILDER_VALIDATION_ITEMS_ENUM, &[]),
    (names::KUBEBUILDER_VALIDATION_ITEMS_FORMAT, &[]),
    (names::KUBEBUILDER_VALIDATION_ITEMS_MAX_LENGTH, &[]),
    (names::KUBEBUILDER_VALIDATION_ITEMS_MAX_ITEMS, &[]),
    (names::KUBEBUILDER_VALIDATION_ITEMS_MAX_PROPERTIES, &[]),
    (names::KUBEBUILDER_VALIDATION_ITEMS_MAXIMUM, &[]),
    (names::KUBEBUILDER_VALIDATION_ITEMS_MIN_LENGTH, &[]),
    (names::KUBEBUILDER_VALIDATION_ITEMS_MIN_ITEMS, &[]),
    (names::KUBEBUILDER_VALIDATION_ITEMS_MIN_PROPERTIES, &[]),
    (names::KUBEBUILDER_VALIDATION_ITEMS_MINIMUM, &[]),
    (names::KUBEBUILDER_VALIDATION_ITEMS_EXCLUSIVE_MAXIMUM, &[]),
    (names::KUBEBUILDER_VALIDATION_ITEMS_EXCLUSIVE_MINIMUM, &[]),
    (names::KUBEBUILDER_VALIDATION_ITEMS_MULTIPLE_OF, &[]),
    (names::KUBEBUILDER_VALIDATION_ITEMS_PATTERN, &[]),
    (names::KUBEBUILDER_VALIDATION_ITEMS_TYPE, &[]),
    (names::KUBEBUILDER_VALIDATION_ITEMS_UNIQUE_ITEMS, &[]),
    (names::KUBEBUILDER_VALIDATION_X_VALIDATION, &["rule"]),
    (names::KUBEBUILDER_VALIDATION_ITEMS_X_VALIDATION, &["rule"]),
    ("k8s:format", &[]),
    ("k8s:minLength", &[]),
    ("k8s:maxLength", &[]),
    ("k8s:minItems", &[]),
    ("k8s:maxItems", &[]),
    ("k8s:minimum", &[]),
    ("k8s:maximum", &[]),
    (names::K8S_LIST_TYPE, &[]),
];

/// The marker identities given more than once: the name, with the attributes' values.
fn repeated(markers: &[&Marker], unique: &[(String, Vec<String>)]) -> Vec<String> {
    let mut out = Vec::new();
    for (name, attributes) in unique {
        let mut seen: Vec<String> = Vec::new();
        for m in markers.iter().filter(|m| m.name() == name) {
            let id = if attributes.is_empty() {
                name.clone()
            } else {
                let values: Vec<String> = attributes
                    .iter()
                    .map(|a| format!("{a}={}", marker_arg(m, a).unwrap_or_default()))
                    .collect();
                format!("{name}:{}", values.join(","))
            };
            if seen.contains(&id) {
                out.push(id);
            } else {
                seen.push(id);
            }
        }
    }
    out
}

pub(super) fn uniquemarkers(model: &Model<'_>, settings: &Settings, out: &mut Vec<Finding>) {
    let unique: Vec<(String, Vec<String>)> = UNIQUE
        .iter()
        .map(|(n, a)| ((*n).to_owned(), a.iter().map(|a| (*a).to_owned()).collect()))
        .chain(
            settings
                .uniquemarkers
                .custom_markers
                .iter()
                .map(|m| (m.identifier.clone(), m.attributes.clone())),
        )
        .collect();
    const ONCE: &str = "when only a single definition should exist";
    for t in &model.types {
        let markers: Vec<&Marker> = t.markers.iter().collect();
        for id in repeated(&markers, &unique) {
            out.push(on_type(
                "uniquemarkers",
                t,
                format!(
                    "type {} has multiple definitions of marker {id} {ONCE}",
                    t.name
                ),
            ));
        }
    }
    for (t, f) in inspected_fields(model) {
        let markers: Vec<&Marker> = field_and_type_markers(model, f)
            .into_iter()
            .map(|(m, _)| m)
            .collect();
        for id in repeated(&markers, &unique) {
            let mut finding = on_field(
                "uniquemarkers",
                t,
                f,
                format!(
                    "field {}.{} has multiple definitions of marker {id} {ONCE}",
                    t.name, f.json_name
                ),
            );
            finding.help =
                Some("the field's markers and its type's apply together: keep one".to_owned());
            out.push(finding);
        }
    }
}

/// Whether `m` is `id`: a marker name, or `name=value` for a marker with that value.
fn is_marker(m: &Marker, id: &str) -> bool {
    match id.split_once('=') {
        Some((name, value)) => m.name() == name && marker_arg(m, "").as_deref() == Some(value),
        None => m.name() == id,
    }
}

/// A type, or a field of it, with its markers and the files they are in.
type Site<'m> = (&'m TypeDef, Option<&'m Field>, Vec<(&'m Marker, usize)>);

/// Each field's markers (with its type's) and each type's.
fn marker_sites<'m>(model: &'m Model<'_>) -> Vec<Site<'m>> {
    let types = model
        .types
        .iter()
        .map(|t| (t, None, t.markers.iter().map(|m| (m, t.loc.file)).collect()));
    let fields =
        inspected_fields(model).map(|(t, f)| (t, Some(f), field_and_type_markers(model, f)));
    types.chain(fields).collect()
}

fn at_site(rule: &'static str, t: &TypeDef, f: Option<&Field>, message: String) -> Finding {
    match f {
        Some(f) => on_field(rule, t, f, message),
        None => on_type(rule, t, message),
    }
}

fn site_name(t: &TypeDef, f: Option<&Field>) -> String {
    match f {
        Some(f) => format!("field {}.{}", t.name, f.json_name),
        None => format!("type {}", t.name),
    }
}

pub(super) fn forbiddenmarkers(model: &Model<'_>, settings: &Settings, out: &mut Vec<Finding>) {
    let forbidden = &settings.forbiddenmarkers.markers;
    for (t, f, markers) in marker_sites(model) {
        for rule in forbidden {
            for (m, file) in markers.iter().filter(|(m, _)| m.name() == rule.identifier) {
                let matches = |set: &crate::lint::settings::RuleSet| {
                    set.attributes.iter().all(|a| {
                        marker_arg(m, &a.name)
                            .is_some_and(|v| a.values.is_empty() || a.values.contains(&v))
                    })
                };
                let hits = if rule.rule_sets.is_empty() {
                    1
                } else {
                    rule.rule_sets.iter().filter(|s| matches(s)).count()
                };
                for _ in 0..hits {
                    let text = m.text.trim().trim_start_matches('+');
                    let mut finding = at_site(
                        "forbiddenmarkers",
                        t,
                        f,
                        format!("{} has forbidden marker {text:?}", site_name(t, f)),
                    );
                    finding.fix = remove_marker_line(model, *file, m).map(|edit| Fix {
                        file: *file,
                        edits: vec![edit],
                    });
                    out.push(finding);
                }
            }
        }
    }
}

pub(super) fn preferredmarkers(model: &Model<'_>, settings: &Settings, out: &mut Vec<Finding>) {
    for (t, f, markers) in marker_sites(model) {
        for rule in &settings.preferredmarkers.markers {
            let preferred = rule.preferred_identifier.as_str();
            let has_preferred = markers.iter().any(|(m, _)| m.name() == preferred);
            for (m, file) in markers.iter().filter(|(m, _)| {
                rule.equivalent_identifiers
                    .iter()
                    .any(|e| e.identifier == m.name())
            }) {
                let mut message = format!(
                    "{} uses marker {:?}, should use preferred marker {preferred:?} instead",
                    site_name(t, f),
                    m.name()
                );
                if !rule.message.is_empty() {
                    message = format!("{message}: {}", rule.message);
                }
                let mut finding = at_site("preferredmarkers", t, f, message);
                // The preferred marker with the same arguments; removed where it is there already.
                let edit = if has_preferred {
                    remove_marker_line(model, *file, m)
                } else {
                    let text = m.text.trim().replacen(m.name(), preferred, 1);
                    replace_marker(model, *file, m, &text)
                };
                finding.fix = edit.map(|edit| Fix {
                    file: *file,
                    edits: vec![edit],
                });
                out.push(finding);
            }
        }
    }
}

pub(super) fn conflictingmarkers(model: &Model<'_>, settings: &Settings, out: &mut Vec<Finding>) {
    for (t, f) in inspected_fields(model) {
        let markers = field_and_type_markers(model, f);
        for conflict in &settings.conflictingmarkers.conflicts {
            let found: Vec<Vec<&str>> = conflict
                .sets
                .iter()
                .map(|set| {
                    let mut ids: Vec<&str> = set
                        .iter()
                        .filter(|id| markers.iter().any(|(m, _)| is_marker(m, id)))
                        .map(String::as_str)
                        .collect();
                    ids.sort_unstable();
                    ids.dedup();
                    ids
                })
                .filter(|ids| !ids.is_empty())
                .collect();
            if found.len() < 2 {
                continue;
            }
            let sets: Vec<String> = found.iter().map(|s| format!("[{}]", s.join(" "))).collect();
            out.push(on_field(
                "conflictingmarkers",
                t,
                f,
                format!(
                    "field {}.{} has conflicting markers: {}: {{{}}}. {}",
                    t.name,
                    f.json_name,
                    conflict.name,
                    sets.join(", "),
                    conflict.description
                ),
            ));
        }
    }
}

pub(super) fn dependenttags(model: &Model<'_>, settings: &Settings, out: &mut Vec<Finding>) {
    use crate::lint::settings::DependencyType;
    for (t, f) in inspected_fields(model) {
        let markers = field_and_type_markers(model, f);
        let present = |id: &str| markers.iter().any(|(m, _)| m.name() == id);
        for rule in settings
            .dependenttags
            .rules
            .iter()
            .filter(|r| present(&r.identifier))
        {
            let name = format!("field {}.{}", t.name, f.json_name);
            let wanted: Vec<String> = rule.depends_on.iter().map(|d| format!("+{d}")).collect();
            let message = match rule.kind {
                DependencyType::All => {
                    let missing: Vec<String> = rule
                        .depends_on
                        .iter()
                        .filter(|d| !present(d))
                        .map(|d| format!("+{d}"))
                        .collect();
                    if missing.is_empty() {
                        continue;
                    }
                    format!(
                        "{name} with marker +{} is missing required marker(s): {}",
                        rule.identifier,
                        missing.join(", ")
                    )
                }
                DependencyType::Any if rule.depends_on.iter().any(|d| present(d)) => continue,
                DependencyType::Any => format!(
                    "{name} with marker +{} requires at least one of the following markers, but none were found: {}",
                    rule.identifier,
                    wanted.join(", ")
                ),
            };
            out.push(on_field("dependenttags", t, f, message));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::run_on;
    use super::*;

    fn duplicates(text: &str) -> Vec<(String, String)> {
        run_on(text, &Settings::default(), |model, _, out| {
            duplicatemarkers(model, out)
        })
        .into_iter()
        .map(|(field, message, _)| (field, message))
        .collect()
    }

    /// cluster-api-provider-aws's `CapacityReservationPreference`: the type alias and the field
    /// both say `Enum`, one as `Enum:=`, and kube-api-linter reads a field with its type's
    /// markers.
    #[test]
    fn a_field_repeating_its_types_marker_has_it_twice() {
        let text = r#"use serde::{Deserialize, Serialize};

// +kubebuilder:validation:Enum:="";None;Open
pub type Preference = String;

#[derive(Serialize, Deserialize)]
pub struct Spec {
    // +kubebuilder:validation:Enum="";None;Open
    // +optional
    pub preference: Preference,
    // +kubebuilder:validation:Enum=None;Open
    // +optional
    pub other: Option<Preference>,
    // +kubebuilder:validation:XValidation:rule="self.size() < 4"
    // +kubebuilder:validation:XValidation:rule="self.size() < 4"
    pub twice: String,
}
"#;
        assert_eq!(
            duplicates(text),
            [
                (
                    "preference".to_owned(),
                    "field Spec.preference has duplicated markers kubebuilder:validation:Enum=\"\";None;Open"
                        .to_owned()
                ),
                (
                    "twice".to_owned(),
                    "field Spec.twice has duplicated markers kubebuilder:validation:XValidation:rule=\"self.size() < 4\""
                        .to_owned()
                ),
            ]
        );
    }
}
