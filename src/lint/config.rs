//! The project's lint configuration: `[package.metadata.opgen.lint]` in Cargo.toml, beside the
//! code it is about, read by cargo's own TOML parser so that a mistake is an error at its line.
//!
//! ```toml
//! [package.metadata.opgen.lint]
//! enable = ["nobools"]            # rules that are off by default
//! disable = ["commentstart"]      # "*" turns off every rule `enable` does not name
//! [[package.metadata.opgen.lint.exceptions]]
//! rule = "nofloats"
//! field = "ScalerSpec.ratio"      # Type.rust_field, or Type for a finding on the type
//! reason = "the ratio is a float in the upstream API we mirror"
//! [package.metadata.opgen.lint.rules.forbiddenmarkers]   # a rule's settings (`settings.rs`)
//! markers = [{ identifier = "kubebuilder:validation:XEmbeddedResource" }]
//! ```

use super::{Finding, Rule, Settings, rules};
use crate::diag::{Diagnostic, Error, Location, Result};
use std::collections::BTreeSet;
use std::ops::Range;
use std::path::Path;
use toml_edit::{Document, Item, Value};

#[derive(Debug, Clone, Default)]
pub struct Config {
    enable: BTreeSet<String>,
    disable: BTreeSet<String>,
    pub exceptions: Vec<Exception>,
    /// `[package.metadata.opgen.lint.rules.<rule>]`.
    pub settings: Settings,
}

/// A finding the project accepts, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exception {
    pub rule: String,
    /// `Type.rust_field`, or `Type`.
    pub field: String,
    pub reason: String,
    /// Where Cargo.toml gives it.
    pub at: Option<Location>,
}

impl Config {
    /// The configuration in the manifest `text` (at `path`, for messages); the defaults when it
    /// has no `[package.metadata.opgen.lint]`.
    pub fn parse(path: &Path, text: &str) -> Result<Config> {
        let doc = Document::parse(text.to_owned()).map_err(|e| {
            let d = Diagnostic::error(format!(
                "{} is not valid TOML: {}",
                path.display(),
                e.message()
            ));
            Error::new(match e.span() {
                Some(span) => d.at(location(path, text, span)),
                None => d,
            })
        })?;
        let Some(lint) = ["package", "metadata", "opgen", "lint"]
            .iter()
            .try_fold(doc.as_item(), |item, key| item.get(key))
        else {
            return Ok(Config::default());
        };
        let mut reader = Reader {
            path,
            text,
            errors: Vec::new(),
        };
        let mut config = reader.config(lint);
        if reader.errors.is_empty() {
            match super::settings::parse(text) {
                Ok(settings) => config.settings = settings,
                Err((message, span)) => reader.error(
                    span,
                    format!("in [package.metadata.opgen.lint.rules]: {}", message.trim()),
                    "each table is a rule's settings, with kube-api-linter's keys; `opgen lint --help` shows them",
                ),
            }
        }
        if reader.errors.is_empty() {
            Ok(config)
        } else {
            Err(Error::many(reader.errors))
        }
    }

    pub fn enabled(&self, rule: &Rule) -> bool {
        if self.enable.contains(rule.name) {
            return true;
        }
        if self.disable.contains(rule.name) || self.disable.contains("*") {
            return false;
        }
        rule.default || self.enable.contains("*")
    }

    /// The index of the exception that accepts `f`, if one does.
    pub fn exception_for(&self, f: &Finding) -> Option<usize> {
        let at = match &f.rust_field {
            Some(field) => format!("{}.{field}", f.type_name),
            None => f.type_name.clone(),
        };
        self.exceptions
            .iter()
            .position(|e| e.rule == f.rule && e.field == at)
    }

    /// Turns rules on or off over what the manifest says (the command line's `--enable`).
    pub fn enable_only(&mut self, names: &[String]) {
        self.disable = BTreeSet::from(["*".to_owned()]);
        self.enable = names.iter().cloned().collect();
    }
}

struct Reader<'a> {
    path: &'a Path,
    text: &'a str,
    errors: Vec<Diagnostic>,
}

