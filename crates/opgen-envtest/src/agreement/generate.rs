//! Values of a CRD version's schema, drawn from a seed: every type, format, enum, bound,
//! length, item count and pattern the API server checks, optional properties present or not.
//! CEL rules and `allOf`/`anyOf`/`oneOf`/`not` are not solved: a value they refuse is counted
//! as refused by the check, not as a disagreement.

use base64::Engine;
use regex_syntax::hir::{Class, Hir, HirKind};
use serde_json::{Map, Number, Value, json};

/// A small, fast, reproducible generator (splitmix64): the same seed gives the same values on
/// every machine and in every version of this crate's dependencies.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    pub(crate) fn chance(&mut self, one_in: u64) -> bool {
        self.below(one_in) == 0
    }

    /// An integer in `low..=high`.
    pub(crate) fn between(&mut self, low: i64, high: i64) -> i64 {
        let span = (high as i128 - low as i128 + 1) as u128;
        let draw = ((self.next() as u128) << 64 | self.next() as u128) % span;
        (low as i128 + draw as i128) as i64
    }

    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// Below this depth only required properties are set, so that self-referencing and deep
/// schemas give objects of a sensible size.
pub(crate) const OPTIONAL_DEPTH: usize = 6;
pub(crate) const MAX_DEPTH: usize = 24;

/// A value of `schema`.
pub(crate) fn value(schema: &Value, rng: &mut Rng, depth: usize) -> Value {
    if schema["nullable"] == true && rng.chance(8) {
        return Value::Null;
    }
    if let Some(values) = schema["enum"].as_array().filter(|e| !e.is_empty()) {
        return rng.pick(values).clone();
    }
    if schema["x-kubernetes-int-or-string"] == true {
        return if rng.chance(2) {
            json!(rng.between(0, 100))
        } else {
            string(schema, rng, || "50%".to_owned())
        };
    }
    match schema["type"].as_str() {
        Some("object") => object(schema, rng, depth),
        Some("array") => array(schema, rng, depth),
        Some("string") => string(schema, rng, || "value".to_owned()),
        Some("integer") => integer(schema, rng, (i64::MIN, i64::MAX)),
        Some("number") => number(schema, rng),
        Some("boolean") => Value::Bool(rng.chance(2)),
        _ if schema["x-kubernetes-preserve-unknown-fields"] == true => {
            json!({"key": "value", "count": rng.between(0, 9)})
        }
        _ => json!({}),
    }
}

fn object(schema: &Value, rng: &mut Rng, depth: usize) -> Value {
    let mut object = Map::new();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if schema["x-kubernetes-embedded-resource"] == true {
        object.insert("apiVersion".into(), json!("v1"));
        object.insert("kind".into(), json!("ConfigMap"));
        object.insert("metadata".into(), json!({"name": "embedded"}));
    }
    if let Some(properties) = schema["properties"].as_object() {
        for (name, property) in properties {
            if object.contains_key(name) {
                continue;
            }
            let wanted =
                required.contains(&name.as_str()) || (depth < OPTIONAL_DEPTH && rng.chance(2));
            if wanted {
                object.insert(name.clone(), value(property, rng, depth + 1));
            }
        }
    } else if schema["additionalProperties"].is_object() && depth < MAX_DEPTH {
        let (low, high) = counts(schema, "minProperties", "maxProperties");
        for _ in 0..rng.between(low, high) {
            let key = format!("key{}", rng.below(1000));
            object.insert(key, value(&schema["additionalProperties"], rng, depth + 1));
        }
    } else if schema["x-kubernetes-preserve-unknown-fields"] == true && rng.chance(2) {
        object.insert("unknown".into(), json!({"kept": rng.between(0, 9)}));
    }
    Value::Object(object)
}

/// `low..=high` for a count with optional bounds: a few more than the minimum.
pub(crate) fn counts(schema: &Value, min: &str, max: &str) -> (i64, i64) {
    let low = schema[min].as_i64().unwrap_or(0);
    let high = schema[max].as_i64().unwrap_or(low + 3).min(low + 3);
    (low, high.max(low))
}

