// Copyright 2026 The memcached-operator Authors.
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

//! Controllers, one module per kind, and the registry the manager starts them from.
//!
//! Adding a kind adds its module above `+opgen:scaffold:controller-modules` and its
//! entry above `+opgen:scaffold:controllers`; nothing else here changes.

use opgen_runtime::ControllerEntry;

pub mod memcached;
// +opgen:scaffold:controller-modules

/// Every controller of this operator. The manager runs them all concurrently.
pub const CONTROLLERS: &[ControllerEntry] = &[
    memcached::CONTROLLER,
    // +opgen:scaffold:controllers
];
