//! One version's schema against its next: the two OpenAPI trees walked together, property by
//! property, each keyword's change classified by what the API server's validation, pruning and
//! defaulting then do with requests and stored objects.

use super::{Rule, Severity, Sink, Strictness, cel};
use serde_json::Value;

/// Far deeper than any real schema; a deeper one stops here with a finding, not a stack overflow.
const MAX_DEPTH: usize = 64;

/// Keywords that change nothing the API server or a client does.
const DOCUMENTATION: &[&str] = &["description", "title", "example", "externalDocs"];

/// Keywords a rule below looks at (the rest, when changed, is `Unclassified`).
const CLASSIFIED: &[&str] = &[
    "type",
    "format",
    "default",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "maxItems",
    "minItems",
    "maxProperties",
    "minProperties",
    "multipleOf",
    "pattern",
    "enum",
    "required",
    "items",
    "properties",
    "additionalProperties",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "nullable",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource",
    "x-kubernetes-int-or-string",
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-map-type",
    "x-kubernetes-validations",
];

pub(super) fn compare(old: &Value, new: &Value, sink: &mut Sink) {
    node(old, new, ".", 0, sink);
}

fn child(path: &str, name: &str) -> String {
    if path == "." {
        format!(".{name}")
    } else {
        format!("{path}.{name}")
    }
}

/// Every field path of a schema (as [`compare`] names them), in a stable order; deeper than
/// `MAX_DEPTH` is left out.
pub(super) fn field_paths(schema: &Value, path: &str, out: &mut Vec<String>) {
    fn walk(schema: &Value, path: &str, depth: usize, out: &mut Vec<String>) {
        if depth > MAX_DEPTH {
            return;
        }
        for (name, child_schema) in schema["properties"].as_object().into_iter().flatten() {
            let at = child(path, name);
            out.push(at.clone());
            walk(child_schema, &at, depth + 1, out);
        }
        if schema["items"].is_object() {
            walk(&schema["items"], &format!("{path}[*]"), depth + 1, out);
        }
        if schema["additionalProperties"].is_object() {
            walk(
                &schema["additionalProperties"],
                &child(path, "*"),
                depth + 1,
                out,
            );
        }
    }
    walk(schema, path, 0, out);
}

fn node(old: &Value, new: &Value, path: &str, depth: usize, sink: &mut Sink) {
    if old == new {
        return;
    }
    if depth > MAX_DEPTH {
        sink.push(
            Some(path),
            Rule::Unclassified,
            Severity::PossiblyBreaking,
            Strictness::Wire,
            format!("schema nests deeper than {MAX_DEPTH} levels: not compared below here"),
        );
        return;
    }
    type_rule(old, new, path, sink);
    required_rule(old, new, path, sink);
    enum_rule(old, new, path, sink);
    default_rule(old, new, path, sink);
    bounds_rule(old, new, path, sink);
    pattern_rule(old, new, path, sink);
    nullable_and_format_rules(old, new, path, sink);
    list_and_map_rules(old, new, path, sink);
    extension_rules(old, new, path, sink);
    cel::compare(
        &old["x-kubernetes-validations"],
        &new["x-kubernetes-validations"],
        path,
        sink,
    );
    unclassified_rule(old, new, path, sink);
    children(old, new, path, depth, sink);
}

fn children(old: &Value, new: &Value, path: &str, depth: usize, sink: &mut Sink) {
    let keeps_unknown = new["x-kubernetes-preserve-unknown-fields"] == true;
    let empty = serde_json::Map::new();
    let old_props = old["properties"].as_object().unwrap_or(&empty);
    let new_props = new["properties"].as_object().unwrap_or(&empty);
    for (name, old_prop) in old_props {
        let at = child(path, name);
        match new_props.get(name) {
            Some(new_prop) => node(old_prop, new_prop, &at, depth + 1, sink),
            None => field_removed(&at, keeps_unknown, sink),
        }
    }
    for name in new_props.keys().filter(|n| !old_props.contains_key(*n)) {
        sink.push(
            Some(&child(path, name)),
            Rule::FieldAdded,
            Severity::Compatible,
            Strictness::Wire,
            "field added",
        );
    }
    if old["items"].is_object() && new["items"].is_object() {
        node(
            &old["items"],
            &new["items"],
            &format!("{path}[*]"),
            depth + 1,
            sink,
        );
    }
    let (old_map, new_map) = (&old["additionalProperties"], &new["additionalProperties"]);
    let at = child(path, "*");
    if old_map.is_object() && new_map.is_object() {
        node(old_map, new_map, &at, depth + 1, sink);
    } else if old_map.is_object() && new_map.is_null() && new_props.is_empty() {
        field_removed(&at, keeps_unknown, sink);
    }
}

