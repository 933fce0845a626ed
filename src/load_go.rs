//! **load** for `opgen import go`: Go API packages as controller-gen sees them. Go itself
//! resolves packages (`go list`, through the module's go.mod and the module cache, as
//! controller-gen's loader does) and parses them (`go/parser`): opgen embeds a small Go
//! program, `load_go/goload.go` (standard library only, so it builds offline), builds it once
//! into the cache directory and reads its JSON. It gives each type, field and package the
//! marker comments controller-gen's collector gives it.

use crate::diag::{Diagnostic, Diagnostics, Error, Location, Result};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::process::Command;

const GOLOAD: &str = include_str!("load_go/goload.go");

#[derive(Debug, Clone, Deserialize, PartialEq, Eq, Default)]
pub struct Pos {
    #[serde(default)]
    pub file: PathBuf,
    #[serde(default)]
    pub line: usize,
    #[serde(default)]
    pub col: usize,
}

impl Pos {
    pub fn location(&self) -> Location {
        Location::new(&self.file, self.line.max(1), self.col.max(1))
    }
}

/// A `// +marker` comment, its text starting at the `+`.
#[derive(Debug, Clone, Deserialize)]
pub struct GoMarker {
    pub text: String,
    #[serde(flatten)]
    pub pos: Pos,
    /// In the node's doc comment (else in the closest comment group above it).
    pub godoc: bool,
}

/// One comment of a doc comment group, as written (`// text` or `/* ... */`).
#[derive(Debug, Clone, Deserialize)]
pub struct GoComment {
    pub text: String,
    pub line: usize,
}

/// A Go type expression.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct GoExpr {
    #[serde(default)]
    pub ident: String,
    pub qual: Option<GoQual>,
    pub pointer: Option<Box<GoExpr>>,
    pub slice: Option<Box<GoExpr>>,
    pub array: Option<Box<GoExpr>>,
    #[serde(default)]
    pub map: Vec<GoExpr>,
    #[serde(default)]
    pub r#struct: Vec<GoField>,
    #[serde(default)]
    pub empty_struct: bool,
    #[serde(default)]
    pub other: String,
}

