//! The manager: connects to the cluster, serves probes, metrics and the
//! admission webhooks, elects a leader, and runs every registered controller
//! until shutdown. Like controller-runtime's manager, with a builder instead
//! of `SetupWithManager` calls.

use std::{
    process::ExitCode,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
};

use futures::future;
use kube::Client;
use tokio::signal::unix::{SignalKind, signal};
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use crate::{
    Error, Result,
    cli::{BindAddress, ManagerArgs},
    controller::{Context, ControllerEntry},
    leader_election::LeaderElector,
    logging,
    metrics::Metrics,
    server,
    webhook::{self, WebhookEntry},
};

/// The operator's controllers and webhooks, and how to run them.
///
/// ```no_run
/// # async fn example(args: opgen_runtime::ManagerArgs) -> opgen_runtime::Result<()> {
/// use opgen_runtime::Manager;
///
/// Manager::new("memcached-operator")
///     .lease_name("3c4f1a2b.example.com")
///     .controllers(&[/* CONTROLLER of each kind */])
///     .webhooks(&[/* WEBHOOK of each kind */])
///     .run(args)
///     .await
/// # }
/// ```
#[derive(Clone)]
#[must_use = "a Manager does nothing until run"]
pub struct Manager {
    name: String,
    lease_name: Option<String>,
    metrics_prefix: Option<String>,
    controllers: Vec<ControllerEntry>,
    webhooks: Vec<WebhookEntry>,
    client: Option<Client>,
}

impl std::fmt::Debug for Manager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Manager")
            .field("name", &self.name)
            .field("lease_name", &self.lease_name)
            .field("metrics_prefix", &self.metrics_prefix)
            .field("controllers", &self.controllers)
            .field("webhooks", &self.webhooks)
            .finish_non_exhaustive()
    }
}

