//! Turns `markers/catalog.yaml` into Rust statics (build/catalog.rs) and typed markers
//! (build/typed_markers.rs) at build time: opgen reads the catalog on every run, and parsing
//! it there cost a one-kind `opgen manifests` a quarter of its instructions as YAML and a tenth
//! as JSON.
//!
//! Indexes `data/k8s-schemas.jsonl` (build/k8s_index.rs): a one-kind run spent a third of its
//! instructions scanning the 2.7 MB file for where each type's schema is.
//!
//! Links the opgen binary without PIE on Linux (glibc), for its start-up (below).
//!
//! Sets `opgen_vendored` when opgen is built in its repository, beside `crates/opgen-runtime`
//! and `crates/opgen-envtest`: it then embeds them for projects' `vendor/`. The published
//! package cannot hold them (cargo leaves nested packages out).

#[path = "src/markers/arg_type.rs"]
#[allow(dead_code)] // build.rs needs the type, not its descriptions.
mod arg_type;
#[path = "build/catalog.rs"]
mod catalog;
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
    println!("cargo::rerun-if-changed=build/catalog.rs");
    println!("cargo::rerun-if-changed=src/markers/arg_type.rs");
    let yaml = std::fs::read_to_string("markers/catalog.yaml").expect("markers/catalog.yaml");
    let catalog: serde_json::Value =
        serde_saphyr::from_str(&yaml).unwrap_or_else(|e| panic!("markers/catalog.yaml: {e}"));
    std::fs::write(out.join("catalog_defs.rs"), catalog::generate(&catalog))
        .expect("write catalog_defs.rs");
    std::fs::write(
        out.join("typed_markers.rs"),
        typed_markers::generate(&catalog),
    )
    .expect("write typed_markers.rs");
}
