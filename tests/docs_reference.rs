//! `opgen docs` against crd-ref-docs (tools/crd-ref-docs/setup.sh), live: Go API packages of the
//! corpus (tests/fixtures/import-go/shop, and published modules of `GO_CORPUS` fetched from the Go
//! module proxy at their pinned versions) are imported with `opgen import go` and documented with
//! `opgen docs`; crd-ref-docs documents the Go packages themselves (through the template
//! `tests/fixtures/docs/crd-ref-docs/gv_list.tpl`, which prints what its own Markdown templates
//! show as lines). Per kind and type, by name, and per field, by JSON name: the same kinds,
//! fields, types, required flags (where crd-ref-docs states one: it reads only explicit
//! `+required`/`+optional` markers) and defaults. Every disagreement is listed with its reason in
//! docs/conformance/docs.md, which this test checks (`OPGEN_REGEN=1` rewrites its generated
//! part). opgen's Markdown also passes markdownlint-cli2 (tools/markdownlint/setup.sh; line
//! length aside) and every link in it resolves; its AsciiDoc converts with Asciidoctor.js
//! without a warning (tools/asciidoctor/setup.sh), its HTML passes html-validate
//! (tools/html-validate/setup.sh), and their links resolve too.
//!
//! Without crd-ref-docs, a linter or Go a test says so and compares nothing; under `CI=true`
//! that is a failure.

#[path = "fixtures/controller-gen/harness.rs"]
mod harness;
mod support;

use harness::{GoModule, go_module};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The cases, in the order docs/conformance/docs.md lists them.
const CASES: &[(&str, &str)] = &[
    ("import-go/shop", "api/..."),
    ("sigs.k8s.io/gateway-api", "apis/v1"),
    ("sigs.k8s.io/jobset", "api/..."),
    ("github.com/cert-manager/cert-manager", "pkg/apis/..."),
    ("sigs.k8s.io/kueue", "apis/kueue/..."),
    (
        "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring",
        "...",
    ),
    ("github.com/kedacore/keda/v2", "apis/..."),
];

const CONFORMANCE_DOC: &str = "docs/conformance/docs.md";
const GENERATED_START: &str = "<!-- figures: written by tests/docs_reference.rs -->";
const GENERATED_END: &str = "<!-- end of figures -->";

fn ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

fn skip(why: &str) {
    assert!(!ci(), "CI=true: {why}");
    eprintln!("docs_reference: not compared: {why}");
}

/// `tools/<tool>/setup.sh`'s VERSION line.
fn pinned(tool: &str) -> String {
    let script = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tools/{tool}/setup.sh")),
    )
    .unwrap();
    script
        .lines()
        .find_map(|l| l.strip_prefix("VERSION="))
        .expect("a VERSION= line")
        .to_owned()
}

/// `$<var>`, else the binary `setup.sh` caches at `rel` below its version's directory.
fn tool(var: &str, name: &str, rel: &str) -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(var) {
        return Some(PathBuf::from(path));
    }
    let cache = match std::env::var_os("OPGEN_CACHE_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(std::env::var_os("HOME")?).join(".cache/opgen"),
    };
    let bin = cache.join(name).join(pinned(name)).join(rel);
    bin.is_file().then_some(bin)
}

/// What one side documents: per group version and type (kinds by their name too), each field's
/// JSON name with its type, required flag (None: not stated) and default.
type Reference = BTreeMap<(String, String), BTreeMap<String, FieldView>>;

#[derive(Debug, Clone, PartialEq)]
struct FieldView {
    ty: String,
    required: Option<bool>,
    default: String,
}

