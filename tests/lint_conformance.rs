//! `opgen lint` against its referee, kube-api-linter (KAL), live: for each KAL rule opgen has,
//! KAL's own analysistest package (`pkg/analysis/<rule>/testdata/src/a`, the one its default
//! configuration is tested on) is taken from the Go module cache at the version
//! tools/kube-api-linter/go.mod pins, made a Go API package, linted by KAL (built by
//! tools/kube-api-linter/setup.sh, `KUBE_API_LINTER`), imported to Rust by `opgen import go`
//! and linted by `opgen lint`. Both sides' findings are compared as a multiset of
//! (type, field JSON name); every disagreement must be listed in `KNOWN` with its reason, and a
//! listed one that no longer occurs fails too. The table of docs/conformance/lint.md is what this
//! test computes (`OPGEN_REGEN=1` rewrites it).
//!
//! Making the testdata an API package changes two things, both neutral for the rules compared:
//! a `// +groupName` doc.go, and a json tag `json:"<GoName>"` on each field without one (the name
//! encoding/json gives it; controller-gen, and so `import go`, drops an untagged field). jsontags'
//! "missing json tag" findings are then not produced by KAL either: Go-only, see `KNOWN`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// (type, field JSON name or "" for the type) → how many findings.
type Findings = BTreeMap<(String, String), usize>;

/// Disagreements: (rule, type, field JSON name, side that alone reports it, why); `*` for every
/// type or field of the rule on that side (where one reason covers them all).
const KNOWN: &[(&str, &str, &str, Side, &str)] = &[];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Kal,
    Opgen,
}

fn kal() -> Option<PathBuf> {
    match std::env::var_os("KUBE_API_LINTER") {
        Some(p) if Path::new(&p).is_file() => Some(PathBuf::from(p)),
        _ => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "KUBE_API_LINTER is not set to the kube-api-linter binary (bash tools/kube-api-linter/setup.sh); CI must run this test"
            );
            eprintln!("skipping: KUBE_API_LINTER is not set (bash tools/kube-api-linter/setup.sh)");
            None
        }
    }
}

/// KAL's source at the pinned version, from the Go module cache.
fn kal_module() -> PathBuf {
    let go_mod = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/kube-api-linter/go.mod"),
    )
    .unwrap();
    let version = go_mod
        .lines()
        .find_map(|l| l.trim().strip_prefix("sigs.k8s.io/kube-api-linter "))
        .expect("go.mod requires kube-api-linter")
        .trim();
    let out = Command::new("go")
        .args(["mod", "download", "-json"])
        .arg(format!("sigs.k8s.io/kube-api-linter@{version}"))
        .env("GOFLAGS", "-mod=mod")
        .output()
        .expect("go runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let info: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    PathBuf::from(info["Dir"].as_str().unwrap())
}

const MODULE: &str = "example.com/kal";

/// KAL's package `a` of `rule` as the API package `example.com/kal/api/v1` of a fresh module.
fn go_module(kal: &Path, rule: &str, dir: &Path) {
    let src = kal.join("pkg/analysis").join(rule).join("testdata/src/a");
    let api = dir.join("api/v1");
    copy_go(&src, &api, true);
    std::fs::write(dir.join("go.mod"), format!("module {MODULE}\n\ngo 1.24\n")).unwrap();
    std::fs::write(
        api.join("zz_groupname.go"),
        "// +groupName=kal.example.com\npackage v1\n",
    )
    .unwrap();
}

fn copy_go(from: &Path, to: &Path, top: bool) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap();
        if path.is_dir() {
            copy_go(&path, &to.join(name), false);
        } else if path.extension().is_some_and(|e| e == "go") {
            let mut text = std::fs::read_to_string(&path).unwrap();
            if top {
                text = text.replacen("package a\n", "package v1\n", 1);
            }
            text = text.replace("\"a/", &format!("\"{MODULE}/api/v1/"));
            std::fs::write(to.join(name), with_json_tags(&text)).unwrap();
        }
    }
}

