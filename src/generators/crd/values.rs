//! A value checked against the schema node it sits in, as the API server checks a CRD's
//! `default`s (apiextensions-apiserver `schema/defaulting/validation.go`: unknown fields
//! pruned, then kube-openapi's `validate.SchemaValidator` with `strfmt.Default`).
//!
//! The kube-openapi rules are copied with their quirks, because the API server is the judge:
//! an integral float passes as an integer; formats do not bound numbers (its number validator
//! is built without type and format, so 3000000000 passes `format: int32`: see
//! `format_overflows`); on an integer value a bound is truncated to an integer (`int64(max)`),
//! so `multipleOf: 0.5` refuses the integer 3; lengths count Unicode code points. CEL rules are not evaluated
//! (the API server runs them on defaults; opgen only checks their syntax).

use regex::Regex;
use serde_json::{Map, Number, Value};
use std::collections::HashMap;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

/// Every way `v` breaks `schema`, worded for a default; each message starts with the path
/// inside the value (empty for the value itself) and names the rule.
pub fn check(v: &Value, schema: &Map<String, Value>) -> Vec<String> {
    violations(v, schema)
        .iter()
        .map(|x| match &x.problem {
            Problem::UnknownField { name, .. } => format!(
                "{}unknown field `{name}`: the API server prunes it, so a default must not have it",
                at(&x.path)
            ),
            Problem::Missing(_) | Problem::Broken(_) => x.to_string(),
        })
        .collect()
}

/// Every way `v` breaks `schema`, where it does.
pub fn violations(v: &Value, schema: &Map<String, Value>) -> Vec<Violation> {
    let mut out = Vec::new();
    node(v, schema, &ValuePath::default(), &mut out);
    out
}

/// One step from a value to a value inside it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Key(String),
    Index(usize),
}

/// Where a value sits inside the value checked: the steps from its root.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ValuePath(pub Vec<Step>);

impl ValuePath {
    pub fn key(&self, k: &str) -> Self {
        let mut steps = self.0.clone();
        steps.push(Step::Key(k.to_owned()));
        ValuePath(steps)
    }

    pub fn index(&self, i: usize) -> Self {
        let mut steps = self.0.clone();
        steps.push(Step::Index(i));
        ValuePath(steps)
    }

    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }
}

/// `a.b[1]`: keys joined with dots, indexes in brackets (`.a.b[1]` with the alternate flag,
/// as the API server names a field of an object).
impl std::fmt::Display for ValuePath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, step) in self.0.iter().enumerate() {
            match step {
                Step::Key(k) if i > 0 || f.alternate() => write!(f, ".{k}")?,
                Step::Key(k) => f.write_str(k)?,
                Step::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

/// One way a value breaks its schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// The value at fault; for an unknown field, the object that holds it.
    pub path: ValuePath,
    pub problem: Problem,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Problem {
    /// A field the schema does not declare (pruning removes it; server-side apply refuses
    /// it), with the fields the schema declares there.
    UnknownField { name: String, known: Vec<String> },
    /// A required field absent.
    Missing(String),
    /// Any other rule broken, as a sentence naming the rule.
    Broken(String),
}

/// `at <path>: <problem>`, the path left out at the value itself.
impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&at(&self.path))?;
        match &self.problem {
            Problem::UnknownField { name, .. } => write!(f, "unknown field `{name}`"),
            Problem::Missing(name) => write!(f, "the required property `{name}` is missing"),
            Problem::Broken(message) => f.write_str(message),
        }
    }
}

/// The violations as one line, `; ` between them.
pub fn joined(violations: &[Violation]) -> String {
    let all: Vec<String> = violations.iter().map(Violation::to_string).collect();
    all.join("; ")
}

fn is_true(m: &Map<String, Value>, key: &str) -> bool {
    m.get(key) == Some(&Value::Bool(true))
}

fn at(path: &ValuePath) -> String {
    if path.is_root() {
        String::new()
    } else {
        format!("at {path}: ")
    }
}

fn push(out: &mut Vec<Violation>, path: &ValuePath, message: impl Into<String>) {
    out.push(Violation {
        path: path.clone(),
        problem: Problem::Broken(message.into()),
    });
}

/// What the API server does to an object before it validates it (apiextensions-apiserver's
/// structural defaulting): a field absent, or null where the schema is not nullable, takes its
/// default; a null without one where the schema is not nullable is dropped. Defaults of
/// fields inside a default are applied too.
pub fn apply_defaults(v: &mut Value, m: &Map<String, Value>) {
    match v {
        Value::Object(o) => {
            let props = m.get("properties").and_then(Value::as_object);
            for (k, prop) in props.into_iter().flatten() {
                let Some(prop) = prop.as_object() else {
                    continue;
                };
                let Some(default) = prop.get("default").filter(|d| !d.is_null()) else {
                    continue;
                };
                if o.get(k)
                    .is_none_or(|x| x.is_null() && !is_true(prop, "nullable"))
                {
                    o.insert(k.clone(), default.clone());
                }
            }
            let additional = m.get("additionalProperties").and_then(Value::as_object);
            let schema_of = |k: &str| {
                props
                    .and_then(|p| p.get(k))
                    .and_then(Value::as_object)
                    .or(additional)
            };
            o.retain(|k, x| {
                !(x.is_null() && schema_of(k).is_some_and(|s| !is_true(s, "nullable")))
            });
            for (k, x) in o.iter_mut() {
                if let Some(s) = schema_of(k) {
                    apply_defaults(x, s);
                }
            }
        }
        Value::Array(items) => {
            if let Some(s) = m.get("items").and_then(Value::as_object) {
                items.iter_mut().for_each(|x| apply_defaults(x, s));
            }
        }
        _ => {}
    }
}