fn field_removed(path: &str, keeps_unknown: bool, sink: &mut Sink) {
    if keeps_unknown {
        sink.push(
            Some(path),
            Rule::FieldRemoved,
            Severity::PossiblyBreaking,
            Strictness::Client,
            "field removed from the schema, but its parent keeps unknown fields: values are kept, no longer validated or documented",
        );
    } else {
        sink.push(
            Some(path),
            Rule::FieldRemoved,
            Severity::Breaking,
            Strictness::Wire,
            "field removed: the API server prunes it, from stored objects when they are read and from every request",
        );
    }
}

fn type_rule(old: &Value, new: &Value, path: &str, sink: &mut Sink) {
    let int_or_string = |v: &Value| v["x-kubernetes-int-or-string"] == true;
    let (old_t, new_t) = (old["type"].as_str(), new["type"].as_str());
    match (int_or_string(old), int_or_string(new)) {
        (true, true) => return,
        (true, false) => {
            let (severity, level, why) = if new_t.is_none() && keeps_anything(new) {
                (
                    Severity::PossiblyBreaking,
                    Strictness::Client,
                    "any value is accepted now; clients may receive other types",
                )
            } else {
                (
                    Severity::Breaking,
                    Strictness::Wire,
                    "values of the other type are refused",
                )
            };
            sink.push(
                Some(path),
                Rule::IntOrStringChanged,
                severity,
                level,
                format!("int-or-string -> {}: {why}", new_t.unwrap_or("no type")),
            );
            return;
        }
        (false, true) => {
            let widened = matches!(old_t, Some("integer" | "string"));
            let (severity, level, why) = if widened {
                (
                    Severity::PossiblyBreaking,
                    Strictness::Client,
                    "every old value is still accepted; clients may receive the other type",
                )
            } else {
                (
                    Severity::Breaking,
                    Strictness::Wire,
                    "values of the old type are refused",
                )
            };
            sink.push(
                Some(path),
                Rule::IntOrStringChanged,
                severity,
                level,
                format!("{} -> int-or-string: {why}", old_t.unwrap_or("no type")),
            );
            return;
        }
        (false, false) => {}
    }
    if old_t == new_t {
        return;
    }
    let name = |t: Option<&str>| t.unwrap_or("no type").to_owned();
    let message = format!("type {} -> {}", name(old_t), name(new_t));
    let (severity, level, why) = match (old_t, new_t) {
        (Some("integer"), Some("number")) => (
            Severity::PossiblyBreaking,
            Strictness::Client,
            "every integer is a number, but clients decoding integers may receive fractions",
        ),
        (Some(_), None) if keeps_anything(new) => (
            Severity::PossiblyBreaking,
            Strictness::Client,
            "any value is accepted now; clients may receive other types",
        ),
        _ => (
            Severity::Breaking,
            Strictness::Wire,
            "values of the old type are refused",
        ),
    };
    sink.push(
        Some(path),
        Rule::TypeChanged,
        severity,
        level,
        format!("{message}: {why}"),
    );
}

/// A node without a type that accepts any value.
fn keeps_anything(node: &Value) -> bool {
    node["x-kubernetes-preserve-unknown-fields"] == true
}

fn required_rule(old: &Value, new: &Value, path: &str, sink: &mut Sink) {
    let list =
        |v: &Value| -> Vec<String> { super::strings(&v["required"]).map(str::to_owned).collect() };
    let (old_req, new_req) = (list(old), list(new));
    for name in new_req.iter().filter(|n| !old_req.contains(n)) {
        let at = child(path, name);
        if !new["properties"][name]["default"].is_null() {
            sink.push(
                Some(&at),
                Rule::RequiredAdded,
                Severity::PossiblyBreaking,
                Strictness::Client,
                "now required, but defaulted before validation: requests without it are still accepted",
            );
        } else {
            sink.push(
                Some(&at),
                Rule::RequiredAdded,
                Severity::Breaking,
                Strictness::Wire,
                "now required: requests without it are refused, even unchanged updates of stored objects (required is not ratcheted)",
            );
        }
    }
    for name in old_req.iter().filter(|n| !new_req.contains(n)) {
        sink.push(
            Some(&child(path, name)),
            Rule::RequiredRemoved,
            Severity::PossiblyBreaking,
            Strictness::Client,
            "no longer required: clients may receive objects without it",
        );
    }
}

