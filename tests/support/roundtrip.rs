//! Upstream samples on a real API server, read back through imported Rust types (item 3 of
//! `opgen import`), for tests/import_go.rs and tests/import_crd.rs.

use std::path::{Path, PathBuf};

/// Builds select the scaffold's Kubernetes 1.33 again, whatever the module's: every scaffolded
/// project the tests build then shares one build of k8s-openapi and kube (a feature each would
/// compile them again), and the types k8s-openapi has are the same names in every version.
pub fn select_k8s_for_build(project: &Path) {
    let cargo_toml = project.join("Cargo.toml");
    let text = std::fs::read_to_string(&cargo_toml).unwrap();
    let start = text
        .find("features = [\"v1_")
        .expect("a k8s-openapi feature");
    let end = start + text[start..].find(']').unwrap() + 1;
    let text = format!("{}features = [\"v1_33\"]{}", &text[..start], &text[end..]);
    std::fs::write(&cargo_toml, text).unwrap();
}

/// A kind a round trip reads back typed: its name and Rust path in the imported project.
pub struct Typed<'a> {
    pub kind: &'a str,
    /// The API version's version (`v1` of `example.com/v1`) the Rust type is of.
    pub version: &'a str,
    pub path: &'a str,
    pub namespaced: bool,
}

impl<'a> Typed<'a> {
    /// Each of the (kind, version, path, namespaced) owned by a caller.
    pub fn each_of(kinds: &'a [(String, String, String, bool)]) -> Vec<Typed<'a>> {
        kinds
            .iter()
            .map(|(kind, version, path, namespaced)| Typed {
                kind,
                version,
                path,
                namespaced: *namespaced,
            })
            .collect()
    }
}

/// Item 3 of the import: each sample is accepted by a real API server under opgen's CRDs, is
/// read back into the imported Rust type, and serializes with every field the server holds
/// (the CRDs' defaults included). Writes the samples and `tests/roundtrip.rs` into the imported
/// project and runs it in its stable copy `roundtrip/<name>` ([`super::stable_copy`]), under a
/// package name of its own, so that a second run of the suite finds it built; the count of
/// objects read back typed must be `expected`. `exceptions` are the project's own
/// disagreements that are not opgen's, each (a text the disagreement holds, why).
pub fn samples_on_the_api_server(
    project: &Path,
    name: &str,
    samples: &[PathBuf],
    kinds: &[Typed],
    expected: usize,
    exceptions: &[(&str, &str)],
) {
    write_round_trip(project, samples, kinds, expected, exceptions);
    let built = super::stable_copy_of_its_own(project, &format!("roundtrip/{name}"));
    let status = super::project_cargo(
        &built,
        &["test", "--test", "roundtrip", "--", "--nocapture"],
    )
    .status()
    .expect("cargo runs");
    assert!(
        status.success(),
        "the round trip failed in {}",
        built.display()
    );
}

/// [`samples_on_the_api_server`] of several projects at once: each project, a directory of
/// `workspace`, has its `tests/roundtrip.rs` ([`write_round_trip`]); they become members of one
/// workspace ([`super::workspace_of_projects`]) kept at `roundtrip/<name>`
/// ([`super::stable_copy`]), whose round trips one `cargo test --no-run` builds side by side and
/// which then run two at a time: each mostly waits on its own API server, and `cargo test` would
/// run them one after another.
pub fn round_trips_in_one_workspace(workspace: &Path, name: &str, projects: &[PathBuf]) {
    let mut members = Vec::new();
    for project in projects {
        assert_eq!(
            project.parent(),
            Some(workspace),
            "{} is not in the workspace {}",
            project.display(),
            workspace.display()
        );
        assert!(
            project.join("tests/roundtrip.rs").is_file(),
            "no round trip written in {}",
            project.display()
        );
        members.push(project.file_name().unwrap().to_string_lossy().into_owned());
    }
    super::workspace_of_projects(workspace, &format!("roundtrip/{name}"), &members);
    let built = super::stable_copy(workspace, &format!("roundtrip/{name}"));
    let out = super::project_cargo(
        &built,
        &[
            "test",
            "--workspace",
            "--no-run",
            "--test",
            "roundtrip",
            "--message-format=json-render-diagnostics",
        ],
    )
    .stderr(std::process::Stdio::inherit())
    .output()
    .expect("cargo runs");
    assert!(
        out.status.success(),
        "the round trips of {} do not build",
        built.display()
    );
    // (the package's directory, where cargo would run it; the test binary)
    let binaries: Vec<(PathBuf, PathBuf)> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|line| {
            let message: serde_json::Value = serde_json::from_str(line).ok()?;
            let executable = message["executable"].as_str()?;
            (message["reason"] == "compiler-artifact" && message["profile"]["test"] == true).then(
                || {
                    let manifest = Path::new(message["manifest_path"].as_str().unwrap());
                    (manifest.parent().unwrap().to_owned(), executable.into())
                },
            )
        })
        .collect();
    assert_eq!(
        binaries.len(),
        projects.len(),
        "one round trip binary a project: {binaries:?}"
    );
    let runs = super::two_at_a_time(&binaries, |(dir, executable)| {
        std::process::Command::new(executable)
            .arg("--nocapture")
            .current_dir(dir)
            .output()
            .expect("a round trip runs")
    });
    let mut failed = Vec::new();
    for ((dir, _), run) in binaries.iter().zip(runs) {
        // What `cargo test -- --nocapture` would have shown, a project at a time.
        eprintln!(
            "round trip of {}:\n{}{}",
            dir.display(),
            String::from_utf8_lossy(&run.stdout),
            String::from_utf8_lossy(&run.stderr)
        );
        if !run.status.success() {
            failed.push(dir.display().to_string());
        }
    }
    assert!(
        failed.is_empty(),
        "round trips failed in {failed:?} (above)"
    );
}

