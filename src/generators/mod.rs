//! Generators turn the model (or command options) into file contents: CRDs, RBAC roles,
//! webhook configurations, scaffold plans, and Rust types from imported CRDs. They never touch
//! the disk.

pub mod bundle;
pub mod crd;
pub mod csv;
pub mod docs;
pub mod helm;
pub mod package;
pub mod rbac;
pub mod rust_from_go;
pub mod rust_types;
pub mod rustfmt;
pub mod scaffold;
pub mod templates;
pub mod webhook;
