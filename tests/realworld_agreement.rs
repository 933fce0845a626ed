//! The real-world corpus's kinds (the Rust ports under `tests/fixtures/controller-gen/
//! realworld-*`, whose CRDs `conformance_realworld.rs` compares with controller-gen's) checked
//! against their CRDs on a real API server: each port is built as a crate, opgen writes its
//! CRDs, and every kind version goes through `opgen_envtest::agreement` (objects drawn from the
//! schema read back through serde, values of the Rust type kept as serde sends them), as in
//! every scaffolded project's `make test`.
//!
//! Built against Kubernetes 1.33 (the scaffold's, so that every project the tests build shares
//! one build of kube and k8s-openapi), with the CRDs written for 1.33 too: the embedded
//! Kubernetes types' schemas are those of the Rust types then.

mod support;

use std::collections::BTreeSet;
use std::path::Path;

use opgen::ops::manifests::{ManifestOptions, manifests};
use opgen::writer::Workspace;
use support::roundtrip::{Typed, samples_on_the_api_server, select_k8s_for_build};

/// The crate a test builds of a port: the port's sources with the dependencies of a scaffolded
/// project (kube with its client for the test, opgen-envtest for the check).
const MANIFEST: &str = r#"[package]
name = "{package}"
version = "0.0.0"
edition = "2024"
publish = false

[lib]
path = "src/lib.rs"

[dependencies]
kube = { version = "5.0.0", default-features = false, features = ["client", "rustls-tls", "ring", "runtime", "derive", "admission"] }
k8s-openapi = { version = "0.29.0", features = ["v1_33"] }
serde = { version = "1.0.229", features = ["derive"] }
serde_json = "1.0.154"
schemars = "1"
tokio = { version = "1.54.1", features = ["macros", "rt-multi-thread"] }

[dev-dependencies]
opgen-envtest = "0.1"
"#;

/// Builds the port `fixture` (`realworld-<name>`), writes its CRDs with `opts` and checks the
/// agreement of each kind version its CRDs have (`kinds` of them); `exceptions` are the
/// disagreements that are upstream's, each (a text the disagreement holds, why).
fn agrees(fixture: &str, opts: &ManifestOptions, kinds: usize, exceptions: &[(&str, &str)]) {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join(fixture);
    support::copy_tree(
        &support::fixture(&format!("controller-gen/{fixture}")),
        &project,
    );
    std::fs::write(
        project.join("Cargo.toml"),
        MANIFEST.replace("{package}", fixture),
    )
    .unwrap();
    select_k8s_for_build(&project);
    let mut ws = Workspace::new(&project);
    manifests(&mut ws, opts).unwrap_or_else(|e| panic!("opgen manifests on {fixture}:\n{e}"));
    ws.commit().unwrap();
    approved_where_protected(&project.join("config/crd/bases"));
    // A version its `+kubebuilder:skipversion` leaves out of the CRD has nothing to agree with.
    let written = crd_versions(&project.join("config/crd/bases"));
    let declared: Vec<_> = declared_kinds(&project, &fixture.replace('-', "_"))
        .into_iter()
        .filter(|(kind, version, ..)| written.contains(&(kind.clone(), version.clone())))
        .collect();
    assert_eq!(
        declared.len(),
        kinds,
        "the kind versions of {fixture}'s CRDs: {declared:?}"
    );
    let typed = Typed::each_of(&declared);
    samples_on_the_api_server(&project, fixture, &[], &typed, 0, exceptions);
}

/// A group under `k8s.io` needs the API approval annotation, which Gateway API's release adds
/// to what controller-gen writes (as its kustomization does): the port's CRDs get one too.
fn approved_where_protected(crds: &Path) {
    for entry in std::fs::read_dir(crds).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy();
        let group = name.split('_').next().unwrap_or_default();
        if group.ends_with(".k8s.io") || group.ends_with(".kubernetes.io") {
            let approved = text.replacen(
                "  annotations:\n",
                "  annotations:\n    api-approved.kubernetes.io: unapproved, opgen's tests\n",
                1,
            );
            assert_ne!(approved, text, "{}: no annotations", path.display());
            std::fs::write(&path, approved).unwrap();
        }
    }
}