/// Each named field of a struct without a struct tag gets `json:"<its name>"`.
fn with_json_tags(text: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let trimmed = code.trim();
        let mut line = line.to_owned();
        if depth > 0 && !code.contains('`') && !code.contains('{') && !code.contains('(') {
            let mut words = trimmed.split_whitespace();
            if let (Some(name), Some(_ty)) = (words.next(), words.next())
                && name.starts_with(|c: char| c.is_ascii_alphabetic())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !trimmed.contains(',')
            {
                let end = code.trim_end().len();
                line = format!("{} `json:\"{name}\"`{}", &line[..end], &line[end..]);
            }
        }
        depth += code.matches("struct {").count();
        if trimmed.starts_with('}') {
            depth = depth.saturating_sub(1);
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Go file:line → (type, field JSON name) of the declaration at or first after that line.
fn go_keys(dir: &Path) -> BTreeMap<(PathBuf, usize), (String, String)> {
    let packages = opgen::load_go::load(dir, &["./...".to_owned()]).expect("the Go loads");
    let mut keys = BTreeMap::new();
    for p in packages.iter().filter(|p| p.root) {
        for t in &p.types {
            keys.insert(
                (t.pos.file.clone(), t.pos.line),
                (t.name.clone(), String::new()),
            );
            if let opgen::load_go::ExprKind::Struct(fields) = t.ty.kind() {
                for f in fields {
                    // An embedded field (no name) is keyed by the json name its tag gives.
                    let tag = f.tag_value("json").and_then(|j| j.split(',').next());
                    let named = (!f.name.is_empty()).then_some(f.name.as_str());
                    let Some(json) = tag.filter(|j| !j.is_empty()).or(named) else {
                        continue;
                    };
                    keys.insert(
                        (f.pos.file.clone(), f.pos.line),
                        (t.name.clone(), json.to_owned()),
                    );
                }
            }
        }
    }
    keys
}

fn kal_findings(kal: &Path, rule: &str, dir: &Path) -> Findings {
    let out = Command::new(kal)
        .args(["-json", "./..."])
        .current_dir(dir)
        .env("KAL_ENABLE", rule)
        .env("GOFLAGS", "-mod=mod")
        .output()
        .expect("kube-api-linter runs");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "kube-api-linter on {rule}: {e}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let keys = go_keys(dir);
    let mut found = Findings::new();
    for diags in json.as_object().unwrap().values() {
        for d in diags[rule].as_array().into_iter().flatten() {
            let posn = d["posn"].as_str().unwrap();
            let mut parts = posn.rsplitn(3, ':');
            let (_, line, file) = (parts.next(), parts.next().unwrap(), parts.next().unwrap());
            let line: usize = line.parse().unwrap();
            let key = keys
                .range((PathBuf::from(file), line)..)
                .next()
                .filter(|((f, _), _)| f == Path::new(file))
                .map(|(_, k)| k.clone())
                .unwrap_or_else(|| panic!("{rule}: no Go declaration at or after {posn}"));
            *found.entry(key).or_default() += 1;
        }
    }
    found
}

fn opgen(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_opgen"))
        .args(args)
        .current_dir(dir)
        .env("GOFLAGS", "-mod=mod")
        .env("GOWORK", "off")
        .output()
        .expect("opgen runs")
}

/// `opgen import go` of the module, then `opgen lint --only rule`; Err with why the import or
/// the model refused it.
fn opgen_findings(
    rule: &str,
    go: &Path,
    project: &Path,
    model_errors: &mut Option<String>,
) -> Result<Findings, String> {
    std::fs::create_dir_all(project).unwrap();
    let init = opgen(
        project,
        &["init", "--domain", "example.com", "--project-name", "kal"],
    );
    assert!(
        init.status.success(),
        "{}",
        String::from_utf8_lossy(&init.stderr)
    );
    let import = opgen(
        project,
        &["import", "go", go.to_str().unwrap(), "--paths", "./api/..."],
    );
    if !import.status.success() {
        let err = String::from_utf8_lossy(&import.stderr);
        return Err(err.lines().next().unwrap_or_default().to_owned());
    }
    let out = opgen(project, &["lint", "--only", rule, "--format", "json"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // What the model refused: those types are not linted.
    if let Some(refused) = stderr
        .lines()
        .find(|l| l.starts_with("error: ") && !l.starts_with("error: lint: "))
    {
        *model_errors = Some(format!("lint: {refused}"));
    }
    let mut found = Findings::new();
    for line in stdout.lines() {
        let f: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(f["rule"], rule);
        let key = (
            f["type"].as_str().unwrap().to_owned(),
            f["field"].as_str().unwrap_or_default().to_owned(),
        );
        *found.entry(key).or_default() += 1;
    }
    Ok(found)
}

struct Row {
    rule: &'static str,
    kal: usize,
    matched: usize,
    import_error: Option<String>,
    disagreements: Vec<(String, String, Side)>,
}

#[test]
fn findings_agree_with_kube_api_linter_rule_by_rule() {
    let Some(kal) = kal() else { return };
    let module = kal_module();
    let rules: Vec<&'static str> = opgen::lint::rules()
        .iter()
        .map(|r| r.name)
        .filter(|r| {
            module
                .join("pkg/analysis")
                .join(r)
                .join("testdata/src/a")
                .is_dir()
        })
        .collect();
    assert!(
        rules.len() >= 10,
        "opgen has kube-api-linter's rules: {rules:?}"
    );
    let work = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("lint-conformance-{}", std::process::id()));
    let mut rows = Vec::new();
    for rule in rules {
        let go = work.join(rule).join("go");
        go_module(&module, rule, &go);
        let theirs = kal_findings(&kal, rule, &go);
        let mut import_error = None;
        let ours = opgen_findings(
            rule,
            &go,
            &work.join(rule).join("project"),
            &mut import_error,
        );
        let ours = ours.unwrap_or_else(|e| {
            import_error = Some(e);
            Findings::new()
        });
        let mut row = Row {
            rule,
            kal: theirs.values().sum(),
            matched: 0,
            import_error,
            disagreements: Vec::new(),
        };
        let keys: std::collections::BTreeSet<_> = theirs.keys().chain(ours.keys()).collect();
        for key in keys {
            let (k, o) = (
                theirs.get(key).copied().unwrap_or(0),
                ours.get(key).copied().unwrap_or(0),
            );
            row.matched += k.min(o);
            let side = if k > o { Side::Kal } else { Side::Opgen };
            for _ in 0..k.abs_diff(o) {
                row.disagreements.push((key.0.clone(), key.1.clone(), side));
            }
        }
        rows.push(row);
    }
    let _ = std::fs::remove_dir_all(&work);
    check_known_and_table(&rows);
}

fn check_known_and_table(rows: &[Row]) {
    let mut unlisted = Vec::new();
    let mut seen = Vec::new();
    for row in rows {
        for (t, f, side) in &row.disagreements {
            match KNOWN.iter().position(|k| {
                k.0 == row.rule
                    && (k.1 == "*" || k.1 == t)
                    && (k.2 == "*" || k.2 == f)
                    && k.3 == *side
            }) {
                Some(i) => seen.push(i),
                None => unlisted.push(format!(
                    "(\"{}\", \"{t}\", \"{f}\", Side::{side:?}, \"\"),",
                    row.rule
                )),
            }
        }
    }
    let stale: Vec<_> = KNOWN
        .iter()
        .enumerate()
        .filter(|(i, _)| !seen.contains(i))
        .map(|(_, k)| k)
        .collect();
    let table = table(rows);
    let doc_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/conformance/lint.md");
    let doc = std::fs::read_to_string(&doc_path).unwrap_or_default();
    let (begin, end) = (
        "<!-- table: tests/lint_conformance.rs -->\n",
        "<!-- end table -->\n",
    );
    let current = doc
        .split(begin)
        .nth(1)
        .and_then(|rest| rest.split(end).next())
        .unwrap_or_default();
    if std::env::var("OPGEN_REGEN").is_ok() && current != table {
        let (head, tail) = match (doc.split_once(begin), doc.split_once(end)) {
            (Some((head, _)), Some((_, tail))) => (head.to_owned(), tail.to_owned()),
            _ => (doc.clone(), String::new()),
        };
        std::fs::write(&doc_path, format!("{head}{begin}{table}{end}{tail}")).unwrap();
    } else {
        assert_eq!(
            current, table,
            "docs/conformance/lint.md's table is out of date (OPGEN_REGEN=1 rewrites it)"
        );
    }
    assert!(
        unlisted.is_empty(),
        "disagreements with kube-api-linter not in KNOWN:\n{}",
        unlisted.join("\n")
    );
    assert!(
        stale.is_empty(),
        "KNOWN lists disagreements that no longer occur: {stale:?}"
    );
}

fn table(rows: &[Row]) -> String {
    let mut out = String::from(
        "| rule | KAL findings | matched | KAL only | opgen only | import and model |\n| --- | ---: | ---: | ---: | ---: | --- |\n",
    );
    for r in rows {
        let only = |side| r.disagreements.iter().filter(|d| d.2 == side).count();
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            r.rule,
            r.kal,
            r.matched,
            only(Side::Kal),
            only(Side::Opgen),
            r.import_error
                .as_deref()
                .map_or("ok".to_owned(), |e| format!(
                    "fails: {}",
                    e.replace('|', "\\|")
                ))
        ));
    }
    let (kal, matched): (usize, usize) = rows
        .iter()
        .fold((0, 0), |(k, m), r| (k + r.kal, m + r.matched));
    out.push_str(&format!("| **all** | {kal} | {matched} | | | |\n"));
    out
}
