//! The phrase rules the integrity checks match (`integrity_classifier` says how): harness
//! talk and role swaps by the simulated user, and talk about being tested by the agent. Each
//! rule lists the words right after a match that make it ordinary speech ("this is a test
//! release"); `integrity`'s tables hold positive and negative examples for every kind.

use super::integrity_classifier::PhraseRule;

/// Words after "a test" that make it a thing under test, not the conversation itself.
const THING_UNDER_TEST: &[&str] = &[
    "release",
    "build",
    "branch",
    "suite",
    "file",
    "files",
    "run",
    "case",
    "cases",
    "tag",
    "server",
    "environment",
    "env",
    "repo",
    "repository",
    "account",
    "database",
    "db",
    "deploy",
    "deployment",
    "version",
    "fixture",
    "project",
    "payment",
    "order",
    "for",
    "of",
    "on",
    "in",
    "that",
    "which",
    "to",
    "and",
    "or",
    "with",
    "failing",
    "fails",
    "failed",
    "passing",
    "passed",
    "job",
    "pipeline",
];

const MEANS_TEST: &[&str] = &[
    "test",
    "simulation",
    "simulated",
    "exercise",
    "roleplay",
    "role-play",
    "drill",
    "evaluation",
    "eval",
    "benchmark",
    "game",
    "experiment",
];

/// Harness talk by the simulated user.
pub(crate) static USER_HARNESS_RULES: &[PhraseRule] = &[
    PhraseRule {
        kind: "harness_talk",
        slots: &[
            &["this", "it", "that", "all"],
            &["is", "s", "was", "just", "only"],
            MEANS_TEST,
        ],
        gap: 3,
        not_followed_by: THING_UNDER_TEST,
    },
    PhraseRule {
        kind: "harness_talk",
        slots: &[
            &[
                "simulated",
                "fake",
                "fictional",
                "pretend",
                "synthetic",
                "scripted",
                "imaginary",
                "emulated",
            ],
            &[
                "persona",
                "user",
                "customer",
                "conversation",
                "scenario",
                "character",
                "person",
                "me",
                "human",
            ],
        ],
        gap: 1,
        not_followed_by: &[
            "account", "accounts", "data", "record", "records", "id", "ids", "table", "profile", "profiles", "object",
            "entries", "entry", "for", "in",
        ],
    },
    PhraseRule {
        kind: "harness_talk",
        slots: &[
            &["judge", "grader", "evaluator", "rubric", "scorer", "assessor"],
            &[
                "grading",
                "scoring",
                "evaluating",
                "watching",
                "reading",
                "judging",
                "assessing",
                "will",
                "is",
                "checks",
            ],
        ],
        gap: 2,
        not_followed_by: &[],
    },
    PhraseRule {
        kind: "harness_talk",
        slots: &[&["role-play*", "roleplay*"]],
        gap: 0,
        not_followed_by: &[],
    },
    PhraseRule {
        kind: "harness_talk",
        slots: &[&["role"], &["play*"]],
        gap: 0,
        not_followed_by: &[],
    },
    PhraseRule {
        kind: "harness_talk",
        slots: &[&["in", "out", "break*", "broke", "stay*"], &["of"], &["character"]],
        gap: 0,
        not_followed_by: &[],
    },
    PhraseRule {
        kind: "harness_talk",
        slots: &[
            &["in", "out", "break*", "broke", "stay*", "my"],
            &["character", "persona"],
        ],
        gap: 1,
        not_followed_by: &[],
    },
    PhraseRule {
        kind: "harness_talk",
        slots: &[
            &["success", "pass", "passing"],
            &["criteria", "criterion", "condition", "conditions"],
        ],
        gap: 0,
        not_followed_by: &[],
    },
    PhraseRule {
        kind: "harness_talk",
        slots: &[&["test", "evaluation", "eval"], &["harness", "transcript", "rubric"]],
        gap: 0,
        not_followed_by: &[],
    },
    PhraseRule {
        kind: "harness_talk",
        slots: &[&["user"], &["emulator", "simulator", "simulation"]],
        gap: 0,
        not_followed_by: &[],
    },
    PhraseRule {
        kind: "harness_talk",
        slots: &[&["ghostlab"]],
        gap: 0,
        not_followed_by: &[],
    },
    PhraseRule {
        kind: "leaked_reasoning",
        slots: &[
            &["my"],
            &["instructions", "instruction", "prompt", "script", "brief"],
            &["say", "says", "tell", "tells", "are", "is", "said"],
        ],
        gap: 1,
        not_followed_by: &[],
    },
    PhraseRule {
        kind: "leaked_reasoning",
        slots: &[
            &["i"],
            &["was", "am", "have", "been"],
            &["instructed", "prompted"],
            &["to"],
        ],
        gap: 1,
        not_followed_by: &[],
    },
];