/// Writes the round trip of [`samples_on_the_api_server`] into `project`: the samples under
/// `tests/roundtrip-samples/` and `tests/roundtrip.rs`.
pub fn write_round_trip(
    project: &Path,
    samples: &[PathBuf],
    kinds: &[Typed],
    expected: usize,
    exceptions: &[(&str, &str)],
) {
    let arms: String = kinds
        .iter()
        .map(|k| {
            let api = if k.namespaced {
                format!("Api::<{}>::namespaced(client.clone(), &obj.namespace().unwrap())", k.path)
            } else {
                format!("Api::<{}>::all(client.clone())", k.path)
            };
            format!(
                "                ({:?}, {:?}) => serde_json::to_value({api}.get(&name).await.expect(\"read back typed\")).unwrap(),\n",
                k.kind, k.version
            )
        })
        .collect();
    // The agreement of each imported type with the CRD opgen wrote, in namespaces of its own.
    let agreements: String = kinds
        .iter()
        .enumerate()
        .map(|(i, k)| {
            format!(
                "    reports.push(Agreement::new(&client, \"config/crd/bases\", \"agreement-{i}\").check::<{}>().await.expect(\"the API server answers\"));\n",
                k.path
            )
        })
        .collect();
    let exceptions: String = exceptions
        .iter()
        .map(|(text, why)| format!("    ({text:?}, {why:?}),\n"))
        .collect();
    // Inside the project, named relative to it (cargo runs a test in its package's directory):
    // the test's source is then the same in every run.
    let dir = project.join("tests/roundtrip-samples");
    std::fs::create_dir_all(&dir).unwrap();
    let files: String = samples
        .iter()
        .enumerate()
        .map(|(i, sample)| {
            let file = format!(
                "tests/roundtrip-samples/{i:03}-{}",
                sample.file_name().unwrap().to_string_lossy()
            );
            std::fs::copy(sample, project.join(&file)).unwrap();
            format!("    {file:?},\n")
        })
        .collect();
    let test = format!(
        r#"//! Written by opgen's tests (tests/support/roundtrip.rs): the samples on a real API server, read back typed.

use kube::ResourceExt;
use kube::api::Api;
use opgen_envtest::agreement::Agreement;
use serde_json::Value;

const SAMPLES: &[&str] = &[
{files}];
const NAMESPACE: &str = "roundtrip";

/// Every value of `server` is in `ours` (which may hold more: fields Rust writes as zero).
fn lost(server: &Value, ours: &Value, path: &str, out: &mut Vec<String>) {{
    match (server, ours) {{
        (Value::Object(s), Value::Object(o)) => {{
            for (k, v) in s {{
                match o.get(k) {{
                    Some(w) => lost(v, w, &format!("{{path}}.{{k}}"), out),
                    None => out.push(format!("{{path}}.{{k}} lost")),
                }}
            }}
        }}
        (Value::Array(s), Value::Array(o)) if s.len() == o.len() => {{
            for (i, (v, w)) in s.iter().zip(o).enumerate() {{
                lost(v, w, &format!("{{path}}[{{i}}]"), out);
            }}
        }}
        (s, o) if s == o => {{}}
        // A quantity the server keeps as a number (int-or-string), k8s-openapi's as a string.
        (Value::Number(n), Value::String(q)) if n.to_string() == *q => {{}}
        (s, o) => out.push(format!("{{path}}: server {{s}}, ours {{o}}")),
    }}
}}

#[tokio::test]
async fn samples_round_trip_through_the_imported_types() {{
    let Some(control_plane) = opgen_envtest::shared_or_skip().await else {{
        return;
    }};
    let clients = control_plane
        .install_operator("config/crd/bases", "config/rbac/role.yaml", NAMESPACE)
        .await
        .expect("install the CRDs");
    let client = &clients.admin;
    let mut checked = 0;
    let mut problems = Vec::new();
    for file in SAMPLES {{
        let applied = match opgen_envtest::apply_file(client, file, NAMESPACE).await {{
            Ok(applied) => applied,
            Err(e) => {{
                problems.push(format!("{{file}}: the API server refuses it: {{e}}"));
                continue;
            }}
        }};
        for obj in &applied {{
            let name = obj.name_any();
            let types = obj.types.clone().unwrap_or_default();
            let version = types.api_version.rsplit('/').next().unwrap_or_default();
            let ours: Value = match (types.kind.as_str(), version) {{
{arms}                _ => continue,
            }};
            let mut server = serde_json::to_value(obj).unwrap();
            server.as_object_mut().unwrap().remove("metadata");
            lost(&server, &ours, &format!("{{file}} {{}}/{{name}}", types.kind), &mut problems);
            checked += 1;
        }}
    }}
    assert!(problems.is_empty(), "{{}} problem(s):\n{{}}", problems.len(), problems.join("\n"));
    assert_eq!(checked, {expected}, "objects read back typed");
}}

/// Disagreements of the corpus that are not opgen's, by the path they name, with why.
const EXCEPTIONS: &[(&str, &str)] = &[
    (
        ".hostnameOverride:",
        "a PodSpec field of Kubernetes 1.34: the round trip builds against k8s-openapi's v1_33 \
         (select_k8s_for_build) while the CRD follows the module's Kubernetes minor",
    ),
    (
        ".restartPolicyRules:",
        "a Container field of Kubernetes 1.34, as above",
    ),
    // The shop fixture's Widget, checked since its root rule on metadata.name no longer has
    // every drawn object refused. Its fields are made to be awkward; one still disagrees:
    (
        "expected i32): {{\"apiVersion\":\"shop.example.com/v1\"",
        "Go's uint16 count: controller-gen's schema, which opgen's matches, bounds no Go \
         integer, so the API server keeps values the Go type refuses too; the Rust i32 refuses \
         them as Go does",
    ),
    (
        ".inner.unknown: the API server has",
        "Part.inner is Schemaless with PreserveUnknownFields, so the API server keeps fields \
         Part does not declare; Go's Part drops them when it reads one, as the Rust Part does",
    ),
    // Found by the values drawn from the Rust type, which set what a template's ObjectMeta
    // holds; the objects drawn from the schema never do.
    (
        ".template.metadata.labels: serde sent",
        "argo-rollouts' pod templates: controller-gen without generateEmbeddedObjectMeta writes \
         a template's metadata as a bare object, so the API server prunes the labels Go's \
         ObjectMeta holds, as it prunes the Rust one's",
    ),
    (
        ".template.metadata.name: serde sent",
        "the same pruning, of the template's name",
    ),
    (
        ".datadog.interval:",
        "argo-rollouts' Go string with omitempty and a schema default: an empty interval is \
         written back as nothing and then defaulted, by Go's client as by the Rust type",
    ),
{exceptions}];

/// Each imported type and its CRD agree (opgen_envtest::agreement); a kind version none of
/// whose drawn objects the API server accepts is counted, not checked.
#[tokio::test]
async fn imported_types_agree_with_their_crd_schemas() {{
    let Some(control_plane) = opgen_envtest::shared_or_skip().await else {{
        return;
    }};
    let client = control_plane.client().expect("a client");
    let mut reports = Vec::new();
{agreements}    let unchecked: Vec<String> = reports
        .iter()
        .filter(|r| r.accepted == 0)
        .map(|r| match &r.not_checked {{
            Some(why) => format!("{{}}: {{why}}", r.kind),
            None => format!(
                "{{}}: every drawn object refused, the first because: {{}}",
                r.kind,
                r.refusals.first().map_or("", String::as_str)
            ),
        }})
        .collect();
    let disagreeing: Vec<String> = reports
        .iter()
        .filter_map(|r| {{
            let left: Vec<&String> = r
                .disagreements
                .iter()
                .filter(|d| !EXCEPTIONS.iter().any(|(path, _)| d.contains(path)))
                .collect();
            (!left.is_empty()).then(|| format!("{{}} (seed {{}}):\n{{left:#?}}", r.kind, r.seed))
        }})
        .collect();
    eprintln!(
        "agreement: {{}} kind versions, {{}} checked, {{}} disagree; unchecked: {{unchecked:#?}}",
        reports.len(),
        reports.len() - unchecked.len(),
        disagreeing.len()
    );
    assert!(disagreeing.is_empty(), "{{}}", disagreeing.join("\n\n"));
}}
"#
    );
    select_k8s_for_build(project);
    std::fs::write(project.join("tests/roundtrip.rs"), test).unwrap();
}
