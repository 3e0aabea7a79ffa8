//! The credential order, as a table: each row lists what is set and which source must win.

use super::*;
use crate::llm::credentials::Source;
use std::collections::HashMap;

struct Row {
    name: &'static str,
    role_var: Option<&'static str>,
    opencode_auth: bool,
    env: &'static [(&'static str, &'static str)],
    keyring: Option<&'static str>,
    auth_json: Option<&'static str>,
    want: Result<Option<(&'static str, &'static str)>, &'static str>,
}

fn run(row: &Row) {
    let dir = tempfile::tempdir().unwrap();
    let auth = dir.path().join("auth.json");
    if let Some(text) = row.auth_json {
        std::fs::write(&auth, text).unwrap();
    }
    let env: HashMap<String, String> = row.env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let env_fn = move |k: &str| env.get(k).cloned();
    let keyring = row.keyring;
    let ghostlab = move |_: &str| {
        Ok(keyring.map(|v| Found {
            secret: Secret::new(v),
            source: Source::Keyutils,
        }))
    };
    let sources = Sources {
        env: &env_fn,
        ghostlab: &ghostlab,
        opencode_auth_file: Some(auth.clone()),
    };
    let req = KeyRequest {
        provider: "anthropic".into(),
        role_var: row.role_var.map(String::from),
        opencode_auth: row.opencode_auth,
    };
    let got = resolve(&req, &sources);
    let label = |o: &KeyOrigin| match o {
        KeyOrigin::RoleVar(_) => "role",
        KeyOrigin::Ghostlab(_) => "ghostlab",
        KeyOrigin::ProviderVar(_) => "provider-var",
        KeyOrigin::OpencodeAuth(p) => {
            assert_eq!(p, &auth);
            "opencode"
        }
    };
    match (&got, &row.want) {
        (Ok(Some((secret, origin))), Ok(Some((value, source)))) => {
            assert_eq!((secret.expose(), label(origin)), (*value, *source), "{}", row.name)
        }
        (Ok(None), Ok(None)) => {}
        (Err(e), Err(needle)) => assert!(e.to_string().contains(needle), "{}: {e}", row.name),
        _ => panic!("{}: got {:?}", row.name, got.map(|o| o.map(|(_, origin)| origin))),
    }
}

const AUTH: &str =
    r#"{"anthropic": {"type": "api", "key": "from-opencode"}, "openai": {"type": "api", "key": "other"}}"#;

#[test]
fn credential_order() {
    let rows = [
        Row {
            name: "the role's variable wins over everything",
            role_var: Some("MY_KEY"),
            opencode_auth: true,
            env: &[("MY_KEY", "from-role"), ("ANTHROPIC_API_KEY", "usual")],
            keyring: Some("stored"),
            auth_json: Some(AUTH),
            want: Ok(Some(("from-role", "role"))),
        },
        Row {
            name: "a named but unset variable is an error, not a fallback",
            role_var: Some("MY_KEY"),
            opencode_auth: true,
            env: &[("ANTHROPIC_API_KEY", "usual")],
            keyring: Some("stored"),
            auth_json: Some(AUTH),
            want: Err("MY_KEY is not set"),
        },
        Row {
            name: "ghostlab's keyring before the usual variable",
            role_var: None,
            opencode_auth: true,
            env: &[("ANTHROPIC_API_KEY", "usual")],
            keyring: Some("stored"),
            auth_json: Some(AUTH),
            want: Ok(Some(("stored", "ghostlab"))),
        },
        Row {
            name: "the usual variable before OpenCode's login",
            role_var: None,
            opencode_auth: true,
            env: &[("ANTHROPIC_API_KEY", "usual")],
            keyring: None,
            auth_json: Some(AUTH),
            want: Ok(Some(("usual", "provider-var"))),
        },
        Row {
            name: "OpenCode's login only when the job allows it",
            role_var: None,
            opencode_auth: false,
            env: &[],
            keyring: None,
            auth_json: Some(AUTH),
            want: Ok(None),
        },
        Row {
            name: "OpenCode's login when allowed",
            role_var: None,
            opencode_auth: true,
            env: &[("OPENAI_API_KEY", "wrong provider")],
            keyring: None,
            auth_json: Some(AUTH),
            want: Ok(Some(("from-opencode", "opencode"))),
        },
        Row {
            name: "an OAuth login is not an API key",
            role_var: None,
            opencode_auth: true,
            env: &[],
            keyring: None,
            auth_json: Some(r#"{"anthropic": {"type": "oauth", "access": "tok"}}"#),
            want: Err("not an API key"),
        },
        Row {
            name: "nothing anywhere",
            role_var: None,
            opencode_auth: true,
            env: &[],
            keyring: None,
            auth_json: None,
            want: Ok(None),
        },
    ];
    for row in &rows {
        run(row);
    }
}

#[test]
fn hints_name_every_way() {
    let h = how_to_set("anthropic");
    assert!(
        h.contains("ghostlab auth set anthropic") && h.contains("ANTHROPIC_API_KEY") && h.contains("opencode_auth")
    );
}
