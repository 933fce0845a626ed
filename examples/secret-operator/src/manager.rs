// Copyright 2026 The secret-operator Authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

//! The manager: connects to the cluster, serves probes and metrics, elects a
//! leader, and runs every registered controller until shutdown.

use std::sync::{
    Arc,
    atomic::{AtomicBool, Ordering},
};

use futures::future;
use kube::Client;
use tokio::signal::unix::{SignalKind, signal};
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use crate::{
    Error, Result,
    cli::{Args, BindAddress},
    controllers::{CONTROLLERS, Context},
    leader_election::{LEASE_NAME, LeaderElector},
    metrics::Metrics,
    server,
};

/// Runs until SIGTERM or Ctrl-C (then returns `Ok` once controllers drained),
/// or until something fails (then returns the error and the process should
/// exit non-zero).
pub async fn run(args: Args) -> Result<()> {
    let shutdown = CancellationToken::new();
    // Any early return below also stops whatever was started.
    let _stop_on_return = shutdown.clone().drop_guard();
    spawn_signal_handler(shutdown.clone())?;

    let client = Client::try_default().await.map_err(Error::ClientConfig)?;
    let metrics = Arc::new(Metrics::default());
    let ready = Arc::new(AtomicBool::new(false));

    // The metrics certificate is loaded before anything is served, so a bad one
    // fails the startup.
    let serve_metrics = matches!(args.metrics_bind_address, BindAddress::Listen(_));
    let metrics_tls = if serve_metrics && args.metrics_secure {
        let files = args.metrics_certificate_files();
        Some(server::tls::metrics_acceptor(files, &shutdown)?)
    } else {
        if serve_metrics && args.metrics_certificate_files().is_some() {
            warn!("--metrics-cert-path is ignored: --metrics-secure=false serves plain HTTP");
        }
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
    let ctx = Arc::new(Context::new(
        client.clone(),
        metrics,
        namespaces,
        shutdown.clone(),
    ));
    let result = if args.leader_elect {
        let namespace = args
            .leader_election_namespace
            .unwrap_or_else(|| client.default_namespace().to_owned());
        run_as_leader(client, &namespace, ctx).await
    } else {
        run_controllers(ctx).await
    };

    shutdown.cancel();
    future::join_all(servers).await;
    result
}

/// Runs the controllers only while this replica holds the leader Lease.
async fn run_as_leader(client: Client, namespace: &str, ctx: Arc<Context>) -> Result<()> {
    let elector = LeaderElector::new(client, namespace).await?;
    info!(
        lease = LEASE_NAME,
        namespace, "waiting to become the leader"
    );
    if !elector.acquire(&ctx.shutdown).await {
        return Ok(());
    }
    info!(lease = LEASE_NAME, namespace, "became the leader");

    let result = tokio::select! {
        result = run_controllers(ctx) => result,
        lost = elector.hold() => Err(lost),
    };
    if !matches!(result, Err(Error::LeaderElectionLost)) {
        elector.release().await;
    }
    result
}

/// Runs every registered controller concurrently until shutdown. The first
/// controller to fail stops the others.
async fn run_controllers(ctx: Arc<Context>) -> Result<()> {
    let controllers = CONTROLLERS.iter().map(|controller| {
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
