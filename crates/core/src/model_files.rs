//! The model files of `models/`, built into the binary, so that a scenario naming one runs
//! after `cargo install` and inside a batch job started in another folder.
//!
//! A model file is read from disk when it is there; a path `.../models/NAME.toml` that names
//! no file, where `NAME.toml` is one of the files shipped in `models/`, reads the built-in
//! copy instead. Any other missing file is an error naming it. Model files and scenarios
//! are read whole, up to [`MAX_TEXT`] bytes ([`read_text`]).

use std::io::Read;
use std::path::Path;

/// The largest model or scenario file read, in bytes (the shipped ones are under 20 KB): a
/// path such as `/dev/zero` ends with an error instead of filling the memory.
pub const MAX_TEXT: u64 = 16 << 20;

/// The text of the file at `path`, if it is UTF-8 and at most [`MAX_TEXT`] bytes.
pub fn read_text(path: &Path) -> std::io::Result<String> {
    let mut text = String::new();
    std::fs::File::open(path)?
        .take(MAX_TEXT + 1)
        .read_to_string(&mut text)?;
    if text.len() as u64 > MAX_TEXT {
        return Err(std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!("longer than {MAX_TEXT} bytes: not a scenario or a model file"),
        ));
    }
    Ok(text)
}

/// `models/continuation-curie.toml`.
pub const CONTINUATION_CURIE: &str = include_str!("../../../models/continuation-curie.toml");
/// `models/continuation-kth.toml`.
pub const CONTINUATION_KTH: &str = include_str!("../../../models/continuation-kth.toml");
/// `models/curie-sessions.toml`.
pub const CURIE_SESSIONS: &str = include_str!("../../../models/curie-sessions.toml");
/// `models/estimates-tsafrir2005.toml`.
pub const ESTIMATES_TSAFRIR2005: &str = include_str!("../../../models/estimates-tsafrir2005.toml");
/// `models/kth-sessions.toml`.
pub const KTH_SESSIONS: &str = include_str!("../../../models/kth-sessions.toml");
/// `models/pooled-sessions.toml`.
pub const POOLED_SESSIONS: &str = include_str!("../../../models/pooled-sessions.toml");
/// `models/predictors.toml`.
pub const PREDICTORS: &str = include_str!("../../../models/predictors.toml");
/// `models/synthetic.toml`.
pub const SYNTHETIC: &str = include_str!("../../../models/synthetic.toml");
/// `models/talby2006.toml`.
pub const TALBY2006: &str = include_str!("../../../models/talby2006.toml");

/// Every file of `models/`, by file name, as shipped with this binary.
pub const MODELS: &[(&str, &str)] = &[
    ("continuation-curie.toml", CONTINUATION_CURIE),
    ("continuation-kth.toml", CONTINUATION_KTH),
    ("curie-sessions.toml", CURIE_SESSIONS),
    ("estimates-tsafrir2005.toml", ESTIMATES_TSAFRIR2005),
    ("kth-sessions.toml", KTH_SESSIONS),
    ("pooled-sessions.toml", POOLED_SESSIONS),
    ("predictors.toml", PREDICTORS),
    ("synthetic.toml", SYNTHETIC),
    ("talby2006.toml", TALBY2006),
];

/// The built-in copy of `models/NAME` (`name` a file name such as `talby2006.toml`).
pub fn builtin(name: &str) -> Option<&'static str> {
    MODELS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
}

/// The built-in copy that stands for `path` when no file is there: `.../models/NAME` for a
/// shipped `NAME`.
pub fn builtin_for(path: &Path) -> Option<&'static str> {
    let in_models = path
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|d| d == "models");
    path.file_name()
        .and_then(|n| n.to_str())
        .filter(|_| in_models)
        .and_then(builtin)
}

/// The text of the model file at `path`: the file itself, or, when it does not exist,
/// the built-in copy that stands for it ([`builtin_for`]). Errors name the path.
pub fn read(path: &Path) -> Result<String, String> {
    match read_text(path) {
        Ok(text) => Ok(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => builtin_for(path)
            .map(str::to_owned)
            .ok_or_else(|| format!("{}: {e}", path.display())),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every file of `models/` the repository ships is built in, as it is on disk. A
    /// file a user wrote there (`sitesim fit --out models/mine.toml`) is not shipped and
    /// not looked at: the shipped files are those git tracks, or, without git, the
    /// built-in ones.
    #[test]
    fn every_file_of_models_is_built_in_as_it_is_on_disk() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let dir = root.join("models");
        let tracked = std::process::Command::new("git")
            .args(["ls-files", "--", "models"])
            .current_dir(&root)
            .output()
            .ok()
            .filter(|o| o.status.success() && !o.stdout.is_empty());
        let built_in: Vec<&str> = MODELS.iter().map(|(n, _)| *n).collect();
        match tracked {
            Some(o) => {
                let mut shipped: Vec<String> = String::from_utf8_lossy(&o.stdout)
                    .lines()
                    .filter_map(|l| l.strip_prefix("models/").map(str::to_owned))
                    .collect();
                shipped.sort();
                assert_eq!(shipped, built_in, "the files of models/ git tracks");
            }
            None => eprintln!("no git here: the built-in files are checked against the disk"),
        }
        for (name, text) in MODELS {
            assert_eq!(&std::fs::read_to_string(dir.join(name)).unwrap(), text);
        }
    }

    #[test]
    fn a_missing_shipped_model_reads_the_built_in_copy_and_anything_else_fails() {
        let nowhere = std::env::temp_dir().join("sitesim-no-such-folder");
        let text = read(&nowhere.join("models/curie-sessions.toml")).unwrap();
        assert_eq!(text, builtin("curie-sessions.toml").unwrap());
        let err = read(&nowhere.join("models/mine.toml")).unwrap_err();
        assert!(err.contains("models/mine.toml"), "{err}");
        let err = read(&nowhere.join("talby2006.toml")).unwrap_err();
        assert!(
            err.contains("sitesim-no-such-folder/talby2006.toml"),
            "{err}"
        );
    }
}
