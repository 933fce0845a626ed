//! **load** for `opgen import crd`: CustomResourceDefinitions read from YAML files, directories
//! (every `.yaml`/`.yml` below them, in name order) and standard input (`-`). Each document is
//! parsed alone, so a YAML error is reported at its file:line:col and a document's start line
//! locates what later stages say of it. Documents of other kinds are skipped.

use crate::diag::{Diagnostic, Diagnostics, Error, Location, Result};
use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};

/// One CustomResourceDefinition document.
#[derive(Debug, Clone)]
pub struct CrdDocument {
    /// The file as given on the command line (`<stdin>` for `-`).
    pub source: PathBuf,
    /// The 1-based line the document starts on.
    pub line: usize,
    pub object: Value,
}

impl CrdDocument {
    pub fn location(&self) -> Location {
        Location::new(&self.source, self.line, 1)
    }
}

/// Every CRD in `inputs`; `-` reads standard input. All YAML errors at once.
pub fn read(inputs: &[PathBuf]) -> Result<Vec<CrdDocument>> {
    let mut files: Vec<(PathBuf, String)> = Vec::new();
    for input in inputs {
        if input.as_os_str() == "-" {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .map_err(|e| Error::msg(format!("cannot read standard input: {e}")))?;
            files.push((PathBuf::from("<stdin>"), text));
        } else if input.is_dir() {
            let mut found: Vec<PathBuf> = walkdir::WalkDir::new(input)
                .sort_by_file_name()
                .into_iter()
                .filter_map(|e| e.ok())
                .filter(|e| e.file_type().is_file())
                .map(|e| e.into_path())
                .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
                .collect();
            found.sort();
            for path in found {
                let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
                files.push((path, text));
            }
        } else {
            let text = std::fs::read_to_string(input).map_err(|e| Error::io(input, e))?;
            files.push((input.clone(), text));
        }
    }
    let mut diags = Diagnostics::default();
    let mut docs = Vec::new();
    for (path, text) in &files {
        match parse(path, text) {
            Ok(found) => docs.extend(found),
            Err(e) => diags.extend(e),
        }
    }
    if diags.has_errors() {
        diags.finish()?;
    }
    Ok(docs)
}

/// The CRD documents of one YAML stream.
pub fn parse(path: &Path, text: &str) -> Result<Vec<CrdDocument>> {
    let mut docs = Vec::new();
    for (start, chunk) in documents(text) {
        let has_content = chunk.lines().any(|l| {
            let t = l.trim();
            !t.is_empty() && !t.starts_with('#') && t != "..."
        });
        if !has_content {
            continue;
        }
        let value: Value = serde_saphyr::from_str(&chunk).map_err(|e| {
            let (line, column) = e
                .location()
                .map(|l| (l.line() as usize, l.column() as usize))
                .unwrap_or((start, 1));
            let at = Location::new(path, line.max(1), column.max(1)).with_source(text, 1);
            Error::new(Diagnostic::error(format!("not valid YAML: {}", e.without_snippet())).at(at))
        })?;
        let is_crd = value.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition")
            && value
                .get("apiVersion")
                .and_then(Value::as_str)
                .is_some_and(|a| a.starts_with("apiextensions.k8s.io/"));
        if is_crd {
            docs.push(CrdDocument {
                source: path.to_path_buf(),
                line: start,
                object: value,
            });
        }
    }
    Ok(docs)
}

/// The documents of a YAML stream: (the line the document's content starts on, its text with
/// the lines before it blanked, so that parser locations are lines of the whole file).
fn documents(text: &str) -> Vec<(usize, String)> {
    crate::yaml::split_documents(text)
        .into_iter()
        .map(|(start, doc)| (start, format!("{}{doc}", "\n".repeat(start - 1))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_keep_their_lines() {
        let docs = documents("a: 1\n---\nb: 2\n");
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[1].0, 3);
        assert_eq!(docs[1].1, "\n\nb: 2\n");
    }

    #[test]
    fn yaml_errors_are_located() {
        let err = parse(
            Path::new("x.yaml"),
            "kind: CustomResourceDefinition\n---\nspec: [\n  a: b\n",
        )
        .unwrap_err();
        let at = err.diagnostics[0].location.clone().expect("located");
        assert!(at.line >= 3, "{at:?}");
    }
}
