//! The process's rustls crypto provider.
//!
//! rmcp's streamable-HTTP client uses reqwest 0.13 built without a bundled provider (the default
//! one, aws-lc-rs, is a C library that dominated clean builds). reqwest then takes rustls's
//! process-wide default and panics when there is none, so every path that may build an rmcp
//! HTTP client calls [`ensure_crypto_provider`] first. The provider is ring, the one Ghostlab's
//! own reqwest 0.12 client already uses.

use std::sync::Once;

static INSTALL: Once = Once::new();

/// Installs ring as the process's default rustls provider unless one is installed already
/// (by an embedding program, say); idempotent and cheap after the first call.
pub fn ensure_crypto_provider() {
    INSTALL.call_once(|| {
        if rustls::crypto::CryptoProvider::get_default().is_none() {
            // A concurrent install by someone else wins the race harmlessly.
            let _ = rustls::crypto::ring::default_provider().install_default();
        }
    });
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
