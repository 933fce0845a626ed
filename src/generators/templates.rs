//! The handlebars templates, embedded in the binary so that opgen works offline.
//!
//! Every file under `templates/` ending in `.hbs` is a template named by its path relative to
//! `templates/` without the extension (`project/Cargo.toml`). Templates are parsed on first
//! use: parsing all of them costs more than a whole `opgen manifests` run otherwise needs.
//! Rendering is strict: a template that names a missing variable is an error.
//!
//! Earlier scaffold generations' templates are embedded too (`data/upgrade/scaffold-<n>/`):
//! `opgen upgrade` renders what an earlier opgen wrote for a project by running today's plan
//! code inside [`with_generation`].

use crate::diag::{Error, Result};
use crate::project::SCAFFOLD_VERSION;
use handlebars::Handlebars;
use include_dir::{Dir, include_dir};
use serde::Serialize;
use std::cell::Cell;
use std::sync::{Mutex, OnceLock};

static TEMPLATE_DIR: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/templates");
/// The templates of scaffold generation 1 (opgen 0.1.0 before opgen-runtime), as of 960d21b.
static GENERATION_1: Dir<'_> =
    include_dir!("$CARGO_MANIFEST_DIR/data/upgrade/scaffold-1/templates");
/// The templates of scaffold generation 2 (opgen-runtime and opgen-envtest as path dependencies
/// on `vendor/`), as of d82e7a7.
static GENERATION_2: Dir<'_> =
    include_dir!("$CARGO_MANIFEST_DIR/data/upgrade/scaffold-2/templates");
/// The templates of scaffold generation 3 (the crates by version; dependencies built with debug
/// info), as of b29cc35.
static GENERATION_3: Dir<'_> =
    include_dir!("$CARGO_MANIFEST_DIR/data/upgrade/scaffold-3/templates");

/// The templates of scaffold generation 4 (dependencies without debug info; one envtest test
/// binary per kind and webhook, each with its own control plane), as of 067416f.
static GENERATION_4: Dir<'_> =
    include_dir!("$CARGO_MANIFEST_DIR/data/upgrade/scaffold-4/templates");

/// The templates of scaffold generation 5 (one envtest test binary, tests/envtest/, on one
/// control plane), as of b3ba39b.
static GENERATION_5: Dir<'_> =
    include_dir!("$CARGO_MANIFEST_DIR/data/upgrade/scaffold-5/templates");

/// The templates of scaffold generation 6 (controller unit tests on a fake API server; no
/// `make lint-api`, `verify-api` or `docs`), as of 8f6a17e.
static GENERATION_6: Dir<'_> =
    include_dir!("$CARGO_MANIFEST_DIR/data/upgrade/scaffold-6/templates");

/// The templates of scaffold generation 7 (`make lint-api`, `verify-api` and `docs`; the
/// conversion test waiting on the API server alone), as of 7ae0dc8.
static GENERATION_7: Dir<'_> =
    include_dir!("$CARGO_MANIFEST_DIR/data/upgrade/scaffold-7/templates");

/// The templates of scaffold generation 8 (the default release profile; the README's owned
/// children watched whole only), as of 3a7f8de.
static GENERATION_8: Dir<'_> =
    include_dir!("$CARGO_MANIFEST_DIR/data/upgrade/scaffold-8/templates");

thread_local! {
    static GENERATION: Cell<u32> = const { Cell::new(SCAFFOLD_VERSION) };
}

/// Runs `f` with the templates of scaffold generation `generation` (1..=SCAFFOLD_VERSION).
/// A scoped choice rather than a parameter so that the plans render an earlier scaffold
/// through exactly the code `init` and `create` run.
pub fn with_generation<R>(generation: u32, f: impl FnOnce() -> R) -> R {
    struct Restore(u32);
    impl Drop for Restore {
        fn drop(&mut self) {
            GENERATION.with(|g| g.set(self.0));
        }
    }
    let _restore = Restore(GENERATION.with(|g| g.replace(generation)));
    f()
}

/// The scaffold generation being rendered on this thread.
pub fn generation() -> u32 {
    GENERATION.with(Cell::get)
}

fn template_dir() -> &'static Dir<'static> {
    match generation() {
        1 => &GENERATION_1,
        2 => &GENERATION_2,
        3 => &GENERATION_3,
        4 => &GENERATION_4,
        5 => &GENERATION_5,
        6 => &GENERATION_6,
        7 => &GENERATION_7,
        8 => &GENERATION_8,
        _ => &TEMPLATE_DIR,
    }
}

