//! Rust types (from the model) to OpenAPI v3 schemas.
//!
//! Principle: the schema accepts everything the Rust type can serialize and requires
//! exactly what serde needs to deserialize. Where controller-gen's rules are sane
//! (markers, merge of a field with its type, descriptions) they are followed.

use super::k8s::K8sTypes;
use super::markers::{self, push_rule};
use super::values;
use crate::diag::{Diagnostic, Diagnostics};
use crate::markers::Marker;
use crate::markers::typed::{SchemaMarker, Typed};
use crate::model::{
    EnumRepr, Field, Model, Shape, SrcLoc, Ty, TypeId, Variant, VariantContent, WellKnown,
};
use serde_json::{Map, Value, json};

pub type Schema = Map<String, Value>;

pub struct SchemaBuilder<'m, 'a> {
    pub model: &'m Model<'a>,
    pub k8s: &'m K8sTypes,
    /// Types being expanded, to refuse recursion.
    stack: Vec<TypeId>,
}

/// A value as messages show it, cut when long.
fn short(v: &Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(80) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s,
    }
}

fn obj(v: Value) -> Schema {
    match v {
        Value::Object(m) => m,
        _ => unreachable!("schema literals are objects"),
    }
}

impl<'m, 'a> SchemaBuilder<'m, 'a> {
    pub fn new(model: &'m Model<'a>, k8s: &'m K8sTypes) -> Self {
        SchemaBuilder {
            model,
            k8s,
            stack: Vec::new(),
        }
    }

    fn error(&self, loc: SrcLoc, message: impl Into<String>) -> Diagnostic {
        self.model.diag_at(loc, message)
    }

    fn marker_error(&self, file: usize, m: &Marker, message: impl Into<String>) -> Diagnostic {
        Diagnostic::error(message).at(self.model.files[file].location(
            m.line,
            m.column,
            m.text.chars().count(),
        ))
    }

