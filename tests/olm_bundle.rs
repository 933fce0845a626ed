//! `opgen bundle` on a fresh project with one kind and a webhook: operator-framework's
//! validators (default, OperatorHub, good practices; tools/olm) accept the bundle, the envtest
//! API server accepts its CRDs and, with OLM's own CRD installed, the ClusterServiceVersion;
//! the user's base CSV survives re-runs; `--check` finds a stale bundle; bad input is refused
//! with nothing written. kubectl (for kustomize) comes from the envtest binaries; without them,
//! or without OLM_VALIDATE, the tests that need them say so and pass, except under CI=true.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use kube::api::{PatchParams, ValidationDirective};
use serde_json::{Value, json};
use support::{add_memcached_webhooks, new_memcached_project, opgen_ok, tree};

fn on_ci() -> bool {
    std::env::var("CI").as_deref() == Ok("true")
}

fn kubectl() -> Option<PathBuf> {
    match opgen_envtest::Assets::locate() {
        Ok(assets) => Some(assets.kubectl()),
        Err(e) => {
            assert!(!on_ci(), "CI=true requires the envtest binaries: {e}");
            eprintln!("notice: no kubectl from the envtest binaries ({e}); skipping");
            None
        }
    }
}

fn validator() -> Option<PathBuf> {
    support::referee("OLM_VALIDATE", "tools/olm/setup.sh")
}

fn bundle(dir: &Path, kubectl: &Path, args: &[&str]) -> Output {
    Command::new(support::opgen_bin())
        .arg("bundle")
        .args(args)
        .current_dir(dir)
        .env("KUBECTL", kubectl)
        .env("SOURCE_DATE_EPOCH", "1767225600")
        .output()
        .expect("opgen runs")
}

