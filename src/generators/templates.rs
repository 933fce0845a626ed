//! The handlebars templates, embedded in the binary so that opgen works offline.
//!
//! Every file under `templates/` ending in `.hbs` is registered under its path relative to
//! `templates/` without the extension (`project/Cargo.toml`). Rendering is strict: a
//! template that names a missing variable is an error, not an empty string.

use crate::diag::{Error, Result};
use handlebars::Handlebars;
use include_dir::{Dir, include_dir};
use serde::Serialize;
use std::sync::OnceLock;

static TEMPLATE_DIR: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/templates");

fn registry() -> &'static Handlebars<'static> {
    static REGISTRY: OnceLock<Handlebars<'static>> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let mut hb = Handlebars::new();
        hb.set_strict_mode(true);
        hb.register_escape_fn(handlebars::no_escape);
        let mut pending = vec![&TEMPLATE_DIR];
        while let Some(dir) = pending.pop() {
            pending.extend(dir.dirs());
            for file in dir.files() {
                let path = file.path().to_string_lossy();
                let Some(name) = path.strip_suffix(".hbs") else {
                    continue;
                };
                let text = file
                    .contents_utf8()
                    .unwrap_or_else(|| panic!("template {path} is not UTF-8"));
                hb.register_template_string(name, text)
                    .unwrap_or_else(|e| panic!("template {path} does not parse: {e}"));
            }
        }
        hb
    })
}

/// Renders the template `name` (e.g. `project/Cargo.toml`) with `data`.
pub fn render(name: &str, data: &impl Serialize) -> Result<String> {
    registry().render(name, data).map_err(|e| {
        Error::msg(format!(
            "internal error: template {name} failed to render: {e}"
        ))
    })
}

/// Names of every embedded template, sorted.
pub fn names() -> Vec<&'static str> {
    let mut names: Vec<&str> = registry()
        .get_templates()
        .keys()
        .map(String::as_str)
        .collect();
    names.sort_unstable();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_template_parses() {
        // registry() panics on a template that does not parse.
        assert!(!names().is_empty());
    }
}
