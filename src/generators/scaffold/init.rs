//! The files `opgen init` writes.

use super::{Policy, ScaffoldPlan};
use crate::diag::Result;
use crate::generators::templates::{self, render};
use crate::names::fnv32a;
use crate::project::{Project, SCAFFOLD_VERSION};
use include_dir::Dir;
use serde::Serialize;

/// The license header of the Rust files a project's scaffold writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum License {
    Apache2,
    None,
}

impl License {
    /// (command-line name, what it means), in the order `--help` lists them.
    pub const CHOICES: [(&'static str, License, &'static str); 2] = [
        (
            "apache2",
            License::Apache2,
            "Apache License 2.0 header in every generated Rust file",
        ),
        ("none", License::None, "No license header"),
    ];
}

/// Kubernetes versions k8s-openapi 0.29 supports; the project builds against exactly one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum K8sVersion {
    V1_33,
    V1_34,
    V1_35,
    V1_36,
    V1_37,
}

impl K8sVersion {
    pub const ALL: [K8sVersion; 5] = [
        K8sVersion::V1_33,
        K8sVersion::V1_34,
        K8sVersion::V1_35,
        K8sVersion::V1_36,
        K8sVersion::V1_37,
    ];

    /// `1.33`: how users write it.
    pub fn name(self) -> &'static str {
        match self {
            K8sVersion::V1_33 => "1.33",
            K8sVersion::V1_34 => "1.34",
            K8sVersion::V1_35 => "1.35",
            K8sVersion::V1_36 => "1.36",
            K8sVersion::V1_37 => "1.37",
        }
    }

    pub fn minor(self) -> u32 {
        match self {
            K8sVersion::V1_33 => 33,
            K8sVersion::V1_34 => 34,
            K8sVersion::V1_35 => 35,
            K8sVersion::V1_36 => 36,
            K8sVersion::V1_37 => 37,
        }
    }

    /// The release whose API server the project's envtest tests run against: the newest
    /// patch of the minor on the Go module proxy when this opgen was made.
    pub fn envtest_release(self) -> &'static str {
        match self {
            K8sVersion::V1_33 => "1.33.13",
            K8sVersion::V1_34 => "1.34.4",
            K8sVersion::V1_35 => "1.35.4",
            K8sVersion::V1_36 => "1.36.3",
            K8sVersion::V1_37 => "1.37.2",
        }
    }

    /// The k8s-openapi cargo feature, e.g. `v1_33`.
    pub fn feature(self) -> String {
        format!("v1_{}", self.minor())
    }
}

/// The oldest Rust a scaffolded project builds with: the newest `rust-version` among its locked
/// dependencies (kube 5's crates and opgen-runtime: 1.89).
pub const RUST_VERSION: &str = "1.89";

/// Where the license header lives; `create api` prepends it to the Rust files it writes.
pub const BOILERPLATE_PATH: &str = "hack/boilerplate.rs.txt";

/// Everything the project templates may refer to.
#[derive(Debug, Clone, Serialize)]
pub struct ProjectContext {
    pub project_name: String,
    pub crate_name: String,
    pub domain: String,
    pub repo: Option<String>,
    /// Name of the leader-election Lease: kubebuilder's `<fnv32a(repo)>.<domain>`.
    pub lease_name: String,
    /// The namespace `config/default` deploys to.
    pub system_namespace: String,
    pub namespaced: bool,
    pub multigroup: bool,
    /// k8s-openapi feature, e.g. `v1_33`.
    pub k8s_feature: String,
    pub k8s_version: String,
    /// The Kubernetes release `make setup-envtest` builds, e.g. `1.33.13`.
    pub envtest_k8s_version: &'static str,
    pub license: bool,
    /// The license header with `YEAR` left in, as stored in hack/boilerplate.rs.txt.
    pub boilerplate: String,
    /// The header to put on top of generated Rust files (year filled in; empty without a license).
    pub header: String,
    pub opgen_version: String,
    /// The project's `rust-version`, which its README asks for too.
    pub rust_version: &'static str,
    /// The manifest (relative to the project) of an enclosing Cargo workspace that does not
    /// list the project: the project then gets an empty `[workspace]` table of its own.
    pub enclosing_workspace: Option<String>,
    /// This opgen carries copies of opgen-runtime and opgen-envtest for `vendor/`, and the
    /// project's Cargo.toml patches crates.io's with them.
    pub vendored: bool,
}