fn array(schema: &Value, rng: &mut Rng, depth: usize) -> Value {
    let (low, high) = counts(schema, "minItems", "maxItems");
    let count = if depth >= MAX_DEPTH {
        low
    } else {
        rng.between(low, high)
    };
    let keys: Vec<&str> = schema["x-kubernetes-list-map-keys"]
        .as_array()
        .map(|k| k.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let unique = schema["x-kubernetes-list-type"] == "set" || schema["uniqueItems"] == true;
    let mut items: Vec<Value> = Vec::new();
    // A set's items and a map list's keys must be unique: draw again a few times.
    for _ in 0..count * 4 {
        if items.len() as i64 == count {
            break;
        }
        let item = value(&schema["items"], rng, depth + 1);
        let clash = items.iter().any(|other| {
            if !keys.is_empty() {
                keys.iter().all(|k| other.get(*k) == item.get(*k))
            } else {
                unique && *other == item
            }
        });
        if !clash {
            items.push(item);
        }
    }
    Value::Array(items)
}

pub(crate) fn string(schema: &Value, rng: &mut Rng, fallback: impl Fn() -> String) -> Value {
    let min = schema["minLength"].as_u64().unwrap_or(0) as usize;
    let max = schema["maxLength"].as_u64().map(|m| m as usize);
    let fits = |s: &str| {
        let n = s.chars().count();
        n >= min && max.is_none_or(|max| n <= max)
    };
    if let Some(pattern) = schema["pattern"].as_str() {
        let hir = regex_syntax::ParserBuilder::new()
            .build()
            .parse(pattern)
            .ok();
        if let Some(hir) = hir {
            let mut last = String::new();
            for _ in 0..16 {
                last.clear();
                matching(&hir, rng, &mut last);
                if fits(&last) {
                    break;
                }
            }
            return Value::String(last);
        }
    }
    let formatted = match schema["format"].as_str() {
        Some("date-time") => Some(format!(
            "20{:02}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
            rng.between(10, 39),
            rng.between(1, 12),
            rng.between(1, 28),
            rng.between(0, 23),
            rng.between(0, 59),
            rng.between(0, 59)
        )),
        Some("date") => Some(format!(
            "20{:02}-{:02}-{:02}",
            rng.between(10, 39),
            rng.between(1, 12),
            rng.between(1, 28)
        )),
        Some("byte") => {
            let bytes: Vec<u8> = (0..rng.between(1, 12))
                .map(|_| rng.below(256) as u8)
                .collect();
            Some(base64::engine::general_purpose::STANDARD.encode(bytes))
        }
        Some("duration") => Some(format!(
            "{}h{}m{}s",
            rng.below(24),
            rng.below(60),
            rng.below(60)
        )),
        Some("uuid") => Some(format!(
            "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
            rng.below(1 << 32),
            rng.below(1 << 16),
            rng.below(1 << 12),
            rng.below(1 << 12),
            rng.below(1 << 48)
        )),
        Some("ipv4") => Some(format!(
            "10.{}.{}.{}",
            rng.below(256),
            rng.below(256),
            rng.below(256)
        )),
        Some("ipv6") => Some(format!("fd00::{:x}", rng.below(1 << 16))),
        Some("cidr") => Some(format!("10.{}.0.0/16", rng.below(256))),
        Some("email") => Some(format!("user{}@example.com", rng.below(100))),
        Some("hostname") => Some(format!("host{}.example.com", rng.below(100))),
        Some("uri") => Some(format!("https://example.com/{}", rng.below(100))),
        Some("mac") => Some(format!("02:00:00:00:00:{:02x}", rng.below(256))),
        _ => None,
    };
    if let Some(formatted) = formatted {
        return Value::String(formatted);
    }
    let high = max.unwrap_or(min + 12).min(min + 12);
    let length = rng.between(min as i64, high.max(min) as i64) as usize;
    let text: String = (0..length)
        .map(|_| *rng.pick(b"abcdefghijklmnopqrstuvwxyz0123456789") as char)
        .collect();
    Value::String(if text.is_empty() && min > 0 {
        fallback()
    } else {
        text
    })
}

/// A string `hir` matches: one branch of each alternation, a few repetitions, printable
/// ASCII where a class allows it.
fn matching(hir: &Hir, rng: &mut Rng, out: &mut String) {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => {}
        HirKind::Literal(literal) => out.push_str(&String::from_utf8_lossy(&literal.0)),
        HirKind::Class(Class::Unicode(class)) => {
            let mut printable =
                regex_syntax::hir::ClassUnicode::new([regex_syntax::hir::ClassUnicodeRange::new(
                    ' ', '~',
                )]);
            printable.intersect(class);
            let ranges = if printable.ranges().is_empty() {
                class.ranges()
            } else {
                printable.ranges()
            };
            if let Some(range) = (!ranges.is_empty()).then(|| rng.pick(ranges)) {
                let offset = rng.between(0, range.end() as i64 - range.start() as i64);
                out.extend(char::from_u32(range.start() as u32 + offset as u32));
            }
        }
        HirKind::Class(Class::Bytes(class)) => {
            if let Some(range) = (!class.ranges().is_empty()).then(|| rng.pick(class.ranges())) {
                let byte = rng.between(range.start() as i64, range.end() as i64) as u8;
                out.push(char::from(byte.min(0x7f)));
            }
        }
        HirKind::Repetition(repetition) => {
            let high = repetition
                .max
                .unwrap_or(repetition.min + 3)
                .min(repetition.min + 3);
            for _ in 0..rng.between(repetition.min as i64, high as i64) {
                matching(&repetition.sub, rng, out);
            }
        }
        HirKind::Capture(capture) => matching(&capture.sub, rng, out),
        HirKind::Concat(parts) => parts.iter().for_each(|part| matching(part, rng, out)),
        HirKind::Alternation(branches) => matching(rng.pick(branches), rng, out),
    }
}

