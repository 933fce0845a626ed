//! What serde sends is what the schema accepts: a kind's Rust type and its CRD checked against
//! each other on the API server, with objects drawn from the CRD's schema and values drawn
//! from the Rust type.
//!
//! For each object the schema describes (types, formats, enums, bounds, lengths, item counts,
//! patterns, optional properties present or not):
//! - the API server's view first: the object is created (dry run, so no controller sees it);
//!   what the server keeps, defaults included, must deserialize into the Rust type and
//!   serialize back unchanged, or the operator loses or rewrites data it reads;
//! - then serde's: the Rust value serde makes of the object is sent as a create and as a
//!   server-side apply; the server must accept both and keep exactly what serde sent plus the
//!   schema's own defaults: no field pruned, no `null` dropped or refused, no default the
//!   schema does not declare.
//!
//! Then values of the Rust type itself (`from_type.rs`: its fields, variants and options,
//! within the schema's bounds where the schema has the place), which reach what a draw from
//! the schema cannot: a field the schema lacks that serde leaves out when empty, a variant
//! its enum lacks. Each is created and server-side applied as serde sends it, and must be
//! kept as sent plus the schema's defaults; where the schema has no rule the draws leave
//! unsolved and every object drawn from it was accepted, a refusal of it is a disagreement
//! too.
//!
//! With the status subresource, the status goes through it (a real object, deleted after).
//! Objects the server refuses for their own sake (CEL rules the generator does not solve,
//! `oneOf`) are counted, not disagreements; when root rules read `metadata.name`, an object
//! refused is tried again under names built from those rules (`names.rs`). Draws are reproducible: `OPGEN_AGREEMENT_SEED`
//! picks the seed (by default one from the CRD's name), `OPGEN_AGREEMENT_CASES` the number of
//! objects of each kind of draw (32). Cases go to the API server eight at a time; their findings
//! are merged in case order, as a case-by-case run would list them.

mod compare;
mod from_type;
mod generate;
mod names;

use std::path::{Path, PathBuf};

use futures::{StreamExt, TryStreamExt, stream};
use kube::{
    Api, Client, Resource,
    api::{ApiResource, DeleteParams, DynamicObject, Patch, PatchParams, PostParams},
};
use serde::{Serialize, de::DeserializeOwned};
use serde_json::Value;

use crate::{Error, apply::parse_documents_of};
use generate::Rng;

const FIELD_MANAGER: &str = "opgen-envtest-agreement";
const DEFAULT_CASES: u32 = 32;
/// Cases sent to the API server at once: its answers, not the client, are what a case waits on.
const IN_FLIGHT: usize = 8;
/// Mixed into the seed of the values drawn from the Rust type, so that they are not the
/// schema's draws again.
const TYPED_STREAM: u64 = 0x7479_7065_6400_0000;

/// The agreement check of one kind: the CRDs it is looked up in, the namespace its objects go
/// to (ignored for a cluster-scoped kind), the number of objects and the seed.
#[derive(Clone)]
pub struct Agreement {
    client: Client,
    crds: PathBuf,
    namespace: String,
    cases: u32,
    seed: Option<u64>,
    status_subresource: bool,
}

/// What [`Agreement::check`] found.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// `<plural>.<group>/<version>`.
    pub kind: String,
    pub seed: u64,
    /// Objects drawn from the schema.
    pub cases: u32,
    /// Those the API server accepted (the others broke a rule the generator does not solve).
    pub accepted: u32,
    /// Why the first refused objects were refused.
    pub refusals: Vec<String>,
    /// The schema's root CEL rules that read `metadata.name`, which the drawn names were
    /// built from.
    pub name_rules: Vec<String>,
    /// Each place where serde and the schema disagree, with the case that shows it.
    pub disagreements: Vec<String>,
    /// Why the version was not checked: it is not served, or not the one stored (the API
    /// server converts it, so what it keeps is another version's).
    pub not_checked: Option<String>,
    /// Values drawn from the Rust type (its fields, variants and options, within the
    /// schema's bounds where it has the place), each sent as serde serializes it.
    pub typed_cases: u32,
    /// Those the API server accepted. Where the schema has no rules the check cannot solve
    /// (CEL, `oneOf`, ...) and the server accepted every object drawn from the schema, a
    /// refusal is a disagreement: the type holds a value the schema refuses.
    pub typed_accepted: u32,
    /// Why the first values of the type could not be drawn.
    pub undrawn: Vec<String>,
}

