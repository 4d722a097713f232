//! The `sitesim` binary: the command line is `sitesim::cli`.

fn main() -> std::process::ExitCode {
    sitesim::cli::main()
}