impl ProjectContext {
    pub fn new(
        project: &Project,
        license: License,
        owner: Option<&str>,
        k8s_version: K8sVersion,
    ) -> Self {
        let identity = project.repo.as_deref().unwrap_or(&project.project_name);
        let boilerplate = boilerplate(license, owner, &project.project_name);
        ProjectContext {
            project_name: project.project_name.clone(),
            crate_name: project.crate_name(),
            domain: project.domain.clone(),
            repo: project.repo.clone(),
            lease_name: format!("{:08x}.{}", fnv32a(identity), project.domain),
            system_namespace: format!("{}-system", project.project_name),
            namespaced: project.namespaced,
            multigroup: project.multigroup,
            k8s_feature: k8s_version.feature(),
            k8s_version: k8s_version.name().to_owned(),
            envtest_k8s_version: k8s_version.envtest_release(),
            license: license == License::Apache2,
            header: fill_year(&boilerplate),
            boilerplate,
            opgen_version: env!("CARGO_PKG_VERSION").to_owned(),
            rust_version: RUST_VERSION,
            enclosing_workspace: None,
            vendored: VENDORED,
        }
    }
}

/// The content of hack/boilerplate.rs.txt (`YEAR` left in); empty without a license.
pub fn boilerplate(license: License, owner: Option<&str>, project_name: &str) -> String {
    match license {
        License::Apache2 => apache2_boilerplate(owner, project_name),
        License::None => String::new(),
    }
}

fn apache2_boilerplate(owner: Option<&str>, project_name: &str) -> String {
    let holder = owner.map_or_else(
        || format!("The {project_name} Authors."),
        |o| format!("{o}."),
    );
    format!(
        "// Copyright YEAR {holder}
//
// Licensed under the Apache License, Version 2.0 (the \"License\");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an \"AS IS\" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.
"
    )
}

/// Replaces the `YEAR` placeholder of a boilerplate and appends the blank line that
/// separates it from the code.
pub fn fill_year(boilerplate: &str) -> String {
    if boilerplate.trim().is_empty() {
        return String::new();
    }
    format!(
        "{}\n",
        boilerplate.replace("YEAR", &current_year().to_string())
    )
}

/// The current year, or the year of `SOURCE_DATE_EPOCH` when set (reproducible output).
pub fn current_year() -> i64 {
    let secs = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.parse::<i64>().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs() as i64)
        });
    year_of_day(secs.div_euclid(86_400))
}

/// Gregorian year of a day count since 1970-01-01 (Howard Hinnant's civil_from_days).
fn year_of_day(days: i64) -> i64 {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    yoe + era * 400 + i64::from(month <= 2)
}

/// (template under `templates/project/`, output path, policy) for every file of a new project.
const FILES: &[(&str, &str, Policy)] = &[
    ("Cargo.toml", "Cargo.toml", Policy::UserOwned),
    ("src/main.rs", "src/main.rs", Policy::UserOwned),
    ("src/lib.rs", "src/lib.rs", Policy::UserOwned),
    (
        "src/webhooks/mod.rs",
        "src/webhooks/mod.rs",
        Policy::UserOwned,
    ),
    (
        "src/controllers/mod.rs",
        "src/controllers/mod.rs",
        Policy::UserOwned,
    ),
    ("src/api/mod.rs", "src/api/mod.rs", Policy::UserOwned),
    ("Makefile", "Makefile", Policy::UserOwned),
    ("Dockerfile", "Dockerfile", Policy::UserOwned),
    ("dockerignore", ".dockerignore", Policy::IfMissing),
    ("gitignore", ".gitignore", Policy::IfMissing),
    ("README.md", "README.md", Policy::IfMissing),
    (
        "config/crd/kustomization.yaml",
        "config/crd/kustomization.yaml",
        Policy::UserOwned,
    ),
    (
        "config/default/kustomization.yaml",
        "config/default/kustomization.yaml",
        Policy::UserOwned,
    ),
    (
        "config/default/manager_metrics_patch.yaml",
        "config/default/manager_metrics_patch.yaml",
        Policy::UserOwned,
    ),
    (
        "config/default/metrics_service.yaml",
        "config/default/metrics_service.yaml",
        Policy::UserOwned,
    ),
    (
        "config/manager/kustomization.yaml",
        "config/manager/kustomization.yaml",
        Policy::UserOwned,
    ),
    (
        "config/manager/manager.yaml",
        "config/manager/manager.yaml",
        Policy::UserOwned,
    ),
    (
        "config/rbac/kustomization.yaml",
        "config/rbac/kustomization.yaml",
        Policy::UserOwned,
    ),
    (
        "config/rbac/service_account.yaml",
        "config/rbac/service_account.yaml",
        Policy::UserOwned,
    ),
    (
        "config/rbac/role_binding.yaml",
        "config/rbac/role_binding.yaml",
        Policy::UserOwned,
    ),
    (
        "config/rbac/leader_election_role.yaml",
        "config/rbac/leader_election_role.yaml",
        Policy::UserOwned,
    ),
    (
        "config/rbac/leader_election_role_binding.yaml",
        "config/rbac/leader_election_role_binding.yaml",
        Policy::UserOwned,
    ),
    (
        "config/rbac/metrics_auth_role.yaml",
        "config/rbac/metrics_auth_role.yaml",
        Policy::UserOwned,
    ),
    (
        "config/rbac/metrics_auth_role_binding.yaml",
        "config/rbac/metrics_auth_role_binding.yaml",
        Policy::UserOwned,
    ),
    (
        "config/rbac/metrics_reader_role.yaml",
        "config/rbac/metrics_reader_role.yaml",
        Policy::UserOwned,
    ),
    (
        "config/samples/kustomization.yaml",
        "config/samples/kustomization.yaml",
        Policy::UserOwned,
    ),
    (
        "config/prometheus/kustomization.yaml",
        "config/prometheus/kustomization.yaml",
        Policy::UserOwned,
    ),
    (
        "config/prometheus/monitor.yaml",
        "config/prometheus/monitor.yaml",
        Policy::UserOwned,
    ),
    (
        "config/network-policy/kustomization.yaml",
        "config/network-policy/kustomization.yaml",
        Policy::UserOwned,
    ),
    (
        "config/network-policy/allow-metrics-traffic.yaml",
        "config/network-policy/allow-metrics-traffic.yaml",
        Policy::UserOwned,
    ),
];

