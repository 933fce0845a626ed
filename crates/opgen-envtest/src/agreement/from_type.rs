//! Values of a kind's Rust type, drawn by driving the type's own `Deserialize` with a
//! deserializer that makes up whatever the type asks for: every field it names (in the
//! schema or not), every variant of its enums, `None` and `Some` of its options, any length
//! of its lists and maps. Where the schema has the same place, its bounds, lengths, item
//! counts, formats, patterns and enums (the markers) shape the draw; a place it lacks gets
//! a value of the type alone. Where the type asks for anything (`deserialize_any`: untagged
//! enums, `serde_json::Value`, `IntOrString`), the value is drawn from the schema.
//!
//! The schema-drawn objects of `generate.rs` only reach what the schema describes; these
//! reach what serde can send: a field the schema lacks, a variant its enum lacks, an
//! `Option` sent as `null`.

use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, EnumAccess, IntoDeserializer, MapAccess,
    SeqAccess, VariantAccess, Visitor,
};
use serde_json::{Value, json};

use super::generate::{self, MAX_DEPTH, OPTIONAL_DEPTH, Rng};

type Error = de::value::Error;

/// A value of `K` for the CRD version whose schema is `schema`: `apiVersion`, `kind` and
/// `metadata` (the name) as given, everything else drawn. `Err` when the type cannot be
/// drawn (a recursion the schema does not end, a type that refuses every value offered).
pub(crate) fn draw<K: DeserializeOwned>(
    schema: &Value,
    top: &Value,
    rng: &mut Rng,
) -> Result<K, String> {
    K::deserialize(Draw {
        schema,
        rng,
        depth: 0,
        required: true,
        top: Some(top),
    })
    .map_err(|e| e.to_string())
}

/// The deserializer of one place: its schema (`Value::Null` where the schema has none), its
/// depth, whether the schema requires it, and at the root the fields given as they are.
struct Draw<'a> {
    schema: &'a Value,
    rng: &'a mut Rng,
    depth: usize,
    required: bool,
    top: Option<&'a Value>,
}

impl<'a> Draw<'a> {
    /// The same place under another schema (a variant's, a time's), required.
    fn with_schema(self, schema: &'a Value) -> Draw<'a> {
        Draw {
            schema,
            required: true,
            top: None,
            ..self
        }
    }

    fn at<'b>(&'b mut self, schema: &'b Value, required: bool) -> Draw<'b> {
        Draw {
            schema,
            rng: &mut *self.rng,
            depth: self.depth + 1,
            required,
            top: None,
        }
    }

    /// A value drawn from the schema, for a type that takes anything.
    fn drawn_from_schema(&mut self) -> Value {
        if self.schema.is_null() {
            json!("value")
        } else {
            generate::value(self.schema, self.rng, self.depth)
        }
    }

    /// A string of the schema's (its enum, pattern, format and length) or, where the schema
    /// has none, lower-case letters and digits in fours (so it is base64 too, for a
    /// `ByteString`).
    fn string(&mut self) -> String {
        if let Some(Value::String(s)) = self.schema["enum"]
            .as_array()
            .filter(|e| !e.is_empty())
            .map(|e| self.rng.pick(e).clone())
        {
            return s;
        }
        if self.schema.is_null() {
            let length = 4 * self.rng.between(1, 3) as usize;
            return (0..length)
                .map(|_| *self.rng.pick(b"abcdefghijklmnopqrstuvwxyz0123456789") as char)
                .collect();
        }
        match generate::string(self.schema, self.rng, || "value".to_owned()) {
            Value::String(s) => s,
            other => other.to_string(),
        }
    }

    fn integer(&mut self, range: (i64, i64)) -> i64 {
        generate::integer(self.schema, self.rng, range)
            .as_i64()
            .unwrap_or(range.0)
    }

    /// The number of a list's items or a map's entries in `low..=high`: the minimum deep
    /// down, and half the time for an optional one (a field serde defaults, which the draws
    /// from the schema leave out half the time).
    fn count(&mut self, low: i64, high: i64) -> usize {
        let count = if self.depth >= OPTIONAL_DEPTH || (!self.required && self.rng.chance(2)) {
            low
        } else {
            self.rng.between(low, high.max(low))
        };
        usize::try_from(count).unwrap_or(0)
    }

    fn too_deep(&self) -> Result<(), Error> {
        if self.depth > MAX_DEPTH {
            Err(de::Error::custom(format!(
                "the type nests deeper than {MAX_DEPTH} levels where nothing is optional"
            )))
        } else {
            Ok(())
        }
    }
}

fn json_error(e: serde_json::Error) -> Error {
    de::Error::custom(e)
}

macro_rules! integers {
    ($($method:ident $visit:ident $ty:ty),* $(,)?) => {$(
        fn $method<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, Error> {
            let low = i64::try_from(<$ty>::MIN).unwrap_or(i64::MIN);
            let high = i64::try_from(<$ty>::MAX).unwrap_or(i64::MAX);
            let n = self.integer((low, high));
            match <$ty>::try_from(n) {
                Ok(n) => visitor.$visit(n),
                Err(_) => visitor.visit_i64(n),
            }
        }
    )*};
}

impl<'de, 'a> Deserializer<'de> for Draw<'a> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, Error> {
        self.drawn_from_schema()
            .deserialize_any(visitor)
            .map_err(json_error)
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_bool(self.rng.chance(2))
    }

