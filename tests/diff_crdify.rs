//! crdify as referee of `opgen diff` (`compat`), through its verdicts kept as fixtures
//! (tests/fixtures/diff/crdify/, see its README: the Go module proxy refuses crdify's module,
//! so it is built from its sources by tools/crdify/setup.sh where they are at hand). Where it is
//! built (`CRDIFY`), `recorded_verdicts_are_what_crdify_says` runs it on every pair and requires
//! its output to be the recorded one, byte for byte. On every pair crdify judged, the corpus of
//! tests/fixtures/diff/pairs/ and the CRDs of consecutive releases of gateway-api, flux's
//! source-controller, cert-manager, cluster-api and kueue (`support::RELEASE_PAIRS`, fetched from the Go module
//! proxy at the versions crdify saw), each (version, property, rule) crdify flags must be a
//! finding of opgen at client strictness, and the other way round, wherever crdify has the rule;
//! every disagreement must be one of [`KNOWN`], each with its reason.

mod support;

use opgen::compat::{self, Finding, Rule, Severity, Strictness};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// (version, crdify's property path, crdify's rule); CRD-wide rules have no version or path.
type Key = (String, String, String);

/// The classes of disagreement, by rule and side: (rule, flagged by crdify only?, reason).
const KNOWN: &[(&str, bool, &str)] = &[
    (
        "description",
        true,
        "crdify flags every description change; descriptions are documentation, the API server does nothing with them, so opgen reports none",
    ),
    (
        "storedVersionRemoval",
        false,
        "crdify only knows stored versions from a cluster's status.storedVersions; opgen also counts the old storage version, which holds every object written since it became the storage version, and the API server refuses the update (tests/diff_apiserver.rs, storage-version-removed)",
    ),
    (
        "maximum",
        false,
        "crdify compares the bound's value only, and reports exclusiveMaximum as an unhandled change; opgen counts a bound made exclusive as tightened (the API server then refuses the bound itself)",
    ),
];

/// Pairs only one tool flags at all, with the reason: crdify has no rule for the change, or
/// flags it as an unhandled change while it loosens nothing or changes nothing.
const ONE_TOOL_ONLY: &[(&str, &str)] = &[
    (
        "version-unserved",
        "crdify compares no served flags; requests to the version get 404",
    ),
    (
        "served-version-removed",
        "crdify compares only versions both CRDs have; requests to the removed one get 404",
    ),
    (
        "storage-version-removed",
        "crdify knows stored versions only from a cluster's status; the API server refuses the update",
    ),
    (
        "status-subresource-added",
        "crdify compares no subresources; .status written through the object is dropped",
    ),
    (
        "status-subresource-removed",
        "crdify compares no subresources; /status gets 404",
    ),
    (
        "printer-column-removed",
        "crdify compares no printer columns; a client-level change",
    ),
    (
        "kind-changed",
        "crdify compares no names; the API server refuses the update",
    ),
    (
        "required-removed",
        "crdify flags only new required fields; clients may now receive objects without one (client level)",
    ),
    (
        "cel-rule-loosened",
        "crdify flags any change of x-kubernetes-validations as unhandled; fewer conjuncts refuse less",
    ),
    (
        "cel-rule-removed",
        "crdify flags any change of x-kubernetes-validations as unhandled; a removed rule refuses nothing",
    ),
    (
        "cel-rule-respaced",
        "crdify flags any change of x-kubernetes-validations as unhandled; spaces and a message changed, the rule did not",
    ),
    (
        "multiple-of-divisor",
        "crdify flags multipleOf changes as unhandled; every multiple of 4 is one of 2",
    ),
    (
        "gateway-api v1.3.0..v1.4.0 gateway.networking.k8s.io_referencegrants",
        "crdify flags x-kubernetes-list-type: atomic written out as unhandled; atomic is the default, nothing changed",
    ),
    (
        "cluster-api v1.13.6..v1.14.2 cluster.x-k8s.io_machinedeployments",
        "crdify compares no printer columns; the Available column shows another field (client level)",
    ),
    (
        "kueue v0.15.1..v0.16.2 kueue.x-k8s.io_admissionchecks",
        KUEUE_STORAGE_V1BETA2,
    ),
    (
        "kueue v0.15.1..v0.16.2 kueue.x-k8s.io_clusterqueues",
        KUEUE_STORAGE_V1BETA2,
    ),
    (
        "kueue v0.15.1..v0.16.2 kueue.x-k8s.io_cohorts",
        KUEUE_STORAGE_V1BETA2,
    ),
    (
        "kueue v0.15.1..v0.16.2 kueue.x-k8s.io_localqueues",
        KUEUE_STORAGE_V1BETA2,
    ),
    (
        "kueue v0.15.1..v0.16.2 kueue.x-k8s.io_multikueueclusters",
        KUEUE_STORAGE_V1BETA2,
    ),
    (
        "kueue v0.15.1..v0.16.2 kueue.x-k8s.io_multikueueconfigs",
        KUEUE_STORAGE_V1BETA2,
    ),
    (
        "kueue v0.15.1..v0.16.2 kueue.x-k8s.io_provisioningrequestconfigs",
        KUEUE_STORAGE_V1BETA2,
    ),
    (
        "kueue v0.15.1..v0.16.2 kueue.x-k8s.io_workloadpriorityclasses",
        KUEUE_STORAGE_V1BETA2,
    ),
    (
        "kueue v0.15.1..v0.16.2 kueue.x-k8s.io_workloads",
        KUEUE_STORAGE_V1BETA2,
    ),
];

