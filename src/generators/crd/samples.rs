//! The samples under `config/samples/` checked against the CRDs just generated, as the API
//! server checks an object: each one whose apiVersion and kind name a version of these CRDs is
//! defaulted, then validated by `values` (types, formats, enums, bounds, patterns, required
//! fields, and the unknown fields pruning removes and server-side apply refuses), and, once it
//! fits, by the version's CEL rules where `cel::eval` can run them. A mismatch is a warning at
//! the sample's line and column, so that neither `kubectl apply` nor a test is the first to see
//! a sample the schema left behind. Objects of other kinds are not this project's to check.

use super::Crd;
use super::cel::eval;
use super::values::{self, Problem, Step, ValuePath, Violation};
use crate::diag::{Diagnostic, Location};
use crate::markers::catalog::closest;
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use serde_saphyr::Spanned;
use std::fmt;
use std::path::PathBuf;

/// What checking the samples found.
#[derive(Debug, Default)]
pub struct SampleCheck {
    /// Objects checked against a CRD version (objects of other kinds are not counted).
    pub objects: usize,
    pub warnings: Vec<Diagnostic>,
}

/// Checks every object of `samples` (path for messages, text) against `crds`.
pub fn check(samples: &[(PathBuf, String)], crds: &[&Crd]) -> SampleCheck {
    let mut out = SampleCheck::default();
    for (path, text) in samples {
        let file = File { path, text };
        for (start, doc) in crate::yaml::split_documents(text) {
            match serde_saphyr::from_str::<Node>(doc) {
                Ok(node) => file.object(&node, start, crds, &mut out),
                Err(e) => {
                    let (line, column) = e
                        .location()
                        .map_or((1, 1), |l| (l.line() as usize, l.column() as usize));
                    let message = e.without_snippet().to_string();
                    out.warnings.push(
                        Diagnostic::warning(format!(
                            "not valid YAML: {}",
                            message.trim_start_matches("error: ")
                        ))
                        .at(file.location(
                            start + line.max(1) - 1,
                            column.max(1),
                            1,
                        )),
                    );
                }
            }
        }
    }
    out
}

/// A YAML node with where it starts: serde-saphyr's `Spanned` around each one.
type Node = Spanned<Yaml>;

#[derive(Debug)]
enum Yaml {
    Scalar(Value),
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

impl<'de> Deserialize<'de> for Yaml {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(YamlVisitor)
    }
}

struct YamlVisitor;