/// `[Name](link)` as `Name`.
fn unlink(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match (after.find("]("), after.find(')')) {
            (Some(close), Some(end)) if close < end => {
                out.push_str(&after[..close]);
                rest = &after[end + 1..];
            }
            _ => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// crd-ref-docs' lines; List kinds (which have no CRD of their own) are left out, and returned.
fn theirs(text: &str) -> (Reference, BTreeSet<(String, String)>, Vec<String>) {
    let mut reference = Reference::new();
    let mut kinds = BTreeSet::new();
    let mut lists = Vec::new();
    for line in text.lines() {
        let cols: Vec<&str> = line.split('\t').collect();
        match cols.as_slice() {
            ["KIND", gv, kind] if kind.ends_with("List") => lists.push(format!("{gv} {kind}")),
            ["KIND", gv, kind] => {
                kinds.insert((gv.to_string(), kind.to_string()));
            }
            ["TYPE", gv, name]
                if !name.ends_with("List") || !text.contains(&format!("KIND\t{gv}\t{name}")) =>
            {
                reference
                    .entry((gv.to_string(), name.to_string()))
                    .or_default();
            }
            ["FIELD", gv, ty_name, field, ty, default, validation] => {
                let Some(fields) = reference.get_mut(&(gv.to_string(), ty_name.to_string())) else {
                    continue;
                };
                let required = if validation.contains("Required: {}") {
                    Some(true)
                } else if validation.contains("Optional: {}") {
                    Some(false)
                } else {
                    None
                };
                let ty = unlink(ty);
                // `object (keys:K, values:V)`: opgen's maps have string keys (a Go key type's
                // name is not kept), so only the value type is compared.
                let ty = match ty
                    .strip_prefix("object (keys:")
                    .and_then(|t| t.split_once(", values:"))
                    .and_then(|(_, v)| v.strip_suffix(')'))
                {
                    Some(value) => format!("map of {value}"),
                    None => ty,
                };
                fields.insert(
                    field.to_string(),
                    FieldView {
                        ty,
                        required,
                        default: default.to_string(),
                    },
                );
            }
            _ => {}
        }
    }
    (reference, kinds, lists)
}

/// opgen's documents, read back from their Markdown.
fn ours(docs: &BTreeMap<String, String>) -> (Reference, BTreeSet<(String, String)>) {
    let mut reference = Reference::new();
    let mut kinds = BTreeSet::new();
    for text in docs.values() {
        let Some(gv) = text.lines().next().and_then(|l| l.strip_prefix("# ")) else {
            continue;
        };
        let mut current: Option<(String, String)> = None;
        let mut last_field: Option<String> = None;
        for line in text.lines() {
            if let Some(name) = line.strip_prefix("## ") {
                current = None;
                if name != "Kinds" && name != "Types" {
                    kinds.insert((gv.to_owned(), name.to_owned()));
                    reference
                        .entry((gv.to_owned(), name.to_owned()))
                        .or_default();
                    current = Some((gv.to_owned(), name.to_owned()));
                }
            } else if let Some(title) = line.strip_prefix("### ") {
                // `Name (module)`: a second type of the name.
                let name = title.split(" (").next().unwrap_or(title);
                let key = (gv.to_owned(), name.to_owned());
                reference.entry(key.clone()).or_default();
                current = Some(key);
            } else if let (Some(key), Some(rest)) = (&current, line.strip_prefix("- `")) {
                let Some((name, rest)) = rest.split_once("` (") else {
                    continue;
                };
                let (ty, required) = if let Some(ty) = rest.strip_suffix("), required") {
                    (ty, true)
                } else if let Some(ty) = rest.strip_suffix("), optional") {
                    (ty, false)
                } else {
                    continue;
                };
                // apiVersion and kind: crd-ref-docs' configuration leaves TypeMeta out.
                if kinds.contains(key) && (name == "apiVersion" || name == "kind") {
                    continue;
                }
                reference.entry(key.clone()).or_default().insert(
                    name.to_owned(),
                    FieldView {
                        ty: unlink(ty),
                        required: Some(required),
                        default: String::new(),
                    },
                );
                last_field = Some(name.to_owned());
            } else if let (Some(key), Some(field), Some(default)) =
                (&current, &last_field, line.strip_prefix("  - Default: "))
            {
                let default: serde_json::Value =
                    serde_json::from_str(default.trim_matches('`').trim()).unwrap_or_else(|_| {
                        serde_json::Value::String(default.trim_matches('`').trim().to_owned())
                    });
                if let Some(f) = reference.get_mut(key).and_then(|t| t.get_mut(field)) {
                    f.default = go_format(&default, true);
                }
            }
        }
    }
    (reference, kinds)
}

/// A JSON value as crd-ref-docs prints a marker's default: Go's `%v`, a top-level map as
/// `{ k:v }`.
fn go_format(v: &serde_json::Value, top: bool) -> String {
    use serde_json::Value;
    match v {
        Value::Null => "<nil>".into(),
        Value::String(s) => s.clone(),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(|i| go_format(i, false)).collect();
            format!("[{}]", items.join(" "))
        }
        Value::Object(map) => {
            let pairs: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{k}:{}", go_format(v, false)))
                .collect();
            if top {
                format!("{{ {} }}", pairs.join(" "))
            } else {
                format!("map[{}]", pairs.join(" "))
            }
        }
        other => other.to_string(),
    }
}

/// Why opgen's view differs from crd-ref-docs' (docs/conformance/docs.md explains each);
/// `what` is the kind of disagreement, then both sides' text. None: not explained, which fails
/// the test.
fn reason(what: &str, at: &str, ours: &str, theirs: &str) -> Option<&'static str> {
    Some(match what {
        "type" if theirs == "integer array" && ours == "string" => "[]byte",
        "type" if theirs == "Duration" && ours == "string" => "metav1.Duration",
        "type" if ours == "object" || ours == "JSON" => "schema replaced",
        // The shop's Schemaless `timeout`, whose Type marker names its JSON.
        "type" if theirs == "Timeout" && ours == "string" => "schema replaced",
        // `import go` wraps a spec (status) type another kind owns in `<Kind>Spec` (`Status`).
        "type"
            if (at.ends_with(".spec") && ours.ends_with("Spec"))
                || (at.ends_with(".status") && ours.ends_with("Status")) =>
        {
            "wrapper"
        }
        "required" if at.ends_with(".spec") && ours == "true" => "spec required",
        "kind only opgen" => "no root marker",
        "kind only crd-ref-docs" if theirs == "Configuration" => "no CRD",
        "field only opgen" | "field only crd-ref-docs"
            if at.ends_with("ObjectReference")
                || at.ends_with("Route53KubernetesAuth")
                || at.ends_with("TopologyAssignmentSliceLevelIndividualValues") =>
        {
            "crd-ref-docs leaves fields out"
        }
        // An embedded TypeMeta: crd-ref-docs' configuration leaves it out, as for kinds.
        "field only opgen" if ours == "apiVersion" || ours == "kind" => "TypeMeta",
        // A Go type defined as another (`type A B`, `type As []A`) has no fields of its own in
        // opgen's section, which links the type it is.
        // A Go type with its own MarshalJSON and a Type marker is that JSON in opgen's section;
        // crd-ref-docs lists its Go fields, unexported ones too.
        "field only crd-ref-docs" if at.ends_with(" Grade.letter") => "own JSON",
        "field only crd-ref-docs" if ours == "alias" => "alias",
        "type" if theirs.starts_with("map of ") && ours == format!("{theirs} array") => {
            "map of slices"
        }
        _ => return None,
    })
}

