//! Every top-level key OpenCode 1.18.33 accepts (from `Config` in
//! `@opencode-ai/sdk@1.18.33` dist/v2/gen/types.gen.d.ts, cross-checked with `opencode debug
//! config`), and what an import does with it: mirrored into `agent.runtime`, passed through
//! as a setting, or deliberately replaced (with the reason printed).

/// OpenCode keys Ghostlab mirrors, and the `agent.runtime` key each lands in.
pub(crate) const MIRRORED: &[(&str, &str)] = &[
    ("model", "model"),
    ("small_model", "small_model"),
    ("default_agent", "default_agent"),
    ("subagent_depth", "subagent_depth"),
    ("instructions", "instructions"),
    ("skills", "skills"),
    ("agent", "agents"),
    ("tools", "tools"),
    ("permission", "permission"),
    ("command", "commands"),
    ("provider", "provider"),
    ("plugin", "plugins"),
];

/// Keys carried unchanged in `agent.runtime.settings` and emitted as written.
pub(crate) const SETTINGS: &[&str] = &[
    "shell",
    "logLevel",
    "username",
    "snapshot",
    "watcher",
    "enabled_providers",
    "disabled_providers",
    "formatter",
    "lsp",
    "compaction",
    "tool_output",
    "attachment",
    "layout",
    "references",
    "reference",
    "enterprise",
    "experimental",
];

/// Keys Ghostlab replaces on purpose, with the reason shown to the user.
pub(crate) const REPLACED: &[(&str, &str)] = &[
    (
        "share",
        "Ghostlab always emits `share: \"disabled\"`, so no test run publishes a transcript",
    ),
    (
        "autoshare",
        "Ghostlab always emits `share: \"disabled\"`, so no test run publishes a transcript",
    ),
    (
        "autoupdate",
        "Ghostlab pins the OpenCode binary and emits `autoupdate: false`",
    ),
    (
        "server",
        "Ghostlab starts `opencode serve` itself, on a port of its own inside the sandbox",
    ),
];

/// Keys handled elsewhere in the import (`mcp` → inputs, `mode` → primary agents,
/// `$schema` is an editor hint with no effect).
pub(crate) const HANDLED: &[&str] = &["mcp", "mode", "$schema"];

/// Terminal UI keys: OpenCode 1.18.33 does not read them from opencode.json (it keeps them in
/// tui.json) and they never change the agent.
pub(crate) const TUI_ONLY: &[&str] = &["theme", "keybinds", "tui"];

/// Keys of one agent (`agent.<name>`) in OpenCode 1.18.33's `AgentConfig`.
pub(crate) const AGENT_KEYS: &[&str] = &[
    "model",
    "variant",
    "temperature",
    "top_p",
    "prompt",
    "tools",
    "disable",
    "description",
    "mode",
    "hidden",
    "options",
    "color",
    "steps",
    "maxSteps",
    "permission",
];

/// Keys of one command (`command.<name>`).
pub(crate) const COMMAND_KEYS: &[&str] = &["template", "description", "agent", "model", "variant", "subtask"];

/// Every top-level key, for typo suggestions.
pub(crate) fn all_keys() -> impl Iterator<Item = &'static str> {
    MIRRORED
        .iter()
        .map(|(k, _)| *k)
        .chain(SETTINGS.iter().copied())
        .chain(REPLACED.iter().map(|(k, _)| *k))
        .chain(HANDLED.iter().copied())
}

/// Maps a job key path (`agent.runtime.agents.x.y`) back to the OpenCode file's own
/// (`agent.x.y`).
pub(crate) fn source_path(path: &str) -> String {
    let rest = path.strip_prefix("agent.runtime.").unwrap_or(path);
    if let Some(tail) = rest.strip_prefix("settings.") {
        return tail.to_string();
    }
    for (theirs, ours) in MIRRORED {
        if let Some(tail) = rest.strip_prefix(ours)
            && (tail.is_empty() || tail.starts_with('.') || tail.starts_with('['))
        {
            return format!("{theirs}{tail}");
        }
    }
    rest.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_paths_use_opencode_names() {
        assert_eq!(
            source_path("agent.runtime.agents.release.temprature"),
            "agent.release.temprature"
        );
        assert_eq!(source_path("agent.runtime.commands.x"), "command.x");
        assert_eq!(source_path("agent.runtime.settings.formatter"), "formatter");
        assert_eq!(source_path("agent.runtime.small_model"), "small_model");
    }

    #[test]
    fn no_key_is_in_two_lists() {
        let mut all: Vec<&str> = all_keys().chain(TUI_ONLY.iter().copied()).collect();
        let n = all.len();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), n);
    }
}
