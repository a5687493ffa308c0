//! One switch of the k-ary n-tree, cycle-accurate per docs/protocol.md §4.
//!
//! Block ports (as [`crate::block::ModelBlock`], `clock` excluded), in this order:
//! `down_in$0..k` (in, 35), `up_in$0..k` (in, 35), `down_out$0..k` (out, 35),
//! `up_out$0..k` (out, 35), `drops_down$0..k` (out, 16), `drops_up$0..k` (out, 16).
//!
//! Timing (§4 "Latency"): every output is a register, and every output is what §4 decides for
//! the cycle before. One call to `step` applies `I_t` and takes edge `t`; the outputs then show
//! `O_t`: a flit forwarded from an input in cycle `t` is on its output in `O_(t+1)`, a drop
//! counted in cycle `t` shows in `O_(t+1)`, and an output no worm drives in cycle `t` is all zero
//! in `O_(t+1)`. `O_0` is all zero (counters 0).
//!
//! The decision logic of one cycle lives in [`decide`], shared with the flat-array
//! [`crate::fabric::Fabric`]; the one-cycle delay is the `decided` outputs kept until the next
//! step.

use crate::block::ModelBlock;
use crate::lfsr;
use crate::ports::PortSpec;
use crate::topology::{ConfigError, FatTree};

pub use idemnet_spec::flit::{FLIT_BITS, FLIT_MASK, HEAD, TAIL, VALID};
/// Drop counter width in bits.
pub const DROP_BITS: u32 = 16;

/// Input state: idle (no worm).
pub(crate) const IDLE: u8 = 0xFF;
/// Input state: discarding the rest of a worm.
pub(crate) const DISCARD: u8 = 0xFE;
// Any other value `o < 2k` is `forward(o)`; outputs are numbered like inputs
// (`0..k` down outputs, `k..2k` up outputs).

/// The routing constants of one switch.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Geom {
    pub k: u32,
    /// `(l+1) b`
    pub cover_shift: u32,
    /// `w >> (l b)`
    pub cover_val: u32,
    /// `l b`
    pub down_shift: u32,
    /// `l == n-1`: no up ports.
    pub top: bool,
}

impl Geom {
    pub(crate) fn new(tree: &FatTree, l: usize, w: usize) -> Self {
        let b = tree.b() as u32;
        let l32 = l as u32;
        Geom {
            k: tree.k as u32,
            cover_shift: (l32 + 1) * b,
            cover_val: (w >> (l * tree.b())) as u32,
            down_shift: l32 * b,
            top: l + 1 == tree.n,
        }
    }
}

/// Running totals that never wrap (for tests and summaries).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Worms discarded (sum of all drop counter increments).
    pub drops: u64,
    /// Valid flits that were dropped instead of forwarded.
    pub discarded_flits: u64,
}

/// Bit `i` of the first mask: input flit `i` is valid; of the second: it is a head. (Made
/// without a branch: whether a flit is a head is what a branch would guess worst.)
#[inline(always)]
pub(crate) fn masks_of(inp: &[u64]) -> (u32, u32) {
    let mut valid: u32 = 0;
    let mut heads: u32 = 0;
    for (i, &f) in inp.iter().enumerate() {
        valid |= (((f >> 34) & 1) as u32) << i;
        heads |= (((f >> 33) & 1) as u32) << i;
    }
    (valid, heads)
}

/// [`masks_of`] `N` flits, unrolled (`N` = 8 for a 4-ary tree's switches).
#[inline(always)]
pub(crate) fn masks<const N: usize>(inp: &[u64]) -> (u32, u32) {
    let inp: &[u64; N] = inp.try_into().expect("N inputs");
    masks_of(inp)
}

/// Where [`decide`] puts the flit it forwards to output `o` (`0..2k`): a switch's own outputs
/// (a slice), or the fabric's bus at the word of the input that output drives.
pub(crate) trait Outs {
    fn put(&mut self, o: usize, f: u64);
}

impl Outs for [u64] {
    #[inline(always)]
    fn put(&mut self, o: usize, f: u64) {
        self[o] = f;
    }
}