/// kueue v0.16 made v1beta2 (served beside v1beta1 since v0.15) the storage version of every
/// CRD; opgen flags the nine whose v1beta1 declares fields v1beta2 does not (resourceflavors'
/// and topologies' two schemas are alike: compatible).
const KUEUE_STORAGE_V1BETA2: &str = "crdify compares no storage versions; the storage version moved from v1beta1 to v1beta2 under conversion None (the CRD files carry no webhook), so an object written again loses the v1beta1 fields v1beta2 does not declare";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/diff")
}

fn documents(path: &Path) -> Vec<Value> {
    opgen_envtest::parse_documents(path).unwrap()
}

/// crdify's errors as keys, leaving out `unhandled` (changes it has no rule for).
fn crdify_keys(report: &Value) -> BTreeSet<Key> {
    let mut keys = BTreeSet::new();
    for result in report["crdValidation"].as_array().into_iter().flatten() {
        let rule = result["name"].as_str().unwrap().to_owned();
        for error in result["errors"].as_array().into_iter().flatten() {
            let error = error.as_str().unwrap();
            if rule == "existingFieldRemoval" {
                // "removed field : v1.^.spec.a"
                let at = error.rsplit(" : ").next().unwrap();
                let (version, path) = at.split_once('.').unwrap();
                keys.insert((version.to_owned(), path.to_owned(), rule.clone()));
            } else {
                keys.insert((String::new(), String::new(), rule.clone()));
            }
        }
    }
    for version in report["sameVersionValidation"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let name = version["version"].as_str().unwrap();
        for property in version["propertyComparisons"]
            .as_array()
            .into_iter()
            .flatten()
        {
            for result in property["comparisonResults"]
                .as_array()
                .into_iter()
                .flatten()
            {
                let rule = result["name"].as_str().unwrap();
                if rule != "unhandled" && result["errors"].as_array().is_some_and(|e| !e.is_empty())
                {
                    keys.insert((
                        name.to_owned(),
                        property["property"].as_str().unwrap().to_owned(),
                        rule.to_owned(),
                    ));
                }
            }
        }
    }
    keys
}

/// Whether crdify flags anything but description changes, its unhandled changes included.
fn crdify_flags(report: &Value) -> bool {
    let failed = |r: &Value| {
        r["name"] != "description" && r["errors"].as_array().is_some_and(|e| !e.is_empty())
    };
    let crd = report["crdValidation"]
        .as_array()
        .into_iter()
        .flatten()
        .any(failed);
    let properties = report["sameVersionValidation"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|v| v["propertyComparisons"].as_array().into_iter().flatten())
        .flat_map(|p| p["comparisonResults"].as_array().into_iter().flatten())
        .any(failed);
    crd || properties
}