    integers! {
        deserialize_i8 visit_i8 i8,
        deserialize_i16 visit_i16 i16,
        deserialize_i32 visit_i32 i32,
        deserialize_i64 visit_i64 i64,
        deserialize_i128 visit_i128 i128,
        deserialize_u8 visit_u8 u8,
        deserialize_u16 visit_u16 u16,
        deserialize_u32 visit_u32 u32,
        deserialize_u64 visit_u64 u64,
        deserialize_u128 visit_u128 u128,
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let n = generate::number(self.schema, self.rng)
            .as_f64()
            .unwrap_or(0.0);
        visitor.visit_f32(n as f32)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let n = generate::number(self.schema, self.rng)
            .as_f64()
            .unwrap_or(0.0);
        visitor.visit_f64(n)
    }

    fn deserialize_char<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_char(self.string().chars().next().unwrap_or('a'))
    }

    fn deserialize_str<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_string(self.string())
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let bytes = (0..self.rng.between(1, 12))
            .map(|_| self.rng.below(256) as u8)
            .collect();
        visitor.visit_byte_buf(bytes)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        // What the schema requires is there (as the markers say); the rest is there or not,
        // as often as in the draws from the schema, so that objects stay of a like size.
        let present = self.required || (self.depth < OPTIONAL_DEPTH && self.rng.chance(2));
        if present {
            visitor.visit_some(self)
        } else {
            visitor.visit_none()
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        // k8s-openapi's times parse what they are given: a time, whatever the schema says.
        static TIME: std::sync::LazyLock<Value> =
            std::sync::LazyLock::new(|| json!({"type": "string", "format": "date-time"}));
        if matches!(name, "Time" | "MicroTime") && self.schema["format"] != "date-time" {
            return visitor.visit_newtype_struct(self.with_schema(&TIME));
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, Error> {
        self.too_deep()?;
        let (low, high) = generate::counts(self.schema, "minItems", "maxItems");
        // A list whose items must differ (a set, a map list's keys) gets its minimum number
        // of items, or one where that is none, so that independent draws seldom clash.
        let unique = matches!(
            self.schema["x-kubernetes-list-type"].as_str(),
            Some("set" | "map")
        ) || self.schema["uniqueItems"] == true;
        let high = if unique { high.min(low.max(1)) } else { high };
        let count = self.count(low, high);
        let schema: &'a Value = self.schema;
        visitor.visit_seq(Items {
            draw: self,
            items: &schema["items"],
            left: count,
        })
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, Error> {
        let schema: &'a Value = self.schema;
        visitor.visit_seq(Items {
            draw: self,
            items: &schema["items"],
            left: len,
        })
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_tuple(len, visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, Error> {
        self.too_deep()?;
        // A map of named properties (a flattened struct asks for a map): the schema's, with
        // the root's given fields.
        if self.schema["properties"].is_object() {
            let mut drawn = self.drawn_from_schema();
            if let (Some(drawn), Some(Value::Object(top))) = (drawn.as_object_mut(), self.top) {
                drawn.extend(top.clone());
            }
            return drawn.deserialize_map(visitor).map_err(json_error);
        }
        let (low, high) = generate::counts(self.schema, "minProperties", "maxProperties");
        let count = self.count(low, high);
        let schema: &'a Value = self.schema;
        visitor.visit_map(Entries {
            draw: self,
            values: &schema["additionalProperties"],
            count,
            next: 0,
        })
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.too_deep()?;
        // An object's metadata: a name and a label, whatever the type's fields.
        if name == "ObjectMeta" && self.top.is_none() {
            let label = format!("v{}", self.rng.below(100));
            return json!({"name": "embedded", "labels": {"app": label}})
                .deserialize_any(visitor)
                .map_err(json_error);
        }
        visitor.visit_map(Fields {
            draw: self,
            fields,
            next: 0,
        })
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        if variants.is_empty() {
            return Err(de::Error::custom("an enum without variants has no value"));
        }
        let variant = *self.rng.pick(variants);
        visitor.visit_enum(Variant {
            draw: self,
            variant,
        })
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }
}

/// A list's or a tuple's items.
struct Items<'a> {
    draw: Draw<'a>,
    items: &'a Value,
    left: usize,
}

impl<'de> SeqAccess<'de> for Items<'_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(self.draw.at(self.items, true)).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

/// A map's entries, under keys of their own.
struct Entries<'a> {
    draw: Draw<'a>,
    values: &'a Value,
    count: usize,
    next: usize,
}

impl<'de> MapAccess<'de> for Entries<'_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        if self.next == self.count {
            return Ok(None);
        }
        self.next += 1;
        let key: de::value::StringDeserializer<Error> =
            format!("key{}", self.next).into_deserializer();
        seed.deserialize(key).map(Some)
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Error> {
        seed.deserialize(self.draw.at(self.values, true))
    }
}

