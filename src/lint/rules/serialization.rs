//! How optional and required fields go on the wire: kube-api-linter's optionalfields and
//! requiredfields, one check with their pointer, omitempty and omitzero policies. In Rust a
//! pointer is an `Option`; omitempty is serde's `skip_serializing_if`, and so is omitzero (serde
//! has no "zero value": a predicate on the struct, or an `Option`, is what leaves it out).

use super::*;
use crate::lint::settings::{PointerPreference, Policy};
use crate::markers::typed::names::{
    K8S_OPTIONAL, K8S_REQUIRED, KUBEBUILDER_VALIDATION_OPTIONAL, KUBEBUILDER_VALIDATION_REQUIRED,
    OPTIONAL, REQUIRED,
};

/// The policies of one run (requiredfields always prefers pointers only when required).
struct Check {
    rule: &'static str,
    preference: PointerPreference,
    pointers: Policy,
    omitempty: Policy,
    omitzero: Policy,
}

pub(super) fn optionalfields(model: &Model<'_>, settings: &Settings, out: &mut Vec<Finding>) {
    let s = &settings.optionalfields;
    let check = Check {
        rule: "optionalfields",
        preference: s.pointers.preference,
        pointers: s.pointers.policy,
        omitempty: s.omitempty.policy,
        omitzero: s.omitzero.policy,
    };
    let optional = [OPTIONAL, KUBEBUILDER_VALIDATION_OPTIONAL, K8S_OPTIONAL];
    for (t, f) in
        inspected_fields(model).filter(|(_, f)| optional.iter().any(|n| fields::has(&f.markers, n)))
    {
        check.field(model, t, f, out);
    }
}

pub(super) fn requiredfields(model: &Model<'_>, settings: &Settings, out: &mut Vec<Finding>) {
    let s = &settings.requiredfields;
    let check = Check {
        rule: "requiredfields",
        preference: PointerPreference::WhenRequired,
        pointers: s.pointers.policy,
        omitempty: s.omitempty.policy,
        omitzero: s.omitzero.policy,
    };
    for (t, f) in inspected_fields(model).filter(|(_, f)| is_required_field(f)) {
        check.field(model, t, f, out);
    }
}

fn is_required_field(f: &Field) -> bool {
    let required = [REQUIRED, KUBEBUILDER_VALIDATION_REQUIRED, K8S_REQUIRED];
    required.iter().any(|n| fields::has(&f.markers, n))
}

/// What a field is, as kube-api-linter's serialization check sees it.
struct Facts<'m> {
    name: String,
    pointer: bool,
    /// The type inside the `Option`.
    inner: &'m Ty,
    /// A struct of the project (through aliases), unless a Type marker says it is no object.
    is_struct: bool,
    /// Whether its zero value (`""`, 0, `[]`, `{}`, a struct of zero values) passes validation,
    /// and whether the validation says either way.
    zero_valid: bool,
    complete: bool,
    /// `skip_serializing_if`: Go's omitempty, and its omitzero on a struct.
    omitted: bool,
}

impl Check {
    fn field(&self, model: &Model<'_>, t: &TypeDef, f: &Field, out: &mut Vec<Finding>) {
        if f.custom_with {
            // A hand-written serializer: the type says nothing about the wire.
            return;
        }
        let (pointer, inner) = match &f.ty {
            // k8s-openapi's optional bytes (caBundle): serde cannot test a ByteString for
            // emptiness, so its Option is Go's omitempty `[]byte`, not a pointer.
            Ty::Option(inner) if super::lists::is_bytes(inner) => (false, &**inner),
            Ty::Option(inner) => (true, &**inner),
            ty => (false, ty),
        };
        let markers = field_and_type_markers(model, f);
        let type_marker = markers
            .iter()
            .find(|(m, _)| m.name() == names::KUBEBUILDER_VALIDATION_TYPE)
            .and_then(|(m, _)| marker_arg(m, ""));
        let is_struct = struct_of(model, inner).is_some()
            && type_marker
                .as_deref()
                .is_none_or(|v| v.is_empty() || v == "object");
        let consider_omitzero = self.omitzero != Policy::Forbid;
        let (zero_valid, complete) = zero_value(model, f, inner, consider_omitzero, 0);
        let facts = Facts {
            name: field_name(t, f),
            pointer,
            inner,
            is_struct,
            zero_valid,
            complete,
            omitted: f.skip_serializing_if,
        };
        let mut report = Report {
            check: self,
            model,
            t,
            f,
            out,
            wrapped: false,
        };
        match self.preference {
            PointerPreference::Always => {
                report.should_be_pointer(&facts, "should be a pointer.".to_owned());
                report.should_omit_empty(&facts);
            }
            PointerPreference::WhenRequired => {
                report.omit_zero(&facts);
                if self.omitempty != Policy::Ignore || facts.omitted {
                    report.with_omitempty(&facts);
                } else {
                    report.without_omitempty(&facts);
                }
            }
        }
    }
}

