//! CEL validation rules (`x-kubernetes-validations`) checked as the API server checks them
//! when a CRD is applied (apiextensions-apiserver `pkg/apis/apiextensions/validation`):
//! parsed (`parse`), type-checked against the schema node they sit on (`types`, `check`),
//! `oldSelf` allowed only where old and new values can be correlated, and their cost
//! estimated (`cost`) against the per-rule and per-CRD limits.
//!
//! The parser is opgen's own: the `cel` crate (cel-rust) parses with an ANTLR runtime and
//! has an interpreter but no type checker, which is the part this needs; opgen's parser
//! gives cel-go's error positions and the spans the checker reports.

pub mod check;
pub mod cost;
pub mod eval;
pub mod parse;
pub mod types;

pub use parse::{CelSyntaxError, check_syntax};

use serde_json::{Map, Value};
use std::rc::Rc;
use types::Type;

/// `StaticEstimatedCostLimit`: the largest estimated cost of one rule (or messageExpression).
pub const STATIC_ESTIMATED_COST_LIMIT: u64 = 10_000_000;
/// `StaticEstimatedCRDCostLimit`: the largest estimated cost of all rules of a schema.
pub const STATIC_ESTIMATED_CRD_COST_LIMIT: u64 = 100_000_000;

/// The key under which the schema builder records, in a rule, where its marker is; the
/// generator removes it before anything is written.
pub const ORIGIN_KEY: &str = "x-opgen-origin";

/// A rule the API server would refuse.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleProblem {
    /// The schema node, e.g. `.spec.items[*]` (empty for the root).
    pub path: String,
    /// The rule (the `rule` text) at fault.
    pub rule: String,
    /// The rule object's `ORIGIN_KEY`, if the schema builder set one.
    pub origin: Option<Value>,
    pub message: String,
    pub help: Option<String>,
    /// The expression (the rule or its messageExpression) and the byte offset in it of the
    /// token at fault, when there is one.
    pub token: Option<(String, usize)>,
}

/// `did you mean 'x'?` for the candidate closest to `word`, or nothing. Escaped names
/// (`a__dash__b`) are compared by what they escape, so `a_b` finds `a__dash__b`.
pub fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    let plain = |s: &str| {
        ["__dash__", "__dot__", "__slash__", "__underscores__"]
            .iter()
            .fold(s.to_owned(), |acc, esc| acc.replace(esc, "_"))
    };
    let best = candidates
        .into_iter()
        .map(|c| {
            (
                crate::markers::catalog::edit_distance(&plain(word), &plain(c)),
                c,
            )
        })
        .filter(|(d, c)| *d <= (plain(c).len() / 4).max(1))
        .min();
    match best {
        Some((_, c)) => format!(" (did you mean '{c}'?)"),
        None => String::new(),
    }
}

/// The server's wording of a cost over its limit.
pub fn cost_message(what: &str, cost: u64, limit: u64) -> String {
    let f = cost as f64 / limit as f64;
    let factor = if f > 100.0 {
        "more than 100x".to_owned()
    } else if f < 1.5 {
        format!("{f:.6}x")
    } else {
        format!("{f:.1}x")
    };
    format!("{what} exceeds budget by factor of {factor}")
}

const COST_HELP: &str = "try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared";

/// Checks every rule of a version's `openAPIV3Schema`.
pub fn check_schema(schema: &Value) -> Vec<RuleProblem> {
    let mut walk = Walk {
        problems: Vec::new(),
        total: 0,
        expensive: Vec::new(),
    };
    if let Value::Object(m) = schema {
        walk.node(
            m,
            &mut String::new(),
            Context {
                root: true,
                cardinality: Some(1),
                uncorrelatable: None,
            },
        );
    }
    if walk.total > STATIC_ESTIMATED_CRD_COST_LIMIT {
        walk.expensive.sort_by_key(|e| std::cmp::Reverse(e.0));
        walk.expensive.truncate(4);
        let total = cost_message(
            "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
            walk.total,
            STATIC_ESTIMATED_CRD_COST_LIMIT,
        );
        for (cost, mut p) in std::mem::take(&mut walk.expensive) {
            p.message = format!(
                "the rule's estimated cost {cost} contributed to the estimated rule cost total exceeding the cost limit for the entire schema: {total}"
            );
            p.help = Some(COST_HELP.to_owned());
            walk.problems.push(p);
        }
    }
    walk.problems
}

