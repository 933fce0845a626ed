//! `opgen import go` on the real-world corpus: each published Go module of
//! `tests/conformance_realworld.rs` (fetched from the Go module proxy at its pinned version) is
//! imported into a fresh project, and every CRD `opgen manifests` then writes is compared with
//! the one controller-gen, run live on the same packages, writes: byte for byte, after the
//! normalisations listed in `tests/fixtures/controller-gen/README.md` ("Every remaining
//! difference") that still apply to imported types: the version annotation, and `spec` in the
//! root `required` where Go's `Spec` field has `omitempty` (kube-derive's root type requires
//! spec). Without controller-gen or Go, a test says so and compares nothing; under `CI=true`
//! that is a failure.
//!
//! The corpus: 164 kinds of 20 modules (gateway-api 13, kueue 11, prometheus-operator 10,
//! jobset 1, flux's source-, kustomize-, helm-, notification-, image-reflector- and
//! image-automation-controller 14, cluster-api 17, cert-manager 6, karpenter 4, argo-rollouts 5,
//! velero 13, KEDA 7, Kyverno 11, cluster-api-provider-aws 9, Chaos Mesh 23, external-secrets
//! 20), each case with its own counted differences.

#[path = "fixtures/controller-gen/harness.rs"]
mod harness;
mod support;

use harness::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::roundtrip::{Typed, samples_on_the_api_server, select_k8s_for_build};

struct Case {
    /// The module, package and controller-gen arguments, from the harness's [`GO_CORPUS`]
    /// (tests/import_crd.rs imports the CRDs controller-gen writes for each of them too).
    go: &'static GoModule,
}