fn enum_rule(old: &Value, new: &Value, path: &str, sink: &mut Sink) {
    let (old_e, new_e) = (old["enum"].as_array(), new["enum"].as_array());
    match (old_e, new_e) {
        (None, Some(values)) => {
            sink.push(
                Some(path),
                Rule::EnumAdded,
                Severity::Breaking,
                Strictness::Wire,
                format!(
                    "now limited to {}: other values are refused",
                    join(values.iter())
                ),
            );
        }
        (Some(_), None) => {
            sink.push(
                Some(path),
                Rule::EnumRemoved,
                Severity::PossiblyBreaking,
                Strictness::Client,
                "no longer an enum: clients may receive values they do not know",
            );
        }
        (Some(o), Some(n)) => {
            let removed: Vec<&Value> = o.iter().filter(|v| !n.contains(v)).collect();
            let added: Vec<&Value> = n.iter().filter(|v| !o.contains(v)).collect();
            if !removed.is_empty() {
                sink.push(
                    Some(path),
                    Rule::EnumValuesRemoved,
                    Severity::Breaking,
                    Strictness::Wire,
                    format!(
                        "enum values removed: {}: they are refused",
                        join(removed.into_iter())
                    ),
                );
            }
            if !added.is_empty() {
                sink.push(
                    Some(path),
                    Rule::EnumValuesAdded,
                    Severity::PossiblyBreaking,
                    Strictness::Client,
                    format!(
                        "enum values added: {}: clients may receive values they do not know",
                        join(added.into_iter())
                    ),
                );
            }
        }
        (None, None) => {}
    }
}

fn join<'v>(values: impl Iterator<Item = &'v Value>) -> String {
    values.map(Value::to_string).collect::<Vec<_>>().join(", ")
}

fn default_rule(old: &Value, new: &Value, path: &str, sink: &mut Sink) {
    let (o, n) = (&old["default"], &new["default"]);
    let (rule, message) = match (o.is_null(), n.is_null()) {
        (true, false) => (
            Rule::DefaultAdded,
            format!(
                "default {n} added: objects stored without the field read back with it (the API server defaults on read)"
            ),
        ),
        (false, true) => (
            Rule::DefaultRemoved,
            format!("default {o} removed: new objects without the field keep none"),
        ),
        (false, false) if o != n => (
            Rule::DefaultChanged,
            format!("default {o} -> {n}: new objects get the new value, stored ones keep the old"),
        ),
        _ => return,
    };
    sink.push(
        Some(path),
        rule,
        Severity::PossiblyBreaking,
        Strictness::Client,
        message,
    );
}

/// (keyword, its exclusive flag, whether it is an upper bound)
const BOUNDS: &[(&str, Option<&str>, bool)] = &[
    ("maximum", Some("exclusiveMaximum"), true),
    ("minimum", Some("exclusiveMinimum"), false),
    ("maxLength", None, true),
    ("minLength", None, false),
    ("maxItems", None, true),
    ("minItems", None, false),
    ("maxProperties", None, true),
    ("minProperties", None, false),
];

fn bounds_rule(old: &Value, new: &Value, path: &str, sink: &mut Sink) {
    for &(keyword, exclusive, upper) in BOUNDS {
        let bound = |v: &Value| {
            v[keyword]
                .as_f64()
                .map(|b| (b, exclusive.is_some_and(|e| v[e] == true)))
        };
        let (o, n) = (bound(old), bound(new));
        let show = |b: Option<(f64, bool)>| match b {
            None => "none".to_owned(),
            Some((b, true)) => format!("{b} (exclusive)"),
            Some((b, false)) => format!("{b}"),
        };
        // Whether `a` admits fewer values than `b`.
        let tighter = |(a, ax): (f64, bool), (b, bx): (f64, bool)| {
            let beyond = if upper { a < b } else { a > b };
            beyond || (a == b && ax && !bx)
        };
        let tightened = match (o, n) {
            (None, Some(_)) => true,
            (Some(_), None) => false,
            (Some(o), Some(n)) if o != n => tighter(n, o),
            _ => continue,
        };
        let message = format!("{keyword} {} -> {}", show(o), show(n));
        let finding = if tightened {
            sink.push(
                Some(path),
                Rule::BoundTightened,
                Severity::Breaking,
                Strictness::Wire,
                format!("{message}: values outside the new bound are refused"),
            )
        } else {
            sink.push(
                Some(path),
                Rule::BoundLoosened,
                Severity::Compatible,
                Strictness::Wire,
                message,
            )
        };
        finding.keyword = Some(keyword);
    }
    multiple_of_rule(old, new, path, sink);
}

