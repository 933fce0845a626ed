//! Rust types (from the model) to OpenAPI v3 schemas.
//!
//! Principle: the schema accepts everything the Rust type can serialize and requires
//! exactly what serde needs to deserialize. Where controller-gen's rules are sane
//! (markers, merge of a field with its type, descriptions) they are followed.

use super::k8s::K8sTypes;
use super::markers;
use super::props::{SchemaProps, ValidationRule};
use super::values;
use crate::diag::{Diagnostic, Diagnostics};
use crate::markers::Marker;
use crate::markers::typed::{SchemaMarker, Typed};
use crate::model::{
    EnumRepr, Field, Model, Shape, SrcLoc, Ty, TypeId, Variant, VariantContent, WellKnown,
};
use serde_json::{Number, Value, json};
use std::collections::BTreeMap;

/// The node the builder writes ([`SchemaProps`]); it becomes JSON in `CrdGenerator`.
pub type Schema = SchemaProps;

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

/// `{type: array, items: items}`.
fn list_of(items: Schema) -> Schema {
    Schema {
        items: Some(Box::new(items)),
        ..Schema::of_type("array")
    }
}

/// `{type: object, properties: ...}`.
fn object_with(properties: BTreeMap<String, Schema>) -> Schema {
    Schema {
        properties: Some(properties),
        ..Schema::of_type("object")
    }
}

