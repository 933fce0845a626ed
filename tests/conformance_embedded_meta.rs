//! controller-gen's `crd:generateEmbeddedObjectMeta=true` against opgen's
//! `--generate-embedded-object-meta`: a kind embedding a corev1.PodTemplateSpec (the option's
//! reason to exist), controller-gen run live on the Go type, opgen on its Rust port, compared
//! byte for byte (the version annotation and kube-derive's root `required: [spec]` aside, as in
//! the other conformance tests). Without the option, the pod template's `metadata` is
//! `{type: object}` for both.

#[path = "fixtures/controller-gen/harness.rs"]
mod harness;

use harness::*;
use opgen::ops::manifests::{ManifestOptions, manifests};
use std::path::Path;

const GO_MOD: &str = "module example.com/podsets

go 1.24

require (
\tk8s.io/api v0.33.13
\tk8s.io/apimachinery v0.33.13
)
";

const GO_TYPES: &str = r#"// Package v1 holds a kind with a pod template.
// +groupName=embed.example.com
// +versionName=v1
package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PodSetSpec holds a pod template.
type PodSetSpec struct {
	// template is the pod template of the set.
	Template corev1.PodTemplateSpec `json:"template"`
}

// +kubebuilder:object:root=true

// PodSet runs pods from a template.
type PodSet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec PodSetSpec `json:"spec,omitempty"`
}
"#;

const RUST_TYPES: &str = r#"//! +groupName=embed.example.com
use k8s_openapi::api::core::v1::PodTemplateSpec;
use kube::CustomResource;
use serde::{Deserialize, Serialize};

/// PodSetSpec holds a pod template.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug)]
#[kube(group = "embed.example.com", version = "v1", kind = "PodSet", namespaced,
       doc = "PodSet runs pods from a template.")]
pub struct PodSetSpec {
    /// template is the pod template of the set.
    pub template: PodTemplateSpec,
}
"#;

const FILE: &str = "embed.example.com_podsets.yaml";

/// controller-gen on the Go package, with or without the option; None without controller-gen
/// (a failure under CI=true).
fn controller_gen_crd(embedded: bool) -> Option<String> {
    let Some(bin) = controller_gen() else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true requires controller-gen"
        );
        eprintln!("conformance: embedded ObjectMeta not compared (controller-gen missing)");
        return None;
    };
    let work = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(work.path().join("api/v1")).unwrap();
    std::fs::write(work.path().join("go.mod"), GO_MOD).unwrap();
    std::fs::write(work.path().join("api/v1/types.go"), GO_TYPES).unwrap();
    let out = work.path().join("out");
    let crd_arg = if embedded {
        "crd:generateEmbeddedObjectMeta=true"
    } else {
        "crd"
    };
    let result = std::process::Command::new(bin)
        .args([crd_arg, "paths=./api/..."])
        .arg(format!("output:dir={}", out.display()))
        .current_dir(work.path())
        .env("GOFLAGS", "-mod=mod")
        .env("GOWORK", "off")
        .output()
        .expect("controller-gen runs");
    assert!(
        result.status.success(),
        "controller-gen failed:\n{}",
        String::from_utf8_lossy(&result.stderr)
    );
    Some(std::fs::read_to_string(out.join(FILE)).unwrap())
}

fn opgen_crd(embedded: bool) -> String {
    let (_dir, mut ws) = in_memory(&[
        ("src/api/v1/mod.rs", RUST_TYPES),
        ("src/api/mod.rs", "pub mod v1;\n"),
    ]);
    let opts = ManifestOptions {
        generate_embedded_object_meta: embedded,
        ..ManifestOptions::default()
    };
    manifests(&mut ws, &opts).unwrap_or_else(|e| panic!("{e}"));
    ws.read(&Path::new("config/crd/bases").join(FILE))
        .unwrap()
        .expect("opgen wrote the CRD")
}

fn compare(embedded: bool) {
    let text = opgen_crd(embedded);
    let metadata = "/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/template/properties/metadata";
    let ours_doc = documents(&text);
    let labels = ours_doc[0].pointer(&format!("{metadata}/properties/labels"));
    assert_eq!(labels.is_some(), embedded, "{text}");
    let Some(theirs) = controller_gen_crd(embedded) else {
        return;
    };
    let mut ours = ours_doc[0].clone();
    version_annotation_as(&mut ours, &pinned_version());
    root_requires_spec(&mut ours, "v1");
    assert_same("podsets", &ours, &documents(&theirs)[0]);
    assert_same_bytes("podsets", &text, &[ours], &theirs);
}

#[test]
fn embedded_object_meta_as_controller_gen_writes_it() {
    compare(true);
}

#[test]
fn without_the_option_a_pod_templates_metadata_is_any_object() {
    compare(false);
}
