//! `dev-webhooks`: serve a project's webhooks from a developer's machine, without
//! cert-manager (kubebuilder #4477). opgen makes a self-signed certificate for the address the
//! API server will call, url-style webhook configurations that trust it and, for kinds with a
//! conversion webhook, their CRDs with the conversion pointed there. `make run` serves the
//! webhooks with that certificate; `make run-webhooks` also applies the configurations and
//! CRDs.

use crate::diag::{Error, Result};
use crate::ops::manifests::webhook_configurations;
use crate::project::Project;
use crate::writer::Workspace;
use base64::Engine;
use serde_json::{Value, json};
use std::net::IpAddr;
use std::path::Path;

/// Where the certificate, its key and the configurations are written (git-ignored).
pub const DEV_DIR: &str = ".opgen/webhook-dev";

pub struct DevWebhooks {
    /// The admission webhooks written, for the caller's summary.
    pub webhooks: usize,
    /// The CRDs whose conversion calls this machine.
    pub conversions: usize,
}

/// The CRDs of the kinds with a conversion webhook, their conversion calling this machine.
pub const DEV_CRDS: &str = ".opgen/webhook-dev/crds.yaml";

/// Stages the certificate, key and url-style configurations for webhooks served at `url`
/// (e.g. `https://host.docker.internal:9443`).
pub fn dev_webhooks(ws: &mut Workspace, url: &str) -> Result<DevWebhooks> {
    let host = host_of(url)?;
    let project = Project::load(ws)?;
    let configurations = webhook_configurations(ws)?;
    let converted = converted_crds(ws, &project)?;
    if configurations.is_empty() && converted.is_empty() {
        return Err(Error::with_help(
            "the project has no +kubebuilder:webhook markers and no conversion webhook, so there is no webhook to serve",
            "scaffold one with `opgen create webhook --defaulting` (or --programmatic-validation, or --conversion)",
        ));
    }
    let base = url.trim_end_matches('/');
    let (cert_pem, key_pem) = match previous_for(ws, base)? {
        Some(pair) => pair,
        None => self_signed(&host)?,
    };
    let ca_bundle = base64::engine::general_purpose::STANDARD.encode(cert_pem.as_bytes());
    let mut count = 0;
    let dev: Vec<Value> = configurations
        .into_iter()
        .map(|mut config| {
            let name = config["metadata"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            config["metadata"]["name"] = json!(format!("{}-dev-{name}", project.project_name));
            if let Some(Value::Array(webhooks)) = config.get_mut("webhooks") {
                for w in webhooks {
                    let path = w["clientConfig"]["service"]["path"]
                        .as_str()
                        .unwrap_or("")
                        .to_owned();
                    w["clientConfig"] =
                        json!({"caBundle": ca_bundle, "url": format!("{base}{path}")});
                    count += 1;
                }
            }
            config
        })
        .collect();
    let crds: Vec<Value> = converted
        .into_iter()
        .map(|mut crd| {
            crd["spec"]["conversion"] = json!({
                "strategy": "Webhook",
                "webhook": {
                    "clientConfig": {"caBundle": ca_bundle, "url": format!("{base}/convert")},
                    "conversionReviewVersions": ["v1"],
                },
            });
            crd
        })
        .collect();
    ws.stage(format!("{DEV_DIR}/tls.crt"), cert_pem);
    ws.stage(format!("{DEV_DIR}/tls.key"), key_pem);
    ws.stage(
        format!("{DEV_DIR}/manifests.yaml"),
        crate::yaml::to_documents(&dev),
    );
    if crds.is_empty() {
        if ws.exists(Path::new(DEV_CRDS)) {
            ws.stage_removal(DEV_CRDS, None);
        }
    } else {
        ws.stage(DEV_CRDS, crate::yaml::to_documents(&crds));
    }
    Ok(DevWebhooks {
        webhooks: count,
        conversions: crds.len(),
    })
}

/// The CRDs under config/crd/bases of the kinds PROJECT gives a conversion webhook.
fn converted_crds(ws: &Workspace, project: &Project) -> Result<Vec<Value>> {
    let kinds: Vec<(String, &str)> = project
        .resources
        .iter()
        .filter(|r| r.webhooks.as_ref().is_some_and(|w| w.conversion))
        .map(|r| (super::full_group(&r.group, &r.domain), r.kind.as_str()))
        .collect();
    if kinds.is_empty() {
        return Ok(Vec::new());
    }
    let mut crds = Vec::new();
    for path in ws.list_files(Path::new("config/crd/bases"), ".yaml")? {
        let Some(text) = ws.read(&path)? else {
            continue;
        };
        let crd: Value = serde_saphyr::from_str(&text).map_err(|e| {
            Error::msg(format!("{}: not a CRD opgen can read: {e}", path.display()))
        })?;
        let spec = &crd["spec"];
        if kinds
            .iter()
            .any(|(group, kind)| spec["group"] == group.as_str() && spec["names"]["kind"] == *kind)
        {
            crds.push(crd);
        }
    }
    Ok(crds)
}

/// The certificate and key of an earlier run for the same URL. Reusing them keeps the
/// configurations already applied to the cluster valid, so `make run` can refresh the files
/// on every start.
fn previous_for(ws: &Workspace, base: &str) -> Result<Option<(String, String)>> {
    let read = |name: &str| ws.read(&Path::new(DEV_DIR).join(name));
    let (Some(cert), Some(key), Some(mut manifests)) =
        (read("tls.crt")?, read("tls.key")?, read("manifests.yaml")?)
    else {
        return Ok(None);
    };
    manifests.push_str(&read("crds.yaml")?.unwrap_or_default());
    let ca_bundle = base64::engine::general_purpose::STANDARD.encode(cert.as_bytes());
    let urls: Vec<&str> = manifests
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("url: "))
        .collect();
    let same = !urls.is_empty()
        && urls.iter().all(|u| {
            u.strip_prefix(base)
                .is_some_and(|path| path.starts_with('/'))
        })
        && manifests
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix("caBundle: "))
            .all(|b| b == ca_bundle);
    Ok(same.then_some((cert, key)))
}