impl Manager {
    /// A manager for the operator `name`: the field manager of its server-side applies, the
    /// reporter of its events, and (unless set otherwise) its Lease name and metrics prefix.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            lease_name: None,
            metrics_prefix: None,
            controllers: Vec::new(),
            webhooks: Vec::new(),
            client: None,
        }
    }

    /// The name of the leader election Lease, shared by all replicas. kubebuilder names it
    /// `<fnv32a hash of the repository>.<domain>`; the default is `<name>-leader`.
    pub fn lease_name(mut self, lease_name: impl Into<String>) -> Self {
        self.lease_name = Some(lease_name.into());
        self
    }

    /// The prefix of every metric name; the default is the name with `-` as `_`.
    pub fn metrics_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.metrics_prefix = Some(prefix.into());
        self
    }

    /// Adds controllers, run concurrently (by the leader only, with `--leader-elect`).
    pub fn controllers(mut self, controllers: &[ControllerEntry]) -> Self {
        self.controllers.extend_from_slice(controllers);
        self
    }

    /// Adds webhooks, served by every replica on one HTTPS server.
    pub fn webhooks(mut self, webhooks: &[WebhookEntry]) -> Self {
        self.webhooks.extend_from_slice(webhooks);
        self
    }

    /// The client to use, instead of the kubeconfig or in-cluster configuration.
    pub fn client(mut self, client: Client) -> Self {
        self.client = Some(client);
        self
    }

    /// The Lease name in use.
    pub fn lease(&self) -> String {
        self.lease_name
            .clone()
            .unwrap_or_else(|| format!("{}-leader", self.name))
    }

    /// The whole of an operator's `main`: sets up logging from `--log-level` and
    /// `--log-format`, runs until SIGTERM or Ctrl-C, and returns the exit code (1 when the
    /// manager failed, after logging why; 2 for an invalid log filter).
    pub async fn main(self, args: ManagerArgs) -> ExitCode {
        if let Err(error) = logging::init(&args.log_level, args.log_format) {
            eprintln!("invalid --log-level or RUST_LOG: {error}");
            return ExitCode::from(2);
        }
        match self.run(args).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                tracing::error!(error = error_chain(&error), "manager stopped");
                ExitCode::FAILURE
            }
        }
    }

    /// [`main`](Self::main) with [`ManagerArgs`] parsed from the command line, the program
    /// named after the operator: the whole `main` of an operator without flags of its own.
    /// Invalid flags exit with code 2 and clap's message, `--help` prints the flags.
    pub async fn main_from_command_line(self) -> ExitCode {
        use clap::{Args as _, FromArgMatches as _};
        let about = format!("Runs the {} controllers.", self.name);
        let command = ManagerArgs::augment_args(clap::Command::new(self.name.clone())).about(about);
        let args = ManagerArgs::from_arg_matches(&command.get_matches())
            .unwrap_or_else(|error| error.exit());
        self.main(args).await
    }

    /// Runs until SIGTERM or Ctrl-C (then returns `Ok` once controllers drained),
    /// or until something fails (then returns the error and the process should
    /// exit non-zero). A second signal exits at once.
    pub async fn run(self, args: ManagerArgs) -> Result<()> {
        let shutdown = CancellationToken::new();
        spawn_signal_handler(shutdown.clone())?;
        self.run_until(args, shutdown).await
    }

    /// Runs until `shutdown` is cancelled, or until something fails; installs no signal
    /// handler (for tests, or a process that runs more than a manager).
    pub async fn run_until(self, args: ManagerArgs, shutdown: CancellationToken) -> Result<()> {
        // Any early return below also stops whatever was started.
        let _stop_on_return = shutdown.clone().drop_guard();
        let lease = self.lease();
        let prefix = self
            .metrics_prefix
            .clone()
            .unwrap_or_else(|| self.name.replace('-', "_"));
        let client = match self.client {
            Some(client) => client,
            None => Client::try_default().await.map_err(Error::ClientConfig)?,
        };
        let metrics = Arc::new(Metrics::new(&prefix));
        let ready = Arc::new(AtomicBool::new(false));
        // The metrics and webhook certificates are loaded before anything is
        // served, so a bad one fails the startup.
        let serve_metrics = matches!(args.metrics_bind_address, BindAddress::Listen(_));
        let metrics_tls = if serve_metrics && args.metrics_secure {
            let files = args.metrics_certificate_files();
            Some(server::tls::server_acceptor("metrics", files, &shutdown)?)
        } else {
            if serve_metrics && args.metrics_certificate_files().is_some() {
                warn!("--metrics-cert-path is ignored: --metrics-secure=false serves plain HTTP");
            }
            None
        };
        let webhook_tls = if webhook::should_serve(&self.webhooks, args.enable_webhooks) {
            let files = args.webhook_certificate_files();
            Some(server::tls::server_acceptor("webhook", files, &shutdown)?)
        } else {
            None
        };

        let mut servers = Vec::new();
        if let BindAddress::Listen(address) = &args.health_probe_bind_address {
            let router = server::health_router(ready.clone());
            let probes = server::spawn("health probes", address, None, router, shutdown.clone());
            servers.push(probes.await?);
        }
        if let BindAddress::Listen(address) = &args.metrics_bind_address {
            let auth = args.metrics_secure.then(|| client.clone());
            let router = server::metrics_router(metrics.clone(), auth);
            let metrics_server =
                server::spawn("metrics", address, metrics_tls, router, shutdown.clone());
            servers.push(metrics_server.await?);
        }
        // Every replica serves the webhooks: they do not wait for leader election.
        if let Some(tls) = webhook_tls {
            let address = format!("0.0.0.0:{}", args.webhook_port);
            let router = webhook::router(&self.webhooks);
            let webhook_server =
                server::spawn("webhook", &address, Some(tls), router, shutdown.clone());
            servers.push(webhook_server.await?);
        }

        let version = client
            .apiserver_version()
            .await
            .map_err(Error::ApiServerUnreachable)?;
        info!(version = %version.git_version, "connected to the Kubernetes API server");
        ready.store(true, Ordering::Relaxed);

        let namespaces = args.watch_namespaces();
        if !namespaces.is_empty() {
            info!(?namespaces, "watching only these namespaces");
        }
        let mut ctx = Context::new(
            client.clone(),
            self.name.clone(),
            metrics,
            namespaces,
            shutdown.clone(),
        );
        ctx.max_concurrent_reconciles = args.max_concurrent_reconciles;
        let ctx = Arc::new(ctx);
        let controllers = self.controllers;
        let result = if args.leader_elect {
            let namespace = args
                .leader_election_namespace
                .unwrap_or_else(|| client.default_namespace().to_owned());
            run_as_leader(client, &lease, &namespace, ctx, &controllers).await
        } else {
            run_controllers(ctx, &controllers).await
        };

        shutdown.cancel();
        future::join_all(servers).await;
        result
    }
}

