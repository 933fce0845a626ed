//! The files `opgen create webhook` writes and the lines it inserts or uncomments.

use super::api::ResourceContext;
use super::{Policy, ScaffoldPlan};
use crate::diag::{Error, Result};
use crate::generators::templates::render;
use crate::markers::catalog::MarkerCatalog;
use crate::markers::typed::{self, Typed, WebhookMarker, names};
use crate::names::module_name;
use serde::Serialize;

pub const DEFAULT_KUSTOMIZATION: &str = "config/default/kustomization.yaml";
pub const NETWORK_POLICY_KUSTOMIZATION: &str = "config/network-policy/kustomization.yaml";
const WEBHOOK_POLICY: &str = "allow-webhook-traffic.yaml";
const BLOCK_BEGIN: &str = "# +opgen:scaffold:webhook-begin";
const BLOCK_END: &str = "# +opgen:scaffold:webhook-end";
const TOGGLED_LINES: &[&str] = &["#- ../webhook", "#- ../certmanager"];

#[derive(Debug, Clone, Serialize)]
pub struct WebhookContext {
    #[serde(flatten)]
    pub resource: ResourceContext,
    pub defaulting: bool,
    pub validation: bool,
    pub both: bool,
    /// The API group with dots as dashes, as kubebuilder's webhook paths have it.
    pub group_dashed: String,
    /// Each webhook's `+kubebuilder:webhook` marker and the path it names: kubebuilder's,
    /// or (`import go`) the Go webhook's.
    pub defaulting_marker: String,
    pub defaulting_path: String,
    pub validation_marker: String,
    pub validation_path: String,
    /// Every path is kubebuilder's `/mutate-<group>-<version>-<kind>` (its test checks it).
    pub conventional_paths: bool,
}

impl WebhookContext {
    pub fn new(resource: ResourceContext, defaulting: bool, validation: bool) -> Self {
        let group_dashed = resource.api_group.replace('.', "-");
        let (version, kind) = (&resource.version, &resource.kind_lower);
        let marker = |verb: &str, mutating: bool, path: &str| {
            format!(
                "+{}:path={path},mutating={mutating},failurePolicy=fail,sideEffects=None,groups={},resources={},verbs=create;update,versions={version},name={}{kind}-{version}.kb.io,admissionReviewVersions=v1",
                names::KUBEBUILDER_WEBHOOK,
                resource.api_group,
                resource.plural,
                &verb[..1]
            )
        };
        let defaulting_path = format!("/mutate-{group_dashed}-{version}-{kind}");
        let validation_path = format!("/validate-{group_dashed}-{version}-{kind}");
        WebhookContext {
            defaulting_marker: marker("mutate", true, &defaulting_path),
            validation_marker: marker("validate", false, &validation_path),
            defaulting_path,
            validation_path,
            conventional_paths: true,
            group_dashed,
            both: defaulting && validation,
            resource,
            defaulting,
            validation,
        }
    }

    /// The webhooks as a Go project declares them (`import go`): its markers, verbatim, and
    /// the paths they name.
    pub fn with_markers(mut self, defaulting: Option<&str>, validation: Option<&str>) -> Self {
        let path = |marker: &str| match typed::parse(MarkerCatalog::get(), marker)? {
            (_, Typed::Webhook(WebhookMarker::Webhook(hook))) => hook.path,
            _ => None,
        };
        if let Some(m) = defaulting {
            self.defaulting_path = path(m).unwrap_or(self.defaulting_path);
            self.defaulting_marker = m.to_owned();
        }
        if let Some(m) = validation {
            self.validation_path = path(m).unwrap_or(self.validation_path);
            self.validation_marker = m.to_owned();
        }
        let group = self.group_dashed.as_str();
        let (version, kind) = (&self.resource.version, &self.resource.kind_lower);
        self.conventional_paths = (!self.defaulting
            || self.defaulting_path == format!("/mutate-{group}-{version}-{kind}"))
            && (!self.validation
                || self.validation_path == format!("/validate-{group}-{version}-{kind}"));
        self
    }
}

/// (template under `templates/webhook/`, output path) of the files written once per project.
const CONFIG_FILES: &[&str] = &[
    "config/webhook/kustomization.yaml",
    "config/webhook/service.yaml",
    "config/certmanager/kustomization.yaml",
    "config/certmanager/kustomizeconfig.yaml",
    "config/certmanager/issuer.yaml",
    "config/certmanager/certificate-webhook.yaml",
    "config/default/manager_webhook_patch.yaml",
    "config/network-policy/allow-webhook-traffic.yaml",
];