struct Report<'a, 'm> {
    check: &'a Check,
    model: &'a Model<'m>,
    t: &'a TypeDef,
    f: &'a Field,
    out: &'a mut Vec<Finding>,
    /// A fix makes the field an `Option`: the omitempty fix must then be `Option::is_none`.
    wrapped: bool,
}

impl Report<'_, '_> {
    fn push(&mut self, message: String, help: Option<&str>, fix: Option<Fix>) {
        let mut finding = on_field(self.check.rule, self.t, self.f, message);
        finding.help = help.map(str::to_owned);
        finding.fix = fix;
        self.out.push(finding);
    }

    /// The omitzero policy on a struct whose zero value is not valid.
    fn omit_zero(&mut self, x: &Facts<'_>) {
        if !x.is_struct {
            return;
        }
        if self.check.omitzero == Policy::Forbid {
            if x.omitted {
                self.push(
                    format!("{} has the omitzero tag (skip_serializing_if), but by policy is not allowed. The omitzero tag should be removed.", x.name),
                    None,
                    None,
                );
            }
            return;
        }
        if x.zero_valid {
            return;
        }
        if !x.omitted && self.check.omitzero != Policy::Ignore {
            let fix = (self.check.omitzero == Policy::SuggestFix)
                .then(|| self.omit_fix(x))
                .flatten();
            self.push(
                format!("{} does not allow the zero value. It must have the omitzero tag (Rust: skip_serializing_if, or an Option).", x.name),
                Some("serde has no omitzero: give the struct a predicate (`#[serde(skip_serializing_if = \"...\")]`), or make it an Option"),
                fix,
            );
        }
        self.should_not_be_pointer(
            x,
            format!(
                "{} does not allow the zero value. The field does not need to be a pointer.",
                x.name
            ),
        );
    }

    /// requiredfields (and optionalfields' WhenRequired) where omitempty is wanted.
    fn with_omitempty(&mut self, x: &Facts<'_>) {
        let consider_omitzero = self.check.omitzero != Policy::Forbid;
        if x.is_struct && !x.zero_valid && consider_omitzero {
            return;
        }
        if x.zero_valid && !x.complete {
            let reason = format!(
                "has a valid zero value ({}), but the validation is not complete (e.g. {}). The field should be a pointer to allow the zero value to be set. If the zero value is not a valid use case, complete the validation and remove the pointer.",
                zero_text(self.model, x.inner),
                validation_hint(self.model, x.inner)
            );
            self.should_be_pointer(x, reason);
        } else if x.zero_valid || x.is_struct {
            let reason = format!(
                "has a valid zero value ({}) and should be a pointer.",
                zero_text(self.model, x.inner)
            );
            self.should_be_pointer(x, reason);
        } else if x.complete {
            self.should_not_be_pointer(
                x,
                format!(
                    "{} does not allow the zero value. The field does not need to be a pointer.",
                    x.name
                ),
            );
        }
        self.should_omit_empty(x);
    }

    /// optionalfields' WhenRequired with the omitempty policy Ignore.
    fn without_omitempty(&mut self, x: &Facts<'_>) {
        if x.zero_valid {
            self.should_not_be_pointer(x, format!("{} does not have omitempty and allows the zero value. The field does not need to be a pointer.", x.name));
            return;
        }
        if self.check.omitzero == Policy::Forbid || !x.is_struct {
            let fix = self.omit_fix(x);
            self.push(
                format!(
                    "{} does not allow the zero value. It must have the omitempty tag (Rust: skip_serializing_if).",
                    x.name
                ),
                None,
                fix,
            );
        }
        let omitted = Facts {
            name: x.name.clone(),
            omitted: true,
            ..*x
        };
        self.with_omitempty(&omitted);
    }

