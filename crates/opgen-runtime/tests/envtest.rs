//! The runtime on a real API server (envtest: etcd and kube-apiserver from opgen-envtest):
//! leader election hands over between two managers, a controller's finalizer, status and
//! events land, and webhooks answer through the manager's HTTPS server.
//!
//! Without the control plane binaries (`bash tools/envtest/setup.sh`, or
//! `KUBEBUILDER_ASSETS`) each test prints how to get them and passes, except under CI.

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use clap::Parser;
use futures::FutureExt;
use k8s_openapi::api::{
    coordination::v1::Lease,
    core::v1::{ConfigMap, Namespace, Secret},
    events::v1::Event as K8sEvent,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::{
    Api, Client, CustomResource, ResourceExt,
    api::{DeleteParams, ListParams, PartialObjectMeta, PatchParams, PostParams},
    runtime::{controller::Action, events::EventType, reflector::ObjectRef, watcher},
};
use opgen_runtime::{
    Conditions, Context, ControllerEntry, Manager, ManagerArgs, Result,
    cache::Index,
    condition, controller, set_condition,
    watches::{Changed, Watches},
    webhook::{Defaulter, Route, ValidationResult, Validator, WebhookEntry},
};
use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio_util::sync::CancellationToken;

const TIMEOUT: Duration = Duration::from_secs(60);
const CRDS: &str = "tests/fixtures/crds.yaml";

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[kube(
    group = "runtime.opgen.dev",
    version = "v1",
    kind = "Widget",
    namespaced,
    status = "WidgetStatus",
    schema = "disabled"
)]
struct WidgetSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    size: Option<i32>,
    /// A Secret the widget refers to by name (the `Watches::references` test).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    secret: Option<String>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
struct WidgetStatus {
    /// Set by `Context::update_status` (the status-level `observedGeneration` test).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    observed_generation: Option<i64>,
    /// A field a merge patch removes (the `StatusWrite::Merge` test).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    note: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    conditions: Vec<Condition>,
}

#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[kube(
    group = "runtime.opgen.dev",
    version = "v1",
    kind = "Gadget",
    namespaced,
    schema = "disabled"
)]
struct GadgetSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    size: Option<i32>,
}

/// The manager's flags as a deployment passes them.
fn manager_args(args: &[&str]) -> ManagerArgs {
    #[derive(Parser)]
    struct Args {
        #[command(flatten)]
        manager: ManagerArgs,
    }
    let all = ["manager", "--health-probe-bind-address=0"].into_iter();
    Args::try_parse_from(all.chain(args.iter().copied()))
        .expect("flags parse")
        .manager
}

/// A manager of `controllers` on `client`, watching `namespace`, run until the token is
/// cancelled; its task returns how it stopped.
fn start_manager(
    name: &str,
    client: Client,
    controllers: &[ControllerEntry],
    namespace: &str,
) -> (CancellationToken, tokio::task::JoinHandle<Result<()>>) {
    start_manager_with(name, client, controllers, &["--namespace", namespace])
}

/// [`start_manager`] with the manager's flags given.
fn start_manager_with(
    name: &str,
    client: Client,
    controllers: &[ControllerEntry],
    flags: &[&str],
) -> (CancellationToken, tokio::task::JoinHandle<Result<()>>) {
    let shutdown = CancellationToken::new();
    let manager = Manager::new(name).client(client).controllers(controllers);
    let task = tokio::spawn(manager.run_until(manager_args(flags), shutdown.clone()));
    (shutdown, task)
}

async fn create_namespace(client: &Client, name: &str) {
    let namespace: Namespace =
        serde_json::from_value(json!({"metadata": {"name": name}})).expect("a Namespace");
    Api::<Namespace>::all(client.clone())
        .create(&PostParams::default(), &namespace)
        .await
        .expect("create the namespace");
}

async fn admin() -> Option<Client> {
    let control_plane = opgen_envtest::shared_or_skip().await?;
    let admin = control_plane.client().expect("admin client");
    opgen_envtest::install_crds(&admin, CRDS)
        .await
        .expect("install the test CRDs");
    Some(admin)
}

/// The managers (by name) whose controllers are running, in the order they started.
static LEADERS: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn leaders() -> Vec<String> {
    LEADERS.lock().expect("not poisoned").clone()
}

/// A controller that only records that it runs, until shutdown.
const RECORDER: ControllerEntry = ControllerEntry {
    name: "recorder",
    run: |ctx| {
        async move {
            LEADERS
                .lock()
                .expect("not poisoned")
                .push(ctx.manager_name.clone());
            ctx.shutdown.cancelled().await;
            Ok(())
        }
        .boxed()
    },
};

#[tokio::test]
async fn leader_election_hands_over_between_two_managers() {
    let Some(admin) = admin().await else {
        return;
    };
    const NAMESPACE: &str = "runtime-leader-election";
    const LEASE: &str = "runtime-test.opgen.dev";
    create_namespace(&admin, NAMESPACE).await;
    let args = manager_args(&["--leader-elect", "--leader-election-namespace", NAMESPACE]);
    let start = |name: &str| {
        let shutdown = CancellationToken::new();
        let manager = Manager::new(name)
            .lease_name(LEASE)
            .client(admin.clone())
            .controllers(&[RECORDER]);
        let task = tokio::spawn(manager.run_until(args.clone(), shutdown.clone()));
        (shutdown, task)
    };
    let leases: Api<Lease> = Api::namespaced(admin.clone(), NAMESPACE);
    let holder = || async {
        let lease = leases.get_opt(LEASE).await.ok()??;
        lease.spec?.holder_identity
    };

    let (stop_first, first) = start("first-manager");
    opgen_envtest::eventually("the first manager to lead", TIMEOUT, || async {
        leaders()
            .contains(&"first-manager".to_owned())
            .then_some(())
    })
    .await;
    let first_holder = holder().await.expect("the Lease names its holder");

    // A second candidate waits while the first one holds the Lease.
    let (stop_second, second) = start("second-manager");
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(leaders(), ["first-manager"]);
    assert_eq!(holder().await.as_ref(), Some(&first_holder));

    // The leader shuts down: it releases the Lease and the second one takes over.
    stop_first.cancel();
    first
        .await
        .expect("the first manager's task")
        .expect("the first manager stops cleanly");
    opgen_envtest::eventually("the second manager to lead", TIMEOUT, || async {
        leaders()
            .contains(&"second-manager".to_owned())
            .then_some(())
    })
    .await;
    let second_holder = holder().await.expect("the Lease names its holder");
    assert_ne!(second_holder, first_holder);
    assert_eq!(leaders(), ["first-manager", "second-manager"]);

    stop_second.cancel();
    second
        .await
        .expect("the second manager's task")
        .expect("the second manager stops cleanly");
}

const WIDGET_CONTROLLER: &str = "widget";
const FINALIZER: &str = "runtime.opgen.dev/finalizer";
/// The widgets whose cleanup ran, by name.
static CLEANED_UP: Mutex<Vec<String>> = Mutex::new(Vec::new());

