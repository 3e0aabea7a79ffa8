//! Everything that can go wrong in a sandbox, in one leaf every backend file imports.

/// Everything that can go wrong in a sandbox.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// The policy cannot be enforced as written.
    #[error("sandbox policy: {0}")]
    Policy(String),
    /// The backend cannot run on this machine; never answered by a fallback.
    #[error("sandbox backend unavailable: {0}")]
    Unavailable(String),
    /// The backend's tool failed.
    #[error("sandbox backend: {0}")]
    Backend(String),
    /// The seccomp filter could not be built.
    #[error("seccomp filter: {0}")]
    Seccomp(String),
    /// A process could not be started or awaited.
    #[error("cannot run the sandboxed command: {0}")]
    Spawn(String),
    /// A host file operation failed.
    #[error("{0}: {1}")]
    Io(String, #[source] std::io::Error),
    /// The session was already deleted.
    #[error("the sandbox session was already deleted")]
    Deleted,
}
