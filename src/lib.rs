//! opgen: scaffold Rust (kube-rs) Kubernetes operators and generate their manifests.
//!
//! See ARCHITECTURE.md for the codemap. The manifest pipeline runs one way:
//! `load` → `markers` → `model` → `generators` → `writer`.

pub mod cli;
pub mod compat;
pub mod diag;
pub mod generators;
pub mod lint;
pub mod load;
pub mod load_crd;
pub mod load_go;
pub mod markers;
pub mod model;
pub mod names;
pub mod ops;
pub mod parallel;
pub mod pluralize;
pub mod project;
pub mod teardown;
pub mod writer;
pub mod yaml;
