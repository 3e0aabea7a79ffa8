//! Checks of the `sandbox` block: network mode and allowlist, the policy file and uploads,
//! where commands start, resource limits in sane ranges, and credential variable names.

use std::path::{Path, PathBuf};

use super::diagnostics::{Diagnostic, diag, in_range, index, join};
use super::limits::{Bounds, SANDBOX_CPU, SANDBOX_FILE_SIZE, SANDBOX_MEMORY, SANDBOX_PROCESSES, SANDBOX_TIMEOUT_SECS};
use super::path_policy::{PathPolicy, Want};
use super::relative_path::normalize;
use super::rules::network_rules;
use super::sandbox::SandboxSpec;
use super::sandbox_download::{SANDBOX_ROOT, resolve_download};
use crate::util::units::{parse_bytes, parse_duration};

/// The network mode and its allowlist, by the rules the lab's Sandbox step applies too.
pub(crate) fn check_network(path: &Path, sb: &SandboxSpec, ds: &mut Vec<Diagnostic>) {
    for b in network_rules(sb.network, &sb.allow, sb.policy.is_some()) {
        ds.push(diag(path, join("sandbox", &b.key), b.message));
    }
}

/// Files, paths inside the sandbox, limits and credentials.
pub(crate) fn check_sandbox(path: &Path, policy: &PathPolicy, sb: &SandboxSpec, ds: &mut Vec<Diagnostic>) {
    if let Some(p) = &sb.policy {
        policy.input("sandbox.policy", p, Want::File, ds);
    }
    for (i, up) in sb.uploads.iter().enumerate() {
        let at = index("sandbox.uploads", i);
        policy.input(&join(&at, "src"), &up.src, Want::Any, ds);
        if let Some(dest) = &up.dest {
            inside_sandbox(path, &join(&at, "dest"), dest, ds);
        }
    }
    inside_sandbox(path, "sandbox.workdir", &sb.workdir, ds);
    check_downloads(path, sb, ds);
    check_limits(path, sb, ds);
    for (key, names) in [
        ("credentials.env", &sb.credentials.env),
        ("env_allowlist", &sb.env_allowlist),
    ] {
        for (i, name) in names.iter().enumerate() {
            check_var_name(path, &index(&join("sandbox", key), i), name, ds);
        }
    }
}

/// `sandbox.download`: each path resolves inside the sandbox, and no two land on one artifact.
fn check_downloads(path: &Path, sb: &SandboxSpec, ds: &mut Vec<Diagnostic>) {
    let mut seen: Vec<String> = Vec::new();
    for (i, declared) in sb.download.iter().enumerate() {
        let at = index("sandbox.download", i);
        match resolve_download(&sb.workdir, declared) {
            Err(why) => ds.push(diag(path, at, why.to_string())),
            Ok(resolved) if seen.contains(&resolved) => {
                ds.push(diag(path, at, format!("`{declared}` ({resolved}) is listed twice")))
            }
            Ok(resolved) => seen.push(resolved),
        }
    }
}

/// A path inside the sandbox: absolute and under /sandbox once `..` is resolved.
fn inside_sandbox(path: &Path, at: &str, text: &str, ds: &mut Vec<Diagnostic>) {
    if !text.starts_with('/') {
        ds.push(diag(path, at, "must be an absolute path inside the sandbox"));
        return;
    }
    let normal: PathBuf = normalize(Path::new(text));
    if !normal.starts_with(SANDBOX_ROOT) || normal == Path::new(SANDBOX_ROOT) {
        ds.push(diag(
            path,
            at,
            format!(
                "`{text}` (resolved: {}) must be a folder under {SANDBOX_ROOT}/",
                normal.display()
            ),
        ));
    }
}

/// Resource limits: parseable and inside a range that lets a sandbox start and end.
fn check_limits(path: &Path, sb: &SandboxSpec, ds: &mut Vec<Diagnostic>) {
    for (key, text, bounds, range) in [
        ("memory", &sb.memory, SANDBOX_MEMORY, "64MiB..=1TiB"),
        ("file_size", &sb.file_size, SANDBOX_FILE_SIZE, "1KiB..=1TiB"),
    ] {
        let Some(t) = text else { continue };
        match parse_bytes(t) {
            None => ds.push(diag(
                path,
                join("sandbox", key),
                format!("`{t}` is not a size in range {range} (such as `512MiB` or `2GiB`)"),
            )),
            Some(b) if !bounds.contains(b) => ds.push(diag(
                path,
                join("sandbox", key),
                format!("`{t}` is out of range {range}"),
            )),
            Some(_) => {}
        }
    }
    if let Some(t) = &sb.timeout {
        match parse_duration(t) {
            None => ds.push(diag(
                path,
                "sandbox.timeout",
                format!("`{t}` is not a duration in range 1s..=24h (such as `90s` or `10m`)"),
            )),
            Some(d) if !secs_in(d, SANDBOX_TIMEOUT_SECS) => {
                ds.push(diag(path, "sandbox.timeout", format!("`{t}` is out of range 1s..=24h")))
            }
            Some(_) => {}
        }
    }
    if let Some(p) = sb.processes {
        in_range(path, "sandbox.processes", u64::from(p), SANDBOX_PROCESSES, ds);
    }
    if let Some(c) = sb.cpu {
        in_range(path, "sandbox.cpu", u64::from(c), SANDBOX_CPU, ds);
    }
}

/// A duration within whole-second bounds (a fraction above the top is out of range).
fn secs_in(d: std::time::Duration, bounds: Bounds<u64>) -> bool {
    d.as_secs_f64() >= bounds.min as f64 && d.as_secs_f64() <= bounds.max as f64
}

/// A variable name (`AWS_SECRET_ACCESS_KEY`), never `NAME=value`; the value is never echoed.
fn check_var_name(path: &Path, at: &str, entry: &str, ds: &mut Vec<Diagnostic>) {
    let valid = entry
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && entry.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if valid {
        return;
    }
    let mut d = match entry.split_once('=') {
        Some((name, _)) => diag(
            path,
            at,
            format!("`{name}=…` is a literal value; list only the variable name here (the value was not echoed)"),
        ),
        None => diag(path, at, "is not a variable name (letters, digits and `_`)"),
    };
    d.hint = Some("export the value in the environment and list its name, e.g. `OPENAI_API_KEY`".into());
    ds.push(d);
}
