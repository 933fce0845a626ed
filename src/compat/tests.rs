//! One test per rule: the change, and the verdict the API server's behaviour justifies (the
//! referee test `tests/diff_apiserver.rs` shows it on a real one).

use super::*;
use serde_json::json;

/// A namespaced CRD `widgets.example.com` whose v1 `.spec` schema is `spec`.
fn crd(spec: Value) -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": "Widget", "listKind": "WidgetList", "plural": "widgets", "singular": "widget"},
            "scope": "Namespaced",
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {"spec": spec}}},
            }],
        },
    })
}

fn object(properties: Value) -> Value {
    json!({"type": "object", "properties": properties})
}

/// The findings of `old` -> `new` as (path, rule, severity, level).
fn diff(old: Value, new: Value) -> Vec<(String, Rule, Severity, Strictness)> {
    compare(&[old], &[new], false)
        .findings
        .into_iter()
        .map(|f| (f.path.unwrap_or_default(), f.rule, f.severity, f.level))
        .collect()
}

/// The findings of changing `.spec.x` from `old` to `new`.
fn field(old: Value, new: Value) -> Vec<(String, Rule, Severity, Strictness)> {
    diff(
        crd(object(json!({"x": old}))),
        crd(object(json!({"x": new}))),
    )
}

fn one(
    path: &str,
    rule: Rule,
    severity: Severity,
    level: Strictness,
) -> Vec<(String, Rule, Severity, Strictness)> {
    vec![(path.to_owned(), rule, severity, level)]
}

const X: &str = ".spec.x";
use Severity::{Breaking, Compatible, PossiblyBreaking};
use Strictness::{Client, Wire};

#[test]
fn unchanged_is_compatible_with_no_finding() {
    let c = crd(object(json!({"x": {"type": "string"}})));
    let report = compare(std::slice::from_ref(&c), std::slice::from_ref(&c), false);
    assert!(report.findings.is_empty());
    assert_eq!(report.verdict(Client), Compatible);
}

#[test]
fn documentation_changes_are_not_findings() {
    assert!(
        field(
            json!({"type": "string", "description": "a"}),
            json!({"type": "string", "description": "b", "example": "z"})
        )
        .is_empty()
    );
}

#[test]
fn removed_field_is_pruned_so_breaking() {
    // The API server prunes fields its schema does not know, from requests and from stored
    // objects as they are read: the value is lost.
    let old = crd(object(
        json!({"x": {"type": "string"}, "y": {"type": "string"}}),
    ));
    let new = crd(object(json!({"y": {"type": "string"}})));
    assert_eq!(diff(old, new), one(X, Rule::FieldRemoved, Breaking, Wire));
}

#[test]
fn removed_field_under_preserve_unknown_fields_is_kept() {
    let old = crd(object(json!({"x": {"type": "string"}})));
    let mut new = crd(json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}));
    assert_eq!(
        diff(old, new.clone()),
        vec![
            (
                ".spec".to_owned(),
                Rule::PreserveUnknownFieldsAdded,
                Compatible,
                Wire
            ),
            (X.to_owned(), Rule::FieldRemoved, PossiblyBreaking, Client),
        ]
    );
    // and the way back prunes them
    new["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"] =
        json!({"x": {"type": "string"}});
    let back = diff(new, crd(object(json!({"x": {"type": "string"}}))));
    assert_eq!(
        back,
        one(".spec", Rule::PreserveUnknownFieldsRemoved, Breaking, Wire)
    );
}

#[test]
fn added_field_is_compatible() {
    let old = crd(object(json!({})));
    let new = crd(object(json!({"x": {"type": "string"}})));
    assert_eq!(diff(old, new), one(X, Rule::FieldAdded, Compatible, Wire));
}

