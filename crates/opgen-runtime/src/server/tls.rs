//! HTTPS for the metrics and webhook servers, as controller-runtime serves them:
//!
//! - with `--metrics-cert-path` (`--webhook-cert-path`), the PEM certificate
//!   chain and private key are loaded from that directory, and re-read every
//!   [`RELOAD_INTERVAL`] so that a renewed certificate (e.g. from cert-manager)
//!   is served without a restart;
//! - without it, a self-signed certificate is generated in memory at startup.
//!   That is for development only: scrapers and the API server cannot verify it.
//!
//! TLS 1.3 and 1.2 are offered (rustls' safe defaults, ring provider), and only
//! HTTP/1.1 (ALPN `http/1.1`), like kubebuilder's default `--enable-http2=false`.

use std::{
    fmt, io,
    net::SocketAddr,
    path::{Path, PathBuf},
    sync::{Arc, PoisonError, RwLock},
    time::Duration,
};

use axum::serve::Listener;
use tokio::{
    net::{TcpListener, TcpStream},
    task::{JoinHandle, JoinSet},
    time::{MissedTickBehavior, timeout},
};
use tokio_rustls::{
    TlsAcceptor,
    rustls::{
        self, ServerConfig,
        crypto::CryptoProvider,
        pki_types::{CertificateDer, PrivateKeyDer, pem::PemObject},
        server::{ClientHello, ResolvesServerCert},
        sign::{CertifiedKey, SingleCertAndKey},
    },
    server::TlsStream,
};
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

use crate::{Error, Result};

/// How often the certificate files are checked for changes (controller-runtime's
/// certwatcher polls every 10 seconds as well).
pub const RELOAD_INTERVAL: Duration = Duration::from_secs(10);

/// A client must complete the TLS handshake within this time.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// At most this many handshakes run at once; further connections wait in the
/// listen backlog.
const MAX_PENDING_HANDSHAKES: usize = 64;

/// The TLS acceptor of the `server` server ("metrics" or "webhook": its flags
/// are `--<server>-cert-*`). With `files`, it serves that certificate and
/// reloads it when the files change, until `shutdown`; without, it serves a
/// self-signed certificate generated now.
pub fn server_acceptor(
    server: &'static str,
    files: Option<CertificateFiles>,
    shutdown: &CancellationToken,
) -> Result<TlsAcceptor> {
    let resolver: Arc<dyn ResolvesServerCert> = match files {
        Some(files) => {
            let certificate = Arc::new(ReloadingCertificate::load(server, files)?);
            info!(
                cert = %certificate.files.cert.display(),
                key = %certificate.files.key.display(),
                "loaded the {server} TLS certificate; it is reloaded when the files change"
            );
            // The task ends with `shutdown`.
            certificate.clone().watch(shutdown.clone());
            certificate
        }
        None => {
            warn!(
                "--{server}-cert-path is not set: serving the {server} server with a self-signed \
                 certificate generated at startup, which clients cannot verify. This is for \
                 development only; give the manager a certificate with --{server}-cert-path \
                 in production"
            );
            Arc::new(SingleCertAndKey::from(self_signed()?))
        }
    };
    acceptor(resolver)
}

/// A TLS acceptor serving the certificate `resolver` picks, HTTP/1.1 only.
pub fn acceptor(resolver: Arc<dyn ResolvesServerCert>) -> Result<TlsAcceptor> {
    let mut config = ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|source| tls_error("cannot configure TLS", source))?
        .with_no_client_auth()
        .with_cert_resolver(resolver);
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(TlsAcceptor::from(Arc::new(config)))
}

/// A self-signed certificate for `localhost` and its key, made in memory.
pub fn self_signed() -> Result<CertifiedKey> {
    const CONTEXT: &str = "cannot generate a self-signed TLS certificate";
    let mut params = rcgen::CertificateParams::new(vec!["localhost".to_owned()])
        .map_err(|source| tls_error(CONTEXT, source))?;
    params.distinguished_name = rcgen::DistinguishedName::new();
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "localhost");
    let key = rcgen::KeyPair::generate().map_err(|source| tls_error(CONTEXT, source))?;
    let cert = params
        .self_signed(&key)
        .map_err(|source| tls_error(CONTEXT, source))?;
    let key = PrivateKeyDer::Pkcs8(key.serialize_der().into());
    CertifiedKey::from_der(vec![cert.der().clone()], key, &provider())
        .map_err(|source| tls_error(CONTEXT, source))
}