    fn should_omit_empty(&mut self, x: &Facts<'_>) {
        let policy = self.check.omitempty;
        if x.omitted || policy == Policy::Ignore {
            return;
        }
        let fix = (policy == Policy::SuggestFix)
            .then(|| self.omit_fix(x))
            .flatten();
        self.push(
            format!(
                "{} should have the omitempty tag (Rust: skip_serializing_if).",
                x.name
            ),
            Some("serde writes the field even when it is empty or None: add #[serde(skip_serializing_if = \"...\")]"),
            fix,
        );
    }

    fn should_be_pointer(&mut self, x: &Facts<'_>, reason: String) {
        if nilable(self.model, x.inner) {
            if x.pointer {
                if !explicit_zero_minimum(self.model, self.f, x.inner) {
                    self.should_not_be_pointer_anyway(
                        format!("{} underlying type does not need to be a pointer. The pointer should be removed.", x.name),
                    );
                }
            } else if self.check.preference == PointerPreference::Always
                && explicit_zero_minimum(self.model, self.f, x.inner)
            {
                self.add_pointer(x, "with MinItems=0/MinProperties=0, underlying type should be a pointer to distinguish nil (unset) from empty.");
            }
            return;
        }
        if !x.pointer {
            self.add_pointer(x, &reason);
        }
    }

    fn add_pointer(&mut self, x: &Facts<'_>, reason: &str) {
        let fix = (self.check.pointers == Policy::SuggestFix)
            .then(|| wrap_in_option(self.model, self.f))
            .flatten();
        self.wrapped = fix.is_some();
        self.push(
            format!("{} {reason}", x.name),
            Some("make it an Option (serde leaves it out when None, with skip_serializing_if = \"Option::is_none\")"),
            fix,
        );
    }

    fn should_not_be_pointer(&mut self, x: &Facts<'_>, message: String) {
        if x.pointer && !explicit_zero_minimum(self.model, self.f, x.inner) {
            self.should_not_be_pointer_anyway(message);
        }
    }

    /// No fix: the `Option` goes with its `skip_serializing_if = "Option::is_none"` and the
    /// code that reads it.
    fn should_not_be_pointer_anyway(&mut self, message: String) {
        self.push(message, Some("take the type out of its Option"), None);
    }

    /// The `skip_serializing_if` line for the field's type, where the predicate is std's and
    /// serde can fill the field back in when it is missing.
    fn omit_fix(&self, x: &Facts<'_>) -> Option<Fix> {
        // Any Option, a pointer to Go or not (optional bytes), is left out when None.
        let attribute = if self.wrapped || matches!(self.f.ty, Ty::Option(_)) {
            "#[serde(skip_serializing_if = \"Option::is_none\")]"
        } else if self.f.has_default {
            // A field-level `default` may be there already: serde refuses it twice.
            return None;
        } else {
            match x.inner {
                Ty::String => "#[serde(default, skip_serializing_if = \"String::is_empty\")]",
                Ty::List { .. } | Ty::Bytes { byte_string: false } => {
                    "#[serde(default, skip_serializing_if = \"Vec::is_empty\")]"
                }
                // serde cannot ask a ByteString whether it is empty: no mechanical fix (an
                // `Option<ByteString>` is one, as k8s-openapi writes `caBundle`).
                _ => return None,
            }
        };
        super::wire::fix_before_field(self.model, self.f.loc, attribute)
    }
}

/// Go's nilable types: slices and maps (through aliases), which need no pointer to be left out.
fn nilable(model: &Model<'_>, ty: &Ty) -> bool {
    match ty {
        Ty::List { .. } | Ty::Map(_) | Ty::Option(_) => true,
        // Go's `[]byte` is a slice, which needs no pointer (KAL's IsPointerType).
        ty if super::lists::is_bytes(ty) => true,
        Ty::Named(id) => match &model.type_def(*id).shape {
            Shape::Wrapper(inner) if model.type_def(*id).transparent => nilable(model, inner),
            _ => false,
        },
        _ => false,
    }
}