/// The host of an `https://host[:port][/path]` URL.
fn host_of(url: &str) -> Result<String> {
    let bad = |why: &str| {
        Error::with_help(
            format!("invalid value {url:?} for --url: {why}"),
            "e.g. --url https://host.docker.internal:9443 (Docker Desktop) or https://<an address of this machine the cluster reaches>:9443",
        )
    };
    let rest = url
        .strip_prefix("https://")
        .ok_or_else(|| bad("the API server calls webhooks over https"))?;
    let authority = rest.split('/').next().unwrap_or("");
    let host = if let Some(v6) = authority.strip_prefix('[') {
        v6.split(']').next().unwrap_or("")
    } else {
        authority.rsplit_once(':').map_or(authority, |(h, _)| h)
    };
    if host.is_empty() {
        return Err(bad("it has no host"));
    }
    Ok(host.to_owned())
}

/// A self-signed certificate for `host` (and localhost), PEM encoded, with its key.
fn self_signed(host: &str) -> Result<(String, String)> {
    let mut names = vec![host.to_owned()];
    for extra in ["localhost", "127.0.0.1"] {
        if !names.iter().any(|n| n == extra) {
            names.push(extra.to_owned());
        }
    }
    let key = rcgen::KeyPair::generate()
        .map_err(|e| Error::msg(format!("cannot generate a key: {e}")))?;
    let mut params = rcgen::CertificateParams::new(Vec::<String>::new())
        .map_err(|e| Error::msg(format!("cannot build the certificate: {e}")))?;
    params.subject_alt_names = names
        .iter()
        .map(|n| match n.parse::<IpAddr>() {
            Ok(ip) => Ok(rcgen::SanType::IpAddress(ip)),
            Err(_) => n
                .clone()
                .try_into()
                .map(rcgen::SanType::DnsName)
                .map_err(|e| Error::msg(format!("invalid host {n:?} for a certificate: {e}"))),
        })
        .collect::<Result<_>>()?;
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, host);
    let cert = params
        .self_signed(&key)
        .map_err(|e| Error::msg(format!("cannot sign the certificate: {e}")))?;
    Ok((cert.pem(), key.serialize_pem()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_of_urls() {
        assert_eq!(
            host_of("https://host.docker.internal:9443").unwrap(),
            "host.docker.internal"
        );
        assert_eq!(host_of("https://10.0.0.5:9443/").unwrap(), "10.0.0.5");
        assert_eq!(host_of("https://[::1]:9443").unwrap(), "::1");
        assert_eq!(host_of("https://example.dev").unwrap(), "example.dev");
        assert!(
            host_of("http://x:9443")
                .unwrap_err()
                .to_string()
                .contains("over https")
        );
        assert!(host_of("https://:9443").is_err());
    }

    #[test]
    fn certificate_names_the_host() {
        let (cert, key) = self_signed("10.0.0.5").unwrap();
        assert!(cert.starts_with("-----BEGIN CERTIFICATE-----"));
        assert!(key.starts_with("-----BEGIN PRIVATE KEY-----"));
    }
}
