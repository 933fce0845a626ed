//! The files `opgen create api` writes and the lines it inserts.

use super::{Policy, ScaffoldPlan};
use crate::diag::Result;
use crate::generators::templates::{self, render};
use crate::names::module_name;
use crate::project::{Gvk, Project};
use heck::ToSnakeCase;
use serde::Serialize;
use std::path::Path;

/// Everything the API and controller templates may refer to.
#[derive(Debug, Clone, Serialize)]
pub struct ResourceContext {
    pub project_name: String,
    pub crate_name: String,
    pub domain: String,
    pub group: String,
    /// `<group>.<domain>`
    pub api_group: String,
    pub version: String,
    pub kind: String,
    /// `cache_memcached`-free snake case of the kind: `memcached`, `cron_job`.
    pub kind_snake: String,
    pub kind_lower: String,
    pub plural: String,
    pub namespaced: bool,
    pub multigroup: bool,
    /// Rust module path of the version module, e.g. `crate::api::v1alpha1`.
    pub api_module: String,
    /// Rust path of the controller module below `crate::controllers`, e.g. `memcached`.
    pub controller_path: String,
    /// `,namespace=<ns>` for the RBAC markers of a namespace-scoped manager, else empty.
    pub rbac_suffix: String,
    /// The controller's name in logs and metrics: `memcached`, or `cache-memcached` (multigroup).
    pub controller_name: String,
    /// Directory of the version module, e.g. `src/api/v1alpha1` or `src/api/cache/v1alpha1`.
    pub version_dir: String,
    /// Name prefix of the helper ClusterRoles: `memcached`, or `cache-memcached` in a multigroup project.
    pub role_prefix: String,
    /// Another version of this kind exists and stays the storage version.
    pub storage_version: Option<String>,
    pub header: String,
    pub resource: bool,
    pub controller: bool,
    /// The version module's path from outside the crate (tests), e.g. `demo::api::v1alpha1`.
    pub crate_api_module: String,
    /// `config/samples/` file of the kind, e.g. `cache_v1alpha1_memcached.yaml`.
    pub sample_file: String,
    /// Namespace of the envtest test: the manager's own in a namespaced project (its Roles
    /// live there), else one named after the kind.
    pub test_namespace: String,
    /// Singular, short names and categories: those of the kind's other versions, which every
    /// version must repeat.
    pub declared: crate::generators::crd::DeclaredNames,
    /// `metadata.name` of the sample: `<kind>-sample`, or `<kind>-<version>-sample` beside
    /// another version's sample, so that `kubectl apply -k config/samples` creates both.
    pub sample_name: String,
    /// The controller keeps a finalizer on each object.
    pub finalizer: bool,
}

impl ResourceContext {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        project: &Project,
        group: &str,
        version: &str,
        kind: &str,
        plural: &str,
        namespaced: bool,
        resource: bool,
        controller: bool,
        header: String,
    ) -> Self {
        let group_mod = module_name(group);
        let kind_snake = kind.to_snake_case();
        let (api_module, controller_path) = if project.multigroup {
            (
                format!("crate::api::{group_mod}::{version}"),
                format!("{group_mod}::{kind_snake}"),
            )
        } else {
            (format!("crate::api::{version}"), kind_snake.clone())
        };
        let group_dir = module_name(group);
        let (version_dir, role_prefix) = if project.multigroup {
            (
                format!("src/api/{group_dir}/{version}"),
                format!("{group}-{}", kind.to_lowercase()),
            )
        } else {
            (format!("src/api/{version}"), kind.to_lowercase())
        };
        let controller_name = role_prefix.clone();
        let crate_api_module = api_module.replacen("crate", &project.crate_name(), 1);
        let gvk = Gvk::new(group, version, kind);
        let storage_version = project
            .other_versions(&gvk)
            .find(|r| r.api.is_some())
            .map(|r| r.version.clone());
        // Beside another version's sample, a name of its own: `kubectl apply -k` creates both.
        let sample_name = match &storage_version {
            Some(_) => format!("{}-{version}-sample", kind.to_lowercase()),
            None => format!("{}-sample", kind.to_lowercase()),
        };
        ResourceContext {
            crate_api_module,
            sample_file: format!("{group}_{version}_{}.yaml", kind.to_lowercase()),
            test_namespace: if project.namespaced {
                format!("{}-system", project.project_name)
            } else {
                format!("{}-envtest", kind.to_lowercase())
            },
            version_dir,
            role_prefix,
            project_name: project.project_name.clone(),
            crate_name: project.crate_name(),
            domain: project.domain.clone(),
            group: group.to_owned(),
            api_group: project.api_group(group),
            version: version.to_owned(),
            kind: kind.to_owned(),
            kind_lower: kind.to_lowercase(),
            kind_snake,
            plural: plural.to_owned(),
            namespaced,
            multigroup: project.multigroup,
            api_module,
            controller_path,
            rbac_suffix: if project.namespaced {
                format!(",namespace={}-system", project.project_name)
            } else {
                String::new()
            },
            controller_name,
            storage_version,
            header,
            resource,
            controller,
            declared: Default::default(),
            sample_name,
            finalizer: true,
        }
    }

    /// The Rust module path of the types as recorded in PROJECT.
    pub fn recorded_path(&self) -> String {
        self.crate_api_module.clone()
    }

    /// Prefix for per-kind file names under config/: `memcached`, or `cache_memcached` in
    /// a multigroup project where two groups may share a kind name.
    pub(crate) fn config_prefix(&self) -> String {
        if self.multigroup {
            format!("{}_{}", module_name(&self.group), self.kind_snake)
        } else {
            self.kind_snake.clone()
        }
    }
}