    /// The schema of a type expression used at `loc`.
    pub fn ty(&mut self, ty: &Ty, loc: SrcLoc, diags: &mut Diagnostics) -> Schema {
        match ty {
            Ty::Bool => obj(json!({"type": "boolean"})),
            Ty::String => obj(json!({"type": "string"})),
            Ty::Integer { bits, signed } => {
                let mut s = obj(json!({"type": "integer"}));
                match bits {
                    32 => {
                        s.insert("format".into(), json!("int32"));
                    }
                    64 => {
                        s.insert("format".into(), json!("int64"));
                    }
                    // `isize`/`usize` (bits 0) are Go's `int`/`uint`, as wide as a pointer in
                    // both languages, which controller-gen writes without a format.
                    _ => {}
                }
                if !signed {
                    s.insert("minimum".into(), json!(0));
                }
                s
            }
            Ty::Float { bits } => obj(
                json!({"type": "number", "format": if *bits == 32 { "float" } else { "double" }}),
            ),
            Ty::Bytes => obj(json!({"type": "string", "format": "byte"})),
            Ty::Option(inner) => self.ty(inner, loc, diags),
            Ty::List { item, set } => {
                let mut s = obj(json!({"type": "array"}));
                s.insert("items".into(), Value::Object(self.ty(item, loc, diags)));
                let scalar = matches!(
                    **item,
                    Ty::String | Ty::Integer { .. } | Ty::Bool | Ty::Float { .. }
                );
                if *set && scalar {
                    s.insert("x-kubernetes-list-type".into(), json!("set"));
                }
                s
            }
            Ty::Map(value) => {
                let mut s = obj(json!({"type": "object"}));
                s.insert(
                    "additionalProperties".into(),
                    Value::Object(self.ty(value, loc, diags)),
                );
                s
            }
            Ty::Json => obj(json!({"x-kubernetes-preserve-unknown-fields": true})),
            Ty::JsonObject => {
                obj(json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}))
            }
            Ty::Unit => {
                diags.push(self.error(
                    loc,
                    "a unit type `()` serializes as null, which a CRD schema cannot describe",
                ));
                Schema::new()
            }
            Ty::K8s(path) => match self.k8s.schema(path) {
                Some(s) => s,
                None => {
                    diags.push(self.error(loc, format!("unknown k8s-openapi type `k8s_openapi::{path}`")).help(
                        "opgen knows the types of k8s-openapi's api and apimachinery modules; check the path",
                    ));
                    Schema::new()
                }
            },
            Ty::Named(id) => self.named(*id, diags),
            // The markers that let it through unresolved describe it (`unresolved_base`).
            Ty::Foreign { known: None, .. } => Schema::new(),
            Ty::Foreign {
                known: Some(known), ..
            } => self.well_known(*known, loc, diags),
        }
    }

    /// The schema of what serde_json writes for a well-known foreign type (README: "Types of
    /// other crates", where each form was checked against the real crate).
    fn well_known(&mut self, known: WellKnown, loc: SrcLoc, diags: &mut Diagnostics) -> Schema {
        let string = |format: Option<&str>| {
            let mut s = obj(json!({"type": "string"}));
            if let Some(f) = format {
                s.insert("format".into(), json!(f));
            }
            s
        };
        match known {
            WellKnown::Timestamp => string(Some("date-time")),
            WellKnown::Date => string(Some("date")),
            // No offset, so not RFC 3339's date-time; no OpenAPI format fits the others.
            WellKnown::LocalDateTime
            | WellKnown::TimeOfDay
            | WellKnown::TimestampText
            | WellKnown::DurationText
            | WellKnown::IpAddr
            | WellKnown::SocketAddr => string(None),
            WellKnown::Uuid => string(Some("uuid")),
            WellKnown::Url => string(Some("uri")),
            WellKnown::Ipv4Addr => string(Some("ipv4")),
            WellKnown::Ipv6Addr => string(Some("ipv6")),
            WellKnown::UnixTime => obj(json!({"type": "integer", "format": "int64"})),
            WellKnown::ByteArray => obj(json!({
                "type": "array",
                "items": {"type": "integer", "minimum": 0, "maximum": 255},
            })),
            WellKnown::NonZero { bits, signed } => {
                let mut s = self.ty(&Ty::Integer { bits, signed }, loc, diags);
                if signed {
                    push_rule(
                        &mut s,
                        json!({"message": "must not be 0", "rule": "self != 0"}),
                    );
                } else {
                    s.insert("minimum".into(), json!(1));
                }
                s
            }
        }
    }

    /// The base schema of a type left unresolved because markers replace its schema: none,
    /// except for an embedded resource, which is an object of any kind whose fields the API
    /// server must keep (what controller-gen writes for a `runtime.RawExtension`).
    fn unresolved_base(ty: &Ty, markers: &[Marker]) -> Option<Schema> {
        let mut ty = ty;
        while let Ty::Option(inner) = ty {
            ty = inner;
        }
        if !matches!(ty, Ty::Foreign { known: None, .. }) {
            return None;
        }
        let on_node = || markers.iter().filter_map(Marker::on_node);
        let embedded = on_node().any(|m| {
            matches!(
                m,
                SchemaMarker::EmbeddedResource | SchemaMarker::XEmbeddedResource
            )
        });
        if embedded && !on_node().any(|m| matches!(m, SchemaMarker::Type(_))) {
            Some(obj(
                json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}),
            ))
        } else {
            Some(Schema::new())
        }
    }

    /// The schema of a named type, with its doc as description and its type markers applied.
    pub fn named(&mut self, id: TypeId, diags: &mut Diagnostics) -> Schema {
        let model = self.model;
        let def = model.type_def(id);
        if self.stack.contains(&id) {
            diags.push(self.error(def.loc, format!(
                "`{}` contains itself; a CRD schema cannot describe a recursive type",
                def.name
            )).help("mark the recursive field +kubebuilder:validation:Schemaless with +kubebuilder:pruning:PreserveUnknownFields"));
            return Schema::new();
        }
        self.stack.push(id);
        let mut flattened_rules = Vec::new();
        let mut schema = match &def.shape {
            Shape::Struct(fields) => {
                let (s, rules) = self.object_parts(fields, &def.package, diags);
                self.check_one_of(&def.markers, def.loc.file, fields, &s, diags);
                flattened_rules = rules;
                s
            }
            Shape::Wrapper(inner) => match Self::unresolved_base(inner, &def.markers) {
                Some(base) => base,
                None => self.ty(inner, def.loc, diags),
            },
            Shape::UnitEnum(variants) => {
                let mut s = obj(json!({"type": "string"}));
                s.insert(
                    "enum".into(),
                    variants.iter().map(|v| json!(v.json_name)).collect(),
                );
                s
            }
            Shape::DataEnum { repr, variants } => {
                self.data_enum(&def.name, def.loc, repr, variants, diags)
            }
            // Only the markers describe these, and they have no description (spec §4.4).
            Shape::Opaque => Schema::new(),
            Shape::DisplayString => obj(json!({"type": "string"})),
            Shape::Invalid => Schema::new(),
        };
        self.stack.pop();
        let own_doc = !matches!(def.shape, Shape::Opaque | Shape::DisplayString);
        if own_doc && !def.doc.is_empty() {
            schema.insert("description".into(), json!(def.doc));
        }
        self.apply_markers(&mut schema, &def.markers, def.loc.file, diags);
        // The CEL rules of flattened types follow the type's own, as controller-gen's
        // flattener merges an embedded struct's allOf branch into its parent after the
        // parent's own rules.
        for rule in flattened_rules {
            push_rule(&mut schema, rule);
        }
        schema
    }

    /// Each `default` and `example` set by one of a field's markers `ms` (on the node or, for
    /// `items:` markers, its items) checked against the node it sits in, as the API server
    /// checks defaults. (Both markers apply to fields only.)
    /// A default that breaks its schema is an error (the API server refuses the CRD); an
    /// example only a warning: the server stores examples unchecked, but one that breaks
    /// its own schema misleads whoever reads it.
    fn check_values(&self, schema: &Schema, ms: &[Marker], file: usize, diags: &mut Diagnostics) {
        for m in ms {
            let is_default = match &m.typed {
                Typed::Schema(SchemaMarker::Default(_) | SchemaMarker::KubebuilderDefault(_)) => {
                    true
                }
                Typed::Schema(SchemaMarker::Example(_)) => false,
                _ => continue,
            };
            let node = if m.def.items {
                schema.get("items").and_then(Value::as_object)
            } else {
                Some(schema)
            };
            let key = if is_default { "default" } else { "example" };
            let Some((node, v)) = node.and_then(|n| Some((n, n.get(key)?))) else {
                continue;
            };
            // The API server neither checks nor applies a null default (its `Default.Object`
            // is nil): accepted, and without effect.
            if is_default && v.is_null() {
                diags.push_once(
                    Diagnostic::warning(
                        "a null default has no effect: the API server never applies it (nor checks it)",
                    )
                    .at(self.model.files[file].location(m.line, m.column, m.text.chars().count()))
                    .help("remove the marker; an absent Option field already deserializes as None"),
                );
                continue;
            }
            let mut errors = values::check(v, node);
            // The API server also runs the CEL rules of the node (and of those under it) on
            // the default, once it fits the rest of the schema.
            if is_default && errors.is_empty() {
                errors = super::cel::eval::violations(v, node)
                    .iter()
                    .map(values::Violation::to_string)
                    .collect();
            }
            if errors.is_empty() {
                let overflows = values::format_overflows(v, node);
                if is_default && !overflows.is_empty() {
                    diags.push_once(
                        Diagnostic::warning(format!(
                            "the default {} does not fit the field's Rust type: {}; the API server accepts it, but the operator cannot deserialize an object defaulted with it",
                            short(v),
                            values::joined(&overflows)
                        ))
                        .at(self.model.files[file].location(m.line, m.column, m.text.chars().count()))
                        .help("change the default, or widen the field's type"),
                    );
                }
                let duplicates = values::list_duplicates(v, node);
                if is_default && !duplicates.is_empty() {
                    diags.push_once(
                        Diagnostic::warning(format!(
                            "the default {} repeats list items: {}; the API server accepts the CRD, but refuses every object the default is applied to (`Duplicate value`)",
                            short(v),
                            values::joined(&duplicates)
                        ))
                        .at(self.model.files[file].location(m.line, m.column, m.text.chars().count()))
                        .help("remove the repeated items from the default"),
                    );
                }
                continue;
            }
            let shown = short(v);
            let d = if is_default {
                self.marker_error(
                    file,
                    m,
                    format!(
                        "the default {shown} does not fit its own schema, so the API server would refuse the CRD: {}",
                        errors.join("; ")
                    ),
                )
                .help("change the default, or the type or markers it must satisfy")
            } else {
                Diagnostic::warning(format!(
                    "the example {shown} does not fit its own schema: {}",
                    errors.join("; ")
                ))
                .at(self.model.files[file].location(m.line, m.column, m.text.chars().count()))
                .help("the API server stores examples unchecked, but readers take them as valid values")
            };
            diags.push_once(d);
        }
    }

    /// The fields named by `AtMostOneOf`/`ExactlyOneOf`/`AtLeastOneOf` on a struct must exist and
    /// be optional: a required member would make "at most one" impossible to satisfy with
    /// zero, and controller-gen refuses it too (spec §3.5).
    fn check_one_of(
        &self,
        ms: &[Marker],
        file: usize,
        fields: &[Field],
        schema: &Schema,
        diags: &mut Diagnostics,
    ) {
        let props = schema.get("properties").and_then(Value::as_object);
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for (m, names) in ms.iter().filter_map(|m| match m.on_node()? {
            SchemaMarker::AtMostOneOf(names)
            | SchemaMarker::ExactlyOneOf(names)
            | SchemaMarker::AtLeastOneOf(names) => Some((m, names)),
            _ => None,
        }) {
            for name in names.iter().filter(|n| !n.contains('.')) {
                if !props.is_some_and(|p| p.contains_key(name)) {
                    diags.push(self.marker_error(
                        file,
                        m,
                        format!("`{}` names `{name}`, which is not a field of this type (fields are named by their JSON name)", m.name()),
                    ));
                } else if required.contains(&name.as_str()) {
                    let field = fields.iter().find(|f| !f.flatten && f.json_name == *name);
                    let message = format!(
                        "field {name} is part of OneOf constraint `{}` (line {}) and must be optional, but it is required",
                        m.name(),
                        m.line
                    );
                    let d = match field {
                        Some(f) => self.error(f.loc, message),
                        None => self.marker_error(file, m, message),
                    };
                    diags.push(d.help("make it an Option<...> with #[serde(default, skip_serializing_if = \"Option::is_none\")] (Go: omitempty), or give it #[serde(default)]; and no +required marker"));
                }
            }
        }
    }

    /// Applies node markers in priority order; `items:` markers go to the array items.
    pub fn apply_markers(
        &self,
        schema: &mut Schema,
        ms: &[Marker],
        file: usize,
        diags: &mut Diagnostics,
    ) {
        // Markers of other generators (a kind's resource markers, the CSV's descriptors) stand
        // on the same nodes.
        let mut sorted: Vec<(&Marker, &SchemaMarker)> = ms
            .iter()
            .filter_map(|m| match &m.typed {
                Typed::Schema(schema_marker) => Some((m, schema_marker)),
                _ => None,
            })
            .collect();
        sorted.sort_by_key(|(m, schema_marker)| (m.def.items, schema_marker.priority()));
        for (m, schema_marker) in sorted {
            if let SchemaMarker::Default(crate::markers::Value::Ref(name)) = schema_marker {
                diags.push(
                    Diagnostic::warning(format!(
                        "`+{}=ref({name})` is ignored: a default must be a value (controller-gen ignores it too)",
                        m.name()
                    ))
                    .at(self.model.files[file].location(m.line, m.column, m.text.chars().count()))
                    .help("write the value itself, e.g. +default=\"...\""),
                );
                continue;
            }
            let target = if m.def.items {
                match schema.get_mut("items") {
                    Some(Value::Object(items)) => items,
                    _ => {
                        diags.push(self.marker_error(
                            file,
                            m,
                            format!(
                                "`{}` applies to the items of a list, and this is not a list",
                                m.name()
                            ),
                        ));
                        continue;
                    }
                }
            } else {
                &mut *schema
            };
            let node_type = target
                .get("type")
                .and_then(Value::as_str)
                .map(str::to_owned);
            if let Err(msg) = schema_marker.apply_to(target, node_type.as_deref(), m.name()) {
                diags.push(self.marker_error(file, m, msg));
            } else if matches!(schema_marker, SchemaMarker::XValidation(_))
                && let Some(Value::Array(rules)) = target.get_mut("x-kubernetes-validations")
                && let Some(Value::Object(rule)) = rules.last_mut()
            {
                // Where the rule came from, for the CEL check's errors; removed before writing.
                rule.insert(
                    super::cel::ORIGIN_KEY.into(),
                    json!([file, m.line, m.column, m.text.chars().count()]),
                );
            }
        }
        // Bounds that no value can satisfy: the API server accepts such a CRD, then refuses
        // every object.
        let nodes = [
            Some(&*schema),
            schema.get("items").and_then(Value::as_object),
        ];
        for (node, items) in nodes.into_iter().zip([false, true]) {
            let Some(node) = node else { continue };
            for (lower, upper, message) in markers::unsatisfiable_bounds(node) {
                let marker = ms
                    .iter()
                    .filter(|m| m.def.items == items)
                    .find(|m| m.name().ends_with(upper))
                    .or_else(|| ms.iter().find(|m| m.name().ends_with(lower)));
                if let Some(marker) = marker {
                    diags.push(self.marker_error(file, marker, message));
                }
            }
        }
    }

    fn object(&mut self, fields: &[Field], package: &[String], diags: &mut Diagnostics) -> Schema {
        let (mut s, flattened_rules) = self.object_parts(fields, package, diags);
        for rule in flattened_rules {
            push_rule(&mut s, rule);
        }
        s
    }

    /// A struct's object schema, and apart the CEL rules of its flattened fields' types (they
    /// follow the struct's own type rules).
    fn object_parts(
        &mut self,
        fields: &[Field],
        package: &[String],
        diags: &mut Diagnostics,
    ) -> (Schema, Vec<Value>) {
        let mut props = Map::new();
        let mut required: Vec<String> = Vec::new();
        let mut preserve = false;
        let mut parent_rules: Vec<Value> = Vec::new();
        let mut flattened_rules: Vec<Value> = Vec::new();
        let mut flattened_props = Map::new();
        for f in fields {
            if f.flatten {
                self.flatten_into(
                    f,
                    &mut flattened_props,
                    &mut required,
                    &mut preserve,
                    &mut flattened_rules,
                    diags,
                );
                continue;
            }
            let (schema, is_required) = self.field(f, package, diags);
            if is_required {
                required.push(f.json_name.clone());
            } else if f
                .markers
                .iter()
                .any(|m| m.on_node() == Some(&SchemaMarker::Immutable))
            {
                let j = &f.json_name;
                parent_rules.push(json!({
                    "message": format!("field {j} is immutable once set"),
                    "rule": format!("!has(oldSelf.{j}) || has(self.{j})"),
                }));
            }
            props.insert(f.json_name.clone(), Value::Object(schema));
        }
        // A property both a field and a flattened type declare: controller-gen's flattener
        // merges the field's schema into the embedded type's.
        for (k, v) in flattened_props {
            let merged = match (props.remove(&k), v) {
                (Some(Value::Object(own)), Value::Object(embedded)) => {
                    Value::Object(merge_embedded(embedded, own))
                }
                (_, v) => v,
            };
            props.insert(k, merged);
        }
        let mut s = obj(json!({"type": "object"}));
        if !props.is_empty() {
            s.insert("properties".into(), Value::Object(props));
        }
        required.sort();
        required.dedup();
        if !required.is_empty() {
            s.insert("required".into(), json!(required));
        }
        if preserve {
            s.insert("x-kubernetes-preserve-unknown-fields".into(), json!(true));
        }
        for rule in parent_rules {
            push_rule(&mut s, rule);
        }
        (s, flattened_rules)
    }

    fn flatten_into(
        &mut self,
        f: &Field,
        props: &mut Map<String, Value>,
        required: &mut Vec<String>,
        preserve: &mut bool,
        rules: &mut Vec<Value>,
        diags: &mut Diagnostics,
    ) {
        let optional = self.model.is_option(&f.ty) || f.has_default;
        let inner = match &f.ty {
            Ty::Option(t) => &**t,
            t => t,
        };
        let schema = match inner {
            Ty::JsonObject => {
                *preserve = true;
                return;
            }
            Ty::Map(v) if **v == Ty::Json => {
                *preserve = true;
                return;
            }
            Ty::Map(_) => {
                diags.push(self.error(f.loc, format!(
                    "`{}` flattens a map into an object with fields; a structural CRD schema cannot have both properties and additionalProperties",
                    f.rust_name
                )).help("use a map of serde_json::Value (the object then keeps unknown fields), or a named field"));
                return;
            }
            t => self.ty(t, f.loc, diags),
        };
        if schema.get("x-kubernetes-preserve-unknown-fields") == Some(&json!(true)) {
            *preserve = true;
        }
        if let Some(Value::Object(p)) = schema.get("properties") {
            for (k, v) in p {
                props.insert(k.clone(), v.clone());
            }
        } else {
            diags.push(self.error(
                f.loc,
                format!(
                    "`{}` is flattened but its type is not a struct",
                    f.rust_name
                ),
            ));
        }
        if !optional && let Some(Value::Array(r)) = schema.get("required") {
            required.extend(r.iter().filter_map(|v| v.as_str().map(str::to_owned)));
        }
        // The flattened type's own CEL rules hold for the object it is flattened into, as
        // controller-gen merges an embedded struct's schema (allOf) into its parent's.
        if let Some(Value::Array(r)) = schema.get("x-kubernetes-validations") {
            rules.extend(r.iter().cloned());
        }
    }

    /// A field's schema (its type merged with its own doc and markers) and whether it is required.
    pub fn field(
        &mut self,
        f: &Field,
        package: &[String],
        diags: &mut Diagnostics,
    ) -> (Schema, bool) {
        let file = f.loc.file;
        let has = |wanted: fn(&SchemaMarker) -> bool| {
            f.markers.iter().find(|m| m.on_node().is_some_and(wanted))
        };
        let schemaless = has(|m| *m == SchemaMarker::Schemaless).is_some();
        if f.custom_with && !schemaless && has(|m| matches!(m, SchemaMarker::Type(_))).is_none() {
            diags.push(self.error(f.loc, format!(
                "`{}` has a hand-written serde (de)serializer, so its type does not tell the wire format",
                f.rust_name
            )).help("add +kubebuilder:validation:Type=<type> (and other markers) or +kubebuilder:validation:Schemaless to describe it"));
        }
        let is_option = self.model.is_option(&f.ty);
        let mut type_schema = if schemaless {
            Schema::new()
        } else if let Some(base) = Self::unresolved_base(&f.ty, &f.markers) {
            base
        } else {
            self.ty(&f.ty, f.loc, diags)
        };
        format_marker_on_number(f, &mut type_schema);

        // The field's own contribution: its doc and markers, checked against its type.
        let mut own = Schema::new();
        if let Some(t) = type_schema.get("type") {
            own.insert("type".into(), t.clone());
        }
        if type_schema.get("x-kubernetes-int-or-string") == Some(&json!(true)) {
            own.insert("x-kubernetes-int-or-string".into(), json!(true));
        }
        if let Some(items) = type_schema.get("items") {
            own.insert("items".into(), items.clone());
        }
        if let Some(lt) = type_schema.get("x-kubernetes-list-type") {
            own.insert("x-kubernetes-list-type".into(), lt.clone());
        }
        if let Some(e) = type_schema.get("enum") {
            own.insert("enum".into(), e.clone());
        }
        let baseline = own.clone();
        self.apply_markers(&mut own, &f.markers, file, diags);
        // Keys the markers did not touch come from the type alone.
        strip_untouched(&mut own, &baseline);
        if is_option && !f.skip_serializing_if {
            own.insert("nullable".into(), json!(true));
        }
        if !f.doc.is_empty() {
            own.insert("description".into(), json!(f.doc));
        }
        unsigned_minimum_from_marker(f, &mut type_schema, &own);
        let merged = match merge(type_schema, own) {
            Ok(m) => m,
            Err(msg) => {
                diags.push(self.error(f.loc, format!("`{}`: {msg}", f.rust_name)));
                Schema::new()
            }
        };
        self.check_values(&merged, &f.markers, file, diags);

        // Required: markers first, then the package default, then what serde needs.
        let optional_marker = has(|m| *m == SchemaMarker::Optional);
        let required_marker =
            has(|m| matches!(m, SchemaMarker::Required | SchemaMarker::K8sRequired));
        let serde_needs_it = (!is_option || f.deserialize_with) && !f.has_default;
        let required = if let Some(m) = optional_marker {
            if required_marker.is_some() {
                diags.push(self.marker_error(
                    file,
                    m,
                    format!("`{}` is marked both optional and required", f.rust_name),
                ));
            }
            if serde_needs_it {
                diags.push(
                    Diagnostic::warning(format!(
                        "`{}` is optional in the schema, but serde cannot deserialize the object without it",
                        f.rust_name
                    ))
                    .at(self.model.files[file].location(m.line, m.column, m.text.chars().count()))
                    .help("add #[serde(default)] to the field, or make it an Option"),
                );
            }
            false
        } else if let Some(m) = required_marker {
            if is_option && !f.deserialize_with {
                diags.push(self.marker_error(file, m, format!(
                    "`{}` is marked required, but its type is an Option, which serde accepts missing",
                    f.rust_name
                )).help("remove the marker, or make the field a plain (non-Option) type"));
            }
            true
        } else if self.model.package_optional(package) {
            false
        } else {
            serde_needs_it
        };
        (merged, required)
    }

    fn data_enum(
        &mut self,
        name: &str,
        loc: SrcLoc,
        repr: &EnumRepr,
        variants: &[Variant],
        diags: &mut Diagnostics,
    ) -> Schema {
        let unsupported = |b: &Self, v: &Variant, what: &str| {
            b.error(
                v.loc,
                format!("variant `{}` of `{name}` {what}", v.rust_name),
            )
        };
        match repr {
            EnumRepr::External => {
                if let Some(v) = variants
                    .iter()
                    .find(|v| matches!(v.content, VariantContent::Unit))
                {
                    diags.push(unsupported(self, v, "is a unit variant among data variants: serde writes it as a string and the others as objects, which one structural schema cannot describe").help("give it an empty struct body (`V {}`), or use #[serde(tag = \"...\")]"));
                    return Schema::new();
                }
                let mut props = Map::new();
                let mut one_of = Vec::new();
                for v in variants {
                    let mut s = self.variant_content(name, v, diags);
                    if !v.doc.is_empty() {
                        s.insert("description".into(), json!(v.doc));
                    }
                    props.insert(v.json_name.clone(), Value::Object(s));
                    one_of.push(json!({"required": [v.json_name]}));
                }
                let mut s = obj(json!({"type": "object"}));
                s.insert("properties".into(), Value::Object(props));
                s.insert("oneOf".into(), Value::Array(one_of));
                s
            }
            EnumRepr::Internal { tag } => self.tagged_union(name, tag, None, variants, diags),
            EnumRepr::Adjacent { tag, content } => {
                self.tagged_union(name, tag, Some(content), variants, diags)
            }
            EnumRepr::Untagged => self.untagged(name, loc, variants, diags),
        }
    }

    fn variant_content(&mut self, name: &str, v: &Variant, diags: &mut Diagnostics) -> Schema {
        match &v.content {
            VariantContent::Unit => obj(json!({"type": "object"})),
            VariantContent::Newtype(t) => self.ty(t, v.loc, diags),
            VariantContent::Struct(fields) => self.object(fields, &[], diags),
            VariantContent::Tuple(_) => {
                diags.push(self.error(v.loc, format!(
                    "variant `{}` of `{name}` is a tuple of several values, which serde writes as a mixed JSON array",
                    v.rust_name
                )).help("use a struct variant"));
                Schema::new()
            }
        }
    }

    /// Internally (`tag`) or adjacently (`tag` + `content`) tagged enums: one object whose
    /// tag is an enum, the union of the variants' fields, and CEL rules requiring each
    /// variant's fields when its tag is set (kube-derive panics on these).
    fn tagged_union(
        &mut self,
        name: &str,
        tag: &str,
        content: Option<&str>,
        variants: &[Variant],
        diags: &mut Diagnostics,
    ) -> Schema {
        let mut props: Map<String, Value> = Map::new();
        let mut rules = Vec::new();
        let mut owners: Map<String, Value> = Map::new();
        for v in variants {
            let s = self.variant_content(name, v, diags);
            if let VariantContent::Newtype(_) = v.content
                && content.is_none()
                && s.get("type").and_then(Value::as_str) != Some("object")
            {
                diags.push(self.error(v.loc, format!(
                    "variant `{}` of internally tagged `{name}` wraps a non-object type, which serde cannot tag",
                    v.rust_name
                )));
                continue;
            }
            if let Some(Value::Object(p)) = s.get("properties") {
                for (k, schema) in p {
                    match props.get(k) {
                        Some(existing) if strip_desc(existing) != strip_desc(schema) => {
                            diags.push(self.error(v.loc, format!(
                                "variants of `{name}` define the field `{k}` with different types ({} and {}); one structural schema cannot hold both",
                                owners[k].as_str().unwrap_or("?"),
                                v.rust_name
                            )));
                        }
                        Some(_) => {}
                        None => {
                            props.insert(k.clone(), schema.clone());
                            owners.insert(k.clone(), json!(v.rust_name));
                        }
                    }
                }
            }
            if let Some(Value::Array(req)) = s.get("required") {
                for r in req.iter().filter_map(Value::as_str) {
                    rules.push(json!({
                        "message": format!("{r} is required when {tag} is {}", v.json_name),
                        "rule": format!("self.{tag} != '{}' || has(self.{r})", v.json_name),
                    }));
                }
            }
        }
        let tags: Vec<Value> = variants.iter().map(|v| json!(v.json_name)).collect();
        let tag_schema = json!({"type": "string", "enum": tags});
        let mut s = obj(json!({"type": "object"}));
        match content {
            None => {
                props.insert(tag.to_owned(), tag_schema);
                s.insert("properties".into(), Value::Object(props));
                s.insert("required".into(), json!([tag]));
            }
            Some(content) => {
                let mut inner = obj(json!({"type": "object"}));
                if !props.is_empty() {
                    inner.insert("properties".into(), Value::Object(props));
                }
                let mut outer = Map::new();
                outer.insert(content.to_owned(), Value::Object(inner));
                outer.insert(tag.to_owned(), tag_schema);
                s.insert("properties".into(), Value::Object(outer));
                s.insert("required".into(), json!([tag]));
                for r in &mut rules {
                    if let Some(Value::String(rule)) = r.get_mut("rule") {
                        *rule = rule.replace("has(self.", &format!("has(self.{content}."));
                    }
                }
            }
        }
        for r in rules {
            push_rule(&mut s, r);
        }
        s
    }

    fn untagged(
        &mut self,
        name: &str,
        loc: SrcLoc,
        variants: &[Variant],
        diags: &mut Diagnostics,
    ) -> Schema {
        let schemas: Vec<(Schema, &Variant)> = variants
            .iter()
            .map(|v| (self.variant_content(name, v, diags), v))
            .collect();
        let types: Vec<Option<&str>> = schemas
            .iter()
            .map(|(s, _)| s.get("type").and_then(Value::as_str))
            .collect();
        if types.iter().all(|t| *t == Some("object")) {
            let mut props = Map::new();
            let mut any_of = Vec::new();
            for (s, _) in &schemas {
                if let Some(Value::Object(p)) = s.get("properties") {
                    for (k, v) in p {
                        props.entry(k.clone()).or_insert_with(|| v.clone());
                    }
                }
                let req = s.get("required").cloned().unwrap_or_else(|| json!([]));
                any_of.push(json!({"required": req}));
            }
            let mut s = obj(json!({"type": "object"}));
            s.insert("properties".into(), Value::Object(props));
            if any_of.iter().all(|a| a["required"] != json!([])) {
                s.insert("anyOf".into(), Value::Array(any_of));
            }
            return s;
        }
        let mut kinds: Vec<&str> = types.iter().flatten().copied().collect();
        kinds.sort_unstable();
        kinds.dedup();
        match kinds.as_slice() {
            [single] if types.iter().all(Option::is_some) => obj(json!({"type": single})),
            ["integer", "string"] => obj(
                json!({"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": true}),
            ),
            _ => {
                diags.push(self.error(loc, format!(
                    "untagged enum `{name}` mixes JSON types ({}); a structural CRD schema can only do that with int-or-string",
                    kinds.join(", ")
                )).help("use a tagged enum, or mark the field +kubebuilder:validation:Schemaless with +kubebuilder:pruning:PreserveUnknownFields"));
                Schema::new()
            }
        }
    }
}

