//! A large wave of a group commit made durable with one `syncfs` per file system instead of an
//! fsync per path, where that is known to be safe.
//!
//! A commit wave holds every file and folder of up to 64 trials: hundreds of paths, each fsync
//! an open, a syscall and a close on one of up to 32 threads, and on ext4 often a device flush
//! of its own after the journal commit it waited for. One syncfs writes the file system's dirty
//! data back, commits its journal and flushes the device once (1.3× the mock run's turns/s here,
//! docs/benchmarks.md). It also writes back data that is not the run's (another program's
//! files on the same file system), so it is chosen only for waves of at least
//! `SYNCFS_FROM_PATHS` paths, and only while the machine holds less than `DIRTY_LIMIT` of
//! unwritten data (/proc/meminfo's `Dirty`; a mock run's own stays near 2 MB): a small wave, or
//! one next to a neighbour's unwritten gigabyte, keeps its fsyncs. A syncfs that still took
//! longer than `SLOW_SYNCFS` (a neighbour writing on, a slow device) turns syncfs off for
//! `BACK_OFF`, so such a neighbour costs the run one slow commit, not every one.
//!
//! syncfs is trusted only where its answer covers what it could not write: Linux 5.8 or later
//! (before, it ignored writeback errors) and file systems whose sync is real (ext4, xfs, btrfs,
//! f2fs; tmpfs, where nothing is durable either way). FUSE (whose sync may do nothing), network
//! and other file systems keep per-path fsyncs.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Paths in a wave from which one syncfs per file system replaces their fsyncs (four trials'
/// files and folders).
pub(crate) const SYNCFS_FROM_PATHS: usize = 32;

/// One folder per file system holding `dirs` when a wave of `paths` paths in them is better
/// made durable by syncfs; `None` when each path keeps its fsync (a small wave, an older
/// kernel, a file system not trusted here, or a folder that cannot be looked at). A wave's
/// files are covered through their folders: a file is on its folder's file system unless
/// something is mounted over it, which the harness never does in a run folder.
pub(crate) fn syncfs_anchors(paths: usize, dirs: &[PathBuf]) -> Option<Vec<PathBuf>> {
    if paths < SYNCFS_FROM_PATHS || !kernel_reports_syncfs_errors() || !backoff().allows(Instant::now()) {
        return None;
    }
    if unwritten_bytes().is_none_or(|dirty| dirty >= DIRTY_LIMIT) {
        return None;
    }
    anchors(dirs, device_of, syncfs_trusted_at)
}

/// Unwritten data on the machine above which a syncfs could mostly be writing someone else's.
const DIRTY_LIMIT: u64 = 32 << 20;

/// The machine's unwritten file data in bytes (all file systems: an upper bound for one).
fn unwritten_bytes() -> Option<u64> {
    dirty_in_meminfo(&std::fs::read_to_string("/proc/meminfo").ok()?)
}

/// `Dirty:` of a /proc/meminfo text, in bytes.
fn dirty_in_meminfo(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("Dirty:"))?;
    let mut words = line.split_whitespace().skip(1);
    let value: u64 = words.next()?.parse().ok()?;
    (words.next()? == "kB").then_some(value * 1024)
}

/// A syncfs slower than this is taken for someone else's unwritten data: back off.
const SLOW_SYNCFS: Duration = Duration::from_millis(500);
/// How long waves keep their fsyncs after a slow syncfs.
const BACK_OFF: Duration = Duration::from_secs(30);

/// When syncfs may be used again after a slow one (process-wide: the file system is shared).
#[derive(Debug, Default)]
struct Backoff {
    until: Option<Instant>,
}

impl Backoff {
    fn allows(&self, now: Instant) -> bool {
        self.until.is_none_or(|until| now >= until)
    }

    fn record(&mut self, ended: Instant, took: Duration) {
        if took > SLOW_SYNCFS {
            self.until = Some(ended + BACK_OFF);
        }
    }
}

fn backoff() -> std::sync::MutexGuard<'static, Backoff> {
    static BACKOFF: std::sync::Mutex<Backoff> = std::sync::Mutex::new(Backoff { until: None });
    BACKOFF.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// `dirs` reduced to one per file system (`device` gives a folder's, `trusted` whether syncfs
