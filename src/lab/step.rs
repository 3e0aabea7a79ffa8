//! The twelve wizard steps, in order, with their stable ids (the ids stored in `lab.completed`).

use serde::{Deserialize, Serialize};

/// One step of `ghostlab lab`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepId {
    Source,
    Purpose,
    Model,
    Mcps,
    Skills,
    Permissions,
    Sandbox,
    Profile,
    Personas,
    Scenarios,
    Gates,
    Preview,
}

impl StepId {
    /// Every step in wizard order.
    pub const ALL: [StepId; 12] = [
        StepId::Source,
        StepId::Purpose,
        StepId::Model,
        StepId::Mcps,
        StepId::Skills,
        StepId::Permissions,
        StepId::Sandbox,
        StepId::Profile,
        StepId::Personas,
        StepId::Scenarios,
        StepId::Gates,
        StepId::Preview,
    ];

    /// The id written to `job.lab.completed`.
    pub fn id(self) -> &'static str {
        match self {
            StepId::Source => "source",
            StepId::Purpose => "purpose",
            StepId::Model => "model",
            StepId::Mcps => "mcps",
            StepId::Skills => "skills",
            StepId::Permissions => "permissions",
            StepId::Sandbox => "sandbox",
            StepId::Profile => "profile",
            StepId::Personas => "personas",
            StepId::Scenarios => "scenarios",
            StepId::Gates => "gates",
            StepId::Preview => "preview",
        }
    }

    /// The title shown in the step list.
    pub fn title(self) -> &'static str {
        match self {
            StepId::Source => "Source",
            StepId::Purpose => "Purpose",
            StepId::Model => "Model",
            StepId::Mcps => "MCPs",
            StepId::Skills => "Skills & instructions",
            StepId::Permissions => "Permissions & tools",
            StepId::Sandbox => "Sandbox",
            StepId::Profile => "Profile",
            StepId::Personas => "Personas",
            StepId::Scenarios => "Scenarios",
            StepId::Gates => "Gates",
            StepId::Preview => "Preview & run",
        }
    }

    /// 1-based position.
    pub fn number(self) -> usize {
        self.index() + 1
    }

    /// 0-based position.
    pub fn index(self) -> usize {
        StepId::ALL.iter().position(|s| *s == self).unwrap_or(0)
    }

    /// The step after this one, if any.
    pub fn next(self) -> Option<StepId> {
        StepId::ALL.get(self.index() + 1).copied()
    }

    /// The step before this one, if any.
    pub(crate) fn prev(self) -> Option<StepId> {
        self.index().checked_sub(1).map(|i| StepId::ALL[i])
    }

    /// Steps whose accepted answer is a generated artifact kept in the state folder.
    pub fn artifact_file(self) -> Option<&'static str> {
        match self {
            StepId::Profile => Some("profile.json"),
            StepId::Personas => Some("personas.json"),
            StepId::Scenarios => Some("scenarios.json"),
            _ => None,
        }
    }
}
