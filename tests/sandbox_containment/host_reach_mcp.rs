//! What an MCP server's command brings into the sandbox: its package, never the credentials
//! beside it.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use ghostlab::sandbox::{ExecOptions, ExecOutput, Role, Sandbox, SandboxPolicy};

use super::Ctx;
use super::{Row, held, sh, short, summary};

/// A job folder under the containment base holding `mcps` (YAML list items, if any) in its
/// inputs.
pub fn mcp_job(mcps: &str) -> (tempfile::TempDir, PathBuf) {
    let inputs = if mcps.is_empty() {
        String::new()
    } else {
        format!("  inputs:\n    mcps:\n{mcps}\n")
    };
    let dir = tempfile::Builder::new()
        .prefix("containment-mcp-")
        .tempdir_in(super::super::base_dir())
        .unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::create_dir_all(dir.path().join("ws")).unwrap();
    std::fs::write(dir.path().join("AGENTS.md"), "probe\n").unwrap();
    let job = dir.path().join("job.yaml");
    std::fs::write(
        &job,
        format!(
            "version: 1\nagent:\n  id: probe\n  runtime:\n    instructions: [./AGENTS.md]\n{inputs}  workspace: ./ws\n\
             sandbox:\n  backend: bubblewrap\n  network: disabled\n  processes: 40\n  memory: 256MiB\n  timeout: 20s\n"
        ),
    )
    .unwrap();
    (dir, job)
}

/// A world-traversable folder under the containment base.
fn folder(prefix: &str) -> tempfile::TempDir {
    let d = tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(super::super::base_dir())
        .unwrap();
    std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    d
}

fn write_mode(path: &Path, text: &str, mode: u32) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Builds the job's policy; when it is accepted, runs `script` in a session of it.
pub async fn mcp_attempt(ctx: &Ctx, job: &Path, script: &str) -> Result<ExecOutput, String> {
    let loaded = ghostlab::spec::load_job(job).map_err(|e| format!("load: {e}"))?;
    let policy = SandboxPolicy::from_job(&loaded).map_err(|e| e.to_string())?;
    let logs = tempfile::tempdir().unwrap();
    let sb = Sandbox::open_with(policy, logs.path().to_path_buf(), Some(ctx.bridge.clone()))
        .await
        .map_err(|e| e.to_string())?;
    let s = sb.session(Role::Agent).await.map_err(|e| e.to_string())?;
    let o = s
        .exec(&sh(script), &ExecOptions::default(), None)
        .await
        .map_err(|e| e.to_string())?;
    s.delete().await.unwrap();
    Ok(o)
}

pub async fn mcp_dot_local(ctx: &Ctx, name: &'static str) -> Row {
    let home = folder("containment-home-");
    let exe = home.path().join(".local/bin/x");
    write_mode(&exe, "#!/bin/sh\nexit 0\n", 0o755);
    std::fs::set_permissions(home.path().join(".local"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let auth = home.path().join(".local/share/opencode/auth.json");
    write_mode(&auth, &format!("{{\"key\":\"AUTH-{}\"}}\n", ctx.secret), 0o600);
    let (_job_dir, job) = mcp_job(&format!("      - server: x\n        command: [{}]", exe.display()));
    let r = mcp_attempt(ctx, &job, &format!("cat {}", auth.display())).await;
    match r {
        Err(e) => held(
            name,
            "refused",
            short(&e),
            e.contains("`x`") && e.contains(&home.path().join(".local").display().to_string()),
        ),
        Ok(o) => held(name, "refused", short(&format!("accepted; {}", summary(&o))), false),
    }
}

/// A server folder outside the job: server.py, helper.py, a 0600 .env and a 0600 tokens.json.
fn python_server(ctx: &Ctx) -> (tempfile::TempDir, tempfile::TempDir, PathBuf) {
    let dir = folder("containment-mcp-py-");
    write_mode(&dir.path().join("server.py"), "import helper\n", 0o644);
    write_mode(&dir.path().join("helper.py"), "X = 1\n", 0o644);
    write_mode(
        &dir.path().join(".env"),
        &format!("API_KEY=ENV-{}\n", ctx.secret),
        0o600,
    );
    write_mode(
        &dir.path().join("tokens.json"),
        &format!("{{\"t\":\"TOK-{}\"}}\n", ctx.secret),
        0o600,
    );
    let (job_dir, job) = mcp_job(&format!(
        "      - server: py\n        command: [python3, {}]",
        dir.path().join("server.py").display()
    ));
    (dir, job_dir, job)
}

pub async fn mcp_dotenv(ctx: &Ctx, name: &'static str) -> Row {
    let (dir, _j, job) = python_server(ctx);
    let d = dir.path().display();
    let r = mcp_attempt(
        ctx,
        &job,
        &format!("cat {d}/.env; test -e {d}/helper.py && echo HELPER"),
    )
    .await;
    match r {
        Ok(o) => {
            let t = o.stdout_text();
            held(
                name,
                "denied",
                summary(&o),
                !t.contains(&format!("ENV-{}", ctx.secret)) && t.contains("HELPER"),
            )
        }
        Err(e) => held(name, "denied", short(&format!("server refused: {e}")), false),
    }
}

pub async fn mcp_private_file(ctx: &Ctx, name: &'static str) -> Row {
    let (dir, _j, job) = python_server(ctx);
    let d = dir.path().display();
    let r = mcp_attempt(
        ctx,
        &job,
        &format!("cat {d}/tokens.json; test -e {d}/server.py && echo SERVER"),
    )
    .await;
    match r {
        Ok(o) => {
            let t = o.stdout_text();
            held(
                name,
                "denied",
                summary(&o),
                !t.contains(&format!("TOK-{}", ctx.secret)) && t.contains("SERVER"),
            )
        }
        Err(e) => held(name, "denied", short(&format!("server refused: {e}")), false),
    }
}

pub async fn mcp_in_home(ctx: &Ctx, name: &'static str) -> Row {
    let home = folder("containment-home-");
    write_mode(&home.path().join("server.js"), "// server\n", 0o644);
    let key = home.path().join(".ssh/id_ed25519");
    write_mode(&key, &format!("KEY-{}\n", ctx.secret), 0o600);
    std::fs::set_permissions(home.path().join(".ssh"), std::fs::Permissions::from_mode(0o700)).unwrap();
    let (_job_dir, job) = mcp_job(&format!(
        "      - server: homejs\n        command: [node, {}]",
        home.path().join("server.js").display()
    ));
    let r = mcp_attempt(ctx, &job, &format!("cat {}", key.display())).await;
    match r {
        Err(e) => held(name, "refused", short(&e), e.contains("`homejs`")),
        Ok(o) => held(name, "refused", short(&format!("accepted; {}", summary(&o))), false),
    }
}
