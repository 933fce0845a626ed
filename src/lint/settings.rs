//! Per-rule settings: `[package.metadata.opgen.lint.rules.<rule>]`, kube-api-linter's
//! `lintersConfig.<rule>` with its key names, for the rules that take any. Read with serde from
//! the whole manifest text, so that an unknown key or value is an error at its line.
//!
//! ```toml
//! [package.metadata.opgen.lint.rules.forbiddenmarkers]
//! markers = [{ identifier = "kubebuilder:validation:XEmbeddedResource" }]
//! [package.metadata.opgen.lint.rules.optionalfields]
//! pointers = { preference = "WhenRequired" }
//! ```

use crate::markers::typed::names;
use serde::Deserialize;

/// Every configurable rule's settings; a rule not named keeps kube-api-linter's defaults.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    pub conditions: Conditions,
    pub conflictingmarkers: ConflictingMarkers,
    pub defaults: Defaults,
    pub dependenttags: DependentTags,
    pub forbiddenmarkers: ForbiddenMarkers,
    pub namingconventions: NamingConventions,
    pub optionalfields: OptionalFields,
    pub preferredmarkers: PreferredMarkers,
    pub requiredfields: RequiredFields,
    pub uniquemarkers: UniqueMarkers,
}

/// `Warn` reports, `SuggestFix` reports with the fix `--fix` applies, `Ignore` says nothing;
/// `Forbid` reports the opposite (where kube-api-linter has it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub enum Policy {
    #[default]
    SuggestFix,
    Warn,
    Ignore,
    Forbid,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub enum FirstField {
    #[default]
    Warn,
    Ignore,
}

/// A Conditions field (Go's protobuf and patchStrategy tags have no Rust spelling).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct Conditions {
    pub is_first_field: FirstField,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ConflictingMarkers {
    pub conflicts: Vec<ConflictSet>,
}

/// Markers of one set may not stand beside markers of another.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConflictSet {
    pub name: String,
    pub sets: Vec<Vec<String>>,
    #[serde(default)]
    pub description: String,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(try_from = "String")]
pub enum DefaultMarker {
    #[default]
    Default,
    Kubebuilder,
}

impl TryFrom<String> for DefaultMarker {
    type Error = String;

    fn try_from(marker: String) -> Result<Self, String> {
        match marker.as_str() {
            names::DEFAULT => Ok(DefaultMarker::Default),
            names::KUBEBUILDER_DEFAULT => Ok(DefaultMarker::Kubebuilder),
            other => Err(format!(
                "unknown variant `{other}`, expected `{}` or `{}`",
                names::DEFAULT,
                names::KUBEBUILDER_DEFAULT
            )),
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct Defaults {
    pub preferred_default_marker: DefaultMarker,
    pub omitempty: PolicyOnly,
    pub omitzero: PolicyOnly,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PolicyOnly {
    pub policy: Policy,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DependentTags {
    pub rules: Vec<DependentRule>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub enum DependencyType {
    #[default]
    All,
    Any,
}

/// Where `identifier` stands, `depends_on` must too (all of them, or any one).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DependentRule {
    pub identifier: String,
    pub depends_on: Vec<String>,
    #[serde(default, rename = "type")]
    pub kind: DependencyType,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ForbiddenMarkers {
    pub markers: Vec<ForbiddenMarker>,
}

/// A marker refused everywhere, or only with the arguments one of its rule sets names.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ForbiddenMarker {
    pub identifier: String,
    #[serde(default)]
    pub rule_sets: Vec<RuleSet>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RuleSet {
    pub attributes: Vec<MarkerAttribute>,
}

/// An argument (`""` for the marker's value) and, optionally, the values that are refused.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MarkerAttribute {
    pub name: String,
    #[serde(default)]
    pub values: Vec<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NamingConventions {
    pub conventions: Vec<Convention>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum Operation {
    Inform,
    Drop,
    DropField,
    Replacement,
}

/// Field names matching `violation_matcher` (a regular expression) are reported; `Drop` and
/// `Replacement` say what to do with the match.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Convention {
    pub name: String,
    #[serde(deserialize_with = "regex")]
    pub violation_matcher: regex::Regex,
    pub operation: Operation,
    #[serde(default)]
    pub replacement: String,
    pub message: String,
}

/// A regular expression (Go's RE2 and the regex crate agree on its syntax), refused at its line
/// when it does not compile.
fn regex<'de, D: serde::Deserializer<'de>>(d: D) -> Result<regex::Regex, D::Error> {
    let pattern = String::deserialize(d)?;
    regex::Regex::new(&pattern).map_err(serde::de::Error::custom)
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub enum PointerPreference {
    #[default]
    Always,
    WhenRequired,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Pointers {
    pub preference: PointerPreference,
    pub policy: Policy,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OptionalFields {
    pub pointers: Pointers,
    pub omitempty: PolicyOnly,
    pub omitzero: PolicyOnly,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RequiredFields {
    pub pointers: PolicyOnly,
    pub omitempty: PolicyOnly,
    pub omitzero: PolicyOnly,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PreferredMarkers {
    pub markers: Vec<PreferredMarker>,
}

/// `preferred_identifier` instead of any of its equivalents.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PreferredMarker {
    pub preferred_identifier: String,
    pub equivalent_identifiers: Vec<Equivalent>,
    #[serde(default)]
    pub message: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Equivalent {
    pub identifier: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields, rename_all = "camelCase")]
pub struct UniqueMarkers {
    pub custom_markers: Vec<UniqueMarker>,
}

/// A marker given at most once on a field (with its type) or type; with `attributes`, once per
/// value of those arguments.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UniqueMarker {
    pub identifier: String,
    #[serde(default)]
    pub attributes: Vec<String>,
}

/// The manifest down to the settings table, every other key ignored.
#[derive(Deserialize)]
struct Manifest {
    package: Option<Package>,
}

#[derive(Deserialize)]
struct Package {
    metadata: Option<Metadata>,
}

#[derive(Deserialize)]
struct Metadata {
    opgen: Option<Opgen>,
}

#[derive(Deserialize)]
struct Opgen {
    lint: Option<Lint>,
}

#[derive(Deserialize)]
struct Lint {
    rules: Option<Settings>,
}

/// The settings in the manifest `text`, or serde's message with the byte range it is about.
pub(super) fn parse(text: &str) -> Result<Settings, (String, Option<std::ops::Range<usize>>)> {
    let manifest: Manifest =
        toml::from_str(text).map_err(|e| (e.message().to_owned(), e.span()))?;
    Ok(manifest
        .package
        .and_then(|p| p.metadata)
        .and_then(|m| m.opgen)
        .and_then(|o| o.lint)
        .and_then(|l| l.rules)
        .unwrap_or_default())
}
