//! `ghostlab validate --job J`.

use super::{CliError, ErrorKind, Exit};

pub(crate) use super::job_arg::JobArg as Args;

pub(crate) fn run(args: Args) -> Result<Exit, CliError> {
    let loaded = crate::spec::load_job(&args.job)?;
    // The job is well formed; the values its secrets have now must also be maskable, or every
    // artifact of a run would either show them or lose ordinary words to the mask.
    let unmaskable = crate::redact::declared::unmaskable_secrets(&loaded);
    if !unmaskable.is_empty() {
        let lines: Vec<String> = unmaskable.iter().map(ToString::to_string).collect();
        return Err(CliError::bad_input(format!(
            "{}: {}",
            args.job.display(),
            lines.join("\n  ")
        )));
    }
    // The generated files the lab recorded must still be the ones it wrote.
    for warning in crate::spec::artifact_refs::verify(&args.job, &loaded.job.lab.artifacts)
        .map_err(|e| CliError::from_error(ErrorKind::BadInput, e))?
    {
        eprintln!("warning: {warning}");
    }
    super::out::say!(
        "OK {}: agent `{}`, {} MCP server{}, sandbox {:?}",
        args.job.display(),
        loaded.job.agent.id,
        loaded.mcps.len(),
        if loaded.mcps.len() == 1 { "" } else { "s" },
        loaded.job.sandbox.backend
    );
    Ok(Exit::Success)
}
