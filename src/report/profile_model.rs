//! The data of section 2, the inferred purpose profile (`profile_section` reads it from
//! agent-profile.json and lays each part out as a table). A leaf: the report model holds it.

use serde::Serialize;

/// Section 2 of the report.
#[derive(Debug, Clone, Serialize)]
pub struct ProfileSection {
    pub file: String,
    pub present: bool,
    /// Purpose, audience and where the purpose came from.
    pub about: Vec<(String, String)>,
    pub workflows: Vec<ProfileWorkflow>,
    /// Highest severity first, in the file's order within a severity.
    pub risks: Vec<ProfileRisk>,
    /// (what, id, sources) of each kind of request the agent should decline.
    pub out_of_scope: Vec<[String; 3]>,
    /// (input kind, what was read) from the profile's `evidence`.
    pub inputs: Vec<(String, String)>,
    /// Fields this build does not know, as (depth, line).
    pub other: Vec<(usize, String)>,
}

/// One workflow: its steps, the capabilities they use and where it was read.
#[derive(Debug, Clone, Serialize)]
pub struct ProfileWorkflow {
    pub id: String,
    pub name: String,
    pub steps: Vec<String>,
    pub uses: Vec<String>,
    /// `file § heading; server.tool`: each place the workflow was read, once.
    pub sources: String,
}

/// One entry of the risk surface.
#[derive(Debug, Clone, Serialize)]
pub struct ProfileRisk {
    pub id: String,
    pub risk: String,
    pub severity: String,
    /// The tool, permission or skill that could cause it.
    pub capability: String,
    pub why: String,
}
