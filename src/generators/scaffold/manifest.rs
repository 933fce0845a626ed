//! `opgen init` in an existing crate (kubebuilder adopts an existing go.mod): the scaffold's
//! Cargo.toml merged into the crate's own, which keeps its name, its dependencies, its
//! formatting and comments. Only what cannot hold both is a conflict.

use crate::diag::{Diagnostic, Error, Location, Result};
use std::path::Path;
use toml_edit::{Document, DocumentMut, Item, Table, Value};

/// What a crate's manifest says that `opgen init` needs before it plans anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExistingCrate {
    pub package_name: String,
}

/// Reads the package name of an existing Cargo.toml; a manifest without `[package]` (a
/// virtual workspace) cannot be adopted.
pub fn existing_crate(path: &Path, text: &str) -> Result<ExistingCrate> {
    let doc = parse(path, text)?;
    let name = doc
        .get("package")
        .and_then(Item::as_table_like)
        .and_then(|package| package.get("name"))
        .and_then(Item::as_str);
    match name {
        Some(name) => Ok(ExistingCrate {
            package_name: name.to_owned(),
        }),
        None => Err(Error::new(Diagnostic::error(format!(
            "{} has no [package] name: opgen init adopts a package, not a workspace manifest",
            path.display()
        ))
        .help("run `opgen init` in a member's directory or an empty one (`opgen new <dir>` makes one)"))),
    }
}

/// The crate's manifest with what the scaffold's manifest (`scaffold`, rendered for this
/// project) has and it lacks: dependencies and their features, the library and binary
/// targets, `rust-version`, and an enclosing workspace's `[workspace]` table. Conflicts
/// (a dependency requirement that excludes the scaffold's version, an older edition, targets
/// that claim the same files differently) are errors at their line, unless `force`, which
/// takes the scaffold's side.
pub fn adopt(
    path: &Path,
    existing: &str,
    scaffold: &str,
    force: bool,
) -> std::result::Result<String, Vec<Diagnostic>> {
    let spans = parse(path, existing).map_err(|e| e.diagnostics)?;
    let mut doc: DocumentMut = existing
        .parse()
        .map_err(|e: toml_edit::TomlError| vec![toml_error(path, existing, &e)])?;
    let ours: DocumentMut = scaffold
        .parse()
        .expect("the scaffold's Cargo.toml is valid TOML");
    let mut merge = Merge {
        path,
        text: existing,
        spans: &spans,
        force,
        conflicts: Vec::new(),
    };

    merge.package(&mut doc, &ours);
    if doc.get("lib").is_none()
        && let Some(lib) = ours.get("lib")
    {
        doc.insert("lib", lib.clone());
    }
    merge.binary(&mut doc, &ours);
    for section in ["dependencies", "dev-dependencies"] {
        merge.dependencies(&mut doc, &ours, section);
    }
    if doc.get("workspace").is_none()
        && let Some((key, workspace)) = ours.as_table().get_key_value("workspace")
    {
        doc.insert_formatted(key, workspace.clone());
    }

    if merge.conflicts.is_empty() {
        Ok(doc.to_string())
    } else {
        Err(merge.conflicts)
    }
}

struct Merge<'a> {
    path: &'a Path,
    text: &'a str,
    spans: &'a Document<String>,
    force: bool,
    conflicts: Vec<Diagnostic>,
}