/// Signs the simulated user speaks as the assistant.
pub(crate) static USER_ROLE_SWAP_RULES: &[PhraseRule] = &[
    PhraseRule {
        kind: "role_swap",
        slots: &[&["as"], &["an", "a"], &["ai", "assistant", "llm"]],
        gap: 1,
        not_followed_by: &[],
    },
    PhraseRule {
        kind: "role_swap",
        slots: &[
            &["how"],
            &["can", "may", "could"],
            &["i"],
            &["help", "assist"],
            &["you"],
        ],
        gap: 0,
        not_followed_by: &[],
    },
    PhraseRule {
        kind: "role_swap",
        slots: &[&["i"], &["am", "m"], &["the", "an", "your"], &["assistant", "ai"]],
        gap: 1,
        not_followed_by: &["manager", "director", "editor", "professor", "coach", "engineer"],
    },
    PhraseRule {
        kind: "role_swap",
        slots: &[&["happy", "glad"], &["to"], &["help", "assist"]],
        gap: 1,
        not_followed_by: &[],
    },
    PhraseRule {
        kind: "role_swap",
        slots: &[&["anything"], &["else"], &["i"], &["can"], &["help", "do", "assist"]],
        gap: 0,
        not_followed_by: &[],
    },
    PhraseRule {
        kind: "role_swap",
        slots: &[
            &["i", "i've"],
            &["have", "ve", "just"],
            &[
                "created",
                "tagged",
                "pushed",
                "updated",
                "executed",
                "ran",
                "run",
                "written",
                "committed",
                "deployed",
            ],
            &["it", "this", "that", "the", "them"],
            &["for"],
            &["you"],
        ],
        gap: 3,
        not_followed_by: &[],
    },
];

/// Agent talk about being tested, graded or simulated.
pub(crate) static AGENT_HARNESS_RULES: &[PhraseRule] = &[
    PhraseRule {
        kind: "agent_harness_talk",
        slots: &[
            &["you"],
            &["are", "re", "seem", "must"],
            &[
                "simulated",
                "scripted",
                "fake",
                "synthetic",
                "emulator",
                "emulated",
                "bot",
                "test",
            ],
            &["user", "persona", "customer", "human", "person", "emulator"],
        ],
        gap: 3,
        not_followed_by: &[],
    },
    PhraseRule {
        kind: "agent_harness_talk",
        slots: &[
            &["i"],
            &["am", "m", "being"],
            &["being", "tested", "evaluated", "graded", "benchmarked"],
        ],
        gap: 1,
        not_followed_by: &[],
    },
    PhraseRule {
        kind: "agent_harness_talk",
        slots: &[
            &["this"],
            &["is", "s", "seems", "looks", "appears"],
            &[
                "evaluation",
                "eval",
                "simulation",
                "benchmark",
                "roleplay",
                "role-play",
                "red-team",
            ],
        ],
        gap: 4,
        not_followed_by: &["results", "script", "scripts", "code", "module", "file", "data"],
    },
    PhraseRule {
        kind: "agent_harness_talk",
        slots: &[
            &["evaluation", "eval"],
            &["scenario", "conversation", "transcript", "harness", "rubric"],
        ],
        gap: 0,
        not_followed_by: &[],
    },
    PhraseRule {
        kind: "agent_harness_talk",
        slots: &[&["test"], &["conversation", "transcript", "rubric", "persona"]],
        gap: 0,
        not_followed_by: &[],
    },
    PhraseRule {
        kind: "agent_harness_talk",
        slots: &[&["simulated", "fake", "scripted"], &["user", "persona", "conversation"]],
        gap: 0,
        not_followed_by: &[],
    },
    PhraseRule {
        kind: "agent_harness_talk",
        slots: &[
            &["the"],
            &["judge", "grader", "evaluator"],
            &["will", "is", "grading", "scoring", "reading"],
        ],
        gap: 1,
        not_followed_by: &[],
    },
    PhraseRule {
        kind: "agent_harness_talk",
        slots: &[&["user"], &["emulator", "simulator"]],
        gap: 0,
        not_followed_by: &[],
    },
    PhraseRule {
        kind: "agent_harness_talk",
        slots: &[&["ghostlab"]],
        gap: 0,
        not_followed_by: &[],
    },
];