/// opgen's path in crdify's notation: `^.spec.a.items.b`, `^.spec.m.additionalProperties`.
fn crdify_path(path: &str) -> String {
    let path = path
        .replace("[*]", ".items")
        .replace(".*", ".additionalProperties");
    if path == "." {
        "^".to_owned()
    } else {
        format!("^{path}")
    }
}

fn parent(path: &str) -> String {
    match path.rsplit_once('.') {
        Some(("", _)) | None => ".".to_owned(),
        Some((parent, _)) => parent.to_owned(),
    }
}

/// The crdify rule an opgen finding is, if crdify has one.
fn crdify_rule(f: &Finding) -> Option<&'static str> {
    Some(match f.rule {
        Rule::ScopeChanged => "scope",
        Rule::StoredVersionRemoved => "storedVersionRemoval",
        Rule::FieldRemoved => "existingFieldRemoval",
        Rule::TypeChanged | Rule::IntOrStringChanged => "type",
        Rule::RequiredAdded => "required",
        Rule::EnumAdded | Rule::EnumRemoved | Rule::EnumValuesAdded | Rule::EnumValuesRemoved => {
            "enum"
        }
        Rule::DefaultAdded | Rule::DefaultChanged | Rule::DefaultRemoved => "default",
        Rule::PatternAdded | Rule::PatternChanged | Rule::PatternRemoved => "pattern",
        Rule::NullableAdded | Rule::NullableRemoved => "nullable",
        Rule::BoundTightened => match f.keyword? {
            "multipleOf" => return None,
            k => k,
        },
        _ => return None,
    })
}

fn opgen_keys(old: &[Value], new: &[Value]) -> (BTreeSet<Key>, Vec<String>) {
    let report = compat::compare(old, new, true);
    let mut keys = BTreeSet::new();
    let mut removed = Vec::new();
    for f in &report.findings {
        if f.severity_at(Strictness::Client) == Severity::Compatible {
            continue;
        }
        let Some(rule) = crdify_rule(f) else { continue };
        let version = f.version.clone().unwrap_or_default();
        let key = match (f.rule, &f.path) {
            (Rule::ScopeChanged | Rule::StoredVersionRemoved, _) => {
                (String::new(), String::new(), rule.to_owned())
            }
            (Rule::RequiredAdded, Some(p)) => (version, crdify_path(&parent(p)), rule.to_owned()),
            (Rule::FieldRemoved, Some(p)) => {
                removed.push(crdify_path(p));
                (version, crdify_path(p), rule.to_owned())
            }
            (_, Some(p)) => (version, crdify_path(p), rule.to_owned()),
            (_, None) => (version, String::new(), rule.to_owned()),
        };
        keys.insert(key);
    }
    (keys, removed)
}

/// Compares one pair; returns (agreed keys, disagreements as (rule, crdify only, what)).
fn judge(
    old: &[Value],
    new: &[Value],
    crdify: &Value,
    what: &str,
) -> (usize, Vec<(String, bool, String)>) {
    let (ours, removed) = opgen_keys(old, new);
    // crdify compares a removed property with an empty schema: its type, enum, default...
    // "changes" there say again that the field is gone.
    let theirs: BTreeSet<Key> = crdify_keys(crdify)
        .into_iter()
        .filter(|(_, p, r)| {
            r == "existingFieldRemoval"
                || !removed
                    .iter()
                    .any(|gone| p == gone || p.starts_with(&format!("{gone}.")))
        })
        .collect();
    let agreed = ours.intersection(&theirs).count();
    let mut disagreements = Vec::new();
    for key in theirs.difference(&ours) {
        disagreements.push((key.2.clone(), true, format!("{what} {} {}", key.0, key.1)));
    }
    for key in ours.difference(&theirs) {
        disagreements.push((key.2.clone(), false, format!("{what} {} {}", key.0, key.1)));
    }
    (agreed, disagreements)
}