/// Resolves aliases: the type a named alias stands for.
fn resolved<'m>(model: &'m Model<'_>, ty: &'m Ty) -> &'m Ty {
    let mut ty = ty;
    for _ in 0..MAX_DEPTH {
        match ty {
            Ty::Named(id) => match &model.type_def(*id).shape {
                Shape::Wrapper(inner) if model.type_def(*id).transparent => ty = inner,
                _ => return ty,
            },
            _ => return ty,
        }
    }
    ty
}

/// `MinItems=0` on a list or `MinProperties=0` on a map: an empty value is set on purpose.
fn explicit_zero_minimum(model: &Model<'_>, f: &Field, ty: &Ty) -> bool {
    let markers = field_and_type_markers(model, f);
    let zero = |want: fn(&SchemaMarker) -> bool| {
        markers.iter().any(|(m, _)| m.on_node().is_some_and(want))
    };
    match resolved(model, ty) {
        Ty::List { .. } => zero(|m| matches!(m, SchemaMarker::MinItems(0))),
        Ty::Map(_) => zero(|m| matches!(m, SchemaMarker::MinProperties(0))),
        _ => false,
    }
}

/// Whether the zero value of `ty` (the type of `f`, or within it) passes the validation of `f`'s
/// markers and its type's, and whether that validation is complete (says either way):
/// kube-api-linter's IsZeroValueValid.
fn zero_value(
    model: &Model<'_>,
    f: &Field,
    ty: &Ty,
    consider_omitzero: bool,
    depth: usize,
) -> (bool, bool) {
    if depth > MAX_DEPTH {
        return (false, false);
    }
    let markers = field_and_type_markers(model, f);
    let node = |want: &dyn Fn(&SchemaMarker) -> bool| {
        markers
            .iter()
            .filter_map(|(m, _)| m.on_node())
            .find(|m| want(m))
    };
    let string = || match node(&|m| matches!(m, SchemaMarker::Enum(_))) {
        Some(SchemaMarker::Enum(values)) => (values.iter().any(|v| v.as_str() == Some("")), true),
        _ => match node(&|m| matches!(m, SchemaMarker::MinLength(_))) {
            Some(SchemaMarker::MinLength(n)) => (*n == 0, true),
            _ => (true, false),
        },
    };
    match ty {
        Ty::Option(inner) => zero_value(model, f, inner, consider_omitzero, depth + 1),
        Ty::String | Ty::Bytes { .. } => string(),
        Ty::Bool => (true, true),
        Ty::Integer { .. } | Ty::Float { .. } => {
            let minimum = match node(&|m| matches!(m, SchemaMarker::Minimum(_))) {
                Some(SchemaMarker::Minimum(n)) => Some(*n),
                _ => None,
            };
            let maximum = match node(&|m| matches!(m, SchemaMarker::Maximum(_))) {
                Some(SchemaMarker::Maximum(n)) => Some(*n),
                _ => None,
            };
            let range = matches!((minimum, maximum), (Some(lo), Some(hi)) if lo <= hi);
            (
                minimum.unwrap_or(-1.0) <= 0.0 && maximum.unwrap_or(1.0) >= 0.0,
                range || minimum.is_some_and(|n| n >= 0.0) || maximum.is_some_and(|n| n <= 0.0),
            )
        }
        Ty::List { .. } => match node(&|m| matches!(m, SchemaMarker::MinItems(_))) {
            Some(SchemaMarker::MinItems(n)) => (*n == 0, true),
            _ => (true, false),
        },
        Ty::Map(_) => match node(&|m| matches!(m, SchemaMarker::MinProperties(_))) {
            Some(SchemaMarker::MinProperties(n)) => (*n == 0, true),
            _ => (true, false),
        },
        // A Go struct of another package: its fields are not read, as if all were omitted.
        Ty::K8s(_) => {
            let min = min_properties(&markers);
            (min.is_none_or(|n| n <= 0), min.is_some())
        }
        Ty::Named(id) => {
            let def = model.type_def(*id);
            match &def.shape {
                Shape::Wrapper(inner) if def.transparent => {
                    zero_value(model, f, inner, consider_omitzero, depth + 1)
                }
                // A Go string type whose values are the variants.
                Shape::UnitEnum(variants) => {
                    (variants.iter().any(|v| v.json_name.is_empty()), true)
                }
                Shape::Struct(fields) => {
                    let type_marker = markers
                        .iter()
                        .find(|(m, _)| m.name() == names::KUBEBUILDER_VALIDATION_TYPE)
                        .and_then(|(m, _)| marker_arg(m, ""));
                    if type_marker.as_deref() == Some("string") {
                        return string();
                    }
                    struct_zero_value(model, def, fields, &markers, consider_omitzero, depth)
                }
                _ => (false, false),
            }
        }
        _ => (false, false),
    }
}

