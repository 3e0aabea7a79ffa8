//! The process's rustls crypto provider.
//!
//! Ghostlab's HTTP clients and rmcp's streamable-HTTP client use reqwest 0.13 built without a
//! bundled provider (the default one, aws-lc-rs, is a C library that dominated clean builds).
//! reqwest then takes rustls's process-wide default and panics when there is none, so every
//! client is built through [`http_client_builder`], and the rmcp path calls
//! [`ensure_crypto_provider`] first. The provider is ring.

use std::sync::Once;

static INSTALL: Once = Once::new();

/// Installs ring as the process's default rustls provider unless one is installed already
/// (by an embedding program, say); idempotent and cheap after the first call.
pub(crate) fn ensure_crypto_provider() {
    INSTALL.call_once(|| {
        if rustls::crypto::CryptoProvider::get_default().is_none() {
            // A concurrent install by someone else wins the race harmlessly.
            let _ = rustls::crypto::ring::default_provider().install_default();
        }
    });
}

/// `reqwest::Client::builder()` with the crypto provider in place: the one way Ghostlab builds
/// an HTTP client.
pub fn http_client_builder() -> reqwest::ClientBuilder {
    ensure_crypto_provider();
    reqwest::Client::builder()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_default_provider_is_installed_and_a_second_call_is_harmless() {
        ensure_crypto_provider();
        ensure_crypto_provider();
        assert!(rustls::crypto::CryptoProvider::get_default().is_some());
    }
}
