//! What a benchmark writes with `--json FILE` (`cargo bench -p idemnet-testbench --bench B --
//! --json FILE`): one JSON object of schema `idemnet-bench/1` (docs/results.md) with the bench,
//! its command line, the version and commit it measured, its configuration, and every figure its
//! text prints, under the names the text gives them.

use std::path::PathBuf;
use std::process::Command;

use serde_json::{json, Map, Value};

/// The `schema` of a bench record.
pub const BENCH_SCHEMA: &str = "idemnet-bench/1";

/// A bench's figures, written to `--json FILE` when the run ends.
pub struct BenchRecord {
    bench: &'static str,
    path: Option<PathBuf>,
    config: Map<String, Value>,
    figures: Map<String, Value>,
}

impl BenchRecord {
    /// The record of `bench`, from the command line: `--json FILE` and cargo's own `--bench`;
    /// anything else is an error naming it (`cargo bench`'s filters mean nothing to a bench that
    /// runs one fixed set of measurements).
    pub fn from_args(bench: &'static str) -> Result<BenchRecord, String> {
        let mut path = None;
        let mut args = std::env::args().skip(1);
        while let Some(a) = args.next() {
            match a.as_str() {
                "--bench" => {}
                "--json" => match args.next() {
                    Some(p) => path = Some(PathBuf::from(p)),
                    None => return Err("--json needs a file".into()),
                },
                other => return Err(format!("unknown argument `{other}` (only --json FILE)")),
            }
        }
        Ok(BenchRecord {
            bench,
            path,
            config: Map::new(),
            figures: Map::new(),
        })
    }

    /// A setting of the measurement (seed, load, cycles, configuration name).
    pub fn config(&mut self, name: &str, value: impl Into<Value>) {
        self.config.insert(name.into(), value.into());
    }

    /// A measured figure.
    pub fn figure(&mut self, name: &str, value: impl Into<Value>) {
        self.figures.insert(name.into(), value.into());
    }

    /// Writes the record if `--json` asked for it; says where on standard output.
    pub fn finish(self) -> Result<(), String> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let git = |args: &[&str]| {
            Command::new("git")
                .args(["-C", env!("CARGO_MANIFEST_DIR")])
                .args(args)
                .output()
                .ok()
                .filter(|o| o.status.success())
        };
        let commit = git(&["rev-parse", "HEAD"])
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
        let modified =
            git(&["status", "--porcelain", "--untracked-files=no"]).map(|o| !o.stdout.is_empty());
        let record = json!({
            "schema": BENCH_SCHEMA,
            "bench": self.bench,
            "command": std::env::args().collect::<Vec<_>>(),
            "version": env!("CARGO_PKG_VERSION"),
            "commit": commit,
            "modified": modified,
            "config": self.config,
            "figures": self.figures,
        });
        let text = serde_json::to_string_pretty(&record).map_err(|e| e.to_string())? + "\n";
        std::fs::write(path, text).map_err(|e| format!("--json {}: {e}", path.display()))?;
        println!("figures written to {} ({BENCH_SCHEMA})", path.display());
        Ok(())
    }
}

/// Ends a bench on bad input: one line, exit code 2.
pub fn refuse(bench: &str, error: &str) -> ! {
    eprintln!("{bench} bench: {error}");
    std::process::exit(2)
}
