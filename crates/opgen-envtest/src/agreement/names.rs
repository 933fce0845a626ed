//! Names for the drawn objects when the CRD's root CEL rules constrain `metadata.name`
//! (`self.metadata.name.startsWith('w')`, `== 'cluster'`, `.matches('^shop-')`, `.size() <= 8`).
//! The generator solves no CEL, and the API server runs these rules on every object, so a
//! single drawn name would have every object refused: instead each object gets names built
//! from the rules' string literals, tried in turn until the server accepts one.

use serde_json::{Value, json};

use super::generate::{Rng, value};

/// More would only multiply the requests for an object refused for another reason.
const MAX_NAMES: usize = 12;

/// The root rules that read `metadata.name`.
pub(crate) fn name_rules(schema: &Value) -> Vec<&str> {
    schema["x-kubernetes-validations"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|rule| rule["rule"].as_str())
        .filter(|rule| rule.contains("metadata.name"))
        .collect()
}

/// The names to try for case `case`, `agreement-<case>` first; only that one when no root rule
/// reads the name. Each is a DNS subdomain, as the API server requires of a custom object.
pub(crate) fn candidates(schema: &Value, case: u32, rng: &mut Rng) -> Vec<String> {
    let base = format!("agreement-{case}");
    let rules = name_rules(schema);
    let mut names = vec![base.clone()];
    if rules.is_empty() {
        return names;
    }
    let literals: Vec<String> = rules.iter().flat_map(|rule| literals(rule)).collect();
    let mut wanted = Vec::new();
    for literal in &literals {
        wanted.push(format!("{literal}{base}")); // startsWith, contains
        wanted.push(format!("{base}{literal}")); // endsWith
        wanted.push(literal.clone()); // ==, in [...]
    }
    if let [first, .., last] = literals.as_slice() {
        wanted.push(format!("{first}{base}{last}"));
    }
    for literal in &literals {
        // .matches(...): a string the literal matches as a pattern
        if let Value::String(drawn) = value(&json!({"type": "string", "pattern": literal}), rng, 1)
        {
            wanted.push(drawn);
        }
    }
    wanted.push(format!("a{case}")); // .size() bounds
    for name in wanted {
        if names.len() == MAX_NAMES {
            break;
        }
        if is_dns_subdomain(&name) && !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// The string literals of a CEL expression, unescaped where that is simple (`\'`, `\"`, `\\`).
fn literals(rule: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut chars = rule.chars();
    while let Some(c) = chars.next() {
        if c != '\'' && c != '"' {
            continue;
        }
        let mut literal = String::new();
        while let Some(next) = chars.next() {
            match next {
                '\\' => literal.extend(chars.next()),
                _ if next == c => break,
                _ => literal.push(next),
            }
        }
        found.push(literal);
    }
    found
}

/// apimachinery's `IsDNS1123Subdomain`: lowercase alphanumeric labels joined by dots, each
/// label starting and ending alphanumeric, at most 253 characters.
fn is_dns_subdomain(name: &str) -> bool {
    let alphanumeric = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    name.len() <= 253
        && name.split('.').all(|label| {
            label.starts_with(alphanumeric)
                && label.ends_with(alphanumeric)
                && label.chars().all(|c| alphanumeric(c) || c == '-')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema(rules: &[&str]) -> Value {
        let rules: Vec<Value> = rules.iter().map(|r| json!({"rule": r})).collect();
        json!({"type": "object", "x-kubernetes-validations": rules})
    }

    fn names(rules: &[&str]) -> Vec<String> {
        candidates(&schema(rules), 7, &mut Rng::new(1))
    }

    #[test]
    fn without_a_rule_on_the_name_there_is_one_name() {
        assert_eq!(names(&[]), ["agreement-7"]);
        assert_eq!(names(&["self.spec.size > 0"]), ["agreement-7"]);
    }

    #[test]
    fn names_meet_the_obvious_rules_on_metadata_name() {
        // Each rule, and a name among the candidates that meets it (what the server checks).
        type Meets = fn(&str) -> bool;
        let cases: [(&str, Meets); 7] = [
            ("self.metadata.name.startsWith('w')", |n| n.starts_with('w')),
            ("self.metadata.name.endsWith(\"-db\")", |n| {
                n.ends_with("-db")
            }),
            ("self.metadata.name == 'cluster'", |n| n == "cluster"),
            ("self.metadata.name in ['default', 'main']", |n| {
                n == "default" || n == "main"
            }),
            ("self.metadata.name.size() <= 8", |n| n.len() <= 8),
            ("self.metadata.name.matches('^shop-[a-z]+$')", |n| {
                regex::Regex::new("^shop-[a-z]+$").unwrap().is_match(n)
            }),
            (
                "self.metadata.name.startsWith('app-') && self.metadata.name.endsWith('-x')",
                |n| n.starts_with("app-") && n.ends_with("-x"),
            ),
        ];
        for (rule, meets) in cases {
            let names = names(&[rule]);
            assert!(names.len() <= MAX_NAMES, "{names:?}");
            assert!(names.iter().all(|n| is_dns_subdomain(n)), "{names:?}");
            assert!(names.iter().any(|n| meets(n)), "{rule}: {names:?}");
        }
    }

    #[test]
    fn literals_are_read_with_their_escapes() {
        assert_eq!(
            literals(r#"self.metadata.name != 'it\'s' && x == "a\"b""#),
            ["it's", "a\"b"]
        );
    }

    #[test]
    fn a_dns_subdomain_is_what_apimachinery_accepts() {
        for good in ["a", "a0", "w-agreement-1", "a.b-c.d"] {
            assert!(is_dns_subdomain(good), "{good}");
        }
        for bad in ["", "-a", "a-", "A", "a..b", "a_b", &"a".repeat(254)] {
            assert!(!is_dns_subdomain(bad), "{bad}");
        }
    }
}
