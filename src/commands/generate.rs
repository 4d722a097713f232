//! `sitesim generate`: the synthetic benchmark log written as an SWF file.

use std::path::Path;

use crate::results::output::AtomicFile;
use crate::swf::SwfWriter;
use crate::workload::{Synthetic, SyntheticConfig, SyntheticModel};

/// `sitesim generate`: writes the synthetic log of `cfg` (its model from the file
/// `model`, else the shipped one) to `out`, atomically (a device such as `/dev/stdout` in
/// place: [`AtomicFile::create_named`]).
pub fn generate_command(
    cfg: SyntheticConfig,
    model: Option<&Path>,
    out: &Path,
) -> Result<(), String> {
    let model = match model {
        Some(p) => {
            let text = crate::model_files::read(p)?;
            SyntheticModel::parse(&text, &p.display().to_string())?
        }
        None => SyntheticModel::default(),
    };
    let generator = Synthetic::new(cfg, &model);
    let err = |e: std::io::Error| format!("{}: {e}", out.display());
    let (file, w) = AtomicFile::create_named(out).map_err(err)?;
    let mut w = SwfWriter::new(w, &generator.header_lines()).map_err(err)?;
    for rec in generator {
        let rec = rec.map_err(|e| e.to_string())?;
        w.write(&rec.record).map_err(err)?;
    }
    w.finish().map_err(err)?;
    file.commit().map_err(err)?;
    println!("wrote {} jobs to {}", cfg.jobs, out.display());
    Ok(())
}
