//! Validation of the names users type on the command line, and the names derived from them.
//!
//! Each check returns an error that names the flag, the value and the rule it breaks.
//! The rules are Kubernetes' (DNS-1123) plus what Rust needs of names that become
//! crate, module and file names: kubebuilder accepts `My-Kind` and a Kind called `Type`,
//! which here would produce code that does not compile.

use crate::diag::{Error, Result};
use heck::ToSnakeCase;

/// Rust keywords (strict, reserved and 2024 edition), which cannot name a module.
const RUST_KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "static", "struct", "super", "trait", "true", "try", "type", "typeof",
    "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Identifiers the scaffolded controller and types files use unqualified; a Kind with one of
/// these names would shadow or clash with them.
/// Crates the scaffolded code names by path: a module of the same name would shadow them.
const SHADOWED_CRATES: &[&str] = &[
    "std",
    "core",
    "alloc",
    "kube",
    "k8s_openapi",
    "serde",
    "serde_json",
    "tokio",
    "futures",
    "tracing",
    "clap",
    "opgen_runtime",
    "opgen_envtest",
];

const RESERVED_KINDS: &[&str] = &[
    "Action",
    "Api",
    "Arc",
    "Client",
    "Condition",
    "Context",
    "Controller",
    "Duration",
    "Error",
    "Event",
    "EventType",
    "Finalizer",
    "Option",
    "Patch",
    "PatchParams",
    "Recorder",
    "Reporter",
    "Resource",
    "ResourceExt",
    "Result",
    "String",
    "Vec",
    "Time",
    // The prelude's variants and traits: a struct of that name shadows them.
    "Some",
    "None",
    "Ok",
    "Err",
    "Box",
    "Default",
    "Clone",
    "Copy",
    "Send",
    "Sync",
    "Drop",
    "From",
    "Into",
    "Iterator",
    "ToString",
    "ToOwned",
];

/// Kinds of the built-in Kubernetes APIs. A CRD may reuse one (its group differs), but
/// `kubectl get <plural>` then finds the built-in first, which surprises users.
const BUILTIN_KINDS: &[&str] = &[
    "Binding",
    "ClusterRole",
    "ClusterRoleBinding",
    "ConfigMap",
    "ControllerRevision",
    "CronJob",
    "CustomResourceDefinition",
    "DaemonSet",
    "Deployment",
    "Endpoints",
    "EndpointSlice",
    "Event",
    "HorizontalPodAutoscaler",
    "Ingress",
    "IngressClass",
    "Job",
    "Lease",
    "LimitRange",
    "MutatingWebhookConfiguration",
    "Namespace",
    "NetworkPolicy",
    "Node",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "Pod",
    "PodDisruptionBudget",
    "PodTemplate",
    "PriorityClass",
    "ReplicaSet",
    "ReplicationController",
    "ResourceQuota",
    "Role",
    "RoleBinding",
    "RuntimeClass",
    "Secret",
    "Service",
    "ServiceAccount",
    "StatefulSet",
    "StorageClass",
    "ValidatingWebhookConfiguration",
    "VolumeAttachment",
];

/// A warning when `kind` is also the kind of a built-in Kubernetes API.
pub fn builtin_kind_warning(kind: &str) -> Option<crate::diag::Diagnostic> {
    BUILTIN_KINDS.contains(&kind).then(|| {
        crate::diag::Diagnostic::warning(format!(
            "`{kind}` is also a built-in Kubernetes kind: `kubectl get {}` will list the built-in one",
            crate::pluralize::flect_plural(&kind.to_lowercase())
        ))
        .help("that works (the API groups differ), but users must then write the full resource name, e.g. `kubectl get <plural>.<group>`; consider a more specific kind")
    })
}

/// Crate names cargo refuses for packages.
const CARGO_RESERVED: &[&str] = &["alloc", "core", "proc_macro", "proc-macro", "std", "test"];

pub fn is_rust_keyword(s: &str) -> bool {
    RUST_KEYWORDS.contains(&s)
}

/// `name` as a Rust module identifier: a keyword raw (`r#match`, whose file stays `match.rs`),
/// as an API version named `match` needs.
pub fn module_ident(name: &str) -> String {
    if is_rust_keyword(name) && !matches!(name, "self" | "super" | "crate") {
        format!("r#{name}")
    } else {
        name.to_owned()
    }
}