pub fn plan(ctx: &WebhookContext) -> Result<ScaffoldPlan> {
    let r = &ctx.resource;
    let mut plan = ScaffoldPlan::default();
    let header_and = |template: &str| -> Result<String> {
        Ok(format!("{}{}", r.header, render(template, ctx)?))
    };
    let (file, entry) = if r.multigroup {
        let group_mod = module_name(&r.group);
        plan.insert(
            "src/webhooks/mod.rs",
            "webhook-modules",
            format!("pub mod {group_mod};"),
        );
        plan.write_rust(
            format!("src/webhooks/{group_mod}/mod.rs"),
            header_and("webhook/group_mod.rs")?,
            Policy::IfMissing,
        );
        plan.insert(
            format!("src/webhooks/{group_mod}/mod.rs"),
            "webhook-modules",
            format!("pub mod {};", r.kind_snake),
        );
        (
            format!("src/webhooks/{group_mod}/{}.rs", r.kind_snake),
            format!("{group_mod}::{}::WEBHOOK,", r.kind_snake),
        )
    } else {
        plan.insert(
            "src/webhooks/mod.rs",
            "webhook-modules",
            format!("pub mod {};", r.kind_snake),
        );
        (
            format!("src/webhooks/{}.rs", r.kind_snake),
            format!("{}::WEBHOOK,", r.kind_snake),
        )
    };
    plan.write_rust(file, header_and("api/webhook.rs")?, Policy::UserOwned);
    super::api::envtest_test(
        &mut plan,
        &r.header,
        &format!("{}_webhooks", r.config_prefix()),
        header_and("api/webhook_envtest.rs")?,
    )?;
    plan.insert("src/webhooks/mod.rs", "webhooks", entry);
    for path in CONFIG_FILES {
        plan.write(
            *path,
            render(&format!("webhook/{path}"), ctx)?,
            Policy::IfMissing,
        );
    }
    Ok(plan)
}

/// Uncomments the webhook and cert-manager parts of config/default/kustomization.yaml.
/// Already enabled parts are left alone; parts that cannot be found are an error that shows
/// what to add, rather than a half-wired overlay.
pub fn enable_in_default_kustomization(text: &str) -> Result<String> {
    // The block is enabled once: after that, comments inside it are the user's.
    let block_commented = text
        .lines()
        .skip_while(|l| l.trim_end() != BLOCK_BEGIN)
        .skip(1)
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| l.starts_with('#') && l.trim_end() != BLOCK_END);
    let mut out = Vec::new();
    let mut in_block = false;
    let mut saw_block = false;
    let mut toggled = [false; 2];
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_end();
        if trimmed == BLOCK_BEGIN {
            in_block = true;
            saw_block = true;
            out.push(line.to_owned());
            continue;
        }
        if trimmed == BLOCK_END {
            in_block = false;
            out.push(line.to_owned());
            continue;
        }
        if in_block && block_commented {
            out.push(line.strip_prefix('#').unwrap_or(line).to_owned());
            continue;
        }
        if let Some(i) = TOGGLED_LINES.iter().position(|t| trimmed == *t) {
            toggled[i] = true;
            out.push(line.replacen('#', "", 1));
            continue;
        }
        if let Some(i) = TOGGLED_LINES.iter().position(|t| trimmed == &t[1..]) {
            toggled[i] = true;
        }
        out.push(line.to_owned());
    }
    let missing: Vec<&str> = TOGGLED_LINES
        .iter()
        .zip(toggled)
        .filter(|(_, found)| !found)
        .map(|(l, _)| &l[1..])
        .collect();
    if !missing.is_empty() || !saw_block {
        return Err(Error::with_help(
            format!(
                "{DEFAULT_KUSTOMIZATION} does not have the webhook sections opgen enables; nothing was written"
            ),
            format!(
                "add {} to its resources, the patch config/default/manager_webhook_patch.yaml, and the cert-manager replacements of a new project's {DEFAULT_KUSTOMIZATION} (between `{BLOCK_BEGIN}` and `{BLOCK_END}`), then run the command again",
                if missing.is_empty() {
                    "`- ../webhook` and `- ../certmanager`".to_owned()
                } else {
                    missing
                        .iter()
                        .map(|m| format!("`{m}`"))
                        .collect::<Vec<_>>()
                        .join(" and ")
                }
            ),
        ));
    }
    Ok(out.concat())
}

