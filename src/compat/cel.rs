//! `x-kubernetes-validations` of one schema node, old against new. Rules are matched by their
//! text with insignificant spaces removed; an unmatched pair is reasoned about through its
//! top-level `&&` conjuncts (the new rule the old one and more: tightened; fewer: loosened).
//!
//! When a rule runs decides what adding it does (KEP-2876, KEP-4008): a rule without `oldSelf`
//! checks every create and update (on update the API server ratchets it: a value that did not
//! change is not checked); a transition rule (`oldSelf`) runs only on updates where the old
//! value exists, never on create, unless `optionalOldSelf` makes it run there too.

use super::{Rule, Severity, Sink, Strictness};
use serde_json::Value;

struct CelRule<'v> {
    value: &'v Value,
    /// The rule without insignificant spaces.
    text: String,
}

impl CelRule<'_> {
    /// A transition rule that create never runs.
    fn update_only(&self) -> bool {
        mentions_old_self(&self.text) && self.value["optionalOldSelf"] != true
    }
}

fn rules(list: &Value) -> Vec<CelRule<'_>> {
    list.as_array()
        .into_iter()
        .flatten()
        .map(|r| CelRule {
            value: r,
            text: normalize(r["rule"].as_str().unwrap_or_default()),
        })
        .collect()
}

pub(super) fn compare(old: &Value, new: &Value, path: &str, sink: &mut Sink) {
    let (old, new) = (rules(old), rules(new));
    let mut unmatched_old: Vec<&CelRule> = Vec::new();
    for o in &old {
        match new.iter().find(|n| n.text == o.text) {
            Some(n) => same_rule(o, n, path, sink),
            None => unmatched_old.push(o),
        }
    }
    let mut unmatched_new: Vec<&CelRule> = new
        .iter()
        .filter(|n| !old.iter().any(|o| o.text == n.text))
        .collect();
    // A rule rewritten as a conjunction of the old one and more (or less).
    unmatched_old.retain(|o| {
        let found = unmatched_new.iter().position(|n| {
            let (oc, nc) = (conjuncts(&o.text), conjuncts(&n.text));
            subset(&oc, &nc) || subset(&nc, &oc)
        });
        let Some(at) = found else { return true };
        let n = unmatched_new.remove(at);
        conjunction_changed(o, n, path, sink);
        false
    });
    if let ([o], [n]) = (unmatched_old.as_slice(), unmatched_new.as_slice()) {
        sink.push(
            Some(path),
            Rule::CelRuleChanged,
            Severity::PossiblyBreaking,
            Strictness::Wire,
            format!(
                "CEL rule {:?} -> {:?}: values the old rule accepts may be refused",
                rule_text(o),
                rule_text(n)
            ),
        );
        return;
    }
    for n in unmatched_new {
        let (severity, why) = if n.update_only() {
            (
                Severity::PossiblyBreaking,
                "a transition rule: creates are not checked, updates of existing objects are",
            )
        } else {
            (
                Severity::Breaking,
                "objects it refuses can no longer be created (stored ones are ratcheted: updates that leave the value unchanged still pass)",
            )
        };
        sink.push(
            Some(path),
            Rule::CelRuleAdded,
            severity,
            Strictness::Wire,
            format!("CEL rule {:?} added: {why}", rule_text(n)),
        );
    }
    for o in unmatched_old {
        sink.push(
            Some(path),
            Rule::CelRuleRemoved,
            Severity::Compatible,
            Strictness::Wire,
            format!("CEL rule {:?} removed", rule_text(o)),
        );
    }
}

fn rule_text<'v>(rule: &CelRule<'v>) -> &'v str {
    rule.value["rule"].as_str().unwrap_or_default()
}

/// The same rule text on both sides: what changed around it.
fn same_rule(old: &CelRule, new: &CelRule, path: &str, sink: &mut Sink) {
    if old.value == new.value {
        return;
    }
    let text = rule_text(new);
    if old.update_only() && !new.update_only() {
        sink.push(
            Some(path),
            Rule::CelRuleTightened,
            Severity::Breaking,
            Strictness::Wire,
            format!("CEL rule {text:?} now has optionalOldSelf: it checks creates too"),
        );
    } else if !old.update_only() && new.update_only() {
        sink.push(
            Some(path),
            Rule::CelRuleLoosened,
            Severity::Compatible,
            Strictness::Wire,
            format!("CEL rule {text:?} lost optionalOldSelf: creates are no longer checked"),
        );
    }
    if old.value["reason"] != new.value["reason"] {
        sink.push(
            Some(path),
            Rule::CelRuleChanged,
            Severity::PossiblyBreaking,
            Strictness::Client,
            format!(
                "CEL rule {text:?}: reason {} -> {}: a refusal has another HTTP status",
                old.value["reason"], new.value["reason"]
            ),
        );
    }
}