#[test]
fn type_changes() {
    // A string stored where an integer is now expected fails validation on create.
    assert_eq!(
        field(json!({"type": "string"}), json!({"type": "integer"})),
        one(X, Rule::TypeChanged, Breaking, Wire)
    );
    // Every integer validates as a number: only clients that decode integers notice.
    assert_eq!(
        field(json!({"type": "integer"}), json!({"type": "number"})),
        one(X, Rule::TypeChanged, PossiblyBreaking, Client)
    );
    assert_eq!(
        field(json!({"type": "number"}), json!({"type": "integer"})),
        one(X, Rule::TypeChanged, Breaking, Wire)
    );
    assert_eq!(
        field(
            json!({"type": "string"}),
            json!({"x-kubernetes-int-or-string": true})
        ),
        one(X, Rule::IntOrStringChanged, PossiblyBreaking, Client)
    );
    assert_eq!(
        field(
            json!({"x-kubernetes-int-or-string": true}),
            json!({"type": "string"})
        ),
        one(X, Rule::IntOrStringChanged, Breaking, Wire)
    );
}

#[test]
fn new_required_field_is_breaking_unless_defaulted() {
    let old = crd(object(json!({"x": {"type": "string"}})));
    let mut new = crd(object(json!({"x": {"type": "string"}})));
    new["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["required"] =
        json!(["x"]);
    assert_eq!(
        diff(old.clone(), new.clone()),
        one(X, Rule::RequiredAdded, Breaking, Wire)
    );
    // Defaulting runs before validation: a request without it gets the default.
    let spec = &mut new["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
    spec["properties"]["x"]["default"] = json!("a");
    let found = diff(old.clone(), new.clone());
    assert!(
        found.contains(&(X.to_owned(), Rule::RequiredAdded, PossiblyBreaking, Client)),
        "{found:?}"
    );
    assert_eq!(
        diff(new, old)
            .into_iter()
            .filter(|f| f.1 == Rule::RequiredRemoved)
            .collect::<Vec<_>>(),
        one(X, Rule::RequiredRemoved, PossiblyBreaking, Client)
    );
}

#[test]
fn enums() {
    let e = |v: Value| json!({"type": "string", "enum": v});
    assert_eq!(
        field(e(json!(["a", "b"])), e(json!(["a"]))),
        one(X, Rule::EnumValuesRemoved, Breaking, Wire)
    );
    assert_eq!(
        field(e(json!(["a"])), e(json!(["a", "b"]))),
        one(X, Rule::EnumValuesAdded, PossiblyBreaking, Client)
    );
    assert_eq!(
        field(json!({"type": "string"}), e(json!(["a"]))),
        one(X, Rule::EnumAdded, Breaking, Wire)
    );
    assert_eq!(
        field(e(json!(["a"])), json!({"type": "string"})),
        one(X, Rule::EnumRemoved, PossiblyBreaking, Client)
    );
    assert!(field(e(json!(["a", "b"])), e(json!(["b", "a"]))).is_empty());
}

#[test]
fn defaults_are_seen_by_clients_only() {
    // Defaulting never refuses anything; it changes what clients read.
    let d = |v: Value| json!({"type": "string", "default": v});
    assert_eq!(
        field(json!({"type": "string"}), d(json!("a"))),
        one(X, Rule::DefaultAdded, PossiblyBreaking, Client)
    );
    assert_eq!(
        field(d(json!("a")), d(json!("b"))),
        one(X, Rule::DefaultChanged, PossiblyBreaking, Client)
    );
    assert_eq!(
        field(d(json!("a")), json!({"type": "string"})),
        one(X, Rule::DefaultRemoved, PossiblyBreaking, Client)
    );
}

#[test]
fn bounds() {
    let n = |k: &str, v: Value| {
        let mut s = json!({"type": "integer"});
        s[k] = v;
        s
    };
    for (keyword, looser, tighter) in [
        ("maximum", 10, 5),
        ("minimum", 1, 3),
        ("maxLength", 10, 5),
        ("minLength", 1, 3),
        ("maxItems", 10, 5),
        ("minItems", 1, 3),
        ("maxProperties", 10, 5),
        ("minProperties", 1, 3),
    ] {
        let found = compare(
            &[crd(object(json!({"x": n(keyword, json!(looser))})))],
            &[crd(object(json!({"x": n(keyword, json!(tighter))})))],
            false,
        );
        assert_eq!(found.findings.len(), 1, "{keyword}");
        assert_eq!(
            (found.findings[0].rule, found.findings[0].keyword),
            (Rule::BoundTightened, Some(keyword))
        );
        assert_eq!(found.verdict(Wire), Breaking, "{keyword}");
        assert_eq!(
            field(n(keyword, json!(tighter)), n(keyword, json!(looser))),
            one(X, Rule::BoundLoosened, Compatible, Wire),
            "{keyword}"
        );
        assert_eq!(
            field(json!({"type": "integer"}), n(keyword, json!(looser))),
            one(X, Rule::BoundTightened, Breaking, Wire),
            "{keyword} added"
        );
        assert_eq!(
            field(n(keyword, json!(looser)), json!({"type": "integer"})),
            one(X, Rule::BoundLoosened, Compatible, Wire),
            "{keyword} removed"
        );
    }
    // The same maximum made exclusive refuses the bound itself.
    assert_eq!(
        field(
            json!({"type": "integer", "maximum": 5}),
            json!({"type": "integer", "maximum": 5, "exclusiveMaximum": true})
        )[0]
        .1,
        Rule::BoundTightened
    );
    // Every multiple of 4 is one of 2.
    assert_eq!(
        field(
            json!({"type": "integer", "multipleOf": 4}),
            json!({"type": "integer", "multipleOf": 2})
        )[0]
        .1,
        Rule::BoundLoosened
    );
    assert_eq!(
        field(
            json!({"type": "integer", "multipleOf": 2}),
            json!({"type": "integer", "multipleOf": 3})
        )[0]
        .1,
        Rule::BoundTightened
    );
}

#[test]
fn patterns() {
    let p = |v: &str| json!({"type": "string", "pattern": v});
    assert_eq!(
        field(json!({"type": "string"}), p("^a")),
        one(X, Rule::PatternAdded, Breaking, Wire)
    );
    assert_eq!(
        field(p("^a"), p("^b")),
        one(X, Rule::PatternChanged, PossiblyBreaking, Wire)
    );
    assert_eq!(
        field(p("^a"), json!({"type": "string"})),
        one(X, Rule::PatternRemoved, PossiblyBreaking, Client)
    );
}

#[test]
fn nullable_and_format() {
    assert_eq!(
        field(
            json!({"type": "string", "nullable": true}),
            json!({"type": "string"})
        ),
        one(X, Rule::NullableRemoved, PossiblyBreaking, Wire)
    );
    // The API server drops a null it may not keep, or puts the default in its place.
    assert_eq!(
        field(
            json!({"type": "string", "nullable": true, "default": "d"}),
            json!({"type": "string", "default": "d"})
        ),
        one(X, Rule::NullableRemoved, Breaking, Wire)
    );
    assert_eq!(
        field(
            json!({"type": "string"}),
            json!({"type": "string", "nullable": true})
        ),
        one(X, Rule::NullableAdded, PossiblyBreaking, Client)
    );
    // The API server checks date-time, and int32 from some version on (1.37, not 1.33).
    assert_eq!(
        field(
            json!({"type": "string"}),
            json!({"type": "string", "format": "date-time"})
        ),
        one(X, Rule::FormatChanged, PossiblyBreaking, Wire)
    );
    assert_eq!(
        field(
            json!({"type": "integer"}),
            json!({"type": "integer", "format": "int32"})
        ),
        one(X, Rule::FormatChanged, PossiblyBreaking, Wire)
    );
    // A format removed checks less.
    assert_eq!(
        field(
            json!({"type": "string", "format": "date-time"}),
            json!({"type": "string"})
        ),
        one(X, Rule::FormatChanged, PossiblyBreaking, Client)
    );
}

#[test]
fn list_types_and_map_keys() {
    let list = |t: Option<&str>, keys: Option<Value>| {
        let mut s = json!({"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}, "required": ["name", "port"]}});
        if let Some(t) = t {
            s["x-kubernetes-list-type"] = json!(t);
        }
        if let Some(k) = keys {
            s["x-kubernetes-list-map-keys"] = k;
        }
        s
    };
    // A set or map refuses duplicates an atomic list accepted.
    assert_eq!(
        field(list(None, None), list(Some("map"), Some(json!(["name"])))),
        one(X, Rule::ListTypeChanged, Breaking, Wire)
    );
    // Server-side apply replaces an atomic list whole.
    assert_eq!(
        field(
            list(Some("map"), Some(json!(["name"]))),
            list(Some("atomic"), Some(json!(["name"])))
        ),
        one(X, Rule::ListTypeChanged, PossiblyBreaking, Wire)
    );
    // Distinct by name is distinct by (name, port); not the other way round.
    assert_eq!(
        field(
            list(Some("map"), Some(json!(["name"]))),
            list(Some("map"), Some(json!(["name", "port"])))
        ),
        one(X, Rule::MapKeysChanged, PossiblyBreaking, Wire)
    );
    assert_eq!(
        field(
            list(Some("map"), Some(json!(["name", "port"]))),
            list(Some("map"), Some(json!(["name"])))
        ),
        one(X, Rule::MapKeysChanged, Breaking, Wire)
    );
    assert_eq!(
        field(
            json!({"type": "object", "x-kubernetes-map-type": "atomic"}),
            json!({"type": "object"})
        ),
        one(X, Rule::MapTypeChanged, PossiblyBreaking, Wire)
    );
}

#[test]
fn nested_items_and_maps_are_walked() {
    let old = json!({"type": "array", "items": {"type": "object", "properties": {"a": {"type": "string"}}}});
    let new = json!({"type": "array", "items": {"type": "object", "properties": {"a": {"type": "integer"}}}});
    assert_eq!(
        field(old, new),
        one(".spec.x[*].a", Rule::TypeChanged, Breaking, Wire)
    );
    let old = json!({"type": "object", "additionalProperties": {"type": "string"}});
    let new = json!({"type": "object", "additionalProperties": {"type": "string", "maxLength": 3}});
    assert_eq!(field(old, new)[0].0, ".spec.x.*");
}

fn rules(rules: Value) -> Value {
    json!({"type": "string", "x-kubernetes-validations": rules})
}

#[test]
fn cel_rule_added_is_breaking_but_a_transition_rule_only_possibly() {
    assert_eq!(
        field(
            rules(json!([])),
            rules(json!([{"rule": "self.size() < 5"}]))
        ),
        one(X, Rule::CelRuleAdded, Breaking, Wire)
    );
    // Transition rules never run on create, and on update only when the old value exists.
    assert_eq!(
        field(
            rules(json!([])),
            rules(json!([{"rule": "self == oldSelf"}]))
        ),
        one(X, Rule::CelRuleAdded, PossiblyBreaking, Wire)
    );
    // optionalOldSelf makes it run on create too.
    assert_eq!(
        field(
            rules(json!([])),
            rules(
                json!([{"rule": "oldSelf.hasValue() || self.size() < 5", "optionalOldSelf": true}])
            )
        ),
        one(X, Rule::CelRuleAdded, Breaking, Wire)
    );
    // 'oldSelf' in a string is no transition.
    assert_eq!(
        field(
            rules(json!([])),
            rules(json!([{"rule": "self != 'oldSelf'"}]))
        ),
        one(X, Rule::CelRuleAdded, Breaking, Wire)
    );
}

#[test]
fn cel_rules_reasoned_about_not_text_diffed() {
    // Spaces CEL ignores are no change.
    assert!(
        field(
            rules(json!([{"rule": "self.size()<5"}])),
            rules(json!([{"rule": "self.size() < 5", "message": "too long"}]))
        )
        .is_empty()
    );
    assert_eq!(
        field(
            rules(json!([{"rule": "self.size() < 5"}])),
            rules(json!([{"rule": "self.size() < 5 && self != 'x'"}]))
        ),
        one(X, Rule::CelRuleTightened, Breaking, Wire)
    );
    assert_eq!(
        field(
            rules(json!([{"rule": "(self.size() < 5) && self != 'x'"}])),
            rules(json!([{"rule": "self.size() < 5"}]))
        ),
        one(X, Rule::CelRuleLoosened, Compatible, Wire)
    );
    assert_eq!(
        field(
            rules(json!([{"rule": "self.size() < 5"}])),
            rules(json!([{"rule": "self.size() < 5 && self == oldSelf"}]))
        ),
        one(X, Rule::CelRuleTightened, PossiblyBreaking, Wire)
    );
    // `||` binds looser than `&&`: no splitting there.
    assert_eq!(
        field(
            rules(json!([{"rule": "self == 'a' || self == 'b'"}])),
            rules(json!([{"rule": "self == 'a' || self == 'b' && self == 'c'"}]))
        ),
        one(X, Rule::CelRuleChanged, PossiblyBreaking, Wire)
    );
    assert_eq!(
        field(
            rules(json!([{"rule": "self.size() < 5"}])),
            rules(json!([]))
        ),
        one(X, Rule::CelRuleRemoved, Compatible, Wire)
    );
    assert_eq!(
        field(
            rules(json!([{"rule": "self == oldSelf"}])),
            rules(json!([{"rule": "self == oldSelf", "optionalOldSelf": true}]))
        ),
        one(X, Rule::CelRuleTightened, Breaking, Wire)
    );
    assert_eq!(cel::normalize("a  in [ 'x  y' ]"), "a in['x  y']");
}

/// The CRD with `edit` applied to its only version / its spec.
fn edited(edit: impl FnOnce(&mut Value)) -> Value {
    let mut c = crd(object(json!({"x": {"type": "string"}})));
    edit(&mut c);
    c
}

fn crd_rules(old: Value, new: Value) -> Vec<(Rule, Severity, Strictness)> {
    diff(old, new)
        .into_iter()
        .map(|(_, r, s, l)| (r, s, l))
        .collect()
}

#[test]
fn scope_change_is_refused() {
    // spec.scope is immutable: the API server refuses the update.
    let new = edited(|c| c["spec"]["scope"] = json!("Cluster"));
    assert_eq!(
        crd_rules(edited(|_| {}), new),
        [(Rule::ScopeChanged, Breaking, Wire)]
    );
}

#[test]
fn versions() {
    let base = edited(|_| {});
    let two = edited(|c| {
        let mut v2 = c["spec"]["versions"][0].clone();
        v2["name"] = json!("v2");
        v2["storage"] = json!(false);
        c["spec"]["versions"].as_array_mut().unwrap().push(v2);
    });
    assert_eq!(
        crd_rules(base.clone(), two.clone()),
        [(Rule::VersionAdded, Compatible, Wire)]
    );
    // v2 removed while served: its requests 404.
    assert_eq!(
        crd_rules(two.clone(), base.clone()),
        [(Rule::VersionRemoved, Breaking, Wire)]
    );
    // v1, the storage version, removed: refused while status.storedVersions lists it.
    let only_v2 = edited(|c| c["spec"]["versions"][0]["name"] = json!("v2"));
    let found = crd_rules(base.clone(), only_v2);
    assert!(
        found.contains(&(Rule::StoredVersionRemoved, Breaking, Wire)),
        "{found:?}"
    );
    let unserved = edited(|c| c["spec"]["versions"][0]["served"] = json!(false));
    assert_eq!(
        crd_rules(base.clone(), unserved),
        [(Rule::VersionServedChanged, Breaking, Wire)]
    );
    // Storage moved to v2 with identical schemas: nothing to prune.
    let mut moved = two.clone();
    moved["spec"]["versions"][0]["storage"] = json!(false);
    moved["spec"]["versions"][1]["storage"] = json!(true);
    assert_eq!(
        crd_rules(two, moved),
        [(Rule::StorageVersionChanged, Compatible, Wire)]
    );
}

#[test]
fn served_versions_that_now_differ_lose_fields_through_conversion_none() {
    let base = edited(|_| {});
    let v2 = |c: &mut Value, properties: Value| {
        let mut v2 = c["spec"]["versions"][0].clone();
        v2["name"] = json!("v2");
        v2["storage"] = json!(false);
        v2["schema"]["openAPIV3Schema"]["properties"]["spec"] = object(properties);
        c["spec"]["versions"].as_array_mut().unwrap().push(v2);
    };
    let same = edited(|c| v2(c, json!({"x": {"type": "string"}})));
    let other = edited(|c| v2(c, json!({"y": {"type": "string"}})));
    assert_eq!(
        crd_rules(base.clone(), same.clone()),
        [(Rule::VersionAdded, Compatible, Wire)]
    );
    assert_eq!(
        crd_rules(base, other.clone()),
        [
            (Rule::ServedVersionsDiverged, PossiblyBreaking, Wire),
            (Rule::VersionAdded, Compatible, Wire)
        ]
    );
    // v2 changed alone: it drifts from v1.
    let found = crd_rules(same, other.clone());
    assert!(
        found.contains(&(Rule::ServedVersionsDiverged, PossiblyBreaking, Wire)),
        "{found:?}"
    );
    // Already different before: not this change.
    assert!(crd_rules(other.clone(), other).is_empty());
}

#[test]
fn subresources_columns_and_selectable_fields() {
    let base = edited(|_| {});
    let with_status = edited(|c| c["spec"]["versions"][0]["subresources"] = json!({"status": {}}));
    assert_eq!(
        crd_rules(base.clone(), with_status.clone()),
        [(Rule::SubresourceChanged, Breaking, Wire)]
    );
    assert_eq!(
        crd_rules(with_status, base.clone()),
        [(Rule::SubresourceChanged, Breaking, Wire)]
    );
    let columns = edited(|c| {
        c["spec"]["versions"][0]["additionalPrinterColumns"] =
            json!([{"name": "X", "type": "string", "jsonPath": ".spec.x"}])
    });
    assert!(crd_rules(base.clone(), columns.clone()).is_empty());
    assert_eq!(
        crd_rules(columns, base.clone()),
        [(Rule::PrinterColumnChanged, PossiblyBreaking, Client)]
    );
    let selectable =
        edited(|c| c["spec"]["versions"][0]["selectableFields"] = json!([{"jsonPath": ".spec.x"}]));
    assert_eq!(
        crd_rules(selectable, base),
        [(Rule::SelectableFieldChanged, Breaking, Wire)]
    );
}

#[test]
fn conversion_and_names() {
    let base = edited(|_| {});
    let webhook = edited(|c| {
        c["spec"]["conversion"] =
            json!({"strategy": "Webhook", "webhook": {"conversionReviewVersions": ["v1"]}})
    });
    assert_eq!(
        crd_rules(base.clone(), webhook),
        [(Rule::ConversionChanged, PossiblyBreaking, Wire)]
    );
    let kind = edited(|c| c["spec"]["names"]["kind"] = json!("Gadget"));
    assert_eq!(
        crd_rules(base.clone(), kind),
        [(Rule::NamesChanged, Breaking, Wire)]
    );
    let short = edited(|c| c["spec"]["names"]["shortNames"] = json!(["wd"]));
    assert_eq!(
        crd_rules(short, base),
        [(Rule::NamesChanged, PossiblyBreaking, Client)]
    );
}

#[test]
fn crds_matched_by_name() {
    let base = edited(|_| {});
    let found = compare(std::slice::from_ref(&base), &[], false);
    assert_eq!(found.verdict(Wire), Breaking);
    assert_eq!(found.findings[0].rule, Rule::CrdRemoved);
    assert!(
        compare(std::slice::from_ref(&base), &[], true)
            .findings
            .is_empty()
    );
    assert_eq!(
        compare(&[], std::slice::from_ref(&base), false).findings[0].rule,
        Rule::CrdAdded
    );
}

#[test]
fn strictness_levels() {
    let report = compare(
        &[crd(object(json!({"x": {"type": "string", "enum": ["a"]}})))],
        &[crd(object(
            json!({"x": {"type": "string", "enum": ["a", "b"]}}),
        ))],
        false,
    );
    assert_eq!(report.verdict(Wire), Compatible);
    assert_eq!(report.verdict(Client), PossiblyBreaking);
}

#[test]
fn unknown_keywords_are_unclassified() {
    assert_eq!(
        field(
            json!({"type": "string", "x-custom": 1}),
            json!({"type": "string", "x-custom": 2})
        ),
        one(X, Rule::Unclassified, PossiblyBreaking, Wire)
    );
}

#[test]
fn deep_schemas_stop_with_a_finding() {
    let mut old = json!({"type": "string"});
    let mut new = json!({"type": "integer"});
    for _ in 0..100 {
        old = object(json!({"a": old}));
        new = object(json!({"a": new}));
    }
    let found = diff(crd(old), crd(new));
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].1, Rule::Unclassified);
}