fn multiple_of_rule(old: &Value, new: &Value, path: &str, sink: &mut Sink) {
    let (o, n) = (old["multipleOf"].as_f64(), new["multipleOf"].as_f64());
    let tightened = match (o, n) {
        (None, Some(_)) => true,
        (Some(o), Some(n)) if o != n => (o / n).fract() != 0.0,
        (Some(_), None) => false,
        _ => return,
    };
    let message = format!("multipleOf {o:?} -> {n:?}");
    let finding = if tightened {
        sink.push(
            Some(path),
            Rule::BoundTightened,
            Severity::Breaking,
            Strictness::Wire,
            format!("{message}: values that are not multiples are refused"),
        )
    } else {
        sink.push(
            Some(path),
            Rule::BoundLoosened,
            Severity::Compatible,
            Strictness::Wire,
            message,
        )
    };
    finding.keyword = Some("multipleOf");
}

fn pattern_rule(old: &Value, new: &Value, path: &str, sink: &mut Sink) {
    match (old["pattern"].as_str(), new["pattern"].as_str()) {
        (None, Some(p)) => {
            sink.push(
                Some(path),
                Rule::PatternAdded,
                Severity::Breaking,
                Strictness::Wire,
                format!("pattern {p:?} added: values not matching it are refused"),
            );
        }
        (Some(o), Some(n)) if o != n => {
            sink.push(
                Some(path),
                Rule::PatternChanged,
                Severity::PossiblyBreaking,
                Strictness::Wire,
                format!("pattern {o:?} -> {n:?}: values matching only the old one are refused"),
            );
        }
        (Some(o), None) => {
            sink.push(
                Some(path),
                Rule::PatternRemoved,
                Severity::PossiblyBreaking,
                Strictness::Client,
                format!("pattern {o:?} removed: clients may receive values it refused"),
            );
        }
        _ => {}
    }
}

fn nullable_and_format_rules(old: &Value, new: &Value, path: &str, sink: &mut Sink) {
    match (old["nullable"] == true, new["nullable"] == true) {
        (true, false) => {
            // The API server prunes a null it may not keep, before defaulting: nothing is
            // refused (tests/diff_apiserver.rs, nullable-removed), but null reads back absent,
            // or as the default.
            let (severity, why) = if new["default"].is_null() {
                (
                    Severity::PossiblyBreaking,
                    "null values are dropped: the field reads back absent",
                )
            } else {
                (
                    Severity::Breaking,
                    "null values are replaced by the default",
                )
            };
            sink.push(
                Some(path),
                Rule::NullableRemoved,
                severity,
                Strictness::Wire,
                format!("no longer nullable: {why}"),
            );
        }
        (false, true) => {
            sink.push(
                Some(path),
                Rule::NullableAdded,
                Severity::PossiblyBreaking,
                Strictness::Client,
                "now nullable: clients may receive null",
            );
        }
        _ => {}
    }
    let (o, n) = (old["format"].as_str(), new["format"].as_str());
    if o == n {
        return;
    }
    // Which formats the API server checks depends on its version: 1.37 refuses an integer out
    // of int32's range, 1.33 does not (tests/diff_apiserver.rs, format-int32-added).
    let (severity, level, why) = match n {
        Some(_) => (
            Severity::PossiblyBreaking,
            Strictness::Wire,
            "the API server checks the formats it knows: values not in the new one may be refused",
        ),
        None => (
            Severity::PossiblyBreaking,
            Strictness::Client,
            "values are no longer checked: clients may receive values outside it",
        ),
    };
    sink.push(
        Some(path),
        Rule::FormatChanged,
        severity,
        level,
        format!(
            "format {} -> {}: {why}",
            o.unwrap_or("none"),
            n.unwrap_or("none")
        ),
    );
}

