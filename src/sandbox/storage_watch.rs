//! The storage bound while commands run, for sessions that cannot mount a size-limited tmpfs
//! (Ghostlab not root). Measuring only around each command let one long command write far past
//! the bound onto the host disk before anyone looked. A watcher thread measures the bounded
//! folders for as long as the session lives, and at the first breach stops every process of the
//! session; the session then refuses further commands with the breach as its reason.
//!
//! The overshoot is what can be written between two measurements: the interval adapts to the
//! cost of a measurement (ten times its duration, between 100 ms and 5 s), so a large
//! workspace is not walked in a busy loop, and each file is still capped by RLIMIT_FSIZE.
//!
//! What is measured is the caller's (`StorageWatch::start` takes the measurement): the session
//! adds what a walk of the folders cannot see (`hidden_usage`: files deleted while still open,
//! the file count of each command's /tmp and /dev/shm), which it also watches as root.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const MIN_INTERVAL: Duration = Duration::from_millis(100);
const MAX_INTERVAL: Duration = Duration::from_secs(5);
/// Measuring takes at most a tenth of one core, however large the folders are.
const COST_FACTOR: u32 = 10;

/// One bounded folder: its name for messages, its host path, its bound in bytes.
#[derive(Debug, Clone)]
pub(crate) struct Bounded {
    pub(crate) name: String,
    pub(crate) dir: PathBuf,
    pub(crate) bytes: u64,
}

/// A running watcher; stops when dropped.
#[derive(Debug)]
pub(crate) struct StorageWatch {
    stop: Arc<AtomicBool>,
    breach: Arc<Mutex<Option<String>>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl StorageWatch {
    /// Starts watching `folders`; `on_breach` runs once, on the watcher's thread, with the
    /// reason (it stops the session's processes). Sessions measure more than folders
    /// (`start_measuring`); this is the tests' plain folder watch.
    #[cfg(test)]
    pub(crate) fn start(folders: Vec<Bounded>, on_breach: impl FnOnce(&str) + Send + 'static) -> StorageWatch {
        StorageWatch::start_measuring(move || first_over(&folders), on_breach)
    }

    /// Starts calling `measure` (the first bound it finds broken, as the reason) until it finds
    /// one; then `on_breach` runs once, on the watcher's thread.
    pub(crate) fn start_measuring(
        measure: impl FnMut() -> Option<String> + Send + 'static,
        on_breach: impl FnOnce(&str) + Send + 'static,
    ) -> StorageWatch {
        let stop = Arc::new(AtomicBool::new(false));
        let breach = Arc::new(Mutex::new(None));
        let (stop2, breach2) = (stop.clone(), breach.clone());
        let thread = std::thread::Builder::new()
            .name("ghostlab-storage-watch".into())
            .spawn(move || watch(measure, &stop2, &breach2, on_breach))
            .ok();
        StorageWatch { stop, breach, thread }
    }

    /// The first breach seen, if any.
    pub(crate) fn breach(&self) -> Option<String> {
        self.breach.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

impl Drop for StorageWatch {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

/// The first folder over its bound (or that cannot be measured), as the reason.
pub(crate) fn first_over(folders: &[Bounded]) -> Option<String> {
    folders
        .iter()
        .find_map(|f| super::scratch::over_bound(&[(f.name.as_str(), f.dir.as_path())], f.bytes))
}

fn watch(
    mut measure: impl FnMut() -> Option<String>,
    stop: &AtomicBool,
    breach: &Mutex<Option<String>>,
    on_breach: impl FnOnce(&str),
) {
    while !stop.load(Ordering::SeqCst) {
        let started = Instant::now();
        if let Some(why) = measure() {
            *breach.lock().unwrap_or_else(|p| p.into_inner()) = Some(why.clone());
            on_breach(&why);
            return;
        }
        let interval = (started.elapsed() * COST_FACTOR).clamp(MIN_INTERVAL, MAX_INTERVAL);
        std::thread::park_timeout(interval);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_breach_while_writing_is_seen_within_moments_and_reported_once() {
        let d = tempfile::tempdir().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let watch = StorageWatch::start(
            vec![Bounded {
                name: "HOME".into(),
                dir: d.path().to_path_buf(),
                bytes: 1 << 20,
            }],
            move |why| tx.send(why.to_string()).unwrap(),
        );
        assert_eq!(watch.breach(), None);
        std::fs::write(d.path().join("big"), vec![1u8; 2 << 20]).unwrap();
        let why = rx
            .recv_timeout(Duration::from_secs(5))
            .expect("the breach was not seen");
        assert!(why.starts_with("HOME exceeded 1048576 bytes"), "{why}");
        assert_eq!(watch.breach().as_deref(), Some(why.as_str()));
        assert!(rx.recv_timeout(Duration::from_millis(300)).is_err(), "reported twice");
    }

    #[test]
    fn a_folder_made_unreadable_is_still_measured() {
        use std::os::unix::fs::PermissionsExt;
        let d = tempfile::tempdir().unwrap();
        let hidden = d.path().join("h");
        std::fs::create_dir(&hidden).unwrap();
        std::fs::write(hidden.join("fill"), vec![1u8; 2 << 20]).unwrap();
        // Write and enter, no listing: a walk that skips it would see nothing.
        std::fs::set_permissions(&hidden, std::fs::Permissions::from_mode(0o300)).unwrap();
        let why = first_over(&[Bounded {
            name: "HOME".into(),
            dir: d.path().to_path_buf(),
            bytes: 1 << 20,
        }]);
        assert!(why.is_some_and(|w| w.starts_with("HOME exceeded")));
    }

    #[test]
    fn dropping_the_watch_stops_it_promptly() {
        let d = tempfile::tempdir().unwrap();
        let watch = StorageWatch::start(
            vec![Bounded {
                name: "TMPDIR".into(),
                dir: d.path().to_path_buf(),
                bytes: u64::MAX,
            }],
            |_| panic!("no breach expected"),
        );
        let started = Instant::now();
        drop(watch);
        assert!(started.elapsed() < Duration::from_secs(1));
    }
}