#[derive(Clone)]
struct Context {
    root: bool,
    /// How many times the node can occur in an object: None where an ancestor is a list or
    /// map without maxItems or maxProperties.
    cardinality: Option<u64>,
    /// The list above the node whose items cannot be correlated with their old values.
    uncorrelatable: Option<Rc<str>>,
}

struct Walk {
    problems: Vec<RuleProblem>,
    total: u64,
    /// Rules that cost at least 1% of the CRD limit, with their cost.
    expensive: Vec<(u64, RuleProblem)>,
}

fn is_true(m: &Map<String, Value>, key: &str) -> bool {
    m.get(key) == Some(&Value::Bool(true))
}

impl Walk {
    /// Walks `child` with `path` extended by `segment`.
    fn child(
        &mut self,
        child: &Map<String, Value>,
        path: &mut String,
        segment: std::fmt::Arguments,
        ctx: Context,
    ) {
        super::with_segment(path, segment, |path| self.node(child, path, ctx));
    }

    fn node(&mut self, m: &Map<String, Value>, path: &mut String, ctx: Context) {
        // The entries read here, found in one pass over the node (a lookup each cost more).
        let (mut rules, mut ty, mut max_properties, mut max_items, mut list_type) =
            (None, None, None, None, None);
        let (mut properties, mut additional_properties, mut items) = (None, None, None);
        for (k, v) in m {
            match k.as_str() {
                "x-kubernetes-validations" => rules = v.as_array(),
                "type" => ty = v.as_str(),
                "maxProperties" => max_properties = v.as_u64(),
                "maxItems" => max_items = v.as_u64(),
                "x-kubernetes-list-type" => list_type = v.as_str(),
                "properties" => properties = Some(v),
                "additionalProperties" => additional_properties = Some(v),
                "items" => items = Some(v),
                _ => {}
            }
        }
        if let Some(rules) = rules {
            self.rules(m, rules, path, &ctx);
        }
        // apiextensions' `extractMaxElements` of this node, for its children.
        let max_elements = match ty {
            Some("object") if additional_properties.is_some() => max_properties,
            Some("array") => max_items,
            _ => Some(1),
        };
        let child_ctx = |uncorrelatable: Option<Rc<str>>| Context {
            root: false,
            cardinality: ctx
                .cardinality
                .zip(max_elements)
                .map(|(a, b)| a.saturating_mul(b)),
            uncorrelatable,
        };
        if let Some(Value::Object(props)) = properties {
            for (k, v) in props {
                if let Value::Object(c) = v {
                    let ctx = child_ctx(ctx.uncorrelatable.clone());
                    self.child(c, path, format_args!(".{k}"), ctx);
                }
            }
        }
        if let Some(Value::Object(ap)) = additional_properties {
            let ctx = child_ctx(ctx.uncorrelatable.clone());
            self.child(ap, path, format_args!("{{*}}"), ctx);
        }
        if let Some(Value::Object(items)) = items {
            // Only the items of list-type=map lists are correlated with their old values.
            let is_map_list = list_type == Some("map");
            let uncorrelatable = match &ctx.uncorrelatable {
                None if !is_map_list => Some(if path.is_empty() {
                    "the root".into()
                } else {
                    path.as_str().into()
                }),
                other => other.clone(),
            };
            self.child(items, path, format_args!("[*]"), child_ctx(uncorrelatable));
        }
    }

