//! The PROJECT file: the one record of what opgen scaffolded.
//!
//! Field names follow kubebuilder's PROJECT (config version "3") so that people and tools
//! that know kubebuilder can read it. opgen reads it on every command and rewrites it
//! after `init` and `create api`.

use crate::diag::{Error, Result};
use crate::writer::Workspace;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub const FILE_NAME: &str = "PROJECT";
pub const LAYOUT: &str = "rust.opgen.dev/v1";

/// The scaffold generation this opgen writes, recorded as `scaffoldVersion` in PROJECT. Bump it
/// when a template of a file the user owns changes, and embed the previous templates as
/// `data/upgrade/scaffold-<previous>/` so that `opgen upgrade` can still render them.
pub const SCAFFOLD_VERSION: u32 = 9;

const HEADER: &str = "\
# This file records what opgen scaffolded in this project (kubebuilder's PROJECT format).
# opgen reads it on every command: edit it only to fix a mistake.
";

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_true(b: &bool) -> bool {
    *b
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Project {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cli_version: Option<String>,
    pub domain: String,
    pub layout: Vec<String>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub multigroup: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub namespaced: bool,
    pub project_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repo: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<Resource>,
    /// The scaffold generation the project's files were written by (opgen's crate version says
    /// nothing about it). Absent in projects of opgen 0.1.0; `opgen upgrade` infers it there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scaffold_version: Option<u32>,
    pub version: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api: Option<ResourceApi>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub controller: bool,
    pub domain: String,
    /// The controller keeps a finalizer on each object (`create api --finalizer=false`: none).
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub finalizer: bool,
    pub group: String,
    pub kind: String,
    /// The Rust module that holds the types, e.g. `memcached_operator::api::v1alpha1`.
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plural: Option<String>,
    pub version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhooks: Option<ResourceWebhooks>,
}

/// A kind version of the project, as the commands name it (`--group`, `--version`, `--kind`)
/// and PROJECT records it: the group without the domain.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Gvk {
    pub group: String,
    pub version: String,
    pub kind: String,
}

impl Gvk {
    pub fn new(group: &str, version: &str, kind: &str) -> Self {
        Gvk {
            group: group.to_owned(),
            version: version.to_owned(),
            kind: kind.to_owned(),
        }
    }

    /// The same kind in version `version`.
    pub fn with_version(&self, version: &str) -> Self {
        Gvk {
            version: version.to_owned(),
            ..self.clone()
        }
    }
}

impl Resource {
    /// The kind version this resource records.
    pub fn gvk(&self) -> Gvk {
        Gvk::new(&self.group, &self.version, &self.kind)
    }

    /// Whether this resource records the kind version `gvk`.
    pub fn is(&self, gvk: &Gvk) -> bool {
        self.is_version_of(gvk) && self.version == gvk.version
    }