pub fn plan(ctx: &ResourceContext) -> Result<ScaffoldPlan> {
    let mut plan = ScaffoldPlan::default();
    if ctx.resource {
        resource_files(ctx, &mut plan)?;
    }
    if ctx.controller {
        controller_files(ctx, &mut plan)?;
    }
    // Scaffold 7 on: serde and the CRD schema of the kind version checked against each other
    // on the API server.
    if ctx.resource && templates::generation() >= 7 {
        envtest_test(
            &mut plan,
            &ctx.header,
            &format!("{}_{}_schema", ctx.config_prefix(), ctx.version),
            rust(ctx, "api/schema_envtest.rs")?,
        )?;
    }
    Ok(plan)
}

fn rust(ctx: &ResourceContext, template: &str) -> Result<String> {
    Ok(format!("{}{}", ctx.header, render(template, ctx)?))
}

fn resource_files(ctx: &ResourceContext, plan: &mut ScaffoldPlan) -> Result<()> {
    let version_dir = &ctx.version_dir;
    if ctx.multigroup {
        let group_mod = module_name(&ctx.group);
        plan.insert("src/api/mod.rs", "modules", format!("pub mod {group_mod};"));
        plan.write_rust(
            format!("src/api/{group_mod}/mod.rs"),
            rust(ctx, "api/group_mod.rs")?,
            Policy::IfMissing,
        );
        plan.insert(
            format!("src/api/{group_mod}/mod.rs"),
            "modules",
            format!("pub mod {};", ctx.version),
        );
    } else {
        plan.insert(
            "src/api/mod.rs",
            "modules",
            format!("pub mod {};", ctx.version),
        );
    }
    plan.write_rust(
        format!("{version_dir}/mod.rs"),
        rust(ctx, "api/version_mod.rs")?,
        Policy::IfMissing,
    );
    plan.insert(
        format!("{version_dir}/mod.rs"),
        "kinds",
        format!("pub mod {0}_types;\npub use {0}_types::*;", ctx.kind_snake),
    );
    plan.write_rust(
        format!("{version_dir}/{}_types.rs", ctx.kind_snake),
        rust(ctx, "api/types.rs")?,
        Policy::UserOwned,
    );

    let sample = &ctx.sample_file;
    plan.write(
        format!("config/samples/{sample}"),
        render("api/sample.yaml", ctx)?,
        Policy::UserOwned,
    );
    plan.insert(
        "config/samples/kustomization.yaml",
        "samples",
        format!("- {sample}"),
    );

    for (file, content) in helper_roles(ctx)? {
        plan.write(format!("config/rbac/{file}"), content, Policy::ToolOwned);
        plan.insert(RBAC_KUSTOMIZATION, "rbac-helper-roles", format!("- {file}"));
    }
    Ok(())
}

pub const RBAC_KUSTOMIZATION: &str = "config/rbac/kustomization.yaml";

/// The admin, editor and viewer ClusterRoles of a kind (file name under config/rbac, content):
/// helpers for cluster admins, not used by the manager. `opgen manifests` rewrites them so
/// that they follow the kind's plural.
pub fn helper_roles(ctx: &ResourceContext) -> Result<Vec<(String, String)>> {
    let prefix = ctx.config_prefix();
    ["admin", "editor", "viewer"]
        .iter()
        .map(|role| {
            Ok((
                format!("{prefix}_{role}_role.yaml"),
                render(&format!("api/{role}_role.yaml"), ctx)?,
            ))
        })
        .collect()
}