impl Report {
    /// Panics with every disagreement, and when the server accepted no object at all (then
    /// nothing was checked).
    pub fn assert_agreed(&self) {
        if let Some(why) = &self.not_checked {
            eprintln!("{}: not checked: {why}", self.kind);
            return;
        }
        let rerun = format!("OPGEN_AGREEMENT_SEED={} reproduces it", self.seed);
        assert!(
            self.disagreements.is_empty(),
            "{}: serde and the CRD schema disagree ({rerun}; a CRD older than the type shows so \
             too: `make manifests` first):\n{}",
            self.kind,
            self.disagreements.join("\n")
        );
        let names = match self.name_rules.as_slice() {
            [] => String::new(),
            rules => format!(
                ", each also under names built from its rules on metadata.name (`{}`)",
                rules.join("`, `")
            ),
        };
        assert!(
            self.accepted > 0,
            "{}: the CRD's rules refused {} of {} drawn objects{names}, so nothing was checked \
             ({rerun}); the first because:\n{}",
            self.kind,
            self.cases - self.accepted,
            self.cases,
            self.refusals.join("\n")
        );
    }
}

/// The kind's CRD version as the check reads it.
struct Target {
    api: Api<DynamicObject>,
    schema: Value,
    api_version: String,
    kind: String,
    status_subresource: bool,
    /// See [`Report::not_checked`].
    not_checked: Option<String>,
}