/// The inverse of [`enable_in_default_kustomization`], for when the last webhook goes: the
/// webhook and cert-manager parts commented out again. Parts already off are left alone.
pub fn disable_in_default_kustomization(text: &str) -> String {
    let block_enabled = text
        .lines()
        .skip_while(|l| l.trim_end() != BLOCK_BEGIN)
        .skip(1)
        .take_while(|l| l.trim_end() != BLOCK_END)
        .any(|l| !l.starts_with('#'));
    let mut out = String::with_capacity(text.len() + 64);
    let mut in_block = false;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_end();
        if trimmed == BLOCK_BEGIN || trimmed == BLOCK_END {
            in_block = trimmed == BLOCK_BEGIN;
            out.push_str(line);
        } else if (in_block && block_enabled) || TOGGLED_LINES.iter().any(|t| trimmed == &t[1..]) {
            out.push('#');
            out.push_str(line);
        } else {
            out.push_str(line);
        }
    }
    out
}

/// config/network-policy/kustomization.yaml without the webhook NetworkPolicy.
pub fn without_webhook_network_policy(text: &str) -> String {
    text.split_inclusive('\n')
        .filter(|l| l.trim_start().strip_prefix("- ").map(str::trim) != Some(WEBHOOK_POLICY))
        .collect()
}