impl Reader<'_> {
    fn error(&mut self, span: Option<Range<usize>>, message: String, help: &str) {
        let mut d = Diagnostic::error(message).help(help);
        if let Some(span) = span {
            d = d.at(location(self.path, self.text, span));
        }
        self.errors.push(d);
    }

    fn config(&mut self, lint: &Item) -> Config {
        let mut config = Config::default();
        let Some(table) = lint.as_table_like() else {
            self.error(
                lint.span(),
                "[package.metadata.opgen.lint] must be a table".to_owned(),
                "write it as a table with enable, disable, exceptions and rules",
            );
            return config;
        };
        for (key, item) in table.iter() {
            match key {
                "enable" => config.enable = self.rule_names(item, "enable"),
                "disable" => config.disable = self.rule_names(item, "disable"),
                "exceptions" => config.exceptions = self.exceptions(item),
                // Read with serde once the rest is valid (`settings::parse`).
                "rules" => {}
                other => self.error(
                    item.span()
                        .or_else(|| table.get_key_value(other).and_then(|(k, _)| k.span())),
                    format!("unknown key `{other}` in [package.metadata.opgen.lint]"),
                    "the keys are enable, disable, exceptions and rules",
                ),
            }
        }
        config
    }

    fn rule_names(&mut self, item: &Item, key: &str) -> BTreeSet<String> {
        let mut names = BTreeSet::new();
        let Some(array) = item.as_array() else {
            self.error(
                item.span(),
                format!("`{key}` must be an array of rule names"),
                "e.g. [\"nobools\"]; `opgen lint --list` lists the rules",
            );
            return names;
        };
        for value in array.iter() {
            match value.as_str() {
                Some(name) if name == "*" || super::rule(name).is_some() => {
                    names.insert(name.to_owned());
                }
                _ => self.error(
                    value.span(),
                    format!("`{key}` names no rule: {}", value.to_string().trim()),
                    &known_rules(),
                ),
            }
        }
        names
    }

    fn exceptions(&mut self, item: &Item) -> Vec<Exception> {
        let tables: Vec<(&dyn toml_edit::TableLike, Option<Range<usize>>)> = match item {
            Item::ArrayOfTables(a) => a
                .iter()
                .map(|t| (t as &dyn toml_edit::TableLike, t.span()))
                .collect(),
            Item::Value(Value::Array(a)) => a
                .iter()
                .filter_map(|v| {
                    v.as_inline_table()
                        .map(|t| (t as &dyn toml_edit::TableLike, v.span()))
                })
                .collect(),
            _ => {
                self.error(
                    item.span(),
                    "`exceptions` must be an array of tables".to_owned(),
                    "write [[package.metadata.opgen.lint.exceptions]] with rule, field and reason",
                );
                return Vec::new();
            }
        };
        let mut out = Vec::new();
        for (table, span) in tables {
            let text = |key: &str| table.get(key).and_then(|i| i.as_str()).map(str::to_owned);
            let (rule, field, reason) = (text("rule"), text("field"), text("reason"));
            let Some(rule) = rule.filter(|r| super::rule(r).is_some()) else {
                self.error(
                    table.get("rule").and_then(Item::span).or(span),
                    "an exception must name its rule: `rule` is missing or no rule's name"
                        .to_owned(),
                    &known_rules(),
                );
                continue;
            };
            let Some(field) = field.filter(|f| !f.is_empty()) else {
                self.error(
                    span,
                    format!("the exception to {rule} names no `field`"),
                    "field = \"Type.rust_field\", or \"Type\" for a finding on the type",
                );
                continue;
            };
            let Some(reason) = reason.filter(|r| !r.trim().is_empty()) else {
                self.error(
                    span,
                    format!("the exception to {rule} at {field} gives no `reason`"),
                    "say why the convention does not apply here: reason = \"...\"",
                );
                continue;
            };
            out.push(Exception {
                rule,
                field,
                reason,
                at: span.map(|span| location(self.path, self.text, span)),
            });
        }
        out
    }
}

fn known_rules() -> String {
    let names: Vec<&str> = rules().iter().map(|r| r.name).collect();
    format!("the rules are {}", names.join(", "))
}

fn location(path: &Path, text: &str, span: Range<usize>) -> Location {
    let before = &text[..span.start.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    Location::new(path, line, column).with_source(text, span.len())
}