/// Removes from a field's own schema what it copied from its type's schema (for the markers'
/// checks) and the markers left unchanged, down into `items` (which `items:` markers edit), so
/// that merging it back into the type's schema sees only what the field adds.
fn strip_untouched(own: &mut Schema, baseline: &Schema) {
    for (k, v) in baseline {
        match (own.get_mut(k), v) {
            (Some(o), _) if o == v => {
                own.remove(k);
            }
            (Some(Value::Object(o)), Value::Object(b)) if k == "items" => {
                strip_untouched(o, b);
            }
            _ => {}
        }
    }
}

/// `src` merged into `dst` as controller-gen's `flattenAllOfInto` merges the schema of a
/// struct's own property into the same property of a struct it embeds: `dst`'s documentation
/// stays, `src`'s enum fills an empty one, properties merge, required lists join, `src`'s CEL
/// rules come first, `src`'s list and map keys win, and `dst` keeps anything else both set.
fn merge_embedded(mut dst: Schema, src: Schema) -> Schema {
    for (k, sv) in src {
        match k.as_str() {
            "description" | "title" | "example" | "externalDocs" => continue,
            "enum" => {
                dst.entry(k).or_insert(sv);
                continue;
            }
            _ => {}
        }
        let Some(dv) = dst.get_mut(&k) else {
            dst.insert(k, sv);
            continue;
        };
        if *dv == sv {
            continue;
        }
        match k.as_str() {
            "properties" | "additionalProperties" => {
                if let (Value::Object(d), Value::Object(s)) = (&mut *dv, sv) {
                    if k == "additionalProperties" {
                        let merged = merge_embedded(std::mem::take(d), s);
                        *d = merged;
                    } else {
                        for (pk, pv) in s {
                            let merged = match (d.remove(&pk), pv) {
                                (Some(Value::Object(a)), Value::Object(b)) => {
                                    Value::Object(merge_embedded(a, b))
                                }
                                (_, pv) => pv,
                            };
                            d.insert(pk, merged);
                        }
                    }
                }
            }
            "required" => {
                if let (Value::Array(d), Value::Array(s)) = (&mut *dv, sv) {
                    d.extend(s);
                    d.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
                    d.dedup();
                }
            }
            "x-kubernetes-validations" => {
                if let (Value::Array(d), Value::Array(mut s)) = (&mut *dv, sv) {
                    s.append(d);
                    *d = s;
                }
            }
            "x-kubernetes-preserve-unknown-fields"
            | "x-kubernetes-map-type"
            | "x-kubernetes-list-type"
            | "x-kubernetes-list-map-keys" => *dv = sv,
            _ => {}
        }
    }
    dst
}

