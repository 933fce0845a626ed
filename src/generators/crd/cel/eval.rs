//! A default evaluated against the CEL rules of its schema node and of the nodes under it, as
//! the API server does before it accepts a CRD (apiextensions-apiserver's
//! `schema/defaulting/validation.go` runs `cel.NewValidator` on every default: a rule that
//! returns false, or fails with "no such key", refuses the CRD).
//!
//! opgen's own parser and checker (`parse`, `check`) give cel-go's positions and types but
//! keep no literal values; the evaluation is the `cel` crate's (cel-rust). Only what is
//! certain is reported: a rule that uses `oldSelf` (a transition rule, never run on a
//! default), a value the conversion cannot represent as the API server does (timestamps,
//! durations, bytes), or a rule the interpreter cannot run (a Kubernetes extension function)
//! is skipped, never guessed.

use super::types::escape;
use crate::generators::crd::values::{Memo, Problem, ValuePath, Violation, once_per_key};
use cel::objects::{Key, Map as CelMap};
use cel::parser::{Expression, PrattParser};
use cel::{Context, ExecutionError};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// The rules `v` breaks, on `schema` and under it, each at the value that breaks it. Empty
/// when every rule holds or cannot be run.
pub fn violations(v: &Value, schema: &Map<String, Value>) -> Vec<Violation> {
    let mut out = Vec::new();
    walk(v, schema, &ValuePath::default(), &mut out);
    out
}

fn walk(v: &Value, m: &Map<String, Value>, path: &ValuePath, out: &mut Vec<Violation>) {
    if v.is_null() {
        return;
    }
    if let Some(Value::Array(rules)) = m.get("x-kubernetes-validations")
        && let Some(value) = to_cel(v, m)
    {
        for r in rules {
            if let Some(message) = broken(r, &value) {
                out.push(Violation {
                    path: path.clone(),
                    problem: Problem::Broken(message),
                });
            }
        }
    }
    match v {
        Value::Object(o) => {
            let props = m.get("properties").and_then(Value::as_object);
            let additional = m.get("additionalProperties").and_then(Value::as_object);
            for (k, child) in o {
                let s = props
                    .and_then(|p| p.get(k))
                    .and_then(Value::as_object)
                    .or(additional);
                if let Some(s) = s {
                    walk(child, s, &path.key(k), out);
                }
            }
        }
        Value::Array(items) => {
            if let Some(s) = m.get("items").and_then(Value::as_object) {
                for (i, child) in items.iter().enumerate() {
                    walk(child, s, &path.index(i), out);
                }
            }
        }
        _ => {}
    }
}

/// The message of the rule `r` when `self` breaks it, as the API server words it.
fn broken(r: &Value, value: &cel::Value) -> Option<String> {
    let rule = r.get("rule").and_then(Value::as_str)?;
    let program = parsed(rule)?;
    let mut ctx = Context::default();
    ctx.add_variable_from_value("self", value.clone());
    let described = || match r.get("message").and_then(Value::as_str) {
        Some(msg) if !msg.trim().is_empty() => format!("{msg} (rule `{rule}`)"),
        _ => format!("failed rule: {rule}"),
    };
    match ctx.resolve(&program) {
        Ok(cel::Value::Bool(false)) => Some(described()),
        Err(ExecutionError::NoSuchKey(key)) => {
            Some(format!("no such key: {key} evaluating rule: {rule}"))
        }
        _ => None,
    }
}

/// `rule` parsed, or None when it does not parse or is a transition rule (`oldSelf`).
///
/// Parsed by the `cel` crate's Pratt parser, not its default ANTLR one (`Program::compile`),
/// which took 1.3 M instructions a rule, a tenth of a cold `opgen manifests` of gateway-api's
/// `apis/v1`: the Pratt parser is about twenty times faster and gives the same expression
/// (tested on every rule of the repository's CRDs). The same rules come back for every
/// default under them, on any thread: what was parsed is kept for the process, keyed by the
/// rule's text.
fn parsed(rule: &str) -> Option<Arc<Expression>> {
    static PARSED: Memo<Option<Arc<Expression>>> = Memo::new();
    once_per_key(&PARSED, rule, |rule| {
        PrattParser::default()
            .parse(rule)
            .ok()
            .filter(|e| !e.references().has_variable("oldSelf"))
            .map(Arc::new)
    })
}