/// A struct's fields, each one the type names; a field the schema requires is never
/// absent, the root's `apiVersion`, `kind` and `metadata` are as given, and so are an
/// embedded object's.
struct Fields<'a> {
    draw: Draw<'a>,
    fields: &'static [&'static str],
    next: usize,
}

impl<'de> MapAccess<'de> for Fields<'_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let Some(field) = self.fields.get(self.next) else {
            return Ok(None);
        };
        seed.deserialize(field.into_deserializer()).map(Some)
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Error> {
        let field = self.fields[self.next];
        self.next += 1;
        let given = match self.draw.top {
            Some(top) => top.get(field),
            None if self.draw.schema["x-kubernetes-embedded-resource"] == true => {
                embedded().get(field)
            }
            None => None,
        };
        if let Some(given) = given {
            return seed.deserialize(given.clone()).map_err(json_error);
        }
        let whole: &Value = self.draw.schema;
        let schema = &whole["properties"][field];
        let required = whole["required"]
            .as_array()
            .is_some_and(|r| r.iter().any(|f| f == field));
        seed.deserialize(self.draw.at(schema, required))
    }
}

/// What an embedded object (`x-kubernetes-embedded-resource`) is given.
fn embedded() -> &'static Value {
    static EMBEDDED: std::sync::LazyLock<Value> = std::sync::LazyLock::new(
        || json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "embedded"}}),
    );
    &EMBEDDED
}

/// An enum's variant, with what it holds drawn from the schema's property of its name (an
/// externally tagged enum's shape) or from the type alone.
struct Variant<'a> {
    draw: Draw<'a>,
    variant: &'static str,
}

impl<'de, 'a> EnumAccess<'de> for Variant<'a> {
    type Error = Error;
    type Variant = Draw<'a>;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Draw<'a>), Error> {
        let name: de::value::StrDeserializer<Error> = self.variant.into_deserializer();
        let value = seed.deserialize(name)?;
        let schema: &'a Value = self.draw.schema;
        let mut draw = self.draw.with_schema(&schema["properties"][self.variant]);
        draw.depth += 1;
        Ok((value, draw))
    }
}