fn strip_desc(v: &Value) -> Value {
    let mut v = v.clone();
    if let Value::Object(m) = &mut v {
        m.remove("description");
    }
    v
}

/// Merges a field's own schema into its type's (controller-gen spec §4.8): documentation
/// keys from the field win; other keys set on both sides are kept in an allOf, so both
/// constraints hold.
pub fn merge(mut base: Schema, field: Schema) -> Result<Schema, String> {
    let mut hoisted_type = Map::new();
    let mut hoisted_field = Map::new();
    for (k, fv) in field {
        match k.as_str() {
            "description"
            | "title"
            | "example"
            | "externalDocs"
            | "x-kubernetes-preserve-unknown-fields"
            | "x-kubernetes-map-type"
            | "nullable"
            | "x-kubernetes-list-type"
            | "x-kubernetes-list-map-keys" => {
                base.insert(k, fv);
            }
            "enum" => {
                base.entry(k).or_insert(fv);
            }
            "x-kubernetes-validations" => {
                let mut rules = fv.as_array().cloned().unwrap_or_default();
                if let Some(Value::Array(existing)) = base.get("x-kubernetes-validations") {
                    rules.extend(existing.iter().cloned());
                }
                base.insert(k, Value::Array(rules));
            }
            "type" => match base.get("type") {
                Some(t) if *t != fv => {
                    return Err(format!(
                        "conflicting types: the type says {t}, the field's markers say {fv}"
                    ));
                }
                _ => {
                    base.insert(k, fv);
                }
            },
            "properties" => {
                let mut props = base
                    .get("properties")
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default();
                for (pk, pv) in fv.as_object().cloned().unwrap_or_default() {
                    let merged = match props.remove(&pk) {
                        Some(Value::Object(b)) => {
                            Value::Object(merge(b, pv.as_object().cloned().unwrap_or_default())?)
                        }
                        _ => pv,
                    };
                    props.insert(pk, merged);
                }
                base.insert(k, Value::Object(props));
            }
            "required" => {
                let mut req: Vec<Value> = base
                    .get("required")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                req.extend(fv.as_array().cloned().unwrap_or_default());
                let mut names: Vec<String> = req
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect();
                names.sort();
                names.dedup();
                base.insert(k, json!(names));
            }
            "items" | "additionalProperties"
                if base.get(&k).is_some_and(Value::is_object) && fv.is_object() =>
            {
                let b = base
                    .remove(&k)
                    .and_then(|v| v.as_object().cloned())
                    .unwrap_or_default();
                let merged = merge(b, fv.as_object().cloned().unwrap_or_default())?;
                base.insert(k, Value::Object(merged));
            }
            "x-kubernetes-int-or-string" | "x-kubernetes-embedded-resource" => {
                base.insert(k, fv);
            }
            _ => match base.get(&k) {
                None => {
                    base.insert(k, fv);
                }
                Some(bv)
                    if *bv == fv
                        && matches!(
                            k.as_str(),
                            "format" | "pattern" | "minProperties" | "maxProperties"
                        ) => {}
                Some(_) => {
                    let bv = base.remove(&k).expect("present");
                    hoisted_type.insert(k.clone(), bv);
                    hoisted_field.insert(k, fv);
                }
            },
        }
    }
    if !hoisted_field.is_empty() {
        let mut all_of = base
            .get("allOf")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        all_of.push(Value::Object(hoisted_type));
        all_of.push(Value::Object(hoisted_field));
        base.insert("allOf".into(), Value::Array(all_of));
    }
    Ok(base)
}

