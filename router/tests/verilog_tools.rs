//! The emitted Verilog through the external tools, which `scripts/setup.sh` installs (a missing
//! tool fails the test, never skips it): `verilator --lint-only -Wall` with
//! `rtl/lint/waivers.vlt`, `iverilog -g2012` (compile, and a simulation whose waveform must match
//! rust-hdl's own simulation of the same block), and `yosys synth_ice40 -top top`.

use idemnet_cosim::{run_icarus, wavediff, DiffOptions, ICARUS_ROOT};
use idemnet_model::{PortVcd, TrafficGen};
use idemnet_router::{fabric, fabric_verilog, switch_verilog, HdlSim};
use idemnet_rtl::flit;
use std::path::{Path, PathBuf};
use std::process::Command;

fn require(tool: &str) {
    let ok = Command::new(tool).arg("-V").output().is_ok()
        || Command::new(tool).arg("--version").output().is_ok();
    assert!(
        ok,
        "{tool} is not on PATH: run `bash scripts/setup.sh` first"
    );
}

/// A scratch directory, removed when the test passes (kept for inspection when it fails).
struct WorkDir(PathBuf);

impl std::ops::Deref for WorkDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// Write `top.v` into a fresh directory.
fn emit(name: &str, v: &str) -> WorkDir {
    let d = std::env::temp_dir().join(format!("idemnet-rtl-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("top.v"), v).unwrap();
    WorkDir(d)
}

fn run(dir: &Path, cmd: &mut Command) -> String {
    let out = cmd.current_dir(dir).output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{cmd:?} failed:\n{text}");
    text
}

fn waivers() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../rtl/lint/waivers.vlt")
}

fn verilator_lint(dir: &Path) {
    require("verilator");
    let text = run(
        dir,
        Command::new("verilator")
            .args(["--lint-only", "-Wall"])
            .arg(waivers())
            .arg("top.v"),
    );
    assert!(!text.contains("%Warning"), "{text}");
}

fn iverilog_compile(dir: &Path) {
    require("iverilog");
    let text = run(
        dir,
        Command::new("iverilog").args(["-g2012", "-o", "top.vvp", "top.v"]),
    );
    assert!(!text.to_lowercase().contains("warning"), "{text}");
}

fn yosys_ice40(dir: &Path) -> String {
    require("yosys");
    run(
        dir,
        Command::new("yosys").args(["-p", "synth_ice40 -top top; stat", "top.v"]),
    )
}

#[test]
fn switch_passes_all_tools() {
    for (k, n, l, w) in [(4, 2, 0, 1), (4, 2, 1, 2), (2, 3, 1, 1), (8, 2, 0, 3)] {
        let (v, _) = switch_verilog(k, n, l, w).unwrap();
        let d = emit(&format!("switch-{k}-{n}-{l}-{w}"), &v);
        verilator_lint(&d);
        iverilog_compile(&d);
        if (k, n, l, w) == (4, 2, 0, 1) {
            let log = yosys_ice40(&d);
            // Print the cell counts of the top (the flattened switch).
            if let Some(i) = log.rfind("=== top ===") {
                eprintln!("{}", &log[i..log.len().min(i + 1200)]);
            }
        }
    }
}

#[test]
fn fabric_4ary_2tree_passes_all_tools() {
    let (v, _) = fabric_verilog(4, 2).unwrap();
    let d = emit("fabric-4-2", &v);
    verilator_lint(&d);
    iverilog_compile(&d);
    yosys_ice40(&d);
}

#[test]
fn fabric_4ary_3tree_lints_and_compiles() {
    let (v, _) = fabric_verilog(4, 3).unwrap();
    let d = emit("fabric-4-3", &v);
    verilator_lint(&d);
    iverilog_compile(&d);
}

/// Several minutes of yosys: run with `cargo test -- --ignored`.
#[test]
#[ignore]
fn fabric_4ary_3tree_synthesizes() {
    let (v, _) = fabric_verilog(4, 3).unwrap();
    let d = emit("fabric-4-3-yosys", &v);
    yosys_ice40(&d);
}

/// The emitted fabric simulated by Icarus gives the waveform of rust-hdl's simulation of the
/// same block, port for port and cycle for cycle, under the §6 traffic: the Verilog means what
/// the rust-hdl code means.
#[test]
fn icarus_matches_rusthdl_fabric() {
    require("iverilog");
    let (k, n, cycles) = (4usize, 2usize, 400usize);
    let (v, ports) = fabric_verilog(k, n).unwrap();
    let d = emit("icarus-fabric", &v);
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
