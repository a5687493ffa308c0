//! The router through the whole loop: the async harness on the Verilated RTL and on the golden
//! model, the lockstep job, bit-for-bit reproducible waveforms, and two simulators (Verilator
//! and Icarus) giving one answer.

use std::path::PathBuf;

use idemnet_cosim::{default_cache_dir, run_icarus, wavediff, DiffOptions, ICARUS_ROOT};
use idemnet_testbench::{
    cosim, fabric_traffic, verilate, Config, CosimOptions, ModelDut, Verilated,
};

fn tmp(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn verilated(cfg: &Config) -> Verilated {
    let lib = verilate(cfg, None, &default_cache_dir()).unwrap();
    Verilated {
        ports: lib.ports().to_vec(),
        instance: lib.instance(),
    }
}

fn opts(cycles: u64, seed: u64, load: f64, vcd_dir: Option<PathBuf>) -> CosimOptions {
    CosimOptions {
        vcd_dir,
        ..CosimOptions::new(cycles, seed, load)
    }
}

/// The coroutine scenario sees the same flits on the RTL as on the model, and the same as the
/// lockstep job's scoreboard: per-pair order kept, nothing misrouted, under random load.
#[test]
fn harness_scenario_on_rtl_and_model_agree() {
    let cfg = Config::named("fabric-4x2").unwrap();
    let (seed, load, cycles) = (7, 0.6, 4000);
    let (_, on_rtl) = fabric_traffic(verilated(&cfg), &cfg, load, seed, cycles).unwrap();
    let (_, on_model) = fabric_traffic(
        ModelDut::new(cfg.model().unwrap()),
        &cfg,
        load,
        seed,
        cycles,
    )
    .unwrap();
    assert_eq!(on_rtl, on_model);
    assert_eq!(on_rtl.errors, 0, "{:?}", on_rtl.first_error);
    assert!(on_rtl.worms_delivered > 1000);
    assert!(
        on_rtl.worms_delivered < on_rtl.worms_sent,
        "load 0.6 must cause discards"
    );
    let job = cosim(&cfg, &opts(cycles, seed, load, None), |_| {}).unwrap();
    assert!(job.passed(), "{job}");
    assert!(job.worms_discarded > 0);
    assert_eq!(
        (job.flits_delivered, job.worms_delivered),
        (on_rtl.flits_delivered, on_rtl.worms_delivered)
    );
}

/// The same seed gives the same waveform, byte for byte, from the harness on the RTL and from
/// the lockstep job (RTL and model); another seed does not.
#[test]
fn same_seed_same_waveform_bit_for_bit() {
    let cfg = Config::named("fabric-4x2").unwrap();
    let d = tmp("determinism");
    let harness_vcd = |seed: u64, name: &str| {
        let mut dut = verilated(&cfg);
        let p = d.join(name);
        dut.instance.open_vcd(&p).unwrap();
        let (mut dut, _) = fabric_traffic(dut, &cfg, 0.5, seed, 500).unwrap();
        dut.instance.close_vcd().unwrap();
        std::fs::read(p).unwrap()
    };
    let a = harness_vcd(11, "a.vcd");
    let b = harness_vcd(11, "b.vcd");
    let c = harness_vcd(12, "c.vcd");
    assert!(a.len() > 10_000);
    assert!(a == b, "same seed, different waveform bytes");
    assert!(a != c, "different seeds, same waveform");

    let job_vcds = |name: &str| {
        let dir = d.join(name);
        let r = cosim(&cfg, &opts(500, 11, 0.5, Some(dir.clone())), |_| {}).unwrap();
        assert!(r.passed(), "{r}");
        (
            std::fs::read(dir.join("rtl.vcd")).unwrap(),
            std::fs::read(dir.join("model.vcd")).unwrap(),
        )
    };
    assert!(job_vcds("job1") == job_vcds("job2"));
}

/// Verilator, Icarus and the golden model: the same stimulus, three waveforms, no difference
/// on any port, for the switch alone and the whole fabric.
#[test]
fn icarus_verilator_and_model_waveforms_agree() {
    for name in ["switch-4x2", "fabric-4x2"] {
        let cfg = Config::named(name).unwrap();
        let d = tmp(&format!("three-sims-{name}"));
        let (seed, load, cycles) = (3, 0.7, 600);
        let r = cosim(&cfg, &opts(cycles, seed, load, Some(d.clone())), |_| {}).unwrap();
        assert!(r.passed(), "{r}");
        assert!(
            r.worms_discarded > 0,
            "{name}: the run must exercise discards"
        );

        let (verilog, ports) = cfg.verilog().unwrap();
        let mut gen = cfg.traffic(load, seed).unwrap();
        let words = idemnet_cosim::input_words(&ports);
        let stimulus: Vec<Vec<u64>> = (0..cycles)
            .map(|_| {
                let mut v = vec![0; words];
                gen.step(&mut v);
                v
            })
            .collect();
        let icarus = d.join("icarus.vcd");
        run_icarus("top", &verilog, &ports, &stimulus, &icarus).unwrap();

        let rtl = d.join("rtl.vcd");
        let vs_icarus = wavediff(&icarus, &rtl, &DiffOptions::roots(ICARUS_ROOT, "TOP")).unwrap();
        assert!(vs_icarus.is_equal(), "{name}: {vs_icarus}");
        assert_eq!(vs_icarus.compared.len(), ports.len() + 1, "{vs_icarus}");
        assert!(vs_icarus.end_time >= 10 * (cycles - 1), "{vs_icarus}");

        let vs_model = wavediff(&d.join("model.vcd"), &rtl, &DiffOptions::default()).unwrap();
        assert!(vs_model.is_equal(), "{name}: {vs_model}");
        assert_eq!(vs_model.compared.len(), ports.len() + 1, "{vs_model}");
    }
}