/// The paths of a PEM certificate chain and of its PEM private key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CertificateFiles {
    /// The certificate chain, the server's certificate first.
    pub cert: PathBuf,
    /// The private key (PKCS#8, PKCS#1 or SEC1).
    pub key: PathBuf,
}

impl CertificateFiles {
    /// The files `cert_name` and `key_name` in `dir`.
    pub fn in_dir(dir: &Path, cert_name: &str, key_name: &str) -> Self {
        Self {
            cert: dir.join(cert_name),
            key: dir.join(key_name),
        }
    }

    /// Reads and checks both files; errors name them as the `server`'s.
    pub fn load(&self, server: &str) -> Result<CertifiedKey> {
        let pem = self.read(server)?;
        self.parse(server, &pem)
    }

    fn read(&self, server: &str) -> Result<PemPair> {
        let read = |path: &Path, what: &str| {
            std::fs::read(path).map_err(|source| {
                tls_error(
                    format!("cannot read the {server} TLS {what} {}", path.display()),
                    source,
                )
            })
        };
        Ok(PemPair {
            cert: read(&self.cert, "certificate")?,
            key: read(&self.key, "private key")?,
        })
    }

    fn parse(&self, server: &str, pem: &PemPair) -> Result<CertifiedKey> {
        let invalid = |what: &str, path: &Path, source: BoxError| {
            tls_error(
                format!("invalid {server} TLS {what} {}", path.display()),
                source,
            )
        };
        let chain = CertificateDer::pem_slice_iter(&pem.cert)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|source| invalid("certificate", &self.cert, source.into()))?;
        if chain.is_empty() {
            return Err(invalid(
                "certificate",
                &self.cert,
                "no PEM CERTIFICATE block found".into(),
            ));
        }
        let key = PrivateKeyDer::from_pem_slice(&pem.key).map_err(|source| {
            let source = match source {
                rustls::pki_types::pem::Error::NoItemsFound => {
                    "no PEM PRIVATE KEY block found".into()
                }
                source => source.into(),
            };
            invalid("private key", &self.key, source)
        })?;
        CertifiedKey::from_der(chain, key, &provider()).map_err(|source| {
            tls_error(
                format!(
                    "cannot use the {server} TLS private key {} with the certificate {}",
                    self.key.display(),
                    self.cert.display()
                ),
                source,
            )
        })
    }
}

/// The raw content of the certificate and key files.
#[derive(PartialEq, Eq)]
struct PemPair {
    cert: Vec<u8>,
    key: Vec<u8>,
}

/// Serves the certificate loaded from files, and replaces it when
/// [`reload`](Self::reload) finds that the files changed.
pub struct ReloadingCertificate {
    /// The server it is for, in logs and errors.
    server: &'static str,
    files: CertificateFiles,
    state: RwLock<ReloadState>,
}

struct ReloadState {
    current: Arc<CertifiedKey>,
    /// The file contents last tried, loaded or not: an invalid pair is
    /// reported once, not at every poll.
    seen: PemPair,
}

impl ReloadingCertificate {
    /// Loads the `server`'s `files`; fails if they cannot be read or do not
    /// hold a valid pair.
    pub fn load(server: &'static str, files: CertificateFiles) -> Result<Self> {
        let pem = files.read(server)?;
        let current = Arc::new(files.parse(server, &pem)?);
        Ok(Self {
            server,
            files,
            state: RwLock::new(ReloadState { current, seen: pem }),
        })
    }

    /// The certificate served now.
    pub fn current(&self) -> Arc<CertifiedKey> {
        self.state
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .current
            .clone()
    }

