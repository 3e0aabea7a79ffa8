//! `ghostlab auth set|status|remove PROVIDER`: API keys in the OS keyring.
//!
//! `set` reads the key from stdin (never from argv, where `ps` and shell history would see it);
//! nothing here ever prints a key, only where it is stored.

use std::io::{BufRead, IsTerminal};

use super::{CliError, Exit};
use crate::llm::credentials::{self, Secret};

pub(crate) type Args = super::action_args::ActionArgs<Action>;

#[derive(Debug, clap::Subcommand)]
pub(crate) enum Action {
    /// Store the key for PROVIDER; the key is read from stdin (one line).
    Set { provider: String },
    /// Show where a key for PROVIDER would come from (never the key).
    Status { provider: String },
    /// Delete the stored key for PROVIDER from every keyring store.
    Remove { provider: String },
}

pub(crate) fn run(args: Args) -> Result<Exit, CliError> {
    let fail = |e: credentials::CredentialError| CliError::from_error(super::error::ErrorKind::MissingPrerequisite, e);
    match args.action {
        Action::Set { provider } => {
            let stdin = std::io::stdin();
            if stdin.is_terminal() {
                eprintln!("Paste the API key for `{provider}` and press Enter (input is not echoed by ghostlab):");
            }
            let mut line = String::new();
            stdin.lock().read_line(&mut line)?;
            let secret = Secret::new(line.trim_end_matches(['\n', '\r']).to_string());
            let source = credentials::set(&provider, &secret).map_err(fail)?;
            super::out::say!("stored the key for `{provider}` in {source}");
            let var = credentials::env_var_for(&provider);
            if std::env::var_os(&var).is_some() {
                super::out::say!("note: {var} is set and overrides the stored key");
            }
        }
        Action::Status { provider } => {
            for (place, state) in credentials::status(&provider).map_err(fail)? {
                super::out::say!("{place}: {state}");
            }
        }
        Action::Remove { provider } => {
            let removed = credentials::remove(&provider).map_err(fail)?;
            if removed.is_empty() {
                super::out::say!("no stored key for `{provider}`");
            } else {
                let names: Vec<String> = removed.iter().map(|s| s.to_string()).collect();
                super::out::say!("removed the key for `{provider}` from {}", names.join(", "));
            }
        }
    }
    Ok(Exit::Success)
}