/// Every pair crdify judged: (old CRD file, new CRD file, its recorded verdict).
fn judged_pairs() -> Vec<(PathBuf, PathBuf, PathBuf)> {
    let mut pairs = Vec::new();
    for entry in std::fs::read_dir(fixtures().join("pairs")).unwrap() {
        let case = entry.unwrap().path();
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let verdict = fixtures().join(format!("crdify/{name}.json"));
        pairs.push((case.join("old.yaml"), case.join("new.yaml"), verdict));
    }
    for release in support::RELEASE_PAIRS {
        let Some((old_dir, new_dir)) = release.crd_dirs() else {
            continue;
        };
        let verdicts = fixtures().join(format!("crdify/{}/{}", release.project, release.span()));
        for (stem, _) in support::ReleasePair::crds(&old_dir) {
            let new = new_dir.join(format!("{stem}.yaml"));
            if new.is_file() {
                let verdict = verdicts.join(format!("{stem}.json"));
                pairs.push((old_dir.join(format!("{stem}.yaml")), new, verdict));
            }
        }
    }
    pairs.sort();
    pairs.dedup();
    pairs
}

/// Whether a CRD file serves two versions or more: crdify then compares the served versions
/// pairwise, and that part of its report is not deterministic at commit 54162f2 (on
/// cluster-api's ClusterResourceSet v1.13.6..v1.14.2, 20 runs gave three different reports:
/// 14 empty, 3 the recorded one, 3 another).
fn serves_several_versions(crd_file: &Path) -> bool {
    documents(crd_file).iter().any(|crd| {
        crd["spec"]["versions"]
            .as_array()
            .is_some_and(|v| v.iter().filter(|v| v["served"] == true).count() > 1)
    })
}

/// crdify itself, where tools/crdify/setup.sh built it, on every pair: its report says what the
/// recorded one says as the comparison below reads them (the (version, property, rule) it
/// flags, and whether it flags the pair at all), without the served-version comparison where
/// that is not deterministic ([`serves_several_versions`]). Its reports are not compared byte
/// for byte: crdify walks Go maps, and the order and grouping of its entries change from run
/// to run.
#[test]
fn recorded_verdicts_are_what_crdify_says() {
    let Some(crdify) = std::env::var_os("CRDIFY") else {
        eprintln!(
            "diff_crdify: crdify is not built (tools/crdify/setup.sh): its recorded verdicts are not re-checked"
        );
        return;
    };
    let pairs = judged_pairs();
    assert!(pairs.len() > 60, "{} pairs", pairs.len());
    let mut served_left_out = 0;
    for (old, new, verdict) in &pairs {
        let out = Command::new(&crdify)
            .arg(format!("file://{}", old.display()))
            .arg(format!("file://{}", new.display()))
            .args(["-o", "json"])
            .output()
            .unwrap_or_else(|e| panic!("{}: {e}", Path::new(&crdify).display()));
        let recorded = std::fs::read_to_string(verdict)
            .unwrap_or_else(|e| panic!("{}: {e}", verdict.display()));
        let mut recorded: Value = serde_json::from_str(&recorded).unwrap();
        let mut live: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "crdify's output is not JSON ({e}): {}",
                String::from_utf8_lossy(&out.stdout)
            )
        });
        if serves_several_versions(old) || serves_several_versions(new) {
            for report in [&mut recorded, &mut live] {
                if let Some(report) = report.as_object_mut() {
                    report.remove("servedVersionValidation");
                }
            }
            served_left_out += 1;
        }
        assert!(
            crdify_keys(&live) == crdify_keys(&recorded)
                && crdify_flags(&live) == crdify_flags(&recorded),
            "crdify on {} and {} no longer says what {} records ({})",
            old.display(),
            new.display(),
            verdict.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    eprintln!(
        "diff_crdify: crdify says today what its recorded reports say on {} pairs ({served_left_out} without their served-version comparison)",
        pairs.len()
    );
}

