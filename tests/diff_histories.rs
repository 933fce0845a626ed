//! What real releases broke, as `opgen diff` reports it: the standard-channel CRDs of
//! consecutive gateway-api releases (Go modules from the module proxy, as released), compared
//! at wire strictness. The report is a reviewed snapshot; tests/diff_apiserver.rs puts the
//! same pairs before the API server and tests/diff_crdify.rs before crdify's verdicts.

mod support;

/// Consecutive releases the module proxy holds (v1.7.0 needs Go 1.27).
const GATEWAY_API_RELEASES: &[&str] = &["v1.3.0", "v1.4.0", "v1.5.0", "v1.6.0"];

#[test]
fn what_each_gateway_api_release_broke() {
    let mut report = String::new();
    for span in GATEWAY_API_RELEASES.windows(2) {
        let dirs: Vec<_> = span
            .iter()
            .filter_map(|v| support::go_module_dir("sigs.k8s.io/gateway-api", v))
            .collect();
        let [old, new] = dirs.as_slice() else {
            assert!(!support::on_ci(), "cannot download gateway-api {span:?}");
            eprintln!("skipped: the Go module proxy is out of reach");
            return;
        };
        let crds = |dir: &std::path::Path| dir.join("config/crd/standard").display().to_string();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_opgen"))
            .args(["diff", &crds(old), &crds(new), "--strictness", "wire"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        // Exit status 1: something broke; 0: nothing did.
        let broke = text.lines().any(|l| l.starts_with("breaking "));
        assert_eq!(
            out.status.code(),
            Some(i32::from(broke)),
            "{text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        report.push_str(&format!("== {} -> {}\n{text}\n", span[0], span[1]));
    }
    insta::assert_snapshot!("gateway_api", report);
}