const WIDGETS: ControllerEntry = ControllerEntry {
    name: WIDGET_CONTROLLER,
    run: |ctx| controller::run(ctx, WIDGET_CONTROLLER, reconcile, error_policy).boxed(),
};

async fn reconcile(widget: Arc<Widget>, ctx: Arc<Context>) -> Result<Action> {
    let _timer = ctx.metrics.reconcile_started(WIDGET_CONTROLLER);
    let namespace = widget.namespace().expect("a namespaced Widget");
    let api: Api<Widget> = Api::namespaced(ctx.client.clone(), &namespace);
    let (api, ctx) = (&api, &ctx);
    let action = controller::finalizer(
        api,
        FINALIZER,
        widget.clone(),
        |widget| async move {
            let mut status = widget.status.clone().unwrap_or_default();
            let message = format!("size {}", widget.spec.size.unwrap_or_default());
            set_condition(
                &mut status.conditions,
                condition(
                    "Available",
                    "True",
                    "Reconciled",
                    message,
                    widget.metadata.generation,
                ),
            );
            if Some(&status) != widget.status.as_ref() {
                ctx.patch_status(api, &*widget, &status).await?;
                ctx.publish_event(
                    &*widget,
                    EventType::Normal,
                    "Reconciled",
                    "Reconcile",
                    "the widget is available",
                )
                .await;
            }
            Ok(Action::await_change())
        },
        |widget| async move {
            CLEANED_UP
                .lock()
                .expect("not poisoned")
                .push(widget.name_any());
            Ok(Action::await_change())
        },
    )
    .await?;
    ctx.backoff.reset(&*widget);
    Ok(action)
}

fn error_policy(widget: Arc<Widget>, error: &opgen_runtime::Error, ctx: Arc<Context>) -> Action {
    ctx.error_policy(WIDGET_CONTROLLER, &*widget, error)
}

#[tokio::test]
async fn finalizers_status_and_events_land_on_the_api_server() {
    let Some(admin) = admin().await else {
        return;
    };
    const NAMESPACE: &str = "runtime-controller";
    create_namespace(&admin, NAMESPACE).await;
    let (shutdown, task) = start_manager("widget-operator", admin.clone(), &[WIDGETS], NAMESPACE);

    let widgets: Api<Widget> = Api::namespaced(admin.clone(), NAMESPACE);
    let mut widget = Widget::new(
        "sample",
        WidgetSpec {
            size: Some(3),
            ..WidgetSpec::default()
        },
    );
    widget.metadata.namespace = Some(NAMESPACE.into());
    widgets
        .create(&PostParams::default(), &widget)
        .await
        .expect("create the widget");

    let reconciled = opgen_envtest::eventually("Available=True in the status", TIMEOUT, || async {
        let widget = widgets.get("sample").await.ok()?;
        let available = widget.status.as_ref()?.conditions.first()?.clone();
        (available.type_ == "Available" && available.status == "True")
            .then_some((widget, available))
    })
    .await;
    let (widget, available) = reconciled;
    assert_eq!(widget.finalizers(), [FINALIZER]);
    assert_eq!(available.reason, "Reconciled");
    assert_eq!(available.message, "size 3");
    assert_eq!(available.observed_generation, Some(1));
    let managers: Vec<_> = widget
        .managed_fields()
        .iter()
        .filter(|entry| entry.subresource.as_deref() == Some("status"))
        .filter_map(|entry| entry.manager.clone())
        .collect();
    assert_eq!(
        managers,
        ["widget-operator"],
        "the status is applied by the manager"
    );

    let events: Api<K8sEvent> = Api::namespaced(admin.clone(), NAMESPACE);
    let event = opgen_envtest::eventually("the Reconciled event", TIMEOUT, || async {
        let list = events.list(&ListParams::default()).await.ok()?;
        list.items.into_iter().find(|event| {
            event.reason.as_deref() == Some("Reconciled")
                && event.regarding.as_ref().and_then(|r| r.name.as_deref()) == Some("sample")
        })
    })
    .await;
    assert_eq!(event.type_.as_deref(), Some("Normal"));
    assert_eq!(event.action.as_deref(), Some("Reconcile"));
    assert_eq!(
        event.reporting_controller.as_deref(),
        Some("widget-operator")
    );
    assert_eq!(event.note.as_deref(), Some("the widget is available"));

    // Deleting it runs the cleanup, then the finalizer goes and so does the object.
    widgets
        .delete("sample", &DeleteParams::default())
        .await
        .expect("delete the widget");
    opgen_envtest::eventually("the widget to be deleted", TIMEOUT, || async {
        widgets
            .get_opt("sample")
            .await
            .ok()?
            .is_none()
            .then_some(())
    })
    .await;
    assert_eq!(*CLEANED_UP.lock().expect("not poisoned"), ["sample"]);

    shutdown.cancel();
    task.await
        .expect("the manager's task")
        .expect("the manager stops cleanly");
}

impl Defaulter for Gadget {
    fn default(&mut self) {
        self.spec.size.get_or_insert(1);
    }
}

impl Validator for Gadget {
    fn validate_create(&self) -> ValidationResult {
        match self.spec.size {
            Some(size) if size > 5 => Err(format!("spec.size must be at most 5, not {size}")),
            _ => Ok(Vec::new()),
        }
    }
}

const GADGET_WEBHOOKS: WebhookEntry = WebhookEntry {
    name: "gadget",
    routes: &[
        Route::defaulting::<Gadget>("/mutate-runtime-opgen-dev-v1-gadget"),
        Route::validating::<Gadget>("/validate-runtime-opgen-dev-v1-gadget"),
    ],
    conversion: None,
};

