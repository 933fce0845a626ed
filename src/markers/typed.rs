//! Typed markers: every marker of the catalog as a Rust value, in the enum of the generator
//! that applies it (`family:` in markers/catalog.yaml; build/typed_markers.rs writes the types).
//! The grammar checks a marker against the catalog; [`Typed::from_parsed`] then turns its
//! arguments into these types once, so generators match on variants, not on names.

use super::catalog::{MarkerCatalog, MarkerDef};
use super::grammar::{self, ParsedArgs, Value};

include!(concat!(env!("OUT_DIR"), "/typed_markers.rs"));

/// A marker's text (from its `+`) as its catalog entry and typed form; `None` when the grammar
/// refuses it (attaching markers to Rust sources reports why; this is for other sources).
pub fn parse<'c>(catalog: &'c MarkerCatalog, text: &str) -> Option<(&'c MarkerDef, Typed)> {
    let (def, args) = grammar::parse(catalog, text).ok()?;
    if def.ignored {
        return Some((def, Typed::Ignored));
    }
    Some((def, Typed::from_parsed(def.name, args).ok()?))
}

impl Typed {
    /// Whether this marker replaces the schema a field's or type's Rust type would give (on
    /// the node or on a list's items): the type need not be resolved then, as controller-gen
    /// does not look into such a field's type.
    pub fn replaces_schema(&self) -> bool {
        matches!(
            self,
            Typed::Schema(
                SchemaMarker::Schemaless
                    | SchemaMarker::Type(_)
                    | SchemaMarker::EmbeddedResource
                    | SchemaMarker::XEmbeddedResource
            )
        )
    }
}

/// Conversions from the grammar's values, which already have the catalog's types: an error
/// here means the grammar and the catalog disagree.
mod arg {
    use super::{ParsedArgs, Value};

    pub fn value(args: &mut ParsedArgs) -> Result<Value, String> {
        args.value
            .take()
            .ok_or_else(|| "a value is missing".to_owned())
    }

    pub fn required<T>(
        args: &mut ParsedArgs,
        field: &str,
        convert: impl FnOnce(Value) -> Result<T, String>,
    ) -> Result<T, String> {
        let v = args
            .fields
            .remove(field)
            .ok_or_else(|| format!("`{field}` is missing"))?;
        convert(v).map_err(|e| format!("`{field}`: {e}"))
    }

    pub fn optional<T>(
        args: &mut ParsedArgs,
        field: &str,
        convert: impl FnOnce(Value) -> Result<T, String>,
    ) -> Result<Option<T>, String> {
        args.fields
            .remove(field)
            .map(|v| convert(v).map_err(|e| format!("`{field}`: {e}")))
            .transpose()
    }

    pub fn string(v: Value) -> Result<String, String> {
        match v {
            Value::String(s) => Ok(s),
            other => Err(format!("expected a string, got {other:?}")),
        }
    }

    pub fn int(v: Value) -> Result<i64, String> {
        v.as_i64()
            .ok_or_else(|| format!("expected an integer, got {v:?}"))
    }

    pub fn number(v: Value) -> Result<f64, String> {
        v.as_f64()
            .ok_or_else(|| format!("expected a number, got {v:?}"))
    }

    pub fn boolean(v: Value) -> Result<bool, String> {
        v.as_bool()
            .ok_or_else(|| format!("expected true or false, got {v:?}"))
    }

    pub fn any(v: Value) -> Result<Value, String> {
        Ok(v)
    }

    /// A list; a single value is a list of one, as controller-gen reads `+name=a`.
    pub fn list<T>(
        v: Value,
        mut convert: impl FnMut(Value) -> Result<T, String>,
    ) -> Result<Vec<T>, String> {
        match v {
            Value::List(items) => items.into_iter().map(convert).collect(),
            single => Ok(vec![convert(single)?]),
        }
    }
}