fn min_properties(markers: &[(&Marker, usize)]) -> Option<i64> {
    markers.iter().find_map(|(m, _)| match m.on_node() {
        Some(SchemaMarker::MinProperties(n)) => Some(*n),
        _ => None,
    })
}

/// A struct's zero value: valid when each field's is (or it is left out) and MinProperties (1
/// for ExactlyOneOf/AtLeastOneOf) is met by the fields always written.
fn struct_zero_value(
    model: &Model<'_>,
    def: &TypeDef,
    fields: &[Field],
    markers: &[(&Marker, usize)],
    consider_omitzero: bool,
    depth: usize,
) -> (bool, bool) {
    let mut valid = true;
    let mut written = 0i64;
    for g in fields {
        let required = is_required_field(g);
        let omitted_struct =
            consider_omitzero && g.skip_serializing_if && struct_of(model, &g.ty).is_some();
        if required || (!omitted_struct && !g.skip_serializing_if) {
            written += 1;
        }
        let field_valid =
            if omitted_struct || matches!(g.ty, Ty::Option(_)) || g.skip_serializing_if {
                !required
            } else {
                zero_value(model, g, &g.ty, consider_omitzero, depth + 1).0
            };
        valid &= field_valid;
    }
    let one_of = def.markers.iter().any(|m| {
        matches!(
            m.on_node(),
            Some(SchemaMarker::ExactlyOneOf(_) | SchemaMarker::AtLeastOneOf(_))
        )
    });
    let min = min_properties(markers).or(one_of.then_some(1));
    (
        valid && min.is_none_or(|n| n <= written),
        min.is_some() || written > 0,
    )
}

/// The zero value as JSON, for messages.
fn zero_text(model: &Model<'_>, ty: &Ty) -> String {
    match resolved(model, ty) {
        Ty::String | Ty::Bytes { .. } => "\"\"".to_owned(),
        Ty::Bool => "false".to_owned(),
        Ty::Integer { .. } => "0".to_owned(),
        Ty::Float { .. } => "0.0".to_owned(),
        Ty::List { .. } => "[]".to_owned(),
        Ty::Map(_) => "{}".to_owned(),
        Ty::Named(id) => match &model.type_def(*id).shape {
            Shape::UnitEnum(_) => "\"\"".to_owned(),
            Shape::Struct(fields) => {
                let written: Vec<String> = fields
                    .iter()
                    .filter(|g| !g.skip_serializing_if)
                    .map(|g| format!("{:?}: {}", g.json_name, zero_text(model, &g.ty)))
                    .collect();
                format!("{{{}}}", written.join(", "))
            }
            _ => String::new(),
        },
        Ty::Option(_) => "null".to_owned(),
        // A struct of another module (PodTemplateSpec, Time, Quantity), as KAL reads it.
        Ty::K8s(_) => "{}".to_owned(),
        _ => String::new(),
    }
}