    /// Whether this resource records a version (any) of `gvk`'s kind.
    pub fn is_version_of(&self, gvk: &Gvk) -> bool {
        self.group == gvk.group && self.kind == gvk.kind
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceApi {
    pub crd_version: String,
    #[serde(default, skip_serializing_if = "is_false")]
    pub namespaced: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceWebhooks {
    #[serde(default, skip_serializing_if = "is_false")]
    pub conversion: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub defaulting: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spoke: Vec<String>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub validation: bool,
    pub webhook_version: String,
}

impl Project {
    pub fn new(domain: &str, project_name: &str, repo: Option<&str>) -> Self {
        Project {
            cli_version: Some(env!("CARGO_PKG_VERSION").to_owned()),
            domain: domain.to_owned(),
            layout: vec![LAYOUT.to_owned()],
            multigroup: false,
            namespaced: false,
            project_name: project_name.to_owned(),
            repo: repo.map(str::to_owned),
            resources: Vec::new(),
            scaffold_version: Some(SCAFFOLD_VERSION),
            version: "3".to_owned(),
        }
    }

    /// The Rust crate name of the generated package.
    pub fn crate_name(&self) -> String {
        self.project_name.replace('-', "_")
    }

    /// The API group of a group name in this project, `<group>.<domain>`.
    pub fn api_group(&self, group: &str) -> String {
        format!("{group}.{}", self.domain)
    }

    /// The resource of the kind version `gvk`.
    pub fn find(&self, gvk: &Gvk) -> Option<&Resource> {
        self.resources.iter().find(|r| r.is(gvk))
    }

    pub fn find_mut(&mut self, gvk: &Gvk) -> Option<&mut Resource> {
        self.resources.iter_mut().find(|r| r.is(gvk))
    }

    /// The resources of `gvk`'s kind, every version, in PROJECT's order.
    pub fn versions_of<'a>(&'a self, gvk: &'a Gvk) -> impl Iterator<Item = &'a Resource> {
        self.resources.iter().filter(|r| r.is_version_of(gvk))
    }

    /// The resources of `gvk`'s kind but for `gvk`'s version, in PROJECT's order.
    pub fn other_versions<'a>(&'a self, gvk: &'a Gvk) -> impl Iterator<Item = &'a Resource> {
        self.versions_of(gvk).filter(|r| r.version != gvk.version)
    }

    pub fn to_yaml(&self) -> String {
        let body = serde_saphyr::to_string(self).expect("PROJECT serializes to YAML");
        format!("{HEADER}{body}")
    }

    pub fn parse(text: &str, path: &Path) -> Result<Self> {
        if let Some((line, column)) = flow_nesting_beyond(text, MAX_FLOW_DEPTH) {
            return Err(Error::with_help(
                format!(
                    "{}:{line}:{column}: not a valid PROJECT file: `[` and `{{` nest more than {MAX_FLOW_DEPTH} levels deep",
                    path.display()
                ),
                "fix the file by hand, or restore it from version control",
            ));
        }
        if text
            .lines()
            .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
        {
            return Err(Error::with_help(
                format!(
                    "{}:1:1: not a valid PROJECT file: it is empty",
                    path.display()
                ),
                "restore it from version control; opgen init writes it",
            ));
        }
        serde_saphyr::from_str(text).map_err(|e| {
            let at = e
                .location()
                .map(|l| format!(":{}:{}", l.line(), l.column()))
                .unwrap_or_default();
            // The bare message: the location is given once, in opgen's own form.
            let message = e.without_snippet().to_string();
            let message = message.trim_start_matches("error: ");
            let message = match message.split_once(": ") {
                Some((place, rest)) if place.starts_with("line ") => rest,
                _ => message,
            };
            let message = match message.rsplit_once(" at line ") {
                Some((text, place)) if place.contains(", column ") => text,
                _ => message,
            };
            Error::with_help(
                format!(
                    "{}{at}: not a valid PROJECT file: {message}",
                    path.display()
                ),
                "fix the file by hand, or restore it from version control",
            )
        })
    }

    /// Reads the PROJECT at the workspace root.
    pub fn load(ws: &Workspace) -> Result<Self> {
        let text = ws.read(Path::new(FILE_NAME))?.ok_or_else(|| {
            Error::with_help(
                format!("no PROJECT file in {}", ws.root().display()),
                "run `opgen init --domain <domain>` first, or run this command inside an opgen project",
            )
        })?;
        Project::parse(&text, &ws.root().join(FILE_NAME))
    }
}

/// PROJECT files nest flow collections at most this deep. The YAML parser takes quadratic
/// time on deeper ones (25 s for 100,000 levels), and no PROJECT needs more than a few.
const MAX_FLOW_DEPTH: usize = 64;

/// The line and column of the first `[` or `{` nested deeper than `max`, outside quoted
/// strings and comments.
fn flow_nesting_beyond(text: &str, max: usize) -> Option<(usize, usize)> {
    let mut depth = 0usize;
    for (index, line) in text.lines().enumerate() {
        let mut quote = None;
        for (column, c) in line.chars().enumerate() {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), _) => {}
                (None, '"' | '\'') => quote = Some(c),
                (None, '#') => break,
                (None, '[' | '{') => {
                    depth += 1;
                    if depth > max {
                        return Some((index + 1, column + 1));
                    }
                }
                (None, ']' | '}') => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
    }
    None
}

/// Walks up from `start` to the nearest directory holding a PROJECT file.
pub fn find_root(start: &Path) -> Result<PathBuf> {
    start
        .ancestors()
        .find(|dir| dir.join(FILE_NAME).is_file())
        .map(Path::to_path_buf)
        .ok_or_else(|| {
            Error::with_help(
                format!(
                    "{} is not inside an opgen project (no PROJECT file here or in any parent directory)",
                    start.display()
                ),
                "run `opgen init --domain <domain>` to create a project, or cd into one",
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_with_kubebuilder_field_names() {
        let mut p = Project::new(
            "example.com",
            "memcached-operator",
            Some("github.com/example/memcached-operator"),
        );
        p.cli_version = None;
        p.scaffold_version = None;
        p.resources.push(Resource {
            api: Some(ResourceApi {
                crd_version: "v1".into(),
                namespaced: true,
            }),
            controller: true,
            domain: "example.com".into(),
            finalizer: true,
            group: "cache".into(),
            kind: "Memcached".into(),
            path: "memcached_operator::api::v1alpha1".into(),
            plural: None,
            version: "v1alpha1".into(),
            webhooks: None,
        });
        let yaml = p.to_yaml();
        assert!(yaml.starts_with("# This file records"));
        let body: String = yaml
            .lines()
            .filter(|l| !l.starts_with('#'))
            .collect::<Vec<_>>()
            .join("\n");
        assert_eq!(
            body,
            r#"domain: example.com
layout:
- rust.opgen.dev/v1
projectName: memcached-operator
repo: github.com/example/memcached-operator
resources:
- api:
    crdVersion: v1
    namespaced: true
  controller: true
  domain: example.com
  group: cache
  kind: Memcached
  path: memcached_operator::api::v1alpha1
  version: v1alpha1
version: "3""#
        );
        assert_eq!(Project::parse(&yaml, Path::new("PROJECT")).unwrap(), p);
    }

    #[test]
    fn parse_error_names_file_and_line() {
        let err = Project::parse("domain: [\n", Path::new("/x/PROJECT")).unwrap_err();
        assert!(err.to_string().contains("/x/PROJECT:"), "{err}");
    }
}
