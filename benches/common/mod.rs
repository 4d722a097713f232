//! Inputs shared by the benchmarks.

use std::path::PathBuf;

/// The bytes of a log in `../shared/workloads`, or `None` (with a note) if it is missing.
pub fn shared_log(name: &str) -> Option<Vec<u8>> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/workloads")
        .join(name);
    match std::fs::read(&path) {
        Ok(bytes) => Some(bytes),
        Err(e) => {
            eprintln!("skipping benchmarks on {}: {e}", path.display());
            None
        }
    }
}
