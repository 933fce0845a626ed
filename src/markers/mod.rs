//! Markers: the `// +name:args` comment lines that annotate Rust items.
//!
//! * [`catalog`]: every known marker, read from `markers/catalog.yaml`;
//! * [`grammar`]: parsing one marker's text against the catalog;
//! * [`attach`]: finding the comment lines of a source file and giving each marker to the
//!   package, type, field or item it belongs to;
//! * [`attrs`]: the markers a field's schemars, validate, garde and x_kube attributes mean.

pub mod arg_type;
pub mod attach;
pub mod attrs;
pub mod catalog;
pub mod grammar;
pub mod typed;

pub use attach::{Attached, FileMarkers, Marker, NodeId};
pub use catalog::{MarkerCatalog, MarkerDef, Target};
pub use grammar::{ParsedArgs, Value};