/// The module's source, writable (`go list -mod=mod` may update its go.sum), once per test
/// binary and module.
fn module_copy(module: &str, version: &str) -> Option<PathBuf> {
    // One copy per module, made once in a run: tests of this binary run at once.
    static COPIED: std::sync::Mutex<BTreeMap<String, PathBuf>> =
        std::sync::Mutex::new(BTreeMap::new());
    let mut copied = COPIED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let name = format!(
        "import-go-src-{}",
        [module, version]
            .join("-")
            .trim_end_matches('-')
            .replace('/', "_")
    );
    if let Some(copy) = copied.get(&name) {
        return Some(copy.clone());
    }
    let source = if version.is_empty() {
        fixture(module)
    } else {
        support::go_module_dir(module, version)?
    };
    let copy = support::same_path_each_run(&name);
    support::copy_tree(&source, &copy);
    copied.insert(name, copy.clone());
    Some(copy)
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn opgen(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(support::opgen_bin())
        .args(args)
        .current_dir(dir)
        // The module copies are writable and may lack go.sum lines; a module's go.work
        // (gateway-api has one) is not the module's build.
        .env("GOFLAGS", "-mod=mod")
        .env("GOWORK", "off")
        .output()
        .expect("opgen runs")
}

fn check(out: &std::process::Output, what: &str) {
    assert!(
        out.status.success(),
        "{what} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Imports the case's packages into a fresh project; its CRDs by file name, the project, and
/// what `opgen import go` printed on stderr.
fn import(case: &Case) -> Option<(BTreeMap<String, String>, PathBuf, String)> {
    let src = module_copy(case.go.module, case.go.version)?;
    // Tests of one binary may import the same module at once: a directory each.
    static IMPORTS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let project = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "import-go-{}-{}-{}-{}",
        case.go.module.replace('/', "_"),
        case.go.package.replace(['/', '.'], "_"),
        std::process::id(),
        IMPORTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&project);
    std::fs::create_dir_all(&project).unwrap();
    // A kubebuilder project's namespace-scoped manager (PROJECT's `namespaced: true`) is
    // imported with its controllers into a project made as it was made.
    // Its RBAC markers name the manager's namespace, `<projectName>-system`: the same name.
    let go_project = std::fs::read_to_string(src.join("PROJECT")).unwrap_or_default();
    let go_name = go_project
        .lines()
        .find_map(|l| l.strip_prefix("projectName: "))
        .unwrap_or_default();
    let namespaced = go_project.lines().any(|l| l == "namespaced: true")
        && case.go.args.contains("rbac:roleName=");
    let mut init = vec!["init", "--domain", "example.com", "--project-name"];
    if namespaced {
        init.extend([go_name, "--namespaced"]);
    } else {
        init.push("imported");
    }
    check(&opgen(&project, &init), "opgen init");
    if case.go.multigroup {
        check(&opgen(&project, &["edit", "--multigroup"]), "opgen edit");
    }
    // The Kubernetes version the module builds against, as the import's warning advises.
    // k8s-openapi 0.29's oldest is 1.33: a module of an older one keeps the scaffold's 1.33.
    let minor = k8s_minor(&src).max(33);
    let cargo_toml = project.join("Cargo.toml");
    let text = std::fs::read_to_string(&cargo_toml).unwrap();
    let selected = text.replace(
        "features = [\"v1_33\"]",
        &format!("features = [\"v1_{minor}\"]"),
    );
    assert!(minor == 33 || selected != text, "the scaffold selects 1.33");
    std::fs::write(&cargo_toml, selected).unwrap();
    // Several packages are `;`-separated, as controller-gen's `paths=` takes them.
    let paths: Vec<String> = case
        .go
        .package
        .split(';')
        .map(|p| format!("./{}", p.trim_start_matches("./")))
        .collect();
    let mut args = vec!["import", "go", src.to_str().unwrap()];
    for p in &paths {
        args.extend(["--paths", p.as_str()]);
    }
    if case.go.args.contains("generateEmbeddedObjectMeta=true") {
        args.push("--generate-embedded-object-meta");
    }
    // controller-gen's `rbac` generator reads the controllers' markers; opgen's import, with
    // `--controllers`.
    if case.go.args.contains("rbac:roleName=") {
        args.push("--controllers");
    }
    let out = opgen(&project, &args);
    check(&out, "opgen import go");
    let bases = project.join("config/crd/bases");
    let files = std::fs::read_dir(&bases)
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&path).unwrap())
        })
        .collect();
    Some((
        files,
        project,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

/// The Kubernetes minor of the module's k8s.io/api (or apimachinery) requirement, from go.mod.
fn k8s_minor(src: &Path) -> u32 {
    let go_mod = std::fs::read_to_string(src.join("go.mod")).unwrap();
    ["k8s.io/api ", "k8s.io/apimachinery "]
        .iter()
        .find_map(|m| {
            go_mod.lines().find_map(|l| {
                let l = l.trim();
                let l = l.strip_prefix("require ").unwrap_or(l);
                let v = l.strip_prefix(m)?.trim().strip_prefix("v0.")?;
                v.split('.').next()?.parse().ok()
            })
        })
        .expect("the module requires k8s.io/api or apimachinery")
}

/// The root `required: [spec]` kube-derive adds where controller-gen has none; returns how
/// many versions it was removed from.
fn spec_required_as_theirs(ours: &mut Value, theirs: &Value) -> usize {
    let mut changed = 0;
    let versions = ours["spec"]["versions"].as_array().map_or(0, Vec::len);
    for i in 0..versions {
        let pointer = format!("/spec/versions/{i}/schema/openAPIV3Schema/required");
        let theirs_has = theirs
            .pointer(&pointer)
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().any(|x| x == "spec"));
        let root = ours
            .pointer_mut(&format!("/spec/versions/{i}/schema/openAPIV3Schema"))
            .and_then(Value::as_object_mut)
            .unwrap();
        let Some(Value::Array(required)) = root.get_mut("required") else {
            continue;
        };
        if theirs_has || !required.iter().any(|x| x == "spec") {
            continue;
        }
        required.retain(|x| x != "spec");
        changed += 1;
        if required.is_empty() {
            root.remove("required");
        }
    }
    changed
}

/// Imports the case and compares its CRDs with controller-gen's; what the import printed on
/// stderr (None when controller-gen is missing outside CI).
fn compare(case: &Case) -> Option<String> {
    let theirs = live_files_of(case.go)?;
    let (ours, project, stderr) =
        import(case).expect("the module downloads (controller-gen ran on it)");
    let crds: Vec<&String> = theirs.keys().filter(|f| f.ends_with(".yaml")).collect();
    assert_eq!(
        ours.keys().collect::<Vec<_>>(),
        crds,
        "opgen and controller-gen write the same CRD files"
    );
    let mut failures = Vec::new();
    for file in crds {
        let theirs_text = &theirs[file];
        let theirs_doc = &documents(theirs_text)[0];
        let mut doc = documents(&ours[file]).remove(0);
        version_annotation_as(&mut doc, &pinned_version());
        spec_required_as_theirs(&mut doc, theirs_doc);
        let result = std::panic::catch_unwind(|| {
            assert_same(file, &doc, theirs_doc);
            assert_same_bytes(file, &ours[file], &[doc.clone()], theirs_text);
        });
        if let Err(e) = result {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .unwrap_or_else(|| "a panic".into());
            failures.push(msg.chars().take(3000).collect::<String>());
        }
    }
    assert!(
        failures.is_empty(),
        "{} of the CRDs differ:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    // That the imported Rust builds is every_imported_module_builds_clippy_clean's.
    let _ = std::fs::remove_dir_all(&project);
    Some(stderr)
}

/// The Rust every module of the Go corpus imports into is code a project keeps: it builds,
/// warning-free under clippy. The library, where the imported types are: its test build would
/// compile them a second time and holds nothing imported. The projects are members of one
/// workspace, so that one cargo checks two of them at a time (rustc checks a crate on one core;
/// one project per test held the projects' target directory for a crate each).
#[test]
fn every_imported_module_builds_clippy_clean() {
    if !has_go("the Go corpus") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let cases: Vec<Case> = GO_CORPUS.iter().map(|go| Case { go }).collect();
    let members = support::two_at_a_time(&cases, |case| {
        let (_, project, _) = import(case).expect("the module downloads");
        select_k8s_for_build(&project);
        let member = stable_name(case).replace("import_go/", "");
        support::copy_tree(&project, &tmp.path().join(&member));
        let _ = std::fs::remove_dir_all(&project);
        member
    });
    support::workspace_of_projects(tmp.path(), "import_go/modules", &members);
    let built = support::stable_copy(tmp.path(), "import_go/modules");
    support::project_cargo_ok(
        &built,
        &["clippy", "--workspace", "--lib", "--", "-D", "warnings"],
    );
}

#[test]
fn gateway_api_v1() {
    compare(&Case {
        go: go_module("sigs.k8s.io/gateway-api", "apis/v1"),
    });
}

#[test]
fn kueue() {
    compare(&Case {
        go: go_module("sigs.k8s.io/kueue", "apis/kueue/..."),
    });
}

/// monitoring/v1, v1alpha1 and v1beta1 (10 kinds); PrometheusAgent's spec flattens v1's
/// CommonPrometheusFields, whose CEL rule follows the spec's own.
#[test]
fn prometheus_operator_monitoring() {
    compare(&Case {
        go: go_module(
            "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring",
            "...",
        ),
    });
}

#[test]
fn jobset() {
    compare(&Case {
        go: go_module("sigs.k8s.io/jobset", "api/..."),
    });
}

#[test]
fn flux_source_controller() {
    compare(&Case {
        go: go_module("github.com/fluxcd/source-controller/api", "..."),
    });
}

/// Every group of the api module (core, addons, bootstrap/kubeadm, controlplane/kubeadm,
/// ipam, runtime: 17 kinds).
#[test]
fn cluster_api() {
    compare(&Case {
        go: go_module("sigs.k8s.io/cluster-api/api", "..."),
    });
}

#[test]
fn cert_manager() {
    compare(&Case {
        go: go_module("github.com/cert-manager/cert-manager", "pkg/apis/..."),
    });
}

#[test]
fn karpenter() {
    compare(&Case {
        go: go_module("sigs.k8s.io/karpenter", "pkg/apis/..."),
    });
}

/// AnalysisRun and Experiment have a status without the status subresource (`+opgen:status:nosubresource`).
#[test]
fn argo_rollouts() {
    compare(&Case {
        go: go_module("github.com/argoproj/argo-rollouts", "pkg/apis/..."),
    });
}

/// Gateway API's experimental group (apisx/..., 3 kinds).
#[test]
fn gateway_api_x() {
    compare(&Case {
        go: go_module("sigs.k8s.io/gateway-api", "apisx/..."),
    });
}

/// Flux's kustomize-controller API (1 kind): a Go alias of another module's type
/// (`type DependencyReference = meta.DependencyReference`) and `+kubebuilder:default:=` on Status.
#[test]
fn flux_kustomize_controller() {
    compare(&Case {
        go: go_module("github.com/fluxcd/kustomize-controller/api", "..."),
    });
}

/// Flux's helm-controller API (1 kind).
#[test]
fn flux_helm_controller() {
    compare(&Case {
        go: go_module("github.com/fluxcd/helm-controller/api", "..."),
    });
}

/// Flux's notification-controller API (3 kinds).
#[test]
fn flux_notification_controller() {
    compare(&Case {
        go: go_module("github.com/fluxcd/notification-controller/api", "..."),
    });
}

/// Flux's image-reflector-controller API (2 kinds).
#[test]
fn flux_image_reflector_controller() {
    compare(&Case {
        go: go_module("github.com/fluxcd/image-reflector-controller/api", "..."),
    });
}

/// Flux's image-automation-controller API (1 kind).
#[test]
fn flux_image_automation_controller() {
    compare(&Case {
        go: go_module("github.com/fluxcd/image-automation-controller/api", "..."),
    });
}

/// Velero's velero.io v1 and v2alpha1 (13 kinds), args as hack/update-3generated-crd-code.sh
/// runs controller-gen: no kind has the status subresource (`+opgen:status:nosubresource`), and
/// Schedule's `metadata` without omitempty is `+optional`.
#[test]
fn velero() {
    compare(&Case {
        go: go_module("github.com/vmware-tanzu/velero", "pkg/apis/velero/..."),
    });
}

/// KEDA's keda.sh and eventing.keda.sh (7 kinds), args as its Makefile runs controller-gen.
/// WithTriggers (a duck type KEDA's controllers use) has a root field `internalKind` beside
/// metadata and spec: the import puts both in a `no_spec` struct, so they sit at the root.
#[test]
fn keda() {
    compare(&Case {
        go: go_module("github.com/kedacore/keda/v2", "apis/..."),
    });
}

/// Kyverno's kyverno.io, reports.kyverno.io and wgpolicyk8s.io (11 kinds), args as its
/// Makefile runs controller-gen: kinds sharing a spec and a status type (ClusterPolicy and
/// Policy), a status type of another package named as the kind's own wrapper would be
/// (v2beta1's `PolicyStatus`).
#[test]
fn kyverno() {
    compare(&Case {
        go: go_module("github.com/kyverno/kyverno", "api/..."),
    });
}

/// cluster-api-provider-aws's api/v1beta1 and v1beta2 (9 kinds; the Makefile runs
/// controller-gen on more packages, whose v1beta2 types share this group-version); `time.Duration`
/// fields without a doc take Go's doc of the type, as controller-gen writes it.
/// AWSMachineTemplate v1beta1 has a status but no subresource.
#[test]
fn cluster_api_provider_aws() {
    compare(&Case {
        go: go_module("sigs.k8s.io/cluster-api-provider-aws/v2", "api/..."),
    });
}

/// Chaos Mesh's api module (chaos-mesh.org v1alpha1, 23 kinds; the module has no Makefile, the
/// main module's generates the CRDs with plain `crd`): spec types other types embed too (the
/// kinds' `spec` then wraps them, keeping their own doc where they are embedded), a spec field
/// that an embedded struct declares too (`action`: the field's enum merged into the embedded
/// one, as controller-gen's flattener merges them), `net/http.Header`, Go `uint32` fields (Rust `i64`
/// with `Format=int32`: no `minimum: 0`) and 15 kind versions with a status but no status
/// subresource.
#[test]
fn chaos_mesh() {
    compare(&Case {
        go: go_module("github.com/chaos-mesh/chaos-mesh/api", "..."),
    });
}

/// external-secrets v0.16.2, the last release with its APIs in the module (later ones moved them
/// to a module of their own), `apis/...` as hack/crd.generate.sh runs controller-gen: 20 kinds
/// of external-secrets.io and generators.external-secrets.io; one-line `/* ... */` field docs
/// (trimmed as controller-gen trims them). It builds against Kubernetes 1.32, which
/// k8s-openapi 0.29 lacks: the project keeps 1.33 (the import warns), and no k8s type its CRDs
/// embed differs. One kind version has a status but no status subresource.
#[test]
fn external_secrets() {
    compare(&Case {
        go: go_module("github.com/external-secrets/external-secrets", "apis/..."),
    });
}

/// A small module kept in the repository (`tests/fixtures/import-go/shop`, written for this
/// test) for what the real-world modules do not show in one place: markers in the comment
/// group above a doc comment (a type's, a field's), a package marker standing above a type
/// (`+versionName`, moved to the package as controller-gen moves it), a marker no tool knows
/// (left out with a warning at its Go line), a root CEL rule, a Status default, an inline
/// struct, a type holding itself, `[]byte`, `uint16`, `float64` (controller-gen's
/// `allowDangerousTypes`), a `json:"-"` field, a resource singular other than the kind's, types
/// with their own MarshalJSON (with a Type marker; below a Schemaless field, like karpenter's
/// NillableDuration), an untagged embedded `*time.Duration` and a Go pointer marked required.
#[test]
fn shop_fixture() {
    let Some(stderr) = compare(&Case {
        go: go_module("import-go/shop", "api/..."),
    }) else {
        return;
    };
    let left_out: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("is left out"))
        .collect();
    assert_eq!(
        left_out,
        [
            "warning: `+kubebuilder:unknownmarker=1` is left out (controller-gen ignores markers it does not know): unknown marker `kubebuilder:unknownmarker`; `opgen markers` lists every marker opgen understands",
            "warning: Window embeds *time.Duration without a json tag: Go's encoder writes it as a field named by its type, which controller-gen refuses (a field without a json tag), so it is left out",
        ],
        "{stderr}"
    );
    assert!(
        stderr.contains("widget_types.go:130:1") && stderr.contains("timing_types.go:75:2"),
        "the warning points at the Go line:\n{stderr}"
    );
    // The resource marker's singular (not the lower-cased kind) reaches the compiled kube code
    // too, where kube-derive would otherwise derive `widget`; the CRD has it from the marker.
    let (crds, project, _) = import(&Case {
        go: go_module("import-go/shop", "api/..."),
    })
    .expect("a fixture");
    let rust = std::fs::read_to_string(project.join("src/api/v1/widget_types.rs")).unwrap();
    assert!(rust.contains("singular = \"gizmo\""), "{rust}");
    // What serde sends is what Go's encoder sends (shop_sample_round_trips_on_the_api_server
    // checks it on the API server): omitempty bytes and numbers are left out when empty or
    // zero, and a part below the Schemaless `inner` without its name reads as Go reads it.
    for field in [
        "    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    pub data: Option<ByteString>,\n",
        "    #[serde(default, skip_serializing_if = \"is_zero\")]\n    pub size: i32,\n",
        "    // +kubebuilder:validation:Required\n    #[serde(default)]\n    pub name: String,\n",
        // A Go pointer marked required: an Option, as the pointer is, left out when None (an
        // Option sent as null would be nullable in the schema).
        "    // +required\n    #[serde(skip_serializing_if = \"Option::is_none\")]\n    pub maker: Option<Part>,\n",
    ] {
        assert!(rust.contains(field), "{field}in:\n{rust}");
    }
    assert!(crds["shop.example.com_widgets.yaml"].contains("    singular: gizmo\n"));
    // Types with their own MarshalJSON (a Type marker, or below a Schemaless field only) are
    // held as the JSON they are, as karpenter's NillableDuration must be: serde cannot flatten
    // the integer its embedded `*time.Duration` would be.
    let timing = std::fs::read_to_string(project.join("src/api/v1/timing_types.rs")).unwrap();
    for own in ["Timeout", "Grade"] {
        let held =
            format!("pub struct {own}(pub serde_json::Value);\n\nimpl Serialize for {own} {{");
        assert!(timing.contains(&held), "{held}\nin:\n{timing}");
    }
    assert!(!timing.contains("flatten"), "{timing}");
    let _ = std::fs::remove_dir_all(&project);
}

/// Whether Go is on PATH; without it the test says so and passes, but under CI=true.
fn has_go(what: &str) -> bool {
    if Command::new("go").arg("version").output().is_ok() {
        return true;
    }
    assert!(std::env::var("CI").is_err(), "CI=true: Go is missing");
    eprintln!("import go: {what} not imported (no Go on PATH)");
    false
}

/// Where `case`'s project is built ([`support::stable_copy`]): one place per module, package
/// and controller-gen arguments, as the tests that import the same package differ in those.
fn stable_name(case: &Case) -> String {
    let GoModule {
        module,
        package,
        args,
        ..
    } = case.go;
    let name = format!("{module}-{package}-{args}");
    let name: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    format!("import_go/{name}")
}

/// The imported project builds clippy-clean and passes its tests (envtest's included).
fn builds_and_passes_its_tests(project: &Path, stable_name: &str) {
    let built = support::stable_copy_of_its_own(project, stable_name);
    support::project_cargo_ok(&built, &["clippy", "--all-targets", "--", "-D", "warnings"]);
    support::project_cargo_ok(&built, &["test"]);
}

/// kubebuilder's own sample projects (its `testdata/`, kept in tests/fixtures/import-go/kubebuilder
/// with their sources): the Go API packages, as `make manifests` there runs controller-gen.
fn kubebuilder_case(project: &str) -> Case {
    Case {
        go: go_module(&format!("import-go/kubebuilder/{project}"), "api/..."),
    }
}

/// The case with `--controllers` (controller-gen's `rbac` generator reads the controllers).
fn with_controllers(case: Case) -> Case {
    Case {
        go: Box::leak(Box::new(GoModule {
            args: "crd rbac:roleName=manager-role",
            ..*case.go
        })),
    }
}

#[test]
fn kubebuilder_project_v4() {
    compare(&kubebuilder_case("project-v4"));
}

#[test]
fn kubebuilder_project_v4_multigroup() {
    compare(&kubebuilder_case("project-v4-multigroup"));
}

#[test]
fn kubebuilder_project_v4_with_plugins() {
    compare(&kubebuilder_case("project-v4-with-plugins"));
}

/// The CRDs of kubebuilder's sample projects are the ones each project ships in
/// `config/crd/bases` (written by the controller-gen its Makefile pins), byte for byte but for
/// the version annotation: the same files, the same bytes, without controller-gen at hand; and
/// with `--controllers`, the role is its `config/rbac/role.yaml`, byte for byte.
#[test]
fn kubebuilder_projects_write_the_crds_and_role_they_ship() {
    if !has_go("kubebuilder's projects") {
        return;
    }
    for name in [
        "project-v4",
        "project-v4-multigroup",
        "project-v4-with-plugins",
    ] {
        let case = with_controllers(kubebuilder_case(name));
        let (ours, project, _) = import(&case).expect("a fixture");
        let role = |dir: &Path| std::fs::read_to_string(dir.join("config/rbac/role.yaml")).unwrap();
        assert_eq!(
            role(&project),
            role(&fixture(&format!("import-go/kubebuilder/{name}"))),
            "{name}: the role is the one the Go project ships"
        );
        let bases = fixture(&format!("import-go/kubebuilder/{name}/config/crd/bases"));
        let shipped: BTreeMap<String, String> = std::fs::read_dir(&bases)
            .unwrap()
            .map(|e| {
                let path = e.unwrap().path();
                let file = path.file_name().unwrap().to_string_lossy().into_owned();
                (file, std::fs::read_to_string(&path).unwrap())
            })
            .collect();
        assert_eq!(
            ours.keys().collect::<Vec<_>>(),
            shipped.keys().collect::<Vec<_>>(),
            "{name}: the CRD files"
        );
        let without_version = |text: &str| {
            text.lines()
                .filter(|l| {
                    !l.contains("controller-gen.kubebuilder.io/version:")
                        && !l.contains("opgen.dev/version:")
                })
                .collect::<Vec<_>>()
                .join("\n")
        };
        for (file, text) in &shipped {
            assert!(
                without_version(&ours[file]) == without_version(text),
                "{name}: {file} differs from the one the project ships (see {})",
                project.display()
            );
        }
        let _ = std::fs::remove_dir_all(&project);
    }
}

/// `--controllers` on kubebuilder's project-v4: a controller per kind its Go reconcilers
/// reconcile, carrying their RBAC markers (the other reconcilers' markers in
/// src/controllers/go_rbac.rs), so that the role is the one the Go project ships, byte for
/// byte; its webhooks (defaulting, validating with custom paths, FirstMate's conversion); the
/// project builds clippy-clean, and its envtest tests pass: each controller reconciles the
/// kind's sample (kubebuilder's, its empty `spec:` made `{}`) under that role, each webhook is
/// called, the conversion round-trips.
#[test]
fn kubebuilder_project_v4_controllers_and_webhooks_run_under_the_go_role() {
    if !has_go("kubebuilder's project-v4") {
        return;
    }
    let src = module_copy("import-go/kubebuilder/project-v4", "").expect("a fixture");
    let project = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("import-go-controllers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&project);
    std::fs::create_dir_all(&project).unwrap();
    check(
        &opgen(
            &project,
            &[
                "init",
                "--domain",
                "testproject.org",
                "--project-name",
                "project-v4",
            ],
        ),
        "opgen init",
    );
    let out = opgen(
        &project,
        &["import", "go", src.to_str().unwrap(), "--controllers"],
    );
    check(&out, "opgen import go --controllers");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let role = |dir: &Path| std::fs::read_to_string(dir.join("config/rbac/role.yaml")).unwrap();
    assert_eq!(
        role(&project),
        role(&fixture("import-go/kubebuilder/project-v4")),
        "the role is the Go project's"
    );
    let controllers: Vec<String> = std::fs::read_dir(project.join("src/controllers"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    assert_eq!(
        controllers,
        [
            "admiral.rs",
            "captain.rs",
            "first_mate.rs",
            "go_rbac.rs",
            "mod.rs",
            "navigator.rs",
            "sailor.rs"
        ]
    );
    let go_rbac = std::fs::read_to_string(project.join("src/controllers/go_rbac.rs")).unwrap();
    for kept in [
        "// From internal/controller/captain_backup_controller.go (CaptainBackupReconciler):",
        "// From internal/controller/certificate_controller.go (CertificateReconciler):",
        "// +kubebuilder:rbac:groups=cert-manager.io,resources=certificates,verbs=get;list;watch;create;update;patch;delete",
    ] {
        assert!(go_rbac.contains(kept), "{kept}\n{go_rbac}");
    }
    let captain = std::fs::read_to_string(project.join("src/controllers/captain.rs")).unwrap();
    assert!(
        captain.contains("port `CaptainReconciler.Reconcile` (line\n//! 49 of the Go file)"),
        "{captain}"
    );
    assert!(
        stderr
            .contains("config/samples/crew_v1_captain.yaml: the Go sample's `spec:` holds nothing"),
        "{stderr}"
    );
    let samples =
        std::fs::read_to_string(project.join("config/samples/kustomization.yaml")).unwrap();
    for kind in ["admiral", "captain", "firstmate", "navigator", "sailor"] {
        assert!(
            samples.contains(&format!("- crew_v1_{kind}.yaml\n")),
            "{samples}"
        );
    }
    assert!(samples.contains("- crew_v2_firstmate.yaml\n"), "{samples}");
    let project_text = std::fs::read_to_string(project.join("PROJECT")).unwrap();
    assert_eq!(
        project_text.matches("controller: true").count(),
        5,
        "{project_text}"
    );
    // The webhooks of its own kinds are the Go project's (custom paths included); those of
    // built-in and cert-manager kinds are left out, each with a warning at its marker.
    let not_imported = [
        ("mdeployment-v1.kb.io", "deployment_webhook.go:43:1"),
        ("vdeployment-v1.kb.io", "deployment_webhook.go:65:1"),
        ("missuer-v1.kb.io", "issuer_webhook.go:40:1"),
        ("mpod-v1.kb.io", "pod_webhook.go:40:1"),
    ];
    for (_, at) in not_imported {
        assert!(stderr.contains(at), "a warning at {at}:\n{stderr}");
    }
    let webhooks = |dir: &Path| -> Vec<Value> {
        let text = std::fs::read_to_string(dir.join("config/webhook/manifests.yaml")).unwrap();
        documents(&text)
    };
    let mut theirs = webhooks(&fixture("import-go/kubebuilder/project-v4"));
    for config in &mut theirs {
        config["webhooks"]
            .as_array_mut()
            .unwrap()
            .retain(|w| !not_imported.iter().any(|(n, _)| w["name"] == *n));
    }
    assert_eq!(webhooks(&project), theirs, "the webhook configurations");
    let webhook_sources: String = std::fs::read_dir(project.join("src/webhooks"))
        .unwrap()
        .map(|f| std::fs::read_to_string(f.unwrap().path()).unwrap())
        .collect();
    for route in [
        "/custom-mutate-sailor",
        "/custom-validate-sailor",
        "/custom-validate-admiral",
    ] {
        assert!(
            webhook_sources.contains(&format!("_PATH: &str = \"{route}\";")),
            "{route} is served"
        );
    }
    builds_and_passes_its_tests(&project, "import_go/project-v4-controllers");
    let _ = std::fs::remove_dir_all(&project);
}

/// The other two sample projects, imported with `--controllers`, build clippy-clean and pass
/// their envtest tests: multigroup's 13 controllers, its webhooks and conversion; with-plugins'
/// namespace-scoped manager (a project made with `--namespaced`, as its PROJECT says) and its
/// deploy-image controllers under the Role the Go project ships.
#[test]
fn kubebuilder_multigroup_and_plugin_projects_pass_their_envtest_tests() {
    if !has_go("kubebuilder's projects") {
        return;
    }
    for name in ["project-v4-multigroup", "project-v4-with-plugins"] {
        let case = with_controllers(kubebuilder_case(name));
        let (_, project, _) = import(&case).expect("a fixture");
        select_k8s_for_build(&project);
        builds_and_passes_its_tests(&project, &stable_name(&case));
        let _ = std::fs::remove_dir_all(&project);
    }
}

/// A Go project whose manager is namespace-scoped, imported with its controllers into a
/// cluster-wide project, is refused before anything is written, with the way out.
#[test]
fn a_namespaced_go_manager_needs_a_namespaced_project() {
    if !has_go("the namespaced Go manager") {
        return;
    }
    let (project, _) = project_and_shop("namespaced");
    let src = module_copy("import-go/kubebuilder/project-v4-with-plugins", "").expect("a fixture");
    let stderr = refused(
        &project,
        &["import", "go", src.to_str().unwrap(), "--controllers"],
        None,
    );
    assert!(
        stderr.contains("the Go project's manager is namespace-scoped (its PROJECT has `namespaced: true`) and this project's is cluster-wide")
            && stderr.contains("help: import into a project made with `opgen init --namespaced`"),
        "{stderr}"
    );
}

/// A fresh project and a writable copy of the shop fixture, for the bad-input tests.
fn project_and_shop(name: &str) -> (PathBuf, PathBuf) {
    let base = support::same_path_each_run(&format!("import-go-bad-{name}"));
    let (project, src) = (base.join("project"), base.join("shop"));
    std::fs::create_dir_all(&project).unwrap();
    support::copy_tree(&fixture("import-go/shop"), &src);
    check(
        &opgen(
            &project,
            &[
                "init",
                "--domain",
                "example.com",
                "--project-name",
                "imported",
            ],
        ),
        "opgen init",
    );
    (project, src)
}

fn refused(project: &Path, args: &[&str], path_env: Option<&str>) -> String {
    let before = support::tree(project);
    let mut cmd = Command::new(support::opgen_bin());
    cmd.args(args)
        .current_dir(project)
        .env("GOFLAGS", "-mod=mod");
    if let Some(p) = path_env {
        cmd.env("PATH", p);
    }
    let out = cmd.output().expect("opgen runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "refused with exit 1:\n{stderr}");
    assert!(
        support::tree(project) == before,
        "nothing written:\n{stderr}"
    );
    stderr
}

#[test]
fn go_that_does_not_parse_is_an_error_at_its_line_and_nothing_is_written() {
    let (project, src) = project_and_shop("syntax");
    let file = src.join("api/v1/widget_types.go");
    let mut text = std::fs::read_to_string(&file).unwrap();
    // The unterminated tag opens on the appended file's third line, at column 14.
    let line = text.lines().count() + 3;
    text.push_str("\ntype Broken struct {\n\tName string `json:\"name\"\n}\n");
    std::fs::write(&file, text).unwrap();
    let stderr = refused(
        &project,
        &[
            "import",
            "go",
            src.to_str().unwrap(),
            "--paths",
            "./api/...",
        ],
        None,
    );
    assert!(
        stderr.contains(&format!("widget_types.go:{line}:14"))
            && stderr.contains("raw string literal not terminated"),
        "the error names the Go file and line:\n{stderr}"
    );
}

#[test]
fn a_kind_imported_twice_is_refused_without_force() {
    let (project, src) = project_and_shop("twice");
    let args = [
        "import",
        "go",
        src.to_str().unwrap(),
        "--paths",
        "./api/...",
    ];
    check(&opgen(&project, &args), "the first import");
    let stderr = refused(&project, &args, None);
    assert!(
        stderr.contains("error: src/api/v1/widget_types.rs already exists")
            && stderr.contains("pass --force to replace user-owned files"),
        "{stderr}"
    );
    let forced = opgen(&project, &[&args[..], &["--force"]].concat());
    check(&forced, "the import with --force");
}

#[test]
fn without_go_the_import_says_so_and_writes_nothing() {
    let (project, src) = project_and_shop("nogo");
    let stderr = refused(
        &project,
        &["import", "go", src.to_str().unwrap()],
        Some("/nonexistent"),
    );
    assert!(
        stderr.contains("`opgen import go` needs Go") && stderr.contains("https://go.dev/dl/"),
        "{stderr}"
    );
}

#[test]
fn packages_without_group_name_are_refused_with_a_hint() {
    let (project, src) = project_and_shop("nogroup");
    let info = src.join("api/v1/groupversion_info.go");
    let text = std::fs::read_to_string(&info)
        .unwrap()
        .replace("// +groupName=shop.example.com\n", "");
    std::fs::write(&info, text).unwrap();
    let stderr = refused(
        &project,
        &[
            "import",
            "go",
            src.to_str().unwrap(),
            "--paths",
            "./api/...",
        ],
        None,
    );
    assert!(
        stderr.contains("+groupName") && stderr.contains("--paths"),
        "{stderr}"
    );
}

/// Mutated Go (lines deleted or repeated, marker values and names changed, bytes dropped):
/// the import either succeeds or is refused with a located error and nothing written; it never
/// panics. Each input is reproducible from its number (`OPGEN_FUZZ_IMPORT_GO` sets how many).
#[test]
fn mutated_go_is_imported_or_refused_never_crashes() {
    let inputs: u64 = std::env::var("OPGEN_FUZZ_IMPORT_GO")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(16);
    let (project, src) = project_and_shop("fuzz");
    let file = src.join("api/v1/widget_types.go");
    let original = std::fs::read_to_string(&file).unwrap();
    let before = support::tree(&project);
    for n in 0..inputs {
        let mut rng = fastrand::Rng::with_seed(n);
        let mut lines: Vec<String> = original.lines().map(str::to_owned).collect();
        for _ in 0..rng.usize(1..=3) {
            let i = rng.usize(..lines.len());
            match rng.u8(0..5) {
                0 => {
                    lines.remove(i);
                }
                1 => lines.insert(i, lines[i].clone()),
                2 => {
                    if let Some((name, _)) = lines[i].split_once('=') {
                        let value = ["", "x", "-1", "{", "`", "1.5", "true", "\"a,b\""];
                        lines[i] = format!("{name}={}", value[rng.usize(..value.len())]);
                    }
                }
                3 => lines[i] = lines[i].replace("kubebuilder:validation:", "kubebuilder:"),
                _ => {
                    let cut = rng.usize(..lines[i].len().max(1));
                    if lines[i].is_char_boundary(cut) {
                        lines[i].truncate(cut);
                    }
                }
            }
        }
        std::fs::write(&file, lines.join("\n") + "\n").unwrap();
        let out = Command::new(support::opgen_bin())
            .args([
                "import",
                "go",
                src.to_str().unwrap(),
                "--paths",
                "./api/...",
                "--dry-run",
            ])
            .current_dir(&project)
            .env("GOFLAGS", "-mod=mod")
            .output()
            .expect("opgen runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        match out.status.code() {
            Some(0) => {}
            Some(1) => assert!(
                stderr.contains("-->") || stderr.contains("help:"),
                "input {n}: the refusal says where or what to do:\n{stderr}"
            ),
            other => panic!("input {n}: exit {other:?}:\n{stderr}"),
        }
        assert!(!stderr.contains("internal error"), "input {n}:\n{stderr}");
        assert!(
            support::tree(&project) == before,
            "input {n}: --dry-run wrote"
        );
    }
}

/// README.md's "Coming from Go" section, run as written (its shell blocks in order, this
/// build's opgen first on PATH), then the project it made builds its tests.
#[test]
fn readme_coming_from_go_runs_as_written() {
    const README: &str = include_str!("../README.md");
    let start = README.find("## Coming from Go").expect("the section");
    let section = &README[start..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |i| i + 3)];
    let mut script = String::from("set -euo pipefail\n");
    let mut lines = section.lines();
    while let Some(line) = lines.next() {
        if line == "```sh" {
            for l in lines.by_ref().take_while(|l| *l != "```") {
                script.push_str(l);
                script.push('\n');
            }
        }
    }
    assert!(script.contains("opgen import go"), "{script}");
    if Command::new("go").arg("version").output().is_err() {
        assert!(std::env::var("CI").is_err(), "CI=true requires Go");
        eprintln!("readme: Coming from Go not run (no Go)");
        return;
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("import-go-readme-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // The project's cargo builds against this workspace's crates, in the shared target.
    support::patch_projects_below(&dir);
    let bin = support::opgen_bin().parent().unwrap().to_path_buf();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new("bash");
    cmd.arg("-c")
        .arg(&script)
        .current_dir(&dir)
        .env("PATH", path);
    support::builds_in_projects_target(&mut cmd);
    let out = cmd.output().expect("bash runs");
    assert!(
        out.status.success(),
        "the section's commands failed:\n{script}\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let project = dir.join("jobset-rs");
    assert!(project.join("src/api/v1alpha2/jobset_types.rs").is_file());
    let controller = std::fs::read_to_string(project.join("src/controllers/job_set.rs")).unwrap();
    assert!(
        controller.contains("// +kubebuilder:rbac:groups=jobset.x-k8s.io,resources=jobsets,")
            && controller.contains("port `JobSetReconciler.Reconcile`"),
        "the Go controller's markers and Reconcile:\n{controller}"
    );
    let webhook = std::fs::read_to_string(project.join("src/webhooks/job_set.rs")).unwrap();
    assert!(
        webhook.contains("// +kubebuilder:webhook:path=/mutate-jobset-x-k8s-io-v1alpha2-jobset,")
            && webhook.contains(
                "// +kubebuilder:webhook:path=/validate-jobset-x-k8s-io-v1alpha2-jobset,"
            ),
        "the Go webhooks' markers:\n{webhook}"
    );
    let built = support::stable_copy(&project, "import_go/readme-jobset-rs");
    support::project_cargo_ok(&built, &["test", "--no-run"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn shop_sample_round_trips_on_the_api_server() {
    let case = Case {
        go: go_module("import-go/shop", "api/..."),
    };
    let (_, project, _) = import(&case).expect("a fixture");
    let sample = fixture("import-go/shop/config/samples/shop_v1_widget.yaml");
    samples_on_the_api_server(
        &project,
        "shop",
        &[sample],
        &[Typed {
            kind: "Widget",
            version: "v1",
            path: "imported::api::v1::Widget",
            namespaced: false,
        }],
        1,
        &[],
    );
    let _ = std::fs::remove_dir_all(&project);
}

/// The sample files of `dir` (a module copy) whose names match, and how many of their
/// documents are of `group` (each must be read back typed).
fn samples(dir: &Path, names: &[&str], group: &str) -> (Vec<PathBuf>, usize) {
    let files: Vec<PathBuf> = names.iter().map(|n| dir.join(n)).collect();
    let count = files
        .iter()
        .map(|f| {
            std::fs::read_to_string(f)
                .unwrap_or_else(|e| panic!("{}: {e}", f.display()))
                .lines()
                .filter(|l| l.starts_with(&format!("apiVersion: {group}/")))
                .count()
        })
        .sum();
    (files, count)
}

fn round_trip_module(case: &Case, names: &[&str], group: &str, kinds: &[Typed]) {
    if controller_gen().is_none() && std::env::var("CI").is_err() {
        // Without Go tooling the module cannot be had either; `compare` says so.
        return;
    }
    let src = module_copy(case.go.module, case.go.version).expect("the module downloads");
    let (files, count) = samples(&src, names, group);
    assert!(count > 0, "the samples hold objects of {group}");
    let (_, project, _) = import(case).expect("the module imports");
    samples_on_the_api_server(&project, case.go.module, &files, kinds, count, &[]);
    let _ = std::fs::remove_dir_all(&project);
}

/// Upstream samples on the API server (kueue's kueueviz examples: cohorts, cluster and local
/// queues, priority classes), read back through the imported types. Left out:
/// `00-resource-flavor.yaml`, a ResourceFlavor without `spec`, which the API server refuses
/// under opgen's CRD (`spec: Required value`): kube-derive's root type requires spec, the one
/// root difference tests/fixtures/controller-gen/README.md lists.
#[test]
fn kueue_examples_round_trip_on_the_api_server() {
    let kinds: Vec<Typed> = [
        ("ClusterQueue", false),
        ("Cohort", false),
        ("LocalQueue", true),
        ("WorkloadPriorityClass", false),
    ]
    .into_iter()
    .map(|(kind, namespaced)| Typed {
        kind,
        version: "v1beta2",
        path: Box::leak(format!("imported::api::v1beta2::{kind}").into_boxed_str()),
        namespaced,
    })
    .collect();
    round_trip_module(
        &Case {
            go: go_module("sigs.k8s.io/kueue", "apis/kueue/..."),
        },
        &[
            "cmd/kueueviz/examples/01-cluster-queues.yaml",
            "cmd/kueueviz/examples/01.5-cohorts.yaml",
            "cmd/kueueviz/examples/02-local-queues.yaml",
            "cmd/kueueviz/examples/07-workload-priority-classes.yaml",
        ],
        "kueue.x-k8s.io",
        &kinds,
    );
}

/// argo-rollouts' examples (Rollouts of every strategy, analysis templates, an experiment).
#[test]
fn argo_rollouts_examples_round_trip_on_the_api_server() {
    let kinds: Vec<Typed> = [
        ("Rollout", true),
        ("AnalysisTemplate", true),
        ("ClusterAnalysisTemplate", false),
        ("Experiment", true),
    ]
    .into_iter()
    .map(|(kind, namespaced)| Typed {
        kind,
        version: "v1alpha1",
        path: Box::leak(format!("imported::api::argoproj::v1alpha1::{kind}").into_boxed_str()),
        namespaced,
    })
    .collect();
    let names: Vec<String> = [
        "analysis-templates",
        "cluster-analysis-templates",
        "experiment-with-analysis",
        "rollout-analysis-step",
        "rollout-background-analysis",
        "rollout-baseline-vs-canary",
        "rollout-bluegreen",
        "rollout-canary-preview",
        "rollout-canary",
        "rollout-experiment-step",
        "rollout-rolling-update",
        "rollout-secret",
        "rollout-template-ref",
    ]
    .iter()
    .map(|n| format!("examples/{n}.yaml"))
    .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    round_trip_module(
        &Case {
            go: go_module("github.com/argoproj/argo-rollouts", "pkg/apis/..."),
        },
        &names,
        "argoproj.io",
        &kinds,
    );
}