fn is_dns1123_label(s: &str) -> bool {
    let bytes = s.as_bytes();
    !s.is_empty()
        && s.len() <= 63
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
        && bytes[0] != b'-'
        && bytes[bytes.len() - 1] != b'-'
}

fn is_dns1123_subdomain(s: &str) -> bool {
    !s.is_empty() && s.len() <= 253 && s.split('.').all(is_dns1123_label)
}

fn invalid(flag: &str, value: &str, rule: &str) -> Error {
    Error::msg(format!("invalid value {value:?} for {flag}: {rule}"))
}

pub fn validate_domain(domain: &str) -> Result<()> {
    if is_dns1123_subdomain(domain) {
        Ok(())
    } else {
        Err(invalid(
            "--domain",
            domain,
            "must be a DNS-1123 subdomain: lowercase letters, digits, '-' and '.', each dot-separated part starting and ending with a letter or digit (e.g. example.com)",
        ))
    }
}

pub fn validate_project_name(name: &str) -> Result<()> {
    let rule = "must be a DNS-1123 label that starts with a letter, because it is also the Cargo package name (lowercase letters, digits and '-', at most 63 characters, e.g. memcached-operator)";
    if !is_dns1123_label(name) || !name.starts_with(|c: char| c.is_ascii_lowercase()) {
        return Err(invalid("--project-name", name, rule));
    }
    let crate_name = name.replace('-', "_");
    if is_rust_keyword(&crate_name) || CARGO_RESERVED.contains(&name) {
        return Err(invalid(
            "--project-name",
            name,
            "is reserved by Rust or cargo and cannot name a package",
        ));
    }
    Ok(())
}

pub fn validate_group(group: &str) -> Result<()> {
    if !is_dns1123_label(group) || !group.starts_with(|c: char| c.is_ascii_lowercase()) {
        return Err(invalid(
            "--group",
            group,
            "must be a lowercase DNS-1123 label that starts with a letter (lowercase letters, digits and '-', e.g. cache); it becomes the first part of the API group and a Rust module name",
        ));
    }
    if is_rust_keyword(&group.replace('-', "_")) {
        return Err(invalid(
            "--group",
            group,
            "is a Rust keyword and cannot name the group's module",
        ));
    }
    Ok(())
}

pub fn validate_version(version: &str) -> Result<()> {
    // ^v\d+((alpha|beta)\d+)?$
    let ok = (|| {
        let rest = version.strip_prefix('v')?;
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 || rest.starts_with('0') {
            return None;
        }
        // The API server orders versions by these numbers (parsed as integers).
        if digits > 9 {
            return None;
        }
        let tail = &rest[digits..];
        if tail.is_empty() {
            return Some(());
        }
        let n = tail
            .strip_prefix("alpha")
            .or_else(|| tail.strip_prefix("beta"))?;
        (!n.is_empty()
            && n.len() <= 9
            && n.bytes().all(|b| b.is_ascii_digit())
            && !n.starts_with('0'))
        .then_some(())
    })()
    .is_some();
    if ok {
        Ok(())
    } else {
        Err(invalid(
            "--version",
            version,
            "must be a Kubernetes API version matching ^v\\d+((alpha|beta)\\d+)?$ with numbers of at most 9 digits (e.g. v1, v1alpha1, v2beta3)",
        ))
    }
}

pub fn validate_kind(kind: &str) -> Result<()> {
    let pascal = kind.starts_with(|c: char| c.is_ascii_uppercase())
        && kind.chars().all(|c| c.is_ascii_alphanumeric());
    if !pascal {
        return Err(invalid(
            "--kind",
            kind,
            "must be PascalCase matching ^[A-Z][A-Za-z0-9]*$ (e.g. Memcached, CronJob)",
        ));
    }
    if kind.len() > 63 {
        return Err(invalid("--kind", kind, "must be at most 63 characters"));
    }
    let snake = kind.to_snake_case();
    if is_rust_keyword(&snake) {
        return Err(Error::with_help(
            format!(
                "invalid value {kind:?} for --kind: its snake-case form `{snake}` is a Rust keyword and cannot name the kind's module"
            ),
            "choose another kind name, e.g. prefix it with your domain noun",
        ));
    }
    if SHADOWED_CRATES.contains(&snake.as_str()) {
        return Err(Error::with_help(
            format!(
                "invalid value {kind:?} for --kind: its module `{snake}` would shadow the crate `{snake}` that the scaffolded code uses (`use {snake}::...` would then name the kind's module)"
            ),
            format!("choose a more specific kind name (e.g. App{kind})"),
        ));
    }
    if RESERVED_KINDS.contains(&kind) {
        return Err(Error::with_help(
            format!(
                "invalid value {kind:?} for --kind: the scaffolded controller already uses the name `{kind}` from kube or std"
            ),
            "choose a more specific kind name (e.g. App{kind})".replace("{kind}", kind),
        ));
    }
    Ok(())
}

