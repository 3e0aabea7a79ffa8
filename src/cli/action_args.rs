//! The arguments of a command whose first word chooses an action (`auth set`, `dataset list`,
//! `findings waive`, `sandbox exec`): each command names its own `Action` enum.

// No doc comment on the struct: clap would print it as every such command's `about`.
#[derive(Debug, clap::Args)]
pub struct ActionArgs<A: clap::Subcommand> {
    #[command(subcommand)]
    pub action: A,
}
