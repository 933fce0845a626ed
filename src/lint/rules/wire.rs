//! What serde does on the wire that the CRD cannot say (opgen's own rules).

use super::*;

pub(super) fn optionnull(model: &Model<'_>, out: &mut Vec<Finding>) {
    for (t, f) in every_field(model) {
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

/// An attribute line inserted above the field at `loc`.
pub(super) fn fix_before_field(model: &Model<'_>, loc: SrcLoc, attribute: &str) -> Option<Fix> {
    insert_above_field(model, loc, &[attribute.to_owned()])
}

pub(super) fn bytestring(model: &Model<'_>, out: &mut Vec<Finding>) {
    for (t, f) in every_field(model) {
        if f.custom_with || !holds_vec_u8(&f.ty) {
            continue;
        }
        let mut finding = on_field(
            "bytestring",
            t,
            f,
            format!(
                "{} holds a Vec<u8>, which serde sends as a list of numbers, where its schema (as Go's []byte) says a base64 string: the API server refuses every value serde sends of it",
                field_name(t, f)
            ),
        );
        finding.help = Some(
            "use k8s_openapi::ByteString, which serde sends as base64 (or #[serde(with = ...)] a base64 module)"
                .to_owned(),
        );
        out.push(finding);
    }
}

/// `Vec<u8>` itself, or in an `Option`, a list or a map.
fn holds_vec_u8(ty: &Ty) -> bool {
    match ty {
        Ty::Bytes { byte_string } => !byte_string,
        Ty::Option(inner) | Ty::List { item: inner, .. } | Ty::Map(inner) => holds_vec_u8(inner),
        _ => false,
    }
}

pub(super) fn untaggedenum(model: &Model<'_>, out: &mut Vec<Finding>) {
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

pub(super) fn denyunknownfields(model: &Model<'_>, out: &mut Vec<Finding>) {
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