/// Runs the controllers only while this replica holds the leader Lease.
async fn run_as_leader(
    client: Client,
    lease: &str,
    namespace: &str,
    ctx: Arc<Context>,
    controllers: &[ControllerEntry],
) -> Result<()> {
    let elector = LeaderElector::new(client, lease, namespace).await?;
    info!(lease, namespace, "waiting to become the leader");
    if !elector.acquire(&ctx.shutdown).await {
        return Ok(());
    }
    info!(
        lease,
        namespace,
        identity = elector.identity(),
        "became the leader"
    );

    let result = tokio::select! {
        result = run_controllers(ctx, controllers) => result,
        lost = elector.hold() => Err(lost),
    };
    if !matches!(result, Err(Error::LeaderElectionLost)) {
        elector.release().await;
    }
    result
}

/// Runs every registered controller concurrently until shutdown. The first
/// controller to fail stops the others.
async fn run_controllers(ctx: Arc<Context>, controllers: &[ControllerEntry]) -> Result<()> {
    let controllers = controllers.iter().map(|controller| {
        info!(controller = controller.name, "starting controller");
        ctx.metrics.init_controller(controller.name);
        (controller.run)(ctx.clone())
    });
    future::try_join_all(controllers).await?;
    // Controllers return on shutdown; with none registered, wait for it here.
    ctx.shutdown.cancelled().await;
    info!("controllers stopped");
    Ok(())
}

/// Cancels `shutdown` on the first SIGTERM or Ctrl-C, and exits at once on the
/// second, like controller-runtime.
fn spawn_signal_handler(shutdown: CancellationToken) -> Result<()> {
    let mut terminate = signal(SignalKind::terminate()).map_err(|source| Error::Io {
        context: "cannot install the SIGTERM handler".into(),
        source,
    })?;
    tokio::spawn(async move {
        tokio::select! {
            _ = terminate.recv() => {}
            _ = tokio::signal::ctrl_c() => {}
        }
        info!("shutting down: draining controllers (signal again to exit immediately)");
        shutdown.cancel();
        tokio::select! {
            _ = terminate.recv() => {}
            _ = tokio::signal::ctrl_c() => {}
        }
        warn!("second shutdown signal, exiting immediately");
        std::process::exit(1);
    });
    Ok(())
}

/// The error and its causes on one line, skipping causes already in the message.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let kube = cause.downcast_ref::<kube::Error>();
        let cause_message = kube.map_or_else(|| cause.to_string(), crate::error::one_line);
        if !message.contains(&cause_message) {
            message = format!("{message}: {cause_message}");
        }
        // An API error's source is its Status, which that one line has said.
        source = match kube {
            Some(kube::Error::Api(_)) => None,
            _ => cause.source(),
        };
    }
    message
}

#[cfg(test)]
mod tests {
    use super::error_chain;
    use crate::Error;
    use kube::core::Status;

    /// Issue #23 item 8: a refused request is one line, the server's message once, no Debug
    /// dump of its Status.
    #[test]
    fn an_api_error_is_one_line_with_the_message_once() {
        let message = "statefulsets.apps is forbidden: User \"system:serviceaccount:x:y\" cannot create resource \"statefulsets\"";
        let error = Error::Kube(kube::Error::Api(
            Status::failure(message, "Forbidden").with_code(403).boxed(),
        ));
        let want = format!("Kubernetes API error: 403 Forbidden: {message}");
        assert_eq!(error.to_string(), want);
        assert_eq!(error_chain(&error), want);
    }
}
