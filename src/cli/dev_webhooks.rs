//! `opgen dev-webhooks`

use super::{GlobalArgs, finish};
use crate::diag::Result;
use crate::ops::dev_webhooks::{DEV_DIR, dev_webhooks};

/// Serve the webhooks from this machine without cert-manager: a self-signed certificate and
/// url-style webhook configurations that trust it, under .opgen/webhook-dev/
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example (what `make run-webhooks` does):\n  opgen dev-webhooks --url https://host.docker.internal:9443\n  kubectl apply -f .opgen/webhook-dev/manifests.yaml\n  cargo run -- --webhook-cert-path=.opgen/webhook-dev --metrics-secure=false"
)]
pub struct Args {
    /// The address the API server reaches this machine's webhook server at
    #[arg(long, default_value = "https://host.docker.internal:9443")]
    pub url: String,
}

pub fn run(args: Args, global: &GlobalArgs) -> Result<()> {
    let mut ws = super::open_project_workspace(global)?;
    let dev = dev_webhooks(&mut ws, &args.url)?;
    finish(
        &ws,
        global,
        &format!(
            "{} webhook{} served at {}",
            dev.webhooks,
            if dev.webhooks == 1 { "" } else { "s" },
            args.url
        ),
    )?;
    if !global.quiet && !global.dry_run {
        println!(
            "the manager serves them with --webhook-cert-path={DEV_DIR}; `kubectl apply -f {DEV_DIR}/manifests.yaml` makes the cluster call them (`make run-webhooks` does both)"
        );
    }
    Ok(())
}
