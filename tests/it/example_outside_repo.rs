//! examples/release-bot copied out of the repository as a newcomer would: its filesystem
//! server's path (`../../tools/npm/…`) no longer resolves. Discovery must say why in the
//! server's own words (its stderr tail) and where its whole log is, not a cut-off status.

use crate::common::{copy_dir, ghostlab_in, repo};

#[test]
fn a_copied_example_whose_server_is_missing_says_why_and_where_the_log_is() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("release-bot");
    copy_dir(&repo().join("examples/release-bot"), &dir);
    let out = ghostlab_in(&dir, 120)
        .args(["discover", "--job", "job.yaml", "--timeout", "20s"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let line = stderr
        .lines()
        .find(|l| l.contains("[filesystem] FAILED"))
        .unwrap_or_else(|| panic!("no line about the filesystem server: {stderr}"));
    assert!(
        line.contains("Cannot find module"),
        "the server's own reason is missing: {stderr}"
    );
    assert!(line.contains(".ghostlab/logs/"), "the log path is missing: {stderr}");
    assert!(!line.trim_end().ends_with("(exit status:"), "{stderr}");
    // The release server, which is inside the example, still answers.
    assert!(stderr.contains("[release] ok: 4 tools"), "{stderr}");
}
