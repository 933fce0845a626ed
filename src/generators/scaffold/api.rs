//! The files `opgen create api` writes and the lines it inserts.

use super::{Policy, ScaffoldPlan};
use crate::diag::Result;
use crate::generators::templates::render;
use crate::names::module_name;
use crate::project::Project;
use heck::ToSnakeCase;
use serde::Serialize;

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
    /// Whether the plural was given or differs from kube-derive's default, so `#[kube]` names it.
    pub explicit_plural: bool,
    pub namespaced: bool,
    pub multigroup: bool,
    /// Rust module path of the version module, e.g. `crate::api::v1alpha1`.
    pub api_module: String,
    /// Rust path of the controller module below `crate::controllers`, e.g. `memcached`.
    pub controller_path: String,
    /// Namespace for RBAC markers of a namespace-scoped manager, else None.
    pub rbac_namespace: Option<String>,
    pub header: String,
    pub resource: bool,
    pub controller: bool,
}

impl ResourceContext {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        project: &Project,
        group: &str,
        version: &str,
        kind: &str,
        plural: &str,
        explicit_plural: bool,
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
        ResourceContext {
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
            explicit_plural,
            namespaced,
            multigroup: project.multigroup,
            api_module,
            controller_path,
            rbac_namespace: project
                .namespaced
                .then(|| format!("{}-system", project.project_name)),
            header,
            resource,
            controller,
        }
    }

    /// Directory of the version module, e.g. `src/api/v1alpha1` or `src/api/cache/v1alpha1`.
    pub fn version_dir(&self) -> String {
        if self.multigroup {
            format!("src/api/{}/{}", module_name(&self.group), self.version)
        } else {
            format!("src/api/{}", self.version)
        }
    }

    /// The Rust module path of the types as recorded in PROJECT.
    pub fn recorded_path(&self) -> String {
        self.api_module.replacen("crate", &self.crate_name, 1)
    }

    /// Prefix for per-kind file names under config/: `memcached`, or `cache_memcached` in
    /// a multigroup project where two groups may share a kind name.
    fn config_prefix(&self) -> String {
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
    Ok(plan)
}

fn rust(ctx: &ResourceContext, template: &str) -> Result<String> {
    Ok(format!("{}{}", ctx.header, render(template, ctx)?))
}

fn resource_files(ctx: &ResourceContext, plan: &mut ScaffoldPlan) -> Result<()> {
    let version_dir = ctx.version_dir();
    if ctx.multigroup {
        let group_mod = module_name(&ctx.group);
        plan.insert("src/api/mod.rs", "modules", format!("pub mod {group_mod};"));
        plan.write(
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
        plan.insert("src/api/mod.rs", "modules", format!("pub mod {};", ctx.version));
    }
    plan.write(
        format!("{version_dir}/mod.rs"),
        rust(ctx, "api/version_mod.rs")?,
        Policy::IfMissing,
    );
    plan.insert(
        format!("{version_dir}/mod.rs"),
        "kinds",
        format!(
            "pub mod {0}_types;\npub use {0}_types::*;",
            ctx.kind_snake
        ),
    );
    plan.write(
        format!("{version_dir}/{}_types.rs", ctx.kind_snake),
        rust(ctx, "api/types.rs")?,
        Policy::UserOwned,
    );

    let sample = format!("{}_{}_{}.yaml", ctx.group, ctx.version, ctx.kind_lower);
    plan.write(
        format!("config/samples/{sample}"),
        render("api/sample.yaml", ctx)?,
        Policy::UserOwned,
    );
    plan.insert("config/samples/kustomization.yaml", "samples", format!("- {sample}"));

    let prefix = ctx.config_prefix();
    for role in ["admin", "editor", "viewer"] {
        let file = format!("{prefix}_{role}_role.yaml");
        plan.write(
            format!("config/rbac/{file}"),
            render(&format!("api/{role}_role.yaml"), ctx)?,
            Policy::ToolOwned,
        );
        plan.insert("config/rbac/kustomization.yaml", "rbac-helper-roles", format!("- {file}"));
    }
    Ok(())
}

fn controller_files(ctx: &ResourceContext, plan: &mut ScaffoldPlan) -> Result<()> {
    let file = if ctx.multigroup {
        let group_mod = module_name(&ctx.group);
        plan.insert("src/controllers/mod.rs", "controller-modules", format!("pub mod {group_mod};"));
        plan.write(
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
    plan.write(file, rust(ctx, "api/controller.rs")?, Policy::UserOwned);
    plan.insert(
        "src/controllers/mod.rs",
        "controllers",
        format!("{}::CONTROLLER,", ctx.controller_path),
    );
    Ok(())
}
