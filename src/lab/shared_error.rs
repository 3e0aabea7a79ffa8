//! A typed error an event carries. Events are cloned (the driver queues them, the screens keep
//! the last outcome) and compared (tests assert on them), but the errors behind them hold io,
//! serde and backend errors that are neither. `Shared` keeps the whole error, source chain
//! included, behind an `Arc`; two are equal when they say the same thing.

use std::fmt;
use std::sync::Arc;

/// `E`, shared: cloning copies a pointer, `Display` and `source` are `E`'s own.
pub struct Shared<E>(Arc<E>);

impl<E> Shared<E> {
    /// The error itself, to match on its variants.
    pub fn get(&self) -> &E {
        &self.0
    }
}

impl<E> From<E> for Shared<E> {
    fn from(error: E) -> Self {
        Shared(Arc::new(error))
    }
}

impl<E> Clone for Shared<E> {
    fn clone(&self) -> Self {
        Shared(Arc::clone(&self.0))
    }
}

/// Equal when the same error, or when both read the same: what a person would tell apart.
impl<E: fmt::Display> PartialEq for Shared<E> {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0.to_string() == other.0.to_string()
    }
}

impl<E: fmt::Debug> fmt::Debug for Shared<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<E: fmt::Display> fmt::Display for Shared<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// Transparent: the wrapped error's causes are this one's.
impl<E: std::error::Error> std::error::Error for Shared<E> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[derive(Debug, thiserror::Error)]
    #[error("{path}: cannot read")]
    struct Unreadable {
        path: String,
        #[source]
        source: std::io::Error,
    }

    fn unreadable(path: &str) -> Shared<Unreadable> {
        Shared::from(Unreadable {
            path: path.into(),
            source: std::io::Error::new(std::io::ErrorKind::PermissionDenied, "permission denied"),
        })
    }

    #[test]
    fn a_clone_keeps_the_message_the_source_and_the_variant() {
        let e = unreadable("/runs/1/events.jsonl");
        let copy = e.clone();
        assert_eq!(copy.to_string(), "/runs/1/events.jsonl: cannot read");
        assert_eq!(
            copy.source().map(|s| s.to_string()).as_deref(),
            Some("permission denied")
        );
        assert_eq!(copy.get().path, "/runs/1/events.jsonl");
        assert_eq!(format!("{copy:?}"), format!("{:?}", e.get()));
    }

    #[test]
    fn equal_when_they_say_the_same_thing_and_only_then() {
        assert_eq!(unreadable("/a"), unreadable("/a"), "separately built, same text");
        assert_ne!(unreadable("/a"), unreadable("/b"));
        let e = unreadable("/a");
        assert_eq!(e, e.clone());
    }
}