/// The framework modules every project of scaffold generation 1 carried in `src/`, which
/// opgen-runtime holds since generation 2.
pub const GENERATION_1_FRAMEWORK: &[&str] = &[
    "src/cli.rs",
    "src/error.rs",
    "src/leader_election.rs",
    "src/logging.rs",
    "src/manager.rs",
    "src/metrics.rs",
    "src/testing.rs",
    "src/server/mod.rs",
    "src/server/auth.rs",
    "src/server/tls.rs",
    "src/controllers/backoff.rs",
    "src/controllers/conditions.rs",
];

/// Files of the generations since they were added: (template, output path, policy, the first
/// generation that has it). Rendering an earlier generation leaves them out.
const ADDED_FILES: &[(&str, &str, Policy, u32)] = &[(
    "github/workflows/ci.yml",
    ".github/workflows/ci.yml",
    Policy::IfMissing,
    7,
)];

pub fn plan(ctx: &ProjectContext) -> Result<ScaffoldPlan> {
    let mut plan = ScaffoldPlan::default();
    let generation = templates::generation();
    let framework = GENERATION_1_FRAMEWORK
        .iter()
        .filter(|_| generation == 1)
        .map(|path| (*path, *path, Policy::UserOwned));
    let added = ADDED_FILES
        .iter()
        .filter(|file| generation >= file.3)
        .map(|&(template, path, policy, _)| (template, path, policy));
    let files = FILES.iter().copied().chain(added).chain(framework);
    for (template, path, policy) in files {
        let content = render(&format!("project/{template}"), ctx)?;
        if path.ends_with(".rs") {
            plan.write_rust(path, format!("{}{content}", ctx.header), policy);
        } else {
            plan.write(path, content, policy);
        }
    }
    if ctx.license {
        plan.write(BOILERPLATE_PATH, ctx.boilerplate.clone(), Policy::UserOwned);
    }
    plan.write(
        SETUP_ENVTEST_PATH,
        SETUP_ENVTEST.to_owned(),
        Policy::ToolOwned,
    );
    // Earlier generations' vendored copies are not kept: vendor/ is opgen's, replaced whole.
    if generation == SCAFFOLD_VERSION {
        for (path, content) in vendored_crate_files() {
            plan.write(path, content.to_owned(), Policy::ToolOwned);
        }
    }
    plan.write(
        "Cargo.lock",
        cargo_lock(&ctx.project_name),
        Policy::IfMissing,
    );
    Ok(plan)
}

/// The package name the embedded lock file was resolved for (`tests/scaffold_lock.rs` makes it).
pub const LOCK_PLACEHOLDER: &str = "opgen-scaffold-project";
const SCAFFOLD_LOCK: &str = include_str!("../../../data/scaffold/Cargo.lock");
/// The lock file scaffold generation 1 wrote.
const GENERATION_1_LOCK: &str = include_str!("../../../data/upgrade/scaffold-1/Cargo.lock");