/// The (kind, version)s of the CRDs in `dir`.
fn crd_versions(dir: &Path) -> BTreeSet<(String, String)> {
    let mut versions = BTreeSet::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        let crd: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
        let kind = crd["spec"]["names"]["kind"].as_str().unwrap();
        for version in crd["spec"]["versions"].as_sequence().unwrap() {
            let name = version["name"].as_str().unwrap();
            versions.insert((kind.to_owned(), name.to_owned()));
        }
    }
    versions
}

/// Each `#[kube(...)]` kind of the crate's `src/api`: (kind, version, Rust path, namespaced).
fn declared_kinds(project: &Path, krate: &str) -> Vec<(String, String, String, bool)> {
    let src = project.join("src");
    let mut kinds = Vec::new();
    for entry in walkdir::WalkDir::new(src.join("api")).sort_by_file_name() {
        let entry = entry.unwrap();
        if entry.path().extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let rel = entry.path().strip_prefix(&src).unwrap().with_extension("");
        let mut module: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if module.last().is_some_and(|m| m == "mod") {
            module.pop();
        }
        let text = std::fs::read_to_string(entry.path()).unwrap();
        // Attributes only: a comment may name `#[kube(doc)]`.
        let starts = text
            .match_indices("\n#[kube(")
            .map(|(at, open)| at + open.len());
        for start in starts {
            let block = &text[start..];
            let attr = &block[..block.find(")]").expect("a closed #[kube(...)]")];
            let value = |key: &str| {
                let start = attr.find(&format!("{key} = \""))? + key.len() + 4;
                let len = attr[start..].find('"')?;
                Some(attr[start..start + len].to_owned())
            };
            let (Some(kind), Some(version)) = (value("kind"), value("version")) else {
                panic!(
                    "{}: a #[kube(...)] without kind or version",
                    entry.path().display()
                );
            };
            let namespaced = attr
                .split(|c: char| c == ',' || c.is_whitespace())
                .any(|t| t == "namespaced");
            let path = format!("{krate}::{}::{kind}", module.join("::"));
            kinds.push((kind, version, path, namespaced));
        }
    }
    kinds
}

fn embedded_object_meta() -> ManifestOptions {
    ManifestOptions {
        generate_embedded_object_meta: true,
        ..ManifestOptions::default()
    }
}

/// Why an empty object comes back where the API server kept none (omitempty never leaves a Go
/// struct out).
const GO_STRUCT: &str = "a Go struct field, not a pointer: encoding/json writes it even when \
                         empty, so Go's client too writes back the empty object where the API \
                         server kept none";

#[test]
fn prometheus_operator_kinds_agree() {
    agrees(
        "realworld-prometheus-operator",
        &ManifestOptions::default(),
        2,
        &[
            (
                r#": the API server has nothing, its round trip through serde has {"key":"","name":""}"#,
                GO_STRUCT, // keySecret, basic auth's username and password: SecretKeySelectors
            ),
            (
                ".volumeClaimTemplate: the API server has nothing",
                GO_STRUCT,
            ),
            (
                r#".spec.retention: the API server has """#,
                "a Go string with omitempty and a schema default (120h): Go's client drops the \
                 empty string too, and the API server then defaults it",
            ),
            (
                r#".spec.portName: the API server has """#,
                "the same, with the default web",
            ),
            (
                "volumeClaimTemplate.metadata.labels: serde sent",
                "controller-gen without generateEmbeddedObjectMeta (as prometheus-operator runs \
                 it) writes the embedded ObjectMeta as a bare object, so the API server prunes \
                 the labels Go's ObjectMeta holds, as it prunes the Rust one's",
            ),
            (
                "volumeClaimTemplate.metadata.name: serde sent",
                "the same pruning, of the name",
            ),
        ],
    );
}