#[tokio::test]
async fn webhooks_answer_through_the_managers_server() {
    let Some(admin) = admin().await else {
        return;
    };
    const NAMESPACE: &str = "runtime-webhooks";
    create_namespace(&admin, NAMESPACE).await;
    let webhooks = opgen_envtest::LocalWebhooks::new().expect("a port and certificate");
    webhooks
        .install(&admin, "tests/fixtures/webhooks.yaml")
        .await
        .expect("install the webhook configurations");
    let gadget = |name: &str, spec: serde_json::Value| {
        json!({
            "apiVersion": "runtime.opgen.dev/v1",
            "kind": "Gadget",
            "metadata": {"name": name, "namespace": NAMESPACE},
            "spec": spec,
        })
    };
    webhooks
        .wait_until_called(&admin, gadget("probe", json!({})), NAMESPACE)
        .await
        .expect("the API server calls the webhooks");

    let port = webhooks
        .address()
        .rsplit_once(':')
        .expect("host:port")
        .1
        .to_owned();
    let cert_dir = webhooks.cert_dir().display().to_string();
    let args = manager_args(&[
        &format!("--webhook-port={port}"),
        &format!("--webhook-cert-path={cert_dir}"),
    ]);
    let shutdown = CancellationToken::new();
    let manager = Manager::new("gadget-operator")
        .client(admin.clone())
        .webhooks(&[GADGET_WEBHOOKS]);
    let task = tokio::spawn(manager.run_until(args, shutdown.clone()));

    let params = PatchParams::apply("test").force();
    let apply = |object| {
        let params = params.clone();
        let admin = admin.clone();
        async move {
            opgen_envtest::apply_documents(&admin, vec![object], NAMESPACE, &params, CRDS.as_ref())
                .await
        }
    };
    // The server may take a moment to listen: retry while the API server cannot reach it.
    let admitted = opgen_envtest::eventually("the webhooks to admit a gadget", TIMEOUT, || async {
        match apply(gadget("small", json!({}))).await {
            Ok(applied) => Some(applied),
            Err(error) if error.to_string().contains("failed calling webhook") => None,
            Err(error) => panic!("the gadget was refused: {error}"),
        }
    })
    .await;
    assert_eq!(admitted[0].data["spec"], json!({"size": 1}), "defaulted");

    let refused = apply(gadget("large", json!({"size": 9})))
        .await
        .expect_err("the validating webhook denies size 9");
    assert!(
        refused
            .to_string()
            .contains("spec.size must be at most 5, not 9"),
        "{refused}"
    );
    let gadgets: Api<Gadget> = Api::namespaced(admin.clone(), NAMESPACE);
    assert!(gadgets.get_opt("large").await.expect("get").is_none());

    shutdown.cancel();
    task.await
        .expect("the manager's task")
        .expect("the manager stops cleanly");
}

/// `owned::apply_owned` on a real API server: a child is created with its controller
/// reference, put back when someone changes it, created again when deleted, and never
/// adopted from another controller.
#[tokio::test]
async fn owned_children_are_applied_corrected_recreated_and_never_adopted() {
    use kube::api::Patch;
    use opgen_runtime::owned::{apply_owned, is_controlled_by};

    let Some(admin) = admin().await else {
        return;
    };
    const NAMESPACE: &str = "runtime-owned";
    create_namespace(&admin, NAMESPACE).await;
    let widgets: Api<Widget> = Api::namespaced(admin.clone(), NAMESPACE);
    let create = |name: &'static str| {
        let widgets = widgets.clone();
        async move {
            let mut widget = Widget::new(name, WidgetSpec::default());
            widget.metadata.namespace = Some(NAMESPACE.into());
            widgets
                .create(&PostParams::default(), &widget)
                .await
                .expect("create a widget")
        }
    };
    let owner = create("owner").await;
    let other = create("other").await;
    let ctx = Context::new(
        admin.clone(),
        "widget-operator",
        Arc::new(opgen_runtime::metrics::Metrics::new("widget_operator")),
        vec![NAMESPACE.into()],
        CancellationToken::new(),
    );
    let desired = || {
        let mut child = ConfigMap::default();
        child.metadata.name = Some("owner-settings".into());
        child.data = Some([("mode".to_owned(), "fast".to_owned())].into());
        child
    };
    let config_maps: Api<ConfigMap> = Api::namespaced(admin.clone(), NAMESPACE);
    let mode = |cm: &ConfigMap| cm.data.as_ref().and_then(|d| d.get("mode").cloned());

    let applied = apply_owned(&ctx, &owner, desired()).await.expect("applied");
    assert!(applied.created());
    assert!(is_controlled_by(&applied.object, &owner));
    assert_eq!(
        applied.object.owner_references()[0].block_owner_deletion,
        Some(true)
    );
    let unchanged = apply_owned(&ctx, &owner, desired()).await.expect("no-op");
    assert!(!unchanged.created() && !unchanged.changed());

    // Changed by someone else: put back.
    config_maps
        .patch(
            "owner-settings",
            &PatchParams::default(),
            &Patch::Merge(json!({"data": {"mode": "slow"}})),
        )
        .await
        .expect("change the child");
    let corrected = apply_owned(&ctx, &owner, desired())
        .await
        .expect("applied again");
    assert!(corrected.changed());
    assert_eq!(mode(&corrected.object).as_deref(), Some("fast"));

    // Deleted: created again.
    config_maps
        .delete("owner-settings", &DeleteParams::default())
        .await
        .expect("delete the child");
    let applied = apply_owned(&ctx, &owner, desired())
        .await
        .expect("recreated");
    assert!(applied.created());
    let recreated = config_maps.get("owner-settings").await.expect("it exists");
    assert!(is_controlled_by(&recreated, &owner));

    // Another widget's controller does not take it over.
    let error = apply_owned(&ctx, &other, desired()).await.unwrap_err();
    assert!(
        matches!(error, opgen_runtime::Error::OwnedByAnother { .. }),
        "{error}"
    );
    assert_eq!(
        error.to_string(),
        format!(
            "ConfigMap {NAMESPACE}/owner-settings is controlled by Widget owner: not adopting it (delete it if it is stale, or choose another name)"
        )
    );
    let kept = config_maps.get("owner-settings").await.expect("it exists");
    assert!(is_controlled_by(&kept, &owner) && !is_controlled_by(&kept, &other));

    // Nor one that nobody controls.
    let mut orphan = desired();
    orphan.metadata.name = Some("orphan".into());
    config_maps
        .create(&PostParams::default(), &orphan)
        .await
        .expect("create an orphan");
    let error = apply_owned(&ctx, &owner, orphan).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "ConfigMap {NAMESPACE}/orphan exists without a controller: not adopting it (delete it if it is stale, or choose another name)"
        )
    );
    let degraded = opgen_runtime::degraded(&error, owner.metadata.generation);
    assert_eq!(
        (degraded.status.as_str(), degraded.reason.as_str()),
        ("True", "NotOwned")
    );
    let orphan = config_maps.get("orphan").await.expect("it exists");
    assert!(orphan.owner_references().is_empty());
}

/// `owned::delete_owned` on a real API server: the owner's children that are no longer
/// wanted go; the wanted one, another owner's and an unlabelled one stay.
#[tokio::test]
async fn unwanted_children_are_deleted() {
    use opgen_runtime::owned::{apply_owned, delete_owned};

    let Some(admin) = admin().await else {
        return;
    };
    const NAMESPACE: &str = "runtime-prune";
    create_namespace(&admin, NAMESPACE).await;
    let widgets: Api<Widget> = Api::namespaced(admin.clone(), NAMESPACE);
    let mut owners = Vec::new();
    for name in ["owner", "other"] {
        let mut widget = Widget::new(name, WidgetSpec::default());
        widget.metadata.namespace = Some(NAMESPACE.into());
        let created = widgets
            .create(&PostParams::default(), &widget)
            .await
            .expect("create a widget");
        owners.push(created);
    }
    let (owner, other) = (&owners[0], &owners[1]);
    let ctx = Context::new(
        admin.clone(),
        "widget-operator",
        Arc::new(opgen_runtime::metrics::Metrics::new("widget_operator")),
        vec![NAMESPACE.into()],
        CancellationToken::new(),
    );
    let child = |name: &str, labelled: bool| {
        let mut cm = ConfigMap::default();
        cm.metadata.name = Some(name.into());
        if labelled {
            cm.metadata.labels = Some([("app".to_owned(), "widget".to_owned())].into());
        }
        cm
    };
    for (owner, name, labelled) in [
        (owner, "wanted", true),
        (owner, "unwanted", true),
        (owner, "unlabelled", false),
        (other, "theirs", true),
    ] {
        apply_owned(&ctx, owner, child(name, labelled))
            .await
            .expect("applied");
    }

    let selector = kube::api::ListParams::default().labels("app=widget");
    let deleted =
        delete_owned::<ConfigMap, _>(&ctx, owner, &selector, |cm| cm.name_any() == "wanted")
            .await
            .expect("deleted");

    let names: Vec<String> = deleted.iter().map(ResourceExt::name_any).collect();
    assert_eq!(names, ["unwanted"]);
    let config_maps: Api<ConfigMap> = Api::namespaced(admin.clone(), NAMESPACE);
    // A ConfigMap has no finalizers: it is gone at once.
    assert!(
        config_maps
            .get_opt("unwanted")
            .await
            .expect("a read")
            .is_none()
    );
    for name in ["wanted", "unlabelled", "theirs"] {
        assert!(
            config_maps.get_opt(name).await.expect("a read").is_some(),
            "{name} is kept"
        );
    }
}