impl Agreement {
    /// The check of a kind whose CRD is among the files of `crds` (a file or directory, as
    /// [`crate::install_crds`] takes), its objects in `namespace`.
    pub fn new(client: &Client, crds: impl AsRef<Path>, namespace: &str) -> Self {
        let cases = std::env::var("OPGEN_AGREEMENT_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(DEFAULT_CASES);
        let seed = std::env::var("OPGEN_AGREEMENT_SEED")
            .ok()
            .and_then(|s| s.parse().ok());
        Agreement {
            client: client.clone(),
            crds: crds.as_ref().to_owned(),
            namespace: namespace.to_owned(),
            cases,
            seed,
            status_subresource: true,
        }
    }

    /// Leaves out the status written through its subresource, which needs real objects: for
    /// a kind whose controller runs beside the check and watches every namespace, so that its
    /// writes do not mix with the check's.
    pub fn without_status_writes(mut self) -> Self {
        self.status_subresource = false;
        self
    }

    /// Draws the objects and checks each; `Err` only when the API server cannot be used.
    pub async fn check<K>(self) -> Result<Report, Error>
    where
        K: Resource<DynamicType = ()> + Serialize + DeserializeOwned,
    {
        // Its own CRD only: a kind's checks in a row would otherwise send the API server every
        // CRD of the directory again for each (megabytes, for the corpus's largest projects).
        let (file, crd) = self.crd_of::<K>()?;
        crate::apply::install_crd_documents(&self.client, vec![(file, crd.clone())]).await?;
        let target = self.target::<K>(&crd)?;
        let seed = self.seed.unwrap_or_else(|| fnv1a(&target.kind));
        let mut report = Report {
            kind: target.kind.clone(),
            seed,
            cases: self.cases,
            name_rules: names::name_rules(&target.schema)
                .into_iter()
                .map(str::to_owned)
                .collect(),
            not_checked: target.not_checked.clone(),
            ..Report::default()
        };
        if report.not_checked.is_some() {
            report.cases = 0;
            return Ok(report);
        }
        if target.api.namespace().is_some() {
            crate::control_plane::ensure_namespace(&self.client, &self.namespace).await?;
        }
        // Case 0 alone first: the name it was accepted under is where every other case starts
        // (a kind whose rules refuse the default names tries the others once, not per case).
        // The rest go to the API server a few at a time, their findings merged in case order.
        let mut outcomes = Vec::new();
        let mut hint = 0;
        if self.cases > 0 {
            let first = self.schema_case::<K>(&target, seed, 0, 0).await?;
            hint = first.accepted_name;
            outcomes.push(first);
        }
        outcomes.extend(
            stream::iter(1..self.cases)
                .map(|case| self.schema_case::<K>(&target, seed, case, hint))
                .buffered(IN_FLIGHT)
                .try_collect::<Vec<_>>()
                .await?,
        );
        let mut findings = Findings::default();
        for outcome in outcomes {
            report.accepted += outcome.accepted;
            outcome.merge_into(&mut report, &mut findings);
        }
        // A refusal is the type's only where nothing else can explain it: the schema has no
        // rule the draws leave unsolved, and every object drawn from it was accepted.
        let refusals_are_counted =
            generate::has_unsolved_rules(&target.schema) || report.accepted < report.cases;
        let typed = stream::iter(0..self.cases)
            .map(|case| self.typed_case::<K>(&target, seed, case, hint, refusals_are_counted))
            .buffered(IN_FLIGHT)
            .try_collect::<Vec<_>>()
            .await?;
        for outcome in typed {
            report.typed_cases += 1;
            report.typed_accepted += outcome.accepted;
            outcome.merge_into(&mut report, &mut findings);
        }
        report.disagreements = findings.lines();
        eprintln!(
            "{}: {} objects drawn from the schema (seed {seed}), {} accepted; {} drawn from the \
             Rust type, {} accepted; {} disagreements{}{}",
            report.kind,
            report.cases,
            report.accepted,
            report.typed_cases - report.undrawn.len() as u32,
            report.typed_accepted,
            report.disagreements.len(),
            match report.refusals.first() {
                Some(first) => format!("; the first refused: {first}"),
                None => String::new(),
            },
            match report.undrawn.first() {
                Some(first) => format!("; the type could not be drawn: {first}"),
                None => String::new(),
            }
        );
        Ok(report)
    }

    /// Object `case` drawn from the schema, checked on its own.
    async fn schema_case<K>(
        &self,
        target: &Target,
        seed: u64,
        case: u32,
        hint: usize,
    ) -> Result<Outcome, Error>
    where
        K: Resource<DynamicType = ()> + Serialize + DeserializeOwned,
    {
        let mut rng = Rng::new(seed.wrapping_add(case.into()));
        let object = generate::object_of(
            &target.schema,
            &target.api_version,
            K::kind(&()).as_ref(),
            &format!("agreement-{case}"),
            &mut rng,
        );
        let mut naming = Names::for_case(&target.schema, case, hint, &mut rng);
        let mut outcome = Outcome::of(format!("case {case}"));
        self.check_case::<K>(target, object, &mut naming, &mut outcome)
            .await?;
        outcome.accepted_name = naming.accepted;
        Ok(outcome)
    }

    /// Value `case` drawn from the Rust type, checked on its own.
    async fn typed_case<K>(
        &self,
        target: &Target,
        seed: u64,
        case: u32,
        hint: usize,
        refusals_are_counted: bool,
    ) -> Result<Outcome, Error>
    where
        K: Resource<DynamicType = ()> + Serialize + DeserializeOwned,
    {
        let mut rng = Rng::new(seed.rotate_left(17) ^ u64::from(case) ^ TYPED_STREAM);
        let top = serde_json::json!({
            "apiVersion": target.api_version,
            "kind": K::kind(&()),
            "metadata": {"name": format!("typed-{case}")},
        });
        let drawn = from_type::draw::<K>(&target.schema, &top, &mut rng);
        let mut naming = Names::for_case(&target.schema, case, hint, &mut rng);
        let mut outcome = Outcome::of(format!("case {case} of the type's"));
        match drawn {
            Ok(value) => {
                let sent = to_json(&value);
                self.check_typed_case::<K>(
                    target,
                    sent,
                    &mut naming,
                    refusals_are_counted,
                    &mut outcome,
                )
                .await?;
            }
            Err(why) => outcome.undrawn = Some(why),
        }
        Ok(outcome)
    }

    /// A value drawn from the Rust type, as serde sends it: created (under a name the rules
    /// take) and server-side applied, the server must keep it with the schema's defaults,
    /// and what it keeps must read back. A refused create is a refusal where
    /// `refusals_are_counted`, else a disagreement.
    async fn check_typed_case<K>(
        &self,
        target: &Target,
        mut sent: Value,
        naming: &mut Names,
        refusals_are_counted: bool,
        outcome: &mut Outcome,
    ) -> Result<(), Error>
    where
        K: Resource<DynamicType = ()> + Serialize + DeserializeOwned,
    {
        let schema = &target.schema;
        let kept = match naming.create_under_one(target, &mut sent).await {
            Ok(kept) => kept,
            Err(refusal) => {
                let refusal = refusal?;
                if refusals_are_counted {
                    outcome.refusals.push(refusal);
                } else {
                    // One finding for each cause, whatever the object's name.
                    let name = sent["metadata"]["name"].as_str().unwrap_or_default();
                    let cause = refusal.replace(&format!("\"{name}\""), "\"…\"");
                    outcome.findings.add(
                        format!("refused {}", first_line(&cause)),
                        format!(
                            "the API server refuses what serde sends of a value of the Rust \
                             type: {refusal}: {sent}"
                        ),
                    );
                }
                return Ok(());
            }
        };
        outcome.accepted += 1;
        let out = &mut outcome.findings;
        round_trip::<K>(schema, &kept, out);
        let expected = expected_of(target, &sent);
        kept_or_refused(schema, &expected, "a create", Ok(kept), out)?;
        let applied = apply(target, &sent).await;
        kept_or_refused(schema, &expected, "a server-side apply", applied, out)?;
        Ok(())
    }

    /// The CRD of `K` among the files of `crds`, and the file it is in.
    fn crd_of<K: Resource<DynamicType = ()>>(&self) -> Result<(PathBuf, Value), Error> {
        let (group, plural) = (K::group(&()), K::plural(&()));
        for file in crate::apply::yaml_files(&self.crds)? {
            // Only a file that names both can hold it: the others are not parsed.
            let text = std::fs::read_to_string(&file).map_err(|e| Error::io(&file, e))?;
            if !text.contains(plural.as_ref()) || !text.contains(group.as_ref()) {
                continue;
            }
            let crd = parse_documents_of(&file, &text)?.into_iter().find(|d| {
                d["kind"] == "CustomResourceDefinition"
                    && d["spec"]["group"] == group.as_ref()
                    && d["spec"]["names"]["plural"] == plural.as_ref()
            });
            if let Some(crd) = crd {
                return Ok((file, crd));
            }
        }
        Err(self.missing::<K>("no CustomResourceDefinition"))
    }

    fn missing<K: Resource<DynamicType = ()>>(&self, what: &str) -> Error {
        let (group, plural, version) = (K::group(&()), K::plural(&()), K::version(&()));
        Error::Yaml {
            path: self.crds.clone(),
            message: format!("{what} for {plural}.{group}/{version}"),
        }
    }

    fn target<K: Resource<DynamicType = ()>>(&self, crd: &Value) -> Result<Target, Error> {
        let (group, plural, version) = (K::group(&()), K::plural(&()), K::version(&()));
        let served = crd["spec"]["versions"]
            .as_array()
            .and_then(|vs| vs.iter().find(|v| v["name"] == version.as_ref()))
            .ok_or_else(|| self.missing::<K>("no version"))?;
        let versions = crd["spec"]["versions"].as_array().map_or(0, Vec::len);
        let not_checked = if served["served"] == false {
            Some(format!("{version} is not served"))
        } else if versions > 1 && served["storage"] != true {
            Some(format!(
                "{version} is not the storage version: the API server converts it (through the \
                 conversion webhook, or by its apiVersion alone), so what it keeps is another \
                 version's"
            ))
        } else {
            None
        };
        let resource = ApiResource::erase::<K>(&());
        let api = if crd["spec"]["scope"] == "Namespaced" {
            Api::namespaced_with(self.client.clone(), &self.namespace, &resource)
        } else {
            Api::all_with(self.client.clone(), &resource)
        };
        Ok(Target {
            api,
            schema: with_scale_bounds(served),
            api_version: K::api_version(&()).into_owned(),
            kind: format!("{plural}.{group}/{version}"),
            status_subresource: served["subresources"]["status"].is_object(),
            not_checked,
        })
    }

    async fn check_case<K>(
        &self,
        target: &Target,
        mut object: Value,
        naming: &mut Names,
        outcome: &mut Outcome,
    ) -> Result<(), Error>
    where
        K: Resource<DynamicType = ()> + Serialize + DeserializeOwned,
    {
        let schema = &target.schema;
        let created = naming.create_under_one(target, &mut object).await;
        let Some(stored) = refused_or(created, &mut outcome.refusals)? else {
            return Ok(());
        };
        outcome.accepted += 1;
        let out = &mut outcome.findings;
        // The server's view: what it keeps must survive the Rust type.
        round_trip::<K>(schema, &stored, out);
        // serde's view: what serde makes of the object is what the server keeps.
        let Ok(sent) = serde_json::from_value::<K>(object.clone()).map(|k| to_json(&k)) else {
            return Ok(()); // the round trip above reported the refusal
        };
        let expected = expected_of(target, &sent); // the status is checked below
        // Where serde sends the object as drawn, its create is the one just answered.
        let created = if sent == object {
            Ok(stored)
        } else {
            create(target, &sent, true).await
        };
        for (how, result) in [
            ("a create", created),
            ("a server-side apply", apply(target, &sent).await),
        ] {
            kept_or_refused(schema, &expected, how, result, out)?;
        }
        let has_status = |v: &Value| v.get("status").is_some_and(|s| !s.is_null());
        if target.status_subresource
            && self.status_subresource
            && has_status(&object)
            && has_status(&sent)
        {
            self.check_status::<K>(target, &object, &sent, outcome)
                .await?;
        }
        Ok(())
    }

    /// The status through its subresource: on a real object, since a status update needs one.
    async fn check_status<K>(
        &self,
        target: &Target,
        object: &Value,
        sent: &Value,
        outcome: &mut Outcome,
    ) -> Result<(), Error>
    where
        K: Resource<DynamicType = ()> + Serialize + DeserializeOwned,
    {
        let name = object["metadata"]["name"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let refusals = &mut outcome.refusals;
        let Some(created) = refused_or(create(target, sent, false).await, refusals)? else {
            return Ok(());
        };
        let stored = refused_or(apply_status(target, &name, object).await, refusals)?;
        let out = &mut outcome.findings;
        if let Some(stored) = stored {
            round_trip::<K>(&target.schema, &stored, out);
            match apply_status(target, &name, sent).await {
                Ok(kept) => {
                    let status = |v: &Value| serde_json::json!({"status": v["status"]});
                    // The status the API server defaulted at creation stays where the apply
                    // does not replace it (conditions of other types, as Gateway API's
                    // pending ones): server-side apply merges.
                    let mut expected =
                        compare::applied_over(&target.schema, &status(&created), &status(sent));
                    compare::defaulted(&target.schema, &mut expected);
                    sent_and_kept(
                        &target.schema,
                        &expected,
                        &status(&kept),
                        "a status update",
                        out,
                    );
                }
                Err(refusal) => out.add(
                    "refused a status update".into(),
                    format!(
                        "the API server refuses a status update of what serde sends: {}",
                        refusal?
                    ),
                ),
            }
        }
        target
            .api
            .delete(&name, &DeleteParams::default())
            .await
            .map_err(|e| Error::kube(format!("deleting {name}"), e))?;
        Ok(())
    }
}

/// The names an object is tried under (see `names.rs`), and the one tried first: the one the
/// API server accepted for case 0.
struct Names {
    candidates: Vec<String>,
    accepted: usize,
}

impl Names {
    /// Case `case`'s names, tried from the one at `hint`.
    fn for_case(schema: &Value, case: u32, hint: usize, rng: &mut Rng) -> Self {
        Names {
            candidates: names::candidates(schema, case, rng),
            accepted: hint,
        }
    }

    /// The dry-run create of `object` under the first name the server accepts, which `object`
    /// keeps; the first refusal when it accepts none.
    async fn create_under_one(&mut self, target: &Target, object: &mut Value) -> Answer {
        let others = (0..self.candidates.len()).filter(|i| *i != self.accepted);
        let order = std::iter::once(self.accepted)
            .filter(|i| *i < self.candidates.len())
            .chain(others);
        let mut first_refusal = None;
        for i in order {
            object["metadata"]["name"] = Value::String(self.candidates[i].clone());
            match create(target, object, true).await {
                Err(Ok(refusal)) => {
                    first_refusal.get_or_insert(refusal);
                }
                answer => {
                    self.accepted = i;
                    return answer;
                }
            }
        }
        Err(Ok(first_refusal.unwrap_or_default()))
    }
}

/// `Ok(Some(object))`, or `Ok(None)` keeping a refusal, or the error that is not one.
fn refused_or(
    result: Result<Value, Result<String, Error>>,
    refusals: &mut Vec<String>,
) -> Result<Option<Value>, Error> {
    match result {
        Ok(object) => Ok(Some(object)),
        Err(refusal) => {
            refusals.push(refusal?);
            Ok(None)
        }
    }
}

/// What one case found, merged into the report in case order.
#[derive(Default)]
struct Outcome {
    /// Objects the server accepted (0 or 1).
    accepted: u32,
    refusals: Vec<String>,
    findings: Findings,
    /// Why the type's value could not be drawn.
    undrawn: Option<String>,
    /// The index of the name the create was accepted under (see [`Names`]).
    accepted_name: usize,
}

impl Outcome {
    fn of(case: String) -> Self {
        Outcome {
            findings: Findings {
                case,
                ..Findings::default()
            },
            ..Outcome::default()
        }
    }

    /// Its refusals and why its value could not be drawn (the report keeps the first three of
    /// each), and its findings.
    fn merge_into(self, report: &mut Report, findings: &mut Findings) {
        let room = 3usize.saturating_sub(report.refusals.len());
        report.refusals.extend(self.refusals.into_iter().take(room));
        if report.undrawn.len() < 3 {
            report.undrawn.extend(self.undrawn);
        }
        findings.merge(self.findings);
    }
}

/// The object the server kept must come back unchanged through `K`.
fn round_trip<K: Serialize + DeserializeOwned>(schema: &Value, stored: &Value, out: &mut Findings) {
    match serde_json::from_value::<K>(stored.clone()) {
        Ok(k) => {
            let (mut stored, mut again) = (stored.clone(), to_json(&k));
            without(&mut stored, "metadata");
            without(&mut again, "metadata");
            for d in compare::differences(
                schema,
                &stored,
                &again,
                compare::Sides {
                    names: ("the API server", "its round trip through serde"),
                    go_equal: true,
                },
            ) {
                out.add(
                    format!("round trip {}", path_of(&d)),
                    format!("the Rust type does not read back what the API server keeps: {d}"),
                );
            }
        }
        Err(e) => out.add(
            e.to_string(),
            format!("the Rust type refuses an object the API server accepted ({e}): {stored}"),
        ),
    }
}

/// What serde sent as a create or an apply keeps it: without the status (a create drops it,
/// the subresource takes it), with the schema's defaults.
fn expected_of(target: &Target, sent: &Value) -> Value {
    let mut expected = sent.clone();
    if target.status_subresource {
        without(&mut expected, "status");
    }
    compare::defaulted(&target.schema, &mut expected);
    expected
}

/// `how`'s answer to what serde sent: kept as `expected`, or a refusal, each a finding.
fn kept_or_refused(
    schema: &Value,
    expected: &Value,
    how: &str,
    answer: Answer,
    out: &mut Findings,
) -> Result<(), Error> {
    match answer {
        Ok(kept) => sent_and_kept(schema, expected, &kept, how, out),
        Err(refusal) => out.add(
            format!("refused {how}"),
            format!(
                "the API server refuses {how} of what serde sends: {}",
                refusal?
            ),
        ),
    }
    Ok(())
}

fn sent_and_kept(schema: &Value, expected: &Value, kept: &Value, how: &str, out: &mut Findings) {
    let (mut expected, mut kept) = (expected.clone(), kept.clone());
    without(&mut expected, "metadata");
    without(&mut kept, "metadata");
    let sides = compare::Sides {
        names: (
            "serde sent (with the schema's defaults)",
            "the API server kept",
        ),
        go_equal: false,
    };
    for d in compare::differences(schema, &expected, &kept, sides) {
        out.add(
            format!("{how} {}", path_of(&d)),
            format!("{how} does not keep what serde sends: {d}"),
        );
    }
}

/// The path a line of [`compare::differences`] starts with.
fn path_of(difference: &str) -> &str {
    difference.split(": ").next().unwrap_or(difference)
}

/// The disagreements found so far, each once: the first case that shows it, and how many
/// others do.
#[derive(Default)]
struct Findings {
    case: String,
    /// (key, message, first case, other cases)
    seen: Vec<(String, String, String, u32)>,
}

impl Findings {
    fn add(&mut self, key: String, message: String) {
        match self.seen.iter_mut().find(|seen| seen.0 == key) {
            Some(seen) => seen.3 += 1,
            None => self.seen.push((key, message, self.case.clone(), 0)),
        }
    }

    /// Those of a later case.
    fn merge(&mut self, later: Findings) {
        for (key, message, case, others) in later.seen {
            match self.seen.iter_mut().find(|seen| seen.0 == key) {
                Some(seen) => seen.3 += 1 + others,
                None => self.seen.push((key, message, case, others)),
            }
        }
    }

    fn lines(&self) -> Vec<String> {
        self.seen
            .iter()
            .map(|(_, message, case, others)| match others {
                0 => format!("{case}: {message}"),
                n => format!("{case} (and {n} more): {message}"),
            })
            .collect()
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or(text)
}

fn without(object: &mut Value, key: &str) {
    if let Some(object) = object.as_object_mut() {
        object.remove(key);
    }
}

fn to_json<K: Serialize>(k: &K) -> Value {
    serde_json::to_value(k)
        .unwrap_or_else(|e| Value::String(format!("serde cannot serialize it: {e}")))
}

/// A request's answer: the object, or `Err(Ok(why))` when the API server refused it, or
/// `Err(Err(_))` when it could not be asked.
type Answer = Result<Value, Result<String, Error>>;

fn answer(result: Result<DynamicObject, kube::Error>, what: &str) -> Answer {
    match result {
        Ok(object) => Ok(serde_json::to_value(object).unwrap_or_default()),
        Err(kube::Error::Api(status)) => Err(Ok(format!("{} ({})", status.message, status.code))),
        Err(e) => Err(Err(Error::kube(what, e))),
    }
}

fn dynamic(object: &Value) -> Result<DynamicObject, Result<String, Error>> {
    serde_json::from_value(object.clone()).map_err(|e| Ok(format!("not an object: {e}")))
}

async fn create(target: &Target, object: &Value, dry_run: bool) -> Answer {
    let params = PostParams {
        dry_run,
        field_manager: Some(FIELD_MANAGER.into()),
    };
    answer(
        target.api.create(&params, &dynamic(object)?).await,
        "creating an object",
    )
}

async fn apply(target: &Target, object: &Value) -> Answer {
    let mut params = PatchParams::apply(FIELD_MANAGER).force();
    params.dry_run = true;
    let name = object["metadata"]["name"].as_str().unwrap_or_default();
    answer(
        target.api.patch(name, &params, &Patch::Apply(object)).await,
        "applying an object",
    )
}

async fn apply_status(target: &Target, name: &str, object: &Value) -> Answer {
    let mut params = PatchParams::apply(FIELD_MANAGER).force();
    params.dry_run = true;
    let body = serde_json::json!({
        "apiVersion": object["apiVersion"],
        "kind": object["kind"],
        "metadata": {"name": name},
        "status": object["status"],
    });
    answer(
        target
            .api
            .patch_status(name, &params, &Patch::Apply(&body))
            .await,
        "applying a status",
    )
}

/// The version's schema, with the bounds the API server gives the replica counts of a scale
/// subresource (non-negative, within int32) on the properties its paths name, so that draws
/// respect them as they respect the schema's own.
fn with_scale_bounds(version: &Value) -> Value {
    let mut schema = version["schema"]["openAPIV3Schema"].clone();
    let scale = &version["subresources"]["scale"];
    for path in ["specReplicasPath", "statusReplicasPath"] {
        let Some(path) = scale[path].as_str() else {
            continue;
        };
        let node = path
            .trim_start_matches('.')
            .split('.')
            .try_fold(&mut schema, |node, name| {
                node.get_mut("properties")?.get_mut(name)
            });
        if let Some(node) = node.and_then(Value::as_object_mut) {
            let minimum = node.get("minimum").and_then(Value::as_i64).unwrap_or(0);
            let maximum = node.get("maximum").and_then(Value::as_i64);
            node.insert("minimum".into(), minimum.max(0).into());
            let int32 = i64::from(i32::MAX);
            node.insert(
                "maximum".into(),
                maximum.map_or(int32, |m| m.min(int32)).into(),
            );
        }
    }
    schema
}

/// FNV-1a: a default seed that stays the same for a kind across runs and machines.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{Findings, with_scale_bounds};

    #[test]
    fn findings_merged_case_by_case_read_as_one_run_found_them() {
        let cases = [
            ("case 0", vec!["a", "b"]),
            ("case 1", vec![]),
            ("case 2", vec!["b", "c", "b"]),
            ("case 3", vec!["a"]),
        ];
        let mut one_run = Findings::default();
        let mut merged = Findings::default();
        for (case, keys) in &cases {
            one_run.case = (*case).to_owned();
            let mut own = Findings {
                case: (*case).to_owned(),
                seen: Vec::new(),
            };
            for key in keys {
                one_run.add((*key).to_owned(), format!("{key} in {case}"));
                own.add((*key).to_owned(), format!("{key} in {case}"));
            }
            merged.merge(own);
        }
        assert_eq!(merged.lines(), one_run.lines());
        assert_eq!(
            merged.lines(),
            [
                "case 0 (and 1 more): a in case 0",
                "case 0 (and 2 more): b in case 0",
                "case 2: c in case 2",
            ]
        );
    }

    #[test]
    fn a_scale_subresources_replicas_get_the_api_servers_bounds() {
        let version = json!({
            "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                "spec": {"type": "object", "properties": {
                    "replicas": {"type": "integer", "maximum": 5_000_000_000_i64},
                }},
                "status": {"type": "object", "properties": {
                    "replicas": {"type": "integer", "minimum": 1},
                }},
            }}},
            "subresources": {"scale": {
                "specReplicasPath": ".spec.replicas",
                "statusReplicasPath": ".status.replicas",
            }},
        });
        let schema = with_scale_bounds(&version);
        let properties = &schema["properties"];
        assert_eq!(
            properties["spec"]["properties"]["replicas"],
            json!({"type": "integer", "minimum": 0, "maximum": i32::MAX})
        );
        assert_eq!(
            properties["status"]["properties"]["replicas"],
            json!({"type": "integer", "minimum": 1, "maximum": i32::MAX})
        );
        // A path the schema does not have adds nothing.
        let mut missing = version.clone();
        missing["subresources"]["scale"]["specReplicasPath"] = json!(".spec.count");
        assert_eq!(
            with_scale_bounds(&missing)["properties"]["spec"],
            version["schema"]["openAPIV3Schema"]["properties"]["spec"]
        );
    }
}