#[derive(Default)]
struct Figures {
    kinds: (usize, usize),
    types: (usize, usize),
    fields: (usize, usize),
    types_agree: usize,
    required_stated: usize,
    required_agree: usize,
    defaults_stated: usize,
    defaults_agree: usize,
    lists: usize,
    /// Types crd-ref-docs documents that no kind reaches.
    unreached: Vec<String>,
    /// Each disagreement with its reason (None: unexplained).
    disagreements: Vec<(String, Option<&'static str>)>,
}

impl Figures {
    fn push(&mut self, what: String, why: Option<&'static str>) {
        self.disagreements.push((what, why));
    }
}

fn compare(theirs_text: &str, docs: &BTreeMap<String, String>) -> Figures {
    let (t_ref, t_kinds, lists) = theirs(theirs_text);
    let (o_ref, o_kinds) = ours(docs);
    let mut f = Figures {
        kinds: (t_kinds.intersection(&o_kinds).count(), t_kinds.len()),
        lists: lists.len(),
        ..Figures::default()
    };
    for k in t_kinds.symmetric_difference(&o_kinds) {
        let side = if t_kinds.contains(k) {
            "only crd-ref-docs"
        } else {
            "only opgen"
        };
        let why = reason(&format!("kind {side}"), &k.0, "", &k.1);
        f.push(format!("kind {} {}: {side}", k.0, k.1), why);
    }
    f.types.1 = t_ref.len();
    for (key, t_fields) in &t_ref {
        let Some(o_fields) = o_ref.get(key) else {
            // crd-ref-docs documents every type of the package something refers to; opgen
            // those the kinds reach.
            f.unreached.push(format!("{} {}", key.0, key.1));
            continue;
        };
        f.types.0 += 1;
        f.fields.1 += t_fields.len();
        for (name, t) in t_fields {
            let at = format!("{} {}.{name}", key.0, key.1);
            let Some(o) = o_fields.get(name) else {
                let alias = if o_fields.is_empty() { "alias" } else { "" };
                let why = reason("field only crd-ref-docs", &at, alias, "");
                f.push(format!("{at}: only crd-ref-docs"), why);
                continue;
            };
            f.fields.0 += 1;
            if o.ty == t.ty {
                f.types_agree += 1;
            } else {
                let why = reason("type", &at, &o.ty, &t.ty);
                f.push(
                    format!("{at}: type `{}` (opgen), `{}` (crd-ref-docs)", o.ty, t.ty),
                    why,
                );
            }
            if let Some(req) = t.required {
                f.required_stated += 1;
                if o.required == Some(req) {
                    f.required_agree += 1;
                } else {
                    let ours = o.required.unwrap_or_default().to_string();
                    let why = reason("required", &at, &ours, &req.to_string());
                    f.push(
                        format!("{at}: required {ours} (opgen), {req} (crd-ref-docs)"),
                        why,
                    );
                }
            }
            if !t.default.is_empty() {
                f.defaults_stated += 1;
                if o.default == t.default {
                    f.defaults_agree += 1;
                } else {
                    let why = reason("default", &at, &o.default, &t.default);
                    f.push(
                        format!(
                            "{at}: default `{}` (opgen), `{}` (crd-ref-docs)",
                            o.default, t.default
                        ),
                        why,
                    );
                }
            }
        }
        for name in o_fields.keys().filter(|n| !t_fields.contains_key(*n)) {
            let at = format!("{} {}", key.0, key.1);
            let why = reason("field only opgen", &at, name, "");
            f.push(format!("{at}.{name}: only opgen"), why);
        }
    }
    f
}

/// Every `](#anchor)` resolves to a heading of its document, every `](file.md)` to a document.
fn check_links(docs: &BTreeMap<String, String>) {
    for (file, text) in docs {
        let anchors: BTreeSet<String> = text
            .lines()
            .filter(|l| l.starts_with('#'))
            .map(|l| anchor(l.trim_start_matches('#').trim()))
            .collect();
        // Code spans hold no links.
        let prose: String = text
            .lines()
            .map(|l| l.split('`').step_by(2).collect::<String>() + "\n")
            .collect();
        for (i, _) in prose.match_indices("](") {
            if prose[..i].ends_with('\\') {
                continue; // `\](`: an escaped bracket, not a link
            }
            let target = &prose[i + 2..];
            let target = &target[..target.find(')').expect("a closed link")];
            if let Some(a) = target.strip_prefix('#') {
                assert!(
                    anchors.contains(a),
                    "{file}: link to #{a}, which no heading has"
                );
            } else if !target.starts_with("https://") {
                assert!(
                    docs.contains_key(target),
                    "{file}: link to {target}, no such document"
                );
            }
        }
    }
}

/// GitHub's (and markdownlint's) anchor of a heading.
fn anchor(heading: &str) -> String {
    heading
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

fn run(cmd: &mut Command, what: &str) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs the referee `bin`'s check `cmd` on inputs `question` names (their contents, not their
/// paths), unless the same binary passed the same question in an earlier run in this target
/// directory: a pass is kept ([`support::referee_runs`]), a failure never is.
fn run_unless_passed(cmd: &mut Command, bin: &Path, question: &str, what: &str) {
    use support::referee_runs::{RefereeRuns, identity_on_path};
    // The JavaScript linters run on the node on PATH.
    let node = identity_on_path("node").unwrap_or_else(|| "no node".into());
    RefereeRuns::of(bin, &format!("{question}; {node}")).kept_or(|| {
        run(cmd, what);
        BTreeMap::new()
    });
}

/// The checkers of each format's documents.
struct Linters {
    markdownlint: PathBuf,
    asciidoctor: PathBuf,
    html_validate: PathBuf,
}

/// Every file of `dir` with extension `ext`, by file name.
fn documents(dir: &Path, ext: &str) -> BTreeMap<String, String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect()
}

/// In each document, every `<open>target<close>` link to `#anchor`, `file#anchor` or (with
/// `bare_is_anchor`, AsciiDoc's `<<anchor,text>>`) `anchor` resolves to an anchor `ids` finds in
/// that document.
fn check_format_links(
    docs: &BTreeMap<String, String>,
    ids: impl Fn(&str) -> BTreeSet<String>,
    open: &str,
    close: char,
    bare_is_anchor: bool,
) {
    let anchors: BTreeMap<&String, BTreeSet<String>> =
        docs.iter().map(|(f, t)| (f, ids(t))).collect();
    for (file, text) in docs {
        for (i, _) in text.match_indices(open) {
            let target = &text[i + open.len()..];
            let target = &target[..target.find(close).expect("a closed link")];
            if target.starts_with("https://") || target.starts_with("http://") {
                continue;
            }
            let (doc, anchor) = match target.split_once('#') {
                Some(split) => split,
                None if bare_is_anchor => ("", target),
                None => (target, ""),
            };
            let doc = if doc.is_empty() {
                file
            } else {
                &doc.to_owned()
            };
            let Some(in_doc) = anchors.get(doc) else {
                panic!("{file}: link to {target}, no such document");
            };
            assert!(
                anchor.is_empty() || in_doc.contains(anchor),
                "{file}: link to {target}, which no anchor has"
            );
        }
    }
}

/// `opgen docs --format asciidoc` and `--format html` on the project: Asciidoctor converts each
/// AsciiDoc document without a warning, html-validate passes each HTML page, and every
/// internal link of both resolves.
fn check_other_formats(
    project: &Path,
    out: &Path,
    linters: &Linters,
    opgen: impl Fn(&[&str]) -> String,
) {
    opgen(&["docs", "--format", "asciidoc"]);
    opgen(&["docs", "--format", "html"]);
    let docs_dir = project.join("docs/api");
    let adoc = documents(&docs_dir, "adoc");
    assert!(adoc.contains_key("README.adoc"), "{:?}", adoc.keys());
    let digest = support::referee_runs::digest_of_tree(&docs_dir);
    let mut asciidoctor = Command::new(&linters.asciidoctor);
    asciidoctor
        .args(["--failure-level", "WARN", "--destination-dir"])
        .arg(out)
        .args(adoc.keys())
        .current_dir(&docs_dir);
    run_unless_passed(
        &mut asciidoctor,
        &linters.asciidoctor,
        &format!(
            "--failure-level WARN {:?} in docs/api holding {digest}",
            adoc.keys()
        ),
        "asciidoctor on opgen's AsciiDoc reference",
    );
    let between = |text: &str, open: &str, close: &str| -> BTreeSet<String> {
        text.match_indices(open)
            .filter_map(|(i, _)| {
                let rest = &text[i + open.len()..];
                rest.find(close).map(|e| rest[..e].to_owned())
            })
            .collect()
    };
    check_format_links(&adoc, |t| between(t, "[[", "]]"), "<<", ',', true);
    check_format_links(&adoc, |t| between(t, "[[", "]]"), "xref:", '[', false);
    let html = documents(&docs_dir, "html");
    assert!(html.contains_key("index.html"), "{:?}", html.keys());
    let mut validate = Command::new(&linters.html_validate);
    validate.args(html.keys()).current_dir(&docs_dir);
    run_unless_passed(
        &mut validate,
        &linters.html_validate,
        &format!("{:?} in docs/api holding {digest}", html.keys()),
        "html-validate on opgen's HTML reference",
    );
    check_format_links(&html, |t| between(t, " id=\"", "\""), "href=\"", '"', false);
}

fn one_case(go: &GoModule, crd_ref_docs: &Path, linters: &Linters) -> Option<Figures> {
    let tmp = tempfile::tempdir().unwrap();
    // Go's build cache finds the module's packages compiled in the next run at this path.
    let src = support::same_path_each_run(&format!(
        "docs-reference-{}-{}",
        go.module.replace('/', "_"),
        go.package.replace(['/', '.'], "_")
    ));
    let original = if go.version.is_empty() {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(go.module)
    } else {
        harness::module_dir(go.module, go.version)?
    };
    support::copy_tree(&original, &src);
    let project = tmp.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let opgen = |args: &[&str]| {
        run(
            Command::new(support::opgen_bin())
                .args(args)
                .current_dir(&project)
                .env("GOFLAGS", "-mod=mod")
                .env("GOWORK", "off"),
            &format!("opgen {args:?}"),
        )
    };
    opgen(&[
        "init",
        "--domain",
        "example.com",
        "--project-name",
        "imported",
    ]);
    if go.multigroup {
        opgen(&["edit", "--multigroup"]);
    }
    let paths = format!("./{}", go.package);
    let mut args = vec!["import", "go", src.to_str().unwrap(), "--paths", &paths];
    if go.args.contains("generateEmbeddedObjectMeta=true") {
        args.push("--generate-embedded-object-meta");
    }
    opgen(&args);
    opgen(&["docs"]);
    opgen(&["docs", "--check"]);
    let docs = documents(&project.join("docs/api"), "md");
    check_links(&docs);
    // Line length (MD013) aside: descriptions keep their authors' wrapping.
    let config = tmp.path().join("docs.markdownlint.jsonc");
    let rules = "{ \"MD013\": false }\n";
    std::fs::write(&config, rules).unwrap();
    run_unless_passed(
        Command::new(&linters.markdownlint)
            .arg("--config")
            .arg(&config)
            .arg("docs/api/*.md")
            .current_dir(&project),
        &linters.markdownlint,
        &format!(
            "--config {rules:?} docs/api/*.md, docs/api holding {}",
            support::referee_runs::digest_of_tree(&project.join("docs/api"))
        ),
        "markdownlint-cli2 on opgen's reference",
    );
    check_other_formats(&project, &tmp.path().join("converted"), linters, opgen);
    let package_dir = go.package.trim_end_matches("...").trim_end_matches('/');
    let lines = crd_ref_docs_lines(go, crd_ref_docs, &src, package_dir, tmp.path());
    Some(compare(&lines, &docs))
}

/// crd-ref-docs' Markdown for the Go packages at `package_dir` of `go`'s sources `src`. Its
/// answer for the same module version (or, for a module of tests/fixtures, the same files), its
/// templates and binaries (its own and the `go` that loads the packages) is kept in the target
/// directory ([`support::referee_runs`]) for the next run.
fn crd_ref_docs_lines(
    go: &GoModule,
    crd_ref_docs: &Path,
    src: &Path,
    package_dir: &str,
    tmp: &Path,
) -> String {
    use support::referee_runs::{RefereeRuns, digest_of_tree, identity_on_path};
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/docs/crd-ref-docs");
    let sources = if go.version.is_empty() {
        format!("files {}", digest_of_tree(src))
    } else {
        format!("{}@{}", go.module, go.version)
    };
    let question = format!(
        "--source-path={package_dir} of {sources} --renderer=markdown, config and templates {}; {}",
        digest_of_tree(&fixtures),
        identity_on_path("go").expect("go is on PATH"),
    );
    let mut kept = RefereeRuns::of(crd_ref_docs, &question).kept_or(|| {
        let out = tmp.join("crd-ref-docs.txt");
        run(
            Command::new(crd_ref_docs)
                .arg(format!("--source-path={}", src.join(package_dir).display()))
                .arg(format!(
                    "--config={}",
                    fixtures.join("config.yaml").display()
                ))
                .arg("--renderer=markdown")
                .arg(format!("--templates-dir={}", fixtures.display()))
                .arg(format!("--output-path={}", out.display()))
                .current_dir(src)
                .env("GOFLAGS", "-mod=mod")
                .env("GOWORK", "off"),
            "crd-ref-docs",
        );
        let lines = std::fs::read_to_string(&out).unwrap();
        BTreeMap::from([("out.md".to_owned(), lines)])
    });
    kept.remove("out.md")
        .expect("crd-ref-docs' output is kept as out.md")
}

#[test]
fn reference_agrees_with_crd_ref_docs() {
    let Some(crd_ref_docs) = tool("CRD_REF_DOCS", "crd-ref-docs", "crd-ref-docs") else {
        return skip("no crd-ref-docs (run tools/crd-ref-docs/setup.sh)");
    };
    let Some(markdownlint) = tool(
        "MARKDOWNLINT",
        "markdownlint",
        "node_modules/.bin/markdownlint-cli2",
    ) else {
        return skip("no markdownlint-cli2 (run tools/markdownlint/setup.sh)");
    };
    let Some(asciidoctor) = tool(
        "ASCIIDOCTOR",
        "asciidoctor",
        "node_modules/.bin/asciidoctor",
    ) else {
        return skip("no asciidoctor (run tools/asciidoctor/setup.sh)");
    };
    let Some(html_validate) = tool(
        "HTML_VALIDATE",
        "html-validate",
        "node_modules/.bin/html-validate",
    ) else {
        return skip("no html-validate (run tools/html-validate/setup.sh)");
    };
    let linters = Linters {
        markdownlint,
        asciidoctor,
        html_validate,
    };
    if Command::new("go").arg("version").output().is_err() {
        return skip("no Go on PATH");
    }
    let mut table = String::from(
        "| module | kinds | types | fields | types agree | required (stated by crd-ref-docs) | defaults |\n| --- | --- | --- | --- | --- | --- | --- |\n",
    );
    let mut listed = String::new();
    let mut unexplained = Vec::new();
    // Two at a time: each mostly waits on one single-threaded referee or opgen run.
    let figures = support::two_at_a_time(CASES, |(module, package)| {
        one_case(go_module(module, package), &crd_ref_docs, &linters)
    });
    for ((module, package), f) in CASES.iter().zip(figures) {
        let Some(f) = f else {
            return;
        };
        let _ = writeln!(
            table,
            "| {module} `{package}` | {}/{} | {}/{} | {}/{} | {}/{} | {}/{} | {}/{} |",
            f.kinds.0,
            f.kinds.1,
            f.types.0,
            f.types.1,
            f.fields.0,
            f.fields.1,
            f.types_agree,
            f.fields.0,
            f.required_agree,
            f.required_stated,
            f.defaults_agree,
            f.defaults_stated
        );
        let _ = writeln!(
            listed,
            "\n### {module} `{package}`\n\n{} List kinds left out (crd-ref-docs lists `<Kind>List` types, which have no CRD of their own).\n",
            f.lists
        );
        if !f.unreached.is_empty() {
            let names: Vec<String> = f
                .unreached
                .iter()
                .map(|t| format!("`{}`", t.rsplit(' ').next().unwrap_or(t)))
                .collect();
            let _ = writeln!(
                listed,
                "{} types crd-ref-docs documents in their group version that no kind of it reaches: {}.\n",
                names.len(),
                names.join(", ")
            );
        }
        for (what, why) in &f.disagreements {
            let why = why.unwrap_or_else(|| {
                unexplained.push(what.clone());
                "unexplained"
            });
            let _ = writeln!(listed, "- {what}: *{why}*");
        }
    }
    assert!(
        unexplained.is_empty(),
        "disagreements with crd-ref-docs that no reason explains (add one to `reason` and docs/conformance/docs.md, or fix opgen):\n{}",
        unexplained.join("\n")
    );
    let generated =
        format!("{GENERATED_START}\n\n{table}\n## Every disagreement\n{listed}\n{GENERATED_END}");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(CONFORMANCE_DOC);
    let doc = std::fs::read_to_string(&path).unwrap_or_default();
    let start = doc.find(GENERATED_START);
    let end = doc.find(GENERATED_END).map(|e| e + GENERATED_END.len());
    let current = match (start, end) {
        (Some(s), Some(e)) => &doc[s..e],
        _ => "",
    };
    if std::env::var_os("OPGEN_REGEN").is_some() {
        let updated = match (start, end) {
            (Some(s), Some(e)) => format!("{}{generated}{}", &doc[..s], &doc[e..]),
            _ => format!("{doc}{generated}\n"),
        };
        std::fs::write(&path, updated).unwrap();
        return;
    }
    assert_eq!(
        current, generated,
        "{CONFORMANCE_DOC}'s figures are not what the comparison finds (OPGEN_REGEN=1 rewrites them)"
    );
}