pub fn validate_plural(plural: &str) -> Result<()> {
    if is_dns1123_label(plural) && plural.starts_with(|c: char| c.is_ascii_lowercase()) {
        Ok(())
    } else {
        Err(invalid(
            "--plural",
            plural,
            "must be a lowercase DNS-1123 label that starts with a letter (e.g. memcacheds)",
        ))
    }
}

/// Module name for a group: `my-group` becomes `my_group`.
pub fn module_name(s: &str) -> String {
    s.replace('-', "_")
}

/// The 32-bit FNV-1a hash kubebuilder uses to derive leader election IDs.
pub fn fnv32a(data: &str) -> u32 {
    data.bytes().fold(0x811c_9dc5_u32, |hash, b| {
        (hash ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

#[cfg(test)]
mod tests {

    #[test]
    fn keywords_are_raw_module_identifiers() {
        assert_eq!(module_ident("match"), "r#match");
        assert_eq!(module_ident("v1"), "v1");
        assert_eq!(module_ident("self"), "self");
    }

    use super::*;

    #[test]
    fn domains() {
        for ok in ["example.com", "my.domain", "a", "k8s.io", "x-y.z9"] {
            validate_domain(ok).unwrap();
        }
        for bad in [
            "",
            "Example.com",
            "-a.com",
            "a-.com",
            "a..com",
            "a_b.com",
            ".com",
        ] {
            assert!(validate_domain(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn versions() {
        for ok in ["v1", "v1alpha1", "v2beta3", "v10", "v1beta10"] {
            validate_version(ok).unwrap();
        }
        for bad in [
            "1",
            "v",
            "v0",
            "v01",
            "V1",
            "v1alpha",
            "v1gamma1",
            "v1alpha0",
            "v1-alpha1",
        ] {
            assert!(validate_version(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn kinds() {
        for ok in ["Memcached", "CronJob", "TDSet", "At", "Foo2"] {
            validate_kind(ok).unwrap();
        }
        for bad in ["memcached", "My-Kind", "My_Kind", "", "2Foo", "Kind!"] {
            let err = validate_kind(bad).unwrap_err().to_string();
            assert!(err.contains("PascalCase"), "{bad}: {err}");
        }
        let err = validate_kind("Type").unwrap_err().to_string();
        assert!(err.contains("`type` is a Rust keyword"), "{err}");
        let err = validate_kind("Event").unwrap_err().to_string();
        assert!(err.contains("already uses the name `Event`"), "{err}");
    }

    #[test]
    fn groups_and_projects() {
        validate_group("cache").unwrap();
        validate_group("batch-jobs").unwrap();
        for bad in ["Cache", "3d", "a.b", "", "type", "-a"] {
            assert!(validate_group(bad).is_err(), "{bad}");
        }
        validate_project_name("memcached-operator").unwrap();
        for bad in ["Memcached", "1op", "test", "op_1", "self", "a-"] {
            assert!(validate_project_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn kinds_that_would_shadow_a_crate_are_refused() {
        for kind in ["Std", "Core", "Kube", "Serde", "Tokio", "OpgenRuntime"] {
            let err = validate_kind(kind).unwrap_err().to_string();
            assert!(err.contains("would shadow the crate"), "{kind}: {err}");
        }
        validate_kind("Stdio").unwrap();
    }

    #[test]
    fn fnv_matches_kubebuilder_leader_election_ids() {
        // operator-sdk's memcached sample: repo github.com/example/memcached-operator → 86f835c3.
        assert_eq!(
            format!("{:08x}", fnv32a("github.com/example/memcached-operator")),
            "86f835c3"
        );
    }
}
