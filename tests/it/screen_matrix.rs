//! Every screen of the lab's review steps, of its step 12 run and of `ghostlab view` in every
//! state, at 80×24 and wide, in every theme: the text once per size (themes change colours,
//! never layout: checked here) and, per theme, the style runs of every row.

use ratatui::buffer::Buffer;

use crate::lab_review::fixture;
use crate::lab_review_snapshots::{render as render_lab, review_states, settings, text_of, themes};
use crate::run_screens::{render as render_view, run_states};
use ghostlab::lab::stored_run::StoredRun;
use ghostlab::lab::{Lab, StepId};
use ghostlab::tui::run_view::ViewUi;
use ghostlab::tui::{Theme, Ui};

enum Shown {
    Lab(Box<(Lab, Ui)>),
    View(Box<(StoredRun, ViewUi)>),
}

impl Shown {
    fn render(&self, theme: &Theme, w: u16, h: u16) -> Buffer {
        match self {
            Shown::Lab(b) => render_lab(&b.0, &b.1, theme, w, h),
            Shown::View(b) => render_view(&b.0, &b.1, theme, w, h),
        }
    }
}

/// Each row's runs of one style: `y x0..x1 fg/bg modifiers`.
fn style_runs(buf: &Buffer) -> String {
    let mut out = String::new();
    for y in 0..buf.area.height {
        let mut x0 = 0;
        for x in 1..=buf.area.width {
            let style = buf[(x0, y)].style();
            if x == buf.area.width || buf[(x, y)].style() != style {
                out.push_str(&format!(
                    "{y} {x0}..{x} {:?}/{:?} {:?}\n",
                    style.fg.unwrap_or_default(),
                    style.bg.unwrap_or_default(),
                    style.add_modifier
                ));
                x0 = x;
            }
        }
    }
    out
}

#[test]
fn every_screen_state_size_and_theme() {
    let s = settings();
    let f = fixture();
    let default = Theme::builtin("default").expect("theme");
    let mut all: Vec<(String, (u16, u16), Shown)> = Vec::new();
    for step in [StepId::Profile, StepId::Personas, StepId::Scenarios] {
        for (state, lab, ui) in review_states(&f, step) {
            let name = format!("review_{:02}_{}_{state}", step.number(), step.id());
            all.push((name, (140, 40), Shown::Lab(Box::new((lab, ui)))));
        }
    }
    for (state, lab) in crate::lab_snapshots::step_12_states() {
        all.push((
            format!("preview_12_{state}"),
            (140, 40),
            Shown::Lab(Box::new((lab, Ui::default()))),
        ));
    }
    for (state, run, ui) in run_states() {
        all.push((format!("run_{state}"), (160, 40), Shown::View(Box::new((run, ui)))));
    }
    for (name, wide, shown) in all {
        for (w, h) in [(80, 24), wide] {
            let text = text_of(&shown.render(&default, w, h));
            s.bind(|| insta::assert_snapshot!(format!("{name}_{w}x{h}"), text));
            for theme in themes() {
                let buf = shown.render(&theme, w, h);
                assert_eq!(text_of(&buf), text, "{name} {w}x{h} in theme {}", theme.name);
                let styled = format!("{name}_{w}x{h}_{}", theme.name);
                s.bind(|| insta::assert_snapshot!(styled, style_runs(&buf)));
            }
        }
    }
}
