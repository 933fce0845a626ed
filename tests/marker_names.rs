//! Markers are types (issue #18): outside the catalog and the code build.rs generates from it,
//! no Rust source in src/ names a marker in a string literal. Code that reads markers matches
//! on `markers::typed` variants; code that writes marker text uses `markers::typed::names`, so
//! a misspelt marker does not compile.

use std::path::Path;

/// Marker names that are also JSON schema keywords (`"default"`, `"required"`, ...): as a bare
/// literal they are almost always the keyword, so only their `+name` spelling is checked.
const ALSO_SCHEMA_KEYWORDS: [&str; 4] = ["default", "nullable", "optional", "required"];

/// Every typed marker's name (each `items:` spelling too); ignored markers (other tools'
/// namespaces, the scaffold's insertion points) have no type and are left out.
fn typed_marker_names() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("markers/catalog.yaml")).unwrap();
    let catalog: Vec<serde_yaml::Value> = serde_yaml::from_str(&text).unwrap();
    let mut names = Vec::new();
    for entry in &catalog {
        if entry["ignored"].as_bool() == Some(true) {
            continue;
        }
        let name = entry["name"].as_str().unwrap().to_owned();
        if entry["items"].as_bool() == Some(true) {
            let base = name.strip_prefix("kubebuilder:validation:").unwrap();
            names.push(format!("kubebuilder:validation:items:{base}"));
        }
        names.push(name);
    }
    names
}

/// `text` with its top-level `#[cfg(test)]` modules blanked out (lines kept). syn finds where
/// each ends: a test's text may hold a `}` in column one or an unbalanced quote.
fn without_test_modules(text: &str) -> String {
    let file = syn::parse_file(text).expect("src/ parses");
    let mut test_lines = Vec::new();
    for item in &file.items {
        if let syn::Item::Mod(m) = item
            && m.attrs.iter().any(|a| {
                a.path().is_ident("cfg") && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test")
            })
            && let Some((brace, _)) = &m.content
        {
            let first = m.attrs[0].pound_token.span.start().line;
            test_lines.push(first..=brace.span.close().end().line);
        }
    }
    // Each blanked line keeps its newline, so that the lines after it keep their numbers.
    text.split_inclusive('\n')
        .enumerate()
        .map(|(i, line)| {
            let in_tests = test_lines.iter().any(|r| r.contains(&(i + 1)));
            if in_tests {
                if line.ends_with('\n') { "\n" } else { "" }
            } else {
                line
            }
        })
        .collect()
}

/// The string literals of a Rust source outside its `#[cfg(test)] mod tests`, with their
/// line numbers. Raw strings are taken whole; comments are skipped.
fn string_literals(text: &str) -> Vec<(usize, String)> {
    let code = without_test_modules(text);
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < chars.len() {
        match chars[i] {
            '\n' => line += 1,
            '/' if chars.get(i + 1) == Some(&'/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                continue;
            }
            '\'' if chars.get(i + 2) == Some(&'\'') || chars.get(i + 1) == Some(&'\\') => {
                // A char literal ('"', '\'', '\n'): skip it so its quote opens no string.
                let end = (i + 1..chars.len()).find(|&j| chars[j] == '\'' && j > i + 1);
                i = end.map_or(chars.len(), |e| e + 1);
                continue;
            }
            'r' if matches!(chars.get(i + 1), Some('"' | '#'))
                && (i == 0 || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')) =>
            {
                let hashes = chars[i + 1..].iter().take_while(|c| **c == '#').count();
                if chars.get(i + 1 + hashes) == Some(&'"') {
                    let start = i + 2 + hashes;
                    let closing: String = std::iter::once('"')
                        .chain("#".repeat(hashes).chars())
                        .collect();
                    let rest: String = chars[start..].iter().collect();
                    let len = rest
                        .find(&closing)
                        .map_or(rest.len(), |e| rest[..e].chars().count());
                    let literal: String = chars[start..start + len].iter().collect();
                    out.push((line, literal.clone()));
                    line += literal.matches('\n').count();
                    i = start + len + closing.chars().count();
                    continue;
                }
            }
            '"' => {
                let mut literal = String::new();
                let start_line = line;
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    if chars[i] == '\\' {
                        literal.push(chars[i]);
                        i += 1;
                    }
                    if chars[i] == '\n' {
                        line += 1;
                    }
                    literal.push(chars[i]);
                    i += 1;
                }
                out.push((start_line, literal));
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Whether `literal` names `name`: the whole literal, or `+name` followed by nothing, its
/// value (`=`), its arguments (`:`) or a format argument (`{`).
fn names_marker(literal: &str, name: &str) -> bool {
    if let Some(written) = literal.strip_prefix('+') {
        return written
            .strip_prefix(name)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['=', ':', '{']));
    }
    literal == name && !ALSO_SCHEMA_KEYWORDS.contains(&name)
}

#[test]
fn no_source_names_a_marker_in_a_string() {
    let names = typed_marker_names();
    assert!(names.len() > 50, "the catalog was not read: {names:?}");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for entry in walkdir::WalkDir::new(&src)
        .into_iter()
        .filter_map(Result::ok)
    {
        let path = entry.path();
        if path.extension().is_none_or(|x| x != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        for (line, literal) in string_literals(&text) {
            if let Some(name) = names.iter().find(|n| names_marker(&literal, n)) {
                found.push(format!(
                    "{}:{line}: \"{literal}\" names `{name}`",
                    path.strip_prefix(&src).unwrap().display()
                ));
            }
        }
    }
    assert!(
        found.is_empty(),
        "match on markers::typed, or write with markers::typed::names:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_sees_what_it_looks_for() {
    let text = "fn f() {\n    let a = \"kubebuilder:resource\";\n    let b = format!(\"+listType={}\", x);\n    let c = '\"';\n    let d = r#\"+nullable\"#;\n    let e = \"required\"; // +optional\n}\n#[cfg(test)]\nmod tests {\n    const T: &str = \"kubebuilder:skip\";\n}\nconst U: &str = \"+kubebuilder:rbac:groups=\";\n";
    let literals = string_literals(text);
    assert_eq!(
        literals,
        [
            (2, "kubebuilder:resource".to_owned()),
            (3, "+listType={}".to_owned()),
            (5, "+nullable".to_owned()),
            (6, "required".to_owned()),
            (12, "+kubebuilder:rbac:groups=".to_owned()),
        ]
    );
    assert!(names_marker("kubebuilder:resource", "kubebuilder:resource"));
    assert!(names_marker("+listType={}", "listType"));
    assert!(names_marker("+nullable", "nullable"));
    assert!(!names_marker("required", "required"));
    assert!(!names_marker("+listTypes", "listType"));
    assert!(!names_marker(
        "kubebuilder:resource says",
        "kubebuilder:resource"
    ));
}
