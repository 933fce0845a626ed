//! `opgen markers [name]`: the marker catalog as help text.

use crate::diag::{Error, Result};
use crate::markers::catalog::{Args as MarkerArgs, MarkerCatalog, MarkerDef};
use std::fmt::Write;

/// List the markers opgen understands, or explain one
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  opgen markers\n  opgen markers kubebuilder:validation:MaxLength\n  opgen markers rbac"
)]
pub struct Args {
    /// A marker name, or part of one
    pub name: Option<String>,
}

pub fn run(args: Args) -> Result<()> {
    let catalog = MarkerCatalog::get();
    let visible = catalog.all().iter().filter(|d| !d.items);
    let Some(query) = args.name else {
        let mut out = String::new();
        for d in visible {
            let _ = writeln!(out, "+{:<48} {}", usage(d), first_sentence(&d.help));
        }
        print!("{out}");
        return Ok(());
    };
    let query = query.trim_start_matches('+');
    if let Some(d) = catalog.lookup(query) {
        print!("{}", describe(d));
        return Ok(());
    }
    let matches: Vec<&MarkerDef> = visible
        .filter(|d| d.name.to_lowercase().contains(&query.to_lowercase()))
        .collect();
    if matches.is_empty() {
        let help = catalog
            .suggest(query)
            .map(|s| format!("did you mean `{s}`?"))
            .unwrap_or_else(|| "run `opgen markers` for the full list".to_owned());
        return Err(Error::with_help(
            format!("no marker matches {query:?}"),
            help,
        ));
    }
    for d in matches {
        println!("{}", describe(d));
    }
    Ok(())
}

/// The help up to the first full stop that ends a sentence: not the one of an abbreviation
/// such as "e.g." or "i.e.".
fn first_sentence(help: &str) -> &str {
    let mut from = 0;
    while let Some(at) = help[from..].find(". ").map(|i| from + i) {
        let word = help[..at].rsplit(' ').next().unwrap_or_default();
        if !matches!(word, "e.g" | "i.e" | "etc" | "vs" | "cf") {
            return &help[..at];
        }
        from = at + 2;
    }
    help
}

fn usage(d: &MarkerDef) -> String {
    match &d.args {
        MarkerArgs::None => d.name.clone(),
        MarkerArgs::Value(_) => format!("{}=<value>", d.name),
        MarkerArgs::Fields(fields) => {
            let parts: Vec<String> = fields.iter().map(|f| format!("{}=", f.name)).collect();
            format!("{}:{}", d.name, parts.join(","))
        }
    }
}

fn describe(d: &MarkerDef) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "+{}", d.name);
    let _ = writeln!(out, "  {}", d.help);
    let targets: Vec<&str> = d.targets.iter().map(|t| t.describe()).collect();
    let _ = writeln!(out, "  on: {}", targets.join(", "));
    match &d.args {
        MarkerArgs::None => {
            let _ = writeln!(out, "  takes no arguments");
        }
        MarkerArgs::Value(t) => {
            let _ = writeln!(out, "  value: {}", t.describe());
        }
        MarkerArgs::Fields(fields) => {
            for f in fields {
                let opt = if f.optional { " (optional)" } else { "" };
                let _ = writeln!(out, "  {}: {}{opt}", f.name, f.ty.describe());
            }
        }
    }
    if d.repeatable {
        let _ = writeln!(out, "  may be repeated");
    }
    if d.ignored {
        let _ = writeln!(out, "  accepted and ignored by opgen");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::first_sentence;

    #[test]
    fn summaries_do_not_stop_at_abbreviations() {
        assert_eq!(
            first_sentence("Sets a default, e.g. 3 or \"TCP\". More text."),
            "Sets a default, e.g. 3 or \"TCP\""
        );
        assert_eq!(
            first_sentence("One sentence, i.e. all of it."),
            "One sentence, i.e. all of it."
        );
        assert_eq!(first_sentence("First. Second."), "First");
    }
}