/// is trusted on a folder's file system: asked once per device); `None` if any is unknown or
/// untrusted.
fn anchors(
    dirs: &[PathBuf],
    device: impl Fn(&Path) -> Option<u64>,
    trusted: impl Fn(&Path) -> Option<bool>,
) -> Option<Vec<PathBuf>> {
    let mut seen: Vec<(u64, &PathBuf)> = Vec::new();
    for dir in dirs {
        let dev = device(dir)?;
        if !seen.iter().any(|(d, _)| *d == dev) {
            if !trusted(dir)? {
                return None;
            }
            seen.push((dev, dir));
        }
    }
    Some(seen.into_iter().map(|(_, dir)| dir.clone()).collect())
}

/// syncfs of the file system of each of `anchors`; an error names the folder.
/// `dirs` reduced to one per device, trusting every file system: for tests that must take the
/// syncfs path whatever the machine.
#[cfg(test)]
pub(crate) fn anchors_by_device(dirs: &[PathBuf]) -> Option<Vec<PathBuf>> {
    anchors(dirs, device_of, |_| Some(true))
}

/// A slow one backs syncfs off (`Backoff`).
pub(crate) fn syncfs_all(anchors: &[PathBuf]) -> std::io::Result<()> {
    anchors.iter().try_for_each(|dir| {
        let started = Instant::now();
        let synced = syncfs(dir).map_err(|e| std::io::Error::new(e.kind(), format!("{}: syncfs: {e}", dir.display())));
        let took = started.elapsed();
        if took > SLOW_SYNCFS {
            tracing::debug!(?took, dir = %dir.display(), "a slow syncfs: per-path fsyncs for a while");
        }
        backoff().record(Instant::now(), took);
        synced
    })
}

#[cfg(target_os = "linux")]
fn syncfs(dir: &Path) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let folder = std::fs::File::open(dir)?;
    // SAFETY: a plain syscall on a descriptor `folder` owns for the whole call.
    if unsafe { libc::syncfs(folder.as_raw_fd()) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn syncfs(_: &Path) -> std::io::Result<()> {
    Err(std::io::Error::other("syncfs is Linux only"))
}

fn device_of(dir: &Path) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(dir).ok().map(|m| m.dev())
}

/// Whether syncfs is trusted on the file system holding `dir`.
#[cfg(target_os = "linux")]
fn syncfs_trusted_at(dir: &Path) -> Option<bool> {
    let path = std::ffi::CString::new(dir.as_os_str().as_encoded_bytes()).ok()?;
    // SAFETY: `statfs` fills the zeroed struct it is given for a NUL-terminated path.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statfs(path.as_ptr(), &mut st) } != 0 {
        return None;
    }
    // The magic numbers fit in 32 bits; `f_type`'s width varies by architecture.
    let trusted = [
        libc::EXT4_SUPER_MAGIC,
        libc::XFS_SUPER_MAGIC,
        libc::BTRFS_SUPER_MAGIC,
        libc::F2FS_SUPER_MAGIC,
        libc::TMPFS_MAGIC,
    ]
    .iter()
    .any(|m| *m as u32 == st.f_type as u32);
    Some(trusted)
}

#[cfg(not(target_os = "linux"))]
fn syncfs_trusted_at(_: &Path) -> Option<bool> {
    None
}

/// Whether this kernel's syncfs reports writeback errors (Linux 5.8 and later).
fn kernel_reports_syncfs_errors() -> bool {
    static ANSWER: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ANSWER.get_or_init(|| {
        kernel_release()
            .and_then(|r| release_at_least(&r, (5, 8)))
            .unwrap_or(false)
    })
}

#[cfg(target_os = "linux")]
fn kernel_release() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/osrelease").ok()
}

#[cfg(not(target_os = "linux"))]
fn kernel_release() -> Option<String> {
    None
}