/// `set_condition` and `Context::update_status` on a real API server: a reconcile that
/// changes nothing writes nothing and keeps each condition's `lastTransitionTime`; a status
/// change moves it.
#[tokio::test]
async fn a_condition_keeps_its_transition_time_across_no_op_reconciles() {
    use opgen_runtime::StatusUpdate;

    let Some(admin) = admin().await else {
        return;
    };
    const NAMESPACE: &str = "runtime-conditions";
    create_namespace(&admin, NAMESPACE).await;
    let widgets: Api<Widget> = Api::namespaced(admin.clone(), NAMESPACE);
    let mut widget = Widget::new("steady", WidgetSpec::default());
    widget.metadata.namespace = Some(NAMESPACE.into());
    widgets
        .create(&PostParams::default(), &widget)
        .await
        .expect("create a widget");
    let ctx = Context::new(
        admin.clone(),
        "widget-operator",
        Arc::new(opgen_runtime::metrics::Metrics::new("widget_operator")),
        vec![NAMESPACE.into()],
        CancellationToken::new(),
    );
    // A reconcile's status step, on the object as the API server has it now.
    let reconcile = |status: &'static str| {
        let (widgets, ctx) = (widgets.clone(), &ctx);
        async move {
            let widget = widgets.get("steady").await.expect("read the widget");
            let mut desired = widget.status.clone().unwrap_or_default();
            let generation = widget.metadata.generation;
            let available = condition("Available", status, "Reconciled", "ok", generation);
            set_condition(&mut desired.conditions, available);
            ctx.update_status(&widget, &desired)
                .await
                .expect("status step")
        }
    };
    let stamp = || async {
        let widget = widgets.get("steady").await.expect("read the widget");
        let condition = widget.status.expect("a status").conditions[0].clone();
        (
            condition.last_transition_time,
            widget.metadata.resource_version,
        )
    };

    assert_eq!(reconcile("True").await, StatusUpdate::Updated);
    let (first_time, first_version) = stamp().await;
    // The API server keeps seconds: a new stamp would differ after a second.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(reconcile("True").await, StatusUpdate::Unchanged);
    assert_eq!(reconcile("True").await, StatusUpdate::Unchanged);
    assert_eq!(stamp().await, (first_time.clone(), first_version));

    assert_eq!(reconcile("False").await, StatusUpdate::Updated);
    let (moved, _) = stamp().await;
    assert!(moved.0 > first_time.0, "{moved:?} after {first_time:?}");
}

/// Widgets by the Secret they name.
const BY_SECRET: Index<Widget> = Index::new("spec.secret", |widget| {
    widget.spec.secret.iter().cloned().collect()
});

/// The widgets the watching controller reconciled, by name, in order.
static WATCHED: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn watched(name: &str) -> usize {
    let watched = WATCHED.lock().expect("not poisoned");
    watched.iter().filter(|watched| *watched == name).count()
}

/// A controller of the widgets labelled `watched=yes` that owns a ConfigMap per widget and
/// watches the Secret each names.
const WATCHING: ControllerEntry = ControllerEntry {
    name: "watching",
    run: |ctx| {
        opgen_runtime::watches::Watches::new()
            .primary(watcher::Config::default().labels("watched=yes"))
            .owns::<ConfigMap>(watcher::Config::default().labels("app=watched"))
            .references::<Secret>(BY_SECRET)
            // A namespace labelled `poke=watching` reconciles every widget.
            .watches_all(
                watcher::Config::default().labels("poke=watching"),
                |_: &Namespace, widgets| {
                    let all = widgets.state();
                    all.iter()
                        .map(|widget| ObjectRef::from_obj(&**widget))
                        .collect::<Vec<_>>()
                },
            )
            .run(ctx, "watching", reconcile_watched, error_policy_watched)
            .boxed()
    },
};

async fn reconcile_watched(widget: Arc<Widget>, ctx: Arc<Context>) -> Result<Action> {
    WATCHED
        .lock()
        .expect("not poisoned")
        .push(widget.name_any());
    let mut child = ConfigMap::default();
    child.metadata.name = Some(format!("{}-child", widget.name_any()));
    child.metadata.labels = Some([("app".to_owned(), "watched".to_owned())].into());
    opgen_runtime::owned::apply_owned(&ctx, &*widget, child).await?;
    Ok(Action::await_change())
}

fn error_policy_watched(
    widget: Arc<Widget>,
    error: &opgen_runtime::Error,
    ctx: Arc<Context>,
) -> Action {
    ctx.error_policy("watching", &*widget, error)
}

