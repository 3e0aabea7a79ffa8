//! The word lists behind the risk heuristics: whole lowercase words, matched exactly.
//!
//! Adding a word changes labels and findings of real servers: extend the tests in
//! `labels.rs` with the case that motivated it.

/// Name words that mark a destructive tool.
#[rustfmt::skip]
pub(crate) const DESTRUCTIVE: &[&str] = &[
    "delete", "del", "remove", "rm", "rmdir", "drop", "destroy", "purge", "wipe", "erase", "truncate", "kill",
    "terminate", "revoke", "reset", "overwrite", "unlink", "uninstall", "clear", "shred", "nuke", "prune", "expunge",
    "evict", "discard", "force",
];

/// Name words that mark a tool changing state.
#[rustfmt::skip]
pub(crate) const MUTATING: &[&str] = &[
    "create", "write", "edit", "update", "set", "add", "insert", "put", "patch", "move", "mv", "rename", "copy",
    "cp", "upload", "save", "submit", "commit", "merge", "tag", "deploy", "install", "run", "exec", "execute",
    "start", "stop", "restart", "apply", "enable", "disable", "assign", "approve", "invite", "import", "append",
    "replace", "modify", "change", "make", "mkdir", "touch", "toggle", "schedule", "trigger", "post", "push",
    "publish", "send", "register", "mark", "close", "lock", "unlock", "archive", "restore", "upsert", "store",
    "persist", "sign", "pay", "transfer", "order", "increment", "decrement", "bump", "comment", "reply", "gzip",
    "zip", "compress", "build", "rebase", "reopen",
];

/// Words that move data out of the system (exfiltration or network reach); never read-only.
#[rustfmt::skip]
pub(crate) const EXTERNAL: &[&str] = &[
    "export", "send", "email", "mail", "upload", "publish", "share", "webhook", "http", "https", "url", "web",
    "fetch", "download", "browse", "slack", "tweet", "notify", "sms", "sync", "internet", "curl", "wget", "scrape",
    "crawl",
];

/// Name words that mark a tool only reading.
#[rustfmt::skip]
pub(crate) const READING: &[&str] = &[
    "get", "list", "read", "search", "find", "query", "describe", "show", "view", "lookup", "count", "check",
    "inspect", "stat", "stats", "info", "status", "fetch", "retrieve", "tree", "browse", "diff", "validate",
    "preview", "explain", "summarize", "print", "echo", "ping", "whoami", "log", "logs", "head", "tail", "grep",
    "ls", "cat", "peek", "load",
];

/// Name words that mark a tool producing UI.
#[rustfmt::skip]
pub(crate) const UI: &[&str] = &[
    "ui", "widget", "render", "chart", "dashboard", "visualize", "visualise", "canvas",
];

/// Whole words that mean a credential by themselves (`token` yes, `tokens` no, `auth` yes,
/// `author` no).
#[rustfmt::skip]
pub(crate) const CREDENTIAL_WORDS: &[&str] = &[
    "token", "secret", "secrets", "password", "passwd", "passphrase", "credential", "credentials", "apikey",
    "bearer", "auth", "oauth", "cookie", "pat", "otp", "totp", "jwt",
];

/// Word pairs that mean a credential together (`api key`, `private key`).
#[rustfmt::skip]
pub(crate) const CREDENTIAL_PAIRS: &[(&str, &str)] = &[
    ("api", "key"), ("private", "key"), ("access", "key"), ("secret", "key"), ("ssh", "key"), ("signing", "key"),
    ("client", "secret"), ("session", "id"),
];

/// Description words (inflected) that mark destruction, mutation or reading.
#[rustfmt::skip]
pub(crate) const DESC_DESTRUCTIVE: &[&str] = &[
    "deletes", "delete", "deleting", "removes", "destroys", "permanently", "irreversibly", "irreversible", "erases",
    "wipes", "drops", "purges", "overwrites", "truncates",
];

/// Description words that mark mutation.
#[rustfmt::skip]
pub(crate) const DESC_MUTATING: &[&str] = &[
    "creates", "writes", "updates", "modifies", "sets", "moves", "renames", "saves", "sends", "changes", "inserts",
    "appends", "edits", "publishes", "uploads", "posts", "commits", "pushes", "installs", "executes", "runs",
];

/// Description words (first word only) that mark reading.
#[rustfmt::skip]
pub(crate) const DESC_READING: &[&str] = &[
    "returns", "lists", "reads", "retrieves", "gets", "shows", "searches", "finds", "describes", "fetches", "looks",
    "counts", "echoes", "checks",
];

/// Description words that mark network reach or data leaving the system.
#[rustfmt::skip]
pub(crate) const DESC_EXTERNAL: &[&str] = &[
    "internet", "http", "https", "url", "webhook", "email", "exports", "exfiltrate",
];

/// Name words that contradict `readOnlyHint=true` beyond doubt (weaker verbs like `trigger` or
/// `run` do not: a read-only simulation may well be triggered).
#[rustfmt::skip]
pub(crate) const CLEARLY_CHANGING: &[&str] = &[
    "write", "create", "update", "edit", "set", "insert", "send", "publish", "push", "upload", "move", "rename",
    "save", "commit", "deploy", "install", "merge", "append", "replace", "modify", "mkdir", "post", "pay", "transfer",
];