/// Lists the webhook NetworkPolicy in config/network-policy/kustomization.yaml, after the
/// last entry of `resources:`. `None` when the file has no `resources:` list to extend.
pub fn with_webhook_network_policy(text: &str) -> Option<String> {
    fn entry(line: &str) -> Option<&str> {
        line.trim_start().strip_prefix("- ").map(str::trim)
    }
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    if lines.iter().any(|l| entry(l) == Some(WEBHOOK_POLICY)) {
        return Some(text.to_owned());
    }
    let start = lines.iter().position(|l| l.trim_end() == "resources:")?;
    let last = (start + 1..lines.len())
        .take_while(|&i| entry(lines[i]).is_some() || lines[i].trim_start().starts_with('#'))
        .filter(|&i| entry(lines[i]).is_some())
        .last()
        .unwrap_or(start);
    let mut out: String = lines[..=last].concat();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&format!("- {WEBHOOK_POLICY}\n"));
    out.push_str(&lines[last + 1..].concat());
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_the_webhook_policy_once() {
        let text = "# Enabled by hand.\nresources:\n- allow-metrics-traffic.yaml\n";
        let once = with_webhook_network_policy(text).unwrap();
        assert_eq!(
            once,
            "# Enabled by hand.\nresources:\n- allow-metrics-traffic.yaml\n- allow-webhook-traffic.yaml\n"
        );
        assert_eq!(with_webhook_network_policy(&once).unwrap(), once);
        assert_eq!(
            with_webhook_network_policy("resources:\n- a.yaml\npatches:\n- path: p.yaml\n")
                .unwrap(),
            "resources:\n- a.yaml\n- allow-webhook-traffic.yaml\npatches:\n- path: p.yaml\n"
        );
        assert_eq!(with_webhook_network_policy("kind: Kustomization\n"), None);
    }

    #[test]
    fn uncomments_the_webhook_parts_once() {
        let text = "resources:\n#- ../webhook\n#- ../certmanager\npatches:\n- path: a.yaml\n# +opgen:scaffold:webhook-begin\n#- path: manager_webhook_patch.yaml\n#\n#replacements: []\n# +opgen:scaffold:webhook-end\n";
        let once = enable_in_default_kustomization(text).unwrap();
        assert_eq!(
            once,
            "resources:\n- ../webhook\n- ../certmanager\npatches:\n- path: a.yaml\n# +opgen:scaffold:webhook-begin\n- path: manager_webhook_patch.yaml\n\nreplacements: []\n# +opgen:scaffold:webhook-end\n"
        );
        assert_eq!(enable_in_default_kustomization(&once).unwrap(), once);
    }

    #[test]
    fn missing_sections_are_an_error_with_help() {
        let err = enable_in_default_kustomization("resources:\n- ../rbac\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("does not have the webhook sections"), "{err}");
        assert!(
            err.contains("`- ../webhook` and `- ../certmanager`"),
            "{err}"
        );
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct VersionEntry {
    pub version: String,
}

/// What the conversion templates refer to: the hub is `resource.version`.
#[derive(Debug, Clone, Serialize)]
pub struct ConversionContext {
    #[serde(flatten)]
    pub resource: ResourceContext,
    /// The module holding the version modules, e.g. `crate::api` or `crate::api::cache`.
    pub api_parent: String,
    /// Hub and spokes, in version order.
    pub versions: Vec<VersionEntry>,
    pub spokes: Vec<VersionEntry>,
}

impl ConversionContext {
    pub fn new(resource: ResourceContext, spokes: &[String]) -> Self {
        let api_parent = resource
            .api_module
            .rsplit_once("::")
            .map_or_else(|| "crate::api".to_owned(), |(parent, _)| parent.to_owned());
        let mut versions: Vec<VersionEntry> = spokes
            .iter()
            .chain(std::iter::once(&resource.version))
            .map(|v| VersionEntry { version: v.clone() })
            .collect();
        versions.sort_by(|a, b| a.version.cmp(&b.version));
        ConversionContext {
            api_parent,
            versions,
            spokes: spokes
                .iter()
                .map(|v| VersionEntry { version: v.clone() })
                .collect(),
            resource,
        }
    }
}

pub const CRD_KUSTOMIZATION: &str = "config/crd/kustomization.yaml";

/// The conversion webhook of a kind: its Rust module and registry entry, the CRD patch that
/// points the API server at `/convert`, and the CA injection into that CRD.
pub fn conversion_plan(ctx: &ConversionContext) -> Result<ScaffoldPlan> {
    let r = &ctx.resource;
    let mut plan = ScaffoldPlan::default();
    let module = format!("{}_conversion", r.kind_snake);
    let file = if r.multigroup {
        let group_mod = module_name(&r.group);
        plan.insert(
            "src/webhooks/mod.rs",
            "webhook-modules",
            format!("pub mod {group_mod};"),
        );
        plan.write_rust(
            format!("src/webhooks/{group_mod}/mod.rs"),
            format!("{}{}", r.header, render("webhook/group_mod.rs", ctx)?),
            Policy::IfMissing,
        );
        plan.insert(
            format!("src/webhooks/{group_mod}/mod.rs"),
            "webhook-modules",
            format!("pub mod {module};"),
        );
        plan.insert(
            "src/webhooks/mod.rs",
            "webhooks",
            format!("{group_mod}::{module}::WEBHOOK,"),
        );
        format!("src/webhooks/{group_mod}/{module}.rs")
    } else {
        plan.insert(
            "src/webhooks/mod.rs",
            "webhook-modules",
            format!("pub mod {module};"),
        );
        plan.insert(
            "src/webhooks/mod.rs",
            "webhooks",
            format!("{module}::WEBHOOK,"),
        );
        format!("src/webhooks/{module}.rs")
    };
    plan.write_rust(
        file,
        format!("{}{}", r.header, render("api/conversion.rs", ctx)?),
        Policy::UserOwned,
    );
    plan.write_rust(
        format!("tests/{}_conversion.rs", r.config_prefix()),
        format!("{}{}", r.header, render("api/conversion_envtest.rs", ctx)?),
        Policy::UserOwned,
    );
    for path in CONFIG_FILES {
        plan.write(
            *path,
            render(&format!("webhook/{path}"), ctx)?,
            Policy::IfMissing,
        );
    }
    let patch = format!("patches/webhook_in_{}.yaml", r.plural);
    plan.write(
        format!("config/crd/{patch}"),
        render("webhook/config/crd/patches/webhook_in_crd.yaml", ctx)?,
        Policy::IfMissing,
    );
    plan.write(
        "config/crd/kustomizeconfig.yaml",
        render("webhook/config/crd/kustomizeconfig.yaml", ctx)?,
        Policy::IfMissing,
    );
    plan.insert(
        CRD_KUSTOMIZATION,
        "crdkustomizewebhookpatch",
        format!("- path: {patch}"),
    );
    let crd = format!("{}.{}", r.plural, r.api_group);
    for (marker, index) in [("crdcainjection-namespace", 0), ("crdcainjection-name", 1)] {
        plan.insert(
            DEFAULT_KUSTOMIZATION,
            marker,
            format!(
                "- select:\n    kind: CustomResourceDefinition\n    name: {crd}\n  fieldPaths:\n  - .metadata.annotations.[cert-manager.io/inject-ca-from]\n  options:\n    delimiter: '/'\n    index: {index}\n    create: true"
            ),
        );
    }
    Ok(plan)
}

const CRD_PATCHES_SECTION: &str = "\n\n# Conversion webhooks of the CRDs (added by `opgen create webhook --conversion`).\npatches:\n# +opgen:scaffold:crdkustomizewebhookpatch\n\nconfigurations:\n- kustomizeconfig.yaml\n";

/// Gives config/crd/kustomization.yaml the patches section conversion webhooks need, once.
pub fn with_crd_patches_section(text: &str) -> String {
    if text.contains("+opgen:scaffold:crdkustomizewebhookpatch") {
        return text.to_owned();
    }
    let mut out = text.trim_end().to_owned();
    out.push_str(CRD_PATCHES_SECTION);
    out
}

/// The inverse of [`with_crd_patches_section`] once no patch is listed in it; `None` when the
/// section is not as opgen added it (then it stays).
pub fn without_crd_patches_section(text: &str) -> Option<String> {
    text.strip_suffix(CRD_PATCHES_SECTION)
        .map(|rest| format!("{rest}\n"))
}
