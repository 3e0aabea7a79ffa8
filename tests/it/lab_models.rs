//! The lab's Model step lists the models named in the job plus what a configured endpoint
//! actually serves; an unreachable endpoint adds nothing and does not fail the step.

use ghostlab::lab::executors::EndpointModels;
use ghostlab::lab::traits::ModelCatalog;
use ghostlab::llm::cassette::Cassette;
use ghostlab::llm::model_server::{ServerOptions, start};
use ghostlab::spec::{Job, ModelProvider, ModelRole};

#[tokio::test]
async fn lists_configured_models_and_what_the_endpoint_serves() {
    let dir = tempfile::tempdir().unwrap();
    let cassette = dir.path().join("c.json");
    std::fs::write(
        &cassette,
        r#"{"version":1,"entries":[],"script":[{"when":{"model":"llama-3.3-70b"},"reply":{"text":"hi"}}]}"#,
    )
    .unwrap();
    let server = start(Cassette::load(&cassette).unwrap(), ServerOptions::default())
        .await
        .unwrap();
    let mut job = Job::default();
    job.agent.runtime.model = Some("github-copilot/claude-sonnet-4.5".into());
    job.generation.judge = ModelRole {
        provider: ModelProvider::Openai,
        model: Some("llama-3.3-70b".into()),
        base_url: Some(server.base_url()),
        ..Default::default()
    };
    let models = EndpointModels.models(job.clone()).await.unwrap();
    assert_eq!(
        models,
        vec![
            "github-copilot/claude-sonnet-4.5".to_string(),
            "openai/llama-3.3-70b".to_string()
        ]
    );
    server.shutdown().await;

    // Endpoint gone: the configured names remain, nothing is invented.
    let models = EndpointModels.models(job).await.unwrap();
    assert_eq!(models, vec!["github-copilot/claude-sonnet-4.5".to_string()]);
}
