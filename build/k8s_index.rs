//! The index of `data/k8s-schemas.jsonl` (see src/generators/crd/k8s.rs), as Rust statics, so
//! that no run of opgen scans the 2.7 MB file to find a type: `DEFS` (definition name → its
//! schemas, each a versions mask and the byte range of its text in the file) and `TYPES`
//! (k8s-openapi path → the definition it is, per versions mask), both sorted by name.

use std::collections::BTreeMap;
use std::fmt::Write;

pub fn generate(data: &str) -> String {
    let mut lines = line_offsets(data);
    let (_, header) = lines.next().expect("a header line");
    let header: serde_json::Value = serde_json::from_str(header).expect("the header is JSON");
    let versions: Vec<&str> = header["versions"]
        .as_array()
        .expect("the header's versions")
        .iter()
        .map(|v| v.as_str().expect("a version string"))
        .collect();
    assert!(versions.len() <= 32, "a versions mask is a u32");
    let mask = |line: usize, list: &serde_json::Value| -> u32 {
        list.as_array()
            .unwrap_or_else(|| panic!("line {line}: no versions list"))
            .iter()
            .map(|v| {
                let bit = versions
                    .iter()
                    .position(|h| Some(*h) == v.as_str())
                    .unwrap_or_else(|| panic!("line {line}: {v} is not a version of the header"));
                1 << bit
            })
            .fold(0, |m, b| m | b)
    };
    let mut defs: BTreeMap<String, Vec<(u32, usize, usize)>> = BTreeMap::new();
    let mut types: BTreeMap<String, Vec<(u32, String)>> = BTreeMap::new();
    for (n, (offset, line)) in lines.enumerate() {
        let line_no = n + 2;
        if line.starts_with(r#"{"name":"#) {
            // The prefix before the schema is small JSON; the schema runs to the final `}`.
            const SCHEMA: &str = r#","schema":"#;
            let at = line
                .find(SCHEMA)
                .unwrap_or_else(|| panic!("line {line_no}: no schema"));
            assert!(line.ends_with('}'), "line {line_no}: no final `}}`");
            let prefix: serde_json::Value = serde_json::from_str(&format!("{}}}", &line[..at]))
                .unwrap_or_else(|e| panic!("line {line_no}: {e}"));
            let name = prefix["name"].as_str().expect("a name").to_owned();
            let start = offset + at + SCHEMA.len();
            let end = offset + line.len() - 1;
            defs.entry(name)
                .or_default()
                .push((mask(line_no, &prefix["versions"]), start, end));
        } else if line.starts_with(r#"{"type":"#) {
            let entry: serde_json::Value =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("line {line_no}: {e}"));
            let path = entry["type"].as_str().expect("a type").to_owned();
            let name = entry["name"].as_str().expect("a name").to_owned();
            types
                .entry(path)
                .or_default()
                .push((mask(line_no, &entry["versions"]), name));
        } else {
            assert!(
                line.is_empty(),
                "line {line_no}: neither a name nor a type line"
            );
        }
    }
    let mut out = String::from(
        "/// Definition name → (versions mask, (start, end) of its schema's text in DATA), by name.\n\
         static DEFS: &[(&str, &[Schema])] = &[\n",
    );
    for (name, entries) in &defs {
        write!(out, "    ({name:?}, &[").unwrap();
        for (mask, start, end) in entries {
            write!(out, "({mask}, ({start}, {end})), ").unwrap();
        }
        out.push_str("]),\n");
    }
    out.push_str(
        "];\n/// k8s-openapi type path → (versions mask, definition name), by path.\n\
         static TYPES: &[(&str, &[Definition])] = &[\n",
    );
    for (path, entries) in &types {
        write!(out, "    ({path:?}, &[").unwrap();
        for (mask, name) in entries {
            write!(out, "({mask}, {name:?}), ").unwrap();
        }
        out.push_str("]),\n");
    }
    out.push_str("];\n");
    out
}

/// Each line with the byte offset where it starts.
fn line_offsets(data: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut offset = 0;
    data.split_inclusive('\n').map(move |line| {
        let start = offset;
        offset += line.len();
        (start, line.strip_suffix('\n').unwrap_or(line))
    })
}