    /// Re-reads the files and, if they changed, loads them. Returns whether the
    /// served certificate was replaced. On an error the current one stays.
    pub fn reload(&self) -> Result<bool> {
        let pem = self.files.read(self.server)?;
        if self
            .state
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .seen
            == pem
        {
            return Ok(false);
        }
        let loaded = self.files.parse(self.server, &pem);
        let mut state = self.state.write().unwrap_or_else(PoisonError::into_inner);
        state.seen = pem;
        state.current = Arc::new(loaded?);
        Ok(true)
    }

    /// Calls [`reload`](Self::reload) every [`RELOAD_INTERVAL`] until `shutdown`.
    pub fn watch(self: Arc<Self>, shutdown: CancellationToken) -> JoinHandle<()> {
        tokio::spawn(async move {
            let mut interval = tokio::time::interval(RELOAD_INTERVAL);
            interval.set_missed_tick_behavior(MissedTickBehavior::Delay);
            // The first tick completes at once; the files were just loaded.
            interval.tick().await;
            loop {
                tokio::select! {
                    _ = shutdown.cancelled() => return,
                    _ = interval.tick() => {}
                }
                match self.reload() {
                    Ok(true) => info!(
                        cert = %self.files.cert.display(),
                        "reloaded the {} TLS certificate",
                        self.server
                    ),
                    Ok(false) => {}
                    Err(error) => {
                        warn!(%error, "keeping the current {} TLS certificate", self.server);
                    }
                }
            }
        })
    }
}

impl fmt::Debug for ReloadingCertificate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReloadingCertificate")
            .field("server", &self.server)
            .field("files", &self.files)
            .finish_non_exhaustive()
    }
}

impl ResolvesServerCert for ReloadingCertificate {
    fn resolve(&self, _client_hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.current())
    }
}

/// An axum [`Listener`] that yields only connections whose TLS handshake
/// succeeded. Handshakes run in their own tasks, so a slow or silent client
/// does not hold up the others.
pub struct TlsListener {
    /// The server it is for, in logs.
    server: &'static str,
    tcp: TcpListener,
    acceptor: TlsAcceptor,
    handshakes: JoinSet<(SocketAddr, io::Result<TlsStream<TcpStream>>)>,
}

impl TlsListener {
    /// Serves TLS with `acceptor` on the connections `tcp` accepts, for the
    /// `server` server.
    pub fn new(server: &'static str, tcp: TcpListener, acceptor: TlsAcceptor) -> Self {
        Self {
            server,
            tcp,
            acceptor,
            handshakes: JoinSet::new(),
        }
    }
}

impl Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    // Cancel-safe, as axum's graceful shutdown needs: a TCP connection accepted
    // is moved into `handshakes` at once, and a finished handshake is returned.
    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            tokio::select! {
                (stream, address) = Listener::accept(&mut self.tcp),
                    if self.handshakes.len() < MAX_PENDING_HANDSHAKES =>
                {
                    let handshake = self.acceptor.accept(stream);
                    self.handshakes.spawn(async move {
                        let result = timeout(HANDSHAKE_TIMEOUT, handshake)
                            .await
                            .unwrap_or_else(|_| {
                                Err(io::Error::new(io::ErrorKind::TimedOut, "handshake timed out"))
                            });
                        (address, result)
                    });
                }
                Some(joined) = self.handshakes.join_next() => match joined {
                    Ok((address, Ok(stream))) => return (stream, address),
                    Ok((address, Err(error))) => {
                        debug!(
                            %address, %error,
                            "{} client failed the TLS handshake", self.server
                        );
                    }
                    Err(error) => warn!(%error, "TLS handshake task failed"),
                },
            }
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.tcp.local_addr()
    }
}

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

