//! Commands as a shell would run them, so `forbidden_commands` patterns see `git push` in
//! `git -C repo push`, `env A=b /usr/bin/git push`, `sh -c 'git push'`, `bash -lc "…"` or
//! `make && git push`. A pattern written for the plain command then matches every spelling.
//!
//! This is a lexer for the common forms, not a shell: it splits on `;`, `&&`, `||`, `|`, `&`
//! and newlines outside quotes, drops environment prefixes and wrappers, takes the base name
//! of the program, unwraps `sh -c` scripts (nested too) and drops git's global options.

/// Wrappers that run the rest of the line as a command.
const WRAPPERS: &[&str] = &[
    "env", "sudo", "command", "exec", "nohup", "time", "nice", "doas", "builtin",
];
const SHELLS: &[&str] = &["sh", "bash", "dash", "zsh", "ksh", "ash", "busybox"];
/// How deep `sh -c "sh -c '…'"` is unwrapped.
const MAX_DEPTH: usize = 4;

/// Splits shell text into simple commands, outside quotes, into their words.
fn split(text: &str) -> Vec<Vec<String>> {
    let mut commands = Vec::new();
    let (mut words, mut word, mut in_word) = (Vec::new(), String::new(), false);
    let mut chars = text.chars().peekable();
    let end_word = |words: &mut Vec<String>, word: &mut String, in_word: &mut bool| {
        if *in_word {
            words.push(std::mem::take(word));
            *in_word = false;
        }
    };
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    word.push(q);
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => word.extend(chars.next()),
                        q => word.push(q),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.extend(chars.next().filter(|n| *n != '\n'));
            }
            ';' | '&' | '|' | '\n' | '(' | ')' | '`' => {
                end_word(&mut words, &mut word, &mut in_word);
                if !words.is_empty() {
                    commands.push(std::mem::take(&mut words));
                }
            }
            c if c.is_whitespace() => end_word(&mut words, &mut word, &mut in_word),
            '$' if chars.peek() == Some(&'(') => {
                chars.next();
                end_word(&mut words, &mut word, &mut in_word);
                if !words.is_empty() {
                    commands.push(std::mem::take(&mut words));
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    end_word(&mut words, &mut word, &mut in_word);
    if !words.is_empty() {
        commands.push(words);
    }
    commands
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=')
        .is_some_and(|(k, _)| !k.is_empty() && k.chars().all(|c| c == '_' || c.is_ascii_alphanumeric()))
}

fn base_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// Drops git's global options (`-C dir`, `-c k=v`, `--git-dir=…`, `--no-pager`, …).
fn git_subcommand(words: &[String]) -> Vec<String> {
    let mut i = 0;
    while i < words.len() {
        let w = words[i].as_str();
        match w {
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--exec-path" => i += 2,
            _ if w.starts_with('-') => i += 1,
            _ => break,
        }
    }
    words[i.min(words.len())..].to_vec()
}

fn normalise(mut words: Vec<String>, depth: usize, out: &mut Vec<String>) {
    loop {
        while words.first().is_some_and(|w| is_assignment(w)) {
            words.remove(0);
        }
        let Some(first) = words.first() else { return };
        if WRAPPERS.contains(&base_name(first)) {
            words.remove(0);
            // The wrapper's own options (`env -i`, `sudo -u x`, `nice -n 5`).
            while words.first().is_some_and(|w| w.starts_with('-')) {
                let takes_value = matches!(words[0].as_str(), "-u" | "-n" | "-g" | "-C" | "-S");
                words.remove(0);
                if takes_value && !words.is_empty() {
                    words.remove(0);
                }
            }
            continue;
        }
        break;
    }
    let program = base_name(&words[0]).to_string();
    if SHELLS.contains(&program.as_str()) && depth < MAX_DEPTH {
        let script = words
            .iter()
            .position(|w| w.starts_with('-') && !w.starts_with("--") && w.contains('c'))
            .and_then(|i| words.get(i + 1));
        if let Some(script) = script {
            for inner in split(script) {
                normalise(inner, depth + 1, out);
            }
            return;
        }
    }
    let rest = if program == "git" {
        git_subcommand(&words[1..])
    } else {
        words[1..].to_vec()
    };
    let mut line = program;
    for w in rest {
        line.push(' ');
        line.push_str(&w);
    }
    out.push(line);
}

/// Every simple command in `text`, normalised: `git -C x push -f` → `git push -f`.
pub(crate) fn simple_commands(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for words in split(text) {
        normalise(words, 0, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_of_a_push_become_the_plain_command() {
        let table: &[(&str, &str)] = &[
            ("git -C /sandbox/workspace push origin main", "git push origin main"),
            ("env GIT_TRACE=1 git push", "git push"),
            ("A=b B=c /usr/bin/git push --force", "git push --force"),
            ("sh -c 'git push origin v1'", "git push origin v1"),
            ("bash -lc \"cd repo && git push\"", "git push"),
            ("make test; git -c user.name=x tag v1", "git tag v1"),
            ("true || git --no-pager push", "git push"),
            ("sudo -u me git push", "git push"),
            ("echo $(git push)", "git push"),
            ("sh -c \"bash -c 'git push'\"", "git push"),
            ("git\\\n push", "git push"),
        ];
        for (text, want) in table {
            let got = simple_commands(text);
            assert!(got.iter().any(|c| c == want), "{text} → {got:?}, wanted {want}");
        }
    }

    #[test]
    fn ordinary_commands_stay_themselves() {
        assert_eq!(simple_commands("git status"), vec!["git status"]);
        assert_eq!(
            simple_commands("echo 'git push; is a phrase'"),
            vec!["echo git push; is a phrase"]
        );
        assert!(simple_commands("").is_empty());
        assert_eq!(simple_commands("ls -la | wc -l"), vec!["ls -la", "wc -l"]);
    }
}
