//! Helpers for the cells' tests: a seeded random source, and rust-hdl's simulator driven one
//! clock edge at a time beside the Verilated Verilog of the same block.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rust_hdl::prelude::*;

/// Updates `uut` until its combinational logic stops changing.
pub fn settle<B: Block>(uut: &mut B) {
    assert!(simulate(uut, 100), "the logic did not settle");
}

/// One rising edge of the clock that `clock` selects, the logic settled before and after.
pub fn rising_edge<B: Block>(uut: &mut B, clock: fn(&mut B) -> &mut Signal<In, Clock>) {
    settle(uut);
    clock(uut).next = true.into();
    settle(uut);
    clock(uut).next = false.into();
    settle(uut);
}

/// The Verilog that rust-hdl emits for `block`, run by Verilator (built once into the shared
/// cache, keyed by the text), to be stepped beside rust-hdl's simulation of the same block:
/// this is what checks the hand-written Verilog of custom blocks and rust-hdl's translation.
pub struct Verilated {
    instance: idemnet_cosim::Instance,
    outputs: Vec<u64>,
}

impl Verilated {
    /// Builds `block` (connected) with Verilator; every port must be at most 64 bits wide.
    pub fn new<B: Block>(block: &B) -> Verilated {
        let ports = crate::ports::port_list(block);
        assert!(ports.iter().all(|p| p.width <= 64), "{ports:?}");
        let mut build = idemnet_cosim::VerilatorBuild::new("top", generate_verilog(block), ports);
        build.trace = false;
        build.waivers = Some(crate::LINT_WAIVERS.into());
        let library = build
            .build(idemnet_cosim::default_cache_dir())
            .unwrap_or_else(|e| panic!("{e:#}"));
        let outputs = vec![0; idemnet_cosim::output_words(library.ports())];
        Verilated {
            instance: library.instance(),
            outputs,
        }
    }

    /// One cycle with these inputs (one word per input port, in port order); returns the
    /// outputs after the rising edge (one word per output port).
    pub fn cycle(&mut self, inputs: &[u64]) -> &[u64] {
        self.instance.set_inputs(inputs);
        self.instance.tick();
        self.instance.outputs(&mut self.outputs);
        &self.outputs
    }
}

/// A seeded random source (ChaCha8), so that every test run sees the same stimulus.
pub struct Random(ChaCha8Rng);

impl Random {
    pub fn new(seed: u64) -> Self {
        Self(ChaCha8Rng::seed_from_u64(seed))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.gen()
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.0.gen_range(0..n)
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}