fn validation_hint(model: &Model<'_>, ty: &Ty) -> &'static str {
    match resolved(model, ty) {
        Ty::String | Ty::Bytes { .. } => "minimum length",
        Ty::Integer { .. } | Ty::Float { .. } => "minimum/maximum",
        Ty::List { .. } => "min items",
        Ty::Map(_) => "min properties",
        Ty::Named(id) => match &model.type_def(*id).shape {
            Shape::UnitEnum(_) => "minimum length",
            Shape::Struct(_) => "min properties/adding required fields",
            _ => "",
        },
        Ty::K8s(_) => "min properties/adding required fields",
        _ => "",
    }
}

/// The field's line with its type put in an `Option`, where the field is written `name: Type,`
/// on one line and no `skip_serializing_if` predicate names its type.
fn wrap_in_option(model: &Model<'_>, f: &Field) -> Option<Fix> {
    if f.skip_serializing_if {
        return None;
    }
    let line = model.files[f.loc.file]
        .text
        .lines()
        .nth(f.loc.line.checked_sub(1)?)?;
    let (head, ty) = line.split_once(&format!("{}:", f.rust_name))?;
    let ty = ty.trim().strip_suffix(',')?.trim();
    Some(Fix {
        file: f.loc.file,
        edits: vec![(
            f.loc.line,
            Edit::Replace(format!("{head}{}: Option<{ty}>,", f.rust_name)),
        )],
    })
}

#[cfg(test)]
mod tests {
    use super::super::run_on;
    use super::*;
    use crate::lint::settings::{PolicyOnly, Settings};

    const HEAD: &str = "use serde::{Deserialize, Serialize};\n\n#[derive(Serialize, Deserialize)]\n#[serde(rename_all = \"camelCase\")]\npub struct Spec {\n";

    /// (field, message) of `check` on a struct of `fields`, and the fixed text of its fixes.
    fn lint(
        fields: &str,
        settings: &Settings,
        check: fn(&Model<'_>, &Settings, &mut Vec<Finding>),
    ) -> (Vec<(String, String)>, Vec<String>) {
        let text = format!("{HEAD}{fields}}}\n");
        let found = run_on(&text, settings, check);
        let fixes = found
            .iter()
            .filter_map(|(_, _, fix)| fix.as_ref())
            .flat_map(|fix| &fix.edits)
            .map(|(line, edit)| match edit {
                Edit::Insert(s) => format!("{line}: insert {}", s.trim()),
                Edit::Replace(s) => format!("{line}: replace {}", s.trim()),
                Edit::Remove => format!("{line}: remove"),
            })
            .collect();
        let found = found.into_iter().map(|(f, m, _)| (f, m)).collect();
        (found, fixes)
    }

    fn found(field: &str, message: &str) -> (String, String) {
        (field.to_owned(), message.to_owned())
    }

    #[test]
    fn an_optional_field_is_an_option_left_out_when_none() {
        let (found_, fixes) = lint(
            "    /// +optional\n    pub name: String,\n    /// +optional\n    #[serde(skip_serializing_if = \"Option::is_none\")]\n    pub size: Option<i32>,\n    /// +optional\n    #[serde(default, skip_serializing_if = \"Vec::is_empty\")]\n    pub tags: Vec<String>,\n    /// +required\n    pub other: String,\n",
            &Settings::default(),
            optionalfields,
        );
        assert_eq!(
            found_,
            [
                found("name", "field Spec.name should be a pointer."),
                found(
                    "name",
                    "field Spec.name should have the omitempty tag (Rust: skip_serializing_if)."
                ),
            ]
        );
        // The type goes into an Option, and its skip_serializing_if is then Option's.
        assert_eq!(
            fixes,
            [
                "7: replace pub name: Option<String>,",
                "7: insert #[serde(skip_serializing_if = \"Option::is_none\")]",
            ]
        );
    }

    /// cert-manager's `CABundle []byte` (`caBundle,omitempty`): bytes are Go's `[]byte`, a
    /// slice, which kube-api-linter does not ask to be a pointer. An optional ByteString is
    /// k8s-openapi's (and `opgen import go`'s) way to leave it out, not a pointer.
    #[test]
    fn optional_bytes_need_no_option() {
        let (found_, fixes) = lint(
            "    /// +optional\n    #[serde(default, skip_serializing_if = \"Vec::is_empty\")]\n    pub ca_bundle: Vec<u8>,\n    /// +optional\n    #[serde(default)]\n    pub ca: k8s_openapi::ByteString,\n    /// +optional\n    #[serde(skip_serializing_if = \"Option::is_none\")]\n    pub key: Option<k8s_openapi::ByteString>,\n    /// +optional\n    pub cert: Option<k8s_openapi::ByteString>,\n",
            &Settings::default(),
            optionalfields,
        );
        assert_eq!(
            found_,
            [
                found(
                    "ca",
                    "field Spec.ca should have the omitempty tag (Rust: skip_serializing_if)."
                ),
                found(
                    "cert",
                    "field Spec.cert should have the omitempty tag (Rust: skip_serializing_if)."
                ),
            ]
        );
        assert_eq!(
            fixes,
            ["16: insert #[serde(skip_serializing_if = \"Option::is_none\")]"]
        );
    }

    #[test]
    fn a_byte_string_gets_no_fix_that_would_not_compile() {
        // `Vec::is_empty` takes a `&Vec<u8>`; serde would hand it a `&ByteString`.
        let (found_, fixes) = lint(
            "    /// +optional\n    pub ca: k8s_openapi::ByteString,\n    /// +optional\n    pub raw: Vec<u8>,\n",
            &Settings::default(),
            optionalfields,
        );
        assert_eq!(
            found_,
            [
                found(
                    "ca",
                    "field Spec.ca should have the omitempty tag (Rust: skip_serializing_if)."
                ),
                found(
                    "raw",
                    "field Spec.raw should have the omitempty tag (Rust: skip_serializing_if)."
                ),
            ]
        );
        assert_eq!(
            fixes,
            ["9: insert #[serde(default, skip_serializing_if = \"Vec::is_empty\")]"]
        );
    }

    #[test]
    fn a_schemaless_field_is_not_inspected() {
        // As kube-api-linter's field inspector: a Schemaless field's markers write its schema.
        let fields = "    /// +optional\n    /// +kubebuilder:validation:Schemaless\n    /// +kubebuilder:pruning:PreserveUnknownFields\n    /// +kubebuilder:validation:Type=object\n    #[serde(default)]\n    pub config_override: serde_json::Value,\n";
        let (found_, _) = lint(fields, &Settings::default(), optionalfields);
        assert_eq!(found_, []);
        let (found_, _) = lint(
            &fields.replace("    /// +kubebuilder:validation:Schemaless\n", ""),
            &Settings::default(),
            optionalfields,
        );
        assert_eq!(
            found_,
            [
                found(
                    "config_override",
                    "field Spec.config_override should be a pointer."
                ),
                found(
                    "config_override",
                    "field Spec.config_override should have the omitempty tag (Rust: skip_serializing_if)."
                ),
            ]
        );
    }

    #[test]
    fn an_optional_list_needs_no_option_unless_its_minimum_is_zero() {
        let (found_, fixes) = lint(
            "    /// +optional\n    #[serde(skip_serializing_if = \"Option::is_none\")]\n    pub tags: Option<Vec<String>>,\n    /// +optional\n    /// +kubebuilder:validation:MinItems=0\n    #[serde(skip_serializing_if = \"Option::is_none\")]\n    pub empty_ok: Option<Vec<String>>,\n    /// +optional\n    /// +kubebuilder:validation:MinItems=0\n    #[serde(default, skip_serializing_if = \"Vec::is_empty\")]\n    pub unset: Vec<String>,\n",
            &Settings::default(),
            optionalfields,
        );
        assert_eq!(
            found_,
            [
                found(
                    "tags",
                    "field Spec.tags underlying type does not need to be a pointer. The pointer should be removed."
                ),
                found(
                    "unset",
                    "field Spec.unset with MinItems=0/MinProperties=0, underlying type should be a pointer to distinguish nil (unset) from empty."
                ),
            ]
        );
        // Taking a type out of its Option is no mechanical edit in Rust (its skip_serializing_if
        // names Option); putting one in, where a predicate names the type, is not either.
        assert!(fixes.is_empty(), "{fixes:?}");
    }

    #[test]
    fn a_required_field_is_an_option_only_where_its_zero_value_is_valid() {
        let (found_, fixes) = lint(
            "    /// +required\n    pub size: i32,\n    /// +required\n    /// +kubebuilder:validation:Minimum=1\n    pub count: i32,\n    /// +required\n    /// +kubebuilder:validation:MinLength=1\n    #[serde(skip_serializing_if = \"Option::is_none\")]\n    pub name: Option<String>,\n    /// +required\n    pub flag: Option<bool>,\n",
            &Settings::default(),
            requiredfields,
        );
        assert_eq!(
            found_,
            [
                found(
                    "size",
                    "field Spec.size has a valid zero value (0), but the validation is not complete (e.g. minimum/maximum). The field should be a pointer to allow the zero value to be set. If the zero value is not a valid use case, complete the validation and remove the pointer."
                ),
                found(
                    "size",
                    "field Spec.size should have the omitempty tag (Rust: skip_serializing_if)."
                ),
                found(
                    "count",
                    "field Spec.count should have the omitempty tag (Rust: skip_serializing_if)."
                ),
                found(
                    "name",
                    "field Spec.name does not allow the zero value. The field does not need to be a pointer."
                ),
                found(
                    "flag",
                    "field Spec.flag should have the omitempty tag (Rust: skip_serializing_if)."
                ),
            ]
        );
        // i32 has no empty predicate: only the Option made by the pointer fix gets one.
        assert_eq!(
            fixes,
            [
                "7: replace pub size: Option<i32>,",
                "7: insert #[serde(skip_serializing_if = \"Option::is_none\")]",
                "16: insert #[serde(skip_serializing_if = \"Option::is_none\")]",
            ]
        );
    }

    /// kueue's `PodSet.template`: KAL reads a struct of another module as `{}`, and so does opgen
    /// for a k8s-openapi type (it printed `()` and an empty hint).
    #[test]
    fn a_required_k8s_struct_has_the_zero_value_kal_names() {
        let (found_, _) = lint(
            "    /// +required\n    pub template: k8s_openapi::api::core::v1::PodTemplateSpec,\n",
            &Settings::default(),
            requiredfields,
        );
        assert_eq!(
            found_[0],
            found(
                "template",
                "field Spec.template has a valid zero value ({}), but the validation is not complete (e.g. min properties/adding required fields). The field should be a pointer to allow the zero value to be set. If the zero value is not a valid use case, complete the validation and remove the pointer."
            )
        );
    }

    #[test]
    fn a_required_struct_without_a_valid_zero_value_is_left_out_when_empty() {
        let fields = "    /// +required\n    pub inner: Inner,\n}\n\n#[derive(Serialize, Deserialize)]\npub struct Inner {\n    /// +required\n    /// +kubebuilder:validation:MinLength=1\n    #[serde(default, skip_serializing_if = \"String::is_empty\")]\n    pub name: String,\n";
        let (found_, _) = lint(fields, &Settings::default(), requiredfields);
        assert_eq!(
            found_,
            [found(
                "inner",
                "field Spec.inner does not allow the zero value. It must have the omitzero tag (Rust: skip_serializing_if, or an Option)."
            )]
        );
    }

    #[test]
    fn policies_warn_without_fixes_or_ignore() {
        let mut settings = Settings::default();
        settings.requiredfields.pointers = PolicyOnly {
            policy: Policy::Warn,
        };
        let (found_, fixes) = lint(
            "    /// +required\n    pub size: i32,\n",
            &settings,
            requiredfields,
        );
        assert_eq!(found_.len(), 2, "{found_:?}");
        assert!(found_[0].1.contains("should be a pointer"), "{found_:?}");
        assert!(fixes.is_empty(), "{fixes:?}");
        // Without omitempty, a valid zero value is written as it is: no Option needed.
        settings.requiredfields.omitempty = PolicyOnly {
            policy: Policy::Ignore,
        };
        let (found_, _) = lint(
            "    /// +required\n    pub size: i32,\n    /// +required\n    pub count: Option<i32>,\n",
            &settings,
            requiredfields,
        );
        assert_eq!(
            found_,
            [found(
                "count",
                "field Spec.count does not have omitempty and allows the zero value. The field does not need to be a pointer."
            )]
        );
        // WhenRequired: an optional field needs no Option where its zero value is invalid.
        let mut settings = Settings::default();
        settings.optionalfields.pointers.preference = PointerPreference::WhenRequired;
        let (found_, _) = lint(
            "    /// +optional\n    /// +kubebuilder:validation:Minimum=1\n    #[serde(skip_serializing_if = \"Option::is_none\")]\n    pub count: Option<i32>,\n",
            &settings,
            optionalfields,
        );
        assert_eq!(
            found_,
            [found(
                "count",
                "field Spec.count does not allow the zero value. The field does not need to be a pointer."
            )]
        );
    }
}
