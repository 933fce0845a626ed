//! Each schema marker applies itself to the node it stands on ([`SchemaMarker::apply_to`]);
//! the order among the markers of one node is the catalog's `priority`.

use super::props::{self, SchemaProps, ValidationRule};
use crate::markers::Value as MarkerValue;
use crate::markers::typed::{ExternalDocs, SchemaMarker, XValidation};
use serde_json::{Number, Value, json};

/// A bound as controller-gen writes it: a whole number without a fraction.
fn number_json(v: f64) -> Option<Number> {
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        Some(Number::from(v as i64))
    } else {
        Number::from_f64(v)
    }
}

/// The x-kubernetes-validations entry of an XValidation marker.
pub fn cel_rule(v: &XValidation) -> ValidationRule {
    let text = |s: Option<&str>| s.filter(|s| !s.is_empty()).map(str::to_owned);
    ValidationRule {
        rule: v.rule.clone(),
        message: text(v.message.as_deref()),
        message_expression: text(v.message_expression.as_deref()),
        reason: text(v.reason.map(|r| r.as_str())),
        field_path: text(v.field_path.as_deref()),
        optional_old_self: v.optional_old_self,
        origin: None,
    }
}

impl SchemaMarker {
    /// Applies this marker to `schema`. `node_type` is the schema type the marker is checked
    /// against (the type of the field's or type's own schema); `spelled` is the marker's name
    /// as written, for errors.
    pub fn apply_to(
        &self,
        schema: &mut SchemaProps,
        node_type: Option<&str>,
        spelled: &str,
    ) -> Result<(), String> {
        let node = Node {
            ty: node_type,
            int_or_string: schema.is_int_or_string(),
            spelled,
        };
        match self {
            Self::Maximum(v) => schema.maximum = Some(node.number(*v)?),
            Self::Minimum(v) => schema.minimum = Some(node.number(*v)?),
            Self::MultipleOf(v) => schema.multiple_of = Some(node.number(*v)?),
            Self::ExclusiveMaximum(on) => {
                node.flag(Applies::Numbers, *on, &mut schema.exclusive_maximum)?;
            }
            Self::ExclusiveMinimum(on) => {
                node.flag(Applies::Numbers, *on, &mut schema.exclusive_minimum)?;
            }
            Self::MaxLength(n) => schema.max_length = Some(node.count(Applies::Strings, *n)?),
            Self::MinLength(n) => schema.min_length = Some(node.count(Applies::Strings, *n)?),
            Self::MaxItems(n) => schema.max_items = Some(node.count(Applies::Lists, *n)?),
            Self::MinItems(n) => schema.min_items = Some(node.count(Applies::Lists, *n)?),
            Self::UniqueItems(on) => node.flag(Applies::Lists, *on, &mut schema.unique_items)?,
            Self::MaxProperties(n) => {
                schema.max_properties = Some(node.count(Applies::Objects, *n)?);
            }
            Self::MinProperties(n) => {
                schema.min_properties = Some(node.count(Applies::Objects, *n)?);
            }
            Self::Pattern(pattern) => {
                node.need(Applies::Strings)?;
                // The API server compiles it with Go's regexp and refuses the CRD if that fails.
                if let Err(e) = super::values::go_regex(pattern) {
                    return Err(format!(
                        "the pattern `{pattern}` is not a valid Go (RE2) regular expression: {e}"
                    ));
                }
                schema.pattern = Some(pattern.clone());
            }
            Self::Enum(values) => {
                schema.enum_values = Some(values.iter().map(MarkerValue::to_json).collect());
            }
            // controller-gen's `Format=""` leaves the format empty, which its JSON omits: the
            // spelling of a number without a format (Go's float64) on an `f64`.
            Self::Format(format) => {
                schema.format = Some(format.clone()).filter(|f| !f.is_empty());
            }
            Self::Type(ty) => schema.ty = Some(ty.as_str().to_owned()),
            Self::XPreserveUnknownFields | Self::PreserveUnknownFields => {
                schema.preserve_unknown_fields = Some(true);
            }
            Self::XEmbeddedResource | Self::EmbeddedResource => {
                schema.embedded_resource = Some(true);
            }
            Self::XIntOrString => schema.int_or_string = Some(true),
            Self::XValidation(v) => schema.push_rule(cel_rule(v)),
            // In source order with the field's XValidation rules (spec §3.7 leaves the order open).
            Self::Immutable => {
                schema.push_rule(ValidationRule::new("self == oldSelf", "field is immutable"));
            }
            Self::Nullable => schema.nullable = Some(true),
            Self::Default(v) | Self::KubebuilderDefault(v) => {
                let mut v = v.to_json();
                if node_type == Some("array") && v == json!({}) {
                    v = json!([]);
                }
                schema.default = Some(v);
            }
            Self::Example(v) => schema.example = Some(v.to_json()),
            Self::Title(title) => schema.title = Some(title_text(title, spelled)?.to_owned()),
            Self::ExternalDocs(docs) => schema.external_docs = Some(external_docs(docs)?),
            Self::ListType(ty) => {
                node.need(Applies::Lists)?;
                schema.list_type = Some(ty.as_str().to_owned());
            }
            Self::ListMapKey(key) => {
                node.need(Applies::Lists)?;
                if schema.list_type.as_deref() != Some("map") {
                    return Err(format!("`{spelled}` needs +listType=map on the same list"));
                }
                schema
                    .list_map_keys
                    .get_or_insert_with(Vec::new)
                    .push(key.clone());
            }
            Self::MapType(ty) | Self::StructType(ty) => {
                node.need(Applies::ObjectsOrUntyped)?;
                schema.map_type = Some(ty.as_str().to_owned());
            }
            Self::AtMostOneOf(fields) | Self::ExactlyOneOf(fields) | Self::AtLeastOneOf(fields) => {
                node.need(Applies::Structs)?;
                schema.push_rule(self.one_of_rule(fields, spelled)?);
            }
            Self::K8sEnum => match &mut schema.enum_values {
                Some(values) => values.sort_by_key(|v| v.to_string()),
                None => {
                    return Err(format!(
                        "`{spelled}` applies to enums whose variants are all unit variants"
                    ));
                }
            },
            // controller-tools v0.23.0 (K8sRequired.ApplyToSchema): a required string, list,
            // map or struct must also be non-empty, unless its minimum is set explicitly.
            Self::K8sRequired => {
                let bound = match node_type {
                    Some("string") => Some(&mut schema.min_length),
                    Some("array") => Some(&mut schema.min_items),
                    Some("object") => Some(&mut schema.min_properties),
                    _ => None,
                };
                if let Some(bound) = bound {
                    bound.get_or_insert(1);
                }
            }
            // Whether the parent lists the field as required, or how its type is read: the
            // schema generator's business, not this node's.
            Self::Optional | Self::Required | Self::Schemaless => {}
        }
        Ok(())
    }
}