impl Merge<'_> {
    /// A conflict at the key `keys` names in the crate's manifest; `None` when `--force`
    /// resolves it for the scaffold.
    fn conflict(&mut self, keys: &[&str], message: String, help: &str) -> bool {
        if self.force {
            return false;
        }
        let help =
            format!("{help}; or pass --force to take the scaffold's side (nothing was written)");
        let diagnostic = match key_span(self.spans.as_table(), keys) {
            Some(span) => Diagnostic::error(message).at(location(self.path, self.text, span)),
            None => Diagnostic::error(format!("{}: {message}", self.path.display())),
        }
        .help(help);
        self.conflicts.push(diagnostic);
        true
    }

    fn package(&mut self, doc: &mut DocumentMut, ours: &DocumentMut) {
        let ours = ours["package"]
            .as_table()
            .expect("[package] in the scaffold");
        let Some(package) = doc.get_mut("package").and_then(Item::as_table_like_mut) else {
            return;
        };
        let our_edition = ours["edition"].as_str().unwrap_or_default();
        let edition = package
            .get("edition")
            .and_then(Item::as_str)
            .unwrap_or("2015")
            .to_owned();
        if edition.as_str() < our_edition
            && !self.conflict(
                &["package", "edition"],
                format!(
                    "edition {edition}, but the code opgen generates needs edition {our_edition}"
                ),
                &format!(
                    "migrate with `cargo fix --edition`, then set edition = \"{our_edition}\""
                ),
            )
        {
            package.insert("edition", ours["edition"].clone());
        }
        let our_msrv = ours["rust-version"].as_str().unwrap_or_default();
        let older = match package.get("rust-version").and_then(Item::as_str) {
            Some(theirs) => version_lt(theirs, our_msrv),
            None => true,
        };
        if older {
            package.insert("rust-version", ours["rust-version"].clone());
        }
    }

    /// The scaffold's `[[bin]]` (the manager, `src/main.rs`, named after the project) unless the
    /// crate already has it.
    fn binary(&mut self, doc: &mut DocumentMut, ours: &DocumentMut) {
        let our_bin = ours["bin"]
            .as_array_of_tables()
            .and_then(|bins| bins.get(0))
            .expect("[[bin]] in the scaffold");
        let name = our_bin["name"].as_str().unwrap_or_default();
        let bins = doc.get("bin").and_then(Item::as_array_of_tables);
        if bins.is_some_and(|bins| {
            bins.iter()
                .any(|b| b.get("name").and_then(Item::as_str) == Some(name))
        }) {
            return;
        }
        let other_main = bins.and_then(|bins| {
            bins.iter()
                .find(|b| b.get("path").and_then(Item::as_str) == Some("src/main.rs"))
                .and_then(|b| b.get("name").and_then(Item::as_str).map(str::to_owned))
        });
        if let Some(other) = other_main
            && self.conflict(
                &["bin"],
                format!(
                    "the binary `{other}` is built from src/main.rs, which opgen init writes as the manager `{name}`"
                ),
                "move that binary to src/bin/ (or rename it to the project's name)",
            )
        {
            return;
        }
        match doc.get_mut("bin").and_then(Item::as_array_of_tables_mut) {
            Some(bins) => {
                bins.retain(|b| b.get("path").and_then(Item::as_str) != Some("src/main.rs"));
                bins.push(our_bin.clone());
            }
            None => {
                doc.insert("bin", ours["bin"].clone());
            }
        }
    }

    fn dependencies(&mut self, doc: &mut DocumentMut, ours: &DocumentMut, section: &str) {
        let Some(our_deps) = ours.get(section).and_then(Item::as_table) else {
            return;
        };
        // `dependencies = { ... }` (rare) becomes a table, which keeps comments above keys.
        let deps = match doc.remove(section) {
            Some(Item::Table(table)) => table,
            Some(Item::Value(Value::InlineTable(inline))) => inline.into_table(),
            _ => Table::new(),
        };
        doc.insert(section, Item::Table(deps));
        let deps = doc[section].as_table_mut().expect("inserted above");
        for (key, our_dep) in our_deps.iter() {
            let Some(their_dep) = deps.get_mut(key) else {
                let (key, item) = our_deps.get_key_value(key).expect("iterated key");
                // insert_formatted keeps the comment lines above the scaffold's entry.
                deps.insert_formatted(key, item.clone());
                continue;
            };
            let our_version = dependency_version(our_dep);
            let their_req = dependency_version(their_dep);
            let compatible = match (&their_req, &our_version) {
                (Some(theirs), Some(ours)) => requirement_accepts(theirs, ours),
                // path, git or workspace dependencies: the crate's own choice.
                _ => true,
            };
            if !compatible {
                let theirs = their_req.unwrap_or_default();
                let ours = our_version.unwrap_or_default();
                if !self.conflict(
                    &[section, key],
                    format!(
                        "{section}.{key} = \"{theirs}\" does not accept {key} {ours}, the version the scaffold is built and tested with"
                    ),
                    &format!("change the requirement to \"{ours}\" (or one that accepts it)"),
                ) {
                    *their_dep = our_dep.clone();
                }
                continue;
            }
            add_features(their_dep, our_dep);
        }
    }
}

