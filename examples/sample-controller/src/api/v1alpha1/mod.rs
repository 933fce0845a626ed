// Copyright 2026 The sample-controller Authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

//! API version `v1alpha1` of the `samplecontroller.k8s.io` group.
//!
//! Each kind lives in its own `<kind>_types.rs` file. opgen reads the `+` marker
//! comments in these files to write the CRD manifests under `config/crd`.
//!
//! +groupName=samplecontroller.k8s.io

pub mod foo_types;
pub use foo_types::*;
// +opgen:scaffold:kinds
