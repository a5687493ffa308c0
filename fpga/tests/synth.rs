//! The CI check of issue 5: the switch and the NI still synthesize for the iCE40 (yosys, seconds
//! each), with cell counts in the range the README quotes, and their board tops lint clean.

use idemnet_fpga::flow::DEFAULT_PLACER_SEED;
use idemnet_fpga::{run_flow, Board, Design, Stage};

fn synth(design: Design) -> idemnet_fpga::Report {
    let dir = std::env::temp_dir().join(format!("idemnet-fpga-test-{}", std::process::id()));
    let r = run_flow(
        &dir,
        Board::Ice40Hx8k,
        design,
        Stage::Synth,
        None,
        DEFAULT_PLACER_SEED,
    )
    .unwrap_or_else(|e| panic!("{design}: {e:#}"));
    println!(
        "{design}: {} LUT4, {} FF, {} carry, {} BRAM",
        r.luts, r.flip_flops, r.carries, r.brams
    );
    let _ = std::fs::remove_dir_all(dir.join(Board::Ice40Hx8k.name()).join(design.name()));
    r
}

#[test]
fn switch_synthesizes_for_ice40() {
    let r = synth(Design::Switch);
    assert!(r.fits);
    assert!((1000..4000).contains(&r.luts), "{} LUT4", r.luts);
    // The harness synthesized alone: its fold's LUTs and its registers, less than the whole,
    // and the switch's own share what is left.
    assert!(r.harness_luts > 0 && r.harness_luts < r.luts, "{r:?}");
    assert!(
        r.harness_flip_flops > 0 && r.harness_flip_flops < r.flip_flops,
        "{r:?}"
    );
    assert_eq!(
        r.design_lut_positions,
        Board::Ice40Hx8k.lut_positions(r.luts, r.carries) - r.harness_luts,
        "{r:?}"
    );
}

#[test]
fn ni_synthesizes_for_ice40() {
    let r = synth(Design::Ni);
    assert!(r.fits);
    assert!((2000..7680).contains(&r.luts), "{} LUT4", r.luts);
}

#[test]
fn board_tops_pass_verilator_lint() {
    for d in [Design::Switch, Design::Node, Design::Selftest] {
        let (dut, _, top) = d.verilog(Board::Ice40Hx8k).unwrap();
        idemnet_cosim::tools::verilator_lint(
            &format!("{dut}\n{top}"),
            &format!(
                // The self-test's monitor outputs stay open on the board (harness.rs).
                "{}\nlint_off -rule PINMISSING -file \"*\" -match \"*Cell has missing pin*\"\n",
                idemnet_rtl::LINT_WAIVERS
            ),
        )
        .unwrap_or_else(|e| panic!("{d}: {e:#}"));
    }
}