/// What a [`GoExpr`] is.
pub enum ExprKind<'a> {
    /// A predeclared type or a type of the same package.
    Ident(&'a str),
    /// `pkg.Name`, by import path.
    Qual(&'a GoQual),
    Pointer(&'a GoExpr),
    Slice(&'a GoExpr),
    /// A fixed-size array.
    Array(&'a GoExpr),
    Map(&'a GoExpr, &'a GoExpr),
    Struct(&'a [GoField]),
    /// Interfaces, functions, channels, generic instances: what no CRD schema describes.
    Other(&'a str),
}

impl GoExpr {
    pub fn kind(&self) -> ExprKind<'_> {
        if let Some(q) = &self.qual {
            ExprKind::Qual(q)
        } else if let Some(p) = &self.pointer {
            ExprKind::Pointer(p)
        } else if let Some(s) = &self.slice {
            ExprKind::Slice(s)
        } else if let Some(a) = &self.array {
            ExprKind::Array(a)
        } else if let [k, v] = self.map.as_slice() {
            ExprKind::Map(k, v)
        } else if !self.r#struct.is_empty() || self.empty_struct {
            ExprKind::Struct(&self.r#struct)
        } else if !self.ident.is_empty() {
            ExprKind::Ident(&self.ident)
        } else {
            ExprKind::Other(&self.other)
        }
    }
}

#[derive(Debug, Clone, Deserialize, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GoQual {
    pub path: String,
    pub name: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct GoField {
    /// Empty for an embedded field.
    pub name: String,
    pub tag: String,
    pub doc: Vec<GoComment>,
    pub markers: Vec<GoMarker>,
    #[serde(rename = "type")]
    pub ty: GoExpr,
    pub exported: bool,
    #[serde(flatten)]
    pub pos: Pos,
}

impl GoField {
    /// The value of the struct tag's `key` (`json:"name,omitempty"` → `name,omitempty`).
    pub fn tag_value(&self, key: &str) -> Option<&str> {
        tag_lookup(&self.tag, key)
    }
}

/// reflect.StructTag.Lookup: `key:"value"` pairs separated by spaces.
fn tag_lookup<'t>(mut tag: &'t str, key: &str) -> Option<&'t str> {
    while !tag.is_empty() {
        tag = tag.trim_start_matches(' ');
        let colon = tag.find(':')?;
        let name = &tag[..colon];
        let rest = tag[colon + 1..].strip_prefix('"')?;
        let mut end = 0;
        let bytes = rest.as_bytes();
        while end < bytes.len() && bytes[end] != b'"' {
            if bytes[end] == b'\\' {
                end += 1;
            }
            end += 1;
        }
        if end >= bytes.len() {
            return None;
        }
        if name == key {
            return Some(&rest[..end]);
        }
        tag = &rest[end + 1..];
    }
    None
}

#[derive(Debug, Clone, Deserialize)]
pub struct GoType {
    pub name: String,
    pub doc: Vec<GoComment>,
    pub markers: Vec<GoMarker>,
    #[serde(rename = "type")]
    pub ty: GoExpr,
    /// `type A = B`.
    pub alias: bool,
    pub generic: bool,
    /// Its package declares `MarshalJSON` on it: its JSON is what that method writes.
    #[serde(rename = "marshalJSON", default)]
    pub marshal_json: bool,
    #[serde(flatten)]
    pub pos: Pos,
}

#[derive(Debug, Clone, Deserialize)]
pub struct GoConst {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: Option<GoExpr>,
    /// The literal: JSON for a string, Go's spelling for a number.
    pub value: String,
    pub doc: Vec<GoComment>,
    #[serde(flatten)]
    pub pos: Pos,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GoPackage {
    /// The import path.
    pub path: String,
    pub name: String,
    pub dir: PathBuf,
    pub module: String,
    pub module_dir: PathBuf,
    /// The module's version (empty for the main module).
    #[serde(default)]
    pub module_version: String,
    /// Matched by the patterns (else loaded because a root's types name it).
    pub root: bool,
    pub markers: Vec<GoMarker>,
    pub types: Vec<GoType>,
    pub consts: Vec<GoConst>,
    errors: Vec<Problem>,
}

impl GoPackage {
    pub fn find(&self, name: &str) -> Option<&GoType> {
        self.types.iter().find(|t| t.name == name)
    }
}

#[derive(Debug, Clone, Deserialize)]
struct Problem {
    message: String,
    #[serde(flatten)]
    pos: Pos,
}

#[derive(Debug, Deserialize)]
struct Output {
    packages: Vec<GoPackage>,
    errors: Vec<Problem>,
}

/// The Go packages `patterns` match in `dir` (a Go module), with every package their types
/// name, outside the standard library.
pub fn load(dir: &Path, patterns: &[String]) -> Result<Vec<GoPackage>> {
    let loader = helper()?;
    let out = Command::new(&loader)
        .arg(dir)
        .args(patterns)
        // The user's Go settings (GOFLAGS, GOWORK...) hold, as for their controller-gen.
        .output()
        .map_err(|e| Error::msg(format!("cannot run {}: {e}", loader.display())))?;
    if !out.status.success() {
        return Err(Error::msg(format!(
            "loading the Go packages failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let output: Output = serde_json::from_slice(&out.stdout)
        .map_err(|e| Error::msg(format!("internal error: the Go loader's output: {e}")))?;
    let mut diags = Diagnostics::default();
    for p in output
        .errors
        .iter()
        .chain(output.packages.iter().flat_map(|p| &p.errors))
    {
        let mut d = Diagnostic::error(p.message.clone());
        if !p.pos.file.as_os_str().is_empty() {
            d = d.at(p.pos.location());
        }
        diags.push(d);
    }
    diags.finish()?;
    if !output.packages.iter().any(|p| p.root) {
        return Err(Error::with_help(
            format!(
                "no Go package matches {} in {}",
                patterns.join(" "),
                dir.display()
            ),
            "pass --paths with the API packages, e.g. --paths ./api/...",
        ));
    }
    Ok(output.packages)
}

/// The loader binary, built on first use into the cache directory.
fn helper() -> Result<PathBuf> {
    let go = which_go()?;
    // Keyed by the source: another opgen with another loader builds its own.
    let mut hasher = std::hash::DefaultHasher::new();
    std::hash::Hash::hash(GOLOAD, &mut hasher);
    let key = std::hash::Hasher::finish(&hasher);
    let dir = cache_dir().join("goload").join(format!("{key:016x}"));
    let bin = dir.join("goload");
    if bin.is_file() {
        return Ok(bin);
    }
    let build = dir.join(format!("src.{}", std::process::id()));
    std::fs::create_dir_all(&build)
        .and_then(|()| std::fs::write(build.join("main.go"), GOLOAD))
        .and_then(|()| std::fs::write(build.join("go.mod"), "module opgen.dev/goload\n\ngo 1.21\n"))
        .map_err(|e| Error::io(&build, e))?;
    let staged = dir.join(format!("goload.{}", std::process::id()));
    let out = Command::new(&go)
        .args(["build", "-o"])
        .arg(&staged)
        .arg(".")
        .current_dir(&build)
        .env("GOTOOLCHAIN", "local")
        .env("GOWORK", "off")
        .env("GOFLAGS", "")
        .output()
        .map_err(|e| Error::msg(format!("cannot run go build: {e}")));
    let _ = std::fs::remove_dir_all(&build);
    let out = out?;
    if !out.status.success() {
        return Err(Error::msg(format!(
            "building opgen's Go loader failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    std::fs::rename(&staged, &bin).map_err(|e| Error::io(&bin, e))?;
    Ok(bin)
}

fn which_go() -> Result<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join("go"))
            .find(|p| p.is_file())
    });
    found.ok_or_else(|| {
        Error::with_help(
            "`opgen import go` needs Go: it loads Go packages with the `go` command, which resolves their modules as controller-gen does, and no `go` is on PATH",
            "install Go 1.21 or newer (https://go.dev/dl/) and put its bin directory on PATH; `opgen import crd` imports CRD YAML without Go",
        )
    })
}

/// `$OPGEN_CACHE_DIR`, else `$XDG_CACHE_HOME/opgen`, else `~/.cache/opgen` (as the tools'
/// setup scripts).
fn cache_dir() -> PathBuf {
    let var = |name| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(dir) = var("OPGEN_CACHE_DIR") {
        return dir;
    }
    if let Some(dir) = var("XDG_CACHE_HOME") {
        return dir.join("opgen");
    }
    var("HOME")
        .map(|h| h.join(".cache"))
        .unwrap_or_else(std::env::temp_dir)
        .join("opgen")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn struct_tags_are_read_as_reflect_reads_them() {
        let tag = r#"json:"name,omitempty" protobuf:"bytes,1,opt,name=name" x:"a\"b""#;
        assert_eq!(tag_lookup(tag, "json"), Some("name,omitempty"));
        assert_eq!(tag_lookup(tag, "protobuf"), Some("bytes,1,opt,name=name"));
        assert_eq!(tag_lookup(tag, "x"), Some(r#"a\"b"#));
        assert_eq!(tag_lookup(tag, "yaml"), None);
        assert_eq!(tag_lookup("json:\"a\"", "json"), Some("a"));
        assert_eq!(tag_lookup("", "json"), None);
    }
}

/// A Go file with controller markers: a controller of kubebuilder's layout
/// (`internal/controller/<kind>_controller.go`) or any file holding `+kubebuilder:rbac`
/// markers, which controller-gen's `rbac` generator reads from every package (`paths="./..."`).
#[derive(Debug, Clone)]
pub struct GoController {
    pub file: PathBuf,
    /// The reconciler type and where its `Reconcile` method is declared.
    pub reconciler: Option<(String, Pos)>,
    /// What `For(&pkg.Kind{})` reconciles: the package's import path and the kind.
    pub reconciles: Option<(String, String)>,
    /// The `+kubebuilder:rbac` markers, in file order.
    pub rbac: Vec<GoMarker>,
    /// The `+kubebuilder:webhook` markers, in file order.
    pub webhooks: Vec<GoMarker>,
}

/// Every Go file below `dir` (not tests, vendored code, testdata or hidden directories) that
/// declares a reconciler or holds `+kubebuilder:rbac` or `+kubebuilder:webhook` markers,
/// sorted by path. Markers are
/// comment lines, as controller-gen collects them; declarations are found by their text
/// (`func (r *XReconciler) Reconcile(`), which is what kubebuilder's scaffold writes.
/// `rbac` and `webhook` name the two markers (the catalog's names, which this layer below the
/// markers does not know).
pub fn controllers(dir: &Path, rbac: &str, webhook: &str) -> Result<Vec<GoController>> {
    static FOR: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\bFor\(\s*&(\w+)\.(\w+)\{\}").expect("a valid pattern")
    });
    static RECONCILE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"^func \(\w+ \*(\w+)\) Reconcile\(").expect("a valid pattern")
    });
    let mut out = Vec::new();
    let walk = walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            e.depth() == 0
                || !(name.starts_with('.')
                    || name.starts_with('_')
                    || matches!(name.as_ref(), "vendor" | "testdata" | "node_modules"))
        });
    for entry in walk {
        let entry = entry.map_err(|e| Error::msg(format!("{}: {e}", dir.display())))?;
        let name = entry.file_name().to_string_lossy();
        if !entry.file_type().is_file() || !name.ends_with(".go") || name.ends_with("_test.go") {
            continue;
        }
        let file = entry.path().to_path_buf();
        let text = std::fs::read_to_string(&file)
            .map_err(|e| Error::msg(format!("{}: {e}", file.display())))?;
        let pos = |line: usize, col: usize| Pos {
            file: file.clone(),
            line,
            col,
        };
        let mut found = GoController {
            file: file.clone(),
            reconciler: None,
            reconciles: None,
            rbac: Vec::new(),
            webhooks: Vec::new(),
        };
        for (i, line) in text.lines().enumerate() {
            let trimmed = line.trim_start();
            if let Some(comment) = trimmed.strip_prefix("//") {
                let marker = comment.trim();
                let is = |name: &str| {
                    marker
                        .strip_prefix('+')
                        .and_then(|m| m.strip_prefix(name))
                        .is_some_and(|rest| rest.starts_with(':'))
                };
                let list = if is(rbac) {
                    Some(&mut found.rbac)
                } else if is(webhook) {
                    Some(&mut found.webhooks)
                } else {
                    None
                };
                if let Some(list) = list {
                    list.push(GoMarker {
                        text: marker.to_owned(),
                        pos: pos(i + 1, line.len() - trimmed.len() + 1),
                        godoc: false,
                    });
                }
            } else if let Some(c) = RECONCILE.captures(line) {
                found.reconciler = Some((c[1].to_owned(), pos(i + 1, 1)));
            }
        }
        if let Some(c) = FOR.captures(&text)
            && let Some(path) = import_path(&text, &c[1])
        {
            found.reconciles = Some((path, c[2].to_owned()));
        }
        if found.reconciler.is_some() || !found.rbac.is_empty() || !found.webhooks.is_empty() {
            out.push(found);
        }
    }
    Ok(out)
}

/// The import path `alias` names in a Go file's imports (an explicit alias, or the path's
/// last element).
fn import_path(text: &str, alias: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let line = line.trim().trim_start_matches("import").trim();
        let (name, rest) = match line.split_once('"') {
            Some((name, rest)) => (name.trim(), rest),
            None => return None,
        };
        let path = rest.split('"').next()?;
        let implied = path.rsplit('/').next()?;
        (name == alias || (name.is_empty() && implied == alias)).then(|| path.to_owned())
    })
}

/// The Go project's samples (`config/samples/*.yaml` but its kustomization), by file name.
pub fn samples(dir: &Path) -> Result<Vec<(String, String)>> {
    let Ok(entries) = std::fs::read_dir(dir.join("config/samples")) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for entry in entries {
        let path = entry
            .map_err(|e| Error::msg(format!("{}: {e}", dir.display())))?
            .path();
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        if name.ends_with(".yaml") && name != "kustomization.yaml" {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| Error::msg(format!("{}: {e}", path.display())))?;
            out.push((name, text));
        }
    }
    out.sort();
    Ok(out)
}

/// A conversion the Go project's PROJECT file declares: the kind's full group, its hub
/// version and kind, and the spokes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoConversion {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub spokes: Vec<String>,
}