fn bundle_ok(dir: &Path, kubectl: &Path, args: &[&str]) -> String {
    let out = bundle(dir, kubectl, args);
    assert!(
        out.status.success(),
        "opgen bundle {args:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn bundle_err(dir: &Path, kubectl: &Path, args: &[&str]) -> String {
    let before = tree(dir);
    let out = bundle(dir, kubectl, args);
    assert_eq!(
        out.status.code(),
        Some(1),
        "opgen bundle {args:?} should fail:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        tree(dir) == before,
        "a failed opgen bundle {args:?} changed files"
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const TYPES: &str = "src/api/v1alpha1/memcached_types.rs";

/// The memcached project with a defaulting and a validating webhook, and CSV markers on the
/// kind, a spec field and a status field.
fn project(parent: &Path) -> PathBuf {
    let dir = new_memcached_project(parent, "memcached-operator");
    add_memcached_webhooks(&dir);
    edit(&dir, TYPES, |s| {
        s.replacen(
            "/// MemcachedSpec defines the desired state of Memcached.\n",
            "/// MemcachedSpec defines the desired state of Memcached.\n// +operator-sdk:csv:customresourcedefinitions:displayName=\"Memcached App\",resources={{Deployment,v1,memcached-deployment},{Service,v1}}\n",
            1,
        )
        .replacen(
            "    pub foo: Option<String>,\n}",
            "    pub foo: Option<String>,\n    /// size is the number of memcached pods.\n    // +operator-sdk:csv:customresourcedefinitions:type=spec,xDescriptors={\"urn:alm:descriptor:com.tectonic.ui:podCount\"}\n    #[serde(default)]\n    pub size: i32,\n    /// The memcached containers.\n    #[serde(default)]\n    pub containers: Vec<Container>,\n}\n\n/// One container.\n#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]\npub struct Container {\n    /// Its image.\n    // +operator-sdk:csv:customresourcedefinitions:type=spec,displayName=\"Container image\",order=1\n    pub image: String,\n}",
            1,
        )
        .replacen(
            "    pub conditions: Vec<Condition>,\n}",
            "    // +operator-sdk:csv:customresourcedefinitions:type=status\n    pub conditions: Vec<Condition>,\n}",
            1,
        )
    });
    dir
}

fn edit(dir: &Path, file: &str, f: impl FnOnce(&str) -> String) {
    let path = dir.join(file);
    let before = std::fs::read_to_string(&path).unwrap();
    let after = f(&before);
    assert_ne!(before, after, "{file}: the edit changed nothing");
    std::fs::write(&path, after).unwrap();
}

fn yaml(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_saphyr::from_str(&text).unwrap()
}

const CSV: &str = "bundle/manifests/memcached-operator.clusterserviceversion.yaml";
const BASE: &str = "config/manifests/bases/memcached-operator.clusterserviceversion.yaml";

#[tokio::test]
async fn bundle_of_a_new_project_passes_olm_validators_and_the_api_server() {
    let Some(kubectl) = kubectl() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let dir = project(tmp.path());
    let out = bundle_ok(&dir, &kubectl, &["--version", "0.1.0"]);
    assert!(out.contains(&format!("wrote {BASE}")), "{out}");
    for file in [
        CSV,
        "bundle/manifests/cache.example.com_memcacheds.yaml",
        "bundle/metadata/annotations.yaml",
        "bundle.Dockerfile",
        BASE,
    ] {
        assert!(dir.join(file).is_file(), "{file} missing");
    }

    let csv = yaml(&dir.join(CSV));
    insta::assert_snapshot!(
        "memcached_csv",
        std::fs::read_to_string(dir.join(CSV)).unwrap()
    );
    assert_eq!(csv["metadata"]["name"], "memcached-operator.v0.1.0");
    assert_eq!(csv["spec"]["version"], "0.1.0");
    let owned = &csv["spec"]["customresourcedefinitions"]["owned"][0];
    assert_eq!(owned["displayName"], "Memcached App");
    assert_eq!(
        owned["resources"],
        json!([
            {"kind": "Service", "name": "", "version": "v1"},
            {"kind": "Deployment", "name": "memcached-deployment", "version": "v1"},
        ])
    );
    let paths: Vec<&str> = owned["specDescriptors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["containers[0].image", "size"], "order=1 first");
    assert_eq!(owned["statusDescriptors"][0]["path"], "conditions");
    assert_eq!(owned["statusDescriptors"][0]["displayName"], "Conditions");
    let install = &csv["spec"]["install"]["spec"];
    let deployment = &install["deployments"][0];
    assert_eq!(deployment["name"], "memcached-operator-controller-manager");
    // OLM mounts the webhook certificate itself: cert-manager's Secret volume is gone.
    assert!(
        deployment["spec"]["template"]["spec"]
            .get("volumes")
            .is_none(),
        "{deployment}"
    );
    let hooks = csv["spec"]["webhookdefinitions"].as_array().unwrap();
    assert_eq!(hooks.len(), 2);
    for h in hooks {
        assert_eq!(h["deploymentName"], deployment["name"]);
        assert_eq!(h["targetPort"], 9443);
    }
    let examples: Value = serde_json::from_str(
        csv["metadata"]["annotations"]["alm-examples"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(examples[0]["kind"], "Memcached");
    assert!(
        install["clusterPermissions"][0]["rules"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["resources"] == json!(["memcacheds"]))
    );
    assert_eq!(
        install["permissions"][0]["rules"][0]["resources"],
        json!(["leases"])
    );
    // The manager's own account, roles and bindings are in the CSV, not beside it.
    let files: Vec<String> = std::fs::read_dir(dir.join("bundle/manifests"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        files.iter().all(|f| !f.contains("serviceaccount")
            && !f.contains("rolebinding")
            && !f.contains("manager-role")
            && !f.contains("webhook-service")),
        "{files:?}"
    );

    if let Some(validate) = validator() {
        let out = Command::new(&validate)
            .arg(dir.join("bundle"))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!text.contains("ERROR"), "{text}");
        // The one warning is operator-sdk's default channel name, alpha.
        let warnings: Vec<&str> = text.lines().filter(|l| l.starts_with("WARN")).collect();
        assert_eq!(warnings.len(), 1, "{text}");
        assert!(warnings[0].contains("[\"alpha\"]"), "{text}");
        // With channels OLM recommends, not even that.
        bundle_ok(
            &dir,
            &kubectl,
            &["--channels", "stable,fast", "--default-channel", "stable"],
        );
        let out = Command::new(&validate)
            .arg(dir.join("bundle"))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{text}");
        assert_eq!(text.trim(), "bundle valid", "{text}");
    }

    let Some(control_plane) = opgen_envtest::shared_or_skip().await else {
        return;
    };
    let client = control_plane.client().unwrap();
    let crd_dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        dir.join("bundle/manifests/cache.example.com_memcacheds.yaml"),
        crd_dir.path().join("memcacheds.yaml"),
    )
    .unwrap();
    // OLM's ClusterServiceVersion CRD, from operator-framework/api at tools/olm's version.
    let api = Command::new("go")
        .args([
            "mod",
            "download",
            "-json",
            "github.com/operator-framework/api",
        ])
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/olm"))
        .output();
    let olm_crd = match api {
        Ok(out) if out.status.success() => {
            let info: Value = serde_json::from_slice(&out.stdout).unwrap();
            Some(
                PathBuf::from(info["Dir"].as_str().unwrap())
                    .join("crds/operators.coreos.com_clusterserviceversions.yaml"),
            )
        }
        _ => {
            assert!(
                !on_ci(),
                "CI=true requires go for operator-framework/api's CRDs"
            );
            None
        }
    };
    if let Some(olm_crd) = &olm_crd {
        std::fs::copy(olm_crd, crd_dir.path().join("csv.yaml")).unwrap();
    }
    opgen_envtest::install_crds(&client, crd_dir.path())
        .await
        .expect("the bundle's CRDs install");
    if olm_crd.is_some() {
        let mut csv = csv.clone();
        csv["metadata"]["namespace"] = json!("default");
        let applied = opgen_envtest::apply_documents(
            &client,
            vec![csv],
            "default",
            // Strict: a field OLM's schema does not know is an error, not a warning.
            &PatchParams::apply("opgen-test")
                .force()
                .validation(ValidationDirective::Strict),
            &dir.join(CSV),
        )
        .await
        .expect("the API server accepts the ClusterServiceVersion");
        assert_eq!(
            applied[0].data["spec"]["install"]["spec"]["deployments"][0]["name"],
            "memcached-operator-controller-manager"
        );
    }
}

#[test]
fn base_csv_edits_are_kept_and_check_finds_a_stale_bundle() {
    let Some(kubectl) = kubectl() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let dir = project(tmp.path());
    bundle_ok(
        &dir,
        &kubectl,
        &[
            "--version",
            "0.1.0",
            "--image",
            "example.com/memcached:v0.1.0",
        ],
    );
    edit(&dir, BASE, |s| {
        s.replace(
            "description: Memcached Operator manages its custom resources on Kubernetes.",
            "description: Runs memcached for you.",
        )
        .replace(
            "  - memcached-operator\n",
            "  - memcached-operator\n  - cache\n",
        )
    });
    let base = std::fs::read_to_string(dir.join(BASE)).unwrap();
    // No flags: the version, channels and image of the bundle already there.
    bundle_ok(&dir, &kubectl, &[]);
    assert_eq!(
        std::fs::read_to_string(dir.join(BASE)).unwrap(),
        base,
        "the base CSV is the user's"
    );
    let csv = yaml(&dir.join(CSV));
    assert_eq!(csv["spec"]["description"], "Runs memcached for you.");
    assert_eq!(
        csv["spec"]["keywords"],
        json!(["memcached-operator", "cache"])
    );
    assert_eq!(csv["spec"]["version"], "0.1.0");
    assert_eq!(
        csv["spec"]["install"]["spec"]["deployments"][0]["spec"]["template"]["spec"]["containers"]
            [0]["image"],
        "example.com/memcached:v0.1.0"
    );
    let out = bundle_ok(&dir, &kubectl, &["--check"]);
    assert_eq!(out.trim(), "bundle is up to date");

    // A new version, or a new descriptor, makes it stale; --check names the files, writes nothing.
    let err = bundle_err(&dir, &kubectl, &["--check", "--version", "0.2.0"]);
    assert!(err.contains(CSV), "{err}");
    assert!(
        !err.contains("bundle/metadata/annotations.yaml"),
        "only the CSV names the version: {err}"
    );
    edit(&dir, TYPES, |s| {
        s.replacen(
            "    pub size: i32,",
            "    pub size: i32,\n    /// Whether to serve.\n    // +operator-sdk:csv:customresourcedefinitions:type=spec\n    #[serde(default)]\n    pub enabled: bool,",
            1,
        )
    });
    let err = bundle_err(&dir, &kubectl, &["--check"]);
    assert!(err.contains(CSV), "{err}");
    assert!(
        err.contains("bundle/manifests/cache.example.com_memcacheds.yaml"),
        "{err}"
    );
    assert!(
        err.contains("config/crd/bases/cache.example.com_memcacheds.yaml"),
        "{err}"
    );
    bundle_ok(&dir, &kubectl, &[]);
    let csv = yaml(&dir.join(CSV));
    let paths = &csv["spec"]["customresourcedefinitions"]["owned"][0]["specDescriptors"];
    assert_eq!(paths[1]["path"], "enabled", "{paths}");
    bundle_ok(&dir, &kubectl, &["--check"]);
}

#[test]
fn bad_input_is_refused_with_nothing_written() {
    let Some(kubectl) = kubectl() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let dir = project(tmp.path());
    let err = bundle_err(&dir, &kubectl, &[]);
    assert!(err.contains("needs --version"), "{err}");
    let err = bundle_err(&dir, &kubectl, &["--version", "1.0"]);
    assert!(
        err.contains("invalid value \"1.0\" for --version: not a semantic version"),
        "{err}"
    );
    let err = bundle_err(&dir, &kubectl, &["--version", "v0.1.0"]);
    assert!(err.contains("write --version 0.1.0"), "{err}");
    let err = bundle_err(
        &dir,
        &kubectl,
        &["--version", "0.1.0", "--default-channel", "stable"],
    );
    assert!(
        err.contains("--default-channel stable is not one of the bundle's channels (alpha)"),
        "{err}"
    );

    let original = std::fs::read_to_string(dir.join(TYPES)).unwrap();
    let cases: &[(&str, &str, &str)] = &[
        // An unknown value of an enum argument.
        (
            "type=spec,xDescriptors",
            "type=spc,xDescriptors",
            "one of spec, status",
        ),
        // An xDescriptor that is not an OLM descriptor.
        (
            "\"urn:alm:descriptor:com.tectonic.ui:podCount\"",
            "\"podCount\"",
            "is not an OLM descriptor",
        ),
        // A status marker on a spec field.
        (
            "type=spec,xDescriptors",
            "type=status,xDescriptors",
            "says type=status, but its field is under the kind's spec (path size)",
        ),
        // A resources entry that is not {Kind,version[,name]}.
        ("{Service,v1}", "{service,v1}", "`service` is not a kind"),
        // A field marker without type=.
        (
            "type=spec,displayName=\"Container image\"",
            "displayName=\"Container image\"",
            "needs type=spec or type=status",
        ),
    ];
    for (from, to, message) in cases {
        std::fs::write(dir.join(TYPES), original.replacen(from, to, 1)).unwrap();
        let err = bundle_err(&dir, &kubectl, &["--version", "0.1.0"]);
        assert!(err.contains(message), "{to}: {err}");
        assert!(
            err.contains(&format!("--> {TYPES}:")),
            "{to}: no location: {err}"
        );
    }
    // A marker on a field that no kind reaches.
    std::fs::write(
        dir.join(TYPES),
        format!(
            "{original}\n/// Not used by any kind.\n#[derive(Serialize, Deserialize)]\npub struct Orphan {{\n    // +operator-sdk:csv:customresourcedefinitions:type=spec\n    pub x: i32,\n}}\n"
        ),
    )
    .unwrap();
    let err = bundle_err(&dir, &kubectl, &["--version", "0.1.0"]);
    assert!(
        err.contains("is on a field that no kind's spec or status reaches"),
        "{err}"
    );
    let line = original.lines().count() + 5;
    assert!(err.contains(&format!("--> {TYPES}:{line}:8")), "{err}");
    std::fs::write(dir.join(TYPES), &original).unwrap();

    // A base CSV that is not one.
    bundle_ok(&dir, &kubectl, &["--version", "0.1.0"]);
    std::fs::write(dir.join(BASE), "kind: Deployment\n").unwrap();
    let err = bundle_err(&dir, &kubectl, &[]);
    assert!(
        err.contains(&format!(
            "{BASE}: is a \"Deployment\", not a ClusterServiceVersion"
        )),
        "{err}"
    );
    std::fs::write(dir.join(BASE), "spec: [\n").unwrap();
    let err = bundle_err(&dir, &kubectl, &[]);
    assert!(
        err.contains(&format!("{BASE}:")) && err.contains("not valid YAML"),
        "{err}"
    );
}

/// A namespaced operator: its Role becomes the CSV's permissions, it installs into one
/// namespace, and it watches the namespaces OLM targets, as operator-sdk's bundles do.
#[test]
fn namespaced_operator_bundle_watches_olm_target_namespaces() {
    let Some(kubectl) = kubectl() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("site-operator");
    std::fs::create_dir(&dir).unwrap();
    opgen_ok(&dir, &["init", "--domain", "example.com", "--namespaced"]);
    opgen_ok(
        &dir,
        &[
            "create",
            "api",
            "--group",
            "web",
            "--version",
            "v1",
            "--kind",
            "Site",
        ],
    );
    bundle_ok(
        &dir,
        &kubectl,
        &["--version", "1.0.0", "--channels", "stable"],
    );
    let csv = yaml(&dir.join("bundle/manifests/site-operator.clusterserviceversion.yaml"));
    let modes: Vec<(&str, bool)> = csv["spec"]["installModes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["type"].as_str().unwrap(),
                m["supported"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        modes,
        [
            ("OwnNamespace", true),
            ("SingleNamespace", true),
            ("MultiNamespace", false),
            ("AllNamespaces", false)
        ]
    );
    let install = &csv["spec"]["install"]["spec"];
    let rules = install["permissions"][0]["rules"].as_array().unwrap();
    assert!(
        rules.iter().any(|r| r["resources"] == json!(["sites"])),
        "{rules:?}"
    );
    let env = &install["deployments"][0]["spec"]["template"]["spec"]["containers"][0]["env"];
    let watch = env
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "WATCH_NAMESPACE")
        .unwrap();
    assert_eq!(
        watch["valueFrom"]["fieldRef"]["fieldPath"],
        "metadata.annotations['olm.targetNamespaces']"
    );
    if let Some(validate) = validator() {
        let out = Command::new(&validate)
            .arg(dir.join("bundle"))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{text}");
        assert_eq!(text.trim(), "bundle valid");
    }
}
