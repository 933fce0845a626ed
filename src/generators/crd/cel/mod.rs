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
pub mod parse;
pub mod types;

pub use parse::{CelSyntaxError, check_syntax};

use serde_json::{Map, Value};
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
}

/// `did you mean 'x'?` for the candidate closest to `word`, or nothing.
pub fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    let best = candidates
        .into_iter()
        .map(|c| (crate::markers::catalog::edit_distance(word, c), c))
        .filter(|(d, c)| *d <= (c.len() / 3).max(2))
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
            "",
            Context {
                root: true,
                cardinality: Some(1),
                uncorrelatable: None,
            },
        );
    }
    if walk.total > STATIC_ESTIMATED_CRD_COST_LIMIT {
        walk.expensive.sort_by(|a, b| b.0.cmp(&a.0));
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
    uncorrelatable: Option<String>,
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
    fn node(&mut self, m: &Map<String, Value>, path: &str, ctx: Context) {
        if let Some(Value::Array(rules)) = m.get("x-kubernetes-validations") {
            self.rules(m, rules, path, &ctx);
        }
        // apiextensions' `extractMaxElements` of this node, for its children.
        let max_elements = match m.get("type").and_then(Value::as_str) {
            Some("object") if m.contains_key("additionalProperties") => {
                m.get("maxProperties").and_then(Value::as_u64)
            }
            Some("array") => m.get("maxItems").and_then(Value::as_u64),
            _ => Some(1),
        };
        let child = |uncorrelatable: Option<String>| Context {
            root: false,
            cardinality: ctx
                .cardinality
                .zip(max_elements)
                .map(|(a, b)| a.saturating_mul(b)),
            uncorrelatable,
        };
        if let Some(Value::Object(props)) = m.get("properties") {
            for (k, v) in props {
                if let Value::Object(c) = v {
                    self.node(c, &format!("{path}.{k}"), child(ctx.uncorrelatable.clone()));
                }
            }
        }
        if let Some(Value::Object(ap)) = m.get("additionalProperties") {
            self.node(ap, &format!("{path}{{*}}"), child(ctx.uncorrelatable.clone()));
        }
        if let Some(Value::Object(items)) = m.get("items") {
            // Only the items of list-type=map lists are correlated with their old values.
            let is_map_list = m.get("x-kubernetes-list-type").and_then(Value::as_str) == Some("map");
            let uncorrelatable = match &ctx.uncorrelatable {
                None if !is_map_list => Some(if path.is_empty() {
                    "the root".to_owned()
                } else {
                    path.to_owned()
                }),
                other => other.clone(),
            };
            self.node(items, &format!("{path}[*]"), child(uncorrelatable));
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
            };
            let expr = match parse::parse(rule) {
                Ok(e) => e,
                Err(err) => {
                    let p = problem(format!("CEL rule {rule:?} does not parse: {err}"), None);
                    self.problems.push(p);
                    continue;
                }
            };
            let Some(decl) = &decl else {
                let p = problem(
                    format!("CEL rule {rule:?} sits on a schema node that has no CEL type (it needs a type, or x-kubernetes-int-or-string)"),
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
                let p = problem(
                    format!(
                        "CEL rule {rule:?} does not compile: at column {}: {}",
                        e.offset + 1,
                        e.message
                    ),
                    None,
                );
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
                        format!("CEL rule {rule:?} uses oldSelf, but oldSelf cannot be used on the uncorrelatable portion of the schema within {list}"),
                        Some("only the items of lists with x-kubernetes-list-type: map (listType=map) have an old value; put the rule on the list, or make it a map list"),
                    );
                    self.problems.push(p);
                }
            } else if optional_old_self.is_some() {
                let p = problem(
                    format!("optionalOldSelf may not be set: CEL rule {rule:?} does not use oldSelf"),
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
                let p = problem(format!("messageExpression {msg:?} does not parse: {err}"), None);
                self.problems.push(p);
                return;
            }
        };
        let (checked, errors) = check::check(&expr, &decl.ty, Some(old_self));
        for e in &errors {
            let p = problem(
                format!(
                    "messageExpression {msg:?} does not compile: at column {}: {}",
                    e.offset + 1,
                    e.message
                ),
                None,
            );
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
    fn cost(&self, expr: &parse::Expr, checked: &check::Checked, decl: &types::Decl, ctx: &Context) -> u64 {
        let once = cost::estimate(expr, checked, decl);
        let cardinality = ctx.cardinality.unwrap_or_else(|| {
            (types::MAX_REQUEST_SIZE_BYTES / (decl.min_size + 1)) as u64
        });
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