/// An `anyOf`/`oneOf` branch that only requires `names`.
fn requiring(names: Vec<String>) -> Schema {
    Schema {
        required: Some(names),
        ..Schema::default()
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
            Ty::Bool => Schema::of_type("boolean"),
            Ty::String => Schema::of_type("string"),
            Ty::Integer { bits, signed } => Schema {
                format: match bits {
                    32 => Some("int32".to_owned()),
                    64 => Some("int64".to_owned()),
                    // `isize`/`usize` (bits 0) are Go's `int`/`uint`, as wide as a pointer in
                    // both languages, which controller-gen writes without a format.
                    _ => None,
                },
                minimum: (!signed).then(|| Number::from(0)),
                ..Schema::of_type("integer")
            },
            Ty::Float { bits } => {
                Schema::with_format("number", if *bits == 32 { "float" } else { "double" })
            }
            Ty::Bytes { .. } => Schema::with_format("string", "byte"),
            Ty::Option(inner) => self.ty(inner, loc, diags),
            Ty::List { item, set } => {
                let mut s = list_of(self.ty(item, loc, diags));
                let scalar = matches!(
                    **item,
                    Ty::String | Ty::Integer { .. } | Ty::Bool | Ty::Float { .. }
                );
                if *set && scalar {
                    s.list_type = Some("set".to_owned());
                }
                s
            }
            Ty::Map(value) => Schema {
                additional_properties: Some(Box::new(self.ty(value, loc, diags))),
                ..Schema::of_type("object")
            },
            Ty::Json => Schema {
                preserve_unknown_fields: Some(true),
                ..Schema::default()
            },
            Ty::JsonObject => Schema::any_object(),
            Ty::Unit => {
                diags.push(self.error(
                    loc,
                    "a unit type `()` serializes as null, which a CRD schema cannot describe",
                ));
                Schema::default()
            }
            Ty::K8s(path) => match self.k8s.props(path) {
                Some(s) => s,
                None => {
                    diags.push(self.error(loc, format!("unknown k8s-openapi type `k8s_openapi::{path}`")).help(
                        "opgen knows the types of k8s-openapi's api and apimachinery modules; check the path",
                    ));
                    Schema::default()
                }
            },
            Ty::Named(id) => self.named(*id, diags),
            // The markers that let it through unresolved describe it (`unresolved_base`).
            Ty::Foreign { known: None, .. } => Schema::default(),
            Ty::Foreign {
                known: Some(known), ..
            } => self.well_known(*known, loc, diags),
        }
    }

    /// The schema of what serde_json writes for a well-known foreign type (README: "Types of
    /// other crates", where each form was checked against the real crate).
    fn well_known(&mut self, known: WellKnown, loc: SrcLoc, diags: &mut Diagnostics) -> Schema {
        let string = |format: &str| Schema::with_format("string", format);
        match known {
            WellKnown::Timestamp => string("date-time"),
            WellKnown::Date => string("date"),
            // No offset, so not RFC 3339's date-time; no OpenAPI format fits the others.
            WellKnown::LocalDateTime
            | WellKnown::TimeOfDay
            | WellKnown::TimestampText
            | WellKnown::DurationText
            | WellKnown::IpAddr
            | WellKnown::SocketAddr => Schema::of_type("string"),
            WellKnown::Uuid => string("uuid"),
            WellKnown::Url => string("uri"),
            WellKnown::Ipv4Addr => string("ipv4"),
            WellKnown::Ipv6Addr => string("ipv6"),
            WellKnown::UnixTime => Schema::with_format("integer", "int64"),
            WellKnown::ByteArray => list_of(Schema {
                minimum: Some(Number::from(0)),
                maximum: Some(Number::from(255)),
                ..Schema::of_type("integer")
            }),
            WellKnown::NonZero { bits, signed } => {
                let mut s = self.ty(&Ty::Integer { bits, signed }, loc, diags);
                if signed {
                    s.push_rule(ValidationRule::new("self != 0", "must not be 0"));
                } else {
                    s.minimum = Some(Number::from(1));
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
            Some(Schema::any_object())
        } else {
            Some(Schema::default())
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
            return Schema::default();
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
            Shape::UnitEnum(variants) => Schema {
                enum_values: Some(variants.iter().map(|v| json!(v.json_name)).collect()),
                ..Schema::of_type("string")
            },
            Shape::DataEnum { repr, variants } => {
                self.data_enum(&def.name, def.loc, repr, variants, diags)
            }
            // Only the markers describe these, and they have no description (spec §4.4).
            Shape::Opaque => Schema::default(),
            Shape::DisplayString => Schema::of_type("string"),
            Shape::Invalid => Schema::default(),
        };
        self.stack.pop();
        let own_doc = !matches!(def.shape, Shape::Opaque | Shape::DisplayString);
        if own_doc && !def.doc.is_empty() {
            schema.description = Some(def.doc.clone());
        }
        self.apply_markers(&mut schema, &def.markers, def.loc.file, diags);
        // The CEL rules of flattened types follow the type's own, as controller-gen's
        // flattener merges an embedded struct's allOf branch into its parent after the
        // parent's own rules.
        for rule in flattened_rules {
            schema.push_rule(rule);
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
                schema.items.as_deref()
            } else {
                Some(schema)
            };
            let Some(node) = node else { continue };
            let Some(v) = (if is_default {
                &node.default
            } else {
                &node.example
            }) else {
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
            // The checks read any schema, opgen's or not, as JSON.
            let node = &node.to_map();
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
        let props = schema.properties.as_ref();
        let required = schema.required.as_deref().unwrap_or_default();
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
                } else if required.contains(name) {
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
                match schema.items.as_deref_mut() {
                    Some(items) => items,
                    None => {
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
            let node_type = target.ty.clone();
            if let Err(msg) = schema_marker.apply_to(target, node_type.as_deref(), m.name()) {
                diags.push(self.marker_error(file, m, msg));
            } else if matches!(schema_marker, SchemaMarker::XValidation(_))
                && let Some(rule) = target.validations.as_mut().and_then(|r| r.last_mut())
            {
                // Where the rule came from, for the CEL check's errors; removed before writing.
                rule.origin = Some([file, m.line, m.column, m.text.chars().count()]);
            }
        }
        // Bounds that no value can satisfy: the API server accepts such a CRD, then refuses
        // every object.
        let nodes = [Some(&*schema), schema.items.as_deref()];
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
            s.push_rule(rule);
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
    ) -> (Schema, Vec<ValidationRule>) {
        let mut props = BTreeMap::new();
        let mut required: Vec<String> = Vec::new();
        let mut preserve = false;
        let mut parent_rules = Vec::new();
        let mut flattened = Flattened::default();
        for f in fields {
            if f.flatten {
                self.flatten_into(f, &mut flattened, &mut required, &mut preserve, diags);
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
                parent_rules.push(ValidationRule::new(
                    format!("!has(oldSelf.{j}) || has(self.{j})"),
                    format!("field {j} is immutable once set"),
                ));
            }
            props.insert(f.json_name.clone(), schema);
        }
        // A property both a field and a flattened type declare: controller-gen's flattener
        // merges the field's schema into the embedded type's.
        for (k, embedded) in flattened.props {
            let merged = match props.remove(&k) {
                Some(own) => merge_embedded(embedded, own),
                None => embedded,
            };
            props.insert(k, merged);
        }
        let mut s = Schema::of_type("object");
        if !props.is_empty() {
            s.properties = Some(props);
        }
        required.sort();
        required.dedup();
        if !required.is_empty() {
            s.required = Some(required);
        }
        if preserve {
            s.preserve_unknown_fields = Some(true);
        }
        for rule in parent_rules {
            s.push_rule(rule);
        }
        (s, flattened.rules)
    }

    fn flatten_into(
        &mut self,
        f: &Field,
        into: &mut Flattened,
        required: &mut Vec<String>,
        preserve: &mut bool,
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
        if schema.preserves_unknown_fields() {
            *preserve = true;
        }
        match schema.properties {
            Some(p) => into.props.extend(p),
            None => diags.push(self.error(
                f.loc,
                format!(
                    "`{}` is flattened but its type is not a struct",
                    f.rust_name
                ),
            )),
        }
        if !optional && let Some(r) = schema.required {
            required.extend(r);
        }
        // The flattened type's own CEL rules hold for the object it is flattened into, as
        // controller-gen merges an embedded struct's schema (allOf) into its parent's.
        if let Some(r) = schema.validations {
            into.rules.extend(r);
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
            Schema::default()
        } else if let Some(base) = Self::unresolved_base(&f.ty, &f.markers) {
            base
        } else {
            self.ty(&f.ty, f.loc, diags)
        };
        format_marker_on_number(f, &mut type_schema);

        // The field's own contribution: its doc and markers, checked against its type. Only
        // `items:` markers look at the items (a copy of a list of Kubernetes types is large).
        let items_markers = f.markers.iter().any(|m| m.on_items().is_some());
        let mut own = Schema {
            ty: type_schema.ty.clone(),
            int_or_string: type_schema.is_int_or_string().then_some(true),
            items: type_schema
                .items
                .as_ref()
                .filter(|_| items_markers)
                .cloned(),
            list_type: type_schema.list_type.clone(),
            enum_values: type_schema.enum_values.clone(),
            ..Schema::default()
        };
        let baseline = own.clone();
        self.apply_markers(&mut own, &f.markers, file, diags);
        // Keys the markers did not touch come from the type alone.
        strip_untouched(&mut own, &baseline);
        if is_option && !f.skip_serializing_if {
            own.nullable = Some(true);
        }
        if !f.doc.is_empty() {
            own.description = Some(f.doc.clone());
        }
        unsigned_minimum_from_marker(f, &mut type_schema, &own);
        let merged = match merge(type_schema, own) {
            Ok(m) => m,
            Err(msg) => {
                diags.push(self.error(f.loc, format!("`{}`: {msg}", f.rust_name)));
                Schema::default()
            }
        };
        self.check_values(&merged, &f.markers, file, diags);

        // Required: markers first, then the package default, then what serde needs.
        let optional_marker = has(|m| *m == SchemaMarker::Optional);
        let required_marker =
            has(|m| matches!(m, SchemaMarker::Required | SchemaMarker::K8sRequired)).is_some();
        let serde_needs_it = (!is_option || f.deserialize_with) && !f.has_default;
        let required = if let Some(m) = optional_marker {
            if required_marker {
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
        } else if required_marker {
            // An Option too (Go's required pointer, which kube-api-linter's requiredfields asks
            // for where the zero value is valid): the API server makes it present.
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
                    return Schema::default();
                }
                let mut props = BTreeMap::new();
                let mut one_of = Vec::new();
                for v in variants {
                    let mut s = self.variant_content(name, v, diags);
                    if !v.doc.is_empty() {
                        s.description = Some(v.doc.clone());
                    }
                    props.insert(v.json_name.clone(), s);
                    one_of.push(requiring(vec![v.json_name.clone()]));
                }
                Schema {
                    one_of: Some(one_of),
                    ..object_with(props)
                }
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
            VariantContent::Unit => Schema::of_type("object"),
            VariantContent::Newtype(t) => self.ty(t, v.loc, diags),
            VariantContent::Struct(fields) => self.object(fields, &[], diags),
            VariantContent::Tuple(_) => {
                diags.push(self.error(v.loc, format!(
                    "variant `{}` of `{name}` is a tuple of several values, which serde writes as a mixed JSON array",
                    v.rust_name
                )).help("use a struct variant"));
                Schema::default()
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
        let mut props: BTreeMap<String, Schema> = BTreeMap::new();
        let mut rules = Vec::new();
        let mut owners: BTreeMap<String, &str> = BTreeMap::new();
        for v in variants {
            let s = self.variant_content(name, v, diags);
            if let VariantContent::Newtype(_) = v.content
                && content.is_none()
                && s.ty() != Some("object")
            {
                diags.push(self.error(v.loc, format!(
                    "variant `{}` of internally tagged `{name}` wraps a non-object type, which serde cannot tag",
                    v.rust_name
                )));
                continue;
            }
            for (k, schema) in s.properties.iter().flatten() {
                match props.get(k) {
                    Some(existing) if !same_but_description(existing, schema) => {
                        diags.push(self.error(v.loc, format!(
                            "variants of `{name}` define the field `{k}` with different types ({} and {}); one structural schema cannot hold both",
                            owners[k],
                            v.rust_name
                        )));
                    }
                    Some(_) => {}
                    None => {
                        props.insert(k.clone(), schema.clone());
                        owners.insert(k.clone(), &v.rust_name);
                    }
                }
            }
            for r in s.required.iter().flatten() {
                rules.push(ValidationRule::new(
                    format!("self.{tag} != '{}' || has(self.{r})", v.json_name),
                    format!("{r} is required when {tag} is {}", v.json_name),
                ));
            }
        }
        let tag_schema = Schema {
            enum_values: Some(variants.iter().map(|v| json!(v.json_name)).collect()),
            ..Schema::of_type("string")
        };
        let mut s = match content {
            None => {
                props.insert(tag.to_owned(), tag_schema);
                object_with(props)
            }
            Some(content) => {
                let mut inner = Schema::of_type("object");
                if !props.is_empty() {
                    inner.properties = Some(props);
                }
                for r in &mut rules {
                    r.rule = r.rule.replace("has(self.", &format!("has(self.{content}."));
                }
                object_with(BTreeMap::from([
                    (content.to_owned(), inner),
                    (tag.to_owned(), tag_schema),
                ]))
            }
        };
        s.required = Some(vec![tag.to_owned()]);
        for r in rules {
            s.push_rule(r);
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
        let schemas: Vec<Schema> = variants
            .iter()
            .map(|v| self.variant_content(name, v, diags))
            .collect();
        let types: Vec<Option<&str>> = schemas.iter().map(Schema::ty).collect();
        if types.iter().all(|t| *t == Some("object")) {
            let mut props = BTreeMap::new();
            let mut any_of = Vec::new();
            for s in &schemas {
                for (k, v) in s.properties.iter().flatten() {
                    props.entry(k.clone()).or_insert_with(|| v.clone());
                }
                any_of.push(requiring(s.required.clone().unwrap_or_default()));
            }
            let mut s = object_with(props);
            if any_of
                .iter()
                .all(|a| a.required.as_ref().is_some_and(|r| !r.is_empty()))
            {
                s.any_of = Some(any_of);
            }
            return s;
        }
        let mut kinds: Vec<&str> = types.iter().flatten().copied().collect();
        kinds.sort_unstable();
        kinds.dedup();
        match kinds.as_slice() {
            [single] if types.iter().all(Option::is_some) => Schema::of_type(single),
            ["integer", "string"] => Schema {
                any_of: Some(vec![Schema::of_type("integer"), Schema::of_type("string")]),
                int_or_string: Some(true),
                ..Schema::default()
            },
            _ => {
                diags.push(self.error(loc, format!(
                    "untagged enum `{name}` mixes JSON types ({}); a structural CRD schema can only do that with int-or-string",
                    kinds.join(", ")
                )).help("use a tagged enum, or mark the field +kubebuilder:validation:Schemaless with +kubebuilder:pruning:PreserveUnknownFields"));
                Schema::default()
            }
        }
    }
}

/// The properties of a struct's flattened fields, and their types' CEL rules.
#[derive(Default)]
struct Flattened {
    props: BTreeMap<String, Schema>,
    rules: Vec<ValidationRule>,
}

/// Sets `dst` to `v` when `v` is set.
fn overwrite<T>(dst: &mut Option<T>, v: Option<T>) {
    if v.is_some() {
        *dst = v;
    }
}

/// Sets `dst` to `v` when `dst` is not set.
fn fill<T>(dst: &mut Option<T>, v: Option<T>) {
    if dst.is_none() {
        *dst = v;
    }
}

/// `src` into `dst`: taken when `dst` is not set, kept out when equal, else `both(dst, src)`.
fn combine<T: PartialEq>(dst: &mut Option<T>, src: Option<T>, both: impl FnOnce(T, T) -> T) {
    let Some(s) = src else { return };
    *dst = Some(match dst.take() {
        None => s,
        Some(d) if d == s => d,
        Some(d) => both(d, s),
    });
}

/// `b`'s names added to `a`'s, sorted, without repeats.
fn union(a: Option<Vec<String>>, b: Vec<String>) -> Vec<String> {
    let mut names = a.unwrap_or_default();
    names.extend(b);
    names.sort();
    names.dedup();
    names
}

/// `first`'s rules, then `then`'s.
fn rules_in_order(
    first: Vec<ValidationRule>,
    then: Option<Vec<ValidationRule>>,
) -> Vec<ValidationRule> {
    let mut rules = first;
    rules.extend(then.unwrap_or_default());
    rules
}

/// Removes from a field's own schema what it copied from its type's schema (for the markers'
/// checks) and the markers left unchanged, down into `items` (which `items:` markers edit), so
/// that merging it back into the type's schema sees only what the field adds.
fn strip_untouched(own: &mut Schema, baseline: &Schema) {
    // Destructured whole, so that a key added to `SchemaProps` must be handled here.
    let Schema {
        ty,
        format,
        title,
        description,
        external_docs,
        default,
        example,
        enum_values,
        nullable,
        properties,
        required,
        additional_properties,
        items,
        all_of,
        any_of,
        one_of,
        not,
        minimum,
        maximum,
        exclusive_minimum,
        exclusive_maximum,
        multiple_of,
        min_length,
        max_length,
        pattern,
        min_items,
        max_items,
        unique_items,
        min_properties,
        max_properties,
        preserve_unknown_fields,
        embedded_resource,
        int_or_string,
        list_type,
        list_map_keys,
        map_type,
        validations,
    } = baseline;
    macro_rules! strip {
        ($($f:ident),*) => {$(
            if $f.is_some() && own.$f == *$f {
                own.$f = None;
            }
        )*};
    }
    strip!(
        ty,
        format,
        title,
        description,
        external_docs,
        default,
        example,
        enum_values,
        nullable,
        properties,
        required,
        additional_properties,
        all_of,
        any_of,
        one_of,
        not,
        minimum,
        maximum,
        exclusive_minimum,
        exclusive_maximum,
        multiple_of,
        min_length,
        max_length,
        pattern,
        min_items,
        max_items,
        unique_items,
        min_properties,
        max_properties,
        preserve_unknown_fields,
        embedded_resource,
        int_or_string,
        list_type,
        list_map_keys,
        map_type,
        validations
    );
    match (&mut own.items, items) {
        (Some(o), Some(b)) if o == b => own.items = None,
        (Some(o), Some(b)) => strip_untouched(o, b),
        _ => {}
    }
}

/// `src` merged into `dst` as controller-gen's `flattenAllOfInto` merges the schema of a
/// struct's own property into the same property of a struct it embeds: `dst`'s documentation
/// stays, `src`'s enum fills an empty one, properties merge, required lists join, `src`'s CEL
/// rules come first, `src`'s list and map keys win, and `dst` keeps anything else both set.
fn merge_embedded(mut dst: Schema, src: Schema) -> Schema {
    let Schema {
        ty,
        format,
        title: _,
        description: _,
        external_docs: _,
        default,
        example: _,
        enum_values,
        nullable,
        properties,
        required,
        additional_properties,
        items,
        all_of,
        any_of,
        one_of,
        not,
        minimum,
        maximum,
        exclusive_minimum,
        exclusive_maximum,
        multiple_of,
        min_length,
        max_length,
        pattern,
        min_items,
        max_items,
        unique_items,
        min_properties,
        max_properties,
        preserve_unknown_fields,
        embedded_resource,
        int_or_string,
        list_type,
        list_map_keys,
        map_type,
        validations,
    } = src;
    combine(&mut dst.properties, properties, |mut d, s| {
        for (pk, pv) in s {
            let merged = match d.remove(&pk) {
                Some(a) => merge_embedded(a, pv),
                None => pv,
            };
            d.insert(pk, merged);
        }
        d
    });
    combine(
        &mut dst.additional_properties,
        additional_properties,
        |d, s| Box::new(merge_embedded(*d, *s)),
    );
    combine(&mut dst.required, required, |d, s| union(Some(d), s));
    combine(&mut dst.validations, validations, |d, s| {
        rules_in_order(s, Some(d))
    });
    overwrite(&mut dst.preserve_unknown_fields, preserve_unknown_fields);
    overwrite(&mut dst.map_type, map_type);
    overwrite(&mut dst.list_type, list_type);
    overwrite(&mut dst.list_map_keys, list_map_keys);
    macro_rules! fill_all {
        ($($f:ident),*) => {$( fill(&mut dst.$f, $f); )*};
    }
    fill_all!(
        ty,
        format,
        default,
        enum_values,
        nullable,
        items,
        all_of,
        any_of,
        one_of,
        not,
        minimum,
        maximum,
        exclusive_minimum,
        exclusive_maximum,
        multiple_of,
        min_length,
        max_length,
        pattern,
        min_items,
        max_items,
        unique_items,
        min_properties,
        max_properties,
        embedded_resource,
        int_or_string
    );
    dst
}

/// Whether two schemas differ at most in their own description.
fn same_but_description(a: &Schema, b: &Schema) -> bool {
    let undocumented = |s: &Schema| Schema {
        description: None,
        ..s.clone()
    };
    undocumented(a) == undocumented(b)
}

/// Merges a field's own schema into its type's (controller-gen spec §4.8): documentation
/// keys from the field win; other keys set on both sides are kept in an allOf, so both
/// constraints hold.
pub fn merge(mut base: Schema, field: Schema) -> Result<Schema, String> {
    let Schema {
        ty,
        format,
        title,
        description,
        external_docs,
        default,
        example,
        enum_values,
        nullable,
        properties,
        required,
        additional_properties,
        items,
        all_of,
        any_of,
        one_of,
        not,
        minimum,
        maximum,
        exclusive_minimum,
        exclusive_maximum,
        multiple_of,
        min_length,
        max_length,
        pattern,
        min_items,
        max_items,
        unique_items,
        min_properties,
        max_properties,
        preserve_unknown_fields,
        embedded_resource,
        int_or_string,
        list_type,
        list_map_keys,
        map_type,
        validations,
    } = field;
    // In the order of their keys, as the first error found is the one reported.
    if let Some(f) = additional_properties {
        base.additional_properties = Some(Box::new(match base.additional_properties.take() {
            Some(b) => merge(*b, *f)?,
            None => *f,
        }));
    }
    if let Some(f) = items {
        base.items = Some(Box::new(match base.items.take() {
            Some(b) => merge(*b, *f)?,
            None => *f,
        }));
    }
    if let Some(f) = properties {
        let mut props = base.properties.take().unwrap_or_default();
        for (pk, pv) in f {
            let merged = match props.remove(&pk) {
                Some(b) => merge(b, pv)?,
                None => pv,
            };
            props.insert(pk, merged);
        }
        base.properties = Some(props);
    }
    if let Some(f) = ty {
        match &base.ty {
            Some(t) if *t != f => {
                return Err(format!(
                    "conflicting types: the type says {}, the field's markers say {}",
                    json!(t),
                    json!(f)
                ));
            }
            _ => base.ty = Some(f),
        }
    }
    if let Some(f) = required {
        base.required = Some(union(base.required.take(), f));
    }
    if let Some(f) = validations {
        base.validations = Some(rules_in_order(f, base.validations.take()));
    }
    fill(&mut base.enum_values, enum_values);
    macro_rules! field_wins {
        ($($f:ident),*) => {$( overwrite(&mut base.$f, $f); )*};
    }
    field_wins!(
        description,
        title,
        example,
        external_docs,
        preserve_unknown_fields,
        map_type,
        nullable,
        list_type,
        list_map_keys,
        int_or_string,
        embedded_resource
    );
    // Constraints set on both sides: both hold, each in its own allOf branch (an equal format,
    // pattern or property bound is written once).
    let mut hoisted_type = Schema::default();
    let mut hoisted_field = Schema::default();
    macro_rules! both_hold {
        ($once_if_equal:expr; $($f:ident),*) => {$(
            if let Some(fv) = $f {
                match base.$f.take() {
                    None => base.$f = Some(fv),
                    Some(bv) if $once_if_equal && bv == fv => base.$f = Some(bv),
                    Some(bv) => {
                        hoisted_type.$f = Some(bv);
                        hoisted_field.$f = Some(fv);
                    }
                }
            }
        )*};
    }
    both_hold!(true; format, pattern, min_properties, max_properties);
    both_hold!(
        false; default, all_of, any_of, one_of, not, minimum, maximum, exclusive_minimum,
        exclusive_maximum, multiple_of, min_length, max_length, min_items, max_items, unique_items
    );
    if hoisted_field != Schema::default() {
        let all_of = base.all_of.get_or_insert_with(Vec::new);
        all_of.push(hoisted_type);
        all_of.push(hoisted_field);
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
        && type_schema.minimum == Some(Number::from(0))
        && own
            .minimum
            .as_ref()
            .and_then(Number::as_f64)
            .is_some_and(|m| m >= 0.0)
    {
        type_schema.minimum = None;
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
        type_schema.format = None;
    }
    let mut list = &f.ty;
    while let Ty::Option(inner) = list {
        list = inner;
    }
    if let Ty::List { item, .. } = list
        && number(item).is_some()
        && f.markers.iter().any(|m| is_format(m.on_items()))
        && let Some(items) = &mut type_schema.items
    {
        items.format = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(v: Value) -> Schema {
        Schema::from_value(v).unwrap()
    }

    #[test]
    fn merge_hoists_constraints_set_on_both_sides() {
        let ty = schema(
            json!({"type": "string", "minLength": 1, "maxLength": 255, "description": "type doc"}),
        );
        let field = schema(json!({"type": "string", "minLength": 10, "maxLength": 10}));
        let m = merge(ty, field).unwrap();
        assert_eq!(
            m.into_value(),
            json!({"type": "string", "description": "type doc", "allOf": [{"maxLength": 255, "minLength": 1}, {"maxLength": 10, "minLength": 10}]})
        );
    }

    #[test]
    fn merge_prefers_field_docs_and_orders_rules() {
        let ty = schema(
            json!({"type": "object", "description": "t", "x-kubernetes-validations": [{"rule": "a"}]}),
        );
        let field =
            schema(json!({"description": "f", "x-kubernetes-validations": [{"rule": "b"}]}));
        let m = merge(ty, field).unwrap().into_value();
        assert_eq!(m["description"], json!("f"));
        assert_eq!(
            m["x-kubernetes-validations"],
            json!([{"rule": "b"}, {"rule": "a"}])
        );
    }

    #[test]
    fn merge_rejects_conflicting_types() {
        let err = merge(
            schema(json!({"type": "string"})),
            schema(json!({"type": "object"})),
        )
        .unwrap_err();
        assert_eq!(
            err,
            r#"conflicting types: the type says "string", the field's markers say "object""#
        );
    }

    /// An embedded struct's property equal to the embedding struct's is left as it is: its
    /// required list keeps its order (k8s-openapi's are not sorted) and its rules are not doubled.
    #[test]
    fn merge_embedded_keeps_equal_keys_as_they_are() {
        let p = json!({"type": "object", "required": ["type", "status"],
            "x-kubernetes-validations": [{"rule": "a"}]});
        let merged = merge_embedded(schema(p.clone()), schema(p.clone()));
        assert_eq!(merged.into_value(), p);
        let other =
            schema(json!({"required": ["reason"], "x-kubernetes-validations": [{"rule": "b"}]}));
        let merged = merge_embedded(schema(p), other).into_value();
        assert_eq!(merged["required"], json!(["reason", "status", "type"]));
        assert_eq!(
            merged["x-kubernetes-validations"],
            json!([{"rule": "b"}, {"rule": "a"}])
        );
    }
}
