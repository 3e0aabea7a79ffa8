//! Honest skips for tests that need an installed component (bubblewrap, the pinned npm
//! programs, a kernel keyring). A skip is printed with its reason; where the component must be
//! present — `GHOSTLAB_REQUIRE_ALL=1`, set by scripts/test.sh and so by CI — it is a failure.

/// Reports a skipped test. Panics when `GHOSTLAB_REQUIRE_ALL=1`.
pub fn skipped(reason: &str) {
    if std::env::var("GHOSTLAB_REQUIRE_ALL").is_ok_and(|v| v == "1") {
        panic!("required component missing (GHOSTLAB_REQUIRE_ALL=1): {reason}");
    }
    eprintln!("{reason}");
    println!("{reason}");
}
