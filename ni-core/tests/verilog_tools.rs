//! The NI's emitted Verilog through the open tools: Verilator `-Wall` lint with the project's
//! waivers, Icarus, and yosys `synth_ice40`, whose LUT and flip-flop counts for the default
//! parameters are printed (the README quotes them) and bounded so that growth is noticed.

use idemnet_cosim::tools::{iverilog_compile, verilator_lint, yosys_ice40};
use idemnet_ni_core::{ni_verilog, NiConfig};

#[test]
fn ni_lints_and_compiles_for_small_and_large_tables() {
    for (s, r) in [(1, 1), (4, 8), (16, 16)] {
        let cfg = NiConfig {
            node: 9,
            send_slots: s,
            recv_slots: r,
            ..NiConfig::DEFAULT
        };
        let (v, _) = ni_verilog(&cfg).unwrap();
        verilator_lint(&v, idemnet_rtl::LINT_WAIVERS).unwrap();
        iverilog_compile(&v).unwrap();
    }
}

#[test]
fn ni_synthesizes_for_ice40() {
    let (v, _) = ni_verilog(&NiConfig::DEFAULT).unwrap();
    let c = yosys_ice40(&v).unwrap();
    eprintln!("NI, default parameters, synth_ice40: {c:?}");
    assert!(
        c.luts > 1000 && c.luts < 7680,
        "{c:?} must fit an iCE40 HX8K"
    );
    // The payloads are in block RAM (two SB_RAM40_4K of 256 x 16 for the send slots' 32-bit
    // words, two for the receive banks), not in flip-flops: 1,226 flip-flops when measured.
    assert_eq!(c.brams, 4, "{c:?}");
    assert!(c.flip_flops < 1500, "{c:?}");
}

#[test]
fn bad_parameters_are_errors() {
    for cfg in [
        NiConfig {
            send_slots: 0,
            ..NiConfig::DEFAULT
        },
        NiConfig {
            recv_slots: 17,
            ..NiConfig::DEFAULT
        },
        NiConfig {
            retry_interval: 0,
            ..NiConfig::DEFAULT
        },
    ] {
        assert!(ni_verilog(&cfg).is_err(), "{cfg:?}");
    }
}

/// The whole 16-node system (16 nodes, 8 switches, 64 link-fault injectors) lints and compiles.
#[test]
fn system_lints_and_compiles() {
    let (v, ports) = idemnet_ni_core::system_verilog(
        4,
        2,
        &NiConfig::DEFAULT,
        &idemnet_ni_core::RmppConfig::default(),
    )
    .unwrap();
    assert_eq!(
        ports.iter().filter(|p| p.name.starts_with("dead$")).count(),
        16
    );
    verilator_lint(&v, idemnet_rtl::LINT_WAIVERS).unwrap();
    iverilog_compile(&v).unwrap();
}
