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
