//! `opgen dev-webhooks`

use super::{GlobalArgs, finish};
use crate::diag::Result;
use crate::ops::dev_webhooks::{DEV_CRDS, DEV_DIR, dev_webhooks};

/// Serve the webhooks from this machine without cert-manager: a self-signed certificate,
/// url-style webhook configurations that trust it and the CRDs of kinds with a conversion
/// webhook pointed at it, under .opgen/webhook-dev/
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example (what `make run-webhooks` does):\n  opgen dev-webhooks --url https://host.docker.internal:9443\n  kubectl apply -f .opgen/webhook-dev/manifests.yaml\n  kubectl apply --server-side --force-conflicts -f .opgen/webhook-dev/crds.yaml   # with a conversion webhook\n  cargo run -- --webhook-cert-path=.opgen/webhook-dev --metrics-secure=false"
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
            "{} webhook{}{} served at {}",
            dev.webhooks,
            if dev.webhooks == 1 { "" } else { "s" },
            match dev.conversions {
                0 => String::new(),
                1 => " and 1 CRD's conversion".to_owned(),
                n => format!(" and {n} CRDs' conversion"),
            },
            args.url
        ),
    )?;
    if !global.quiet && !global.dry_run {
        let mut applies = Vec::new();
        if dev.webhooks > 0 {
            applies.push(format!("`kubectl apply -f {DEV_DIR}/manifests.yaml`"));
        }
        if dev.conversions > 0 {
            applies.push(format!(
                "`kubectl apply --server-side --force-conflicts -f {DEV_CRDS}` (`make install` points the CRDs back at the in-cluster Service)"
            ));
        }
        println!(
            "the manager serves them with --webhook-cert-path={DEV_DIR}; {} makes the cluster call them (`make run-webhooks` does both)",
            applies.join(" and ")
        );
    }
    Ok(())
}