/// What a kubebuilder project's PROJECT file says beyond its API packages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GoProject {
    /// A namespace-scoped manager (`namespaced: true`: Roles, not ClusterRoles).
    pub namespaced: bool,
    /// The conversion webhooks (`webhooks.conversion` with its `spoke` versions).
    pub conversions: Vec<GoConversion>,
}

/// The Go project's PROJECT file (kubebuilder's), the default without one.
pub fn go_project(dir: &Path) -> Result<GoProject> {
    let path = dir.join("PROJECT");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(GoProject::default());
    };
    let doc: serde_json::Value = serde_saphyr::from_str(&text)
        .map_err(|e| Error::msg(format!("{}: {e}", path.display())))?;
    let str_of = |v: &serde_json::Value, key: &str| {
        v.get(key)
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let resources = doc
        .get("resources")
        .and_then(serde_json::Value::as_array)
        .cloned()
        .unwrap_or_default();
    let conversions = resources
        .iter()
        .filter_map(|r| {
            let hooks = r.get("webhooks")?;
            if hooks.get("conversion")?.as_bool() != Some(true) {
                return None;
            }
            let (group, domain) = (str_of(r, "group"), str_of(r, "domain"));
            Some(GoConversion {
                group: [group, domain]
                    .into_iter()
                    .filter(|s| !s.is_empty())
                    .collect::<Vec<_>>()
                    .join("."),
                version: str_of(r, "version"),
                kind: str_of(r, "kind"),
                spokes: hooks
                    .get("spoke")
                    .and_then(serde_json::Value::as_array)
                    .map(|s| {
                        s.iter()
                            .filter_map(|v| v.as_str().map(str::to_owned))
                            .collect()
                    })
                    .unwrap_or_default(),
            })
        })
        .collect();
    Ok(GoProject {
        namespaced: doc.get("namespaced").and_then(serde_json::Value::as_bool) == Some(true),
        conversions,
    })
}