impl<'de> VariantAccess<'de> for Draw<'_> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_tuple(len, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_struct("", fields, visitor)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::Deserialize;

    use super::*;

    #[derive(Deserialize, Debug)]
    #[serde(rename_all = "camelCase")]
    struct Spec {
        replicas: u8,
        mode: Mode,
        #[serde(default)]
        labels: BTreeMap<String, String>,
        note: Option<String>,
        ports: Vec<Port>,
    }

    #[derive(Deserialize, Debug, PartialEq)]
    enum Mode {
        Fast,
        Slow,
        Unlisted,
    }

    #[derive(Deserialize, Debug)]
    struct Port {
        port: i32,
    }

    fn schema() -> Value {
        json!({
            "type": "object",
            "required": ["replicas", "ports"],
            "properties": {
                "replicas": {"type": "integer", "minimum": 3, "maximum": 1000},
                "mode": {"type": "string", "enum": ["Fast", "Slow"]},
                "ports": {"type": "array", "maxItems": 2, "items": {
                    "type": "object", "properties": {"port": {"type": "integer", "minimum": 1, "maximum": 9}},
                }},
            },
        })
    }

    fn draws(n: u64) -> Vec<Spec> {
        let schema = schema();
        (0..n)
            .map(|seed| {
                let mut rng = Rng::new(seed);
                Spec::deserialize(Draw {
                    schema: &schema,
                    rng: &mut rng,
                    depth: 1,
                    required: true,
                    top: None,
                })
                .unwrap()
            })
            .collect()
    }

    #[test]
    fn the_schemas_bounds_shape_what_the_type_holds() {
        let drawn = draws(200);
        // Within the schema's minimum and the type's maximum (255, not the schema's 1000).
        assert!(drawn.iter().all(|s| (3..=255).contains(&s.replicas)));
        assert!(drawn.iter().any(|s| s.replicas == 255));
        assert!(drawn.iter().all(|s| s.ports.len() <= 2));
        assert!(
            drawn
                .iter()
                .flat_map(|s| &s.ports)
                .all(|p| (1..=9).contains(&p.port))
        );
    }

    #[test]
    fn what_the_schema_lacks_is_drawn_from_the_type() {
        let drawn = draws(200);
        // A variant the schema's enum lacks, a map and an option the schema has no place for.
        assert!(drawn.iter().any(|s| s.mode == Mode::Unlisted));
        assert!(drawn.iter().any(|s| !s.labels.is_empty()));
        assert!(drawn.iter().any(|s| s.note.is_some()));
        assert!(drawn.iter().any(|s| s.note.is_none()));
    }

    #[test]
    fn the_root_takes_the_given_fields_and_times_parse() {
        #[derive(Deserialize)]
        struct Root {
            metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
            spec: RootSpec,
        }
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct RootSpec {
            since: k8s_openapi::apimachinery::pkg::apis::meta::v1::Time,
            template: k8s_openapi::api::core::v1::PodTemplateSpec,
        }
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object"}}});
        let top = json!({"metadata": {"name": "drawn"}});
        // A kind without a spec (kube-derive's `no_spec`) flattens its fields into the root.
        #[derive(Deserialize)]
        struct Flat {
            metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
            #[serde(flatten)]
            fields: FlatFields,
        }
        #[derive(Deserialize)]
        struct FlatFields {
            size: i64,
        }
        let flat_schema = json!({"type": "object", "required": ["size"], "properties": {
            "metadata": {"type": "object"},
            "size": {"type": "integer", "minimum": 5, "maximum": 6},
        }});
        for seed in 0..20 {
            let flat: Flat = draw(&flat_schema, &top, &mut Rng::new(seed)).unwrap();
            assert_eq!(flat.metadata.name.as_deref(), Some("drawn"));
            assert!((5..=6).contains(&flat.fields.size));
        }
        for seed in 0..50 {
            let root: Root = draw(&schema, &top, &mut Rng::new(seed)).unwrap();
            assert_eq!(root.metadata.name.as_deref(), Some("drawn"));
            let _ = (root.spec.since, root.spec.template);
        }
    }
}
