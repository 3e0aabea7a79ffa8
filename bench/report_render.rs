//! Report render time for 10, 100 and 1,000 turns: model build, Markdown, HTML and PDF, each
//! the median of several runs, printed as a Markdown table with ratios to the 10-turn case.
//!
//! `cargo bench --bench report_render` (add `--profile dev` for a quick, slower figure).

#[path = "../tests/report/report_support/mod.rs"]
mod report_support;

use ghostlab::redact::Redactor;
use ghostlab::report::{build_report_with, render_html, render_markdown, render_pdf};
use std::time::Instant;

fn median_ms(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn main() {
    let mut rows = Vec::new();
    for turns in [10u32, 100, 1000] {
        let fx = report_support::build_long_run(turns);
        let r = Redactor::for_job(&fx.job);
        let runs = if turns >= 1000 { 3 } else { 7 };
        let build = median_ms(runs, || {
            build_report_with(&fx.job, &fx.run_dir, &r).unwrap();
        });
        let report = build_report_with(&fx.job, &fx.run_dir, &r).unwrap();
        let md = median_ms(runs, || {
            std::hint::black_box(render_markdown(&report));
        });
        let html = median_ms(runs, || {
            std::hint::black_box(r.redact(&render_html(&report)).len());
        });
        let mut pdf_bytes = 0;
        let pdf = median_ms(runs, || {
            pdf_bytes = render_pdf(&report, &r).unwrap().len();
        });
        let html_bytes = render_html(&report).len();
        rows.push((turns, build, md, html, pdf, html_bytes, pdf_bytes));
    }
    let base = rows[0];
    println!("| turns | build model ms | markdown ms | html ms | pdf ms | html KB | pdf KB | pdf time ÷ 10-turn |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (t, b, m, h, p, hb, pb) in &rows {
        println!(
            "| {t} | {b:.1} | {m:.1} | {h:.1} | {p:.1} | {} | {} | {:.1}× |",
            hb / 1024,
            pb / 1024,
            p / base.4
        );
    }
}
