//! TLS for PostgreSQL connections, by rustls (pure Rust with ring: no system OpenSSL to
//! install), with libpq's `sslmode` meanings:
//!
//! - `disable`: plain TCP.
//! - `prefer` (the default) and `require`: TLS when the server offers it (`require`: or fail),
//!   the certificate not checked: libpq does not check it in these modes either, and a team
//!   server with a self-signed certificate is the common case. Encrypted, not authenticated.
//! - `verify-full` (and `verify-ca`): TLS, the certificate checked against `sslrootcert=FILE`
//!   (PEM) when given, else the Mozilla roots, and the host name against it.

use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::url::{PgUrl, SslMode};

/// The connector for `url`'s `sslmode`.
///
/// # Errors
/// `sslrootcert` names a file that holds no readable certificate.
pub fn connector(url: &PgUrl) -> Result<MakeRustlsConnect, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("setting up TLS: {e}"))?;
    let config = match url.ssl {
        SslMode::VerifyFull => {
            let mut roots = RootCertStore::empty();
            match &url.root_cert {
                Some(file) => {
                    let certs = CertificateDer::pem_file_iter(file)
                        .and_then(Iterator::collect::<Result<Vec<_>, _>>)
                        .map_err(|e| format!("sslrootcert={file}: {e}"))?;
                    let (added, _) = roots.add_parsable_certificates(certs);
                    if added == 0 {
                        return Err(format!("sslrootcert={file}: no certificate in it"));
                    }
                }
                None => roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
            }
            builder.with_root_certificates(roots).with_no_client_auth()
        }
        SslMode::Disable | SslMode::Prefer | SslMode::Require => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(Unchecked(provider)))
            .with_no_client_auth(),
    };
    Ok(MakeRustlsConnect::new(config))
}

/// libpq's `require`: any certificate, but the handshake's signatures still checked (so the
/// session key is the server's, whoever it is).
#[derive(Debug)]
struct Unchecked(Arc<rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for Unchecked {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}