/// The old rule and the new one are conjunctions, one's conjuncts a subset of the other's.
fn conjunction_changed(old: &CelRule, new: &CelRule, path: &str, sink: &mut Sink) {
    let (oc, nc) = (conjuncts(&old.text), conjuncts(&new.text));
    let extra: Vec<&String> = nc.iter().filter(|c| !oc.contains(c)).collect();
    let message = format!("CEL rule {:?} -> {:?}", rule_text(old), rule_text(new));
    if extra.is_empty() {
        sink.push(
            Some(path),
            Rule::CelRuleLoosened,
            Severity::Compatible,
            Strictness::Wire,
            format!("{message}: fewer conditions"),
        );
        return;
    }
    let only_transitions =
        new.value["optionalOldSelf"] != true && extra.iter().all(|c| mentions_old_self(c));
    let (severity, why) = if only_transitions {
        (
            Severity::PossiblyBreaking,
            "the added conditions are transition rules: creates are not checked, updates are",
        )
    } else {
        (
            Severity::Breaking,
            "more conditions: values they refuse are refused on create",
        )
    };
    sink.push(
        Some(path),
        Rule::CelRuleTightened,
        severity,
        Strictness::Wire,
        format!("{message}: {why}"),
    );
}

fn subset(a: &[String], b: &[String]) -> bool {
    a.iter().all(|c| b.contains(c))
}

/// A rule's text with the spaces CEL ignores removed (a space stays between two word
/// characters), string literals kept as written.
pub(super) fn normalize(rule: &str) -> String {
    let mut out = String::new();
    let mut chars = rule.chars().peekable();
    let mut pending_space = false;
    while let Some(c) = chars.next() {
        if c == '"' || c == '\'' {
            out.push(c);
            while let Some(d) = chars.next() {
                out.push(d);
                if d == '\\' {
                    if let Some(e) = chars.next() {
                        out.push(e);
                    }
                } else if d == c {
                    break;
                }
            }
            pending_space = false;
        } else if c.is_whitespace() {
            pending_space = true;
        } else {
            let word = |x: char| x.is_alphanumeric() || x == '_';
            if pending_space && out.chars().last().is_some_and(word) && word(c) {
                out.push(' ');
            }
            pending_space = false;
            out.push(c);
        }
    }
    out
}

/// The top-level `&&` conjuncts of a normalized rule, outer parentheses removed; the rule
/// itself when a top-level `||` or `?:` would make splitting at `&&` wrong.
fn conjuncts(rule: &str) -> Vec<String> {
    let rule = strip_parens(rule);
    let mut parts = Vec::new();
    let (mut depth, mut start, mut quote) = (0i32, 0usize, None::<char>);
    let bytes: Vec<char> = rule.chars().collect();
    let mut i = 0;
    let mut pieces: Vec<(usize, usize)> = Vec::new();
    while i < bytes.len() {
        let c = bytes[i];
        match quote {
            Some(q) => {
                if c == '\\' {
                    i += 1;
                } else if c == q {
                    quote = None;
                }
            }
            None => match c {
                '"' | '\'' => quote = Some(c),
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                '|' | '?' if depth == 0 => return vec![rule.to_owned()],
                '&' if depth == 0 && bytes.get(i + 1) == Some(&'&') => {
                    pieces.push((start, i));
                    start = i + 2;
                    i += 1;
                }
                _ => {}
            },
        }
        i += 1;
    }
    pieces.push((start, bytes.len()));
    for (a, b) in pieces {
        let piece: String = bytes[a..b].iter().collect();
        parts.push(strip_parens(&piece).to_owned());
    }
    parts
}

/// `rule` without parentheses that enclose all of it.
fn strip_parens(rule: &str) -> &str {
    let mut rule = rule;
    while rule.starts_with('(') && rule.ends_with(')') && encloses(rule) {
        rule = &rule[1..rule.len() - 1];
    }
    rule
}

/// Whether the `(` opening `rule` closes at its last char.
fn encloses(rule: &str) -> bool {
    let mut depth = 0;
    let mut quote = None;
    let mut escaped = false;
    for (i, c) in rule.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return i == rule.len() - 1;
                }
            }
            _ => {}
        }
    }
    false
}

/// Whether a normalized rule names `oldSelf` outside string literals.
fn mentions_old_self(rule: &str) -> bool {
    let mut quote = None;
    let mut escaped = false;
    let mut word = String::new();
    for c in rule.chars().chain(std::iter::once(' ')) {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        if word == "oldSelf" {
            return true;
        }
        word.clear();
        if c == '"' || c == '\'' {
            quote = Some(c);
        }
    }
    false
}