/// `watches::Watches` on a real API server: only the selected widgets are reconciled, again
/// when their owned ConfigMap is deleted (and it is recreated), when the Secret they name
/// appears, and when a selected Namespace appears.
#[tokio::test]
async fn watches_reconcile_on_owned_and_referenced_objects() {
    let Some(admin) = admin().await else {
        return;
    };
    const NAMESPACE: &str = "runtime-watches";
    create_namespace(&admin, NAMESPACE).await;
    let (shutdown, task) =
        start_manager("watching-operator", admin.clone(), &[WATCHING], NAMESPACE);

    let widgets: Api<Widget> = Api::namespaced(admin.clone(), NAMESPACE);
    for (name, label) in [("ignored", "no"), ("watched", "yes")] {
        let spec = WidgetSpec {
            secret: Some("credentials".into()),
            ..WidgetSpec::default()
        };
        let mut widget = Widget::new(name, spec);
        widget.metadata.namespace = Some(NAMESPACE.into());
        widget.metadata.labels = Some([("watched".to_owned(), label.to_owned())].into());
        widgets
            .create(&PostParams::default(), &widget)
            .await
            .expect("create a widget");
    }
    let config_maps: Api<ConfigMap> = Api::namespaced(admin.clone(), NAMESPACE);
    let child_exists = || async {
        let child = config_maps.get_opt("watched-child").await.expect("a read");
        child.filter(|child| child.metadata.deletion_timestamp.is_none())
    };
    let first = opgen_envtest::eventually("the watched widget's child", TIMEOUT, || async {
        child_exists().await
    })
    .await;

    // The owned ConfigMap deleted: the widget is reconciled and the child comes back.
    let before = watched("watched");
    config_maps
        .delete("watched-child", &DeleteParams::default())
        .await
        .expect("delete the child");
    let recreated = opgen_envtest::eventually("the child recreated", TIMEOUT, || async {
        child_exists()
            .await
            .filter(|child| child.uid() != first.uid())
    })
    .await;
    assert!(watched("watched") > before);
    assert!(opgen_runtime::owned::is_controlled_by(
        &recreated,
        &widgets.get("watched").await.expect("the widget")
    ));

    // The Secret it names created: reconciled again (once the reconciles the child's
    // creation caused are done).
    tokio::time::sleep(Duration::from_secs(1)).await;
    let before = watched("watched");
    let secret: Secret = serde_json::from_value(json!({
        "metadata": {"name": "credentials", "namespace": NAMESPACE},
        "stringData": {"password": "hunter2"},
    }))
    .expect("a Secret");
    Api::<Secret>::namespaced(admin.clone(), NAMESPACE)
        .create(&PostParams::default(), &secret)
        .await
        .expect("create the Secret");
    opgen_envtest::eventually("a reconcile for the Secret", TIMEOUT, || async {
        (watched("watched") > before).then_some(())
    })
    .await;

    // A namespace the cluster-wide watch selects: reconciled again.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let before = watched("watched");
    let poke: Namespace = serde_json::from_value(json!({
        "metadata": {"name": "runtime-watches-poke", "labels": {"poke": "watching"}},
    }))
    .expect("a Namespace");
    Api::<Namespace>::all(admin.clone())
        .create(&PostParams::default(), &poke)
        .await
        .expect("create the namespace");
    opgen_envtest::eventually("a reconcile for the Namespace", TIMEOUT, || async {
        (watched("watched") > before).then_some(())
    })
    .await;

    // The unlabelled widget was never reconciled.
    assert_eq!(watched("ignored"), 0);
    assert!(
        config_maps
            .get_opt("ignored-child")
            .await
            .expect("a read")
            .is_none()
    );

    shutdown.cancel();
    task.await
        .expect("the manager's task")
        .expect("the manager stops cleanly");
}

/// The widgets the predicated controller reconciled, by name, in order.
static PREDICATED: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn predicated(name: &str) -> usize {
    let reconciled = PREDICATED.lock().expect("not poisoned");
    reconciled
        .iter()
        .filter(|reconciled| *reconciled == name)
        .count()
}

/// A controller that reconciles a widget when its generation or its labels change, and
/// writes its status each time.
const PREDICATED_CONTROLLER: ControllerEntry = ControllerEntry {
    name: "predicated",
    run: |ctx| {
        opgen_runtime::watches::Watches::new()
            .reconcile_when(Changed::GENERATION | Changed::LABELS)
            .run(
                ctx,
                "predicated",
                reconcile_predicated,
                error_policy_predicated,
            )
            .boxed()
    },
};

async fn reconcile_predicated(widget: Arc<Widget>, ctx: Arc<Context>) -> Result<Action> {
    PREDICATED
        .lock()
        .expect("not poisoned")
        .push(widget.name_any());
    let mut status = widget.status.clone().unwrap_or_default();
    let message = format!("size {}", widget.spec.size.unwrap_or_default());
    Conditions::of(&mut status.conditions, &*widget).set(
        "Available",
        "True",
        "Reconciled",
        message,
    );
    let _ = ctx.update_status(&*widget, &status).await?;
    Ok(Action::await_change())
}

fn error_policy_predicated(
    widget: Arc<Widget>,
    error: &opgen_runtime::Error,
    ctx: Arc<Context>,
) -> Action {
    ctx.error_policy("predicated", &*widget, error)
}

/// `Watches::reconcile_when` on a real API server: the status the reconcile writes, a status
/// someone else writes and an annotation reconcile nothing; a label and a spec change do.
#[tokio::test]
async fn a_generation_predicate_skips_status_only_changes() {
    use kube::api::Patch;

    let Some(admin) = admin().await else {
        return;
    };
    const NAMESPACE: &str = "runtime-predicates";
    create_namespace(&admin, NAMESPACE).await;
    let (shutdown, task) = start_manager(
        "predicated-operator",
        admin.clone(),
        &[PREDICATED_CONTROLLER],
        NAMESPACE,
    );

    let widgets: Api<Widget> = Api::namespaced(admin.clone(), NAMESPACE);
    let spec = WidgetSpec {
        size: Some(1),
        ..WidgetSpec::default()
    };
    let mut widget = Widget::new("steady", spec);
    widget.metadata.namespace = Some(NAMESPACE.into());
    widgets
        .create(&PostParams::default(), &widget)
        .await
        .expect("create the widget");
    let message = |widget: &Widget| {
        let status = widget.status.as_ref()?;
        status.conditions.first().map(|c| c.message.clone())
    };
    let reconciled_to = |size: i32| {
        let widgets = widgets.clone();
        async move {
            opgen_envtest::eventually(&format!("the status of size {size}"), TIMEOUT, || async {
                let widget = widgets.get("steady").await.ok()?;
                (message(&widget)? == format!("size {size}")).then_some(widget)
            })
            .await
        }
    };
    let widget = reconciled_to(1).await;
    assert_eq!(widget.status.and_then(|s| s.observed_generation), Some(1));
    // Long enough for the event of the status write to arrive, were it to reconcile.
    let settle = || tokio::time::sleep(Duration::from_secs(2));
    settle().await;
    assert_eq!(
        predicated("steady"),
        1,
        "the status write reconciled nothing"
    );

    let patch = |params: PatchParams, body: serde_json::Value| {
        let widgets = widgets.clone();
        async move {
            widgets
                .patch("steady", &params, &Patch::Merge(body))
                .await
                .expect("patch the widget")
        }
    };
    let status_only = json!({"status": {"note": "written by someone else"}});
    widgets
        .patch_status(
            "steady",
            &PatchParams::default(),
            &Patch::Merge(status_only),
        )
        .await
        .expect("patch the status");
    patch(
        PatchParams::default(),
        json!({"metadata": {"annotations": {"seen": "yes"}}}),
    )
    .await;
    settle().await;
    assert_eq!(
        predicated("steady"),
        1,
        "status and annotations reconcile nothing"
    );

    patch(
        PatchParams::default(),
        json!({"metadata": {"labels": {"tier": "web"}}}),
    )
    .await;
    opgen_envtest::eventually("a reconcile for the label", TIMEOUT, || async {
        (predicated("steady") == 2).then_some(())
    })
    .await;

    patch(PatchParams::default(), json!({"spec": {"size": 2}})).await;
    let widget = reconciled_to(2).await;
    assert_eq!(predicated("steady"), 3);
    assert_eq!(widget.status.and_then(|s| s.observed_generation), Some(2));

    shutdown.cancel();
    task.await
        .expect("the manager's task")
        .expect("the manager stops cleanly");
}