/// The schema nodes a marker applies to.
#[derive(Clone, Copy)]
enum Applies {
    Numbers,
    Strings,
    Lists,
    /// Maps and structs: `type: object`.
    Objects,
    /// Structs, whose fields a rule names; the same check as `Objects`.
    Structs,
    /// Maps, structs and nodes whose type another marker gives (`x-kubernetes-map-type`).
    ObjectsOrUntyped,
}

/// The node a marker stands on, as far as checking the marker goes.
struct Node<'a> {
    /// Its schema type, if it has one.
    ty: Option<&'a str>,
    /// `x-kubernetes-int-or-string`: string markers apply too.
    int_or_string: bool,
    /// The marker's name as written, for errors.
    spelled: &'a str,
}

impl Node<'_> {
    fn need(&self, applies: Applies) -> Result<(), String> {
        let (ok, what) = match applies {
            Applies::Numbers => (matches!(self.ty, Some("integer" | "number")), "numbers"),
            Applies::Strings => (self.ty == Some("string") || self.int_or_string, "strings"),
            Applies::Lists => (self.ty == Some("array"), "lists"),
            Applies::Objects => (self.ty == Some("object"), "maps and objects"),
            Applies::Structs => (self.ty == Some("object"), "objects"),
            Applies::ObjectsOrUntyped => {
                (matches!(self.ty, Some("object") | None), "maps and objects")
            }
        };
        if ok {
            return Ok(());
        }
        Err(format!(
            "`{}` applies to {what}, but this is {}",
            self.spelled,
            self.ty.map_or_else(
                || "a value without a type".to_owned(),
                |t| format!("of type {t}")
            )
        ))
    }

    /// A numeric bound's value; on an integer it must be a whole number.
    fn number(&self, v: f64) -> Result<Number, String> {
        self.need(Applies::Numbers)?;
        if self.ty == Some("integer") && v.fract() != 0.0 {
            return Err(format!(
                "`{}` on an integer must be a whole number, not {v}",
                self.spelled
            ));
        }
        number_json(v).ok_or_else(|| format!("`{}` must be a finite number, not {v}", self.spelled))
    }

    /// A length, item or property count.
    fn count(&self, applies: Applies, n: i64) -> Result<i64, String> {
        self.need(applies)?;
        Ok(n)
    }

    /// A flag marker (`ExclusiveMaximum=true`), which only says something when set.
    fn flag(&self, applies: Applies, on: bool, key: &mut Option<bool>) -> Result<(), String> {
        self.need(applies)?;
        if on {
            *key = Some(true);
        }
        Ok(())
    }
}