    fn rules(&mut self, m: &Map<String, Value>, rules: &[Value], path: &str, ctx: &Context) {
        let resource_root = ctx.root || is_true(m, "x-kubernetes-embedded-resource");
        let decl = types::decl(m, resource_root);
        for r in rules {
            let rule = r.get("rule").and_then(Value::as_str).unwrap_or("");
            let mut problem = |message: String, help: Option<&str>| RuleProblem {
                path: path.to_owned(),
                rule: rule.to_owned(),
                origin: r.get(ORIGIN_KEY).cloned(),
                message,
                help: help.map(str::to_owned),
                token: None,
            };
            let expr = match parse::parse(rule) {
                Ok(e) => e,
                Err(err) => {
                    let mut p = problem(format!("CEL rule {rule:?} does not parse: {err}"), None);
                    p.token = Some((rule.to_owned(), err.offset));
                    self.problems.push(p);
                    continue;
                }
            };
            let Some(decl) = &decl else {
                let p = problem(
                    format!(
                        "CEL rule {rule:?} sits on a schema node that has no CEL type (it needs a type, or x-kubernetes-int-or-string)"
                    ),
                    Some("put the rule on a typed field or its parent object"),
                );
                self.problems.push(p);
                continue;
            };
            let optional_old_self = r.get("optionalOldSelf").and_then(Value::as_bool);
            let old_self = match optional_old_self {
                Some(true) => Type::Optional(Box::new(decl.ty.clone())),
                _ => decl.ty.clone(),
            };
            let (checked, errors) = check::check(&expr, &decl.ty, Some(&old_self));
            for e in &errors {
                let mut p = problem(
                    format!(
                        "CEL rule {rule:?} does not compile: at column {}: {}",
                        e.offset + 1,
                        e.message
                    ),
                    None,
                );
                p.token = Some((rule.to_owned(), e.offset));
                self.problems.push(p);
            }
            if errors.is_empty() && !matches!(checked.ty, Type::Bool | Type::Dyn) {
                let p = problem(
                    format!(
                        "CEL rule {rule:?} must evaluate to a bool, but its type is {}",
                        checked.ty
                    ),
                    None,
                );
                self.problems.push(p);
            }
            if errors.is_empty() {
                let cost = self.cost(&expr, &checked, decl, ctx);
                if cost > STATIC_ESTIMATED_COST_LIMIT {
                    let message = cost_message(
                        &format!("the estimated cost of CEL rule {rule:?}"),
                        cost,
                        STATIC_ESTIMATED_COST_LIMIT,
                    );
                    self.problems.push(problem(message, Some(COST_HELP)));
                }
                self.observe(cost, problem(String::new(), None));
            }
            if checked.uses_old_self {
                if let Some(list) = &ctx.uncorrelatable {
                    let p = problem(
                        format!(
                            "CEL rule {rule:?} uses oldSelf, but oldSelf cannot be used on the uncorrelatable portion of the schema within {list}"
                        ),
                        Some(
                            "only the items of lists with x-kubernetes-list-type: map (listType=map) have an old value; put the rule on the list, or make it a map list",
                        ),
                    );
                    self.problems.push(p);
                }
            } else if optional_old_self.is_some() {
                let p = problem(
                    format!(
                        "optionalOldSelf may not be set: CEL rule {rule:?} does not use oldSelf"
                    ),
                    Some("remove optionalOldSelf, or use oldSelf in the rule"),
                );
                self.problems.push(p);
            }
            if let Some(msg) = r.get("messageExpression").and_then(Value::as_str) {
                self.message_expression(msg, decl, &old_self, ctx, &mut problem);
            }
        }
    }

    fn message_expression(
        &mut self,
        msg: &str,
        decl: &types::Decl,
        old_self: &Type,
        ctx: &Context,
        problem: &mut impl FnMut(String, Option<&str>) -> RuleProblem,
    ) {
        let expr = match parse::parse(msg) {
            Ok(e) => e,
            Err(err) => {
                let mut p = problem(
                    format!("messageExpression {msg:?} does not parse: {err}"),
                    None,
                );
                p.token = Some((msg.to_owned(), err.offset));
                self.problems.push(p);
                return;
            }
        };
        let (checked, errors) = check::check(&expr, &decl.ty, Some(old_self));
        for e in &errors {
            let mut p = problem(
                format!(
                    "messageExpression {msg:?} does not compile: at column {}: {}",
                    e.offset + 1,
                    e.message
                ),
                None,
            );
            p.token = Some((msg.to_owned(), e.offset));
            self.problems.push(p);
        }
        if !errors.is_empty() {
            return;
        }
        if !matches!(checked.ty, Type::String | Type::Dyn) {
            let p = problem(
                format!(
                    "messageExpression {msg:?} must evaluate to a string, but its type is {}",
                    checked.ty
                ),
                Some("e.g. messageExpression=\"'x is ' + string(self.x)\""),
            );
            self.problems.push(p);
            return;
        }
        let cost = self.cost(&expr, &checked, decl, ctx);
        if cost > STATIC_ESTIMATED_COST_LIMIT {
            let message = cost_message(
                &format!("the estimated cost of messageExpression {msg:?}"),
                cost,
                STATIC_ESTIMATED_COST_LIMIT,
            );
            self.problems.push(problem(message, Some(COST_HELP)));
        }
        self.observe(cost, problem(String::new(), None));
    }