fn bound(schema: &Value, key: &str) -> Option<f64> {
    schema[key].as_f64()
}

/// An integer the schema allows within `(low, high)`, the range of the type it is drawn for;
/// the type's edge nearest the schema's when they share none.
pub(crate) fn integer(schema: &Value, rng: &mut Rng, (type_low, type_high): (i64, i64)) -> Value {
    let (width_low, width_high) = match schema["format"].as_str() {
        Some("int32") => (i32::MIN as i64, i32::MAX as i64),
        _ => (i64::MIN, i64::MAX),
    };
    let (width_low, width_high) = (width_low.max(type_low), width_high.min(type_high));
    let exclusive = |key: &str| i64::from(schema[key] == true);
    let low = bound(schema, "minimum")
        .map(|m| m.ceil() as i64 + exclusive("exclusiveMinimum"))
        .unwrap_or(width_low)
        .max(width_low);
    let high = bound(schema, "maximum")
        .map(|m| m.floor() as i64 - exclusive("exclusiveMaximum"))
        .unwrap_or(width_high)
        .min(width_high);
    if low > high {
        return json!(if type_high < low {
            type_high
        } else if type_low > high {
            type_low
        } else {
            low
        });
    }
    // Edges first: they are where widths and formats disagree.
    let candidate = match rng.below(4) {
        0 => low,
        1 => high,
        2 => rng.between(low.max(-100), high.min(100).max(low.max(-100))),
        _ => rng.between(low, high.max(low)),
    };
    let candidate = match schema["multipleOf"].as_i64().filter(|m| *m > 0) {
        Some(step) => {
            let rounded = candidate - candidate.rem_euclid(step);
            if rounded < low {
                rounded.saturating_add(step)
            } else {
                rounded
            }
        }
        None => candidate,
    };
    json!(candidate)
}

pub(crate) fn number(schema: &Value, rng: &mut Rng) -> Value {
    let low = bound(schema, "minimum").unwrap_or(-1e6);
    let high = bound(schema, "maximum").unwrap_or(1e6).max(low);
    // Quarters: exact in binary, so that no printing of a float can differ.
    let quarters = rng.between((low * 4.0).ceil() as i64, (high * 4.0).floor() as i64);
    let mut number = quarters as f64 / 4.0;
    if let Some(step) = schema["multipleOf"].as_f64().filter(|m| *m > 0.0) {
        number = (number / step).ceil() * step;
    }
    Number::from_f64(number).map_or(json!(0), Value::Number)
}

/// Whether the schema has rules the draws do not solve (CEL, `oneOf`, `anyOf`, `allOf`,
/// `not`), so that the API server may refuse a value for their sake.
pub(crate) fn has_unsolved_rules(schema: &Value) -> bool {
    let rules = ["x-kubernetes-validations", "oneOf", "anyOf", "allOf", "not"];
    rules.iter().any(|rule| schema.get(rule).is_some())
        || schema["properties"]
            .as_object()
            .is_some_and(|properties| properties.values().any(has_unsolved_rules))
        || ["items", "additionalProperties"]
            .iter()
            .any(|sub| schema[sub].is_object() && has_unsolved_rules(&schema[sub]))
}