#[test]
fn opgen_agrees_with_crdify_wherever_crdify_has_a_rule() {
    let mut pairs: Vec<(Vec<Value>, Vec<Value>, Value, String)> = Vec::new();
    for entry in std::fs::read_dir(fixtures().join("pairs")).unwrap() {
        let case = entry.unwrap().path();
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let crdify: Value = serde_json::from_str(
            &std::fs::read_to_string(fixtures().join(format!("crdify/{name}.json"))).unwrap(),
        )
        .unwrap();
        pairs.push((
            documents(&case.join("old.yaml")),
            documents(&case.join("new.yaml")),
            crdify,
            name,
        ));
    }
    let corpus = pairs.len();
    let mut judged_releases = Vec::new();
    for release in support::RELEASE_PAIRS {
        let Some((old_dir, new_dir)) = release.crd_dirs() else {
            continue;
        };
        judged_releases.push(format!("{} {}", release.project, release.span()));
        let verdicts = fixtures().join(format!("crdify/{}/{}", release.project, release.span()));
        let new_crds = support::ReleasePair::crds(&new_dir);
        for (stem, old) in support::ReleasePair::crds(&old_dir) {
            let Some((_, new)) = new_crds.iter().find(|(s, _)| *s == stem) else {
                continue;
            };
            let verdict = verdicts.join(format!("{stem}.json"));
            let crdify: Value = serde_json::from_str(&std::fs::read_to_string(&verdict).unwrap())
                .unwrap_or_else(|e| panic!("{}: {e}", verdict.display()));
            pairs.push((
                vec![old],
                vec![new.clone()],
                crdify,
                format!("{} {} {stem}", release.project, release.span()),
            ));
        }
    }
    let (mut agreed, mut by_class, mut unexplained) = (0, BTreeMap::new(), Vec::new());
    let (mut pair_verdicts_agreed, mut only_one) = (0, Vec::new());
    for (old, new, crdify, what) in &pairs {
        let (n, disagreements) = judge(old, new, crdify, what);
        agreed += n;
        // Per pair, whether each flags anything (crdify's unhandled changes count, its
        // description changes do not): where only opgen does, crdify has no rule.
        let crdify_fails = crdify_flags(crdify);
        let opgen_fails =
            compat::compare(old, new, true).verdict(Strictness::Client) != Severity::Compatible;
        if crdify_fails == opgen_fails {
            pair_verdicts_agreed += 1;
        } else {
            only_one.push(what.clone());
        }
        for (rule, crdify_only, at) in disagreements {
            match KNOWN.iter().find(|k| k.0 == rule && k.1 == crdify_only) {
                Some(known) => by_class.entry(known.0).or_insert_with(Vec::new).push(at),
                None => unexplained.push(format!(
                    "{rule} flagged by {} only: {at}",
                    if crdify_only { "crdify" } else { "opgen" }
                )),
            }
        }
    }
    let disagreeing: usize = by_class.values().map(Vec::len).sum::<usize>() + unexplained.len();
    eprintln!(
        "crdify agreement: {agreed} findings matched, {disagreeing} disagreements ({} pairs: {corpus} corpus, {} CRDs of releases {}); pairs judged alike: {pair_verdicts_agreed}/{}",
        pairs.len(),
        pairs.len() - corpus,
        judged_releases.join(", "),
        pairs.len()
    );
    eprintln!("  pairs flagged by one tool only: {}", only_one.join(", "));
    let unexplained_pairs: Vec<&String> = only_one
        .iter()
        .filter(|p| !ONE_TOOL_ONLY.iter().any(|(known, _)| known == p))
        .collect();
    assert!(
        unexplained_pairs.is_empty(),
        "pairs only one tool flags, without a reason in ONE_TOOL_ONLY: {unexplained_pairs:?}"
    );
    for (class, at) in &by_class {
        eprintln!("  known ({class}): {} — e.g. {}", at.len(), at[0]);
    }
    assert!(
        unexplained.is_empty(),
        "disagreements with crdify no KNOWN entry explains:\n{}",
        unexplained.join("\n")
    );
    assert!(agreed > 0);
}
