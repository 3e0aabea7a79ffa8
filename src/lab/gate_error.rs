//! Why a `--gate key=value` is refused (`policy::set_gate`), for `ghostlab lab --gate` and the
//! gates step's proposal alike.

/// Why a `--gate key=value` is refused; the message names the flag as typed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GateError {
    #[error("--gate {key}={value}: not a number")]
    NotANumber { key: String, value: String },
    #[error("--gate {key}={value}: not true/false")]
    NotABool { key: String, value: String },
    #[error("--gate pass_k={value}: expected K:RATE")]
    PassKShape { value: String },
    /// `part` is `K` or `RATE`.
    #[error("--gate pass_k={value}: {part} is not a number")]
    PassKPart { value: String, part: &'static str },
    #[error("--gate {key}: unknown gate")]
    Unknown { key: String },
}
