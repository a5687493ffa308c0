//! Simulation speed of the 16-node fabric (4-ary 2-tree) under §6 traffic at load 0.5, in one
//! run, on every engine idemnet has:
//!
//! - Verilated RTL alone (the generated shim, `-O2`);
//! - the lockstep job: Verilated RTL and golden model, every output compared every cycle, the
//!   scoreboard on `node_out` (what `idemnet cosim` runs);
//! - the golden model alone, and the golden model with traffic generation and scoreboard (what
//!   `idemnet model` runs);
//! - rust-hdl's own simulator on the same block.
//!
//! The engines that are measured alone replay the same pre-generated stimulus frames, so the
//! figures compare simulators, not the random number generator. Ratios are taken from this one
//! run. Run with `cargo bench -p idemnet-testbench --bench fabric`; `IDEMNET_BENCH_SCALE=0.1`
//! shortens every measurement tenfold; `-- --json FILE` also writes the figures as JSON
//! (`idemnet-bench/1`, docs/results.md).

use std::hint::black_box;
use std::time::Instant;

use idemnet_cosim::default_cache_dir;
use idemnet_model::block::ModelBlock;
use idemnet_testbench::bench::{refuse, BenchRecord};
use idemnet_testbench::{cosim, verilate, Config, CosimOptions};

const SEED: u64 = 1;
const LOAD: f64 = 0.5;
const FRAMES: usize = 8192;

fn scaled(n: u64) -> u64 {
    let s: f64 = std::env::var("IDEMNET_BENCH_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|s: &f64| *s > 0.0)
        .unwrap_or(1.0);
    ((n as f64 * s) as u64).max(100)
}

/// Cycles per second of `run(cycles)`.
fn rate(cycles: u64, run: impl FnOnce()) -> f64 {
    let t0 = Instant::now();
    run();
    cycles as f64 / t0.elapsed().as_secs_f64()
}

fn main() {
    let mut record = BenchRecord::from_args("fabric").unwrap_or_else(|e| refuse("fabric", &e));
    let cfg = Config::named("fabric-4x2").expect("named configuration");
    record.config("configuration", cfg.to_string());
    record.config("load", LOAD);
    record.config("seed", SEED);
    let nodes = cfg.sources().unwrap();
    let mut gen = cfg.traffic(LOAD, SEED).unwrap();
    let mut frames = vec![0u64; nodes * FRAMES];
    for f in frames.chunks_mut(nodes) {
        gen.step(f);
    }
    let frame = |t: u64| {
        let i = (t as usize % FRAMES) * nodes;
        &frames[i..i + nodes]
    };
    println!("idemnet bench: {cfg}, load {LOAD}, seed {SEED}");

    let lib = verilate(&cfg, None, &default_cache_dir()).unwrap();
    let out_words = idemnet_cosim::output_words(lib.ports());
    let n = scaled(1_000_000);
    let mut rtl = lib.instance();
    let mut outs = vec![0u64; out_words];
    let rtl_rate = rate(n, || {
        for t in 0..n {
            rtl.set_inputs(frame(t));
            rtl.tick();
            rtl.outputs(&mut outs);
            black_box(&outs);
        }
    });

    let n_lock = scaled(1_000_000);
    let opts = CosimOptions {
        vcd_dir: None,
        ..CosimOptions::new(n_lock, SEED, LOAD)
    };
    let report = cosim(&cfg, &opts, |_| {}).unwrap();
    assert!(report.passed(), "{report}");
    let lock_rate = n_lock as f64 / report.lockstep.elapsed.as_secs_f64();

    let n_model = scaled(10_000_000);
    let mut model = cfg.model().unwrap();
    let mut outs = vec![0u64; out_words];
    let model_rate = rate(n_model, || {
        for t in 0..n_model {
            model.step(frame(t), &mut outs);
            black_box(&outs);
        }
    });
    let model_sb_rate = rate(n_model, || {
        let s = idemnet_model::run_model_only(cfg.k, cfg.n, LOAD, SEED, n_model).unwrap();
        assert_eq!(s.errors, 0);
    });

    let n_hdl = scaled(20_000);
    let hdl = idemnet_router::simulate_fabric_rusthdl(
        cfg.k,
        cfg.n,
        n_hdl,
        |t, inp| inp.copy_from_slice(frame(t)),
        |_, out| {
            black_box(out);
        },
    )
    .unwrap();
    let hdl_rate = hdl.cycles_per_second();

    let rows = [
        ("Verilated RTL alone", n, rtl_rate),
        ("lockstep RTL + model + scoreboard", n_lock, lock_rate),
        ("golden model alone", n_model, model_rate),
        (
            "golden model + traffic + scoreboard",
            n_model,
            model_sb_rate,
        ),
        ("rust-hdl simulator", n_hdl, hdl_rate),
    ];
    println!(
        "{:<38} {:>10} {:>14} {:>12}",
        "engine", "cycles", "cycles/s", "x rust-hdl"
    );
    let mut engines = Vec::new();
    for (name, cycles, r) in rows {
        println!("{name:<38} {cycles:>10} {r:>14.0} {:>12.1}", r / hdl_rate);
        engines.push(serde_json::json!({
            "engine": name, "cycles": cycles, "cycles_per_second": r, "times_rust_hdl": r / hdl_rate,
        }));
    }
    println!(
        "golden model alone / Verilated RTL alone: {:.1}x; lockstep / Verilated RTL alone: {:.2}x",
        model_rate / rtl_rate,
        lock_rate / rtl_rate
    );
    record.figure("engines", engines);
    record.figure("model_over_rtl", model_rate / rtl_rate);
    record.figure("lockstep_over_rtl", lock_rate / rtl_rate);
    record.finish().unwrap_or_else(|e| refuse("fabric", &e));
}