impl<'de> Visitor<'de> for YamlVisitor {
    type Value = Yaml;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML node")
    }
    fn visit_unit<E>(self) -> Result<Yaml, E> {
        Ok(Yaml::Scalar(Value::Null))
    }
    fn visit_none<E>(self) -> Result<Yaml, E> {
        Ok(Yaml::Scalar(Value::Null))
    }
    fn visit_bool<E>(self, b: bool) -> Result<Yaml, E> {
        Ok(Yaml::Scalar(Value::Bool(b)))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Yaml, E> {
        Ok(Yaml::Scalar(n.into()))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Yaml, E> {
        Ok(Yaml::Scalar(n.into()))
    }
    fn visit_f64<E>(self, n: f64) -> Result<Yaml, E> {
        // serde-saphyr refuses the non-finite floats JSON cannot hold.
        Ok(Yaml::Scalar(
            serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number),
        ))
    }
    fn visit_str<E>(self, s: &str) -> Result<Yaml, E> {
        Ok(Yaml::Scalar(Value::String(s.to_owned())))
    }
    fn visit_string<E>(self, s: String) -> Result<Yaml, E> {
        Ok(Yaml::Scalar(Value::String(s)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Yaml, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = a.next_element()? {
            items.push(item);
        }
        Ok(Yaml::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Yaml, A::Error> {
        let mut entries = Vec::new();
        while let Some(entry) = a.next_entry()? {
            entries.push(entry);
        }
        Ok(Yaml::Map(entries))
    }
}

/// A map key as JSON names it (sigs.k8s.io/yaml writes a scalar key as its text).
fn key_text(key: &Node) -> String {
    match &key.value {
        Yaml::Scalar(Value::String(s)) => s.clone(),
        Yaml::Scalar(v) => v.to_string(),
        _ => String::new(),
    }
}

fn to_json(node: &Node) -> Value {
    match &node.value {
        Yaml::Scalar(v) => v.clone(),
        Yaml::Seq(items) => Value::Array(items.iter().map(to_json).collect()),
        Yaml::Map(entries) => Value::Object(
            entries
                .iter()
                .map(|(k, v)| (key_text(k), to_json(v)))
                .collect(),
        ),
    }
}

/// The node `path` leads to, its key when the last step is a key, as far as the YAML holds
/// it (a defaulted field is not in the file: its closest ancestor is).
fn locate<'n>(root: &'n Node, path: &ValuePath) -> &'n Node {
    let mut at = root;
    for (i, step) in path.0.iter().enumerate() {
        let last = i + 1 == path.0.len();
        let next = match (step, &at.value) {
            (Step::Key(k), Yaml::Map(entries)) => entries
                .iter()
                .find(|(key, _)| key_text(key) == *k)
                // A field is named by its key.
                .map(|(key, value)| if last { key } else { value }),
            (Step::Index(i), Yaml::Seq(items)) => items.get(*i),
            _ => None,
        };
        match next {
            Some(n) => at = n,
            None => break,
        }
    }
    at
}

struct File<'a> {
    path: &'a PathBuf,
    text: &'a str,
}

impl File<'_> {
    fn location(&self, line: usize, column: usize, width: usize) -> Location {
        Location::new(self.path, line, column).with_source(self.text, width)
    }

    /// Where `node` of the document starting on line `start` is.
    fn at(&self, node: &Node, start: usize) -> Location {
        let l = &node.referenced;
        let width = match &node.value {
            Yaml::Scalar(_) => l.span().len() as usize,
            _ => 1,
        };
        self.location(
            start + (l.line() as usize).max(1) - 1,
            (l.column() as usize).max(1),
            width,
        )
    }

    /// Checks one document (`start` its first line) if it is an object of one of `crds`.
    fn object(&self, node: &Node, start: usize, crds: &[&Crd], out: &mut SampleCheck) {
        let object = to_json(node);
        let (Some(api_version), Some(kind)) = (
            object.get("apiVersion").and_then(Value::as_str),
            object.get("kind").and_then(Value::as_str),
        ) else {
            return;
        };
        let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
        let Some(crd) = crds.iter().find(|c| c.group == group && c.kind == kind) else {
            return;
        };
        let versions = crd.object["spec"]["versions"].as_array();
        let schema = versions
            .into_iter()
            .flatten()
            .find(|v| v["name"] == version)
            .and_then(|v| v["schema"]["openAPIV3Schema"].as_object());
        let Some(schema) = schema else {
            let names: Vec<&str> = versions
                .into_iter()
                .flatten()
                .filter_map(|v| v["name"].as_str())
                .collect();
            let field = locate(node, &ValuePath::default().key("apiVersion"));
            out.warnings.push(
                Diagnostic::warning(format!(
                    "{kind} has no version {version}: the API server would refuse this sample (no matches for kind \"{kind}\" in version \"{api_version}\")"
                ))
                .at(self.at(field, start))
                .help(format!(
                    "the CRD {} serves {}",
                    crd.file_name(),
                    names.join(", ")
                )),
            );
            return;
        };
        out.objects += 1;
        let mut found: Vec<Diagnostic> = findings(fit(&object, schema))
            .into_iter()
            .map(|f| {
                let text = if f.path.is_root() {
                    f.text
                } else {
                    format!("{:#}: {}", f.path, f.text)
                };
                let warning = Diagnostic::warning(text).at(self.at(locate(node, &f.path), start));
                match f.help {
                    Some(help) => warning.help(help),
                    None => warning,
                }
            })
            .collect();
        // In the order of the file, not of the checks.
        found.sort_by_key(|d| d.location.as_ref().map(|l| (l.line, l.column)));
        out.warnings.extend(found);
    }
}

/// One warning to give: the field (`.spec.foo`, as the API server names it), what is wrong
/// with it, and how to fix it when that is known.
struct Finding {
    path: ValuePath,
    text: String,
    help: Option<String>,
}

