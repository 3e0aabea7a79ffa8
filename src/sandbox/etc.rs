//! The minimal /etc an isolated sandbox shows instead of the host's: user and group entries
//! for the sandbox user, loopback-only name resolution, and the few host files programs
//! need to start (dynamic linker cache, CA bundle, time zone, `alternatives` links).
//!
//! Nothing else of the host's /etc exists inside: no shadow files, no SSH keys, no service
//! configuration, no credentials that happen to live there.

use std::path::Path;

use super::files::copy_tree_bounded;

/// Host files copied as they are (when present); each is small.
const COPIED: &[&str] = &[
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "ssl/certs/ca-certificates.crt",
    "ssl/openssl.cnf",
    "ca-certificates.conf",
    "alternatives",
    "os-release",
    "mime.types",
];

/// Upper bound for the copied host files together.
const COPY_BOUND: u64 = 16 << 20;

/// Writes the sandbox's /etc into `dir` for a process running as `uid:gid` inside.
pub(crate) fn write_minimal_etc(dir: &Path, uid: u32, gid: u32) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut passwd = String::from("root:x:0:0:root:/sandbox/home:/usr/sbin/nologin\n");
    let mut group = String::from("root:x:0:\n");
    if uid != 0 && uid != 65534 {
        passwd.push_str(&format!(
            "sandbox:x:{uid}:{gid}:Ghostlab sandbox:/sandbox/home:/bin/sh\n"
        ));
    }
    if gid != 0 && gid != 65534 {
        group.push_str(&format!("sandbox:x:{gid}:\n"));
    }
    passwd.push_str("nobody:x:65534:65534:nobody:/sandbox/home:/usr/sbin/nologin\n");
    group.push_str("nogroup:x:65534:\n");
    let files: &[(&str, &str)] = &[
        ("passwd", &passwd),
        ("group", &group),
        ("hostname", "ghostlab-sandbox\n"),
        (
            "hosts",
            "127.0.0.1\tlocalhost ghostlab-sandbox\n::1\tlocalhost ip6-localhost ip6-loopback\n",
        ),
        // No DNS inside: the loopback resolver refuses at once instead of timing out.
        (
            "resolv.conf",
            "# Ghostlab sandbox: no DNS; egress goes through the proxy by name.\nnameserver 127.0.0.1\noptions timeout:1 attempts:1\n",
        ),
        (
            "nsswitch.conf",
            "passwd: files\ngroup: files\nshadow: files\nhosts: files dns\nnetworks: files\nprotocols: files\nservices: files\n",
        ),
    ];
    for (name, text) in files {
        std::fs::write(dir.join(name), text)?;
    }
    let host = Path::new("/etc");
    let mut budget = COPY_BOUND;
    for name in COPIED {
        let src = host.join(name);
        if std::fs::symlink_metadata(&src).is_err() {
            continue;
        }
        // The CA bundle is usually a regular file; os-release is a link into /usr, kept as one.
        let real = if src.is_file() && *name != "os-release" {
            src.canonicalize().unwrap_or(src.clone())
        } else {
            src.clone()
        };
        copy_tree_bounded(&real, &dir.join(name), &mut budget)?;
    }
    if let Ok(tz) = std::fs::canonicalize(host.join("localtime")) {
        copy_tree_bounded(&tz, &dir.join("localtime"), &mut budget)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_the_sandbox_user_and_no_host_secrets() {
        let d = tempfile::tempdir().unwrap();
        write_minimal_etc(d.path(), 1234, 1234).unwrap();
        let passwd = std::fs::read_to_string(d.path().join("passwd")).unwrap();
        assert!(passwd.contains("sandbox:x:1234:1234"));
        assert!(passwd.contains("nobody:x:65534"));
        assert!(!d.path().join("shadow").exists());
        assert!(!d.path().join("ssh").exists());
        assert!(
            std::fs::read_to_string(d.path().join("resolv.conf"))
                .unwrap()
                .contains("127.0.0.1")
        );
    }
}