/// What the caching controller's reconciles found in the cache: per reconcile, the names
/// of the widget's children.
static CACHED: Mutex<Vec<Vec<String>>> = Mutex::new(Vec::new());
/// The managedFields entries the caching controller's reconciles found on the cached widget
/// and its cached children.
static CACHED_MANAGED_FIELDS: Mutex<usize> = Mutex::new(0);

/// A controller that owns a labelled ConfigMap per widget and reads it from its cache.
const CACHING: ControllerEntry = ControllerEntry {
    name: "caching",
    run: |ctx| {
        opgen_runtime::watches::Watches::new()
            .owns::<ConfigMap>(watcher::Config::default().labels("app=cached"))
            .run(ctx, "caching", reconcile_caching, error_policy_caching)
            .boxed()
    },
};

async fn reconcile_caching(widget: Arc<Widget>, ctx: Arc<Context>) -> Result<Action> {
    let cache = ctx.cache::<ConfigMap>().expect("the owned kind is cached");
    let children = cache.controlled_by(&*widget);
    *CACHED_MANAGED_FIELDS.lock().expect("not poisoned") += widget.managed_fields().len()
        + children
            .iter()
            .map(|c| c.managed_fields().len())
            .sum::<usize>();
    CACHED
        .lock()
        .expect("not poisoned")
        .push(children.iter().map(|c| c.name_any()).collect());
    let mut child = ConfigMap::default();
    child.metadata.name = Some(format!("{}-cached", widget.name_any()));
    child.metadata.labels = Some([("app".to_owned(), "cached".to_owned())].into());
    opgen_runtime::owned::apply_owned(&ctx, &*widget, child).await?;
    Ok(Action::await_change())
}

fn error_policy_caching(
    widget: Arc<Widget>,
    error: &opgen_runtime::Error,
    ctx: Arc<Context>,
) -> Action {
    ctx.error_policy("caching", &*widget, error)
}

/// A client of the shared control plane that counts its GETs of single ConfigMaps in
/// `namespace`.
async fn counting_config_map_reads(namespace: &'static str) -> (Client, Arc<Mutex<usize>>) {
    let reads = Arc::new(Mutex::new(0_usize));
    let counted = reads.clone();
    let layer =
        tower::util::MapRequestLayer::new(move |request: http::Request<kube::client::Body>| {
            let path = request.uri().path();
            let single = path.starts_with(&format!("/api/v1/namespaces/{namespace}/configmaps/"));
            if request.method() == http::Method::GET && single {
                *counted.lock().expect("not poisoned") += 1;
            }
            request
        });
    let config = opgen_envtest::shared().await.expect("running").config();
    let client = kube::client::ClientBuilder::try_from(config)
        .expect("a client builder")
        .with_layer(&layer)
        .build();
    (client, reads)
}

/// `Context::cache` on a real API server: the owned ConfigMap a reconcile applied is in the
/// cache of the next reconcile (which its creation caused), read by `apply_owned` without a
/// GET.
#[tokio::test]
async fn a_reconcile_reads_its_children_from_the_cache() {
    let Some(admin) = admin().await else {
        return;
    };
    const NAMESPACE: &str = "runtime-cache";
    create_namespace(&admin, NAMESPACE).await;
    let (client, reads) = counting_config_map_reads(NAMESPACE).await;
    let (shutdown, task) = start_manager("caching-operator", client, &[CACHING], NAMESPACE);

    let widgets: Api<Widget> = Api::namespaced(admin.clone(), NAMESPACE);
    let mut widget = Widget::new("cached", WidgetSpec::default());
    widget.metadata.namespace = Some(NAMESPACE.into());
    widgets
        .create(&PostParams::default(), &widget)
        .await
        .expect("create the widget");

    let seen = opgen_envtest::eventually(
        "a reconcile that finds its child cached",
        TIMEOUT,
        || async {
            let cached = CACHED.lock().expect("not poisoned").clone();
            cached
                .iter()
                .any(|children| children == &["cached-cached"])
                .then_some(cached)
        },
    )
    .await;
    assert_eq!(
        seen[0],
        Vec::<String>::new(),
        "the first reconcile has no child yet"
    );
    // Only the first reconcile, before the child existed, asked the API server.
    assert_eq!(*reads.lock().expect("not poisoned"), 1);
    // The caches keep no managedFields, which the API server has on both.
    assert_eq!(*CACHED_MANAGED_FIELDS.lock().expect("not poisoned"), 0);
    let child = Api::<ConfigMap>::namespaced(admin.clone(), NAMESPACE)
        .get("cached-cached")
        .await
        .expect("the child");
    assert!(!child.managed_fields().is_empty());
    assert!(
        !widgets
            .get("cached")
            .await
            .expect("the widget")
            .managed_fields()
            .is_empty()
    );

    shutdown.cancel();
    task.await
        .expect("the manager's task")
        .expect("the manager stops cleanly");
}

/// What the metadata-caching controller's reconciles saw, per reconcile: whether its apply
/// created the child, the data of the child it found before the apply (`None`: none, or none
/// kept), the cached child's labels and whether a whole ConfigMap cache exists.
#[derive(Clone, Debug, PartialEq)]
struct MetadataSeen {
    created: bool,
    previous_data: Option<usize>,
    cached_labels: Option<Vec<String>>,
    whole_cache: bool,
}

static METADATA_SEEN: Mutex<Vec<MetadataSeen>> = Mutex::new(Vec::new());

/// A controller that owns a ConfigMap per widget and caches only the children's metadata.
const METADATA_CACHING: ControllerEntry = ControllerEntry {
    name: "metadata-caching",
    run: |ctx| {
        Watches::new()
            .owns_metadata::<ConfigMap>(watcher::Config::default().labels("app=metadata"))
            .run(
                ctx,
                "metadata-caching",
                reconcile_metadata_caching,
                error_policy_metadata_caching,
            )
            .boxed()
    },
};

async fn reconcile_metadata_caching(widget: Arc<Widget>, ctx: Arc<Context>) -> Result<Action> {
    let name = format!("{}-metadata", widget.name_any());
    let cached = ctx
        .cache::<PartialObjectMeta<ConfigMap>>()
        .expect("the owned kind's metadata is cached")
        .get(widget.namespace().as_deref(), &name);
    let mut child = ConfigMap::default();
    child.metadata.name = Some(name);
    child.metadata.labels = Some([("app".to_owned(), "metadata".to_owned())].into());
    child.data = Some([("size".to_owned(), "large".to_owned())].into());
    let applied = opgen_runtime::owned::apply_owned(&ctx, &*widget, child).await?;
    METADATA_SEEN
        .lock()
        .expect("not poisoned")
        .push(MetadataSeen {
            created: applied.created(),
            previous_data: applied
                .previous
                .and_then(|previous| previous.data.map(|data| data.len())),
            cached_labels: cached.map(|c| c.labels().keys().cloned().collect()),
            whole_cache: ctx.cache::<ConfigMap>().is_some(),
        });
    Ok(Action::await_change())
}