/// The version requirement of a dependency entry (`"1.0"` or `{ version = "1.0", ... }`).
fn dependency_version(item: &Item) -> Option<String> {
    match item {
        Item::Value(Value::String(s)) => Some(s.value().clone()),
        Item::Value(Value::InlineTable(t)) => {
            t.get("version").and_then(Value::as_str).map(str::to_owned)
        }
        Item::Table(t) => t.get("version").and_then(Item::as_str).map(str::to_owned),
        _ => None,
    }
}

/// Whether the crate's requirement admits the version the scaffold pins (its requirement's
/// base version, `5.0.0` of `"5.0.0"`).
fn requirement_accepts(theirs: &str, ours: &str) -> bool {
    let Ok(req) = semver::VersionReq::parse(theirs) else {
        return false;
    };
    let base = ours.trim_start_matches(['^', '=', '~']);
    let padded = match base.matches('.').count() {
        0 => format!("{base}.0.0"),
        1 => format!("{base}.0"),
        _ => base.to_owned(),
    };
    semver::Version::parse(&padded).is_ok_and(|v| req.matches(&v))
}

/// Adds the scaffold's features (and its need for default features) to the crate's entry.
fn add_features(theirs: &mut Item, ours: &Item) {
    let our_features: Vec<String> = match ours {
        Item::Value(Value::InlineTable(t)) => t
            .get("features")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    let ours_need_defaults = match ours {
        Item::Value(Value::InlineTable(t)) => {
            t.get("default-features").and_then(Value::as_bool) != Some(false)
        }
        _ => true,
    };
    if our_features.is_empty() && !ours_need_defaults {
        return;
    }
    // A bare version string becomes an inline table when features are added.
    if let Item::Value(Value::String(version)) = theirs {
        if our_features.is_empty() {
            return;
        }
        let mut table = toml_edit::InlineTable::new();
        table.insert("version", Value::from(version.value().as_str()));
        *theirs = Item::Value(Value::InlineTable(table));
    }
    let Some(table) = theirs.as_table_like_mut() else {
        return;
    };
    if ours_need_defaults && table.get("default-features").and_then(Item::as_bool) == Some(false) {
        table.remove("default-features");
    }
    if our_features.is_empty() {
        return;
    }
    if table.get("features").is_none() {
        table.insert("features", toml_edit::value(toml_edit::Array::new()));
    }
    if let Some(features) = table.get_mut("features").and_then(Item::as_array_mut) {
        for feature in our_features {
            if !features.iter().any(|f| f.as_str() == Some(&feature)) {
                features.push(feature);
            }
        }
    }
}

fn version_lt(a: &str, b: &str) -> bool {
    let parts = |v: &str| -> Vec<u64> { v.split('.').map(|p| p.parse().unwrap_or(0)).collect() };
    parts(a) < parts(b)
}

fn key_span(table: &Table, keys: &[&str]) -> Option<std::ops::Range<usize>> {
    let (first, rest) = keys.split_first()?;
    let (key, item) = table.get_key_value(first)?;
    if rest.is_empty() {
        return key.span();
    }
    match item {
        Item::Table(t) => key_span(t, rest),
        Item::Value(Value::InlineTable(t)) => {
            let (key, _) = t.get_key_value(rest[0])?;
            key.span()
        }
        _ => key.span(),
    }
}

fn location(path: &Path, text: &str, span: std::ops::Range<usize>) -> Location {
    let before = &text[..span.start.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    Location::new(path, line, column).with_source(text, span.len())
}

fn parse(path: &Path, text: &str) -> Result<Document<String>> {
    Document::parse(text.to_owned()).map_err(|e| Error::new(toml_error(path, text, &e)))
}

fn toml_error(path: &Path, text: &str, e: &toml_edit::TomlError) -> Diagnostic {
    let mut diagnostic = Diagnostic::error(format!(
        "{} is not valid TOML: {}",
        path.display(),
        e.message()
    ));
    if let Some(span) = e.span() {
        diagnostic = diagnostic.at(location(path, text, span));
    }
    diagnostic.help("fix the manifest (cargo reports the same error), then run opgen init again")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requirements_accept_the_scaffold_version_or_not() {
        for (theirs, ours, accepts) in [
            ("1", "1.0.229", true),
            ("1.0.100", "1.0.229", true),
            ("=1.0.100", "1.0.229", false),
            ("0.99", "5.0.0", false),
            ("5", "5.0.0", true),
            (">=4, <6", "5.0.0", true),
            ("0.29", "0.29.0", true),
            ("0.28", "0.29.0", false),
            ("4.6", "4.6", true),
            ("not a requirement", "1.0", false),
        ] {
            assert_eq!(
                requirement_accepts(theirs, ours),
                accepts,
                "{theirs} vs {ours}"
            );
        }
    }

    fn merged_dependency(theirs: &str, ours: &str) -> String {
        let path = Path::new("Cargo.toml");
        let existing =
            format!("[package]\nname = \"x\"\nedition = \"2024\"\n\n[dependencies]\n{theirs}\n");
        let scaffold = format!(
            "[package]\nname = \"x\"\nedition = \"2024\"\nrust-version = \"1.89\"\n\n[[bin]]\nname = \"x\"\npath = \"src/main.rs\"\n\n[dependencies]\n{ours}\n"
        );
        let merged = adopt(path, &existing, &scaffold, false).unwrap();
        let doc: DocumentMut = merged.parse().unwrap();
        doc["dependencies"].as_table().unwrap().to_string()
    }

    #[test]
    fn features_are_added_and_default_features_restored() {
        assert_eq!(
            merged_dependency(
                "serde = \"1\"",
                "serde = { version = \"1.0.229\", features = [\"derive\"] }"
            ),
            "serde = { version = \"1\", features = [\"derive\"] }\n"
        );
        assert_eq!(
            merged_dependency(
                "tokio = { version = \"1\", default-features = false, features = [\"rt\"] }",
                "tokio = { version = \"1.54.1\", features = [\"macros\", \"rt\"] }"
            ),
            "tokio = { version = \"1\", features = [\"rt\", \"macros\"] }\n"
        );
        // A path dependency is the crate's own choice.
        assert_eq!(
            merged_dependency("kube = { path = \"../kube\" }", "kube = \"5.0.0\""),
            "kube = { path = \"../kube\" }\n"
        );
    }

    #[test]
    fn a_binary_built_from_main_rs_under_another_name_conflicts() {
        let existing = "[package]\nname = \"x\"\nedition = \"2024\"\n\n[[bin]]\nname = \"tool\"\npath = \"src/main.rs\"\n";
        let scaffold = "[package]\nname = \"x\"\nedition = \"2024\"\nrust-version = \"1.89\"\n\n[[bin]]\nname = \"x\"\npath = \"src/main.rs\"\n";
        let err = adopt(Path::new("Cargo.toml"), existing, scaffold, false).unwrap_err();
        assert_eq!(err.len(), 1);
        assert!(
            err[0]
                .message
                .contains("the binary `tool` is built from src/main.rs"),
            "{}",
            err[0]
        );
        assert_eq!(err[0].location.as_ref().map(|l| l.line), Some(5));
        let forced = adopt(Path::new("Cargo.toml"), existing, scaffold, true).unwrap();
        assert!(
            forced.contains("name = \"x\"\npath = \"src/main.rs\"") && !forced.contains("tool"),
            "{forced}"
        );
    }
}