/// The violations as warnings, the required fields one object lacks named together.
fn findings(violations: Vec<(Violation, Option<&str>)>) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut missing: Vec<(ValuePath, Vec<String>)> = Vec::new();
    for (violation, note) in violations {
        let (path, text, help) = match violation.problem {
            Problem::UnknownField { name, known } => (
                violation.path.key(&name),
                "field not declared in schema; the API server would refuse it (server-side apply) or prune it (create)".to_owned(),
                Some(unknown_field_help(&name, &known)),
            ),
            Problem::Missing(name) => {
                match missing.iter_mut().find(|(p, _)| *p == violation.path) {
                    Some((_, names)) => names.push(name),
                    None => missing.push((violation.path, vec![name])),
                }
                continue;
            }
            Problem::Broken(message) => (violation.path, message, None),
        };
        let text = match note {
            Some(note) => format!("{text}; {note}"),
            None => text,
        };
        out.push(Finding { path, text, help });
    }
    for (path, names) in missing {
        let listed: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
        let text = match listed.as_slice() {
            [one] => format!("the required property {one} is missing"),
            many => format!("the required properties {} are missing", many.join(", ")),
        };
        out.push(Finding {
            path,
            text,
            help: None,
        });
    }
    out
}

/// Every way `object` breaks the version's `schema` once the API server has defaulted it,
/// each with what it means for the sample when it is not a refusal.
fn fit(object: &Value, schema: &Map<String, Value>) -> Vec<(Violation, Option<&'static str>)> {
    // The object's root is a resource: pruning keeps its apiVersion, kind and metadata.
    let mut root = schema.clone();
    root.insert("x-kubernetes-embedded-resource".into(), Value::Bool(true));
    let mut object = object.clone();
    values::apply_defaults(&mut object, &root);
    let mut refused = values::violations(&object, &root);
    refused.extend(values::list_duplicates(&object, &root));
    // The API server runs the rules on an object that fits the rest of the schema.
    if refused.is_empty() {
        refused = eval::violations(&object, &root);
    }
    let overflows = values::format_overflows(&object, &root)
        .into_iter()
        .map(|v| {
            (
                v,
                Some("the API server accepts it, but the operator cannot deserialize it"),
            )
        });
    refused
        .into_iter()
        .map(|v| (v, None))
        .chain(overflows)
        .collect()
}