impl SchemaMarker {
    /// The CEL rule of `AtMostOneOf`, `ExactlyOneOf` or `AtLeastOneOf` over `fields`.
    fn one_of_rule(&self, fields: &[String], spelled: &str) -> Result<ValidationRule, String> {
        let nested: Vec<&str> = fields
            .iter()
            .filter(|f| f.contains('.'))
            .map(String::as_str)
            .collect();
        if !nested.is_empty() {
            return Err(format!(
                "{spelled}: cannot reference nested fields: {}",
                nested.join(",")
            ));
        }
        let joined = fields.join(" ");
        let (rule, message) = match self {
            Self::AtMostOneOf(_) => (
                format!("{} <= 1", count_expr(fields)),
                format!("at most one of the fields in [{joined}] may be set"),
            ),
            Self::ExactlyOneOf(_) => (
                format!("{} == 1", count_expr(fields)),
                format!("exactly one of the fields in [{joined}] must be set"),
            ),
            _ => (
                fields
                    .iter()
                    .map(|f| format!("has(self.{f})"))
                    .collect::<Vec<_>>()
                    .join("||"),
                format!("at least one of the fields in [{joined}] must be set"),
            ),
        };
        Ok(ValidationRule::new(rule, message))
    }
}

/// A title must be a string: the `any` value of `+kubebuilder:title` guesses a type.
fn title_text<'v>(title: &'v MarkerValue, spelled: &str) -> Result<&'v str, String> {
    if let MarkerValue::String(title) = title {
        return Ok(title);
    }
    let got = match title.to_json() {
        Value::Number(n) if n.is_i64() || n.is_u64() => "int",
        Value::Number(_) => "float",
        Value::Bool(_) => "bool",
        Value::Array(_) => "a list",
        Value::Object(_) => "a map",
        _ => "nothing",
    };
    Err(format!(
        "`{spelled}` expects a string, got {got}; quote it, e.g. +kubebuilder:title=\"...\""
    ))
}

fn external_docs(docs: &ExternalDocs) -> Result<props::ExternalDocs, String> {
    let url = &docs.url;
    if !(url.contains("://") || url.starts_with('/')) {
        return Err(format!(
            "externalDocs url {url:?} must be an absolute URL or path"
        ));
    }
    Ok(props::ExternalDocs {
        description: docs.description.clone(),
        url: url.clone(),
    })
}

fn count_expr(fields: &[String]) -> String {
    fields
        .iter()
        .map(|f| format!("(has(self.{f})?1:0)"))
        .collect::<Vec<_>>()
        .join("+")
}

/// Pairs of bounds on `node` that no value satisfies: (lower marker suffix, upper marker
/// suffix, message), e.g. Minimum=5 with Maximum=3.
pub fn unsatisfiable_bounds(node: &SchemaProps) -> Vec<(&'static str, &'static str, String)> {
    let mut found = Vec::new();
    if let (Some(min), Some(max)) = (&node.minimum, &node.maximum)
        && let (Some(low), Some(high)) = (min.as_f64(), max.as_f64())
    {
        let exclusive_min = node.exclusive_minimum == Some(true);
        let exclusive_max = node.exclusive_maximum == Some(true);
        if low > high || (low == high && (exclusive_min || exclusive_max)) {
            let exclusive = |on: bool| if on { " (exclusive)" } else { "" };
            found.push((
                "Minimum",
                "Maximum",
                format!(
                    "no value satisfies minimum {min}{} and maximum {max}{}",
                    exclusive(exclusive_min),
                    exclusive(exclusive_max),
                ),
            ));
        }
    }
    let counts = [
        (
            "MinLength",
            "MaxLength",
            "minLength",
            "maxLength",
            node.min_length,
            node.max_length,
        ),
        (
            "MinItems",
            "MaxItems",
            "minItems",
            "maxItems",
            node.min_items,
            node.max_items,
        ),
        (
            "MinProperties",
            "MaxProperties",
            "minProperties",
            "maxProperties",
            node.min_properties,
            node.max_properties,
        ),
    ];
    for (lower, upper, min_key, max_key, min, max) in counts {
        // Counts below zero take no part.
        let count = |n: Option<i64>| n.and_then(|n| u64::try_from(n).ok());
        if let (Some(min), Some(max)) = (count(min), count(max))
            && min > max
        {
            found.push((
                lower,
                upper,
                format!("no value satisfies {min_key} {min} and {max_key} {max}"),
            ));
        }
    }
    found
}