#[test]
fn gateway_api_kinds_agree() {
    agrees(
        "realworld-gateway-api",
        &ManifestOptions::default(),
        2,
        &[(
            ".status.conditions: the API server has [], its round trip through serde has nothing",
            "GatewayClass's status conditions are a Go list with omitempty: Go's client drops an \
             empty list too (the schema's default fills only an absent one)",
        )],
    );
}

#[test]
fn kueue_kinds_agree() {
    agrees(
        "realworld-kueue",
        &embedded_object_meta(),
        20,
        &[
            (
                r#"the API server has nothing, its round trip through serde has "0""#,
                "a resource's total and borrowed are resource.Quantity, a Go struct: Go reads a \
                 missing one as zero and writes back \"0\", as the port does",
            ),
            (
                "].resources: the API server has [], its round trip through serde has nothing",
                "a flavor's resources are +required but a Go list with omitempty and no \
                 minItems: Go's client drops an empty list too, and the API server then requires \
                 it",
            ),
            ("].resources: Required value", "the refusal of that"),
            (
                r#"].name: the API server has "", its round trip through serde has nothing"#,
                "a resource's name is +required and its list's map key, but a Go string with \
                 omitempty and no minLength: Go's client drops an empty name too",
            ),
            (
                "omits key field",
                "the refusal of that: server-side apply keys each element by its name",
            ),
        ],
    );
}

#[test]
fn flux_source_kinds_agree() {
    // v1beta1 and v1beta2 are +kubebuilder:skipversion: v1's six kinds.
    agrees(
        "realworld-flux-source",
        &ManifestOptions::default(),
        6,
        &[
            (
                r#".spec.version: the API server has """#,
                "HelmChart's version is a Go string with omitempty and the default *: Go's \
                 client drops the empty string too, and the API server then defaults it",
            ),
            (
                r#".spec.interval: the API server has nothing, its round trip through serde has "0s""#,
                "HelmRepository's interval is a metav1.Duration, a Go struct: Go reads a missing \
                 one as zero and writes back \"0s\", as the port does",
            ),
        ],
    );
}

#[test]
fn cluster_api_kinds_agree() {
    agrees(
        "realworld-cluster-api",
        &ManifestOptions::default(),
        12,
        &[
            (
                "bootstrap: the API server has {}",
                "Bootstrap is +required with omitempty,omitzero and no required field of its \
                 own: Go reads {} as the zero value, which omitzero leaves out, so Go's client \
                 too writes back no bootstrap, which the API server then requires",
            ),
            ("bootstrap: Required value", "the refusal of that"),
            (
                ".spec.selector: the API server has {}",
                "the same for a required LabelSelector with omitempty,omitzero: the empty \
                 selector is Go's zero value",
            ),
            ("spec.selector: Required value", "the refusal of that"),
            (
                ".spec.template.metadata: the API server has {",
                "cluster-api's ObjectMeta holds labels and annotations as Go maps with \
                 omitempty: Go's client drops empty maps too (and writes metadata: {}, where the \
                 port, which cannot tell an empty map from none, writes nothing)",
            ),
        ],
    );
}

#[test]
fn cert_manager_kinds_agree() {
    agrees(
        "realworld-cert-manager",
        &ManifestOptions::default(),
        6,
        &[(
            // tsigSecretSecretRef, secretAccessKeySecretRef, passwordSecretRef, secretRef.
            r#"ecretRef: the API server has nothing, its round trip through serde has {"name":""}"#,
            GO_STRUCT,
        )],
    );
}

#[test]
fn jobset_kinds_agree() {
    agrees(
        "realworld-jobset",
        &embedded_object_meta(),
        1,
        &[(
            "no such key: templates evaluating rule: namespace cannot be set for VolumeClaimPolicies",
            "JobSet's own rule on a volume claim policy reads `self.templates` without `has()`, \
             so the API server refuses a policy without templates, which Go's omitempty sends \
             for an empty list as serde's skip_serializing_if does",
        )],
    );
}
