//! GitHub's ingestion rules for third-party SARIF, written from its "SARIF support for code
//! scanning" and "SARIF results exceed limits" pages, as a check `tests/it/sarif_github.rs`
//! applies to `ghostlab lint`'s SARIF; and proof that the check refuses what GitHub refuses.

use serde_json::Value;

/// Turns a valid document into one a consumer must refuse.
type Breaks = fn(&mut Value);

/// GitHub's ingestion rules for third-party SARIF, from its "SARIF support for code scanning"
/// and "SARIF results exceed limits" pages: what a file must hold for every alert to show
/// with its help, severity, location and a stable identity.
pub(crate) fn github_ingestion_problems(sarif: &Value) -> Vec<String> {
    let mut out = Problems(Vec::new());
    let runs = sarif["runs"].as_array().cloned().unwrap_or_default();
    out.check(sarif["version"] == "2.1.0", "version is not 2.1.0".into());
    out.check((1..=20).contains(&runs.len()), format!("{} runs (1–20)", runs.len()));
    for (r, run) in runs.iter().enumerate() {
        out.run(r, run);
    }
    out.0
}

/// What a SARIF log breaks of GitHub's rules, one line each.
struct Problems(Vec<String>);

/// A text property that is there and not blank.
fn has_text(v: &Value) -> bool {
    v["text"].as_str().is_some_and(|t| !t.trim().is_empty())
}

impl Problems {
    fn check(&mut self, ok: bool, what: String) {
        if !ok {
            self.0.push(what);
        }
    }

    /// The limits of run `r`, its rules, its base URIs and its results.
    fn run(&mut self, r: usize, run: &Value) {
        let rules = run["tool"]["driver"]["rules"].as_array().cloned().unwrap_or_default();
        let results = run["results"].as_array().cloned().unwrap_or_default();
        self.check(
            results.len() <= 25_000,
            format!("run {r}: {} results (≤ 25,000)", results.len()),
        );
        self.check(
            rules.len() <= 25_000,
            format!("run {r}: {} rules (≤ 25,000)", rules.len()),
        );
        let extensions = run["tool"]["extensions"].as_array().map_or(0, Vec::len);
        self.check(extensions <= 100, format!("run {r}: {extensions} extensions (≤ 100)"));
        for rule in &rules {
            self.rule(rule);
        }
        let bases = run["originalUriBaseIds"].as_object().cloned().unwrap_or_default();
        for (name, base) in &bases {
            let uri = base["uri"].as_str().unwrap_or("");
            self.check(
                uri.starts_with("file:///") && uri.ends_with('/'),
                format!("base {name}: {uri} is not an absolute folder URI"),
            );
        }
        for (i, result) in results.iter().enumerate() {
            self.result(i, result, &rules, &bases);
        }
    }

    /// A rule's descriptions, help, tags and security severity.
    fn rule(&mut self, rule: &Value) {
        let id = rule["id"].as_str().unwrap_or("?");
        self.check(
            has_text(&rule["shortDescription"]),
            format!("rule {id}: no shortDescription"),
        );
        self.check(
            has_text(&rule["fullDescription"]),
            format!("rule {id}: no fullDescription (GH2012)"),
        );
        self.check(has_text(&rule["help"]), format!("rule {id}: no help.text (GH2012)"));
        self.check(
            rule["help"]["markdown"].as_str().is_some_and(|m| !m.is_empty()),
            format!("rule {id}: no help.markdown"),
        );
        let tags: Vec<&str> = rule["properties"]["tags"]
            .as_array()
            .map(|t| t.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        self.check(tags.len() <= 20, format!("rule {id}: {} tags (≤ 20)", tags.len()));
        if let Some(s) = rule["properties"].get("security-severity") {
            let n = s.as_str().and_then(|s| s.parse::<f64>().ok());
            self.check(
                n.is_some_and(|n| (0.0..=10.0).contains(&n)),
                format!("rule {id}: security-severity {s} is not a numeric string 0–10"),
            );
            self.check(
                tags.contains(&"security"),
                format!("rule {id}: security-severity without the `security` tag"),
            );
        }
    }

    /// Result `i`: a rule of the run, a message, its locations and its fingerprints.
    fn result(&mut self, i: usize, result: &Value, rules: &[Value], bases: &serde_json::Map<String, Value>) {
        let rule_id = result["ruleId"].as_str().unwrap_or("");
        self.check(
            rules.iter().any(|r| r["id"] == rule_id),
            format!("result {i}: rule `{rule_id}` not in the run"),
        );
        self.check(has_text(&result["message"]), format!("result {i}: no message.text"));
        let locations = result["locations"].as_array().cloned().unwrap_or_default();
        self.check(
            (1..=1000).contains(&locations.len()),
            format!("result {i}: {} locations (1–1000)", locations.len()),
        );
        for l in &locations {
            self.location(i, l, bases);
        }
        let prints = result["partialFingerprints"].as_object().cloned().unwrap_or_default();
        self.check(
            !prints.is_empty() && prints.values().all(|v| v.as_str().is_some_and(|s| !s.is_empty())),
            format!("result {i}: no partialFingerprints"),
        );
    }

    /// A location of result `i`: a relative URI on a declared base, a start line and column.
    fn location(&mut self, i: usize, l: &Value, bases: &serde_json::Map<String, Value>) {
        let artifact = &l["physicalLocation"]["artifactLocation"];
        let uri = artifact["uri"].as_str().unwrap_or("");
        self.check(
            !uri.is_empty() && !uri.starts_with('/') && !uri.contains("://") && !uri.contains(':'),
            format!("result {i}: uri `{uri}` is not relative"),
        );
        let base = artifact["uriBaseId"].as_str().unwrap_or("");
        self.check(
            bases.contains_key(base),
            format!("result {i}: uriBaseId `{base}` is not declared"),
        );
        let region = &l["physicalLocation"]["region"];
        self.check(
            region["startLine"].as_u64().is_some_and(|n| n >= 1),
            format!("result {i}: no region.startLine"),
        );
        self.check(
            region["startColumn"].as_u64().is_some_and(|n| n >= 1),
            format!("result {i}: no region.startColumn"),
        );
    }
}

/// Broken copies of a good log that each ingestion rule must catch.
#[test]
fn the_ingestion_check_catches_what_github_refuses() {
    let tmp = tempfile::tempdir().unwrap();
    let good = crate::sarif_github::lint_checkout(tmp.path());
    let breaks: [(&str, Breaks); 6] = [
        ("no fullDescription", |s| {
            s["runs"][0]["tool"]["driver"]["rules"][0]
                .as_object_mut()
                .unwrap()
                .remove("fullDescription");
        }),
        ("severity as a word", |s| {
            s["runs"][0]["tool"]["driver"]["rules"][16]["properties"]["security-severity"] = "high".into()
        }),
        ("severity above 10", |s| {
            s["runs"][0]["tool"]["driver"]["rules"][16]["properties"]["security-severity"] = "11.0".into()
        }),
        ("an absolute uri", |s| {
            s["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] =
                "/tmp/x.json".into()
        }),
        ("no region", |s| {
            s["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
                .as_object_mut()
                .unwrap()
                .remove("region");
        }),
        ("no fingerprints", |s| {
            s["runs"][0]["results"][0]
                .as_object_mut()
                .unwrap()
                .remove("partialFingerprints");
        }),
    ];
    for (what, brk) in breaks {
        let mut s = good.clone();
        brk(&mut s);
        assert!(!github_ingestion_problems(&s).is_empty(), "{what} passed the check");
    }
}
