//! Test helpers: a plain-Rust reference of protocol.md §4/§5, written from the document
//! independently of the RTL (it does not use the RTL's topology code either), and small drivers.
#![allow(dead_code, clippy::needless_range_loop)]

use idemnet_router::{HdlSim, Switch};
use idemnet_rtl::flit;
use idemnet_rtl::lfsr::{lfsr_next, lfsr_seed};

#[derive(Clone, Copy, Debug, PartialEq)]
enum St {
    Idle,
    Fwd(usize),
    Disc,
}

/// Reference switch: outputs indexed 0..2k (down ports, then up ports), inputs likewise.
#[derive(Clone, Debug)]
pub struct RefSwitch {
    k: usize,
    b: usize,
    l: usize,
    w: usize,
    top: bool,
    lfsr: u16,
    st: Vec<St>,
    pub drops: Vec<u16>,
    pub out: Vec<u64>,
}

impl RefSwitch {
    pub fn new(k: usize, n: usize, l: usize, w: usize) -> Self {
        let b = k.trailing_zeros() as usize;
        let s = l * k.pow(n as u32 - 1) + w;
        Self {
            k,
            b,
            l,
            w,
            top: l == n - 1,
            lfsr: lfsr_seed(s),
            st: vec![St::Idle; 2 * k],
            drops: vec![0; 2 * k],
            out: vec![0; 2 * k],
        }
    }

    pub fn step(&mut self, inp: &[u64]) {
        let k = self.k;
        let start = self.lfsr as usize & (k - 1);
        let mut held = vec![false; 2 * k];
        for i in 0..2 * k {
            if let St::Fwd(o) = self.st[i] {
                let f = inp[i];
                if !(flit::is_valid(f) && flit::is_head(f)) {
                    held[o] = true;
                }
            }
        }
        let mut out = vec![0u64; 2 * k];
        for i in 0..2 * k {
            let f = inp[i];
            if !flit::is_valid(f) {
                continue;
            }
            let tail = flit::is_tail(f);
            if flit::is_head(f) {
                let dst = f & 0xFFFF;
                let covered =
                    dst >> ((self.l + 1) * self.b) == (self.w as u64) >> (self.l * self.b);
                let grant = if covered {
                    let d = (dst >> (self.l * self.b)) as usize & (k - 1);
                    (!held[d]).then_some(d)
                } else if i < k && !self.top {
                    (0..k).map(|m| k + (start + m) % k).find(|&o| !held[o])
                } else {
                    None
                };
                match grant {
                    Some(o) => {
                        held[o] = true;
                        out[o] = f;
                        self.st[i] = if tail { St::Idle } else { St::Fwd(o) };
                    }
                    None => {
                        self.drops[i] = self.drops[i].wrapping_add(1);
                        self.st[i] = if tail { St::Idle } else { St::Disc };
                    }
                }
            } else {
                match self.st[i] {
                    St::Fwd(o) => {
                        out[o] = f;
                        if tail {
                            self.st[i] = St::Idle;
                        }
                    }
                    St::Disc => {
                        if tail {
                            self.st[i] = St::Idle;
                        }
                    }
                    St::Idle => {
                        self.drops[i] = self.drops[i].wrapping_add(1);
                        if !tail {
                            self.st[i] = St::Disc;
                        }
                    }
                }
            }
        }
        self.out = out;
        self.lfsr = lfsr_next(self.lfsr);
    }
}

/// Reference fabric built from RefSwitches, wired from the formulas of protocol.md §3.
pub struct RefFabric {
    pub k: usize,
    pub n: usize,
    per: usize,
    pub sw: Vec<RefSwitch>,
    pub node_out: Vec<u64>,
}

impl RefFabric {
    pub fn new(k: usize, n: usize) -> Self {
        let per = k.pow(n as u32 - 1);
        let sw = (0..n * per)
            .map(|s| RefSwitch::new(k, n, s / per, s % per))
            .collect();
        Self {
            k,
            n,
            per,
            sw,
            node_out: vec![0; k.pow(n as u32)],
        }
    }

    pub fn step(&mut self, node_in: &[u64]) {
        let (k, n, per) = (self.k, self.n, self.per);
        let b = k.trailing_zeros() as usize;
        let mut inputs = vec![vec![0u64; 2 * k]; n * per];
        for (p, &f) in node_in.iter().enumerate() {
            inputs[p >> b][p & (k - 1)] = f;
        }
        for l in 0..n - 1 {
            for w in 0..per {
                let s = l * per + w;
                let wl = (w >> (l * b)) & (k - 1);
                for u in 0..k {
                    let w2 = (w & !((k - 1) << (l * b))) | (u << (l * b));
                    let s2 = (l + 1) * per + w2;
                    inputs[s2][wl] = self.sw[s].out[k + u];
                    inputs[s][k + u] = self.sw[s2].out[wl];
                }
            }
        }
        for (s, inp) in inputs.iter().enumerate() {
            self.sw[s].step(inp);
        }
        for p in 0..node_in.len() {
            self.node_out[p] = self.sw[p >> b].out[p & (k - 1)];
        }
    }

    pub fn drops(&self) -> Vec<u16> {
        self.sw
            .iter()
            .flat_map(|s| s.drops.iter().copied())
            .collect()
    }
}

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
