//! Command-line flags of the manager, named like controller-runtime's so the
//! kustomize manifests in `config/` can pass the same arguments.
//!
//! [`ManagerArgs`] is a [`clap::Args`] struct: flatten it into the operator's own
//! parser and add the operator's flags next to it.
//!
//! ```
//! use clap::Parser;
//! use opgen_runtime::ManagerArgs;
//!
//! /// Runs the example controllers.
//! #[derive(Parser)]
//! struct Args {
//!     #[command(flatten)]
//!     manager: ManagerArgs,
//!     /// An operator's own flag.
//!     #[arg(long, default_value_t = 3)]
//!     max_replicas: u32,
//! }
//!
//! let args = Args::parse_from(["manager", "--leader-elect", "--max-replicas=5"]);
//! assert!(args.manager.leader_elect);
//! assert_eq!(args.max_replicas, 5);
//! ```

use std::{
    fmt,
    path::{Path, PathBuf},
    str::FromStr,
};

use clap::{
    ArgAction, ValueEnum,
    builder::{BoolishValueParser, OsStringValueParser, TypedValueParser},
};

use crate::server::tls::CertificateFiles;

/// The manager's flags: metrics, probes, webhooks, leader election, namespaces, logging.
#[derive(Debug, Clone, clap::Args)]
pub struct ManagerArgs {
    /// Address the metrics endpoint binds to, e.g. ":8443" or "127.0.0.1:8080".
    /// "0" disables it.
    #[arg(long, default_value = "0")]
    pub metrics_bind_address: BindAddress,

    /// Serve metrics over HTTPS, and only to callers whose bearer token passes a
    /// TokenReview and is allowed "get" on the non-resource URL /metrics. Use
    /// --metrics-secure=false (plain HTTP, no authentication) for local runs.
    #[arg(
        long,
        action = ArgAction::Set,
        num_args = 0..=1,
        require_equals = true,
        default_value_t = true,
        default_missing_value = "true"
    )]
    pub metrics_secure: bool,

    /// Directory holding the metrics server's PEM certificate and key; they are
    /// reloaded when the files change. Empty: a self-signed certificate is
    /// generated at startup (for development only).
    // Not clap's PathBuf parser: like Go's flag package, accept an empty value.
    #[arg(long, value_parser = OsStringValueParser::new().map(PathBuf::from))]
    pub metrics_cert_path: Option<PathBuf>,

    /// File name of the metrics server's certificate in --metrics-cert-path.
    #[arg(long, default_value = "tls.crt")]
    pub metrics_cert_name: String,

    /// File name of the metrics server's private key in --metrics-cert-path.
    #[arg(long, default_value = "tls.key")]
    pub metrics_cert_key: String,

    /// Port the admission webhook server listens on (HTTPS, all interfaces). It
    /// is only served when webhooks are registered and enabled.
    #[arg(long, default_value_t = 9443)]
    pub webhook_port: u16,

    /// Directory holding the webhook server's PEM certificate and key, e.g. the
    /// cert-manager Secret mounted at /tmp/k8s-webhook-server/serving-certs; they
    /// are reloaded when the files change. Empty: a self-signed certificate is
    /// generated at startup (for development only: the API server cannot verify it).
    #[arg(long, value_parser = OsStringValueParser::new().map(PathBuf::from))]
    pub webhook_cert_path: Option<PathBuf>,

    /// File name of the webhook server's certificate in --webhook-cert-path.
    #[arg(long, default_value = "tls.crt")]
    pub webhook_cert_name: String,

    /// File name of the webhook server's private key in --webhook-cert-path.
    #[arg(long, default_value = "tls.key")]
    pub webhook_cert_key: String,

    /// Serve the admission webhooks (when any is registered).
    /// ENABLE_WEBHOOKS=false turns them off, as in kubebuilder projects, e.g. for
    /// `make run` against a cluster whose webhooks point elsewhere.
    #[arg(
        long,
        env = "ENABLE_WEBHOOKS",
        action = ArgAction::Set,
        num_args = 0..=1,
        require_equals = true,
        default_value_t = true,
        default_missing_value = "true",
        value_parser = BoolishValueParser::new()
    )]
    pub enable_webhooks: bool,

    /// Address the /healthz and /readyz probes bind to. "0" disables them.
    #[arg(long, default_value = ":8081")]
    pub health_probe_bind_address: BindAddress,

    /// Elect a leader through a Lease, so that only one replica runs the
    /// controllers at a time.
    #[arg(
        long,
        action = ArgAction::Set,
        num_args = 0..=1,
        require_equals = true,
        default_value_t = false,
        default_missing_value = "true"
    )]
    pub leader_elect: bool,

    /// Namespace of the leader election Lease. Defaults to the client's
    /// namespace: the service account's namespace in a cluster, the kubeconfig
    /// context's namespace outside.
    #[arg(long, env = "POD_NAMESPACE")]
    pub leader_election_namespace: Option<String>,

    /// Comma-separated namespaces to watch. Empty watches all namespaces.
    #[arg(long, env = "WATCH_NAMESPACE")]
    pub namespace: Option<String>,

    /// Log level or tracing filter directives, e.g. "debug" or
    /// "info,kube=debug". RUST_LOG overrides it when set.
    #[arg(long, default_value = "info")]
    pub log_level: String,

    /// Log output format.
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    /// How many objects each controller reconciles at once; 0 for no limit. Each reconcile
    /// in flight holds a connection to the API server (kube's client speaks HTTP/1.1).
    #[arg(long, default_value_t = DEFAULT_MAX_CONCURRENT_RECONCILES)]
    pub max_concurrent_reconciles: u16,
}

