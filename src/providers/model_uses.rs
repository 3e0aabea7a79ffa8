//! Where the job names a model: each use with its job key, grouped by provider, and the
//! provider block (the override's or the job's) that configures it.

use indexmap::IndexMap;
use serde_json::Value;

use crate::spec::LoadedJob;
use crate::spec::agent::Provider;

/// One place the job names a model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelUse {
    /// The job key (or flag) that names it, e.g. `agent.runtime.model`.
    pub(crate) key: String,
    /// `provider/model`.
    pub(crate) model: String,
}

impl ModelUse {
    /// The provider id: the part before the first `/`.
    pub(crate) fn provider(&self) -> &str {
        self.model.split_once('/').map(|(p, _)| p).unwrap_or(&self.model)
    }
}

/// A model override from `--agent-cassette`: (provider id, provider config, model).
pub(crate) type Override = (String, Value, String);

/// Every model the agent may call: `runtime.model`, `small_model` and each agent's `model`;
/// with an override, the override replaces the first two (as the emitted config does).
pub fn models_used(job: &LoadedJob, override_: Option<&Override>) -> Vec<ModelUse> {
    let rt = &job.job.agent.runtime;
    let mut out = Vec::new();
    match override_ {
        Some((id, _, model)) => out.push(ModelUse {
            key: "--agent-cassette".into(),
            model: format!("{id}/{model}"),
        }),
        None => {
            for (key, m) in [("model", &rt.model), ("small_model", &rt.small_model)] {
                if let Some(m) = m {
                    out.push(ModelUse {
                        key: format!("agent.runtime.{key}"),
                        model: m.clone(),
                    });
                }
            }
        }
    }
    for (name, def) in &rt.agents {
        if let Some(m) = &def.model {
            out.push(ModelUse {
                key: format!("agent.runtime.agents.{name}.model"),
                model: m.clone(),
            });
        }
    }
    out
}

/// The provider block for `id`: the override's, else the job's `agent.runtime.provider.<id>`.
pub(crate) fn provider_block(job: &LoadedJob, override_: Option<&Override>, id: &str) -> Option<Provider> {
    if let Some((oid, cfg, _)) = override_
        && oid == id
    {
        return Some(Provider {
            npm: cfg.get("npm").and_then(Value::as_str).map(str::to_string),
            options: cfg
                .get("options")
                .and_then(Value::as_object)
                .map(|o| {
                    o.iter()
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect::<IndexMap<_, _>>()
                })
                .unwrap_or_default(),
            ..Provider::default()
        });
    }
    job.job.agent.runtime.provider.get(id).cloned()
}

/// Models grouped by provider, in the order the job names them.
pub(crate) fn by_provider(uses: &[ModelUse]) -> IndexMap<String, Vec<ModelUse>> {
    let mut map: IndexMap<String, Vec<ModelUse>> = IndexMap::new();
    for u in uses {
        let list = map.entry(u.provider().to_string()).or_default();
        if !list.iter().any(|x| x.model == u.model) {
            list.push(u.clone());
        }
    }
    map
}