/// The object of `version` for `crd_spec` (a CRD's `spec`) named `name`: every top-level
/// property but `apiVersion`, `kind` and `metadata` drawn from `schema`.
pub(crate) fn object_of(
    schema: &Value,
    api_version: &str,
    kind: &str,
    name: &str,
    rng: &mut Rng,
) -> Value {
    let mut object = json!({"apiVersion": api_version, "kind": kind, "metadata": {"name": name}});
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(properties) = schema["properties"].as_object() {
        for (property, sub) in properties {
            let top = matches!(property.as_str(), "apiVersion" | "kind" | "metadata");
            if !top && (required.contains(&property.as_str()) || !rng.chance(6)) {
                object[property] = value(sub, rng, 1);
            }
        }
    }
    object
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draws(schema: Value, n: u64) -> Vec<Value> {
        (0..n)
            .map(|seed| value(&schema, &mut Rng::new(seed), 1))
            .collect()
    }

    #[test]
    fn integers_stay_within_bounds_width_and_step() {
        for v in draws(
            json!({"type": "integer", "minimum": 1, "maximum": 30, "exclusiveMaximum": true, "multipleOf": 3}),
            200,
        ) {
            let n = v.as_i64().unwrap();
            assert!((3..=27).contains(&n) && n % 3 == 0, "{n}");
        }
        let int32 = draws(json!({"type": "integer", "format": "int32"}), 200);
        assert!(
            int32
                .iter()
                .all(|v| i32::try_from(v.as_i64().unwrap()).is_ok())
        );
        assert!(int32.contains(&json!(i32::MAX)) && int32.contains(&json!(i32::MIN)));
        // Without a format, the edges are int64's: what an i32 field would refuse.
        assert!(draws(json!({"type": "integer"}), 200).contains(&json!(i64::MAX)));
    }

    #[test]
    fn strings_match_their_pattern_length_and_format() {
        let matcher = regex::Regex::new("^[a-z]([-a-z0-9]*[a-z0-9])?$").unwrap();
        for v in draws(
            json!({"type": "string", "pattern": "^[a-z]([-a-z0-9]*[a-z0-9])?$", "maxLength": 8}),
            100,
        ) {
            let s = v.as_str().unwrap();
            assert!(matcher.is_match(s) && s.len() <= 8, "{s}");
        }
        for v in draws(
            json!({"type": "string", "minLength": 3, "maxLength": 5}),
            100,
        ) {
            assert!((3..=5).contains(&v.as_str().unwrap().len()), "{v}");
        }
        let times = draws(json!({"type": "string", "format": "date-time"}), 20);
        assert!(
            times
                .iter()
                .all(|t| t.as_str().unwrap().ends_with('Z') && t.as_str().unwrap().len() == 20)
        );
    }

    #[test]
    fn objects_keep_required_properties_and_unique_list_keys() {
        let schema = json!({
            "type": "object",
            "required": ["name"],
            "properties": {
                "name": {"type": "string"},
                "ports": {
                    "type": "array", "minItems": 2, "maxItems": 4,
                    "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["port"],
                    "items": {"type": "object", "required": ["port"], "properties": {"port": {"type": "integer", "minimum": 1, "maximum": 3}}},
                },
                "mode": {"type": "string", "enum": ["Fast", "Slow"]},
            },
        });
        let values = draws(schema, 100);
        for v in &values {
            assert!(v["name"].is_string(), "{v}");
            if let Some(ports) = v["ports"].as_array() {
                let mut keys: Vec<_> = ports.iter().map(|p| p["port"].as_i64()).collect();
                keys.sort();
                keys.dedup();
                assert_eq!(keys.len(), ports.len(), "{v}");
            }
            assert!(
                v.get("mode").is_none_or(|m| m == "Fast" || m == "Slow"),
                "{v}"
            );
        }
        assert!(values.iter().any(|v| v.get("mode").is_none()));
        assert!(values.iter().any(|v| v.get("mode").is_some()));
    }

    #[test]
    fn unsolved_rules_are_found_at_any_depth_and_not_in_property_names() {
        let nested = json!({"type": "object", "properties": {"spec": {"type": "array", "items": {
            "type": "object", "x-kubernetes-validations": [{"rule": "true"}],
        }}}});
        assert!(has_unsolved_rules(&nested));
        let one_of = json!({"additionalProperties": {"oneOf": [{"required": ["a"]}]}});
        assert!(has_unsolved_rules(&one_of));
        let named = json!({"type": "object", "properties": {"not": {"type": "string"}, "oneOf": {"type": "integer"}}});
        assert!(!has_unsolved_rules(&named));
    }

    #[test]
    fn the_same_seed_draws_the_same_value() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}});
        assert_eq!(draws(schema.clone(), 10), draws(schema, 10));
    }
}