/// The decisions of §4 for one cycle of one switch (its outputs show them one cycle later).
///
/// `inp`: the `2k` input flits (down then up), `valid` and `heads` their [`masks_of`]. `out`: where the
/// flits decided for the `2k` outputs go, which the caller has zeroed. `state`, `drops`: per
/// input. `held`: bit `o` set while output `o` is held.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn decide(
    g: &Geom,
    inp: &[u64],
    valid: u32,
    heads: u32,
    state: &mut [u8],
    held: &mut u16,
    lfsr_v: &mut u16,
    drops: &mut [u16],
    out: &mut (impl Outs + ?Sized),
    cnt: &mut Counters,
) {
    let k = g.k as usize;
    let n_in = 2 * k;
    let inp = &inp[..n_in];
    let state = &mut state[..n_in];
    let drops = &mut drops[..n_in];

    let lv = *lfsr_v;
    *lfsr_v = lfsr::step(lv);
    if valid == 0 {
        return;
    }
    let heads = heads & valid;

    // A head arriving on an input still in forward(o) releases o before any arbitration.
    let mut m = heads;
    while m != 0 {
        let i = m.trailing_zeros() as usize;
        m &= m - 1;
        let st = state[i];
        if (st as usize) < n_in {
            *held &= !(1u16 << st);
            state[i] = IDLE;
        }
    }

    let kmask: u32 = (1u32 << k) - 1;
    let start = (lv as u32) & (g.k - 1);
    let mut release: u16 = 0;
    // Body flits first, then heads in input order: a body flit goes where its own input's
    // worm holds an output, which no head can be granted (a head's input holds none after the
    // release above), and only heads change `held` before the end of the cycle, so the two
    // kinds do not meet; and no branch asks which kind each flit is.
    let mut m = valid & !heads;
    while m != 0 {
        let i = m.trailing_zeros() as usize;
        m &= m - 1;
        let f = inp[i] & FLIT_MASK;
        let tail = f & TAIL != 0;
        let st = state[i];
        if (st as usize) < n_in {
            out.put(st as usize, f);
            // Branch-free: a tail releases its output at the end of the cycle.
            release |= (tail as u16) << st;
            state[i] = if tail { IDLE } else { st };
        } else {
            cnt.discarded_flits += 1;
            if st == IDLE {
                drops[i] = drops[i].wrapping_add(1);
                cnt.drops += 1;
                if !tail {
                    state[i] = DISCARD;
                }
            } else if tail {
                state[i] = IDLE;
            }
        }
    }
    let mut m = heads;
    while m != 0 {
        let i = m.trailing_zeros() as usize;
        m &= m - 1;
        let f = inp[i] & FLIT_MASK;
        let tail = f & TAIL != 0;
        let dst = (f & 0xFFFF) as u32;
        let mut grant: Option<usize> = None;
        if (dst >> g.cover_shift) == g.cover_val {
            let o = ((dst >> g.down_shift) & (g.k - 1)) as usize;
            if *held & (1 << o) == 0 {
                grant = Some(o);
            }
        } else if i < k && !g.top {
            let free = (!(*held as u32) >> k) & kmask;
            if free != 0 {
                let rot = ((free >> start) | (free << (g.k - start))) & kmask;
                let u = (start + rot.trailing_zeros()) & (g.k - 1);
                grant = Some(k + u as usize);
            }
        }
        match grant {
            Some(o) => {
                out.put(o, f);
                *held |= 1 << o;
                if tail {
                    release |= 1 << o;
                    state[i] = IDLE;
                } else {
                    state[i] = o as u8;
                }
            }
            None => {
                drops[i] = drops[i].wrapping_add(1);
                cnt.drops += 1;
                cnt.discarded_flits += 1;
                state[i] = if tail { IDLE } else { DISCARD };
            }
        }
    }
    *held &= !release;
}

/// A single switch `(l, w)` of a k-ary n-tree, as a standalone block.
#[derive(Clone, Debug)]
pub struct Switch {
    tree: FatTree,
    level: usize,
    w: usize,
    index: usize,
    geom: Geom,
    state: Vec<u8>,
    held: u16,
    lfsr: u16,
    /// The counters after the last cycle's decisions.
    decided_drops: Vec<u16>,
    /// The flits decided in the last cycle, which the outputs show after the next edge.
    decided: Vec<u64>,
    /// What the outputs show: the flits and counters decided one cycle before.
    out: Vec<u64>,
    drops: Vec<u16>,
    counters: Counters,
}