/// `--max-concurrent-reconciles` unless given.
pub const DEFAULT_MAX_CONCURRENT_RECONCILES: u16 = 16;

impl ManagerArgs {
    /// The flags as parsed from `flags` (without a program name), the others at their
    /// defaults: for tests, and for managers started from code.
    ///
    /// ```
    /// let args = opgen_runtime::ManagerArgs::try_from_flags(["--webhook-port=10250"]).unwrap();
    /// assert_eq!(args.webhook_port, 10250);
    /// ```
    pub fn try_from_flags<I, T>(flags: I) -> Result<Self, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        use clap::{Args as _, FromArgMatches as _};
        let command = Self::augment_args(clap::Command::new("manager").no_binary_name(true));
        let matches = command.try_get_matches_from(flags)?;
        Self::from_arg_matches(&matches)
    }

    /// The metrics certificate and key from `--metrics-cert-*`, or `None` when
    /// `--metrics-cert-path` is empty.
    pub fn metrics_certificate_files(&self) -> Option<CertificateFiles> {
        certificate_files(
            self.metrics_cert_path.as_deref(),
            &self.metrics_cert_name,
            &self.metrics_cert_key,
        )
    }

    /// The webhook certificate and key from `--webhook-cert-*`, or `None` when
    /// `--webhook-cert-path` is empty.
    pub fn webhook_certificate_files(&self) -> Option<CertificateFiles> {
        certificate_files(
            self.webhook_cert_path.as_deref(),
            &self.webhook_cert_name,
            &self.webhook_cert_key,
        )
    }

    /// The namespaces from `--namespace`, without blanks. Empty means all.
    pub fn watch_namespaces(&self) -> Vec<String> {
        self.namespace
            .iter()
            .flat_map(|list| list.split(','))
            .map(str::trim)
            .filter(|namespace| !namespace.is_empty())
            .map(String::from)
            .collect()
    }
}

/// `cert` and `key` in `dir`, or `None` when `dir` is unset or empty.
fn certificate_files(dir: Option<&Path>, cert: &str, key: &str) -> Option<CertificateFiles> {
    let dir = dir.filter(|dir| !dir.as_os_str().is_empty())?;
    Some(CertificateFiles::in_dir(dir, cert, key))
}

/// Log output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

/// A listen address in Go's notation, as kubebuilder manifests write them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BindAddress {
    /// "0": do not serve.
    Disabled,
    /// A `host:port` to bind. ":8081" is stored as "0.0.0.0:8081".
    Listen(String),
}

impl FromStr for BindAddress {
    type Err = String;

    fn from_str(address: &str) -> Result<Self, Self::Err> {
        if address == "0" {
            return Ok(Self::Disabled);
        }
        let Some((host, port)) = address.rsplit_once(':') else {
            return Err(format!(
                "{address:?} is not \"host:port\", \":port\" or \"0\""
            ));
        };
        port.parse::<u16>()
            .map_err(|_| format!("{address:?} has an invalid port"))?;
        // Go binds all interfaces for an empty host.
        let host = if host.is_empty() { "0.0.0.0" } else { host };
        Ok(Self::Listen(format!("{host}:{port}")))
    }
}

