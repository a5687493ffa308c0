//! `--json FILE` of `cosim`, `model` and `selftest`: every figure the text summary prints, with
//! the command, version, seed and configuration, as one JSON object of schema `idemnet-run/1`
//! (docs/results.md; docs/run.schema.json is its JSON Schema, and `cli/tests/results.rs`
//! validates every kind of record against it).

use std::path::Path;

use anyhow::{Context, Result};
use idemnet_testbench::{CosimReport, SelfTestReport};
use serde::Serialize;
use serde_json::{json, Map, Value};

/// The schema name and version of a run record.
pub const RUN_SCHEMA: &str = "idemnet-run/1";

/// One run's record.
#[derive(Serialize)]
pub struct RunRecord {
    pub schema: &'static str,
    /// The command line, word by word.
    pub command: Vec<String>,
    pub version: &'static str,
    /// `cosim`, `model` or `selftest`.
    pub subcommand: &'static str,
    /// The block run (`router`, `fabric`, `ni`, `rmpp-rx`, `system`), or the self-test's board.
    pub block: String,
    /// The configuration as the text summary names it.
    pub configuration: String,
    pub seed: Option<u64>,
    pub cycles: u64,
    pub load: Option<f64>,
    /// The system's faults and traffic; the self-test image's parameters; else empty.
    pub settings: Value,
    /// The run's verdict: what makes the exit code 0.
    pub passed: bool,
    /// The first mismatch, scoreboard error or loss, as the text names it.
    pub first_error: Option<String>,
    pub seconds: f64,
    pub cycles_per_second: f64,
    /// The block's figures (docs/results.md lists them per block).
    pub figures: Value,
    /// `cosim` only: the lockstep comparison.
    pub lockstep: Option<Value>,
}

impl RunRecord {
    /// A record of `subcommand` with the command line and version filled in.
    pub fn new(subcommand: &'static str, block: String, configuration: String) -> RunRecord {
        RunRecord {
            schema: RUN_SCHEMA,
            command: std::env::args().collect(),
            version: crate::VERSION,
            subcommand,
            block,
            configuration,
            seed: None,
            cycles: 0,
            load: None,
            settings: json!({}),
            passed: false,
            first_error: None,
            seconds: 0.0,
            cycles_per_second: 0.0,
            figures: json!({}),
            lockstep: None,
        }
    }

    /// Sets the run's length and time.
    pub fn timed(mut self, cycles: u64, seconds: f64) -> RunRecord {
        self.cycles = cycles;
        self.seconds = seconds;
        self.cycles_per_second = if seconds > 0.0 {
            cycles as f64 / seconds
        } else {
            0.0
        };
        self
    }

    /// Writes the record to `path`, when one is given.
    pub fn write(&self, path: Option<&Path>) -> Result<()> {
        let Some(path) = path else {
            return Ok(());
        };
        let text = serde_json::to_string_pretty(self)? + "\n";
        std::fs::write(path, text)
            .with_context(|| format!("cannot write the results {}", path.display()))
    }
}

/// Named counts as a JSON object, in their order.
pub fn counts(named: &[(String, u64)]) -> Value {
    Value::Object(
        named
            .iter()
            .map(|(k, v)| (k.clone(), json!(v)))
            .collect::<Map<_, _>>(),
    )
}

/// A co-simulation's figures and lockstep part.
pub fn cosim_parts(r: &CosimReport) -> (Value, Value) {
    let l = &r.lockstep;
    let lockstep = json!({
        "cycles": l.cycles,
        "comparisons": l.comparisons,
        "mismatch": l.mismatch.as_ref().map(|m| json!({
            "cycle": m.cycle,
            "port": m.port,
            "expected": m.expected,
            "actual": m.actual,
        })),
        "rtl_seconds": l.rtl_time.as_secs_f64(),
        "model_seconds": l.model_time.as_secs_f64(),
        "build_seconds": r.build_time.as_secs_f64(),
        "from_cache": r.from_cache,
        "waveforms": r.vcd.as_ref().map(|(a, b)| json!([a, b])),
    });
    let mut figures = match &r.figures {
        Some(f) => serde_json::to_value(f).unwrap_or(Value::Null),
        None => json!({
            "flits_sent": r.flits_sent,
            "worms_sent": r.worms_sent,
            "flits_delivered": r.flits_delivered,
            "worms_delivered": r.worms_delivered,
            "worms_discarded": r.worms_discarded,
        }),
    };
    if let Value::Object(m) = &mut figures {
        m.insert("scoreboard_errors".into(), json!(r.scoreboard_errors));
        if !r.extra.is_empty() {
            m.insert("block".into(), counts(&r.extra));
        }
    }
    (figures, lockstep)
}

/// A self-test run's figures.
pub fn selftest_figures(r: &SelfTestReport) -> Value {
    let names = ["sent", "delivered", "duplicated", "lost", "bad"];
    let named = |c: &[u64; 5]| {
        Value::Object(
            names
                .iter()
                .zip(c)
                .map(|(n, v)| (n.to_string(), json!(v)))
                .collect(),
        )
    };
    json!({
        "image": named(&r.chip),
        "scoreboard": named(&r.scoreboard),
        "disagreements": r.disagreement_count,
        "uart_lines": r.lines.len(),
        "uart_lines_wrong": r.bad_lines.len(),
        "in_flight": r.in_flight,
        "crc_drops": r.crc_drops,
        "retransmissions": r.retransmits,
        "switch_drops": r.switch_drops,
        "leds": r.led,
    })
}