/// controller-gen's `+kubebuilder:validation:Format` on a Go number (inline, not a reference)
/// replaces its format: `Format=""` empties it, which its JSON then omits (the spelling of Go's
/// `float64`/`float32` on Rust's `f64`/`f32`), `Format=int32` on an `i64` is Go's `uint32`. The
/// format comes from the field's type here, so it is removed there and the marker's own stands
/// (not an `allOf` of both); `items:Format` does the same for the numbers of a list.
/// An unsigned Rust integer gets `minimum: 0` from its type (serde refuses negatives), which
/// Go's unsigned types do not write. A field marker's minimum of 0 or more implies it, so the
/// marker's stands alone, as controller-gen writes it on Go's `uint32` (not an `allOf` of two).
fn unsigned_minimum_from_marker(f: &Field, type_schema: &mut Schema, own: &Schema) {
    let mut ty = &f.ty;
    while let Ty::Option(inner) = ty {
        ty = inner;
    }
    if matches!(ty, Ty::Integer { signed: false, .. })
        && type_schema.get("minimum") == Some(&json!(0))
        && own
            .get("minimum")
            .and_then(Value::as_f64)
            .is_some_and(|m| m >= 0.0)
    {
        type_schema.remove("minimum");
    }
}

fn format_marker_on_number(f: &Field, type_schema: &mut Schema) {
    fn number(ty: &Ty) -> Option<&Ty> {
        match ty {
            Ty::Option(inner) => number(inner),
            Ty::Float { .. } | Ty::Integer { .. } => Some(ty),
            _ => None,
        }
    }
    let is_format = |m: Option<&SchemaMarker>| matches!(m, Some(SchemaMarker::Format(_)));
    if f.markers.iter().any(|m| is_format(m.on_node())) && number(&f.ty).is_some() {
        type_schema.remove("format");
    }
    let mut list = &f.ty;
    while let Ty::Option(inner) = list {
        list = inner;
    }
    if let Ty::List { item, .. } = list
        && number(item).is_some()
        && f.markers.iter().any(|m| is_format(m.on_items()))
        && let Some(Value::Object(items)) = type_schema.get_mut("items")
    {
        items.remove("format");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_hoists_constraints_set_on_both_sides() {
        let ty = obj(
            json!({"type": "string", "minLength": 1, "maxLength": 255, "description": "type doc"}),
        );
        let field = obj(json!({"type": "string", "minLength": 10, "maxLength": 10}));
        let m = merge(ty, field).unwrap();
        assert_eq!(
            Value::Object(m),
            json!({"type": "string", "description": "type doc", "allOf": [{"maxLength": 255, "minLength": 1}, {"maxLength": 10, "minLength": 10}]})
        );
    }

    #[test]
    fn merge_prefers_field_docs_and_orders_rules() {
        let ty = obj(
            json!({"type": "object", "description": "t", "x-kubernetes-validations": [{"rule": "a"}]}),
        );
        let field = obj(json!({"description": "f", "x-kubernetes-validations": [{"rule": "b"}]}));
        let m = merge(ty, field).unwrap();
        assert_eq!(m["description"], json!("f"));
        assert_eq!(
            m["x-kubernetes-validations"],
            json!([{"rule": "b"}, {"rule": "a"}])
        );
    }

    #[test]
    fn merge_rejects_conflicting_types() {
        let err = merge(
            obj(json!({"type": "string"})),
            obj(json!({"type": "object"})),
        )
        .unwrap_err();
        assert!(err.contains("conflicting types"));
    }
}
