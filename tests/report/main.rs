//! Report tests. A binary of their own because they set `RELEASE_TOKEN` to a canary value in the
//! process environment, which must not leak into the other integration tests.

mod report_long;
mod report_many;
mod report_render;
mod report_support;
