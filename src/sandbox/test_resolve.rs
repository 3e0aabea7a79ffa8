//! TEST ONLY: a resolver override for the host-side egress proxy, so an end-to-end test can
//! impersonate a real provider host (api.anthropic.com:443) with a local TLS server.
//!
//! `GHOSTLAB_TEST_EGRESS_RESOLVE=host:port=addr:port[,…]` is read by the proxy in the ghostlab
//! process (never inside the sandbox, whose environment is cleared). The allowlist check still
//! uses the name the client asked for; only the address the proxy then connects to changes,
//! and every use is written to the session log. It cannot widen what the sandbox may reach.
//!
//! Only a build with the `test-hooks` feature reads the variable; `cargo test` has it (the
//! crate's self dev-dependency), a build of the binary does not: there the name is not even in
//! the program (scripts/check-no-test-hooks.sh).

/// Whether this build honours the override.
pub const ENABLED: bool = cfg!(feature = "test-hooks");

/// The variable tests set.
#[cfg(feature = "test-hooks")]
pub const VAR: &str = "GHOSTLAB_TEST_EGRESS_RESOLVE";

/// The override list from the environment, in a build with the test hooks.
#[cfg(feature = "test-hooks")]
fn override_list() -> Option<String> {
    std::env::var(VAR).ok()
}

/// No build without the test hooks reads the environment for an override.
#[cfg(not(feature = "test-hooks"))]
fn override_list() -> Option<String> {
    None
}

/// Parses the override list; malformed entries are ignored (and so never redirect anything).
pub(crate) fn parse(text: &str) -> Vec<((String, u16), (String, u16))> {
    let pair = |s: &str| -> Option<(String, u16)> {
        let (h, p) = s.trim().rsplit_once(':')?;
        Some((h.trim_matches(['[', ']']).to_ascii_lowercase(), p.parse().ok()?))
    };
    text.split(',')
        .filter_map(|e| {
            let (from, to) = e.split_once('=')?;
            Some((pair(from)?, pair(to)?))
        })
        .collect()
}

/// Where the proxy connects for an allowed `host:port`: the override's address, if the test
/// environment sets one for it (and this build has the test hooks).
pub(crate) fn target(host: &str, port: u16) -> Option<(String, u16)> {
    let text = override_list()?;
    parse(&text)
        .into_iter()
        .find(|((h, p), _)| h == host && *p == port)
        .map(|(_, to)| to)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_pairs_and_skips_garbage() {
        let p = parse("api.anthropic.com:443=127.0.0.1:4431, api.openai.com:443=127.0.0.1:4432,junk,x:1=y");
        assert_eq!(
            p,
            vec![
                (("api.anthropic.com".into(), 443), ("127.0.0.1".into(), 4431)),
                (("api.openai.com".into(), 443), ("127.0.0.1".into(), 4432)),
            ]
        );
    }
}
