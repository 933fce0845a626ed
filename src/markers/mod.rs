//! Markers: the `// +name:args` comment lines that annotate Rust items.
//!
//! * [`catalog`]: every known marker, read from `markers/catalog.yaml`;
//! * [`grammar`]: parsing one marker's text against the catalog;
//! * [`attach`]: finding the comment lines of a source file and giving each marker to the
//!   package, type, field or item it belongs to.

pub mod attach;
pub mod catalog;
pub mod grammar;

pub use attach::{Attached, FileMarkers, Marker, NodeId};
pub use catalog::{MarkerCatalog, MarkerDef, Target};
pub use grammar::{ParsedArgs, Value};

/// Markers that describe a kind (its resource, versions, printer columns, subresources, CRD
/// metadata, root): they take effect on the struct that derives CustomResource only.
pub fn describes_a_kind(name: &str) -> bool {
    name.starts_with("kubebuilder:subresource")
        || name.starts_with("opgen:root:")
        || name.starts_with("opgen:status:")
        || matches!(
            name,
            "kubebuilder:printcolumn"
                | "kubebuilder:resource"
                | "kubebuilder:storageversion"
                | "kubebuilder:skipversion"
                | "kubebuilder:unservedversion"
                | "kubebuilder:deprecatedversion"
                | "kubebuilder:metadata"
                | "kubebuilder:selectablefield"
                | "opgen:metadata:required"
        )
}
