//! Turns `markers/catalog.yaml` into JSON and into typed markers (build/typed_markers.rs) at build time: opgen reads the catalog on every run,
//! and serde_json parses it several times faster than a YAML parser (benchmarks: a one-kind
//! `opgen manifests` spent a quarter of its instructions in the YAML parse).
//!
//! Indexes `data/k8s-schemas.jsonl` (build/k8s_index.rs): a one-kind run spent a third of its
//! instructions scanning the 2.7 MB file for where each type's schema is.
//!
//! Links the opgen binary without PIE on Linux (glibc), for its start-up (below).
//!
//! Sets `opgen_vendored` when opgen is built in its repository, beside `crates/opgen-runtime`
//! and `crates/opgen-envtest`: it then embeds them for projects' `vendor/`. The published
//! package cannot hold them (cargo leaves nested packages out).

#[path = "build/k8s_index.rs"]
mod k8s_index;
#[path = "build/typed_markers.rs"]
mod typed_markers;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(opgen_vendored)");
    let crates = [
        "crates/opgen-runtime/Cargo.toml",
        "crates/opgen-envtest/Cargo.toml",
    ];
    for manifest in crates {
        println!("cargo::rerun-if-changed={manifest}");
    }
    if crates.iter().all(|m| std::path::Path::new(m).is_file()) {
        println!("cargo::rustc-cfg=opgen_vendored");
    }

    // The opgen binary is linked at a fixed address on Linux, as Go links controller-gen: a
    // position-independent one spends its start relocating about 62k pointers (the loader's
    // 3.9M cycles against 0.18M, 370 page faults against 153, for `opgen --version`), and the
    // edit loop starts it on every save.
    let target = |key: &str| std::env::var(key).unwrap_or_default();
    if target("CARGO_CFG_TARGET_OS") == "linux" && target("CARGO_CFG_TARGET_ENV") == "gnu" {
        println!("cargo::rustc-link-arg-bin=opgen=-no-pie");
    }

    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    println!("cargo::rerun-if-changed=data/k8s-schemas.jsonl");
    println!("cargo::rerun-if-changed=build/k8s_index.rs");
    let data = std::fs::read_to_string("data/k8s-schemas.jsonl").expect("data/k8s-schemas.jsonl");
    std::fs::write(out.join("k8s_index.rs"), k8s_index::generate(&data))
        .expect("write k8s_index.rs");

    println!("cargo::rerun-if-changed=markers/catalog.yaml");
    println!("cargo::rerun-if-changed=build/typed_markers.rs");
    let yaml = std::fs::read_to_string("markers/catalog.yaml").expect("markers/catalog.yaml");
    let catalog: serde_json::Value =
        serde_saphyr::from_str(&yaml).unwrap_or_else(|e| panic!("markers/catalog.yaml: {e}"));
    std::fs::write(
        out.join("catalog.json"),
        serde_json::to_string(&without_type_keys(&catalog)).expect("JSON"),
    )
    .expect("write catalog.json");
    std::fs::write(
        out.join("typed_markers.rs"),
        typed_markers::generate(&catalog),
    )
    .expect("write typed_markers.rs");
}

/// The catalog without the keys only the typed markers need (family, variant, ...): opgen
/// parses catalog.json on every run.
fn without_type_keys(catalog: &serde_json::Value) -> serde_json::Value {
    const TYPE_KEYS: [&str; 5] = ["family", "variant", "struct", "enum", "priority"];
    let mut catalog = catalog.clone();
    for entry in catalog.as_array_mut().into_iter().flatten() {
        let Some(entry) = entry.as_object_mut() else {
            continue;
        };
        for key in TYPE_KEYS {
            entry.remove(key);
        }
        for field in entry
            .get_mut("fields")
            .and_then(serde_json::Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            if let Some(field) = field.as_object_mut() {
                field.remove("enum");
            }
        }
    }
    catalog
}
