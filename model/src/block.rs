//! The interface every golden-model block offers for lockstep runs and waveforms.

use crate::ports::{PortDir, PortSpec};

/// A clocked block of the golden model.
///
/// One `step` is one cycle of docs/protocol.md §1: apply `I_t`, take clock edge `t`, expose `O_t`.
pub trait ModelBlock {
    /// The block's ports, `clock` excluded, inputs and outputs in a fixed order.
    fn ports(&self) -> Vec<PortSpec>;
    /// Apply I_t (flat buffer of the In ports in ports() order, each port ceil(width/64) words),
    /// clock edge t, write O_t (flat buffer of the Out ports in order).
    fn step(&mut self, inputs: &[u64], outputs: &mut [u64]);
}

/// Number of words of the flat input buffer for `ports`.
pub fn input_words(ports: &[PortSpec]) -> usize {
    ports
        .iter()
        .filter(|p| p.dir == PortDir::In)
        .map(|p| p.words())
        .sum()
}

/// Number of words of the flat output buffer for `ports`.
pub fn output_words(ports: &[PortSpec]) -> usize {
    ports
        .iter()
        .filter(|p| p.dir == PortDir::Out)
        .map(|p| p.words())
        .sum()
}
