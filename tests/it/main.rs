//! The integration tests, linked into one binary: every test binary links the whole crate and its
//! dependencies (~100 MB each in a debug build), so one binary instead of thirty keeps a CI
//! checkout's `target/` within a small disk. Tests that change the process environment live in
//! their own binaries (`tests/report`, `tests/sandbox_*.rs`) so they cannot affect these.

#[path = "../common/mod.rs"]
mod common;
mod generate_support;

mod acceptance;
mod architecture;
mod case_flow;
mod ci_example;
mod codex_runner;
mod concurrent_writes;
mod credentials;
mod e2e_fake_openshell;
mod e2e_faults;
mod e2e_opencode;
mod exit_status_docs;
mod fake_provider;
mod fuzz_inputs;
mod gate_facts_cli;
mod generate_cli;
mod generate_offline;
mod generate_schemas;
mod hostile_file_refs;
mod hostile_inputs;
mod hostile_mcp_inputs;
mod hostile_numbers;
mod hostile_run_files;
mod import_projects;
mod kill_commit;
mod lab_headless;
mod lab_models;
mod lab_persona_drop;
mod lab_proposals;
mod lab_review;
mod lab_review_snapshots;
mod lab_review_tmux;
mod lab_roles;
mod lab_run_flags;
mod lab_snapshots;
mod lab_state;
mod lab_tmux;
mod llm_anthropic;
mod llm_openai;
mod mcp_faulty;
mod mcp_http;
mod mcp_inspect;
mod mcp_lint;
mod mcp_real_servers;
mod mcp_secrets;
mod model_server;
mod newcomer_text;
mod newcomer_workspace;
mod opencode_emit;
mod planted_faults;
mod real_model;
mod real_model_openai;
mod real_model_support;
mod redaction_ids;
mod replay_inputs;
mod rescore_cli;
mod resume_kill;
mod run_fakes;
mod run_paths_agree;
mod run_screens;
mod run_view_cli;
mod sandbox_cli;
mod sandbox_session;
mod screen_matrix;
mod scripted_llm;
mod spec_roundtrip;
mod spec_validation;
mod suite_flow;
mod verdict_properties;
mod workspace_own_files;
