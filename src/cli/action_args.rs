//! The arguments of a command whose first word chooses an action (`auth set`, `dataset list`,
//! `findings waive`, `sandbox exec`): each command names its own `Action` enum.

// No doc comment on the struct: clap would print it as every such command's `about`.
#[derive(Debug, clap::Args)]
pub(crate) struct ActionArgs<A: clap::Subcommand> {
    #[command(subcommand)]
    pub(crate) action: A,
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use crate::cli::{Cli, Command};

    fn parse(args: &[&str]) -> Result<Command, clap::Error> {
        Cli::try_parse_from(std::iter::once("ghostlab").chain(args.iter().copied())).map(|c| c.command)
    }

    #[test]
    fn each_action_command_parses_its_action() {
        use crate::cli::{auth, dataset, findings, sandbox};
        assert!(matches!(
            parse(&["auth", "status", "openai"]).unwrap(),
            Command::Auth(a) if matches!(&a.action, auth::Action::Status { provider } if provider == "openai")
        ));
        assert!(matches!(
            parse(&["dataset", "approve", "--job", "j.yaml", "c1"]).unwrap(),
            Command::Dataset(a) if matches!(a.action, dataset::Action::Approve(_))
        ));
        assert!(matches!(
            parse(&["findings", "list"]).unwrap(),
            Command::Findings(a) if matches!(a.action, findings::Action::List(_))
        ));
        assert!(matches!(
            parse(&["sandbox", "shell"]).unwrap(),
            Command::Sandbox(a) if matches!(a.action, sandbox::Action::Shell(_))
        ));
    }

    #[test]
    fn an_action_command_without_or_with_an_unknown_action_is_a_usage_error() {
        for args in [
            &["auth"][..],
            &["dataset"],
            &["findings"],
            &["sandbox"],
            &["auth", "steal", "x"],
        ] {
            let err = parse(args).expect_err(&format!("{args:?} parsed"));
            assert_eq!(err.exit_code(), 2, "{args:?}: {err}");
        }
    }

    #[test]
    fn an_action_commands_help_is_its_own_and_lists_its_actions() {
        let mut cli = Cli::command();
        let auth = cli.find_subcommand_mut("auth").expect("auth");
        let help = auth.render_help().to_string();
        assert!(
            help.starts_with("Store, inspect or remove a model provider's API key"),
            "{help}"
        );
        for action in ["set", "status", "remove"] {
            assert!(help.contains(&format!("  {action}")), "{action} missing: {help}");
        }
    }
}