/// What Go's JSON decoding (apimachinery's `util/json`) makes of a number: an int64 when it
/// is integral and fits, else a float64.
#[derive(Clone, Copy, Debug)]
enum GoNum {
    Int(i64),
    Float(f64),
}

fn go_num(n: &Number) -> GoNum {
    match n.as_i64() {
        Some(i) => GoNum::Int(i),
        None => GoNum::Float(n.as_f64().unwrap_or(f64::NAN)),
    }
}

fn node(v: &Value, m: &Map<String, Value>, path: &ValuePath, out: &mut Vec<Violation>) {
    let ty = m.get("type").and_then(Value::as_str);
    if v.is_null() {
        if ty.is_some() && !is_true(m, "nullable") {
            push(
                out,
                path,
                "null is not allowed: the field is not nullable (`nullable: true` is written for an Option without skip_serializing_if)",
            );
        }
        return;
    }
    if let Some(Value::Array(allowed)) = m.get("enum")
        && !allowed.iter().any(|a| json_equal(a, v))
    {
        let list: Vec<String> = allowed.iter().map(Value::to_string).collect();
        push(
            out,
            path,
            format!("{v} is not one of the enum values [{}]", list.join(", ")),
        );
    }
    if let Some(t) = ty
        && !type_fits(t, v)
    {
        push(out, path, format!("expected {t}, found {}", describe(v)));
        return;
    }
    match v {
        Value::Number(n) => number(go_num(n), m, path, out),
        Value::String(s) => string(s, m, path, out),
        Value::Array(items) => array(items, m, path, out),
        Value::Object(o) => object(o, m, path, out),
        _ => {}
    }
    for j in ["allOf", "anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = m.get(j) else {
            continue;
        };
        // Each branch's violations, with paths from `v`.
        let results: Vec<Vec<Violation>> = branches
            .iter()
            .filter_map(Value::as_object)
            .map(|b| check_branch(v, b, &ValuePath::default()))
            .collect();
        let passing = results.iter().filter(|r| r.is_empty()).count();
        match j {
            "allOf" => out.extend(results.into_iter().flatten().map(|mut x| {
                x.path = ValuePath([path.0.clone(), x.path.0].concat());
                x
            })),
            "anyOf" if passing == 0 && !results.is_empty() => {
                push(
                    out,
                    path,
                    format!("{v} matches none of anyOf: {}", joined(&results.concat())),
                );
            }
            "oneOf" if passing != 1 && !results.is_empty() => {
                push(
                    out,
                    path,
                    format!("{v} must match exactly one of oneOf, but matches {passing}"),
                );
            }
            _ => {}
        }
    }
    if let Some(Value::Object(not)) = m.get("not")
        && check_branch(v, not, path).is_empty()
    {
        push(
            out,
            path,
            format!("{v} must not match the schema under `not`"),
        );
    }
}

fn check_branch(v: &Value, b: &Map<String, Value>, path: &ValuePath) -> Vec<Violation> {
    let mut out = Vec::new();
    node(v, b, path, &mut out);
    out
}

/// Equality of JSON values with numbers compared by value (Go decodes 1.0 and 1 alike).
fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, a)| y.get(k).is_some_and(|b| json_equal(a, b)))
        }
        _ => a == b,
    }
}

fn describe(v: &Value) -> String {
    let kind = match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    let shown = v.to_string();
    if shown.len() > 60 {
        kind.to_owned()
    } else {
        format!("{kind} {shown}")
    }
}

/// kube-openapi's typeValidator: an integral float counts as an integer, an integer as a number.
fn type_fits(t: &str, v: &Value) -> bool {
    match (t, v) {
        ("string", Value::String(_)) | ("boolean", Value::Bool(_)) => true,
        ("array", Value::Array(_)) | ("object", Value::Object(_)) => true,
        ("number", Value::Number(_)) => true,
        ("integer", Value::Number(n)) => match go_num(n) {
            GoNum::Int(_) => true,
            GoNum::Float(f) => is_json_integer(f),
        },
        _ => false,
    }
}

/// go-openapi/swag's IsFloat64AJSONInteger (relative tolerance 1e-9, |f| < 2^53).
fn is_json_integer(f: f64) -> bool {
    const MAX: f64 = 9_007_199_254_740_991.0;
    if !f.is_finite() || !(-MAX..=MAX).contains(&f) {
        return false;
    }
    let g = f.trunc();
    if f == g {
        return true;
    }
    let diff = (f - g).abs();
    // math.SmallestNonzeroFloat64 is the smallest subnormal.
    let smallest = f64::from_bits(1);
    if g == 0.0 || diff < smallest {
        return diff < 1e-9 * smallest;
    }
    diff / (f.abs() + g.abs()) < 1e-9
}

/// Whether `n` fits the Rust (and Go) type the node's format stands for. The API server does
/// not check this (its number validator is built without the type and format), so a
/// default that overflows is accepted there and breaks the operator's deserialization.
fn fits_format(n: GoNum, ty: Option<&str>, format: &str) -> bool {
    match (ty, n) {
        (Some("integer"), GoNum::Int(i)) => match format {
            "int32" => i32::try_from(i).is_ok(),
            "uint32" => u32::try_from(i).is_ok(),
            "uint64" => u64::try_from(i).is_ok(),
            _ => true,
        },
        (Some("number"), GoNum::Float(f)) if matches!(format, "float" | "float32") => {
            f.abs() <= f64::from(f32::MAX)
        }
        _ => true,
    }
}

/// strconv.FormatFloat(f, 'f', -1, 64): no exponent, shortest digits (Rust's Display too).
fn format_go_float(f: f64) -> String {
    format!("{f}")
}

