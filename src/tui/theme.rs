//! Themes are data: `themes/*.toml` built in with `include_str!`, overridable by a file of the
//! same name in `$XDG_CONFIG_HOME/ghostlab/themes/`. `NO_COLOR` turns every color off.

use ratatui::style::{Color, Modifier, Style};
use std::path::{Path, PathBuf};
use std::str::FromStr;

const BUILTIN: [(&str, &str); 3] = [
    ("default", include_str!("../../themes/default.toml")),
    ("light", include_str!("../../themes/light.toml")),
    ("high-contrast", include_str!("../../themes/high-contrast.toml")),
];

const KEYS: [&str; 9] = [
    "fg",
    "bg",
    "accent",
    "muted",
    "ok",
    "warn",
    "error",
    "border",
    "selection",
];

/// Errors reading a theme file.
#[derive(Debug, thiserror::Error)]
pub enum ThemeError {
    #[error("unknown theme `{0}` (built in: default, light, high-contrast)")]
    Unknown(String),
    #[error("theme {file}: {message}")]
    Invalid { file: String, message: String },
}

/// The colors every screen uses.
#[derive(Debug, Clone, PartialEq)]
pub struct Theme {
    pub name: String,
    pub(crate) fg: Color,
    pub(crate) bg: Color,
    pub(crate) accent: Color,
    pub(crate) muted: Color,
    pub(crate) ok: Color,
    pub(crate) warn: Color,
    pub(crate) error: Color,
    pub(crate) border: Color,
    pub(crate) selection: Color,
    /// True under NO_COLOR: emphasis comes from bold/reverse only.
    pub(crate) monochrome: bool,
}

impl Theme {
    /// Names of the built-in themes.
    pub fn builtin_names() -> Vec<&'static str> {
        BUILTIN.iter().map(|(n, _)| *n).collect()
    }

    /// A built-in theme, ignoring user overrides and NO_COLOR.
    pub fn builtin(name: &str) -> Result<Theme, ThemeError> {
        let (_, text) = BUILTIN
            .iter()
            .find(|(n, _)| *n == name)
            .ok_or_else(|| ThemeError::Unknown(name.to_string()))?;
        Theme::parse(&format!("themes/{name}.toml"), text)
    }

    /// The theme to use: a user file if present, else the built-in; NO_COLOR wins over both.
    pub(crate) fn load(name: &str) -> Result<Theme, ThemeError> {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Theme::load_from(name, user_config_dir().as_deref(), no_color)
    }

    /// `load` with its inputs explicit: the user's config folder and whether NO_COLOR is set.
    pub(crate) fn load_from(name: &str, config_dir: Option<&Path>, no_color: bool) -> Result<Theme, ThemeError> {
        if no_color {
            return Ok(Theme::monochrome());
        }
        if let Some(dir) = config_dir {
            let path = dir.join("ghostlab").join("themes").join(format!("{name}.toml"));
            match crate::util::bounded::read_bounded_string(&path, crate::util::bounded::FileKind::Config) {
                Ok(text) => return Theme::parse(&path.display().to_string(), &text),
                Err(e) if !e.is_not_found() => {
                    return Err(ThemeError::Invalid {
                        file: path.display().to_string(),
                        message: e.to_string(),
                    });
                }
                Err(_) => {}
            }
        }
        Theme::builtin(name)
    }

    /// No colors at all (NO_COLOR).
    pub fn monochrome() -> Theme {
        Theme {
            name: "no-color".into(),
            fg: Color::Reset,
            bg: Color::Reset,
            accent: Color::Reset,
            muted: Color::Reset,
            ok: Color::Reset,
            warn: Color::Reset,
            error: Color::Reset,
            border: Color::Reset,
            selection: Color::Reset,
            monochrome: true,
        }
    }

    /// Parses theme TOML; every color key is required so a typo is an error, not a surprise.
    pub(crate) fn parse(file: &str, text: &str) -> Result<Theme, ThemeError> {
        let invalid = |message: String| ThemeError::Invalid {
            file: file.to_string(),
            message,
        };
        let doc = toml_edit::Document::parse(text).map_err(|e| invalid(e.to_string()))?;
        let name = doc.get("name").and_then(|v| v.as_str()).unwrap_or("custom").to_string();
        let colors = doc
            .get("colors")
            .and_then(|v| v.as_table())
            .ok_or_else(|| invalid("missing [colors] table".into()))?;
        for (key, _) in colors.iter() {
            if !KEYS.contains(&key) {
                return Err(invalid(format!(
                    "colors.{key}: unknown key (known: {})",
                    KEYS.join(", ")
                )));
            }
        }
        let color = |key: &str| -> Result<Color, ThemeError> {
            let raw = colors
                .get(key)
                .and_then(|v| v.as_str())
                .ok_or_else(|| invalid(format!("colors.{key}: missing (a color name or #rrggbb)")))?;
            Color::from_str(raw).map_err(|_| invalid(format!("colors.{key}: `{raw}` is not a color")))
        };
        Ok(Theme {
            name,
            fg: color("fg")?,
            bg: color("bg")?,
            accent: color("accent")?,
            muted: color("muted")?,
            ok: color("ok")?,
            warn: color("warn")?,
            error: color("error")?,
            border: color("border")?,
            selection: color("selection")?,
            monochrome: false,
        })
    }

    /// Plain text.
    pub(crate) fn base(&self) -> Style {
        Style::default().fg(self.fg).bg(self.bg)
    }

    /// Titles and the current step.
    pub(crate) fn accent(&self) -> Style {
        Style::default().fg(self.accent).add_modifier(Modifier::BOLD)
    }

    /// Secondary text.
    pub(crate) fn muted(&self) -> Style {
        if self.monochrome {
            Style::default().add_modifier(Modifier::DIM)
        } else {
            Style::default().fg(self.muted)
        }
    }

    pub(crate) fn ok(&self) -> Style {
        Style::default().fg(self.ok)
    }

    pub(crate) fn warn(&self) -> Style {
        Style::default().fg(self.warn).add_modifier(Modifier::BOLD)
    }

    pub(crate) fn error(&self) -> Style {
        Style::default().fg(self.error).add_modifier(Modifier::BOLD)
    }

    pub(crate) fn border(&self) -> Style {
        Style::default().fg(self.border)
    }

    /// The selected row; reverse video when colors are off.
    pub(crate) fn selected(&self) -> Style {
        if self.monochrome {
            Style::default().add_modifier(Modifier::REVERSED | Modifier::BOLD)
        } else {
            Style::default().bg(self.selection).add_modifier(Modifier::BOLD)
        }
    }
}