    /// The cost of one evaluation times how often the node can occur: the server's
    /// `getExpressionCost`.
    fn cost(
        &self,
        expr: &parse::Expr,
        checked: &check::Checked,
        decl: &types::Decl,
        ctx: &Context,
    ) -> u64 {
        let once = cost::estimate(expr, checked, decl);
        let cardinality = ctx
            .cardinality
            .unwrap_or_else(|| (types::MAX_REQUEST_SIZE_BYTES / (decl.min_size + 1)) as u64);
        if once == 0 {
            0
        } else {
            once.saturating_mul(cardinality)
        }
    }

    fn observe(&mut self, cost: u64, p: RuleProblem) {
        self.total = self.total.saturating_add(cost);
        if cost >= STATIC_ESTIMATED_CRD_COST_LIMIT / 100 {
            self.expensive.push((cost, p));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The problems of `rules` on a property `x` of the spec with `schema`.
    fn problems(schema: Value, rules: Value) -> Vec<String> {
        let mut node = schema;
        node["x-kubernetes-validations"] = rules;
        let root = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {"x": node}}}});
        check_schema(&root).into_iter().map(|p| p.message).collect()
    }

    fn verdict(schema: Value, rule: &str) -> Vec<String> {
        problems(schema, json!([{"rule": rule}]))
    }

    fn obj() -> Value {
        json!({"type": "object", "properties": {
            "replicas": {"type": "integer"},
            "name": {"type": "string", "maxLength": 63},
            "ratio": {"type": "number"},
            "tags": {"type": "array", "maxItems": 10, "items": {"type": "string", "maxLength": 20}},
            "labels": {"type": "object", "maxProperties": 10, "additionalProperties": {"type": "string", "maxLength": 20}},
            "port": {"x-kubernetes-int-or-string": true},
            "created": {"type": "string", "format": "date-time"},
            "timeout": {"type": "string", "format": "duration"},
            "dash-name": {"type": "string", "maxLength": 5},
            "namespace": {"type": "string", "maxLength": 63}
        }})
    }

    #[test]
    fn accepts_well_typed_rules() {
        for rule in [
            "self.replicas >= 0",
            "self.name.startsWith('a') && size(self.name) < 10",
            "self.ratio > 0.5 && self.replicas < 2.5",
            "self.tags.all(t, t.matches('^[a-z]+$'))",
            "self.labels.exists(k, self.labels[k] == 'x') && 'a' in self.labels",
            "type(self.port) == int ? self.port > 0 : self.port.endsWith('%')",
            "self.created < timestamp('2030-01-01T00:00:00Z') && self.timeout > duration('1s')",
            "self.dash__dash__name != ''",
            "has(self.name) || !has(self.replicas)",
            "self.?name.orValue('') != ''",
            "self.tags.map(t, size(t)).all(n, n > 0) && self.tags.filter(t, t != '').size() <= 10",
            "optional.of(self.replicas).hasValue()",
            "self.name == oldSelf.name",
            // A keyword's field answers to its plain name too (1.31+), as JobSet v0.11.1 relies on.
            "!has(self.namespace) || size(self.namespace) == size(self.__namespace__)",
        ] {
            assert_eq!(verdict(obj(), rule), Vec::<String>::new(), "{rule}");
        }
    }

    #[test]
    fn refuses_unknown_fields_with_a_suggestion() {
        assert_eq!(
            verdict(obj(), "self.replica > 0"),
            [
                "CEL rule \"self.replica > 0\" does not compile: at column 5: undefined field 'replica' (did you mean 'replicas'?)"
            ]
        );
        assert_eq!(
            verdict(obj(), "has(self.nope)"),
            ["CEL rule \"has(self.nope)\" does not compile: at column 4: undefined field 'nope'"]
        );
        // Property names are escaped in CEL.
        assert_eq!(
            verdict(obj(), "self.dash_name == ''"),
            [
                "CEL rule \"self.dash_name == ''\" does not compile: at column 5: undefined field 'dash_name' (did you mean 'dash__dash__name'?)"
            ]
        );
        assert_eq!(
            verdict(obj(), "foo > 0"),
            ["CEL rule \"foo > 0\" does not compile: at column 1: undeclared reference to 'foo'"]
        );
    }

    #[test]
    fn refuses_wrong_types() {
        let cases = [
            (
                "self.name > 1",
                "found no matching overload for '_>_' applied to '(string, int)'",
            ),
            (
                "self.replicas + 1.5 > 0.0",
                "found no matching overload for '_+_' applied to '(int, double)'",
            ),
            (
                "self.replicas.startsWith('1')",
                "found no matching overload for 'startsWith' applied to 'int.(string)'",
            ),
            (
                "self.tags.all(t, t)",
                "found no matching overload for '_&&_' applied to '(bool, string)'",
            ),
            (
                "self.replicas.all(t, true)",
                "expression of type 'int' cannot be range of a comprehension (must be list, map, or dynamic)",
            ),
            (
                "self.name == null",
                "found no matching overload for '_==_' applied to '(string, null_type)'",
            ),
            (
                "size(self.replicas) > 0",
                "found no matching overload for 'size' applied to '(int)'",
            ),
            (
                "self.name.foo == 1",
                "type 'string' does not support field selection",
            ),
        ];
        for (rule, want) in cases {
            let got = verdict(obj(), rule);
            assert_eq!(got.len(), 1, "{rule}: {got:?}");
            assert!(got[0].ends_with(want), "{rule}: {got:?}");
        }
        assert_eq!(
            verdict(obj(), "self.replicas"),
            ["CEL rule \"self.replicas\" must evaluate to a bool, but its type is int"]
        );
    }

    #[test]
    fn checks_message_expressions() {
        let rules = |m: &str| json!([{"rule": "self.replicas > 0", "messageExpression": m}]);
        assert_eq!(
            problems(obj(), rules("'replicas is ' + self.name")),
            Vec::<String>::new()
        );
        // string(x) has no size bound, so neither has the concatenation: the server refuses it.
        let got = problems(obj(), rules("'replicas is ' + string(self.replicas)"));
        assert!(
            got[0].starts_with("the estimated cost of messageExpression"),
            "{got:?}"
        );
        assert_eq!(
            problems(obj(), rules("self.replicas")),
            ["messageExpression \"self.replicas\" must evaluate to a string, but its type is int"]
        );
        assert_eq!(
            problems(obj(), rules("self.nam")),
            [
                "messageExpression \"self.nam\" does not compile: at column 5: undefined field 'nam' (did you mean 'name'?)"
            ]
        );
    }

    #[test]
    fn old_self_only_where_correlated() {
        let list = |list_type: &str| {
            json!({"type": "array", "maxItems": 5, "x-kubernetes-list-type": list_type,
            "x-kubernetes-list-map-keys": ["k"],
            "items": {"type": "object", "required": ["k"], "properties": {"k": {"type": "string", "maxLength": 5}},
                "x-kubernetes-validations": [{"rule": "self.k == oldSelf.k"}]}})
        };
        assert_eq!(problems(list("map"), json!([])), Vec::<String>::new());
        assert_eq!(
            problems(list("atomic"), json!([])),
            [
                "CEL rule \"self.k == oldSelf.k\" uses oldSelf, but oldSelf cannot be used on the uncorrelatable portion of the schema within .spec.x"
            ]
        );
        // On the list itself, oldSelf is the whole old list: fine.
        assert_eq!(
            verdict(list("atomic"), "self.size() >= oldSelf.size()").len(),
            1
        );
        assert_eq!(
            problems(
                obj(),
                json!([{"rule": "self.replicas > 0", "optionalOldSelf": true}])
            ),
            ["optionalOldSelf may not be set: CEL rule \"self.replicas > 0\" does not use oldSelf"]
        );
        assert_eq!(
            problems(
                obj(),
                json!([{"rule": "oldSelf.hasValue() || self.replicas > 0", "optionalOldSelf": true}])
            ),
            Vec::<String>::new()
        );
        // Without optionalOldSelf, oldSelf is not optional.
        assert_eq!(
            problems(obj(), json!([{"rule": "oldSelf.replicas.hasValue()"}])).len(),
            0,
            "hasValue is not modelled per type, so it stays unrefused"
        );
    }

    #[test]
    fn estimates_cost_like_the_api_server() {
        let strings = |max_items: Option<u64>, max_len: Option<u64>| {
            let mut items = json!({"type": "string"});
            if let Some(n) = max_len {
                items["maxLength"] = json!(n);
            }
            let mut list = json!({"type": "array", "items": items});
            if let Some(n) = max_items {
                list["maxItems"] = json!(n);
            }
            list
        };
        // An unbounded list of unbounded strings, each matched against a regex.
        let got = verdict(strings(None, None), "self.all(s, s.matches('^[a-z]+$'))");
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(got[1].contains("contributed to the estimated rule cost total"));
        assert_eq!(
            got[..1],
            [
                "the estimated cost of CEL rule \"self.all(s, s.matches('^[a-z]+$'))\" exceeds budget by factor of more than 100x"
            ]
        );
        assert_eq!(
            verdict(
                strings(Some(100), Some(64)),
                "self.all(s, s.matches('^[a-z]+$'))"
            ),
            Vec::<String>::new()
        );
        // Nested unbounded lists: quadratic.
        let nested =
            json!({"type": "array", "items": {"type": "array", "items": {"type": "integer"}}});
        let got = verdict(nested.clone(), "self.all(l, l.all(i, i > 0))");
        assert!(
            got[0].contains("exceeds budget by factor of more than 100x"),
            "{got:?}"
        );
        let mut bounded = nested;
        bounded["maxItems"] = json!(10);
        bounded["items"]["maxItems"] = json!(10);
        assert_eq!(
            verdict(bounded, "self.all(l, l.all(i, i > 0))"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn cost_formula_matches_cel_go() {
        // self.all(x, x > 0) over maxItems 10 ints: 1 (self) + 1 (result) + 10 × (3 + 2).
        let root = json!({"type": "array", "maxItems": 10, "items": {"type": "integer"}});
        let decl = types::decl(root.as_object().unwrap(), false).unwrap();
        let cost_of = |rule: &str| {
            let e = parse::parse(rule).unwrap();
            let (checked, errors) = check::check(&e, &decl.ty, Some(&decl.ty));
            assert!(errors.is_empty(), "{errors:?}");
            cost::estimate(&e, &checked, &decl)
        };
        assert_eq!(cost_of("self.all(x, x > 0)"), 52);
        assert_eq!(cost_of("self.exists(x, x > 0)"), 62);
        assert_eq!(cost_of("self.size() > 0"), 3);
        assert_eq!(cost_of("1 in self"), 11);
    }

    #[test]
    fn cost_messages_use_the_server_wording() {
        assert_eq!(
            cost_message("x", 12_000_000, 10_000_000),
            "x exceeds budget by factor of 1.200000x"
        );
        assert_eq!(
            cost_message("x", 25_000_000, 10_000_000),
            "x exceeds budget by factor of 2.5x"
        );
        assert_eq!(
            cost_message("x", u64::MAX, 10_000_000),
            "x exceeds budget by factor of more than 100x"
        );
    }

    #[test]
    fn totals_the_cost_of_the_whole_schema() {
        // Each rule stays under the per-rule limit; together they pass the CRD's.
        let rule = "self.all(s, s.size() < 5)";
        let props: Map<String, Value> = (0..20)
            .map(|i| (format!("l{i}"), json!({"type": "array", "items": {"type": "string", "maxLength": 4}, "x-kubernetes-validations": [{"rule": rule}]})))
            .collect();
        let root = json!({"type": "object", "properties": props});
        let got = check_schema(&root);
        assert!(!got.is_empty());
        assert!(
            got.iter().all(|p| p
                .message
                .contains("estimated rule cost total for entire OpenAPIv3 schema exceeds budget")),
            "{got:#?}"
        );
        assert_eq!(got.len(), 4, "the four most expensive rules are named");
    }
}
