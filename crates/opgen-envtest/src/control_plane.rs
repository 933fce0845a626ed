use std::{
    path::{Path, PathBuf},
    process::Command,
    sync::{
        Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use k8s_openapi::api::{
    authorization::v1::{ResourceAttributes, SubjectAccessReview, SubjectAccessReviewSpec},
    core::v1::{Namespace, ServiceAccount},
    rbac::v1::{ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, RoleRef, Subject},
};
use kube::{
    Api, Client, Config,
    api::{ObjectMeta, Patch, PatchParams, PostParams},
    config::{KubeConfigOptions, Kubeconfig},
};
use tokio::{io::AsyncReadExt, io::AsyncWriteExt, sync::OnceCell};

use crate::{Assets, Error, apply, certs::Pki, process::Process};

const READY_TIMEOUT: Duration = Duration::from_secs(90);
const FIELD_MANAGER: &str = "opgen-envtest";
/// Ready but for the default RBAC roles: their post-start hook waits a second before its first
/// try and is the last to finish (a third of the start), and nothing here needs them: the admin
/// is in `system:masters`, the clients of a test's roles get what those roles grant, and no
/// client here reads discovery as a ServiceAccount.
const READINESS: &str = "/readyz?exclude=poststarthook/rbac/bootstrap-roles";

/// A running etcd and kube-apiserver, stopped when dropped.
///
/// The API server listens on a free loopback port with a serving certificate from a throwaway
/// CA, authenticates clients by certificate (an admin in `system:masters`) and authorizes with
/// RBAC, so a client that impersonates a ServiceAccount gets exactly what its roles grant.
pub struct ControlPlane {
    assets: Assets,
    dir: PathBuf,
    etcd: Mutex<Process>,
    apiserver: Mutex<Process>,
    url: String,
    config: Config,
    kubeconfig: PathBuf,
    startup: Duration,
}

impl ControlPlane {
    /// Starts a control plane with the binaries [`Assets::locate`] finds.
    pub async fn start() -> Result<Self, Error> {
        Self::start_with(Assets::locate()?).await
    }

    /// Starts a control plane with the given binaries.
    pub async fn start_with(assets: Assets) -> Result<Self, Error> {
        // A free port can be taken by someone else between finding and binding it: retry.
        let mut attempt = 0;
        loop {
            attempt += 1;
            match Self::try_start(assets.clone()).await {
                Err(Error::NotReady { log, .. })
                    if attempt < 3 && log.contains("address already in use") => {}
                result => return result,
            }
        }
    }

    async fn try_start(assets: Assets) -> Result<Self, Error> {
        let started = Instant::now();
        static SWEPT: std::sync::Once = std::sync::Once::new();
        SWEPT.call_once(|| crate::process::remove_left_behind(&std::env::temp_dir()));
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "opgen-envtest-{}-{}",
            std::process::id(),
            COUNT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        let cleanup = RemoveOnError(Some(dir.clone()));

        let pki = Pki::new()?;
        let write = |name: &str, contents: &str| -> Result<PathBuf, Error> {
            let path = dir.join(name);
            std::fs::write(&path, contents).map_err(|e| Error::io(&path, e))?;
            Ok(path)
        };
        let serving_cert = write("apiserver.crt", &pki.serving_cert_pem)?;
        let serving_key = write("apiserver.key", &pki.serving_key_pem)?;
        let client_ca = write("client-ca.crt", &pki.client_ca_pem)?;
        let sa_key = write("service-account.key", &pki.service_account_key_pem)?;
        let sa_pub = write("service-account.pub", &pki.service_account_public_key_pem)?;

        let [etcd_port, peer_port, apiserver_port] = crate::ports::free_ports()?;
        let etcd_url = format!("http://127.0.0.1:{etcd_port}");
        let peer_url = format!("http://127.0.0.1:{peer_port}");
        // controller-runtime's envtest flags (pkg/internal/testing/controlplane/etcd.go).
        let mut etcd = Command::new(assets.etcd());
        etcd.arg("--name=envtest")
            .arg(format!("--data-dir={}", dir.join("etcd").display()))
            .arg(format!("--listen-client-urls={etcd_url}"))
            .arg(format!("--advertise-client-urls={etcd_url}"))
            .arg(format!("--listen-peer-urls={peer_url}"))
            .arg(format!("--initial-advertise-peer-urls={peer_url}"))
            .arg(format!("--initial-cluster=envtest={peer_url}"))
            .arg("--unsafe-no-fsync=true")
            .arg("--log-level=warn");
        let mut etcd = Process::spawn("etcd", etcd, &dir.join("etcd.log"))?;
        wait_for_etcd(&mut etcd, etcd_port).await?;

        let url = format!("https://127.0.0.1:{apiserver_port}");
        // controller-runtime's envtest flags (pkg/internal/testing/controlplane/apiserver.go),
        // plus --advertise-address: without a default route the server cannot pick one; and
        // no endpoint reconciler, which since 1.37 refuses a loopback advertise address (there
        // is no in-cluster client of the `kubernetes` Service here anyway).
        let mut apiserver = Command::new(assets.kube_apiserver());
        apiserver
            .arg(format!("--etcd-servers={etcd_url}"))
            .arg(format!("--cert-dir={}", dir.display()))
            .arg(format!("--tls-cert-file={}", serving_cert.display()))
            .arg(format!("--tls-private-key-file={}", serving_key.display()))
            .arg(format!("--secure-port={apiserver_port}"))
            .arg("--bind-address=127.0.0.1")
            .arg("--advertise-address=127.0.0.1")
            .arg("--endpoint-reconciler-type=none")
            .arg("--service-cluster-ip-range=10.0.0.0/24")
            .arg("--allow-privileged=true")
            .arg("--disable-admission-plugins=ServiceAccount")
            .arg("--authorization-mode=RBAC")
            .arg(format!("--service-account-issuer={url}"))
            .arg(format!("--service-account-key-file={}", sa_pub.display()))
            .arg(format!(
                "--service-account-signing-key-file={}",
                sa_key.display()
            ))
            .arg(format!("--client-ca-file={}", client_ca.display()));
        let mut apiserver =
            Process::spawn("kube-apiserver", apiserver, &dir.join("kube-apiserver.log"))?;

        let kubeconfig_yaml = kubeconfig(&url, &pki);
        let kubeconfig = write("kubeconfig", &kubeconfig_yaml)?;
        let config = Config::from_custom_kubeconfig(
            Kubeconfig::from_yaml(&kubeconfig_yaml).map_err(|e| Error::Config(e.to_string()))?,
            &KubeConfigOptions::default(),
        )
        .await
        .map_err(|e| Error::Config(e.to_string()))?;
        wait_for_apiserver(&mut apiserver, &config).await?;

        let mut dir_guard = cleanup;
        dir_guard.0 = None;
        Ok(ControlPlane {
            assets,
            dir,
            etcd: Mutex::new(etcd),
            apiserver: Mutex::new(apiserver),
            url,
            config,
            kubeconfig,
            startup: started.elapsed(),
        })
    }

    /// The API server's URL (`https://127.0.0.1:<port>`).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// How long starting took, from nothing to a ready API server.
    pub fn startup_time(&self) -> Duration {
        self.startup
    }

    /// The admin's client configuration (`system:masters`).
    pub fn config(&self) -> Config {
        self.config.clone()
    }

    /// A client with admin rights. Call it inside the Tokio runtime that will use it.
    pub fn client(&self) -> Result<Client, Error> {
        Client::try_from(self.config()).map_err(|e| Error::kube("building the admin client", e))
    }

    /// A client that impersonates `user` in `groups`: it can do what RBAC grants them.
    pub fn client_as(&self, user: &str, groups: &[&str]) -> Result<Client, Error> {
        let mut config = self.config();
        config.auth_info.impersonate = Some(user.to_owned());
        config.auth_info.impersonate_groups =
            Some(groups.iter().map(|g| (*g).to_owned()).collect());
        Client::try_from(config)
            .map_err(|e| Error::kube(format!("building a client for {user}"), e))
    }

    /// A client that acts as the ServiceAccount `namespace/name`, as a pod running under it would.
    pub fn client_for_service_account(&self, namespace: &str, name: &str) -> Result<Client, Error> {
        let (user, groups) = service_account_user(namespace, name);
        let groups: Vec<&str> = groups.iter().map(String::as_str).collect();
        self.client_as(&user, &groups)
    }

    /// Applies the ClusterRoles and Roles of a YAML file (such as the `config/rbac/role.yaml`
    /// that `opgen manifests` writes), binds each to the ServiceAccount `namespace/name`
    /// (creating both), and returns a client acting as that ServiceAccount. A Role without a
    /// namespace is bound in `namespace`.
    pub async fn client_with_roles(
        &self,
        roles: impl AsRef<Path>,
        namespace: &str,
        name: &str,
    ) -> Result<Client, Error> {
        let path = roles.as_ref();
        let admin = self.client()?;
        let params = PatchParams::apply(FIELD_MANAGER).force();
        ensure_namespace(&admin, namespace).await?;
        let account = ServiceAccount {
            metadata: ObjectMeta {
                name: Some(name.to_owned()),
                namespace: Some(namespace.to_owned()),
                ..Default::default()
            },
            ..Default::default()
        };
        Api::<ServiceAccount>::namespaced(admin.clone(), namespace)
            .patch(name, &params, &Patch::Apply(&account))
            .await
            .map_err(|e| Error::kube(format!("creating ServiceAccount {namespace}/{name}"), e))?;
        let subject = Subject {
            kind: "ServiceAccount".into(),
            name: name.to_owned(),
            namespace: Some(namespace.to_owned()),
            ..Default::default()
        };

        let mut bound = 0;
        // One rule of each bound role that has one, with where it applies (a Role's namespace).
        let mut granted: Vec<(Option<String>, PolicyRule)> = Vec::new();
        for document in apply::parse_documents(path)? {
            let kind = document
                .get("kind")
                .and_then(|k| k.as_str())
                .unwrap_or_default()
                .to_owned();
            let yaml_error = |e: serde_json::Error| Error::Yaml {
                path: path.to_owned(),
                message: format!("a {kind}: {e}"),
            };
            match kind.as_str() {
                "ClusterRole" => {
                    let role: ClusterRole = serde_json::from_value(document).map_err(yaml_error)?;
                    let role_name = role.metadata.name.clone().unwrap_or_default();
                    let rules = role.rules.iter().flatten();
                    Api::<ClusterRole>::all(admin.clone())
                        .patch(&role_name, &params, &Patch::Apply(&role))
                        .await
                        .map_err(|e| Error::kube(format!("applying ClusterRole {role_name}"), e))?;
                    let binding_name = format!("{role_name}-{namespace}-{name}");
                    let binding = ClusterRoleBinding {
                        metadata: ObjectMeta {
                            name: Some(binding_name.clone()),
                            ..Default::default()
                        },
                        role_ref: role_ref("ClusterRole", role_name),
                        subjects: Some(vec![subject.clone()]),
                    };
                    Api::<ClusterRoleBinding>::all(admin.clone())
                        .patch(&binding_name, &params, &Patch::Apply(&binding))
                        .await
                        .map_err(|e| {
                            Error::kube(format!("applying ClusterRoleBinding {binding_name}"), e)
                        })?;
                    granted.extend(first_resource_rule(rules).map(|rule| (None, rule)));
                    bound += 1;
                }
                "Role" => {
                    let mut role: Role = serde_json::from_value(document).map_err(yaml_error)?;
                    let role_namespace = role
                        .metadata
                        .namespace
                        .get_or_insert_with(|| namespace.to_owned())
                        .clone();
                    let role_name = role.metadata.name.clone().unwrap_or_default();
                    Api::<Role>::namespaced(admin.clone(), &role_namespace)
                        .patch(&role_name, &params, &Patch::Apply(&role))
                        .await
                        .map_err(|e| {
                            Error::kube(format!("applying Role {role_namespace}/{role_name}"), e)
                        })?;
                    let binding_name = format!("{role_name}-{namespace}-{name}");
                    let binding = RoleBinding {
                        metadata: ObjectMeta {
                            name: Some(binding_name.clone()),
                            namespace: Some(role_namespace.clone()),
                            ..Default::default()
                        },
                        role_ref: role_ref("Role", role_name),
                        subjects: Some(vec![subject.clone()]),
                    };
                    Api::<RoleBinding>::namespaced(admin.clone(), &role_namespace)
                        .patch(&binding_name, &params, &Patch::Apply(&binding))
                        .await
                        .map_err(|e| {
                            Error::kube(format!("applying RoleBinding {binding_name}"), e)
                        })?;
                    granted.extend(
                        first_resource_rule(role.rules.iter().flatten())
                            .map(|rule| (Some(role_namespace.clone()), rule)),
                    );
                    bound += 1;
                }
                _ => {}
            }
        }
        if bound == 0 {
            return Err(Error::Yaml {
                path: path.to_owned(),
                message: "holds no ClusterRole or Role".into(),
            });
        }
        let (user, groups) = service_account_user(namespace, name);
        for (rule_namespace, rule) in &granted {
            await_authorized(&admin, &user, &groups, rule_namespace.as_deref(), rule).await?;
        }
        self.client_for_service_account(namespace, name)
    }

    /// A `kubectl` command (the one built with the control plane) pointed at this API server.
    pub fn kubectl(&self) -> Command {
        let mut command = Command::new(self.assets.kubectl());
        command.arg("--kubeconfig").arg(&self.kubeconfig);
        command
    }

    /// A kubeconfig file for the admin user, for other tools.
    pub fn kubeconfig_path(&self) -> &Path {
        &self.kubeconfig
    }

    /// The binaries this control plane runs.
    pub fn assets(&self) -> &Assets {
        &self.assets
    }

    /// The process ids of etcd and kube-apiserver (each leads its own process group).
    pub fn process_ids(&self) -> [u32; 2] {
        [lock(&self.etcd).id(), lock(&self.apiserver).id()]
    }

    /// An error if etcd or kube-apiserver has exited, with the end of its log.
    pub fn check_running(&self) -> Result<(), Error> {
        lock(&self.etcd).check_running()?;
        lock(&self.apiserver).check_running()
    }
}

impl Drop for ControlPlane {
    fn drop(&mut self) {
        lock(&self.apiserver).stop();
        lock(&self.etcd).stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn lock(process: &Mutex<Process>) -> std::sync::MutexGuard<'_, Process> {
    process.lock().unwrap_or_else(|e| e.into_inner())
}

/// Removes the directory of a start that failed.
struct RemoveOnError(Option<PathBuf>);

impl Drop for RemoveOnError {
    fn drop(&mut self) {
        if let Some(dir) = self.0.take() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// The user name and groups the API server gives the ServiceAccount `namespace/name`.
fn service_account_user(namespace: &str, name: &str) -> (String, Vec<String>) {
    (
        format!("system:serviceaccount:{namespace}:{name}"),
        vec![
            "system:serviceaccounts".into(),
            format!("system:serviceaccounts:{namespace}"),
            "system:authenticated".into(),
        ],
    )
}

/// The first rule that names a verb and a resource (not a non-resource URL), for any name of
/// it (a rule with `resourceNames` allows no request without one).
fn first_resource_rule<'a>(mut rules: impl Iterator<Item = &'a PolicyRule>) -> Option<PolicyRule> {
    rules
        .find(|rule| {
            !rule.verbs.is_empty()
                && rule.resources.as_ref().is_some_and(|r| !r.is_empty())
                && rule.resource_names.as_ref().is_none_or(Vec::is_empty)
        })
        .cloned()
}

/// Waits until the API server's authorizer grants `user` the first verb of `rule` on its
/// first resource. The RBAC authorizer reads roles and bindings from its own informers, so a
/// binding applied a moment ago may not count yet; a controller started then fails its first
/// list with Forbidden, which is not what a test of its role means to find.
async fn await_authorized(
    admin: &Client,
    user: &str,
    groups: &[String],
    namespace: Option<&str>,
    rule: &PolicyRule,
) -> Result<(), Error> {
    let first =
        |values: Option<&Vec<String>>| values.and_then(|v| v.first()).cloned().unwrap_or_default();
    let resources = first(rule.resources.as_ref());
    let (resource, subresource) = match resources.split_once('/') {
        Some((resource, subresource)) => (resource, Some(subresource)),
        None => (resources.as_str(), None),
    };
    let review = SubjectAccessReview {
        spec: SubjectAccessReviewSpec {
            user: Some(user.to_owned()),
            groups: Some(groups.to_vec()),
            resource_attributes: Some(ResourceAttributes {
                namespace: namespace.map(str::to_owned),
                verb: rule.verbs.first().cloned(),
                group: Some(first(rule.api_groups.as_ref())),
                resource: Some(resource.to_owned()),
                subresource: subresource.map(str::to_owned),
                ..Default::default()
            }),
            ..Default::default()
        },
        ..Default::default()
    };
    let reviews: Api<SubjectAccessReview> = Api::all(admin.clone());
    let what = format!("{user} to be allowed to {} {resources}", rule.verbs[0]);
    let deadline = tokio::time::Instant::now() + READY_TIMEOUT;
    loop {
        let answer = reviews
            .create(&PostParams::default(), &review)
            .await
            .map_err(|e| Error::kube(format!("asking whether {what}"), e))?;
        if answer.status.is_some_and(|s| s.allowed) {
            return Ok(());
        }
        if tokio::time::Instant::now() > deadline {
            return Err(Error::Timeout {
                what,
                seconds: READY_TIMEOUT.as_secs(),
            });
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// One control plane for the whole test binary, started by the first caller. It is never
/// dropped: its processes are stopped and its directory removed when the test process exits.
/// Give each test its own namespace.
pub async fn shared() -> Result<&'static ControlPlane, Error> {
    static SHARED: OnceCell<ControlPlane> = OnceCell::const_new();
    SHARED
        .get_or_try_init(|| async {
            let control_plane = ControlPlane::start().await?;
            crate::process::remove_at_exit(control_plane.dir.clone());
            Ok(control_plane)
        })
        .await
}

/// [`shared`] for tests that should not fail where the binaries are absent: without them it
/// prints one line saying how to get them and returns `None`, except under CI (`CI` set and
/// not `false`), where missing binaries must fail the test. Any other error panics.
pub async fn shared_or_skip() -> Option<&'static ControlPlane> {
    match shared().await {
        Ok(control_plane) => Some(control_plane),
        Err(Error::AssetsNotFound(why)) if !on_ci() => {
            eprintln!("opgen-envtest: skipped, {why}");
            None
        }
        Err(e) => panic!("opgen-envtest: cannot start the control plane: {e}"),
    }
}

fn on_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

async fn wait_for_etcd(etcd: &mut Process, port: u16) -> Result<(), Error> {
    let deadline = Instant::now() + READY_TIMEOUT;
    loop {
        etcd.check_running()?;
        if etcd_healthy(port).await {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(etcd.not_ready(format!(
                "etcd not healthy after {} s",
                READY_TIMEOUT.as_secs()
            )));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn etcd_healthy(port: u16) -> bool {
    let Ok(mut stream) = tokio::net::TcpStream::connect(("127.0.0.1", port)).await else {
        return false;
    };
    if stream
        .write_all(b"GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .is_err()
    {
        return false;
    }
    let mut response = String::new();
    let read =
        tokio::time::timeout(Duration::from_secs(2), stream.read_to_string(&mut response)).await;
    matches!(read, Ok(Ok(_))) && response.contains("\"health\":\"true\"")
}

async fn wait_for_apiserver(apiserver: &mut Process, config: &Config) -> Result<(), Error> {
    // A client without kube's tracing layer: the refused connections and 500s of a starting
    // server are expected here, not errors to log into the test's output.
    use kube::client::ConfigExt;
    let https = config
        .rustls_https_connector()
        .map_err(|e| Error::kube("building the readiness client", e))?;
    let http = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build(https);
    let service = tower::ServiceBuilder::new()
        .layer(config.base_uri_layer())
        .service(http);
    let client = Client::new(service, config.default_namespace.clone());
    let deadline = Instant::now() + READY_TIMEOUT;
    loop {
        apiserver.check_running()?;
        let request = http::Request::get(READINESS)
            .body(Vec::new())
            .expect("a valid request");
        let last = match client.request_text(request).await {
            Ok(body) if body.trim() == "ok" => return Ok(()),
            Ok(body) => body,
            Err(e) => e.to_string(),
        };
        if Instant::now() > deadline {
            return Err(apiserver.not_ready(format!(
                "kube-apiserver not ready after {} s (last answer: {last})",
                READY_TIMEOUT.as_secs()
            )));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn kubeconfig(url: &str, pki: &Pki) -> String {
    use base64::{Engine, engine::general_purpose::STANDARD};
    format!(
        "apiVersion: v1
kind: Config
clusters:
- name: envtest
  cluster:
    server: {url}
    certificate-authority-data: {ca}
users:
- name: envtest-admin
  user:
    client-certificate-data: {cert}
    client-key-data: {key}
contexts:
- name: envtest
  context:
    cluster: envtest
    user: envtest-admin
    namespace: default
current-context: envtest
",
        ca = STANDARD.encode(&pki.serving_ca_pem),
        cert = STANDARD.encode(&pki.admin_cert_pem),
        key = STANDARD.encode(&pki.admin_key_pem),
    )
}

/// Creates `namespace` unless it exists (a server-side apply).
pub(crate) async fn ensure_namespace(admin: &Client, namespace: &str) -> Result<(), Error> {
    let params = PatchParams::apply(FIELD_MANAGER).force();
    let namespace_object = Namespace {
        metadata: ObjectMeta {
            name: Some(namespace.to_owned()),
            ..Default::default()
        },
        ..Default::default()
    };
    Api::<Namespace>::all(admin.clone())
        .patch(namespace, &params, &Patch::Apply(&namespace_object))
        .await
        .map_err(|e| Error::kube(format!("creating namespace {namespace}"), e))?;
    Ok(())
}

/// The two clients of an operator's integration test: `admin` for the test's own setup and
/// assertions, `manager` for the controller, with exactly the permissions of its role.
pub struct OperatorClients {
    pub admin: Client,
    pub manager: Client,
}

/// The ServiceAccount an operator's manager runs as (kubebuilder's and opgen's name).
pub const MANAGER_SERVICE_ACCOUNT: &str = "controller-manager";

impl ControlPlane {
    /// What an operator's test starts with: installs the CRDs in `crds` (see
    /// [`install_crds`](crate::install_crds)) and binds the roles in `roles` to the
    /// ServiceAccount [`MANAGER_SERVICE_ACCOUNT`] in `namespace` (see
    /// [`client_with_roles`](ControlPlane::client_with_roles)).
    pub async fn install_operator(
        &self,
        crds: impl AsRef<Path>,
        roles: impl AsRef<Path>,
        namespace: &str,
    ) -> Result<OperatorClients, Error> {
        let admin = self.client()?;
        apply::install_crds(&admin, crds).await?;
        let manager = self
            .client_with_roles(roles, namespace, MANAGER_SERVICE_ACCOUNT)
            .await?;
        Ok(OperatorClients { admin, manager })
    }
}

/// Polls `check` every 100 ms until it returns `Some`, and returns that; panics after
/// `timeout` naming `what`. A controller that lacks a permission logs a Forbidden error and
/// never gets there, so the message points at the role.
pub async fn eventually<T, F, Fut>(what: &str, timeout: Duration, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        if let Some(value) = check().await {
            return value;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out after {timeout:?} waiting for {what}; a Forbidden error in the log above means the role lacks a permission: add the +kubebuilder:rbac marker and regenerate the role (`make manifests`)"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A reference to an RBAC role, built from JSON: `apiGroup` is a `String` up to k8s-openapi's
/// v1_36 and an `Option<String>` from v1_37, and the crate that uses this one picks the version.
fn role_ref(kind: &str, name: String) -> RoleRef {
    serde_json::from_value(serde_json::json!({
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": kind,
        "name": name,
    }))
    .expect("a RoleRef deserializes")
}