fn error_policy_metadata_caching(
    widget: Arc<Widget>,
    error: &opgen_runtime::Error,
    ctx: Arc<Context>,
) -> Action {
    ctx.error_policy("metadata-caching", &*widget, error)
}

/// `Watches::owns_metadata` on a real API server: the owned ConfigMap's metadata alone is
/// cached, its changes reconcile the widget, and `apply_owned` finds it there without a GET
/// (its `previous` without data); deleted, it is created again.
#[tokio::test]
async fn a_metadata_only_watch_caches_and_reconciles_on_owned_children() {
    let Some(admin) = admin().await else {
        return;
    };
    const NAMESPACE: &str = "runtime-metadata-cache";
    create_namespace(&admin, NAMESPACE).await;
    let (client, reads) = counting_config_map_reads(NAMESPACE).await;
    let (shutdown, task) = start_manager(
        "metadata-caching-operator",
        client,
        &[METADATA_CACHING],
        NAMESPACE,
    );

    let widgets: Api<Widget> = Api::namespaced(admin.clone(), NAMESPACE);
    let mut widget = Widget::new("meta", WidgetSpec::default());
    widget.metadata.namespace = Some(NAMESPACE.into());
    widgets
        .create(&PostParams::default(), &widget)
        .await
        .expect("create the widget");
    let found_cached = MetadataSeen {
        created: false,
        previous_data: None,
        cached_labels: Some(vec!["app".to_owned()]),
        whole_cache: false,
    };
    let seen = opgen_envtest::eventually(
        "a reconcile that finds its child's metadata cached",
        TIMEOUT,
        || async {
            let seen = METADATA_SEEN.lock().expect("not poisoned").clone();
            seen.contains(&found_cached).then_some(seen)
        },
    )
    .await;
    // The first reconcile created the child (the widget's creation); the next, which the
    // child's creation caused through the metadata watch, found it in the cache: no GET but
    // the first's, before the child existed.
    assert_eq!(
        seen[0],
        MetadataSeen {
            created: true,
            previous_data: None,
            cached_labels: None,
            whole_cache: false,
        }
    );
    assert_eq!(*reads.lock().expect("not poisoned"), 1);

    // Deleted, the child's metadata watch reconciles the widget, which creates it again.
    let config_maps: Api<ConfigMap> = Api::namespaced(admin.clone(), NAMESPACE);
    let first = config_maps.get("meta-metadata").await.expect("the child");
    assert_eq!(first.data.as_ref().map(|data| data.len()), Some(1));
    config_maps
        .delete("meta-metadata", &DeleteParams::default())
        .await
        .expect("delete the child");
    opgen_envtest::eventually("the child created again", TIMEOUT, || async {
        let child = config_maps
            .get_opt("meta-metadata")
            .await
            .expect("a read")?;
        (child.uid() != first.uid()).then_some(())
    })
    .await;

    shutdown.cancel();
    task.await
        .expect("the manager's task")
        .expect("the manager stops cleanly");
}

/// What the indexing controller's reconciles found: per reconcile, the widget and the
/// widgets of its namespace that name its Secret.
static SHARING: Mutex<Vec<(String, Vec<String>)>> = Mutex::new(Vec::new());

/// A controller that finds, through an index of its cache, the widgets naming its Secret.
const INDEXING: ControllerEntry = ControllerEntry {
    name: "indexing",
    run: |ctx| {
        Watches::new()
            .index(BY_SECRET)
            .run(ctx, "indexing", reconcile_indexing, error_policy_indexing)
            .boxed()
    },
};

async fn reconcile_indexing(widget: Arc<Widget>, ctx: Arc<Context>) -> Result<Action> {
    let widgets = ctx
        .cache::<Widget>()
        .expect("the controller's kind is cached");
    let secret = widget.spec.secret.clone().unwrap_or_default();
    let sharing = widgets.indexed(widget.namespace().as_deref(), &BY_SECRET, &secret);
    let names = sharing.iter().map(|widget| widget.name_any()).collect();
    let mut found = SHARING.lock().expect("not poisoned");
    found.push((widget.name_any(), names));
    Ok(Action::await_change())
}

fn error_policy_indexing(
    widget: Arc<Widget>,
    error: &opgen_runtime::Error,
    ctx: Arc<Context>,
) -> Action {
    ctx.error_policy("indexing", &*widget, error)
}

/// `Watches::index` and `Cache::indexed` on a real API server: a reconcile finds the widgets
/// that name a Secret as they are created and as their spec moves to another Secret.
#[tokio::test]
async fn a_reconcile_finds_objects_through_an_index() {
    let Some(admin) = admin().await else {
        return;
    };
    const NAMESPACE: &str = "runtime-index";
    create_namespace(&admin, NAMESPACE).await;
    let (shutdown, task) =
        start_manager("indexing-operator", admin.clone(), &[INDEXING], NAMESPACE);
    let widgets: Api<Widget> = Api::namespaced(admin.clone(), NAMESPACE);
    let patch_spec = |name: &'static str, spec: serde_json::Value| {
        let widgets = widgets.clone();
        async move {
            let patch = json!({ "spec": spec });
            widgets
                .patch(
                    name,
                    &PatchParams::default(),
                    &kube::api::Patch::Merge(&patch),
                )
                .await
                .expect("patch the widget");
        }
    };
    let found = |name: &'static str, sharing: &'static [&'static str]| async move {
        let wanted = (
            name.to_owned(),
            sharing.iter().map(|s| s.to_string()).collect(),
        );
        let what = format!("a reconcile of {name} finding {sharing:?}");
        opgen_envtest::eventually(&what, TIMEOUT, || async {
            let seen = SHARING.lock().expect("not poisoned");
            seen.contains(&wanted).then_some(())
        })
        .await;
    };

    for (name, secret) in [("first", "s1"), ("other", "s2"), ("second", "s1")] {
        let spec = WidgetSpec {
            secret: Some(secret.into()),
            ..WidgetSpec::default()
        };
        let mut widget = Widget::new(name, spec);
        widget.metadata.namespace = Some(NAMESPACE.into());
        widgets
            .create(&PostParams::default(), &widget)
            .await
            .expect("create a widget");
        // Each in turn, so that the next one's reconcile sees it cached.
        let expected: &'static [&'static str] = match name {
            "first" => &["first"],
            "other" => &["other"],
            _ => &["first", "second"],
        };
        found(name, expected).await;
    }
    // `other` moves to s1, then `first` to s2: the index follows both updates (a step's
    // reconciles are recorded afresh).
    let forget = || SHARING.lock().expect("not poisoned").clear();
    forget();
    patch_spec("other", json!({"secret": "s1"})).await;
    found("other", &["first", "other", "second"]).await;
    forget();
    patch_spec("first", json!({"secret": "s2"})).await;
    found("first", &["first"]).await;
    forget();
    patch_spec("second", json!({"size": 2})).await;
    found("second", &["other", "second"]).await;

    shutdown.cancel();
    task.await
        .expect("the manager's task")
        .expect("the manager stops cleanly");
}

