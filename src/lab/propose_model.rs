//! Step 3 proposed: the agent's model from the catalog and the person's usable models, and the
//! lines for Ghostlab's own roles (proposer, emulator, judge).

use super::propose::StepProposer;
use super::propose_error::ProposeError;
use super::types::Proposal;
use crate::spec::Job;

impl StepProposer {
    pub(super) async fn model(&self, job: Job) -> Result<Proposal, ProposeError> {
        // A catalog that cannot list leaves the list empty and says why in the notes.
        let (listed, unlisted) = match self.models.models(job.clone()).await {
            Ok(listed) => (listed, None),
            Err(e) => (
                Vec::new(),
                Some(format!("The configured models could not be listed: {e}")),
            ),
        };
        let usable = self.models.usable(job.clone(), self.job_dir()).await;
        if let (Some(seed), Some(list)) = (&self.seeds.model, &usable)
            && !self.seeds.model_from_cassette
            && !list.contains(seed)
            && !listed.contains(seed)
        {
            return Err(ProposeError::UnusableModel {
                seed: seed.clone(),
                usable: if list.is_empty() {
                    "none".to_string()
                } else {
                    list.join(", ")
                },
            });
        }
        let chosen = self
            .seeds
            .model
            .clone()
            .or_else(|| job.agent.runtime.model.clone())
            .or_else(|| listed.first().cloned())
            .unwrap_or_default();
        let mut notes = vec!["The model the agent under test runs with (provider/model).".to_string()];
        if self.seeds.model_from_cassette {
            notes
                .push("The run serves the agent's model from --agent-cassette: no credential is needed for it.".into());
        }
        notes.extend(unlisted);
        if listed.is_empty() {
            notes.push("No configured models found; type one (e to edit).".into());
        } else {
            notes.push(format!("Configured: {}", listed.join(", ")));
        }
        // The roles' lines before the (long) list of usable models, so they stay on screen.
        let (roles, role_notes) = roles_proposal(&job, &self.seeds.roles, usable.as_deref(), &listed).await?;
        notes.extend(role_notes);
        // Only a catalog that asked the person's OpenCode knows what is usable and why.
        if let Some(list) = usable {
            let shown: Vec<String> = list.iter().take(40).cloned().collect();
            notes.push(format!(
                "Usable with your credentials ({}): {}{}",
                list.len(),
                if shown.is_empty() {
                    "none".to_string()
                } else {
                    shown.join(", ")
                },
                if list.len() > shown.len() { ", …" } else { "" }
            ));
            let mut all = listed.clone();
            all.push(chosen.clone());
            notes.extend(super::usable_models::sources_note(&all));
        }
        Ok(Proposal::new(format!("{chosen}\n{roles}"), notes))
    }
}

/// Step 3's role lines and notes (see `roles_step`), from the same authenticated list as the
/// agent's model (`role_models`); a role flag outside that list is refused with the list. The
/// credential lookup blocks, so it runs on the blocking pool.
async fn roles_proposal(
    job: &Job,
    seeds: &super::roles_step::RoleSeeds,
    usable: Option<&[String]>,
    listed: &[String],
) -> Result<(String, Vec<String>), ProposeError> {
    use super::role_models as rm;
    use super::roles_step as rs;
    let j = job.clone();
    let authed = tokio::task::spawn_blocking(move || rm::authenticated(&j))
        .await
        .unwrap_or_default();
    let models = rm::role_models(usable, listed, &authed);
    for (flag, seed) in [
        ("--proposer-model", &seeds.proposer),
        ("--emulator-model", &seeds.emulator),
        ("--judge-model", &seeds.judge),
    ] {
        if let Some(choice) = seed {
            rm::check_flag(flag, choice, &models)?;
        }
    }
    let choices = rs::choices(job, seeds, &models);
    let shown: Vec<String> = models.iter().take(12).cloned().collect();
    let notes = vec![
        "Ghostlab's own models: proposer (profile, personas, scenarios), emulator (the simulated user), judge."
            .to_string(),
        if models.is_empty() {
            "No model for the roles: no provider key found (role api_key, `ghostlab auth`, ANTHROPIC_API_KEY, \
             OPENAI_API_KEY…); they stay offline."
                .to_string()
        } else {
            format!(
                "Authenticated for the roles: {}. Models ({}): {}{}",
                rm::sources_line(&authed, &models),
                models.len(),
                shown.join(", "),
                if models.len() > shown.len() { ", …" } else { "" }
            )
        },
        format!("`offline` = {}.", rs::OFFLINE_LABEL),
        rs::estimate(job, &choices),
    ];
    Ok((rs::lines(&choices), notes))
}