fn list_and_map_rules(old: &Value, new: &Value, path: &str, sink: &mut Sink) {
    let list_type = |v: &Value| {
        v["x-kubernetes-list-type"]
            .as_str()
            .unwrap_or("atomic")
            .to_owned()
    };
    let (o, n) = (list_type(old), list_type(new));
    if old["type"] == "array" && o != n {
        let (severity, why) = if n == "atomic" {
            (
                Severity::PossiblyBreaking,
                "server-side apply now replaces the whole list: entries other managers own are dropped",
            )
        } else {
            (
                Severity::Breaking,
                "lists with duplicate entries (or, for a map, entries without their keys) are refused",
            )
        };
        sink.push(
            Some(path),
            Rule::ListTypeChanged,
            severity,
            Strictness::Wire,
            format!("x-kubernetes-list-type {o} -> {n}: {why}"),
        );
    } else if n == "map" && old["x-kubernetes-list-map-keys"] != new["x-kubernetes-list-map-keys"] {
        let keys = |v: &Value| -> Vec<String> {
            super::strings(&v["x-kubernetes-list-map-keys"])
                .map(str::to_owned)
                .collect()
        };
        // More keys: entries unique by the old ones are unique by the new ones too.
        let (severity, why) = if keys(old).iter().all(|k| keys(new).contains(k)) {
            (
                Severity::PossiblyBreaking,
                "entries are unique as before, but server-side apply merges them by the new keys",
            )
        } else {
            (
                Severity::Breaking,
                "entries that were distinct by the old keys can collide under the new ones and are refused",
            )
        };
        sink.push(
            Some(path),
            Rule::MapKeysChanged,
            severity,
            Strictness::Wire,
            format!(
                "x-kubernetes-list-map-keys {} -> {}: {why}",
                old["x-kubernetes-list-map-keys"], new["x-kubernetes-list-map-keys"]
            ),
        );
    }
    let map_type = |v: &Value| {
        v["x-kubernetes-map-type"]
            .as_str()
            .unwrap_or("granular")
            .to_owned()
    };
    if map_type(old) != map_type(new) {
        sink.push(
            Some(path),
            Rule::MapTypeChanged,
            Severity::PossiblyBreaking,
            Strictness::Wire,
            format!(
                "x-kubernetes-map-type {} -> {}: server-side apply merges it differently",
                map_type(old),
                map_type(new)
            ),
        );
    }
}

fn extension_rules(old: &Value, new: &Value, path: &str, sink: &mut Sink) {
    let flag = |v: &Value, key: &str| v[key] == true;
    let preserve = "x-kubernetes-preserve-unknown-fields";
    match (flag(old, preserve), flag(new, preserve)) {
        (true, false) => {
            sink.push(
                Some(path),
                Rule::PreserveUnknownFieldsRemoved,
                Severity::Breaking,
                Strictness::Wire,
                "unknown fields are no longer kept: the API server prunes them from stored objects and requests",
            );
        }
        (false, true) => {
            sink.push(
                Some(path),
                Rule::PreserveUnknownFieldsAdded,
                Severity::Compatible,
                Strictness::Wire,
                "unknown fields are kept now",
            );
        }
        _ => {}
    }
    let embedded = "x-kubernetes-embedded-resource";
    if flag(old, embedded) != flag(new, embedded) {
        sink.push(
            Some(path),
            Rule::EmbeddedResourceChanged,
            Severity::Breaking,
            Strictness::Wire,
            format!(
                "{embedded} {} -> {}: apiVersion, kind and metadata are validated and pruned differently",
                flag(old, embedded),
                flag(new, embedded)
            ),
        );
    }
    for key in ["allOf", "anyOf", "oneOf", "not"] {
        if old[key] != new[key] {
            sink.push(
                Some(path),
                Rule::CompositionChanged,
                Severity::PossiblyBreaking,
                Strictness::Wire,
                format!("{key} changed: which values are accepted depends on the subschemas"),
            );
        }
    }
}

fn unclassified_rule(old: &Value, new: &Value, path: &str, sink: &mut Sink) {
    let keys = |v: &Value| -> Vec<String> {
        v.as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default()
    };
    let mut all = keys(old);
    all.extend(keys(new));
    all.sort();
    all.dedup();
    for key in all {
        if CLASSIFIED.contains(&key.as_str()) || DOCUMENTATION.contains(&key.as_str()) {
            continue;
        }
        if old[key.as_str()] != new[key.as_str()] {
            sink.push(
                Some(path),
                Rule::Unclassified,
                Severity::PossiblyBreaking,
                Strictness::Wire,
                format!("{key} changed: opgen has no rule for it"),
            );
        }
    }
}