/// `Context::write_status` with `StatusWrite::Merge` on a real API server: the status-level
/// `observedGeneration` follows the object's generation, a field gone from the desired
/// status is removed, and an unchanged status is not written.
#[tokio::test]
async fn a_status_merge_patch_removes_fields_and_observes_the_generation() {
    use kube::api::Patch;
    use opgen_runtime::{StatusUpdate, StatusWrite};

    let Some(admin) = admin().await else {
        return;
    };
    const NAMESPACE: &str = "runtime-status-merge";
    create_namespace(&admin, NAMESPACE).await;
    let widgets: Api<Widget> = Api::namespaced(admin.clone(), NAMESPACE);
    let mut widget = Widget::new("merged", WidgetSpec::default());
    widget.metadata.namespace = Some(NAMESPACE.into());
    widgets
        .create(&PostParams::default(), &widget)
        .await
        .expect("create a widget");
    let ctx = Context::new(
        admin.clone(),
        "widget-operator",
        Arc::new(opgen_runtime::metrics::Metrics::new("widget_operator")),
        vec![NAMESPACE.into()],
        CancellationToken::new(),
    );
    let write = |note: Option<&'static str>| {
        let (widgets, ctx) = (widgets.clone(), &ctx);
        async move {
            let widget = widgets.get("merged").await.expect("read the widget");
            let status = WidgetStatus {
                note: note.map(str::to_owned),
                ..widget.status.clone().unwrap_or_default()
            };
            ctx.write_status(&widget, &status, StatusWrite::Merge)
                .await
                .expect("status written")
        }
    };
    let status = || async {
        let widget = widgets.get("merged").await.expect("read the widget");
        widget.status.expect("a status")
    };

    assert_eq!(write(Some("first")).await, StatusUpdate::Updated);
    let first = status().await;
    assert_eq!(
        (first.observed_generation, first.note.as_deref()),
        (Some(1), Some("first"))
    );
    assert_eq!(write(Some("first")).await, StatusUpdate::Unchanged);

    widgets
        .patch(
            "merged",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"size": 4}})),
        )
        .await
        .expect("change the spec");
    assert_eq!(write(None).await, StatusUpdate::Updated);
    let second = status().await;
    assert_eq!((second.observed_generation, second.note), (Some(2), None));
}

/// The throttled controller's reconciles: how many run now, the most that ran at once, and
/// the widgets reconciled.
static THROTTLED: Mutex<(usize, usize, Vec<String>)> = Mutex::new((0, 0, Vec::new()));

/// A controller whose reconciles take a while, to see how many run at once.
const THROTTLED_CONTROLLER: ControllerEntry = ControllerEntry {
    name: "throttled",
    run: |ctx| {
        Watches::new()
            .run(
                ctx,
                "throttled",
                reconcile_throttled,
                error_policy_throttled,
            )
            .boxed()
    },
};

async fn reconcile_throttled(widget: Arc<Widget>, _ctx: Arc<Context>) -> Result<Action> {
    {
        let mut state = THROTTLED.lock().expect("not poisoned");
        state.0 += 1;
        state.1 = state.1.max(state.0);
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut state = THROTTLED.lock().expect("not poisoned");
    state.0 -= 1;
    state.2.push(widget.name_any());
    Ok(Action::await_change())
}

fn error_policy_throttled(
    widget: Arc<Widget>,
    error: &opgen_runtime::Error,
    ctx: Arc<Context>,
) -> Action {
    ctx.error_policy("throttled", &*widget, error)
}

/// `--max-concurrent-reconciles` (controller-runtime's `MaxConcurrentReconciles`): six widgets
/// created at once are reconciled two at a time.
#[tokio::test]
async fn reconciles_run_at_most_max_concurrent_reconciles_at_once() {
    let Some(admin) = admin().await else {
        return;
    };
    const NAMESPACE: &str = "runtime-concurrency";
    create_namespace(&admin, NAMESPACE).await;
    let flags = ["--namespace", NAMESPACE, "--max-concurrent-reconciles", "2"];
    let (shutdown, task) = start_manager_with(
        "throttled-operator",
        admin.clone(),
        &[THROTTLED_CONTROLLER],
        &flags,
    );

    let widgets: Api<Widget> = Api::namespaced(admin.clone(), NAMESPACE);
    for i in 0..6 {
        let mut widget = Widget::new(&format!("w{i}"), WidgetSpec::default());
        widget.metadata.namespace = Some(NAMESPACE.into());
        widgets
            .create(&PostParams::default(), &widget)
            .await
            .expect("create a widget");
    }
    let (_, most, _) = opgen_envtest::eventually("six widgets reconciled", TIMEOUT, || async {
        let state = THROTTLED.lock().expect("not poisoned").clone();
        (state.2.len() >= 6).then_some(state)
    })
    .await;
    assert_eq!(most, 2, "reconciles at once");

    shutdown.cancel();
    task.await
        .expect("the manager's task")
        .expect("the manager stops cleanly");
}

#[tokio::test]
async fn repeated_events_fold_into_a_series_the_api_server_accepts() {
    const NAMESPACE: &str = "event-series";
    let Some(admin) = admin().await else { return };
    create_namespace(&admin, NAMESPACE).await;
    let metrics = Arc::new(opgen_runtime::metrics::Metrics::new("series_operator"));
    let ctx = Context::new(
        admin.clone(),
        "series-operator",
        metrics,
        Vec::new(),
        CancellationToken::new(),
    );
    let mut widget = Widget::new("repeated", WidgetSpec::default());
    widget.metadata.namespace = Some(NAMESPACE.into());
    let widget = Api::<Widget>::namespaced(admin.clone(), NAMESPACE)
        .create(&PostParams::default(), &widget)
        .await
        .expect("create the widget");

    for note in ["first", "second", "third"] {
        ctx.publish_event(&widget, EventType::Normal, "Checked", "Check", note)
            .await;
    }
    ctx.publish_event(&widget, EventType::Warning, "Failed", "Check", "other")
        .await;

    let events = Api::<K8sEvent>::namespaced(admin.clone(), NAMESPACE)
        .list(&ListParams::default())
        .await
        .expect("list the events");
    let mut seen: Vec<_> = events
        .items
        .iter()
        .map(|event| {
            (
                event.reason.clone().unwrap_or_default(),
                event.series.as_ref().map(|series| series.count),
                event.note.clone().unwrap_or_default(),
            )
        })
        .collect();
    seen.sort();
    // One Event per series: the repeats counted in the first one's series, whose note stays
    // the first's (client-go's series patch sends `series` alone).
    assert_eq!(
        seen,
        [
            ("Checked".to_owned(), Some(3), "first".to_owned()),
            ("Failed".to_owned(), None, "other".to_owned()),
        ]
    );
}
