//! Shared RTL building blocks of idemnet, written in rust-hdl 0.46.
//!
//! The cell library (`docs/cells.md`), small parameterized blocks tested beside themselves:
//!
//! * [`first_set`]: the lowest set bit of a mask, one-hot and encoded ([`first_set::FirstSet`]).
//! * [`one_hot_mux`]: the word of the input a one-hot select chooses, as an AND-OR tree
//!   ([`one_hot_mux::OneHotMux`]).
//! * [`fifo`]: a first-word-fall-through FIFO with stream ports ([`fifo::Fifo`]) and the memory
//!   it keeps its words in ([`fifo::Memory`]: transparent, as the FIFO's, or block RAM alone for
//!   a user whose reads never meet its writes).
//! * [`lut_ram`]: a small memory with one write port and asynchronous read ports, LUT RAM on the
//!   ECP5 ([`lut_ram::LutRam`]).
//! * [`counter_bank`]: wrapping event counters counted by reason from several sources
//!   ([`counter_bank::CounterBank`]).
//! * [`round_robin`]: a round-robin arbiter with a lock for multi-cycle transfers
//!   ([`round_robin::RoundRobin`]).
//! * [`request_reader`]: the reading end of a request stream ([`request_reader::RequestReader`]):
//!   a taken beat's request and place in it, and whether the request is well formed (§8.5).
//! * [`timer_bank`]: one-shot timers of one interval as deadlines on one free-running count
//!   ([`timer_bank::TimerBank`]).
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
pub mod lut_ram;
pub mod one_hot_mux;
pub mod ports;
pub mod reg;
pub mod request_reader;
pub mod round_robin;
#[cfg(test)]
mod testing;
pub mod timer_bank;
pub mod uart;
pub mod worm_receiver;
pub mod worm_transmitter;

pub use idemnet_spec::ports::{PortDir, PortSpec};

/// `n` default values: a block's per-slot (per-timer, per-counter, per-port) registers, signals
/// and ports, as rust-hdl's `Vec` fields want them.
pub fn vec_of<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
}

/// Verilator lint waivers for rust-hdl's output style (`rtl/lint/waivers.vlt`, each with its
/// reason). Every Verilator run of idemnet's emitted Verilog uses this one file.
pub const LINT_WAIVERS: &str = include_str!("../lint/waivers.vlt");