impl Switch {
    /// Switch `(level, w)` of the tree `tree`, at power-on (LFSR at `seed(s)`).
    pub fn new(tree: FatTree, level: usize, w: usize) -> Result<Self, ConfigError> {
        if level >= tree.n {
            return Err(ConfigError(format!(
                "switch level {level} does not exist: levels are 0..{}",
                tree.n
            )));
        }
        if w >= tree.per_level() {
            return Err(ConfigError(format!(
                "switch w = {w} does not exist: w is in 0..{}",
                tree.per_level()
            )));
        }
        let index = tree.switch_index(level, w);
        let n_in = 2 * tree.k;
        Ok(Switch {
            tree,
            level,
            w,
            index,
            geom: Geom::new(&tree, level, w),
            state: vec![IDLE; n_in],
            held: 0,
            lfsr: lfsr::seed(index),
            decided_drops: vec![0; n_in],
            decided: vec![0; n_in],
            out: vec![0; n_in],
            drops: vec![0; n_in],
            counters: Counters::default(),
        })
    }

    pub fn tree(&self) -> FatTree {
        self.tree
    }
    pub fn level(&self) -> usize {
        self.level
    }
    pub fn w(&self) -> usize {
        self.w
    }
    /// Global index `s = l * k^(n-1) + w`.
    pub fn index(&self) -> usize {
        self.index
    }
    /// The LFSR value the next cycle will use.
    pub fn lfsr(&self) -> u16 {
        self.lfsr
    }
    /// Overrides the LFSR value the next cycle will use (tests).
    pub fn set_lfsr(&mut self, v: u16) {
        self.lfsr = v;
    }

    /// One cycle: `inputs` are the `2k` input flits (`down_in$0..k` then `up_in$0..k`).
    pub fn step(&mut self, inputs: &[u64]) {
        let n_in = 2 * self.tree.k;
        assert!(inputs.len() >= n_in, "switch needs {n_in} input flits");
        // Edge t shows what cycle t - 1 decided.
        std::mem::swap(&mut self.out, &mut self.decided);
        self.drops.copy_from_slice(&self.decided_drops);
        self.decided.fill(0);
        let (valid, heads) = masks_of(&inputs[..n_in]);
        decide(
            &self.geom,
            inputs,
            valid,
            heads,
            &mut self.state,
            &mut self.held,
            &mut self.lfsr,
            &mut self.decided_drops,
            &mut self.decided[..],
            &mut self.counters,
        );
    }

    /// `O_t` of the flit outputs: `down_out$0..k` then `up_out$0..k`.
    pub fn outputs(&self) -> &[u64] {
        &self.out
    }
    /// The flits the last cycle decided, which the outputs show after the next edge.
    pub fn decided(&self) -> &[u64] {
        &self.decided
    }
    /// `O_t` of the drop counters: `drops_down$0..k` then `drops_up$0..k`.
    pub fn drops(&self) -> &[u16] {
        &self.drops
    }
    /// The drop counters after the last cycle's decisions, which they show after the next edge.
    pub fn decided_drops(&self) -> &[u16] {
        &self.decided_drops
    }
    /// Non-wrapping totals of everything decided so far (one cycle ahead of [`Switch::drops`]).
    pub fn counters(&self) -> Counters {
        self.counters
    }
}

impl ModelBlock for Switch {
    fn ports(&self) -> Vec<PortSpec> {
        let k = self.tree.k;
        let mut v = Vec::with_capacity(6 * k);
        for i in 0..k {
            v.push(PortSpec::input(format!("down_in${i}"), FLIT_BITS));
        }
        for i in 0..k {
            v.push(PortSpec::input(format!("up_in${i}"), FLIT_BITS));
        }
        for i in 0..k {
            v.push(PortSpec::output(format!("down_out${i}"), FLIT_BITS));
        }
        for i in 0..k {
            v.push(PortSpec::output(format!("up_out${i}"), FLIT_BITS));
        }
        for i in 0..k {
            v.push(PortSpec::output(format!("drops_down${i}"), DROP_BITS));
        }
        for i in 0..k {
            v.push(PortSpec::output(format!("drops_up${i}"), DROP_BITS));
        }
        v
    }

