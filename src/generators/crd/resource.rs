//! What a kind version's resource-level markers say, gathered by one exhaustive match: a
//! resource marker added to the catalog does not build until the CRD generator reads it.

use crate::markers::Marker;
use crate::markers::Value as MarkerValue;
use crate::markers::typed::{
    DeprecatedVersion, Metadata, PrintColumn, Resource, ResourceMarker, ScaleSubresource,
    SelectableField, Typed, XValidation,
};

/// A marker's arguments with the marker, for errors at its line.
pub type At<'m, T> = (&'m Marker, &'m T);

/// One version's resource markers. Single markers keep the first one written (the grammar
/// refuses a second of a non-repeatable marker); repeatable ones are in source order.
#[derive(Default)]
pub struct ResourceMarkers<'m> {
    pub status_subresource: bool,
    pub scale: Option<At<'m, ScaleSubresource>>,
    pub print_columns: Vec<At<'m, PrintColumn>>,
    pub resource: Option<At<'m, Resource>>,
    pub storage_version: bool,
    pub skip_version: bool,
    pub unserved_version: bool,
    /// `+kubebuilder:deprecatedversion`, with its warning if it has one.
    pub deprecated: Option<&'m DeprecatedVersion>,
    pub metadata: Vec<At<'m, Metadata>>,
    pub metadata_required: bool,
    pub status_default: Option<&'m MarkerValue>,
    pub no_status_subresource: Option<&'m Marker>,
    pub root_validations: Vec<At<'m, XValidation>>,
    pub selectable_fields: Vec<&'m SelectableField>,
}

impl<'m> ResourceMarkers<'m> {
    pub fn of(markers: &'m [Marker]) -> Self {
        let mut out = ResourceMarkers::default();
        for m in markers {
            let Typed::Resource(r) = &m.typed else {
                continue;
            };
            match r {
                ResourceMarker::StatusSubresource => out.status_subresource = true,
                ResourceMarker::ScaleSubresource(s) => {
                    out.scale.get_or_insert((m, s));
                }
                ResourceMarker::PrintColumn(c) => out.print_columns.push((m, c)),
                ResourceMarker::Resource(r) => {
                    out.resource.get_or_insert((m, r));
                }
                ResourceMarker::StorageVersion => out.storage_version = true,
                ResourceMarker::SkipVersion => out.skip_version = true,
                ResourceMarker::UnservedVersion => out.unserved_version = true,
                ResourceMarker::DeprecatedVersion(d) => {
                    out.deprecated.get_or_insert(d);
                }
                ResourceMarker::Metadata(meta) => out.metadata.push((m, meta)),
                ResourceMarker::MetadataRequired => out.metadata_required = true,
                ResourceMarker::StatusDefault(v) => {
                    out.status_default.get_or_insert(v);
                }
                ResourceMarker::NoStatusSubresource => {
                    out.no_status_subresource.get_or_insert(m);
                }
                ResourceMarker::RootValidation(v) => out.root_validations.push((m, v)),
                ResourceMarker::SelectableField(f) => out.selectable_fields.push(f),
            }
        }
        out
    }
}