/// Whether a release such as `6.1.0-18-amd64` is at least `min` (major, minor); `None` when it
/// does not start with two numbers.
fn release_at_least(release: &str, min: (u32, u32)) -> Option<bool> {
    let mut parts = release.trim().split(['.', '-']);
    let major = parts.next()?.parse::<u32>().ok()?;
    let minor = parts.next()?.parse::<u32>().ok()?;
    Some((major, minor) >= min)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_releases_before_5_8_do_not_qualify() {
        assert_eq!(release_at_least("6.1.0-18-amd64", (5, 8)), Some(true));
        assert_eq!(release_at_least("5.8.0\n", (5, 8)), Some(true));
        assert_eq!(release_at_least("5.7.19", (5, 8)), Some(false));
        assert_eq!(release_at_least("4.19.0-27-amd64", (5, 8)), Some(false));
        assert_eq!(release_at_least("6", (5, 8)), None);
        assert_eq!(release_at_least("weird", (5, 8)), None);
    }

    #[test]
    fn one_anchor_per_file_system_and_none_if_any_is_untrusted_or_unknown() {
        let dirs: Vec<PathBuf> = ["/r/a", "/r/b", "/m/c", "/r/d"].iter().map(PathBuf::from).collect();
        let dev = |p: &Path| Some(if p.starts_with("/m") { 2 } else { 1 });
        let asked = std::cell::Cell::new(0);
        let trusted = |_: &Path| {
            asked.set(asked.get() + 1);
            Some(true)
        };
        let got = anchors(&dirs, dev, trusted).unwrap();
        assert_eq!(got, vec![PathBuf::from("/r/a"), PathBuf::from("/m/c")]);
        assert_eq!(asked.get(), 2, "the file system is asked about once per device");
        assert_eq!(anchors(&dirs, dev, |p| Some(!p.starts_with("/m"))), None, "untrusted");
        assert_eq!(
            anchors(&dirs, dev, |p| (!p.starts_with("/m")).then_some(true)),
            None,
            "unknown fs"
        );
        assert_eq!(
            anchors(&dirs, |p| (!p.ends_with("d")).then_some(1), |_| Some(true)),
            None,
            "unknown folder"
        );
        assert_eq!(anchors(&[], |_| None, |_| None), Some(vec![]));
    }

    #[test]
    fn a_slow_syncfs_turns_syncfs_off_for_a_while() {
        let mut b = Backoff::default();
        let t0 = Instant::now();
        assert!(b.allows(t0));
        b.record(t0, SLOW_SYNCFS);
        assert!(b.allows(t0), "not slower than the limit");
        b.record(t0, SLOW_SYNCFS + Duration::from_millis(1));
        assert!(!b.allows(t0));
        assert!(!b.allows(t0 + BACK_OFF - Duration::from_millis(1)));
        assert!(b.allows(t0 + BACK_OFF));
        b.record(t0 + BACK_OFF, Duration::from_millis(3));
        assert!(b.allows(t0 + BACK_OFF), "a fast one changes nothing");
    }

    #[test]
    fn unwritten_data_is_read_from_meminfo() {
        let text = "MemTotal:       24000000 kB\nDirty:              1744 kB\nWriteback:           0 kB\n";
        assert_eq!(dirty_in_meminfo(text), Some(1744 * 1024));
        assert_eq!(
            dirty_in_meminfo("Dirty: 12 MB\n"),
            None,
            "an unknown unit is not guessed"
        );
        assert_eq!(dirty_in_meminfo("MemTotal: 1 kB\n"), None);
        assert!(
            unwritten_bytes().is_some(),
            "this machine has a /proc/meminfo with Dirty"
        );
    }

    #[test]
    fn a_small_wave_keeps_its_fsyncs() {
        let dir = tempfile::tempdir().unwrap();
        let dirs = vec![dir.path().to_path_buf()];
        assert_eq!(syncfs_anchors(SYNCFS_FROM_PATHS - 1, &dirs), None);
    }

    #[test]
    fn folders_of_one_file_system_share_an_anchor_and_a_missing_one_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let dirs = vec![dir.path().join("a"), dir.path().join("b")];
        for d in &dirs {
            std::fs::create_dir(d).unwrap();
        }
        // Grouped by their real devices, whatever this machine's kernel or unwritten data.
        let anchors = anchors_by_device(&dirs).unwrap();
        assert_eq!(anchors, vec![dirs[0].clone()]);
        syncfs_all(&anchors).unwrap();
        assert_eq!(syncfs_anchors(SYNCFS_FROM_PATHS, &[dir.path().join("gone")]), None);
        let err = syncfs_all(&[dir.path().join("gone")]).unwrap_err();
        assert!(err.to_string().contains("gone"), "{err}");
    }
}
