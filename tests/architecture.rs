//! The layering ARCHITECTURE.md promises: the pipeline runs one way (load → markers → model →
//! generators → writer), `ops` sits above it and knows nothing of clap, and `cli` is the only
//! module that parses arguments.

use std::path::Path;

/// Every `crate::<module>` path and `clap` use in the Rust files below `src/<dir>`.
fn references(dir: &str) -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let start = root.join(dir);
    let files: Vec<_> = if start.is_dir() {
        walkdir::WalkDir::new(&start)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
            .map(|e| e.path().to_path_buf())
            .collect()
    } else {
        vec![start.with_extension("rs")]
    };
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let name = file.strip_prefix(&root).unwrap().display().to_string();
        for line in text.lines().map(str::trim_start) {
            if line.starts_with("//") {
                continue;
            }
            let mut rest = line;
            while let Some(at) = rest.find("crate::") {
                let module: String = rest[at + 7..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                found.push((name.clone(), module));
                rest = &rest[at + 7..];
            }
            if line.contains("clap::") || line.starts_with("use clap") {
                found.push((name.clone(), "clap".to_owned()));
            }
        }
    }
    found
}

/// Every module above the utilities.
const EVERY_STAGE: &[&str] = &[
    "load",
    "load_crd",
    "load_go",
    "compat",
    "markers",
    "model",
    "generators",
    "lint",
    "writer",
    "ops",
    "project",
    "cli",
    "clap",
];

#[test]
fn no_stage_reaches_back_and_only_cli_knows_clap() {
    // (module, what it must not use)
    let rules: &[(&str, &[&str])] = &[
        // load reads through the writer's Workspace (the disk plus what a command staged).
        (
            "load",
            &["markers", "model", "generators", "ops", "cli", "clap"],
        ),
        (
            "markers",
            &["model", "generators", "writer", "ops", "cli", "clap"],
        ),
        ("model", &["generators", "writer", "ops", "cli", "clap"]),
        // The CRD reader of `import crd` is a load stage of its own: YAML in, values out.
        (
            "load_crd",
            &[
                "load",
                "markers",
                "model",
                "generators",
                "writer",
                "ops",
                "cli",
                "clap",
            ],
        ),
        // So is the Go loader of `import go`: Go packages in, values out.
        (
            "load_go",
            &[
                "load",
                "markers",
                "model",
                "generators",
                "writer",
                "ops",
                "cli",
                "clap",
            ],
        ),
        ("generators", &["ops", "cli", "clap"]),
        // The linter reads the model and its markers, beside the generators: never syn (load),
        // never a generator's output, never the disk.
        (
            "lint",
            &[
                "load",
                "load_crd",
                "load_go",
                "generators",
                "writer",
                "ops",
                "cli",
                "clap",
            ],
        ),
        // `opgen diff`'s classifier: CRD values in, findings out, whoever loaded them.
        (
            "compat",
            &[
                "load",
                "load_crd",
                "load_go",
                "markers",
                "model",
                "generators",
                "writer",
                "ops",
                "cli",
                "clap",
            ],
        ),
        (
            "writer",
            &[
                "load",
                "markers",
                "model",
                "generators",
                "ops",
                "cli",
                "clap",
            ],
        ),
        ("ops", &["cli", "clap"]),
        // PROJECT is read by every stage that needs what was scaffolded, so it sits below them
        // all: the file and the scaffold generation, read and written through the Workspace.
        (
            "project",
            &[
                "load",
                "markers",
                "model",
                "generators",
                "ops",
                "cli",
                "clap",
            ],
        ),
        // The utilities under every stage: errors, names, threads, plurals, teardown, YAML.
        ("diag", EVERY_STAGE),
        ("names", EVERY_STAGE),
        ("parallel", EVERY_STAGE),
        ("pluralize", EVERY_STAGE),
        ("teardown", EVERY_STAGE),
        ("yaml", EVERY_STAGE),
    ];
    let mut violations = Vec::new();
    for (module, forbidden) in rules {
        for (file, used) in references(module) {
            if forbidden.contains(&used.as_str()) {
                violations.push(format!("src/{file} uses {used}"));
            }
        }
    }
    assert!(
        violations.is_empty(),
        "layering broken:\n{}",
        violations.join("\n")
    );
    // Every top-level module has a rule (cli, the top, may use anything).
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut modules: Vec<String> = std::fs::read_dir(&src)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| {
            let name = e.file_name().into_string().unwrap();
            name.strip_suffix(".rs").map_or(name.clone(), str::to_owned)
        })
        .filter(|m| !matches!(m.as_str(), "lib" | "main" | "cli"))
        .collect();
    modules.sort();
    let ruled: Vec<&str> = rules.iter().map(|(m, _)| *m).collect();
    let unruled: Vec<&String> = modules
        .iter()
        .filter(|m| !ruled.contains(&m.as_str()))
        .collect();
    assert!(
        unruled.is_empty(),
        "modules without a layering rule: {unruled:?}"
    );
    // The check sees what it looks for.
    assert!(references("cli").iter().any(|(_, used)| used == "ops"));
    assert!(references("cli").iter().any(|(_, used)| used == "clap"));
}

