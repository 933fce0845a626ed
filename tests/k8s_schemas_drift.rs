//! data/k8s-schemas.jsonl is exactly what tools/k8s-schemas writes: controller-tools (the pinned
//! controller-gen version) run now on the pinned k8s.io sources of every Kubernetes minor in
//! tools/k8s-schemas/versions/. Needs `go` and the Go module proxy (or a warm module cache);
//! without `go` the test says so on stderr and passes, but under `CI=true` it fails.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

#[test]
fn embedded_k8s_schemas_are_what_controller_tools_writes_now() {
    let ci = std::env::var("CI").is_ok_and(|v| v == "true");
    let has_go = Command::new("go")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_go {
        assert!(
            !ci,
            "CI=true requires `go` to regenerate data/k8s-schemas.jsonl"
        );
        eprintln!("k8s-schemas drift: `go` not found, data/k8s-schemas.jsonl not regenerated");
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("k8s-schemas.jsonl");
    let start = Instant::now();
    let out = Command::new("bash")
        .arg(root.join("tools/k8s-schemas/regen.sh"))
        .arg("-out")
        .arg(&scratch)
        .output()
        .expect("run tools/k8s-schemas/regen.sh");
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "tools/k8s-schemas/regen.sh failed:\n{log}"
    );
    eprintln!(
        "{log}k8s-schemas drift: regenerated in {:.1?}",
        start.elapsed()
    );
    let fresh = std::fs::read_to_string(&scratch).unwrap();
    let embedded = std::fs::read_to_string(root.join("data/k8s-schemas.jsonl")).unwrap();
    if fresh != embedded {
        let (f, e): (Vec<_>, Vec<_>) = (fresh.lines().collect(), embedded.lines().collect());
        let first = f
            .iter()
            .zip(&e)
            .position(|(a, b)| a != b)
            .unwrap_or(f.len().min(e.len()));
        let show =
            |l: Option<&&str>| l.map_or("(none)".to_owned(), |l| l.chars().take(300).collect());
        panic!(
            "data/k8s-schemas.jsonl differs from what tools/k8s-schemas writes now ({} vs {} lines); \
             first difference at line {}:\n  embedded: {}\n  now:      {}\n\
             regenerate it with tools/k8s-schemas/regen.sh and review the diff",
            e.len(),
            f.len(),
            first + 1,
            show(e.get(first)),
            show(f.get(first)),
        );
    }
}
