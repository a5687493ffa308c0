//! The emitted Verilog through the external tools, which `scripts/setup.sh` installs (a missing
//! tool fails the test, never skips it): `verilator --lint-only -Wall` with
//! `rtl/lint/waivers.vlt`, `iverilog -g2012` (compile, and a simulation whose waveform must match
//! rust-hdl's own simulation of the same block), and `yosys synth_ice40 -top top`.

use idemnet_cosim::tools::{iverilog_compile, verilator_lint, yosys_ice40};
use idemnet_cosim::{run_icarus, wavediff, DiffOptions, ICARUS_ROOT};
use idemnet_model::{PortVcd, TrafficGen};
use idemnet_router::{fabric, fabric_verilog, switch_verilog, HdlSim};
use idemnet_rtl::flit;

fn lint_and_compile(v: &str) {
    verilator_lint(v, idemnet_rtl::LINT_WAIVERS).unwrap();
    iverilog_compile(v).unwrap();
}

#[test]
fn switch_passes_all_tools() {
    for (k, n, l, w) in [(4, 2, 0, 1), (4, 2, 1, 2), (2, 3, 1, 1), (8, 2, 0, 3)] {
        let (v, _) = switch_verilog(k, n, l, w).unwrap();
        lint_and_compile(&v);
        if (k, n, l, w) == (4, 2, 0, 1) {
            eprintln!(
                "switch (4, 2, 0, 1), synth_ice40: {:?}",
                yosys_ice40(&v).unwrap()
            );
        }
    }
}

#[test]
fn fabric_4ary_2tree_passes_all_tools() {
    let (v, _) = fabric_verilog(4, 2).unwrap();
    lint_and_compile(&v);
    eprintln!(
        "fabric 4-ary 2-tree, synth_ice40: {:?}",
        yosys_ice40(&v).unwrap()
    );
}

#[test]
fn fabric_4ary_3tree_lints_and_compiles() {
    let (v, _) = fabric_verilog(4, 3).unwrap();
    lint_and_compile(&v);
}

/// Several minutes of yosys: run with `cargo test -- --ignored`.
#[test]
#[ignore]
fn fabric_4ary_3tree_synthesizes() {
    let (v, _) = fabric_verilog(4, 3).unwrap();
    eprintln!(
        "fabric 4-ary 3-tree, synth_ice40: {:?}",
        yosys_ice40(&v).unwrap()
    );
}

/// The emitted fabric simulated by Icarus gives the waveform of rust-hdl's simulation of the
/// same block, port for port and cycle for cycle, under the §6 traffic: the Verilog means what
/// the rust-hdl code means.
#[test]
fn icarus_matches_rusthdl_fabric() {
    let (k, n, cycles) = (4usize, 2usize, 400usize);
    let (v, ports) = fabric_verilog(k, n).unwrap();
    let d = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("icarus-fabric");
    std::fs::create_dir_all(&d).unwrap();
    let nodes = k.pow(n as u32);
    let mut gen = TrafficGen::new(nodes, 0.7, 77).unwrap();
    let mut sim = HdlSim::new(fabric(k, n).unwrap()).unwrap();
    let hdl_vcd = d.join("rusthdl.vcd");
    let mut vcd = PortVcd::create(&hdl_vcd, &ports).unwrap();
    let mut stimulus = Vec::with_capacity(cycles);
    let mut outputs = Vec::new();
    let mut drops = 0;
    for t in 0..cycles {
        let mut inp = vec![0u64; nodes];
        gen.step(&mut inp);
        sim.cycle(|f| {
            for (s, &x) in f.node_in.iter_mut().zip(&inp) {
                s.next = flit::to_bits(x);
            }
        })
        .unwrap();
        outputs.clear();
        outputs.extend(sim.uut.node_out.iter().map(|o| o.val().to_u64()));
        outputs.extend(sim.uut.drops.iter().map(|o| o.val().to_u64()));
        drops = outputs[nodes..].iter().sum::<u64>();
        vcd.cycle(t as u64, &inp, &outputs).unwrap();
        stimulus.push(inp);
    }
    vcd.finish().unwrap();
    assert!(drops > 0, "the stimulus must cause discards");
    let icarus_vcd = d.join("icarus.vcd");
    run_icarus("top", &v, &ports, &stimulus, &icarus_vcd).unwrap();
    let diff = wavediff(
        &icarus_vcd,
        &hdl_vcd,
        &DiffOptions::roots(ICARUS_ROOT, "TOP"),
    )
    .unwrap();
    assert!(diff.is_equal(), "{diff}");
    assert_eq!(diff.compared.len(), ports.len() + 1, "{diff}");
}
