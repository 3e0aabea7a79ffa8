//! The one layout of an isolated OpenCode HOME: every XDG folder and TMPDIR inside it, so an
//! OpenCode process started by Ghostlab (a catalog lookup, the user's model list, an agent turn
//! in the sandbox) reads and writes nothing of the user's own HOME, and never updates itself or
//! fetches the models catalog.

/// The variables that confine OpenCode to `home` (a host path or a path inside the sandbox).
/// `home/tmp` must exist before the process starts: [`create_tmp`] makes it on the host.
pub(crate) fn isolated_env(home: &str) -> Vec<(&'static str, String)> {
    vec![
        ("HOME", home.to_string()),
        ("XDG_DATA_HOME", format!("{home}/.local/share")),
        ("XDG_CONFIG_HOME", format!("{home}/.config")),
        ("XDG_CACHE_HOME", format!("{home}/.cache")),
        ("XDG_STATE_HOME", format!("{home}/.local/state")),
        ("TMPDIR", format!("{home}/tmp")),
        ("OPENCODE_DISABLE_MODELS_FETCH", "1".into()),
        ("OPENCODE_DISABLE_AUTOUPDATE", "1".into()),
    ]
}

/// Creates `home/tmp` on the host (the TMPDIR of [`isolated_env`]).
pub(crate) fn create_tmp(home: &std::path::Path) -> std::io::Result<()> {
    std::fs::create_dir_all(home.join("tmp"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_folder_opencode_writes_is_inside_home() {
        let env = isolated_env("/h");
        for (name, value) in &env {
            if name.starts_with("XDG_") || *name == "TMPDIR" || *name == "HOME" {
                assert!(value.starts_with("/h"), "{name}={value}");
            }
        }
        let names: Vec<&str> = env.iter().map(|(n, _)| *n).collect();
        for needed in [
            "HOME",
            "XDG_DATA_HOME",
            "XDG_CONFIG_HOME",
            "XDG_CACHE_HOME",
            "XDG_STATE_HOME",
            "TMPDIR",
        ] {
            assert!(names.contains(&needed), "{needed} missing: {names:?}");
        }
    }
}
