//! `ghostlab model-server --cassette F`: serve a cassette as a local OpenAI-compatible endpoint.
//!
//! Prints the base URL on stdout once listening, then runs until Ctrl-C. Unmatched requests
//! are logged on stderr (and answered with HTTP 400), never answered with invented text.

use std::path::PathBuf;
use std::time::Duration;

use super::{CliError, Exit};
use crate::llm::cassette::Cassette;
use crate::llm::model_server::{ServerOptions, start};

#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The cassette (recorded entries and/or script rules).
    #[arg(long)]
    pub(crate) cassette: PathBuf,
    /// Port on 127.0.0.1 (0 = any free port).
    #[arg(long, default_value_t = 0)]
    pub(crate) port: u16,
    /// Delay added before every answer, in milliseconds.
    #[arg(long, default_value_t = 0)]
    pub(crate) latency_ms: u64,
}

pub(crate) fn run(args: Args) -> Result<Exit, CliError> {
    let cassette =
        Cassette::load(&args.cassette).map_err(|e| CliError::from_error(super::error::ErrorKind::BadInput, e))?;
    let rt = crate::util::runtime::multi_thread()?;
    rt.block_on(async {
        let options = ServerOptions {
            port: args.port,
            latency: Duration::from_millis(args.latency_ms),
        };
        let server = start(cassette, options)
            .await
            .map_err(|e| CliError::missing(format!("cannot listen on 127.0.0.1:{}: {e}", args.port)).because(e))?;
        super::out::say!("model-server listening on {}", server.base_url());
        use std::io::Write;
        let _ = std::io::stdout().flush();
        let _ = tokio::signal::ctrl_c().await;
        let unmatched = server.unmatched().len();
        server.shutdown().await;
        if unmatched > 0 {
            eprintln!("model-server: {unmatched} request(s) matched nothing in the cassette");
        }
        Ok(Exit::Success)
    })
}