/// `v` as the CEL value the API server binds to `self` on a node of schema `m`
/// (apiserver's `UnstructuredToVal`), or None where opgen does not represent it.
fn to_cel(v: &Value, m: &Map<String, Value>) -> Option<cel::Value> {
    let ty = m.get("type").and_then(Value::as_str);
    let int_or_string = m.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true));
    Some(match v {
        Value::Null => cel::Value::Null,
        Value::Bool(b) => cel::Value::Bool(*b),
        Value::Number(n) => match ty {
            Some("number") => cel::Value::Float(n.as_f64()?),
            _ => match n.as_i64() {
                Some(i) => cel::Value::Int(i),
                None => {
                    let f = n.as_f64()?;
                    if ty == Some("integer") || int_or_string {
                        if f.fract() != 0.0 || f.abs() > 9.0e18 {
                            return None;
                        }
                        cel::Value::Int(f as i64)
                    } else {
                        cel::Value::Float(f)
                    }
                }
            },
        },
        Value::String(s) => {
            // date and date-time are timestamps, duration a duration, byte bytes: not
            // represented here.
            if let Some(f) = m.get("format").and_then(Value::as_str)
                && matches!(f, "date" | "date-time" | "duration" | "byte")
            {
                return None;
            }
            cel::Value::String(Arc::new(s.clone()))
        }
        Value::Array(items) => {
            let item_schema = m.get("items").and_then(Value::as_object);
            let empty = Map::new();
            let list = items
                .iter()
                .map(|i| to_cel(i, item_schema.unwrap_or(&empty)))
                .collect::<Option<Vec<_>>>()?;
            cel::Value::List(Arc::new(list))
        }
        Value::Object(o) => {
            let props = m.get("properties").and_then(Value::as_object);
            let additional = m.get("additionalProperties").and_then(Value::as_object);
            let empty = Map::new();
            let mut map = HashMap::new();
            for (k, child) in o {
                let (key, s) = match props.and_then(|p| p.get(k)).and_then(Value::as_object) {
                    // Object fields are named by their escaped names.
                    Some(s) => match escape(k) {
                        Some(e) => (e, s),
                        None => continue,
                    },
                    None => (k.clone(), additional.unwrap_or(&empty)),
                };
                map.insert(Key::String(Arc::new(key)), to_cel(child, s)?);
            }
            cel::Value::Map(CelMap { map: Arc::new(map) })
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The rules of every CRD under `dir` (the repository's fixtures), each once.
    fn fixture_rules(dir: &std::path::Path, out: &mut std::collections::BTreeSet<String>) {
        fn collect(v: &Value, out: &mut std::collections::BTreeSet<String>) {
            match v {
                Value::Object(m) => {
                    if let Some(Value::Array(rules)) = m.get("x-kubernetes-validations") {
                        out.extend(
                            rules
                                .iter()
                                .filter_map(|r| r["rule"].as_str())
                                .map(String::from),
                        );
                    }
                    m.values().for_each(|v| collect(v, out));
                }
                Value::Array(items) => items.iter().for_each(|v| collect(v, out)),
                _ => {}
            }
        }
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                fixture_rules(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                // `+kubebuilder:validation:XValidation:rule=…` (and `items:XValidation`), read
                // as the marker collector reads it (Go's quoting or backquotes).
                let text = std::fs::read_to_string(&path).unwrap();
                let catalog = crate::markers::MarkerCatalog::get();
                for line in text.lines().filter(|l| l.contains("XValidation:")) {
                    let Some(at) = line.find("+kubebuilder:") else {
                        continue;
                    };
                    let (_, args) = crate::markers::grammar::parse(catalog, &line[at..])
                        .unwrap_or_else(|e| panic!("{}: {line}: {e:?}", path.display()));
                    out.extend(args.str_field("rule").map(String::from));
                }
            } else if path.extension().is_some_and(|e| e == "yaml") {
                let text = std::fs::read_to_string(&path).unwrap();
                for (_, doc) in crate::yaml::split_documents(&text) {
                    if let Ok(v) = serde_yaml::from_str::<Value>(doc) {
                        collect(&v, out);
                    }
                }
            }
        }
    }

    #[test]
    fn the_pratt_parser_gives_the_default_parsers_expression_for_every_fixture_rule() {
        let mut rules = std::collections::BTreeSet::new();
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        fixture_rules(&fixtures, &mut rules);
        assert!(rules.len() > 50, "only {} rules found", rules.len());
        for rule in &rules {
            let antlr = cel::Program::compile(rule).map(|p| format!("{:?}", p.expression()));
            let pratt = PrattParser::default().parse(rule).map(|e| format!("{e:?}"));
            match (antlr, pratt) {
                (Ok(antlr), Ok(pratt)) => assert_eq!(antlr, pratt, "{rule}"),
                (Err(_), Err(_)) => {}
                (antlr, pratt) => panic!("{rule}: ANTLR {antlr:?}, Pratt {pratt:?}"),
            }
        }
    }

    fn run(v: Value, schema: Value) -> Vec<String> {
        violations(&v, schema.as_object().unwrap())
            .iter()
            .map(Violation::to_string)
            .collect()
    }

    #[test]
    fn a_rule_a_default_breaks_is_reported_with_its_message() {
        let odd = json!({"type": "integer", "x-kubernetes-validations": [
            {"rule": "self % 2 == 1", "message": "replicas must be odd"}]});
        assert_eq!(
            run(json!(4), odd.clone()),
            ["replicas must be odd (rule `self % 2 == 1`)"]
        );
        assert!(run(json!(3), odd).is_empty());
    }

    #[test]
    fn nested_rules_missing_keys_and_what_is_skipped() {
        let schema = json!({"type": "object",
            "properties": {"min": {"type": "integer"}, "max": {"type": "integer"},
                "items": {"type": "array", "items": {"type": "string",
                    "x-kubernetes-validations": [{"rule": "self.startsWith('a')"}]}}},
            "x-kubernetes-validations": [{"rule": "self.min <= self.max"}]});
        assert_eq!(
            run(json!({"min": 3, "max": 1}), schema.clone()),
            ["failed rule: self.min <= self.max"]
        );
        assert_eq!(
            run(json!({"min": 3}), schema.clone()),
            ["no such key: max evaluating rule: self.min <= self.max"]
        );
        assert_eq!(
            run(json!({"min": 1, "max": 2, "items": ["ab", "b"]}), schema),
            ["at items[1]: failed rule: self.startsWith('a')"]
        );
        // Transition rules, extension functions and timestamps are not guessed at.
        let skipped = json!({"type": "string", "format": "date-time", "x-kubernetes-validations": [
            {"rule": "false"}]});
        assert!(run(json!("2024-01-01T00:00:00Z"), skipped).is_empty());
        let old = json!({"type": "integer", "x-kubernetes-validations": [{"rule": "self == oldSelf + 1"}]});
        assert!(run(json!(4), old).is_empty());
        let ext = json!({"type": "string", "x-kubernetes-validations": [{"rule": "self.lowerAscii() == 'q'"}]});
        assert!(run(json!("X"), ext).is_empty());
    }

    #[test]
    fn property_names_are_escaped_as_the_api_server_escapes_them() {
        assert_eq!(escape("a-b").as_deref(), Some("a__dash__b"));
        assert_eq!(escape("if").as_deref(), Some("__if__"));
        assert_eq!(escape("x__y").as_deref(), Some("x__underscores__y"));
        assert_eq!(escape("1a"), None);
        let schema = json!({"type": "object", "properties": {"max-size": {"type": "integer"}},
            "x-kubernetes-validations": [{"rule": "self.max__dash__size > 2"}]});
        assert_eq!(run(json!({"max-size": 1}), schema).len(), 1);
    }
}
