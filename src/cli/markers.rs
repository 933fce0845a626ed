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
            let _ = writeln!(out, "+{:<48} {}", usage(d), first_sentence(d.help));
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
/// such as "(e.g." or "i.e.", nor one inside parentheses.
fn first_sentence(help: &str) -> &str {
    let mut from = 0;
    while let Some(at) = help[from..].find(". ").map(|i| from + i) {
        let before = &help[..at];
        let word = before
            .rsplit(' ')
            .next()
            .unwrap_or_default()
            .trim_start_matches(['(', '`', '"', '\'']);
        let open = before.matches('(').count() > before.matches(')').count();
        if !open && !matches!(word, "e.g" | "i.e" | "etc" | "vs" | "cf") {
            return before;
        }
        from = at + 2;
    }
    help
}

fn usage(d: &MarkerDef) -> String {
    match &d.args {
        MarkerArgs::None => d.name.to_owned(),
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
            for f in *fields {
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
        assert_eq!(
            first_sentence("Default value as JSON (e.g. `{\"a\": 1}`). More."),
            "Default value as JSON (e.g. `{\"a\": 1}`)"
        );
        assert_eq!(
            first_sentence("No effect (kinds are found through X. Y). More."),
            "No effect (kinds are found through X. Y)"
        );
    }

    /// Issue #23 items 3 and 11: every summary `opgen markers` lists is a whole sentence.
    #[test]
    fn no_catalog_summary_is_cut_short() {
        for d in crate::markers::catalog::MarkerCatalog::get().all() {
            // (An unquoted ` #` in catalog.yaml starts a YAML comment: `Same as #[kube(...)]`.)
            assert!(
                d.help.trim_end().ends_with(['.', ')', '`']),
                "the help of {} ends mid-sentence: {:?}",
                d.name,
                d.help
            );
            let summary = first_sentence(d.help);
            let word = summary.rsplit(' ').next().unwrap_or_default();
            assert!(
                summary.matches('(').count() == summary.matches(')').count()
                    && !["(e.g", "e.g", "i.e", "as", "Same"].contains(&word),
                "the summary of {} is cut short: {summary:?}",
                d.name
            );
        }
    }
}
