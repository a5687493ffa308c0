//! Test helpers: drivers for the rust-hdl blocks, a tiny PRNG and flit builders. The reference
//! these tests compare against is the golden model (`idemnet_model`), written from
//! docs/protocol.md independently of the RTL.
#![allow(dead_code)]

use idemnet_router::{HdlSim, Switch};
use idemnet_rtl::flit;

/// One cycle of a rust-hdl Switch: `inp` are the 2k inputs (down then up).
pub fn switch_cycle(sim: &mut HdlSim<Switch>, inp: &[u64]) {
    let k = sim.uut.k();
    sim.cycle(|s| {
        for i in 0..k {
            s.down_in[i].next = flit::to_bits(inp[i]);
            s.up_in[i].next = flit::to_bits(inp[k + i]);
        }
    })
    .unwrap();
}

/// Outputs (down then up) of a rust-hdl Switch.
pub fn switch_outputs(sim: &HdlSim<Switch>) -> Vec<u64> {
    let s = &sim.uut;
    s.down_out
        .iter()
        .chain(s.up_out.iter())
        .map(|x| x.val().to_u64())
        .collect()
}

/// Drop counters (down then up) of a rust-hdl Switch.
pub fn switch_drops(sim: &HdlSim<Switch>) -> Vec<u16> {
    let s = &sim.uut;
    s.drops_down
        .iter()
        .chain(s.drops_up.iter())
        .map(|x| x.val().to_u64() as u16)
        .collect()
}

/// Tiny deterministic PRNG (xorshift64*), so tests need no extra dependency.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545F4914F6CDD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

pub fn head(src: usize, dst: usize, tail: bool) -> u64 {
    flit::make(true, tail, flit::route(src as u16, dst as u16))
}
pub fn body(data: u32, tail: bool) -> u64 {
    flit::make(false, tail, data)
}
