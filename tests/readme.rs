//! The README's examples, run as a new user would: every `sitesim` command of its `sh`
//! blocks, in a scratch copy of the repository with `../shared` beside it, must succeed
//! and write nowhere but under `results/`, so that the README followed by `cargo test`
//! leaves the tests green (they read only the files the repository ships).
//!
//! `LOG` stands for the KTH log. The commands run as written but smaller, with the debug
//! build's time in mind: replications cut to 2, weeks to 4, and a scenario run given
//! `--replications 2 --set duration=6w --set metrics.warmup=1w` (a model site `--duration
//! 6w --warmup 1w`); where a command writes does not depend on these.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::shared_log;

/// The `sitesim` commands of the README's `sh` blocks, each as its arguments, in order
/// (a line's comment dropped; `a && b` gives two).
fn readme_commands(readme: &str) -> Vec<Vec<String>> {
    let mut commands = Vec::new();
    let mut in_sh = false;
    for line in readme.lines() {
        let line = line.trim();
        if line.starts_with("```") {
            in_sh = line == "```sh";
            continue;
        }
        if !in_sh {
            continue;
        }
        let line = line.split(" #").next().unwrap_or_default();
        for part in line.split("&&") {
            let words: Vec<String> = part.split_whitespace().map(str::to_owned).collect();
            if words.first().is_some_and(|w| w == "sitesim") {
                commands.push(words[1..].to_vec());
            }
        }
    }
    commands
}

/// `args` as the test runs them: `LOG` is the KTH log, and the run made small.
fn made_small(args: &[String], log: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(args.len() + 4);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "LOG" => out.push(log.to_owned()),
            "--replications" | "--weeks" => {
                it.next();
                let small = if a == "--weeks" { "4" } else { "2" };
                out.extend([a.clone(), small.to_owned()]);
            }
            _ => out.push(a.clone()),
        }
    }
    if out.first().is_some_and(|c| c == "run") {
        let small = ["--replications", "2", "--set", "duration=6w"];
        out.extend(
            small
                .into_iter()
                .chain(["--set", "metrics.warmup=1w"])
                .map(str::to_owned),
        );
    }
    if out.first().is_some_and(|c| c == "model") && !out.iter().any(|a| a == "--duration") {
        out.extend(["--duration", "6w", "--warmup", "1w"].map(str::to_owned));
    }
    if out.first().is_some_and(|c| c == "calibrate") && !out.iter().any(|a| a == "--weeks") {
        out.extend(["--replications", "2", "--weeks", "4"].map(str::to_owned));
    }
    out
}

/// The files the repository ships: `git ls-files`, else every file but build outputs,
/// environments and results.
fn shipped(root: &Path) -> Vec<PathBuf> {
    let listed = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root)
        .output();
    if let Some(out) = listed
        .ok()
        .filter(|o| o.status.success() && !o.stdout.is_empty())
    {
        return out
            .stdout
            .split(|&b| b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| PathBuf::from(String::from_utf8_lossy(p).into_owned()))
            .filter(|p| root.join(p).is_file())
            .collect();
    }
    let skip = ["target", ".git", ".venv", "results"];
    files_under(root, |p| {
        p.file_name().is_some_and(|n| skip.iter().any(|s| n == *s))
    })
}

/// Every file (not folder) under `root`, relative to it, but in the folders `skip` names.
fn files_under(root: &Path, skip: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![PathBuf::new()];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(root.join(&dir)).unwrap() {
            let entry = entry.unwrap();
            let rel = dir.join(entry.file_name());
            if !entry.file_type().unwrap().is_dir() {
                files.push(rel);
            } else if !skip(&rel) {
                dirs.push(rel);
            }
        }
    }
    files
}

/// Every file under `root` but those under `results/`, with its contents.
fn tree(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    files_under(root, |p| p == Path::new("results"))
        .into_iter()
        .map(|rel| {
            let bytes = fs::read(root.join(&rel)).unwrap_or_default();
            (rel, bytes)
        })
        .collect()
}

#[test]
fn the_readmes_commands_write_only_under_results() {
    let Some(kth) = shared_log("KTH-SP2-1996-2.swf") else {
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = fs::read_to_string(root.join("README.md")).unwrap();
    let commands = readme_commands(&readme);
    assert!(
        commands.len() >= 15,
        "the README's sitesim commands were not found: {commands:?}"
    );
    // The scratch copy, with ../shared beside it as in a checkout.
    let scratch = common::scratch("readme", "");
    let repo = scratch.join("repo");
    for file in shipped(root) {
        let to = repo.join(&file);
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        fs::copy(root.join(&file), &to).unwrap();
    }
    let shared = kth.parent().unwrap().parent().unwrap();
    let link = scratch.join("shared");
    if !link.exists() {
        std::os::unix::fs::symlink(fs::canonicalize(shared).unwrap(), &link).unwrap();
    }
    let before = tree(&repo);
    for args in &commands {
        let args = made_small(args, "../shared/workloads/KTH-SP2-1996-2.swf");
        let out = Command::new(env!("CARGO_BIN_EXE_sitesim"))
            .arg("-q")
            .args(&args)
            .current_dir(&repo)
            .output()
            .expect("sitesim runs");
        assert!(
            out.status.success(),
            "README: `sitesim {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let after = tree(&repo);
    let changed: Vec<_> = after
        .iter()
        .filter(|(path, bytes)| before.get(*path) != Some(*bytes))
        .map(|(path, _)| path.display().to_string())
        .collect();
    let removed: Vec<_> = before
        .keys()
        .filter(|p| !after.contains_key(*p))
        .map(|p| p.display().to_string())
        .collect();
    assert!(
        changed.is_empty() && removed.is_empty(),
        "the README's commands wrote outside results/: new or changed {changed:?}, removed {removed:?}"
    );
    fs::remove_dir_all(&scratch).ok();
}

#[test]
fn commands_are_read_from_sh_blocks_only() {
    let readme = "text\n```sh\nsitesim run     # the default\nsitesim run a.toml && sitesim report results/a\ncargo test\n```\n```python\nsitesim.run()\n```\n";
    let commands = readme_commands(readme);
    assert_eq!(
        commands,
        [
            vec!["run"],
            vec!["run", "a.toml"],
            vec!["report", "results/a"]
        ]
    );
    let small = made_small(
        &[
            "resample",
            "--swf",
            "LOG",
            "--replications",
            "100",
            "--weeks",
            "52",
        ]
        .map(String::from),
        "k.swf",
    );
    assert_eq!(
        small,
        [
            "resample",
            "--swf",
            "k.swf",
            "--replications",
            "2",
            "--weeks",
            "4"
        ]
    );
}
