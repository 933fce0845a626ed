//! What real releases broke, as `opgen diff` reports it: the CRDs shipped in consecutive
//! releases of gateway-api, flux's source-controller, cert-manager, cluster-api and kueue (Go modules from the
//! module proxy, as released: `support::RELEASE_PAIRS`), compared at wire strictness. The
//! report is a reviewed snapshot; tests/diff_apiserver.rs puts the same pairs before the API
//! server and tests/diff_crdify.rs before crdify's verdicts.

mod support;

#[test]
fn what_each_release_broke() {
    let mut report = String::new();
    for pair in support::RELEASE_PAIRS {
        let Some((old, new)) = pair.crd_dirs() else {
            return;
        };
        let out = std::process::Command::new(support::opgen_bin())
            .arg("diff")
            .args([&old, &new])
            .args(["--strictness", "wire"])
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
        report.push_str(&format!("== {} {}\n{text}\n", pair.module, pair.span()));
    }
    insta::assert_snapshot!("releases", report);
}
