//! `.nan`, `.inf` and `-.inf` in YAML: no key of a job or a frontmatter takes them, and the
//! conversion to JSON would silently make them null (unset), so they are refused up front
//! with the key path.

use std::path::Path;

use super::diagnostics::{Diagnostic, diag, index, join};

/// Pushes one diagnostic for every NaN or infinite number under `value`.
pub(crate) fn find_non_finite(file: &Path, value: &yaml_serde::Value, at: &str, ds: &mut Vec<Diagnostic>) {
    match value {
        yaml_serde::Value::Number(n) => {
            if let Some(f) = n.as_f64().filter(|f| !f.is_finite()) {
                let what = if f.is_nan() { "NaN" } else { "infinite" };
                ds.push(diag(file, at, format!("`{n}` is {what}; a number here must be finite")));
            }
        }
        yaml_serde::Value::Sequence(items) => {
            for (i, v) in items.iter().enumerate() {
                find_non_finite(file, v, &index(at, i), ds);
            }
        }
        yaml_serde::Value::Mapping(map) => {
            for (k, v) in map {
                let key = match k {
                    yaml_serde::Value::String(s) => s.clone(),
                    other => format!("{other:?}"),
                };
                find_non_finite(file, v, &join(at, &key), ds);
            }
        }
        yaml_serde::Value::Tagged(t) => find_non_finite(file, &t.value, at, ds),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_non_finite_number_is_found_with_its_path() {
        let y: yaml_serde::Value = yaml_serde::from_str("a:\n  t: .nan\n  l: [1, .inf, -.inf]\nok: 1.5\n").unwrap();
        let mut ds = Vec::new();
        find_non_finite(Path::new("j.yaml"), &y, "", &mut ds);
        let paths: Vec<&str> = ds.iter().map(|d| d.path.as_str()).collect();
        assert_eq!(paths, ["a.t", "a.l[1]", "a.l[2]"]);
        assert!(ds[0].message.contains("NaN") && ds[1].message.contains("infinite"));
    }
}
