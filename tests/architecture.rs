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
    "markers",
    "model",
    "generators",
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
        // The utilities under every stage: errors, names, threads, plurals, YAML.
        ("diag", EVERY_STAGE),
        ("names", EVERY_STAGE),
        ("parallel", EVERY_STAGE),
        ("pluralize", EVERY_STAGE),
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
