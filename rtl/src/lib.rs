//! Shared RTL building blocks of idemnet, written in rust-hdl 0.46.
//!
//! The cell library (`docs/cells.md`), small parameterized blocks tested beside themselves:
//!
//! * [`first_set`]: the lowest set bit of a mask, one-hot and encoded ([`first_set::FirstSet`]).
//! * [`fifo`]: a first-word-fall-through FIFO with stream ports ([`fifo::Fifo`]) and the memory
//!   it keeps its words in ([`fifo::TransparentMemory`]).
//! * [`counter_bank`]: wrapping event counters counted by reason from several sources
//!   ([`counter_bank::CounterBank`]).
//! * [`round_robin`]: a round-robin arbiter with a lock for multi-cycle transfers
//!   ([`round_robin::RoundRobin`]).
//!
//! The protocol's blocks and helpers:
//!
//! * [`crc`]: one word of CRC-32/MPEG-2 as a combinational block ([`crc::Crc32Word`]).
//! * [`fault`]: the link-fault injector of §9 ([`fault::LinkFault`]).
//! * [`flit`]: the 35-bit flit wire format of `docs/protocol.md` §2 (bit positions, helpers).
//! * [`lfsr`]: the 16-bit Galois LFSR of §4 as a reusable block ([`lfsr::Lfsr`]) plus the
//!   software reference functions it is tested against.
//! * [`reg`]: a register with a power-on value other than zero ([`reg::InitReg`]).
//! * [`uart`]: an 8N1 UART transmitter ([`uart::UartTx`]) and a software decoder for tests.
//! * [`worm_receiver`]: the receiving end of a worm ([`worm_receiver::WormReceiver`]): framing,
//!   route check, running CRC and one verdict per worm (§8.3).
//! * [`worm_transmitter`]: the sending end ([`worm_transmitter::WormTransmitter`]): link request
//!   and grant, the words asked of the parent by index, head and tail bits, the CRC (§8.5).
//! * [`ports`]: [`ports::port_list`], the top-level port list of a block exactly as it appears in
//!   the emitted Verilog, as [`idemnet_spec::ports::PortSpec`]s.

pub mod counter_bank;
pub mod crc;
pub mod fault;
pub mod fifo;
pub mod first_set;
pub mod flit;
pub mod lfsr;
pub mod ports;
pub mod reg;
pub mod round_robin;
#[cfg(test)]
mod testing;
pub mod uart;
pub mod worm_receiver;
pub mod worm_transmitter;

pub use idemnet_spec::ports::{PortDir, PortSpec};

/// Verilator lint waivers for rust-hdl's output style (`rtl/lint/waivers.vlt`, each with its
/// reason). Every Verilator run of idemnet's emitted Verilog uses this one file.
pub const LINT_WAIVERS: &str = include_str!("../lint/waivers.vlt");

/// Helpers for the cells' tests: rust-hdl's simulator driven one clock edge at a time.
#[cfg(test)]
pub(crate) mod simulation {
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
            let mut build =
                idemnet_cosim::VerilatorBuild::new("top", generate_verilog(block), ports);
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
}
