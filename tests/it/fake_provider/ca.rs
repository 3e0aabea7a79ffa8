//! FAKE, for tests only: a throwaway certificate authority and a server certificate for the
//! impersonated provider hosts, made with the openssl CLI at test time.

use std::path::PathBuf;
use std::sync::Arc;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls;

/// A test CA and a server certificate for the impersonated hosts, made with the openssl CLI.
pub struct TestCa {
    pub dir: tempfile::TempDir,
}

impl TestCa {
    /// `None` (with the reason) when the openssl CLI is missing.
    pub fn generate(hosts: &[&str]) -> Result<TestCa, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let d = dir.path();
        let san = hosts.iter().map(|h| format!("DNS:{h}")).collect::<Vec<_>>().join(",");
        std::fs::write(
            d.join("leaf.ext"),
            format!("subjectAltName={san}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\nkeyUsage=digitalSignature\n"),
        )
        .map_err(|e| e.to_string())?;
        let steps: &[&[&str]] = &[
            &[
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
                "-keyout",
                "ca.key",
                "-out",
                "ca.pem",
                "-days",
                "2",
                "-subj",
                "/CN=Ghostlab test CA (fake provider)",
                "-addext",
                "basicConstraints=critical,CA:TRUE",
                "-addext",
                "keyUsage=critical,keyCertSign,cRLSign",
            ],
            &[
                "req",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
                "-keyout",
                "leaf.key",
                "-out",
                "leaf.csr",
                "-subj",
                "/CN=fake provider",
            ],
            &[
                "x509",
                "-req",
                "-in",
                "leaf.csr",
                "-CA",
                "ca.pem",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-out",
                "leaf.pem",
                "-days",
                "2",
                "-extfile",
                "leaf.ext",
            ],
            &["x509", "-in", "leaf.pem", "-outform", "DER", "-out", "leaf.der"],
            &[
                "pkcs8",
                "-topk8",
                "-nocrypt",
                "-in",
                "leaf.key",
                "-outform",
                "DER",
                "-out",
                "leaf.key.der",
            ],
        ];
        for args in steps {
            let out = std::process::Command::new("openssl")
                .args(*args)
                .current_dir(d)
                .output()
                .map_err(|e| format!("openssl CLI not available: {e}"))?;
            if !out.status.success() {
                return Err(format!("openssl {args:?}: {}", String::from_utf8_lossy(&out.stderr)));
            }
        }
        Ok(TestCa { dir })
    }

    /// The CA certificate (PEM) the sandboxed agent is told to trust.
    pub fn ca_pem(&self) -> PathBuf {
        self.dir.path().join("ca.pem")
    }

    pub(super) fn acceptor(&self) -> TlsAcceptor {
        let d = self.dir.path();
        let cert = rustls::pki_types::CertificateDer::from(std::fs::read(d.join("leaf.der")).unwrap());
        let key = rustls::pki_types::PrivateKeyDer::Pkcs8(std::fs::read(d.join("leaf.key.der")).unwrap().into());
        let config = rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(vec![cert], key)
            .unwrap();
        TlsAcceptor::from(Arc::new(config))
    }
}
