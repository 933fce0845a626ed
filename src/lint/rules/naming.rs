//! Rules on names and docs: JSON names, doc comments, words to avoid in field names.

use super::*;

/// kube-api-linter's camelCase, `^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)*$`: a lower-case letter, then
/// letters and digits (an upper-case letter may start a one-letter word, as in `podIP`).
fn is_camel_case(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase()) && chars.all(|c| c.is_ascii_alphanumeric())
}

pub(super) fn jsontags(model: &Model<'_>, out: &mut Vec<Finding>) {
    for (t, f) in inspected_fields(model) {
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

pub(super) fn commentstart(model: &Model<'_>, out: &mut Vec<Finding>) {
    for (t, f) in inspected_fields(model) {
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

/// A naming rule on field names (Rust and JSON): `word` anywhere in them, case-insensitive.
fn naming(
    model: &Model<'_>,
    out: &mut Vec<Finding>,
    rule: &'static str,
    word: &str,
    message: &str,
) {
    for (t, f) in inspected_fields(model) {
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

pub(super) fn noreferences(model: &Model<'_>, out: &mut Vec<Finding>) {
    // kube-api-linter's default policy (PreferAbbreviatedReference), `^[Rr]eference|Reference(s?)$`,
    // on the JSON name (the Go field name it reads is the same word in PascalCase).
    for (t, f) in inspected_fields(model) {
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

pub(super) fn nophase(model: &Model<'_>, out: &mut Vec<Finding>) {
    naming(
        model,
        out,
        "nophase",
        "phase",
        "phase fields are deprecated and conditions should be preferred, avoid phase like enum fields",
    );
}

pub(super) fn notimestamp(model: &Model<'_>, out: &mut Vec<Finding>) {
    naming(
        model,
        out,
        "notimestamp",
        "timestamp",
        "prefer use of the term 'time' over 'timestamp'",
    );
}

pub(super) fn namingconventions(model: &Model<'_>, settings: &Settings, out: &mut Vec<Finding>) {
    // kube-api-linter matches the Go field name or the json name: here the Rust name or serde's.
    // Its fixes rename the field; a Rust field's name is also the code's, and serde's may come
    // from the struct's rename_all, so opgen reports only.
    use crate::lint::settings::Operation;
    for (t, f) in inspected_fields(model) {
        for c in &settings.namingconventions.conventions {
            let m = &c.violation_matcher;
            if !m.is_match(&f.rust_name) && !m.is_match(&f.json_name) {
                continue;
            }
            let mut finding = on_field(
                "namingconventions",
                t,
                f,
                format!(
                    "naming convention {:?}: {}: {}",
                    c.name,
                    field_name(t, f),
                    c.message
                ),
            );
            // The serialized name with the match replaced, its first letter lower-cased.
            let renamed = |with: &str| {
                let name = m.replace_all(&f.json_name, with);
                let mut chars = name.chars();
                let first = chars.next().map(|c| c.to_ascii_lowercase());
                format!(
                    "rename it to {:?}",
                    first.into_iter().chain(chars).collect::<String>()
                )
            };
            finding.help = match c.operation {
                Operation::Inform => None,
                Operation::DropField => Some("remove the field".to_owned()),
                Operation::Drop => Some(renamed("")),
                Operation::Replacement => Some(renamed(&c.replacement)),
            };
            out.push(finding);
        }
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
