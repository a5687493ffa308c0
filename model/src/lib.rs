//! idemnet golden model: the behaviour of docs/protocol.md, written from the document only.
//!
//! - [`lfsr`]: the per-switch 16-bit Galois LFSR (§4).
//! - [`topology`]: the k-ary n-tree, its numbering and link map (§3).
//! - [`switch`]: one switch, cycle-accurate (§4), also as a standalone [`block::ModelBlock`].
//! - [`fabric`]: the fabric top (§5), the fast model-only simulator.
//! - [`ni`]: the idempotent network interface (§8).
//! - [`stream`]: the host streams' beats, as a block reads them and a host writes them (§8.2).
//! - [`node`], [`system`]: a node's blocks wired (§13) and the whole system with its hosts (§10).
//! - [`traffic`]: the seeded random stimulus and the scoreboard (§6).
//! - [`block`]: the lockstep / waveform interface of every model block.
//! - [`view`]: a node's blocks' port buffers seen inside the system's (no copies between them).
//! - [`wave`]: VCD writing of any block's ports (§1 time contract).

pub mod baseline;
pub mod block;
pub mod fabric;
pub mod fault;
mod hash;
pub mod latency;
pub mod lfsr;
pub mod ni;
pub mod node;
pub mod ports;
pub mod rmpp;
pub mod stream;
pub mod switch;
pub mod system;
pub mod topology;
pub mod traffic;
pub mod view;
pub mod wave;

pub use block::ModelBlock;
pub use fabric::Fabric;
pub use switch::Switch;
pub use topology::{ConfigError, FatTree, Reachability};
pub use traffic::{Scoreboard, TrafficGen};
pub use wave::{PortFst, PortVcd};

/// Result of a model-only run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    pub cycles: u64,
    pub flits_sent: u64,
    pub worms_sent: u64,
    pub flits_delivered: u64,
    pub worms_delivered: u64,
    /// Worms discarded by the switches (sum over all drop counters, not wrapping).
    pub drops: u64,
    pub errors: u64,
    pub first_error: Option<String>,
}

/// Runs the fabric `(k, n)` for `cycles` cycles under [`TrafficGen`] at `load` with `seed`,
/// checking `node_out` with a [`Scoreboard`] every cycle (no drain afterwards).
pub fn run_model_only(
    k: usize,
    n: usize,
    load: f64,
    seed: u64,
    cycles: u64,
) -> Result<Summary, ConfigError> {
    let mut fabric = Fabric::new(k, n)?;
    let nodes = fabric.nodes();
    let mut gen = TrafficGen::new(nodes, load, seed)?;
    let mut sb = Scoreboard::new(nodes);
    let mut node_in = vec![0u64; nodes];
    let mut node_out = vec![0u64; nodes];
    for t in 0..cycles {
        gen.step(&mut node_in);
        fabric.step(&node_in, &mut node_out);
        sb.check(t, &node_out);
    }
    Ok(Summary {
        cycles,
        flits_sent: gen.flits_sent(),
        worms_sent: gen.worms_sent(),
        flits_delivered: sb.flits(),
        worms_delivered: sb.worms(),
        drops: fabric.total_drops(),
        errors: sb.errors(),
        first_error: sb.first_error().map(str::to_owned),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_model_only_basic() {
        let s = run_model_only(4, 2, 0.5, 1, 10_000).unwrap();
        assert_eq!(s.errors, 0, "{:?}", s.first_error);
        assert!(s.drops > 0 && s.worms_delivered > 1000);
        // Deterministic.
        assert_eq!(s, run_model_only(4, 2, 0.5, 1, 10_000).unwrap());
        assert!(run_model_only(3, 2, 0.5, 1, 10).is_err());
        let z = run_model_only(4, 2, 0.0, 1, 1000).unwrap();
        assert_eq!((z.flits_sent, z.flits_delivered), (0, 0));
    }
}