    fn step(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        Switch::step(self, inputs);
        let n = 2 * self.tree.k;
        outputs[..n].copy_from_slice(&self.out);
        for (o, &d) in outputs[n..2 * n].iter_mut().zip(&self.drops) {
            *o = d as u64;
        }
    }
}

/// Builds a head flit for destination `dst` (source `src`).
pub fn head_flit(src: u16, dst: u16, tail: bool) -> u64 {
    VALID | HEAD | if tail { TAIL } else { 0 } | ((src as u64) << 16) | dst as u64
}

/// Builds a body (or tail) flit.
pub fn body_flit(data: u32, tail: bool) -> u64 {
    VALID | if tail { TAIL } else { 0 } | data as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> FatTree {
        FatTree::new(4, 2).unwrap()
    }

    /// Leaf switch w = 1 (covers nodes 4..8), k = 4.
    fn leaf() -> Switch {
        Switch::new(tree(), 0, 1).unwrap()
    }

    /// One cycle; returns the flits §4 decided for it (the outputs show them one cycle later).
    fn step(sw: &mut Switch, ins: &[(usize, u64)]) -> Vec<u64> {
        let mut v = vec![0u64; 8];
        for &(i, f) in ins {
            v[i] = f;
        }
        sw.step(&v);
        sw.decided().to_vec()
    }

    #[test]
    fn outputs_show_decisions_one_cycle_later() {
        let mut sw = leaf();
        let h = head_flit(4, 6, false);
        // Cycle 0: input 0 gets down port 2, input 1 is discarded (port 2 claimed first).
        let decided = step(&mut sw, &[(0, h), (1, head_flit(5, 6, true))]);
        assert_eq!(decided[2], h);
        assert_eq!(sw.decided_drops()[1], 1);
        // O_0 shows nothing yet: outputs and counters are one cycle behind.
        assert!(sw.outputs().iter().all(|&x| x == 0));
        assert_eq!(sw.drops(), &[0; 8]);
        let t = body_flit(1, true);
        let decided = step(&mut sw, &[(0, t)]);
        assert_eq!(decided[2], t);
        assert_eq!(sw.outputs()[2], h);
        assert_eq!(sw.drops()[1], 1);
        step(&mut sw, &[]);
        assert_eq!(sw.outputs()[2], t);
        step(&mut sw, &[]);
        assert!(sw.outputs().iter().all(|&x| x == 0));
    }

    #[test]
    fn seed_and_bad_config() {
        let sw = Switch::new(tree(), 1, 3).unwrap();
        assert_eq!(sw.index(), 7);
        assert_eq!(sw.lfsr(), lfsr::seed(7));
        assert!(Switch::new(tree(), 2, 0).is_err());
        assert!(Switch::new(tree(), 0, 4).is_err());
    }

    #[test]
    fn local_forward() {
        let mut sw = leaf();
        let o = step(&mut sw, &[(0, head_flit(4, 6, false))]);
        assert_eq!(o[2], head_flit(4, 6, false));
        assert!(o.iter().enumerate().all(|(j, &x)| j == 2 || x == 0));
        // Bubble: the output shows zero but is still held.
        let o = step(&mut sw, &[]);
        assert!(o.iter().all(|&x| x == 0));
        let o = step(&mut sw, &[(0, body_flit(0x101, true))]);
        assert_eq!(o[2], body_flit(0x101, true));
        assert_eq!(sw.decided_drops(), &[0; 8]);
    }

    #[test]
    fn blocked_head_discards_whole_worm() {
        let mut sw = leaf();
        // Input 0 grabs down port 2 (node 6).
        step(&mut sw, &[(0, head_flit(4, 6, false))]);
        // Input 1 wants it too: discarded, counted once, body and tail dropped silently.
        let o = step(
            &mut sw,
            &[(0, body_flit(1, false)), (1, head_flit(5, 6, false))],
        );
        assert_eq!(o[2], body_flit(1, false));
        assert_eq!(sw.decided_drops()[1], 1);
        let o = step(
            &mut sw,
            &[(0, body_flit(2, false)), (1, body_flit(3, false))],
        );
        assert_eq!(o[2], body_flit(2, false));
        let o = step(&mut sw, &[(0, body_flit(4, true)), (1, body_flit(5, true))]);
        assert_eq!(o[2], body_flit(4, true));
        assert!(o.iter().enumerate().all(|(j, &x)| j == 2 || x == 0));
        assert_eq!(sw.decided_drops(), &[0, 1, 0, 0, 0, 0, 0, 0]);
        assert_eq!(
            sw.counters(),
            Counters {
                drops: 1,
                discarded_flits: 3
            }
        );
        // Input 1 is idle again: its next worm gets through.
        let o = step(&mut sw, &[(1, head_flit(5, 6, true))]);
        assert_eq!(o[2], head_flit(5, 6, true));
        assert_eq!(sw.decided_drops()[1], 1);
    }

    #[test]
    fn tail_frees_next_cycle_not_same_cycle() {
        let mut sw = leaf();
        step(&mut sw, &[(3, head_flit(7, 4, false))]);
        // Tail on input 3 in the same cycle as a head for the same port on input 0 (higher
        // priority): the port is still held this cycle.
        let o = step(
            &mut sw,
            &[(3, body_flit(1, true)), (0, head_flit(4, 4, true))],
        );
        assert_eq!(o[0], body_flit(1, true));
        assert_eq!(sw.decided_drops()[0], 1);
        // Next cycle it is free.
        let o = step(&mut sw, &[(0, head_flit(4, 4, false))]);
        assert_eq!(o[0], head_flit(4, 4, false));
        // Same with the tail on a higher-priority input than the head.
        let mut sw = leaf();
        step(&mut sw, &[(0, head_flit(4, 7, false))]);
        let o = step(
            &mut sw,
            &[(0, body_flit(1, true)), (2, head_flit(6, 7, false))],
        );
        assert_eq!(o[3], body_flit(1, true));
        assert_eq!(sw.decided_drops()[2], 1);
        // A one-flit worm holds its port for its own cycle only.
        let mut sw = leaf();
        let o = step(
            &mut sw,
            &[(0, head_flit(4, 5, true)), (2, head_flit(6, 5, true))],
        );
        assert_eq!(o[1], head_flit(4, 5, true));
        assert_eq!(sw.decided_drops()[2], 1);
        let o = step(&mut sw, &[(2, head_flit(6, 5, true))]);
        assert_eq!(o[1], head_flit(6, 5, true));
    }

    #[test]
    fn same_cycle_priority() {
        let mut sw = leaf();
        // Up input 0 (input 4) and down input 3 both want down port 1: input 3 wins.
        let o = step(
            &mut sw,
            &[(4, head_flit(12, 5, false)), (3, head_flit(7, 5, false))],
        );
        assert_eq!(o[1], head_flit(7, 5, false));
        assert_eq!(sw.decided_drops()[4], 1);
        assert_eq!(sw.decided_drops()[3], 0);
    }

    #[test]
    fn up_port_from_lfsr_start() {
        let mut sw = leaf();
        sw.set_lfsr(0x0002); // start = 2
        let o = step(&mut sw, &[(0, head_flit(4, 0, false))]);
        assert_eq!(o[4 + 2], head_flit(4, 0, false));
        assert_eq!(sw.lfsr(), lfsr::step(2));
        // start = 3, port 3 free: taken, although port 0 (lower-numbered) is free too.
        sw.set_lfsr(0x0003);
        let o = step(
            &mut sw,
            &[(0, body_flit(1, false)), (1, head_flit(5, 8, false))],
        );
        assert_eq!(o[6], body_flit(1, false));
        assert_eq!(o[7], head_flit(5, 8, false));
        assert_eq!(o[4], 0);
        // start = 2 again, 2 and 3 held: wraps to 0. Same start for all inputs this cycle: the
        // next head gets 1.
        sw.set_lfsr(0x0006);
        let o = step(
            &mut sw,
            &[
                (0, body_flit(2, false)),
                (1, body_flit(3, false)),
                (2, head_flit(6, 12, false)),
                (3, head_flit(7, 13, false)),
            ],
        );
        assert_eq!(o[4], head_flit(6, 12, false));
        assert_eq!(o[5], head_flit(7, 13, false));
        assert_eq!(sw.decided_drops(), &[0; 8]);
        // All four up ports held by the four down inputs.
        let o = step(
            &mut sw,
            &[
                (0, body_flit(4, false)),
                (1, body_flit(5, false)),
                (2, body_flit(6, false)),
                (3, body_flit(7, false)),
            ],
        );
        assert_eq!(
            &o[4..],
            &[
                body_flit(6, false),
                body_flit(7, false),
                body_flit(4, false),
                body_flit(5, false)
            ]
        );
        // Up inputs never go up: a head from above for a node not covered is discarded.
        let _ = step(&mut sw, &[(5, head_flit(0, 0, false))]);
        assert_eq!(sw.decided_drops()[5], 1);
    }

    #[test]
    fn headless_flits_counted() {
        let mut sw = leaf();
        // A body flit on an idle input: one discarded worm, rest of it dropped silently.
        let o = step(&mut sw, &[(2, body_flit(1, false))]);
        assert!(o.iter().all(|&x| x == 0));
        assert_eq!(sw.decided_drops()[2], 1);
        step(&mut sw, &[(2, body_flit(2, false))]);
        step(&mut sw, &[(2, body_flit(3, true))]);
        assert_eq!(sw.decided_drops()[2], 1);
        // A lone tail on an idle input counts once and stays idle.
        step(&mut sw, &[(2, body_flit(4, true))]);
        assert_eq!(sw.decided_drops()[2], 2);
        let o = step(&mut sw, &[(2, head_flit(6, 7, true))]);
        assert_eq!(o[3], head_flit(6, 7, true));
        assert_eq!(sw.decided_drops()[2], 2);
        // Invalid flits with garbage bits are ignored.
        let o = step(&mut sw, &[(2, HEAD | TAIL | 0xFFFF_FFFF)]);
        assert!(o.iter().all(|&x| x == 0));
        assert_eq!(sw.decided_drops()[2], 2);
    }

    #[test]
    fn head_mid_worm_releases_before_arbitration() {
        let mut sw = leaf();
        step(&mut sw, &[(3, head_flit(7, 4, false))]);
        // Input 3 gets a new head (its worm lost the tail) while input 0 wants port 0:
        // port 0 is released first, input 0 (higher priority) takes it, input 3's new head for
        // port 0 is discarded.
        let o = step(
            &mut sw,
            &[(0, head_flit(4, 4, false)), (3, head_flit(7, 4, false))],
        );
        assert_eq!(o[0], head_flit(4, 4, false));
        assert_eq!(sw.decided_drops()[3], 1);
        assert_eq!(sw.decided_drops()[0], 0);
        // Input 0 now holds it; input 0 gets a new head for port 1: port 0 is released.
        let o = step(&mut sw, &[(0, head_flit(4, 5, false))]);
        assert_eq!(o[1], head_flit(4, 5, false));
        let o = step(&mut sw, &[(1, head_flit(5, 4, true))]);
        assert_eq!(o[0], head_flit(5, 4, true));
    }

    #[test]
    fn drop_counter_wraps() {
        let mut sw = leaf();
        for _ in 0..65537 {
            step(&mut sw, &[(0, body_flit(0, true))]);
        }
        assert_eq!(sw.decided_drops()[0], 1);
        assert_eq!(sw.counters().drops, 65537);
    }

    #[test]
    fn top_switch_discards_beyond_top() {
        let mut sw = Switch::new(tree(), 1, 0).unwrap();
        let o = step(
            &mut sw,
            &[(0, head_flit(0, 16, true)), (1, head_flit(4, 9, true))],
        );
        assert_eq!(sw.decided_drops()[0], 1);
        assert_eq!(o[2], head_flit(4, 9, true));
        assert!(o[4..].iter().all(|&x| x == 0));
    }
}