fn unknown_field_help(name: &str, known: &[String]) -> String {
    if let Some(near) = closest(name, known.iter().map(String::as_str)) {
        return format!("did you mean `{near}`?");
    }
    if known.is_empty() {
        return "remove it from the sample: the schema declares no field here".into();
    }
    let listed: Vec<String> = known.iter().map(|k| format!("`{k}`")).collect();
    format!(
        "remove or rename it in the sample: the schema declares {} here",
        listed.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const HEAD: &str = "apiVersion: demo.example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  labels:\n    app: demo\n";

    /// The CRD of a `Widget` whose v1 spec has `spec_schema`.
    fn widget(spec_schema: Value) -> Crd {
        Crd {
            group: "demo.example.com".into(),
            kind: "Widget".into(),
            plural: "widgets".into(),
            object: json!({"spec": {"group": "demo.example.com", "names": {"kind": "Widget"},
                "versions": [{"name": "v1", "schema": {"openAPIV3Schema": {"type": "object",
                    "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"},
                        "metadata": {"type": "object"}, "spec": spec_schema}}}}]}}),
        }
    }

    /// Each warning as `line:column: message (help)`.
    fn run(crd: Crd, text: &str) -> (usize, Vec<String>) {
        let found = check(
            &[(PathBuf::from("config/samples/w.yaml"), text.to_owned())],
            &[&crd],
        );
        let shown = found
            .warnings
            .iter()
            .map(|d| {
                let at = d.location.as_ref().expect("located");
                assert_eq!(at.file, PathBuf::from("config/samples/w.yaml"));
                match &d.help {
                    Some(help) => format!("{}:{}: {} ({help})", at.line, at.column, d.message),
                    None => format!("{}:{}: {}", at.line, at.column, d.message),
                }
            })
            .collect();
        (found.objects, shown)
    }

    /// The warnings of a Widget whose spec is `spec` (YAML lines under `spec:`, line 8 on).
    fn spec_warnings(spec_schema: Value, spec: &str) -> Vec<String> {
        let (objects, warnings) = run(widget(spec_schema), &format!("{HEAD}spec:\n{spec}"));
        assert_eq!(objects, 1);
        warnings
    }

    fn props(p: Value) -> Value {
        json!({"type": "object", "properties": p})
    }

    const UNKNOWN: &str = "field not declared in schema; the API server would refuse it (server-side apply) or prune it (create)";

    #[test]
    fn an_unknown_field_is_located_with_its_path_and_a_suggestion() {
        let schema =
            props(json!({"size": {"type": "integer"}, "containerPort": {"type": "integer"}}));
        assert_eq!(
            spec_warnings(schema.clone(), "  foo: bar\n"),
            [format!(
                "8:3: .spec.foo: {UNKNOWN} (remove or rename it in the sample: the schema declares `containerPort`, `size` here)"
            )]
        );
        assert_eq!(
            spec_warnings(schema, "  size: 1\n  containerport: 80\n"),
            [format!(
                "9:3: .spec.containerport: {UNKNOWN} (did you mean `containerPort`?)"
            )]
        );
    }

    #[test]
    fn unknown_fields_inside_lists_and_maps() {
        let schema = props(json!({
            "ports": {"type": "array", "items": props(json!({"port": {"type": "integer"}}))},
            "limits": {"type": "object", "additionalProperties": props(json!({"max": {"type": "integer"}}))}
        }));
        assert_eq!(
            spec_warnings(
                schema,
                "  ports:\n  - port: 80\n  - port: 81\n    name: http\n  limits:\n    cpu: {max: 2, min: 1}\n"
            ),
            [
                format!(
                    "11:5: .spec.ports[1].name: {UNKNOWN} (remove or rename it in the sample: the schema declares `port` here)"
                ),
                format!("13:19: .spec.limits.cpu.min: {UNKNOWN} (did you mean `max`?)"),
            ]
        );
    }

    #[test]
    fn types_enums_bounds_patterns_and_formats() {
        let schema = props(json!({
            "size": {"type": "integer", "format": "int32", "minimum": 1, "maximum": 5},
            "mode": {"type": "string", "enum": ["Fast", "Safe"]},
            "name": {"type": "string", "pattern": "^[a-z]+$"},
            "since": {"type": "string", "format": "date-time"},
            "enabled": {"type": "boolean"}
        }));
        assert!(
            spec_warnings(
                schema.clone(),
                "  size: 3\n  mode: Safe\n  name: abc\n  since: 2024-01-15T10:00:00Z\n  enabled: true\n"
            )
            .is_empty()
        );
        assert_eq!(
            spec_warnings(
                schema,
                "  size: 7\n  mode: Slow\n  name: aBc\n  since: yesterday\n  enabled: \"true\"\n"
            ),
            [
                "8:3: .spec.size: 7 must be at most 5 (maximum)",
                "9:3: .spec.mode: \"Slow\" is not one of the enum values [\"Fast\", \"Safe\"]",
                "10:3: .spec.name: \"aBc\" does not match the pattern `^[a-z]+$`",
                "11:3: .spec.since: \"yesterday\" is not a valid date-time (format)",
                "12:3: .spec.enabled: expected boolean, found string \"true\"",
            ]
        );
    }

    #[test]
    fn required_fields_unless_defaulted_and_non_nullable_nulls() {
        let schema = json!({"type": "object", "required": ["image", "replicas"], "properties": {
            "image": {"type": "string"},
            "replicas": {"type": "integer", "default": 1, "minimum": 1},
            "note": {"type": "string"}
        }});
        // The API server defaults `replicas` and drops a null that is not nullable.
        assert!(spec_warnings(schema.clone(), "  image: memcached\n  note: ~\n").is_empty());
        assert_eq!(
            spec_warnings(schema.clone(), "  replicas: 2\n"),
            ["7:1: .spec: the required property `image` is missing"]
        );
        // Every field an object lacks in one warning.
        let two = json!({"type": "object", "required": ["b", "a"], "properties": {
            "a": {"type": "string"}, "b": {"type": "string"}}});
        assert_eq!(
            spec_warnings(props(json!({"inner": two})), "  inner: {}\n"),
            ["8:3: .spec.inner: the required properties `b`, `a` are missing"]
        );
        // A null with a default takes the default.
        assert!(spec_warnings(schema, "  image: x\n  replicas: null\n").is_empty());
    }

    #[test]
    fn int_or_string_preserved_unknown_fields_and_embedded_resources() {
        let schema = props(json!({
            "maxUnavailable": {"x-kubernetes-int-or-string": true,
                "anyOf": [{"type": "integer"}, {"type": "string"}]},
            "config": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            "template": {"type": "object", "x-kubernetes-embedded-resource": true,
                "properties": {"metadata": {"type": "object"}, "spec": {"type": "object",
                    "properties": {"replicas": {"type": "integer"}}}}}
        }));
        let fine = "  maxUnavailable: 25%\n  config:\n    anything: {goes: here}\n  template:\n    apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: t\n      labels: {a: b}\n    spec:\n      replicas: 1\n";
        assert!(spec_warnings(schema.clone(), fine).is_empty());
        assert!(spec_warnings(schema.clone(), "  maxUnavailable: 1\n").is_empty());
        assert_eq!(
            spec_warnings(schema, "  maxUnavailable: true\n  template:\n    spec:\n      size: 1\n"),
            [
                "8:3: .spec.maxUnavailable: true matches none of anyOf: expected integer, found boolean true; expected string, found boolean true".to_owned(),
                format!(
                    "11:7: .spec.template.spec.size: {UNKNOWN} (remove or rename it in the sample: the schema declares `replicas` here)"
                ),
            ]
        );
    }

    #[test]
    fn cel_rules_run_once_the_object_fits_the_schema() {
        let schema = json!({"type": "object", "properties": {
            "min": {"type": "integer"}, "max": {"type": "integer"}},
            "x-kubernetes-validations": [{"rule": "self.min <= self.max", "message": "min must not exceed max"}]});
        assert!(spec_warnings(schema.clone(), "  min: 1\n  max: 2\n").is_empty());
        assert_eq!(
            spec_warnings(schema.clone(), "  min: 3\n  max: 2\n"),
            ["7:1: .spec: min must not exceed max (rule `self.min <= self.max`)"]
        );
        // A value the schema refuses is reported, not run through the rules.
        assert_eq!(
            spec_warnings(schema, "  min: x\n  max: 2\n"),
            ["8:3: .spec.min: expected integer, found string \"x\""]
        );
    }

    #[test]
    fn numbers_too_large_for_the_rust_type() {
        let schema = props(json!({"size": {"type": "integer", "format": "int32"}}));
        assert_eq!(
            spec_warnings(schema, "  size: 3000000000\n"),
            [
                "8:3: .spec.size: 3000000000 does not fit format int32; the API server accepts it, but the operator cannot deserialize it"
            ]
        );
    }

    #[test]
    fn other_kinds_are_skipped_and_a_missing_version_is_named() {
        let crd = widget(props(json!({"size": {"type": "integer"}})));
        let text = format!(
            "apiVersion: v1\nkind: ConfigMap\ndata: {{a: b}}\n---\n# just a comment\n---\napiVersion: other.io/v1\nkind: Widget\nspec: {{foo: 1}}\n---\n{}spec:\n  size: x\n---\napiVersion: demo.example.com/v2\nkind: Widget\n",
            HEAD
        );
        let (objects, warnings) = run(crd, &text);
        assert_eq!(objects, 1);
        assert_eq!(
            warnings,
            [
                "18:3: .spec.size: expected integer, found string \"x\"",
                "20:1: Widget has no version v2: the API server would refuse this sample (no matches for kind \"Widget\" in version \"demo.example.com/v2\") (the CRD demo.example.com_widgets.yaml serves v1)",
            ]
        );
    }

    #[test]
    fn yaml_errors_are_warnings_at_their_line() {
        let crd = widget(props(json!({})));
        let (objects, warnings) = run(crd, "a: 1\n---\nspec: [\n");
        assert_eq!(objects, 0);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].starts_with("3:7: not valid YAML: "),
            "{warnings:?}"
        );
    }
}