/// Every `fn` item of a Rust source (free functions and methods, at any indentation): its line
/// (from 1), name and length in lines, from the `fn` line to the `}` at its indentation.
/// A declaration without a body (`fn f();` in a trait) is none.
fn fn_lengths(text: &str) -> Vec<(usize, String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(name) = fn_name(line) else {
            continue;
        };
        let indent = &line[..line.len() - line.trim_start().len()];
        let close = format!("{indent}}}");
        // The signature ends at the first `{` (a body) or `;` (none).
        let Some(open) = (i..lines.len()).find(|&j| {
            let t = lines[j].trim_end();
            t.contains('{') || t.ends_with(';')
        }) else {
            continue;
        };
        let t = lines[open].trim_end();
        if !t.contains('{') {
            continue;
        }
        let end = if t.ends_with('}') {
            Some(open)
        } else {
            (open + 1..lines.len()).find(|&j| lines[j].trim_end() == close)
        };
        if let Some(end) = end {
            found.push((i + 1, name, end - i + 1));
        }
    }
    found
}

/// The name of the `fn` a line starts, after `pub`, `pub(...)`, `async`, `const`, `unsafe`.
fn fn_name(line: &str) -> Option<String> {
    let mut rest = line.trim_start();
    loop {
        if let Some(r) = rest.strip_prefix("pub(") {
            rest = r.split_once(')')?.1.trim_start();
        } else if let Some(r) = ["pub ", "async ", "const ", "unsafe ", "extern \"C\" "]
            .iter()
            .find_map(|p| rest.strip_prefix(p))
        {
            rest = r.trim_start();
        } else {
            break;
        }
    }
    let name: String = rest
        .strip_prefix("fn ")?
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

#[test]
fn no_function_in_src_is_over_150_lines() {
    // The scanner sees what it looks for.
    let sample = "fn short() {\n    1;\n}\nimpl X {\n    pub(crate) async fn method(&self) -> u8 {\n        2\n    }\n}\ntrait T {\n    fn declared(&self);\n    fn one_line(&self) {}\n    const fn signature(\n        a: u8,\n    ) -> u8 {\n        a\n    }\n}\n";
    assert_eq!(
        fn_lengths(sample),
        [
            (1, "short".to_owned(), 3),
            (5, "method".to_owned(), 3),
            (11, "one_line".to_owned(), 1),
            (12, "signature".to_owned(), 5),
        ]
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = walkdir::WalkDir::new(root.join("src"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
        .map(|e| e.path().to_path_buf())
        .collect();
    files.sort();
    let mut long = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let name = file.strip_prefix(root).unwrap().display();
        for (line, f, n) in fn_lengths(&text) {
            if n > 150 {
                long.push(format!("{name}:{line} {f} ({n} lines)"));
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over 150 lines (split them where the split names a real step):\n{}",
        long.join("\n")
    );
}
