//! Cycle stepping with rust-hdl's own simulator kernel.

use crate::{Fabric, Result, RouterError, Switch};
use rust_hdl::prelude::*;
use std::time::{Duration, Instant};

/// A block with a `clock` input, steppable by [`HdlSim`].
pub trait Clocked: Block {
    fn clock_mut(&mut self) -> &mut Signal<In, Clock>;
}

impl Clocked for Switch {
    fn clock_mut(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

impl Clocked for Fabric {
    fn clock_mut(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}

/// Cycle-by-cycle driver for a connected block, using rust-hdl's delta-cycle kernel
/// ([`simulate`]) the same way `rust_hdl::sim::Simulation` does, without its testbench threads.
///
/// [`HdlSim::cycle`] is cycle `t` of `docs/protocol.md` §1: the closure sets the inputs `I_t`
/// (`uut.port.next = ...`) while the clock is low, the logic settles, then the clock rises;
/// afterwards the outputs (`uut.port.val()`) show `O_t`.
pub struct HdlSim<B: Clocked> {
    pub uut: B,
    cycle: u64,
}

const MAX_ITERS: usize = 1000;

impl<B: Clocked> HdlSim<B> {
    /// Wrap an already connected block (see [`crate::fabric`], [`crate::switch`]).
    pub fn new(mut uut: B) -> Result<Self> {
        uut.clock_mut().next = false.into();
        if !simulate(&mut uut, MAX_ITERS) {
            return Err(RouterError::NoConvergence(0));
        }
        Ok(Self { uut, cycle: 0 })
    }

    /// Number of cycles run so far (the index of the next cycle).
    pub fn cycles(&self) -> u64 {
        self.cycle
    }

    /// Run one cycle: apply inputs with `set_inputs`, then the rising edge.
    pub fn cycle(&mut self, set_inputs: impl FnOnce(&mut B)) -> Result<()> {
        self.uut.clock_mut().next = false.into();
        set_inputs(&mut self.uut);
        if !simulate(&mut self.uut, MAX_ITERS) {
            return Err(RouterError::NoConvergence(self.cycle));
        }
        self.uut.clock_mut().next = true.into();
        if !simulate(&mut self.uut, MAX_ITERS) {
            return Err(RouterError::NoConvergence(self.cycle));
        }
        self.cycle += 1;
        Ok(())
    }
}

/// Outcome of [`simulate_fabric_rusthdl`].
#[derive(Clone, Debug)]
pub struct SimReport {
    pub cycles: u64,
    /// Wall time of the cycle loop (stimulus and observer included).
    pub elapsed: Duration,
    /// Final values of `drops$x`.
    pub drops: Vec<u16>,
}

impl SimReport {
    /// Simulated cycles per wall-clock second.
    pub fn cycles_per_second(&self) -> f64 {
        self.cycles as f64 / self.elapsed.as_secs_f64()
    }
}

/// Run the k-ary n-tree fabric for `cycles` cycles in rust-hdl's simulator.
///
/// Each cycle `t`, `stimulus(t, node_in)` fills `node_in` (one packed 35-bit flit per node, see
/// `idemnet_rtl::flit`, starting from all zero each cycle), and after the rising edge
/// `observe(t, node_out)` sees `O_t` of every `node_out$p`.
pub fn simulate_fabric_rusthdl(
    k: usize,
    n: usize,
    cycles: u64,
    mut stimulus: impl FnMut(u64, &mut [u64]),
    mut observe: impl FnMut(u64, &[u64]),
) -> Result<SimReport> {
    let mut sim = HdlSim::new(crate::fabric(k, n)?)?;
    let nodes = sim.uut.node_in.len();
    let mut inp = vec![0u64; nodes];
    let mut out = vec![0u64; nodes];
    let t0 = Instant::now();
    for t in 0..cycles {
        inp.iter_mut().for_each(|x| *x = 0);
        stimulus(t, &mut inp);
        if let Some(bad) = inp.iter().find(|&&x| x >> 35 != 0) {
            return Err(RouterError::Stimulus(format!(
                "flit {bad:#x} wider than 35 bits"
            )));
        }
        sim.cycle(|f| {
            for (s, &x) in f.node_in.iter_mut().zip(inp.iter()) {
                s.next = Bits::from(x);
            }
        })?;
        for (o, s) in out.iter_mut().zip(sim.uut.node_out.iter()) {
            *o = s.val().to_u64();
        }
        observe(t, &out);
    }
    let elapsed = t0.elapsed();
    let drops = sim
        .uut
        .drops
        .iter()
        .map(|d| d.val().to_u64() as u16)
        .collect();
    Ok(SimReport {
        cycles,
        elapsed,
        drops,
    })
}