fn user_config_dir() -> Option<PathBuf> {
    std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))
}

pub(crate) fn verdict_style(v: crate::trial::Verdict, theme: &Theme) -> Style {
    match v {
        crate::trial::Verdict::Pass => theme.ok(),
        crate::trial::Verdict::Fail => theme.error(),
        crate::trial::Verdict::Inconclusive | crate::trial::Verdict::InfraError => theme.warn(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_parses() {
        for name in Theme::builtin_names() {
            let t = Theme::builtin(name).expect(name);
            assert_eq!(t.name, name);
        }
    }

    #[test]
    fn user_file_overrides_and_no_color_wins() {
        let dir = tempfile::tempdir().expect("tempdir");
        let themes = dir.path().join("ghostlab/themes");
        std::fs::create_dir_all(&themes).expect("mkdir");
        let text = include_str!("../../themes/light.toml").replace("name = \"light\"", "name = \"mine\"");
        std::fs::write(themes.join("default.toml"), text).expect("write");
        assert_eq!(
            Theme::load_from("default", Some(dir.path()), false).expect("user").name,
            "mine"
        );
        assert_eq!(
            Theme::load_from("light", Some(dir.path()), false)
                .expect("builtin")
                .name,
            "light"
        );
        let mono = Theme::load_from("default", Some(dir.path()), true).expect("no color");
        assert!(mono.monochrome && mono.accent == Color::Reset);
        assert!(Theme::load_from("neon", None, false).is_err());
    }

    #[test]
    fn bad_theme_names_the_key() {
        let e = Theme::parse("t.toml", "[colors]\nfg = \"nope\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("colors.fg"), "{e}");
        let e = Theme::parse("t.toml", "[colors]\nfgg = \"red\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("colors.fgg: unknown key"), "{e}");
    }
}