fn registry() -> &'static Mutex<Handlebars<'static>> {
    static REGISTRY: OnceLock<Mutex<Handlebars<'static>>> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let mut hb = Handlebars::new();
        hb.set_strict_mode(true);
        hb.register_escape_fn(handlebars::no_escape);
        Mutex::new(hb)
    })
}

fn source(name: &str) -> Option<&'static str> {
    template_dir()
        .get_file(format!("{name}.hbs"))
        .and_then(|f| f.contents_utf8())
}

/// Renders the template `name` (e.g. `project/Cargo.toml`) with `data`.
pub fn render(name: &str, data: &impl Serialize) -> Result<String> {
    let internal = |what: String| Error::msg(format!("internal error: template {name} {what}"));
    if let Some(text) = source(name)
        && let Ok(value) = serde_json::to_value(data)
        && let Some(out) = render_plain(text, &value)
    {
        return Ok(out);
    }
    let mut hb = registry()
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let key = match generation() {
        SCAFFOLD_VERSION => name.to_owned(),
        earlier => format!("scaffold-{earlier}/{name}"),
    };
    if !hb.has_template(&key) {
        let text = source(name).ok_or_else(|| internal("is missing".into()))?;
        hb.register_template_string(&key, text)
            .map_err(|e| internal(format!("does not parse: {e}")))?;
    }
    hb.render(&key, data)
        .map_err(|e| internal(format!("failed to render: {e}")))
}

/// A template made only of `{{name}}` placeholders with text values (the helper roles, most of
/// config/) rendered without handlebars, whose template compiler costs more than the rest of
/// a one-kind `opgen manifests`. `None` for anything else (blocks, partials, triple braces,
/// paths, a missing or non-text value): handlebars renders it, strictly.
fn render_plain(text: &str, data: &serde_json::Value) -> Option<String> {
    use serde_json::Value;
    let mut out = String::with_capacity(text.len() + 64);
    let mut rest = text;
    while let Some(at) = rest.find("{{") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let end = after.find("}}")?;
        let name = after[..end].trim();
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return None;
        }
        match data.get(name)? {
            Value::String(s) => out.push_str(s),
            Value::Number(n) => out.push_str(&n.to_string()),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            _ => return None,
        }
        rest = &after[end + 2..];
    }
    if rest.contains("}}") {
        return None;
    }
    out.push_str(rest);
    Some(out)
}

/// Names of every embedded template, sorted.
pub fn names() -> Vec<String> {
    let mut names = Vec::new();
    let mut pending = vec![&TEMPLATE_DIR];
    while let Some(dir) = pending.pop() {
        pending.extend(dir.dirs());
        for file in dir.files() {
            if let Some(name) = file.path().to_string_lossy().strip_suffix(".hbs") {
                names.push(name.to_owned());
            }
        }
    }
    names.sort_unstable();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_templates_render_as_handlebars_does() {
        let data = serde_json::json!({"project_name": "demo", "plural": "memcacheds", "api_group": "cache.example.com", "role_prefix": "demo-memcached", "n": 3, "yes": true});
        let mut hb = Handlebars::new();
        hb.set_strict_mode(true);
        hb.register_escape_fn(handlebars::no_escape);
        let text = source("api/viewer_role.yaml").unwrap();
        let plain = render_plain(text, &data).expect("the viewer role is plain");
        assert_eq!(plain, hb.render_template(text, &data).unwrap());
        assert_eq!(
            render_plain("{{n}} {{yes}} {{ plural }}", &data).unwrap(),
            "3 true memcacheds"
        );
        // Anything else is left to handlebars.
        for other in [
            "{{#if yes}}x{{/if}}",
            "{{{plural}}}",
            "{{missing}}",
            "{{a.b}}",
            "{{> p}}",
            "x }} y",
        ] {
            assert_eq!(render_plain(other, &data), None, "{other}");
        }
    }

    #[test]
    fn every_template_parses() {
        let names = names();
        assert!(names.len() > 40, "{names:?}");
        let mut hb = Handlebars::new();
        for name in &names {
            let text = source(name).unwrap_or_else(|| panic!("{name} is not UTF-8"));
            hb.register_template_string(name, text)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }

    #[test]
    fn missing_variables_are_errors() {
        let err = render("api/sample.yaml", &serde_json::json!({})).unwrap_err();
        assert!(err.to_string().contains("failed to render"), "{err}");
    }
}
