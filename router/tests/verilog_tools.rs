//! The emitted Verilog through the external tools (each check is skipped, with a note, when its
//! tool is not on PATH): `verilator --lint-only -Wall` with `rtl/lint/waivers.vlt`,
//! `iverilog -g2012` (compile, and a simulation compared cycle by cycle with rust-hdl's
//! simulator), and `yosys synth_ice40 -top top`.

mod common;

use common::*;
use idemnet_router::{fabric, fabric_verilog, switch_verilog, HdlSim};
use idemnet_rtl::flit;
use std::path::{Path, PathBuf};
use std::process::Command;

fn have(tool: &str) -> bool {
    let ok = Command::new(tool).arg("-V").output().is_ok()
        || Command::new(tool).arg("--version").output().is_ok();
    if !ok {
        eprintln!("note: {tool} not on PATH, check skipped");
    }
    ok
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
    if have("verilator") {
        let w = waivers();
        let text = run(
            dir,
            Command::new("verilator")
                .args(["--lint-only", "-Wall"])
                .arg(&w)
                .arg("top.v"),
        );
        assert!(!text.contains("%Warning"), "{text}");
    }
}

fn iverilog_compile(dir: &Path) {
    if have("iverilog") {
        let text = run(
            dir,
            Command::new("iverilog").args(["-g2012", "-o", "top.vvp", "top.v"]),
        );
        assert!(!text.to_lowercase().contains("warning"), "{text}");
    }
}

fn yosys_ice40(dir: &Path) -> String {
    if have("yosys") {
        run(
            dir,
            Command::new("yosys").args(["-p", "synth_ice40 -top top; stat", "top.v"]),
        )
    } else {
        String::new()
    }
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

/// The emitted fabric simulated by Icarus must match rust-hdl's simulation of the same block
/// cycle by cycle (node_out and drops), with the §1 timing: inputs change at 10t, clock rises
/// at 10t + 5.
#[test]
fn icarus_matches_rusthdl_fabric() {
    if !have("iverilog") || !have("vvp") {
        return;
    }
    let (k, n, cycles) = (4usize, 2usize, 300usize);
    let nodes = k.pow(n as u32);
    let ndrops = n * k.pow(n as u32 - 1) * 2 * k;
    let (v, _) = fabric_verilog(k, n).unwrap();
    let d = emit("icarus-fabric", &v);
    let mut sim = HdlSim::new(fabric(k, n).unwrap()).unwrap();
    let mut rng = Rng(77);
    let mut left = vec![0usize; nodes];
    let mut stim = String::new();
    let mut expect = String::new();
    for _ in 0..cycles {
        let mut inp = vec![0u64; nodes];
        for p in 0..nodes {
            if left[p] == 0 {
                if rng.below(100) < 35 {
                    let dst = rng.below(nodes as u64) as usize;
                    let len = 1 + rng.below(5) as usize;
                    inp[p] = head(p, dst, len == 1);
                    left[p] = len - 1;
                }
            } else {
                left[p] -= 1;
                inp[p] = body(rng.next() as u32, left[p] == 0);
            }
            stim.push_str(&format!("{:09x}\n", inp[p]));
        }
        sim.cycle(|f| {
            for (s, &x) in f.node_in.iter_mut().zip(&inp) {
                s.next = flit::to_bits(x);
            }
        })
        .unwrap();
        for o in &sim.uut.node_out {
            expect.push_str(&format!("{:09x} ", o.val().to_u64()));
        }
        for x in &sim.uut.drops {
            expect.push_str(&format!("{:04x} ", x.val().to_u64()));
        }
        expect.push('\n');
    }
    std::fs::write(d.join("stim.hex"), stim).unwrap();
    let mut tb = String::from("module tb;\n  reg clock = 0;\n");
    tb += &format!("  reg [34:0] stim [0:{}];\n", cycles * nodes - 1);
    for p in 0..nodes {
        tb += &format!("  reg [34:0] ni{p} = 0;\n  wire [34:0] no{p};\n");
    }
    for x in 0..ndrops {
        tb += &format!("  wire [15:0] dr{x};\n");
    }
    tb += "  top dut(.clock(clock)";
    for p in 0..nodes {
        tb += &format!(", .node_in${p}(ni{p}), .node_out${p}(no{p})");
    }
    for x in 0..ndrops {
        tb += &format!(", .drops${x}(dr{x})");
    }
    tb += ");\n  integer t, fd;\n  initial begin\n    $readmemh(\"stim.hex\", stim);\n";
    tb += "    fd = $fopen(\"out.txt\", \"w\");\n";
    tb += &format!("    for (t = 0; t < {cycles}; t = t + 1) begin\n      clock = 0;\n");
    for p in 0..nodes {
        tb += &format!("      ni{p} = stim[t*{nodes}+{p}];\n");
    }
    tb += "      #5 clock = 1;\n      #1;\n";
    for p in 0..nodes {
        tb += &format!("      $fwrite(fd, \"%09h \", no{p});\n");
    }
    for x in 0..ndrops {
        tb += &format!("      $fwrite(fd, \"%04h \", dr{x});\n");
    }
    tb += "      $fwrite(fd, \"\\n\");\n      #4;\n    end\n    $fclose(fd);\n    $finish;\n  end\nendmodule\n";
    std::fs::write(d.join("tb.v"), tb).unwrap();
    run(
        &d,
        Command::new("iverilog").args(["-g2012", "-o", "tb.vvp", "-s", "tb", "tb.v", "top.v"]),
    );
    run(&d, Command::new("vvp").args(["-n", "tb.vvp"]));
    let got = std::fs::read_to_string(d.join("out.txt")).unwrap();
    for (t, (g, e)) in got.lines().zip(expect.lines()).enumerate() {
        assert_eq!(g.trim(), e.trim(), "cycle {t}");
    }
    assert_eq!(got.lines().count(), cycles);
    assert!(expect.contains("0001"), "stimulus should cause drops");
}
