//! The throwaway PKI of one control plane: a serving CA and certificate for the API server,
//! a client CA with an admin identity, and the service-account signing key.

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};

use crate::Error;

pub(crate) struct Pki {
    /// The CA that signed the serving certificate: what clients trust.
    pub serving_ca_pem: String,
    pub serving_cert_pem: String,
    pub serving_key_pem: String,
    /// The CA that the API server trusts for client certificates.
    pub client_ca_pem: String,
    /// `CN=opgen-envtest-admin, O=system:masters`.
    pub admin_cert_pem: String,
    pub admin_key_pem: String,
    pub service_account_key_pem: String,
    pub service_account_public_key_pem: String,
}

impl Pki {
    pub fn new() -> Result<Self, Error> {
        let serving_ca = ca("opgen-envtest-serving-ca")?;
        let serving_key = KeyPair::generate()?;
        let mut serving = CertificateParams::new(vec![
            "localhost".to_owned(),
            "127.0.0.1".to_owned(),
            "kubernetes.default.svc".to_owned(),
        ])?;
        serving
            .distinguished_name
            .push(DnType::CommonName, "kube-apiserver");
        serving.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        serving.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        let serving_cert = serving.signed_by(&serving_key, &serving_ca)?;

        let client_ca = ca("opgen-envtest-client-ca")?;
        let admin_key = KeyPair::generate()?;
        let mut admin = CertificateParams::new(Vec::<String>::new())?;
        admin
            .distinguished_name
            .push(DnType::CommonName, "opgen-envtest-admin");
        admin
            .distinguished_name
            .push(DnType::OrganizationName, "system:masters");
        admin.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        admin.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        let admin_cert = admin.signed_by(&admin_key, &client_ca)?;

        let service_account_key = KeyPair::generate()?;
        Ok(Pki {
            serving_ca_pem: serving_ca.pem(),
            serving_cert_pem: serving_cert.pem(),
            serving_key_pem: serving_key.serialize_pem(),
            client_ca_pem: client_ca.pem(),
            admin_cert_pem: admin_cert.pem(),
            admin_key_pem: admin_key.serialize_pem(),
            service_account_key_pem: service_account_key.serialize_pem(),
            service_account_public_key_pem: service_account_key.public_key_pem(),
        })
    }
}

pub(crate) fn ca(name: &str) -> Result<CertifiedIssuer<'static, KeyPair>, Error> {
    let mut params = CertificateParams::new(Vec::<String>::new())?;
    params.distinguished_name.push(DnType::CommonName, name);
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    Ok(CertifiedIssuer::self_signed(params, KeyPair::generate()?)?)
}
