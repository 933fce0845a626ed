//! Markers: the `// +name:args` comment lines that annotate Rust items.
//!
//! * [`catalog`]: every known marker, read from `markers/catalog.yaml`;
//! * [`grammar`]: parsing one marker's text against the catalog;
//! * [`attach`]: finding the comment lines of a source file and giving each marker to the
//!   package, type, field or item it belongs to.

pub mod arg_type;
pub mod attach;
pub mod catalog;
pub mod grammar;
pub mod typed;

pub use attach::{Attached, FileMarkers, Marker, NodeId};
pub use catalog::{MarkerCatalog, MarkerDef, Target};
pub use grammar::{ParsedArgs, Value};
