//! Prices of models, from a snapshot of OpenCode's catalog checked in as data
//! (`catalog_prices.json`: its source, OpenCode version and date are in the file).
//!
//! Cost = tokens × price. A model missing from the snapshot has an unknown price: callers show
//! "unknown", never $0.

use std::sync::OnceLock;

use serde::Deserialize;

/// USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct Price {
    pub(crate) input: f64,
    pub(crate) output: f64,
    #[serde(default)]
    pub(crate) cache_read: Option<f64>,
    #[serde(default)]
    pub(crate) cache_write: Option<f64>,
}

impl Price {
    /// The cost of one call in USD.
    pub fn cost(&self, prompt_tokens: u64, completion_tokens: u64) -> f64 {
        (prompt_tokens as f64 * self.input + completion_tokens as f64 * self.output) / 1_000_000.0
    }
}

/// One model of the snapshot.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub(crate) struct CatalogModel {
    pub(crate) provider: String,
    pub(crate) model: String,
    #[serde(flatten)]
    pub(crate) price: Price,
    #[serde(default)]
    pub(crate) release_date: Option<String>,
}

/// The snapshot file; its `version` and `source` (where the prices come from) are for people
/// reading the file.
#[derive(Deserialize)]
struct Snapshot {
    models: Vec<CatalogModel>,
}

static SNAPSHOT: OnceLock<Snapshot> = OnceLock::new();

fn snapshot() -> &'static Snapshot {
    SNAPSHOT.get_or_init(|| {
        // A broken snapshot is a build defect; the unit test below parses it, so this cannot
        // ship broken.
        serde_json::from_str(include_str!("catalog_prices.json")).expect("catalog_prices.json parses")
    })
}

/// The models of `provider` in the snapshot.
pub(crate) fn models_of(provider: &str) -> Vec<&'static CatalogModel> {
    snapshot().models.iter().filter(|m| m.provider == provider).collect()
}

/// The price of `provider/model`, if the snapshot has it.
pub fn price(provider: &str, model: &str) -> Option<Price> {
    snapshot()
        .models
        .iter()
        .find(|m| m.provider == provider && m.model == model)
        .map(|m| m.price)
}

/// Among `provider`'s models that `keep` accepts (those a person can use), the cheapest and the
/// strongest (highest input price, newest on a tie; `-fast` priority variants are the same
/// model at a premium, so they are skipped).
pub(crate) fn cheapest_and_strongest_in(
    provider: &str,
    keep: impl Fn(&str) -> bool,
) -> Option<(&'static CatalogModel, &'static CatalogModel)> {
    let models: Vec<_> = models_of(provider)
        .into_iter()
        .filter(|m| !m.model.ends_with("-fast") && m.price.output > 0.0 && keep(&m.model))
        .collect();
    let key = |m: &&CatalogModel| m.release_date.clone().unwrap_or_default();
    let cheapest = models.iter().copied().min_by(|a, b| {
        (a.price.input + a.price.output)
            .total_cmp(&(b.price.input + b.price.output))
            .then_with(|| key(b).cmp(&key(a)))
    })?;
    let strongest = models.iter().copied().max_by(|a, b| {
        a.price
            .input
            .total_cmp(&b.price.input)
            .then_with(|| key(a).cmp(&key(b)))
    })?;
    Some((cheapest, strongest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshot_parses_and_prices_multiply() {
        let haiku = price("anthropic", "claude-haiku-4-5").expect("haiku is in the snapshot");
        assert_eq!((haiku.input, haiku.output), (1.0, 5.0));
        assert!((haiku.cost(1_000_000, 200_000) - 2.0).abs() < 1e-9);
        assert_eq!(price("anthropic", "no-such-model"), None);
    }

    #[test]
    fn cheap_and_strong_picks() {
        let (cheap, strong) = cheapest_and_strongest_in("anthropic", |_| true).expect("anthropic models");
        assert!(cheap.price.input <= strong.price.input);
        assert!(!strong.model.ends_with("-fast"));
        assert_eq!(cheapest_and_strongest_in("nobody", |_| true), None);
        let (cheap, strong) = cheapest_and_strongest_in("anthropic", |m| m == "claude-haiku-4-5").unwrap();
        assert_eq!(
            (cheap.model.as_str(), strong.model.as_str()),
            ("claude-haiku-4-5", "claude-haiku-4-5")
        );
    }
}
