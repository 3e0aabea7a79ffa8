//! The forms a known secret takes when an agent disguises it: base64 (standard and URL-safe,
//! at any alignment inside a longer encoded text), hex (either case), percent-encoding, and
//! long fragments (a prefix, a suffix, the value minus its last characters). `Redactor`
//! masks every form, so events.jsonl and the reports never carry them, and the observed facts
//! see the mask wherever one appeared.

/// Secrets at least this long are also masked by their fragments.
pub(crate) const FRAGMENT_SECRET_LEN: usize = 16;
/// The shortest fragment of such a secret that is masked.
pub(crate) const FRAGMENT_LEN: usize = 12;

const STD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64(bytes: &[u8], alphabet: &[u8; 64]) -> String {
    let mut out = String::with_capacity(bytes.len() * 4 / 3 + 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..=chunk.len() {
            out.push(alphabet[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

/// The encoded forms of `secret` that are long enough to mask safely (never the plain value).
pub fn encoded_forms(secret: &str) -> Vec<String> {
    let bytes = secret.as_bytes();
    let mut url = *STD;
    url[62] = b'-';
    url[63] = b'_';
    let mut forms = Vec::new();
    // Inside a longer base64 text the secret starts at any of three alignments; the characters
    // that depend only on the secret are the whole groups after the first boundary.
    for skip in 0..3.min(bytes.len()) {
        let rest = &bytes[skip..];
        let whole = &rest[..rest.len() / 3 * 3];
        for alphabet in [STD, &url] {
            forms.push(base64(whole, alphabet));
        }
    }
    forms.push(hex::encode(bytes));
    forms.push(hex::encode_upper(bytes));
    let percent: String = bytes
        .iter()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(b) {
                (*b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    forms.push(percent);
    forms.retain(|f| f.len() >= FRAGMENT_LEN && f != secret);
    forms.sort();
    forms.dedup();
    forms.sort_by_key(|f| std::cmp::Reverse(f.len()));
    forms
}

/// Whether a value is a token whose fragments are secret too: ASCII, one word, letters and
/// digits mixed, not an address (a base URL's `http://127.0.0.1` is ordinary text elsewhere).
fn looks_like_a_token(secret: &str) -> bool {
    secret.is_ascii()
        && !secret.contains("://")
        && !secret.chars().any(char::is_whitespace)
        && secret.chars().any(|c| c.is_ascii_digit())
        && secret.chars().any(|c| c.is_ascii_alphabetic())
}

/// Byte spans of `text` holding a fragment of `secret` at least `FRAGMENT_LEN` long (ASCII
/// secrets of at least `FRAGMENT_SECRET_LEN` only), merged.
pub(crate) fn fragment_spans(text: &str, secret: &str) -> Vec<(usize, usize)> {
    let (t, s) = (text.as_bytes(), secret.as_bytes());
    if s.len() < FRAGMENT_SECRET_LEN || !looks_like_a_token(secret) || t.len() < FRAGMENT_LEN {
        return Vec::new();
    }
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for i in 0..=s.len() - FRAGMENT_LEN {
        let window = &secret[i..i + FRAGMENT_LEN];
        for (p, _) in text.match_indices(window) {
            let (mut a, mut b) = (p, p + FRAGMENT_LEN);
            let (mut sa, mut sb) = (i, i + FRAGMENT_LEN);
            while a > 0 && sa > 0 && t[a - 1] == s[sa - 1] {
                a -= 1;
                sa -= 1;
            }
            while b < t.len() && sb < s.len() && t[b] == s[sb] {
                b += 1;
                sb += 1;
            }
            spans.push((a, b));
        }
    }
    spans.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (a, b) in spans {
        match merged.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "planted-secret-7Qx9Lm2Vb";

    #[test]
    fn base64_matches_the_standard_encoding() {
        assert_eq!(base64(b"Man", STD), "TWFu");
        assert_eq!(base64(b"Ma", STD), "TWE");
        assert_eq!(base64(b"hello world", STD), "aGVsbG8gd29ybGQ");
    }

    #[test]
    fn every_alignment_of_an_embedded_secret_yields_a_known_form() {
        let forms = encoded_forms(SECRET);
        for prefix in ["", "t=", "tok="] {
            let encoded = base64(format!("{prefix}{SECRET}\n").as_bytes(), STD);
            assert!(
                forms.iter().any(|f| encoded.contains(f.as_str())),
                "{prefix}: {encoded}"
            );
        }
        assert!(forms.contains(&hex::encode(SECRET)));
        let url = encoded_forms("a b/c+d=e&f?g#h");
        assert!(url.contains(&"a%20b%2Fc%2Bd%3De%26f%3Fg%23h".to_string()), "{url:?}");
    }

    #[test]
    fn fragments_are_found_and_short_overlaps_are_not() {
        let cut = &SECRET[..SECRET.len() - 3];
        let text = format!("token: {cut} and {}", &SECRET[5..]);
        let spans = fragment_spans(&text, SECRET);
        assert_eq!(spans.len(), 2, "{spans:?}");
        assert_eq!(&text[spans[0].0..spans[0].1], cut);
        assert!(fragment_spans("planted-sec is eleven", SECRET).is_empty());
        assert!(fragment_spans("short-secret-x", "short-secret-x").is_empty());
        let url = "http://127.0.0.1:8080/v1";
        assert!(fragment_spans("the server is http://127.0.0.1:9", url).is_empty());
        assert!(fragment_spans("a plain-words-only-value here", "plain-words-only-value").is_empty());
    }
}
