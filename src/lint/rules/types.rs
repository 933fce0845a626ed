//! Rules on the types of fields and type aliases: no bools, floats, odd integers, durations or maps.

use super::*;

pub(super) fn nobools(model: &Model<'_>, out: &mut Vec<Finding>) {
    type_rule(model, out, "nobools", |ty| {
        (*ty == Ty::Bool).then(|| "should not use a bool. Use a string type with meaningful constant values as an enum.".to_owned())
    });
}

pub(super) fn nofloats(model: &Model<'_>, out: &mut Vec<Finding>) {
    type_rule(model, out, "nofloats", |ty| {
        matches!(ty, Ty::Float { .. }).then(|| {
            "should not use a float value because they cannot be reliably round-tripped.".to_owned()
        })
    });
}

pub(super) fn integers(model: &Model<'_>, out: &mut Vec<Finding>) {
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

pub(super) fn nodurations(model: &Model<'_>, out: &mut Vec<Finding>) {
    type_rule(model, out, "nodurations", |ty| {
        match ty {
        Ty::Foreign { known: Some(WellKnown::DurationText), .. } => Some("should not use a Duration. Use an integer type with units in the name to avoid the need for clients to implement duration parsing.".to_owned()),
        _ => None,
    }
    });
}

pub(super) fn nomaps(model: &Model<'_>, out: &mut Vec<Finding>) {
    const MESSAGE: &str =
        "should not use a map type, use a list type with a unique name/identifier instead";
    for (t, f) in inspected_fields(model) {
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

/// A string, through aliases and an `Option` (Go's `*string`, which kube-api-linter's
/// `IsStringType` takes as a string).
fn is_string(model: &Model<'_>, ty: &Ty) -> bool {
    match ty {
        Ty::String => true,
        Ty::Option(inner) => is_string(model, inner),
        Ty::Named(id) => match &model.type_def(*id).shape {
            Shape::Wrapper(inner) => is_string(model, inner),
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::run_on;
    use super::*;

    /// cluster-api-provider-aws's `ELBAttributes map[string]*string`: a map of strings to
    /// kube-api-linter's default nomaps policy, as `map[string]string` is.
    #[test]
    fn a_map_of_optional_strings_is_a_string_map() {
        let text = r#"use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Serialize, Deserialize)]
pub struct Spec {
    pub labels: BTreeMap<String, String>,
    pub attributes: BTreeMap<String, Option<String>>,
    pub counts: BTreeMap<String, i32>,
    pub optional_counts: BTreeMap<String, Option<i32>>,
}
"#;
        let found: Vec<String> = run_on(text, &Settings::default(), |model, _, out| {
            nomaps(model, out)
        })
        .into_iter()
        .map(|(field, _, _)| field)
        .collect();
        assert_eq!(found, ["counts", "optional_counts"]);
    }
}