/// The Cargo.lock of a new project: the versions opgen's own workspace builds and tests, so a
/// fresh project builds with `--locked` (its Dockerfile does) and offline once they are cached.
/// Cargo compares a lock file byte for byte, so the project's own entry moves to where its name
/// sorts.
pub fn cargo_lock(project_name: &str) -> String {
    const SEPARATOR: &str = "\n[[package]]\n";
    let lock = match templates::generation() {
        1 => GENERATION_1_LOCK,
        _ => SCAFFOLD_LOCK,
    };
    let (header, packages) = lock
        .split_once(SEPARATOR)
        .expect("the embedded Cargo.lock lists packages");
    let placeholder = format!("name = \"{LOCK_PLACEHOLDER}\"\n");
    let own = format!("name = \"{project_name}\"\n");
    let mut blocks: Vec<String> = packages
        .split(SEPARATOR)
        .map(|block| match block.strip_prefix(&placeholder) {
            Some(rest) => format!("{own}{rest}"),
            None => block.to_owned(),
        })
        .collect();
    // Stable: the blocks of one name keep their (version) order.
    blocks.sort_by(|a, b| lock_name(a).cmp(lock_name(b)));
    let mut lock = header.to_owned();
    for block in &blocks {
        lock.push_str(SEPARATOR);
        lock.push_str(block);
    }
    lock
}

fn lock_name(block: &str) -> &str {
    block
        .strip_prefix("name = \"")
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_default()
}

/// Where a project keeps its copy of `tools/envtest/setup.sh`, so that `make setup-envtest`
/// needs neither opgen nor a network beyond the Go module proxy.
pub const SETUP_ENVTEST_PATH: &str = "hack/setup-envtest.sh";
const SETUP_ENVTEST: &str = include_str!("../../../tools/envtest/setup.sh");

/// Where a project gets the opgen-envtest crate until it is on crates.io: a copy opgen
/// writes (and owns), so a project builds offline from its own tree.
pub const ENVTEST_CRATE_PATH: &str = "vendor/opgen-envtest";
/// Where a project gets the opgen-runtime crate (its manager, servers and webhook plumbing)
/// until it is on crates.io; like the envtest crate, opgen's copy, never the user's.
pub const RUNTIME_CRATE_PATH: &str = "vendor/opgen-runtime";

/// Whether this opgen was built from its repository, beside `crates/` (build.rs), and so
/// carries the two crates for `vendor/`. A build of the published package cannot (cargo leaves
/// nested packages out of a package): its projects use the published crates.
pub const VENDORED: bool = cfg!(opgen_vendored);

#[cfg(opgen_vendored)]
fn vendored_crates() -> [(&'static Dir<'static>, &'static str); 2] {
    use include_dir::include_dir;
    static ENVTEST_CRATE: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/crates/opgen-envtest");
    static RUNTIME_CRATE: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/crates/opgen-runtime");
    [
        (&ENVTEST_CRATE, ENVTEST_CRATE_PATH),
        (&RUNTIME_CRATE, RUNTIME_CRATE_PATH),
    ]
}

#[cfg(not(opgen_vendored))]
fn vendored_crates() -> [(&'static Dir<'static>, &'static str); 0] {
    []
}

/// The vendored crates' manifests and sources (not their own tests), as (project path,
/// content), sorted by path; none when this opgen does not carry them.
pub fn vendored_crate_files() -> Vec<(String, &'static str)> {
    let mut files = Vec::new();
    for (root, vendored) in vendored_crates() {
        let mut pending = vec![root];
        while let Some(dir) = pending.pop() {
            pending.extend(dir.dirs());
            for file in dir.files() {
                let path = file.path().to_string_lossy();
                if path == "Cargo.toml" || path.starts_with("src/") {
                    let content = file
                        .contents_utf8()
                        .expect("the vendored crates' sources are UTF-8");
                    files.push((format!("{vendored}/{path}"), content));
                }
            }
        }
    }
    files.sort();
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lock_file_lists_the_project_where_cargo_sorts_it() {
        let lock = cargo_lock(LOCK_PLACEHOLDER);
        assert_eq!(
            lock, SCAFFOLD_LOCK,
            "the placeholder's lock is the embedded one"
        );
        let names = |lock: &str| -> Vec<String> {
            lock.lines()
                .filter_map(|l| l.strip_prefix("name = \""))
                .map(|n| n.trim_end_matches('"').to_owned())
                .collect()
        };
        for project in ["aaa-operator", "memcached-operator", "zzz"] {
            let names = names(&cargo_lock(project));
            assert!(names.contains(&project.to_owned()));
            assert!(!names.contains(&LOCK_PLACEHOLDER.to_owned()));
            assert!(names.is_sorted(), "{project}: packages out of order");
        }
        assert_eq!(names(&cargo_lock("aaa-operator"))[0], "aaa-operator");
        assert_eq!(names(&cargo_lock("zzz")).last().unwrap(), "zzz");
    }

    #[test]
    fn civil_years() {
        assert_eq!(year_of_day(0), 1970);
        assert_eq!(year_of_day(19_722), 2023); // 2023-12-31
        assert_eq!(year_of_day(19_723), 2024); // 2024-01-01
        assert_eq!(year_of_day(20_414), 2025); // 2025-11-22
    }
}