fn tls_error(context: impl Into<String>, source: impl Into<BoxError>) -> Error {
    Error::Tls {
        context: context.into(),
        source: source.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory under the system temp dir, removed on drop.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(name: &str) -> Self {
            let path =
                std::env::temp_dir().join(format!("opgen-runtime-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&path);
            std::fs::create_dir_all(&path).expect("temp dir is created");
            Self(path)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// A new self-signed certificate and key as PEM.
    fn pem_pair() -> (String, String) {
        let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()])
            .expect("certificate is generated");
        (certified.cert.pem(), certified.signing_key.serialize_pem())
    }

    fn write(path: &Path, content: &str) {
        std::fs::write(path, content).expect("file is written");
    }

    fn served(certificate: &ReloadingCertificate) -> CertificateDer<'static> {
        certificate.current().cert[0].clone()
    }

    fn der(pem: &str) -> CertificateDer<'static> {
        CertificateDer::from_pem_slice(pem.as_bytes()).expect("PEM certificate")
    }

    #[test]
    fn self_signed_certificate_is_usable() {
        let certificate = self_signed().expect("self-signed certificate");
        assert_eq!(certificate.cert.len(), 1);
        certificate
            .keys_match()
            .expect("key matches the certificate");
    }

    #[test]
    fn a_missing_file_is_named_in_the_error() {
        let dir = TempDir::new("missing-file");
        let files = CertificateFiles::in_dir(&dir.0, "tls.crt", "tls.key");

        let error = files
            .load("metrics")
            .expect_err("no certificate")
            .to_string();
        let cert_path = dir.0.join("tls.crt").display().to_string();
        assert!(
            error.starts_with(&format!(
                "cannot read the metrics TLS certificate {cert_path}: "
            )),
            "{error}"
        );

        let (cert, _) = pem_pair();
        write(&files.cert, &cert);
        let error = ReloadingCertificate::load("metrics", files)
            .expect_err("no key")
            .to_string();
        let key_path = dir.0.join("tls.key").display().to_string();
        assert!(
            error.starts_with(&format!(
                "cannot read the metrics TLS private key {key_path}: "
            )),
            "{error}"
        );
        assert!(error.contains("No such file or directory"), "{error}");
    }

    #[test]
    fn invalid_or_mismatched_files_are_rejected() {
        let dir = TempDir::new("invalid-files");
        let files = CertificateFiles::in_dir(&dir.0, "cert.pem", "key.pem");
        let (cert, key) = pem_pair();
        let (_, other_key) = pem_pair();

        write(&files.cert, "not PEM");
        write(&files.key, &key);
        let error = files
            .load("webhook")
            .expect_err("no certificate")
            .to_string();
        assert!(error.contains("invalid webhook TLS certificate"), "{error}");
        assert!(error.contains("cert.pem"), "{error}");

        write(&files.cert, &cert);
        write(&files.key, &cert);
        let error = files.load("metrics").expect_err("no key").to_string();
        assert!(error.contains("no PEM PRIVATE KEY block found"), "{error}");
        assert!(error.contains("key.pem"), "{error}");

        write(&files.key, &other_key);
        let error = files.load("metrics").expect_err("key mismatch").to_string();
        assert!(
            error.contains("cannot use the metrics TLS private key"),
            "{error}"
        );

        write(&files.key, &key);
        files.load("metrics").expect("matching pair loads");
    }

    #[test]
    fn changed_files_are_reloaded_and_bad_ones_ignored() {
        let dir = TempDir::new("reload");
        let files = CertificateFiles::in_dir(&dir.0, "tls.crt", "tls.key");
        let (first_cert, first_key) = pem_pair();
        write(&files.cert, &first_cert);
        write(&files.key, &first_key);
        let certificate = ReloadingCertificate::load("metrics", files.clone()).expect("pair loads");
        assert_eq!(served(&certificate), der(&first_cert));
        assert!(!certificate.reload().expect("unchanged files read"));

        let (second_cert, second_key) = pem_pair();
        write(&files.cert, &second_cert);
        write(&files.key, &second_key);
        assert!(certificate.reload().expect("new pair loads"));
        assert_eq!(served(&certificate), der(&second_cert));

        // A half-written rotation (new key, old certificate) is refused once,
        // and the certificate served stays.
        write(&files.key, &first_key);
        assert!(certificate.reload().is_err());
        assert!(!certificate.reload().expect("same bad pair is not retried"));
        assert_eq!(served(&certificate), der(&second_cert));

        write(&files.cert, &first_cert);
        assert!(certificate.reload().expect("completed rotation loads"));
        assert_eq!(served(&certificate), der(&first_cert));
    }
}