fn controller_files(ctx: &ResourceContext, plan: &mut ScaffoldPlan) -> Result<()> {
    let envtest = rust(ctx, "api/envtest.rs")?;
    add_controller(ctx, plan, rust(ctx, "api/controller.rs")?, Some(envtest))
}

/// A controller `import go --controllers` writes for a kind: the Go controller's RBAC
/// markers on a reconcile that does nothing yet, and where the Go logic to port is.
#[derive(Debug, Clone, Serialize)]
pub struct ImportedController {
    #[serde(flatten)]
    pub resource: ResourceContext,
    /// The Go file, relative to the imported directory.
    pub go_file: String,
    pub go_line: usize,
    pub reconciler: String,
    /// The Go file's `+kubebuilder:rbac` markers, verbatim.
    pub rbac: Vec<String>,
    /// Whether a sample of the kind exists for the envtest test.
    pub has_sample: bool,
}

/// The files and registrations of an [`ImportedController`].
pub fn imported_controller_plan(imported: &ImportedController) -> Result<ScaffoldPlan> {
    let ctx = &imported.resource;
    let mut plan = ScaffoldPlan::default();
    let controller = format!(
        "{}{}",
        ctx.header,
        render("api/imported_controller.rs", imported)?
    );
    let envtest = if imported.has_sample {
        Some(format!(
            "{}{}",
            ctx.header,
            render("api/imported_envtest.rs", imported)?
        ))
    } else {
        None
    };
    add_controller(ctx, &mut plan, controller, envtest)?;
    Ok(plan)
}

/// Writes a kind's controller module and envtest test and registers both.
fn add_controller(
    ctx: &ResourceContext,
    plan: &mut ScaffoldPlan,
    controller: String,
    envtest: Option<String>,
) -> Result<()> {
    let file = if ctx.multigroup {
        let group_mod = module_name(&ctx.group);
        plan.insert(
            "src/controllers/mod.rs",
            "controller-modules",
            format!("pub mod {group_mod};"),
        );
        plan.write_rust(
            format!("src/controllers/{group_mod}/mod.rs"),
            rust(ctx, "api/controllers_group_mod.rs")?,
            Policy::IfMissing,
        );
        plan.insert(
            format!("src/controllers/{group_mod}/mod.rs"),
            "controller-modules",
            format!("pub mod {};", ctx.kind_snake),
        );
        format!("src/controllers/{group_mod}/{}.rs", ctx.kind_snake)
    } else {
        plan.insert(
            "src/controllers/mod.rs",
            "controller-modules",
            format!("pub mod {};", ctx.kind_snake),
        );
        format!("src/controllers/{}.rs", ctx.kind_snake)
    };
    plan.write_rust(file, controller, Policy::UserOwned);
    if let Some(envtest) = envtest {
        envtest_test(
            plan,
            &ctx.header,
            &format!("{}_controller", ctx.config_prefix()),
            envtest,
        )?;
    }
    plan.insert(
        "src/controllers/mod.rs",
        "controllers",
        format!("{}::CONTROLLER,", ctx.controller_path),
    );
    Ok(())
}

/// The test binary that holds the envtest tests of every kind and webhook (scaffold 5 on).
pub const ENVTEST_MAIN: &str = "tests/envtest/main.rs";

/// Writes the envtest test `module` (e.g. `memcached_controller`) of a kind. From scaffold 5
/// it is a module of the one envtest test binary, [`ENVTEST_MAIN`] (written once; its `mod`
/// lines inserted at `+opgen:scaffold:envtest-modules`), so that all of them share one control
/// plane and one link; before, each was a test binary of its own, `tests/<module>.rs`.
pub(crate) fn envtest_test(
    plan: &mut ScaffoldPlan,
    header: &str,
    module: &str,
    content: String,
) -> Result<()> {
    if templates::generation() < 5 {
        plan.write_rust(format!("tests/{module}.rs"), content, Policy::UserOwned);
        return Ok(());
    }
    // Once per plan: a second write would replace the first with the `mod` lines inserted since.
    if !plan.writes(Path::new(ENVTEST_MAIN)) {
        plan.write_rust(
            ENVTEST_MAIN,
            format!("{header}{}", render("api/envtest_main.rs", &())?),
            Policy::IfMissing,
        );
    }
    plan.insert(ENVTEST_MAIN, "envtest-modules", format!("mod {module};"));
    plan.write_rust(
        format!("tests/envtest/{module}.rs"),
        content,
        Policy::UserOwned,
    );
    Ok(())
}
