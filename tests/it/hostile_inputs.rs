//! Hostile job files through the real binary: each exits 2 in under a second, names the file,
//! the key path (or line and column) and the reason, never echoes a literal credential, and
//! never panics.

use assert_cmd::Command;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How a case prepares its job folder; returns the path given to `--job`.
type Setup = fn(&Path) -> PathBuf;

struct Case {
    name: &'static str,
    setup: Setup,
    /// Texts that must all appear in stderr (key path or position, and the reason).
    expect: &'static [&'static str],
}

const BASE: &str = "version: 1\nagent:\n  id: hostile\n";

fn job_with(dir: &Path, extra: &str) -> PathBuf {
    let path = dir.join("job.yaml");
    std::fs::write(&path, format!("{BASE}{extra}")).unwrap();
    path
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// A 3 GiB file that takes no disk space: reading it whole would allocate 3 GiB.
fn sparse_giant(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::File::create(path).unwrap().set_len(3 << 30).unwrap();
}

fn alias_bomb() -> String {
    let mut text =
        format!("{BASE}x0: &x0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
    for i in 1..10 {
        let refs = vec![format!("*x{}", i - 1); 10].join(",");
        text.push_str(&format!("x{i}: &x{i} [{refs}]\n"));
    }
    text
}

const CASES: &[Case] = &[
    Case {
        name: "timeout 99999999999999999999h",
        setup: |d| job_with(d, "sandbox:\n  timeout: 99999999999999999999h\n"),
        expect: &["sandbox.timeout", "range 1s..=24h"],
    },
    Case {
        name: "timeout 18446744073709551616s",
        setup: |d| job_with(d, "sandbox:\n  timeout: 18446744073709551616s\n"),
        expect: &["sandbox.timeout", "range 1s..=24h"],
    },
    Case {
        name: "timeout 0s",
        setup: |d| job_with(d, "sandbox:\n  timeout: 0s\n"),
        expect: &["sandbox.timeout", "out of range 1s..=24h"],
    },
    Case {
        name: "memory 99999999999999999999T",
        setup: |d| job_with(d, "sandbox:\n  memory: 99999999999999999999T\n"),
        expect: &["sandbox.memory", "64MiB..=1TiB"],
    },
    Case {
        name: "processes 0",
        setup: |d| job_with(d, "sandbox:\n  processes: 0\n"),
        expect: &["sandbox.processes", "out of range 8..=65536"],
    },
    Case {
        name: "processes 4294967295",
        setup: |d| job_with(d, "sandbox:\n  processes: 4294967295\n"),
        expect: &["sandbox.processes", "out of range 8..=65536"],
    },
    Case {
        name: "processes 4294967296",
        setup: |d| job_with(d, "sandbox:\n  processes: 4294967296\n"),
        expect: &["sandbox.processes", "out of range 8..=65536"],
    },
    Case {
        name: "mcp timeout 0",
        setup: |d| {
            job_with(
                d,
                "  inputs:\n    mcps:\n      - { server: s, command: [\"true\"], timeout: 0 }\n",
            )
        },
        expect: &["agent.inputs.mcps[0].timeout", "out of range 1..=3600000"],
    },
    Case {
        name: "secret reference on an MCP server's command line",
        setup: |d| {
            job_with(
                d,
                "  inputs:\n    mcps:\n      - { server: s, command: [\"true\", \"--token\", \"${GH_TOKEN}\"] }\n",
            )
        },
        expect: &["agent.inputs.mcps[0].command", "${GH_TOKEN}", "command line"],
    },
    Case {
        name: "job is /dev/zero",
        setup: |_| PathBuf::from("/dev/zero"),
        expect: &["/dev/zero", "character device"],
    },
    Case {
        name: "job is a FIFO",
        setup: |d| {
            let p = d.join("job.yaml");
            mkfifo(&p);
            p
        },
        expect: &["job.yaml", "FIFO"],
    },
    Case {
        name: "job is a folder",
        setup: |d| {
            std::fs::create_dir(d.join("job.yaml")).unwrap();
            d.join("job.yaml")
        },
        expect: &["job.yaml", "a folder"],
    },
    Case {
        name: "job of 2 MiB",
        setup: |d| job_with(d, &format!("agent_notes: \"{}\"\n", "a".repeat(2 << 20))),
        expect: &["job.yaml", "the limit is 1048576 bytes"],
    },
    Case {
        name: "flow nesting 100000",
        setup: |d| job_with(d, &format!("x: {}1{}\n", "[".repeat(100_000), "]".repeat(100_000))),
        expect: &["job.yaml: x:", "nesting deeper than 64", "line 4 column"],
    },
    Case {
        name: "flow nesting 1000000",
        setup: |d| job_with(d, &format!("x: {}\n", "[".repeat(1_000_000))),
        expect: &["job.yaml: x:", "nesting deeper than 64", "line 4 column"],
    },
    Case {
        name: "nesting hidden after a comment ended by a bare CR",
        setup: |d| {
            job_with(
                d,
                &format!("# note\rx: {}1{}\n", "[".repeat(100_000), "]".repeat(100_000)),
            )
        },
        expect: &["job.yaml: x:", "nesting deeper than 64", "line 5 column"],
    },
    Case {
        name: "nesting hidden after a comment ended by U+2028",
        setup: |d| {
            job_with(
                d,
                &format!("# note\u{2028}x: {}1{}\n", "[".repeat(100_000), "]".repeat(100_000)),
            )
        },
        expect: &["job.yaml: x:", "nesting deeper than 64", "line 5 column"],
    },
    Case {
        name: "nesting hidden after a comment ended by NEL",
        setup: |d| {
            job_with(
                d,
                &format!("# note\u{85}x: {}1{}\n", "[".repeat(100_000), "]".repeat(100_000)),
            )
        },
        expect: &["job.yaml: x:", "nesting deeper than 64", "line 5 column"],
    },
    Case {
        name: "block nesting 100000",
        setup: |d| job_with(d, &format!("x:\n{}1\n", "- ".repeat(100_000))),
        expect: &["job.yaml: x", "nesting deeper than 64", "line 5 column"],
    },
    Case {
        name: "alias bomb",
        setup: |d| {
            let p = d.join("job.yaml");
            std::fs::write(&p, alias_bomb()).unwrap();
            p
        },
        expect: &["job.yaml: x", "alias-expansion budget", "line"],
    },
    Case {
        name: "duplicate key",
        setup: |d| job_with(d, "sandbox:\n  keep: true\n  keep: false\n"),
        expect: &["job.yaml: sandbox.keep:", "duplicate entry", "line 5"],
    },
    Case {
        name: "duplicate key in a flow mapping",
        setup: |d| job_with(d, "sandbox: { keep: true, keep: false }\n"),
        expect: &["job.yaml: sandbox.keep:", "duplicate entry"],
    },
    Case {
        name: "state_dir /etc",
        setup: |d| job_with(d, "paths:\n  state_dir: /etc\n"),
        expect: &["paths.state_dir", "system folder"],
    },
    Case {
        name: "state_dir a foreign folder",
        setup: |d| {
            std::fs::create_dir(d.join("notes")).unwrap();
            std::fs::write(d.join("notes/README.md"), "mine").unwrap();
            job_with(d, "paths:\n  state_dir: ./notes\n")
        },
        expect: &["paths.state_dir", "`README.md`, which Ghostlab did not write"],
    },
    Case {
        name: "instructions /etc/shadow",
        setup: |d| job_with(d, "  runtime:\n    instructions: [/etc/shadow]\n"),
        expect: &["agent.runtime.instructions[0]", "outside the job folder"],
    },
    Case {
        name: "assets /etc/shadow",
        setup: |d| job_with(d, "  inputs:\n    assets: [/etc/shadow]\n"),
        expect: &["agent.inputs.assets[0]", "outside the job folder"],
    },
    Case {
        name: "instruction is a FIFO",
        setup: |d| {
            mkfifo(&d.join("pipe.md"));
            job_with(d, "  runtime:\n    instructions: [./pipe.md]\n")
        },
        expect: &["agent.runtime.instructions[0]", "is not a regular file"],
    },
    Case {
        name: "workspace /",
        setup: |d| job_with(d, "  workspace: /\n"),
        expect: &["agent.workspace", "system folder"],
    },
    Case {
        name: "workspace ../../..",
        setup: |d| job_with(d, "  workspace: ../../../../../../..\n"),
        expect: &["agent.workspace", "system folder"],
    },
    Case {
        name: "workspace symlink to /etc",
        setup: |d| {
            std::os::unix::fs::symlink("/etc", d.join("ws")).unwrap();
            job_with(d, "  workspace: ./ws\n")
        },
        expect: &["agent.workspace", "system folder /etc"],
    },
    Case {
        name: "workdir /proc",
        setup: |d| job_with(d, "sandbox:\n  workdir: /proc\n"),
        expect: &["sandbox.workdir", "under /sandbox/"],
    },
    Case {
        name: "workdir /sandbox/../etc",
        setup: |d| job_with(d, "sandbox:\n  workdir: /sandbox/../etc\n"),
        expect: &["sandbox.workdir", "resolved: /etc"],
    },
    Case {
        name: "download escaping the workspace",
        setup: |d| job_with(d, "sandbox:\n  download: [out.txt, ../../etc/shadow]\n"),
        expect: &["sandbox.download[1]", "leaves the workspace"],
    },
    Case {
        name: "download outside /sandbox",
        setup: |d| job_with(d, "sandbox:\n  download: [/etc/passwd]\n"),
        expect: &["sandbox.download[0]", "is not under /sandbox/"],
    },
    Case {
        name: "download listed twice",
        setup: |d| job_with(d, "sandbox:\n  download: [out.txt, /sandbox/workspace/out.txt]\n"),
        expect: &["sandbox.download[1]", "is listed twice"],
    },
    Case {
        name: "credentials.env literal",
        setup: |d| {
            job_with(
                d,
                "sandbox:\n  credentials:\n    env: [\"AWS_SECRET=AKIAIOSFODNN7EXAMPLE\"]\n",
            )
        },
        expect: &["sandbox.credentials.env[0]", "`AWS_SECRET=…` is a literal value"],
    },
    Case {
        name: "config_ref to a non-JSON file",
        setup: |d| {
            std::fs::write(d.join("servers.json"), "{ this is: [not json\n").unwrap();
            job_with(
                d,
                "  inputs:\n    mcps:\n      - { config_ref: ./servers.json, server: s }\n",
            )
        },
        expect: &[
            "agent.inputs.mcps[0].config_ref",
            "servers.json",
            "malformed JSON at line",
        ],
    },
    Case {
        name: "config_ref to a FIFO",
        setup: |d| {
            mkfifo(&d.join("servers.json"));
            job_with(
                d,
                "  inputs:\n    mcps:\n      - { config_ref: ./servers.json, server: s }\n",
            )
        },
        expect: &["agent.inputs.mcps[0].config_ref", "FIFO"],
    },
    Case {
        name: "escape sequence in a server name of an MCP servers file",
        setup: |d| {
            std::fs::write(
                d.join("servers.json"),
                r#"{"mcpServers": {"s\u001b]0;pwned\u0007": {"command": "node", "args": ["s.js"]}}}"#,
            )
            .unwrap();
            job_with(
                d,
                "  inputs:\n    mcps:\n      - { config_ref: ./servers.json, server: s }\n",
            )
        },
        expect: &["mcpServers.s\\u{1b}]0;pwned", "control character U+001B"],
    },
    Case {
        name: "permission bash: alow",
        setup: |d| job_with(d, "  runtime:\n    permission:\n      bash: alow\n"),
        expect: &["agent.runtime.permission.bash", "allow|ask|deny"],
    },
    Case {
        name: "permission pattern action typo",
        setup: |d| {
            job_with(
                d,
                "  runtime:\n    permission:\n      bash:\n        \"git push*\": nope\n",
            )
        },
        expect: &["agent.runtime.permission.bash.git push*", "allow, ask, deny"],
    },
    Case {
        name: "instruction file of 3 GiB",
        setup: |d| {
            sparse_giant(&d.join("AGENTS.md"));
            job_with(d, "  runtime:\n    instructions: [./AGENTS.md]\n")
        },
        expect: &["agent.runtime.instructions[0]", "3221225472 bytes"],
    },
    Case {
        name: "glob-matched instruction of 3 GiB",
        setup: |d| {
            std::fs::create_dir_all(d.join("rules")).unwrap();
            std::fs::write(d.join("rules/a.md"), "a").unwrap();
            sparse_giant(&d.join("rules/b.md"));
            job_with(d, "  runtime:\n    instructions: [\"rules/*.md\"]\n")
        },
        expect: &["agent.runtime.instructions[0]", "rules/b.md", "3221225472 bytes"],
    },
    Case {
        name: "agent prompt file of 3 GiB",
        setup: |d| {
            sparse_giant(&d.join("p.md"));
            job_with(d, "  runtime:\n    agents:\n      a:\n        prompt: ./p.md\n")
        },
        expect: &["agent.runtime.agents.a.prompt", "3221225472 bytes"],
    },
    Case {
        name: "SKILL.md of 3 GiB",
        setup: |d| {
            sparse_giant(&d.join("skills/s/SKILL.md"));
            job_with(d, "  inputs:\n    skills: [./skills/s]\n")
        },
        expect: &["agent.inputs.skills[0]", "SKILL.md", "3221225472 bytes"],
    },
    Case {
        name: "{file:} target of 3 GiB in a template",
        setup: |d| {
            sparse_giant(&d.join("t.md"));
            job_with(
                d,
                "  runtime:\n    commands:\n      c:\n        template: \"Do {file:./t.md}\"\n",
            )
        },
        expect: &["agent.runtime.commands.c.template", "3221225472 bytes"],
    },
    // Refusals with the wrong reason: each must say what is really wrong.
    Case {
        name: "byte-order mark before a real error",
        setup: |d| {
            let path = d.join("job.yaml");
            std::fs::write(&path, format!("\u{feff}{BASE}  runtime: {{ temprature: 1 }}\n")).unwrap();
            path
        },
        expect: &["agent.runtime.temprature"],
    },
    Case {
        name: "state_dir empty",
        setup: |d| job_with(d, "paths: { state_dir: \"\" }\n"),
        expect: &["paths.state_dir", "is empty", "default `.ghostlab`"],
    },
    Case {
        name: "state_dir only spaces",
        setup: |d| job_with(d, "paths: { state_dir: \"   \" }\n"),
        expect: &["paths.state_dir", "is empty"],
    },
    Case {
        name: "unterminated reference in an MCP env",
        setup: |d| {
            job_with(
                d,
                "  inputs:\n    mcps:\n      - { server: s, command: [node, s.js], environment: { API_TOKEN: \"${RELEASE_TOKEN\" } }\n",
            )
        },
        expect: &[
            "environment.API_TOKEN",
            "`${RELEASE_TOKEN` is an unterminated reference",
            "${RELEASE_TOKEN}",
        ],
    },
    Case {
        name: "a closed and an unclosed reference in a header",
        setup: |d| {
            job_with(
                d,
                "  inputs:\n    mcps:\n      - { server: s, url: \"https://x.example/mcp\", headers: { Authorization: \"Bearer ${A}${TOKEN\" } }\n",
            )
        },
        expect: &["headers.Authorization", "`${TOKEN` is an unterminated reference"],
    },
    Case {
        name: "unterminated reference as a judge api_key",
        setup: |d| {
            job_with(
                d,
                "generation:\n  judge: { provider: openai, model: m, api_key: \"${JUDGE_KEY\" }\n",
            )
        },
        expect: &["generation.judge.api_key", "`${JUDGE_KEY` is an unterminated reference"],
    },
    Case {
        name: "escape sequence in an MCP server name",
        setup: |d| {
            job_with(
                d,
                "  inputs:\n    mcps:\n      - { server: \"x\\e[31mRED\\e[0m\", command: [node, s.js] }\n",
            )
        },
        expect: &["agent.inputs.mcps[0].server", "control character U+001B"],
    },
    Case {
        name: "bell in an agent name key",
        setup: |d| job_with(d, "  runtime:\n    agents:\n      \"re\\alease\": { model: a/b }\n"),
        expect: &["agent.runtime.agents.re\\u{7}lease", "U+0007"],
    },
    Case {
        name: "NUL in agent.id",
        setup: |d| {
            let path = d.join("job.yaml");
            std::fs::write(&path, "version: 1\nagent:\n  id: \"bot\\0\"\n").unwrap();
            path
        },
        expect: &["agent.id", "U+0000"],
    },
    Case {
        name: "invalid UTF-8 under a key",
        setup: |d| {
            let path = d.join("job.yaml");
            let mut bytes = format!("{BASE}  runtime:\n    instructions: [\"a").into_bytes();
            bytes.extend_from_slice(b"\xff\xfe\"]\n");
            std::fs::write(&path, bytes).unwrap();
            path
        },
        expect: &[
            "agent.runtime.instructions",
            "byte 0xff at line 5 column",
            "save it as UTF-8",
        ],
    },
    Case {
        name: "20,000 unknown keys",
        setup: |d| {
            let keys: String = (0..20_000).map(|i| format!("k{i}: 1\n")).collect();
            job_with(d, &keys)
        },
        expect: &[
            "41 errors in the job",
            "k39: unknown key",
            "… and 19960 more unknown keys",
        ],
    },
];

#[test]
fn every_hostile_input_exits_2_fast_with_file_key_and_reason() {
    let bin = assert_cmd::cargo::cargo_bin("ghostlab");
    let mut problems = Vec::new();
    let mut table = Vec::new();
    for case in CASES {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("job");
        std::fs::create_dir(&dir).unwrap();
        let job = (case.setup)(&dir);
        let started = Instant::now();
        let out = Command::new(&bin)
            .args(["validate", "--job"])
            .arg(&job)
            .timeout(Duration::from_secs(10))
            .output()
            .unwrap();
        let took = started.elapsed();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let first = stderr
            .lines()
            .nth(1)
            .unwrap_or_default()
            .trim()
            .chars()
            .take(160)
            .collect::<String>();
        table.push(format!(
            "{:<34} exit {:?} {:>5} ms  {first}",
            case.name,
            out.status.code(),
            took.as_millis()
        ));
        let mut wrong = Vec::new();
        if out.status.code() != Some(2) {
            wrong.push(format!("exit {:?}", out.status.code()));
        }
        if took > Duration::from_secs(1) {
            wrong.push(format!("took {took:?}"));
        }
        if stderr.len() > 64 * 1024 {
            wrong.push(format!("{} bytes of stderr", stderr.len()));
        }
        if stderr.chars().any(|c| c.is_control() && !matches!(c, '\n' | '\t')) {
            wrong.push("a raw control character reached stderr".into());
        }
        if stderr.contains("panicked") {
            wrong.push("panicked".into());
        }
        if stderr.contains("AKIAIOSFODNN7EXAMPLE") {
            wrong.push("echoed the literal credential".into());
        }
        for e in case.expect {
            if !stderr.contains(e) {
                wrong.push(format!("missing `{e}`"));
            }
        }
        if !wrong.is_empty() {
            problems.push(format!("{}: {}\n{stderr}", case.name, wrong.join(", ")));
        }
    }
    eprintln!("{}", table.join("\n"));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
