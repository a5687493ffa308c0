//! The worm cells' emitted Verilog through the open tools: Verilator `-Wall` lint with the
//! project's waivers, Icarus, and yosys `synth_ice40` (cell counts printed, bounded so that
//! growth is noticed).

use idemnet_cosim::tools::{iverilog_compile, verilator_lint, yosys_ice40};
use idemnet_rtl::worm_receiver::WormReceiver;
use idemnet_rtl::worm_transmitter::WormTransmitter;
use rust_hdl::prelude::*;

fn verilog_of<B: Block>(mut block: B) -> String {
    block.connect_all();
    check_all(&block).unwrap();
    generate_verilog(&block)
}

#[test]
fn receiver_lints_compiles_and_synthesizes() {
    // The header length is a port (a node's one receiver frames headers of 2 and 7 words).
    let v = verilog_of(WormReceiver::new(9));
    verilator_lint(&v, idemnet_rtl::LINT_WAIVERS).unwrap();
    iverilog_compile(&v).unwrap();
    let c = yosys_ice40(&v).unwrap();
    eprintln!("worm receiver, synth_ice40: {c:?}");
    // 32 CRC bits, 16 source bits, the route bit, the state and two 4-bit counters; most LUTs
    // are the CRC word unit's XOR trees.
    assert!(c.flip_flops >= 60 && c.flip_flops <= 64, "{c:?}");
    assert!(c.luts < 300, "{c:?}");
}

#[test]
fn transmitter_lints_compiles_and_synthesizes() {
    // The header length is a port (a node's one transmitter serves headers of 2 and 7 words).
    let v = verilog_of(WormTransmitter::default());
    verilator_lint(&v, idemnet_rtl::LINT_WAIVERS).unwrap();
    iverilog_compile(&v).unwrap();
    let c = yosys_ice40(&v).unwrap();
    eprintln!("worm transmitter, synth_ice40: {c:?}");
    // 32 CRC bits, the 35-bit flit register (its data bits only once set), the state and two
    // 4-bit counters; most LUTs are the CRC word unit's XOR trees.
    assert!(c.flip_flops >= 70 && c.flip_flops <= 80, "{c:?}");
    assert!(c.luts < 300, "{c:?}");
}