fn show(n: GoNum) -> String {
    match n {
        GoNum::Int(i) => i.to_string(),
        GoNum::Float(f) => format_go_float(f),
    }
}

/// Numbers in `v` too large for their node's format (int32, uint32, uint64, float): what
/// the API server lets through but the operator cannot deserialize.
pub fn format_overflows(v: &Value, schema: &Map<String, Value>) -> Vec<Violation> {
    let mut out = Vec::new();
    walk(v, schema, &ValuePath::default(), &mut |v, m, path| {
        if let Value::Number(n) = v {
            let ty = m.get("type").and_then(Value::as_str);
            let format = m.get("format").and_then(Value::as_str).unwrap_or("");
            let n = go_num(n);
            if !fits_format(n, ty, format) {
                push(
                    &mut out,
                    path,
                    format!("{} does not fit format {format}", show(n)),
                );
            }
        }
    });
    out
}

/// Repeated items of `set` lists and repeated keys of `map` lists in `v`. The API server does
/// not check list types on a default, but does on every object, so each object the default
/// is applied to is refused (`Duplicate value`).
pub fn list_duplicates(v: &Value, schema: &Map<String, Value>) -> Vec<Violation> {
    let mut out = Vec::new();
    walk(v, schema, &ValuePath::default(), &mut |v, m, path| {
        let Value::Array(items) = v else { return };
        let keys: Vec<&str> = m
            .get("x-kubernetes-list-map-keys")
            .and_then(Value::as_array)
            .map(|k| k.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let identity = |item: &Value| -> Value {
            match m.get("x-kubernetes-list-type").and_then(Value::as_str) {
                Some("map") => Value::Array(
                    keys.iter()
                        .map(|k| item.get(*k).cloned().unwrap_or(Value::Null))
                        .collect(),
                ),
                _ => item.clone(),
            }
        };
        if !matches!(
            m.get("x-kubernetes-list-type").and_then(Value::as_str),
            Some("set" | "map")
        ) {
            return;
        }
        for (i, item) in items.iter().enumerate() {
            let id = identity(item);
            if items[..i]
                .iter()
                .any(|earlier| json_equal(&identity(earlier), &id))
            {
                let what = if keys.is_empty() { "item" } else { "key" };
                let list = m["x-kubernetes-list-type"].as_str().unwrap_or("");
                push(
                    &mut out,
                    path,
                    format!("{what} {id} repeats in a list of type {list}"),
                );
            }
        }
    });
    out
}

/// A visitor of `walk`: a value, its schema node, its path.
type Visit<'f> = dyn FnMut(&Value, &Map<String, Value>, &ValuePath) + 'f;

/// Calls `f` on `v` and every value inside it, with the schema node that describes it.
fn walk(v: &Value, m: &Map<String, Value>, path: &ValuePath, f: &mut Visit<'_>) {
    f(v, m, path);
    match v {
        Value::Array(items) => {
            if let Some(Value::Object(s)) = m.get("items") {
                for (i, item) in items.iter().enumerate() {
                    walk(item, s, &path.index(i), f);
                }
            }
        }
        Value::Object(o) => {
            for (k, val) in o {
                let s = m
                    .get("properties")
                    .and_then(|p| p.get(k))
                    .or_else(|| m.get("additionalProperties"))
                    .and_then(Value::as_object);
                if let Some(s) = s {
                    walk(val, s, &path.key(k), f);
                }
            }
        }
        _ => {}
    }
}

fn number(n: GoNum, m: &Map<String, Value>, path: &ValuePath, out: &mut Vec<Violation>) {
    let shown = show(n);
    if let Some(factor) = m.get("multipleOf").and_then(Value::as_f64) {
        let ok = match n {
            // kube-openapi divides an int64 by int64(factor), truncating the factor.
            GoNum::Int(i) => {
                let f = factor as i64;
                f > 0 && i % f == 0
            }
            GoNum::Float(f) => float_multiple(f, factor),
        };
        if !ok {
            push(
                out,
                path,
                format!(
                    "{shown} is not a multiple of {} (multipleOf)",
                    format_go_float(factor)
                ),
            );
        }
    }
    for (key, exclusive_key, is_max) in [
        ("maximum", "exclusiveMaximum", true),
        ("minimum", "exclusiveMinimum", false),
    ] {
        let Some(bound) = m.get(key).and_then(Value::as_f64) else {
            continue;
        };
        let exclusive = is_true(m, exclusive_key);
        let fails = match n {
            // kube-openapi compares an int64 with int64(bound), truncating the bound.
            GoNum::Int(i) => {
                let b = bound as i64;
                if is_max {
                    i > b || (exclusive && i >= b)
                } else {
                    i < b || (exclusive && i <= b)
                }
            }
            GoNum::Float(f) => {
                if is_max {
                    f > bound || (exclusive && f >= bound)
                } else {
                    f < bound || (exclusive && f <= bound)
                }
            }
        };
        if fails {
            let relation = match (is_max, exclusive) {
                (true, false) => "at most",
                (true, true) => "less than",
                (false, false) => "at least",
                (false, true) => "greater than",
            };
            let rule = if exclusive { exclusive_key } else { key };
            push(
                out,
                path,
                format!(
                    "{shown} must be {relation} {} ({rule})",
                    format_go_float(bound)
                ),
            );
        }
    }
}

/// go-openapi's MultipleOf on float64s.
fn float_multiple(data: f64, factor: f64) -> bool {
    if factor <= 0.0 {
        return false;
    }
    let mult = if factor < 1.0 {
        1.0 / factor * data
    } else {
        data / factor
    };
    is_json_integer(mult)
}

fn string(s: &str, m: &Map<String, Value>, path: &ValuePath, out: &mut Vec<Violation>) {
    let len = s.chars().count() as u64;
    let shown = Value::String(s.to_owned());
    if let Some(max) = m.get("maxLength").and_then(Value::as_u64)
        && len > max
    {
        push(
            out,
            path,
            format!("{shown} is {len} characters long, more than maxLength {max}"),
        );
    }
    if let Some(min) = m.get("minLength").and_then(Value::as_u64)
        && len < min
    {
        push(
            out,
            path,
            format!("{shown} is {len} characters long, fewer than minLength {min}"),
        );
    }
    if let Some(p) = m.get("pattern").and_then(Value::as_str) {
        match go_regex(p) {
            Ok(re) if !re.is_match(s) => {
                push(
                    out,
                    path,
                    format!("{shown} does not match the pattern `{p}`"),
                );
            }
            Ok(_) => {}
            Err(e) => push(out, path, format!("the pattern `{p}` is not valid: {e}")),
        }
    }
    if let Some(f) = m.get("format").and_then(Value::as_str)
        && format_rejects(f, s)
    {
        push(out, path, format!("{shown} is not a valid {f} (format)"));
    }
}

fn array(items: &[Value], m: &Map<String, Value>, path: &ValuePath, out: &mut Vec<Violation>) {
    let n = items.len() as u64;
    if let Some(max) = m.get("maxItems").and_then(Value::as_u64)
        && n > max
    {
        push(out, path, format!("{n} items, more than maxItems {max}"));
    }
    if let Some(min) = m.get("minItems").and_then(Value::as_u64)
        && n < min
    {
        push(out, path, format!("{n} items, fewer than minItems {min}"));
    }
    if let Some(Value::Object(item_schema)) = m.get("items") {
        for (i, item) in items.iter().enumerate() {
            node(item, item_schema, &path.index(i), out);
        }
    }
}

fn object(
    o: &Map<String, Value>,
    m: &Map<String, Value>,
    path: &ValuePath,
    out: &mut Vec<Violation>,
) {
    let props = m.get("properties").and_then(Value::as_object);
    if let Some(Value::Array(required)) = m.get("required") {
        for r in required.iter().filter_map(Value::as_str) {
            if !o.contains_key(r) {
                out.push(Violation {
                    path: path.clone(),
                    problem: Problem::Missing(r.to_owned()),
                });
            }
        }
    }
    let n = o.len() as u64;
    if let Some(max) = m.get("maxProperties").and_then(Value::as_u64)
        && n > max
    {
        push(
            out,
            path,
            format!("{n} properties, more than maxProperties {max}"),
        );
    }
    if let Some(min) = m.get("minProperties").and_then(Value::as_u64)
        && n < min
    {
        push(
            out,
            path,
            format!("{n} properties, fewer than minProperties {min}"),
        );
    }
    // Pruning keeps the type and object metadata of an embedded resource whole.
    let kept_whole = |k: &str| {
        is_true(m, "x-kubernetes-embedded-resource")
            && matches!(k, "apiVersion" | "kind" | "metadata")
    };
    for (k, val) in o {
        if let Some(ps) = props.and_then(|p| p.get(k)).and_then(Value::as_object) {
            let found = check_branch(val, ps, &path.key(k));
            out.extend(
                found.into_iter().filter(|x| {
                    !(kept_whole(k) && matches!(x.problem, Problem::UnknownField { .. }))
                }),
            );
        } else if let Some(Value::Object(ap)) = m.get("additionalProperties") {
            node(val, ap, &path.key(k), out);
        } else if m.get("additionalProperties") != Some(&Value::Bool(true))
            && !is_true(m, "x-kubernetes-preserve-unknown-fields")
            && !kept_whole(k)
        {
            out.push(Violation {
                path: path.clone(),
                problem: Problem::UnknownField {
                    name: k.clone(),
                    known: props.into_iter().flat_map(|p| p.keys().cloned()).collect(),
                },
            });
        }
    }
}

/// Formats of kube-openapi's `strfmt.Default` that opgen checks (names compared without
/// dashes, as go-openapi normalizes them). Unknown formats and the ones not listed (uri,
/// email, duration, isbn, creditcard, ssn, rgbcolor, bsonobjectid) pass.
fn format_rejects(format: &str, s: &str) -> bool {
    let valid = match format.replace('-', "").as_str() {
        "datetime" => is_date_time(s),
        "date" => is_date(s),
        "byte" => matches_static(
            s,
            r"^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$",
        ),
        "uuid" => matches_static(
            s,
            r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$",
        ),
        "uuid3" => matches_static(
            s,
            r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$",
        ),
        "uuid4" => matches_static(
            s,
            r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$",
        ),
        "uuid5" => matches_static(
            s,
            r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$",
        ),
        "hexcolor" => matches_static(s, r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$"),
        "ipv4" => is_ipv4_sloppy(s) || (s.contains('.') && s.parse::<Ipv6Addr>().is_ok()),
        "ipv6" => s.contains(':') && (s.parse::<Ipv6Addr>().is_ok()),
        "cidr" => is_cidr(s),
        "mac" => is_mac(s),
        "hostname" => is_hostname(s),
        _ => true,
    };
    !valid
}

fn matches_static(s: &str, pattern: &str) -> bool {
    static COMPILED: Compiled = OnceLock::new();
    once_per_key(&COMPILED, pattern, |p| {
        Regex::new(p).map(Arc::new).map_err(|e| e.to_string())
    })
    .is_ok_and(|re| re.is_match(s))
}

/// Go's time.Parse("2006-01-02", s): real calendar dates only.
fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        let part = &s[r];
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    let (Some(y), Some(mo), Some(d)) = (num(0..4), num(5..7), num(8..10)) else {
        return false;
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match mo {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

/// strfmt.IsDateTime: a date, `t` (any case), then hh:mm:ss[.frac](z|±hh:mm).
fn is_date_time(s: &str) -> bool {
    if s.len() < 4 {
        return false;
    }
    let lower = s.to_lowercase();
    let parts: Vec<&str> = lower.split('t').collect();
    if parts.len() < 2 || !is_date(parts[0]) {
        return false;
    }
    let Ok(re) =
        Regex::new(r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$")
    else {
        return false;
    };
    match re.captures(parts[1]) {
        Some(c) => &c[1] <= "23" && &c[2] <= "59" && &c[3] <= "59",
        None => false,
    }
}

/// netutils.ParseIPSloppy on an IPv4 address: leading zeros allowed (read as decimal).
fn is_ipv4_sloppy(s: &str) -> bool {
    let parts: Vec<&str> = s.split('.').collect();
    parts.len() == 4
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.len() <= 3
                && p.bytes().all(|c| c.is_ascii_digit())
                && p.parse::<u16>().is_ok_and(|n| n <= 255)
        })
        || s.parse::<Ipv4Addr>().is_ok()
}

fn is_cidr(s: &str) -> bool {
    let Some((ip, bits)) = s.split_once('/') else {
        return false;
    };
    let max = if is_ipv4_sloppy(ip) {
        32
    } else if ip.parse::<Ipv6Addr>().is_ok() {
        128
    } else {
        return false;
    };
    !bits.is_empty()
        && bits.len() <= 3
        && bits.bytes().all(|c| c.is_ascii_digit())
        && bits.parse::<u32>().is_ok_and(|b| b <= max)
}

/// net.ParseMAC: 6, 8 or 20 octets as xx:xx.., xx-xx.. or xxxx.xxxx...
fn is_mac(s: &str) -> bool {
    let hex = |p: &str, n: usize| p.len() == n && p.bytes().all(|c| c.is_ascii_hexdigit());
    let ok_len = |n: usize| matches!(n, 6 | 8 | 20);
    if s.contains(':') || s.contains('-') {
        let sep = if s.contains(':') { ':' } else { '-' };
        let parts: Vec<&str> = s.split(sep).collect();
        ok_len(parts.len()) && parts.iter().all(|p| hex(p, 2))
    } else {
        let parts: Vec<&str> = s.split('.').collect();
        ok_len(parts.len() * 2) && parts.iter().all(|p| hex(p, 4))
    }
}

/// strfmt.IsHostname.
fn is_hostname(s: &str) -> bool {
    let pattern = r"^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$";
    matches_static(s, pattern) && s.len() <= 255 && s.split('.').all(|p| p.len() <= 63)
}

/// Compiles a pattern as Go's regexp (RE2 syntax) means it. The Rust `regex` crate is close
/// to RE2; the differences handled: `\d`, `\w`, `\s` and `\b` are ASCII in Go (Unicode in
/// Rust); `[` inside a class is a literal in Go (a nested class in Rust); `&&`, `--` and `~~`
/// inside a class are literals in Go (set operations in Rust); `\Q...\E` quotes a literal
/// in Go; a repeat count above 1000 is an error in Go. Rust-only syntax Go refuses (`\<`,
/// `\b{start}`) is refused.
///
/// Compiled once per pattern and run: the same patterns recur in every CRD that embeds a type
/// (prometheus-operator's ten CRDs compiled the same ones thousands of times, an eighth of its
/// run). Shared through an `Arc`: a `Regex` clone shares the program but not the lazy DFA
/// cache, which each clone built again on its first match.
pub fn go_regex(pattern: &str) -> Result<Arc<Regex>, String> {
    static COMPILED: Compiled = OnceLock::new();
    once_per_key(&COMPILED, pattern, |p| compile_go_regex(p).map(Arc::new))
}

/// Regexes by pattern, each compiled once per run.
type Compiled = Memo<Result<Arc<Regex>, String>>;

/// Values computed from a text once per process, kept by the text; shared by every thread.
pub(crate) type Memo<T> = OnceLock<Mutex<HashMap<String, T>>>;

/// `compute(key)`, computed on the first call for `key` and kept in `memo` for the later ones.
pub(crate) fn once_per_key<T: Clone>(
    memo: &'static Memo<T>,
    key: &str,
    compute: impl FnOnce(&str) -> T,
) -> T {
    let memo = memo.get_or_init(Mutex::default);
    let known = memo
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(key)
        .cloned();
    known.unwrap_or_else(|| {
        let value = compute(key);
        memo.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key.to_owned(), value.clone());
        value
    })
}

fn compile_go_regex(pattern: &str) -> Result<Regex, String> {
    let translated = translate(pattern)?;
    Regex::new(&translated).map_err(|e| {
        let text = e.to_string();
        // The crate's message repeats the pattern over several lines; keep the last one.
        text.lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or(&text)
            .trim()
            .trim_start_matches("error: ")
            .to_owned()
    })
}

fn translate(p: &str) -> Result<String, String> {
    let chars: Vec<char> = p.chars().collect();
    let mut out = String::with_capacity(p.len() + 8);
    let mut i = 0;
    let mut in_class = false;
    let mut class_start = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' => {
                let Some(&e) = chars.get(i + 1) else {
                    return Err("trailing backslash at end of expression".into());
                };
                i += 2;
                let class = |neg: bool, body: &str| {
                    if in_class {
                        if neg {
                            // Go allows a negated Perl class inside a class; Rust's
                            // equivalent is a nested negated class.
                            format!("[^{body}]")
                        } else {
                            body.to_owned()
                        }
                    } else if neg {
                        format!("[^{body}]")
                    } else {
                        format!("[{body}]")
                    }
                };
                match e {
                    'd' => out.push_str(&class(false, "0-9")),
                    'D' => out.push_str(&class(true, "0-9")),
                    'w' => out.push_str(&class(false, "0-9A-Za-z_")),
                    'W' => out.push_str(&class(true, "0-9A-Za-z_")),
                    's' => out.push_str(&class(false, r"\t\n\f\r ")),
                    'S' => out.push_str(&class(true, r"\t\n\f\r ")),
                    'b' if !in_class => out.push_str(r"(?-u:\b)"),
                    'B' if !in_class => out.push_str(r"(?-u:\B)"),
                    'Q' => {
                        let mut lit = String::new();
                        while i < chars.len() {
                            if chars[i] == '\\' && chars.get(i + 1) == Some(&'E') {
                                i += 2;
                                break;
                            }
                            lit.push(chars[i]);
                            i += 1;
                        }
                        out.push_str(&regex::escape(&lit));
                    }
                    'E' => {}
                    '<' | '>' => return Err(format!("invalid escape sequence: `\\{e}`")),
                    'b' if chars.get(i) == Some(&'{') => {
                        return Err("invalid escape sequence: `\\b{`".into());
                    }
                    _ => {
                        out.push('\\');
                        out.push(e);
                    }
                }
                continue;
            }
            '[' if !in_class => {
                in_class = true;
                out.push('[');
                i += 1;
                // A leading `^` and then a leading `]` are part of the class syntax.
                if chars.get(i) == Some(&'^') {
                    out.push('^');
                    i += 1;
                }
                class_start = i;
                continue;
            }
            '[' if in_class => {
                // `[:alpha:]` is a class name in both; any other `[` is a literal in Go.
                if chars.get(i + 1) == Some(&':')
                    && let Some(end) = (i + 2..chars.len().saturating_sub(1))
                        .find(|&j| chars[j] == ':' && chars[j + 1] == ']')
                {
                    out.extend(&chars[i..=end + 1]);
                    i = end + 2;
                    continue;
                }
                out.push_str(r"\[");
            }
            ']' if in_class && i == class_start => out.push_str(r"\]"),
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            '&' | '~' if in_class => {
                out.push('\\');
                out.push(c);
            }
            '-' if in_class && chars.get(i + 1) == Some(&'-') => out.push_str(r"\-"),
            '{' if !in_class => {
                // Go refuses repeat counts above 1000.
                let rest: String = chars[i + 1..].iter().take_while(|&&c| c != '}').collect();
                if rest.len() < chars.len() - i - 1
                    && !rest.is_empty()
                    && rest.chars().all(|c| c.is_ascii_digit() || c == ',')
                    && rest
                        .split(',')
                        .any(|n| n.parse::<u64>().is_ok_and(|n| n > 1000))
                {
                    return Err(format!("invalid repeat count: `{{{rest}}}`"));
                }
                out.push('{');
            }
            _ => out.push(c),
        }
        i += 1;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn errs(v: Value, schema: Value) -> Vec<String> {
        check(&v, schema.as_object().unwrap())
    }

    #[test]
    fn types_follow_kube_openapi() {
        assert!(errs(json!(3), json!({"type": "integer"})).is_empty());
        // Go decodes 3.0 as a float64 and kube-openapi lets an integral float pass.
        assert!(errs(json!(3.0), json!({"type": "integer"})).is_empty());
        assert_eq!(
            errs(json!(3.5), json!({"type": "integer"})),
            ["expected integer, found number 3.5"]
        );
        assert!(errs(json!(3), json!({"type": "number"})).is_empty());
        assert_eq!(
            errs(json!("3"), json!({"type": "integer"})),
            ["expected integer, found string \"3\""]
        );
        assert_eq!(
            errs(
                json!({"a": [1, "x"]}),
                json!({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "integer"}}}})
            ),
            ["at a[1]: expected integer, found string \"x\""]
        );
    }

    #[test]
    fn null_needs_nullable() {
        assert!(errs(json!(null), json!({"type": "string", "nullable": true})).is_empty());
        assert_eq!(
            errs(
                json!({"a": null}),
                json!({"type": "object", "properties": {"a": {"type": "string"}}})
            ),
            [
                "at a: null is not allowed: the field is not nullable (`nullable: true` is written for an Option without skip_serializing_if)"
            ]
        );
    }

    #[test]
    fn numbers_bounds_exclusivity_and_format_ranges() {
        let port = json!({"type": "integer", "format": "int32", "minimum": 1, "maximum": 65535});
        assert!(errs(json!(65535), port.clone()).is_empty());
        assert_eq!(
            errs(json!(70000), port.clone()),
            ["70000 must be at most 65535 (maximum)"]
        );
        assert_eq!(errs(json!(0), port), ["0 must be at least 1 (minimum)"]);
        let excl = json!({"type": "number", "maximum": 1.5, "exclusiveMaximum": true, "minimum": 0, "exclusiveMinimum": true});
        assert!(errs(json!(1.25), excl.clone()).is_empty());
        assert_eq!(
            errs(json!(1.5), excl.clone()),
            ["1.5 must be less than 1.5 (exclusiveMaximum)"]
        );
        assert_eq!(
            errs(json!(0), excl.clone()),
            ["0 must be greater than 0 (exclusiveMinimum)"]
        );
        // An integer value meets int64(1.5) = 1: 1 is refused by an exclusive maximum of 1.5.
        assert_eq!(
            errs(json!(1), excl),
            ["1 must be less than 1.5 (exclusiveMaximum)"]
        );
        // The API server does not bound numbers by their format; opgen warns instead.
        let int32 = json!({"type": "integer", "format": "int32", "maximum": 3000000000i64});
        assert!(errs(json!(3000000000i64), int32.clone()).is_empty());
        assert_eq!(
            joined(&format_overflows(
                &json!(3000000000i64),
                int32.as_object().unwrap()
            )),
            "3000000000 does not fit format int32"
        );
        let nested = json!({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "integer", "format": "uint32"}}}});
        assert_eq!(
            joined(&format_overflows(
                &json!({"a": [1, -1]}),
                nested.as_object().unwrap()
            )),
            "at a[1]: -1 does not fit format uint32"
        );
        assert!(
            format_overflows(&json!(1e39), json!({"type": "number"}).as_object().unwrap())
                .is_empty()
        );
        assert_eq!(
            joined(&format_overflows(
                &json!(1e39),
                json!({"type": "number", "format": "float"})
                    .as_object()
                    .unwrap()
            )),
            "1000000000000000000000000000000000000000 does not fit format float"
        );
    }

    #[test]
    fn repeated_items_of_set_and_map_lists() {
        let set =
            json!({"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}});
        assert!(list_duplicates(&json!(["a", "b"]), set.as_object().unwrap()).is_empty());
        assert_eq!(
            joined(&list_duplicates(
                &json!(["a", "b", "a"]),
                set.as_object().unwrap()
            )),
            "item \"a\" repeats in a list of type set"
        );
        let map = json!({"type": "object", "properties": {"ports": {"type": "array",
            "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["port", "protocol"],
            "items": {"type": "object", "properties": {"port": {"type": "integer"}, "protocol": {"type": "string"}}}}}});
        let v = json!({"ports": [{"port": 80, "protocol": "TCP"}, {"port": 80, "protocol": "UDP"}, {"port": 80, "protocol": "TCP"}]});
        assert_eq!(
            joined(&list_duplicates(&v, map.as_object().unwrap())),
            "at ports: key [80,\"TCP\"] repeats in a list of type map"
        );
        // An atomic list may repeat items.
        let atomic = json!({"type": "array", "items": {"type": "string"}});
        assert!(list_duplicates(&json!(["a", "a"]), atomic.as_object().unwrap()).is_empty());
    }

    #[test]
    fn multiple_of_on_integers_and_floats() {
        assert!(errs(json!(10), json!({"type": "integer", "multipleOf": 5})).is_empty());
        assert_eq!(
            errs(json!(7), json!({"type": "integer", "multipleOf": 5})),
            ["7 is not a multiple of 5 (multipleOf)"]
        );
        assert!(errs(json!(0.3), json!({"type": "number", "multipleOf": 0.1})).is_empty());
        assert_eq!(
            errs(json!(0.35), json!({"type": "number", "multipleOf": 0.1})),
            ["0.35 is not a multiple of 0.1 (multipleOf)"]
        );
        // kube-openapi truncates the factor to int64 for an integer value: 0 is never a factor.
        assert_eq!(
            errs(json!(3), json!({"type": "number", "multipleOf": 0.5})),
            ["3 is not a multiple of 0.5 (multipleOf)"]
        );
    }

    #[test]
    fn strings_length_in_code_points_pattern_and_enum() {
        let s = json!({"type": "string", "maxLength": 3, "minLength": 2});
        assert!(errs(json!("äöü"), s.clone()).is_empty());
        assert_eq!(
            errs(json!("abcd"), s.clone()),
            ["\"abcd\" is 4 characters long, more than maxLength 3"]
        );
        assert_eq!(
            errs(json!("a"), s),
            ["\"a\" is 1 characters long, fewer than minLength 2"]
        );
        let p = json!({"type": "string", "pattern": "^[a-z]+$"});
        assert!(errs(json!("abc"), p.clone()).is_empty());
        assert_eq!(
            errs(json!("aBc"), p),
            ["\"aBc\" does not match the pattern `^[a-z]+$`"]
        );
        let e = json!({"type": "string", "enum": ["TCP", "UDP"]});
        assert!(errs(json!("UDP"), e.clone()).is_empty());
        assert_eq!(
            errs(json!("SCTP"), e),
            ["\"SCTP\" is not one of the enum values [\"TCP\", \"UDP\"]"]
        );
    }

    #[test]
    fn objects_required_unknown_fields_and_counts() {
        let s = json!({"type": "object", "required": ["name"], "maxProperties": 2,
            "properties": {"name": {"type": "string"}, "size": {"type": "integer"}, "x": {"type": "integer"}}});
        assert!(errs(json!({"name": "a"}), s.clone()).is_empty());
        assert_eq!(
            errs(json!({"size": 1}), s.clone()),
            ["the required property `name` is missing"]
        );
        assert_eq!(
            errs(json!({"name": "a", "size": 1, "x": 2}), s.clone()),
            ["3 properties, more than maxProperties 2"]
        );
        assert_eq!(
            errs(json!({"name": "a", "colour": "red"}), s),
            ["unknown field `colour`: the API server prunes it, so a default must not have it"]
        );
        let embedded = json!({"type": "object", "x-kubernetes-embedded-resource": true, "properties": {"spec": {"type": "object"}}});
        assert!(
            errs(
                json!({"apiVersion": "v1", "kind": "Pod", "spec": {}}),
                embedded.clone()
            )
            .is_empty()
        );
        assert_eq!(
            errs(json!({"status": {}}), embedded),
            ["unknown field `status`: the API server prunes it, so a default must not have it"]
        );
        let map =
            json!({"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}});
        assert_eq!(
            errs(json!({"a": 1, "b": -1}), map),
            ["at b: -1 must be at least 0 (minimum)"]
        );
        let list = json!({"type": "array", "minItems": 2, "items": {"type": "string"}});
        assert_eq!(errs(json!(["a"]), list), ["1 items, fewer than minItems 2"]);
    }

    #[test]
    fn an_embedded_resource_keeps_its_metadata_whole() {
        let embedded = json!({"type": "object", "x-kubernetes-embedded-resource": true,
            "properties": {"metadata": {"type": "object"}, "spec": {"type": "object"}}});
        let v = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "labels": {"a": "b"}}});
        assert!(errs(v, embedded.clone()).is_empty());
        // Its declared metadata fields are still validated.
        assert_eq!(
            errs(json!({"metadata": []}), embedded),
            ["at metadata: expected object, found array []"]
        );
    }

    #[test]
    fn defaults_are_applied_as_the_api_server_applies_them() {
        let schema = json!({"type": "object", "properties": {
            "size": {"type": "integer", "default": 1},
            "mode": {"type": "string", "default": "Safe"},
            "note": {"type": "string"},
            "maybe": {"type": "string", "nullable": true},
            "nested": {"type": "object", "default": {},
                "properties": {"depth": {"type": "integer", "default": 3}}},
            "items": {"type": "array", "items": {"type": "object",
                "properties": {"port": {"type": "integer", "default": 80}}}}
        }});
        let mut v = json!({"mode": null, "note": null, "maybe": null, "items": [{}, {"port": 81}]});
        apply_defaults(&mut v, schema.as_object().unwrap());
        assert_eq!(
            v,
            json!({"size": 1, "mode": "Safe", "maybe": null, "nested": {"depth": 3},
                "items": [{"port": 80}, {"port": 81}]})
        );
    }

    #[test]
    fn junctors_and_int_or_string() {
        let ios = json!({"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}], "pattern": "^[0-9]+%$"});
        assert!(errs(json!(3), ios.clone()).is_empty());
        assert!(errs(json!("50%"), ios.clone()).is_empty());
        assert_eq!(
            errs(json!("half"), ios.clone()),
            ["\"half\" does not match the pattern `^[0-9]+%$`"]
        );
        assert_eq!(
            errs(json!(true), ios)[0],
            "true matches none of anyOf: expected integer, found boolean true; expected string, found boolean true"
        );
        let all = json!({"type": "string", "allOf": [{"maxLength": 5}, {"minLength": 2}]});
        assert_eq!(
            errs(json!("abcdef"), all),
            ["\"abcdef\" is 6 characters long, more than maxLength 5"]
        );
    }

    #[test]
    fn formats_of_strfmt() {
        let f = |format: &str, s: &str| {
            errs(json!(s), json!({"type": "string", "format": format})).is_empty()
        };
        assert!(
            f("date-time", "2024-01-15T10:00:00Z") && f("date-time", "2024-01-15t10:00:00.5+01:00")
        );
        assert!(!f("date-time", "2024-01-15 10:00:00Z") && !f("date-time", "2024-02-30T10:00:00Z"));
        assert!(f("date", "2024-02-29") && !f("date", "2023-02-29") && !f("date", "2024-1-15"));
        assert!(f("byte", "aGVsbG8=") && !f("byte", "hello") && !f("byte", ""));
        assert!(f("uuid", "123E4567-e89b-12d3-a456-426614174000") && !f("uuid", "123"));
        assert!(
            f("ipv4", "10.0.0.1")
                && f("ipv4", "010.0.0.1")
                && !f("ipv4", "10.0.0.256")
                && !f("ipv4", "::1")
        );
        assert!(f("ipv6", "::1") && !f("ipv6", "10.0.0.1"));
        assert!(
            f("cidr", "10.0.0.0/8")
                && f("cidr", "fd00::/64")
                && !f("cidr", "10.0.0.0/33")
                && !f("cidr", "10.0.0.0")
        );
        assert!(
            f("mac", "01:23:45:67:89:ab") && f("mac", "0123.4567.89ab") && !f("mac", "01:23:45")
        );
        assert!(f("hostname", "example.com") && !f("hostname", "-bad-.com"));
        assert!(f("int32", "anything") && f("email", "not checked"));
    }

    #[test]
    fn go_regex_dialect() {
        let m = |p: &str, s: &str| go_regex(p).unwrap().is_match(s);
        // \d and \w are ASCII in Go.
        assert!(m(r"^\d+$", "123") && !m(r"^\d+$", "١٢٣"));
        assert!(!m(r"^\w+$", "héllo") && m(r"^[\w.]+$", "a.b_c"));
        assert!(m(r"^\S+$", "ab") && !m(r"^\S+$", "a b"));
        // `[` and `&&` inside a class are literals in Go.
        assert!(m(r"^[[a]+$", "[a[") && m(r"^[a&&b]+$", "a&b"));
        assert!(m(r"^[[:alpha:]]+$", "abc") && !m(r"^[[:alpha:]]+$", "a1"));
        assert!(m(r"^[]a]+$", "]a"));
        assert!(m(r"^\Qa.b\E$", "a.b") && !m(r"^\Qa.b\E$", "axb"));
        // \b is an ASCII word boundary in Go: é is not a word character there.
        assert!(m(r"\bfoo\b", "x foo y") && m(r"\bfoo\b", "éfooé") && !m(r"\bfoo\b", "xfoo"));
        assert!(
            go_regex("a{1001}")
                .unwrap_err()
                .contains("invalid repeat count")
        );
        assert!(go_regex("a{2,1000}").is_ok());
        assert!(go_regex(r"\<a").is_err());
        assert!(go_regex("(a").unwrap_err().contains("unclosed group"));
        assert!(go_regex("(?=a)").is_err());
    }
}