impl fmt::Display for BindAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Disabled => f.write_str("0"),
            Self::Listen(address) => f.write_str(address),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, Parser};

    /// Runs the example controllers.
    #[derive(Debug, Parser)]
    struct Args {
        #[command(flatten)]
        manager: ManagerArgs,
    }

    #[test]
    fn flattened_flags_keep_the_operators_description() {
        let command = Args::command();
        let about = command.get_about().map(ToString::to_string);
        // clap drops the final period of a one-line description.
        assert_eq!(about.as_deref(), Some("Runs the example controllers"));
        assert!(
            command
                .get_arguments()
                .any(|arg| arg.get_id() == "leader_elect")
        );
    }

    fn parse(args: &[&str]) -> ManagerArgs {
        try_parse(args).expect("flags parse")
    }

    fn try_parse(args: &[&str]) -> Result<ManagerArgs, clap::Error> {
        Args::try_parse_from(std::iter::once("manager").chain(args.iter().copied()))
            .map(|args| args.manager)
    }

    #[test]
    fn flag_definitions_are_consistent() {
        Args::command().debug_assert();
    }

    #[test]
    fn bind_addresses_accept_go_notation() {
        let listen = |s: &str| BindAddress::Listen(s.into());
        assert_eq!("0".parse(), Ok(BindAddress::Disabled));
        assert_eq!(":8081".parse(), Ok(listen("0.0.0.0:8081")));
        assert_eq!("127.0.0.1:8080".parse(), Ok(listen("127.0.0.1:8080")));
        assert_eq!("[::1]:8080".parse(), Ok(listen("[::1]:8080")));
        assert!("8080".parse::<BindAddress>().is_err());
        assert!(":http".parse::<BindAddress>().is_err());
    }

    #[test]
    fn defaults_match_kubebuilder() {
        let args = parse(&[]);
        assert_eq!(args.metrics_bind_address, BindAddress::Disabled);
        assert!(args.metrics_secure);
        assert_eq!(
            args.health_probe_bind_address,
            BindAddress::Listen("0.0.0.0:8081".into())
        );
        assert!(!args.leader_elect);
        assert_eq!(args.log_format, LogFormat::Text);
        assert_eq!(args.metrics_certificate_files(), None);
        assert_eq!(args.metrics_cert_name, "tls.crt");
        assert_eq!(args.metrics_cert_key, "tls.key");
        assert_eq!(args.webhook_port, 9443);
        assert_eq!(args.webhook_certificate_files(), None);
        assert_eq!(args.webhook_cert_name, "tls.crt");
        assert_eq!(args.webhook_cert_key, "tls.key");
    }

    #[test]
    fn webhook_flags_parse() {
        let args = parse(&[
            "--webhook-port=10250",
            "--webhook-cert-path=/tmp/k8s-webhook-server/serving-certs",
            "--webhook-cert-key=key.pem",
        ]);
        assert_eq!(args.webhook_port, 10250);
        assert_eq!(
            args.webhook_certificate_files(),
            Some(CertificateFiles {
                cert: "/tmp/k8s-webhook-server/serving-certs/tls.crt".into(),
                key: "/tmp/k8s-webhook-server/serving-certs/key.pem".into(),
            })
        );
        assert_eq!(
            parse(&["--webhook-cert-path="]).webhook_certificate_files(),
            None
        );
        assert!(parse(&["--enable-webhooks"]).enable_webhooks);
        assert!(!parse(&["--enable-webhooks=false"]).enable_webhooks);
        assert!(!parse(&["--enable-webhooks=0"]).enable_webhooks);
        assert!(try_parse(&["--enable-webhooks=maybe"]).is_err());
        // kubebuilder's switch: ENABLE_WEBHOOKS=false.
        let command = Args::command();
        let switch = command
            .get_arguments()
            .find(|arg| arg.get_id() == "enable_webhooks")
            .expect("--enable-webhooks is defined");
        assert_eq!(
            switch.get_env().and_then(|name| name.to_str()),
            Some("ENABLE_WEBHOOKS")
        );
    }

    #[test]
    fn metrics_certificate_files_come_from_the_cert_flags() {
        let files = |args: &[&str]| parse(args).metrics_certificate_files();
        assert_eq!(files(&["--metrics-cert-path="]), None);
        assert_eq!(
            files(&["--metrics-cert-path=/tmp/k8s-metrics-server/metrics-certs"]),
            Some(CertificateFiles {
                cert: "/tmp/k8s-metrics-server/metrics-certs/tls.crt".into(),
                key: "/tmp/k8s-metrics-server/metrics-certs/tls.key".into(),
            })
        );
        assert_eq!(
            files(&[
                "--metrics-cert-path=/certs",
                "--metrics-cert-name=cert.pem",
                "--metrics-cert-key=key.pem",
            ]),
            Some(CertificateFiles {
                cert: "/certs/cert.pem".into(),
                key: "/certs/key.pem".into(),
            })
        );
    }

    #[test]
    fn manifest_style_flags_parse() {
        let args = parse(&[
            "--metrics-bind-address=:8443",
            "--leader-elect",
            "--metrics-secure=false",
            "--namespace=a, b,,c",
            "--log-format=json",
        ]);
        assert_eq!(
            args.metrics_bind_address,
            BindAddress::Listen("0.0.0.0:8443".into())
        );
        assert!(args.leader_elect);
        assert!(!args.metrics_secure);
        assert_eq!(args.watch_namespaces(), ["a", "b", "c"]);
        assert_eq!(args.log_format, LogFormat::Json);
    }
}
