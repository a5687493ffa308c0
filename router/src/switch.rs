//! The switch of `docs/protocol.md` §4, as a rust-hdl block.

use crate::topology::Topology;
use idemnet_rtl::flit::Flit;
use idemnet_rtl::lfsr::{lfsr_seed, Lfsr};
use rust_hdl::prelude::*;

/// One switch `(l, w)` of a k-ary n-tree (`docs/protocol.md` §4).
///
/// Ports (Verilog names; `$i` is element `i`, `i` in `0..k`):
///
/// | port | dir | width | |
/// |------|-----|-------|-|
/// | `clock` | in | 1 | |
/// | `down_in$i` | in | 35 | flits from below (input `i`) |
/// | `up_in$i` | in | 35 | flits from above (input `k + i`) |
/// | `down_out$i` | out | 35 | flits to below (output `i`) |
/// | `up_out$i` | out | 35 | flits to above (output `k + i`) |
/// | `drops_down$i` | out | 16 | worms discarded that arrived on `down_in$i` (wrapping) |
/// | `drops_up$i` | out | 16 | worms discarded that arrived on `up_in$i` (wrapping) |
///
/// Timing: every output is a register output. A flit forwarded from an input in cycle `t`
/// (applied before rising edge `t`) is on the output register after edge `t` (one cycle per
/// hop); a drop counted in cycle `t` shows after edge `t`. Outputs no worm drives are all zero.
///
/// Internals: per input `hold` (one-hot mask of the output held in `forward(o)`, zero when not
/// forwarding), `discard`, and the drop counter `drops`; per output the output register
/// `out_reg`. The set of held outputs is derived from the `hold` masks; a head arriving on an
/// input in `forward(o)` releases `o` before any arbitration of the cycle. §4's priority order is
/// kept without chaining one input's grant through another's: a head gets its down port when
/// the port is free and no lower-numbered head asks for it (`claimed`, an OR of requests), and
/// the `r`-th up-bound head of the cycle (`rank`) gets `pick[r]`, the `r`-th free up port in the
/// order `start, start+1, ... (mod k)`, `start = lfsr & (k-1)`, which depends only on the held
/// set and the LFSR. Outputs are an AND-OR of the inputs sending to them. Masks are one-hot so
/// that every index rust-hdl has to evaluate is a loop variable.
#[derive(LogicBlock)]
pub struct Switch {
    pub clock: Signal<In, Clock>,
    pub down_in: Vec<Signal<In, Flit>>,
    pub up_in: Vec<Signal<In, Flit>>,
    pub down_out: Vec<Signal<Out, Flit>>,
    pub up_out: Vec<Signal<Out, Flit>>,
    pub drops_down: Vec<Signal<Out, Bits<16>>>,
    pub drops_up: Vec<Signal<Out, Bits<16>>>,
    // Registers.
    lfsr: Lfsr,
    out_reg: Vec<DFF<Flit>>,
    hold: Vec<DFF<Bits<16>>>,
    discard: Vec<DFF<Bit>>,
    drops: Vec<DFF<Bits<16>>>,
    // Per-switch constants.
    zero: Constant<Bits<16>>,
    zero_flit: Constant<Flit>,
    one: Constant<Bits<16>>,
    /// `k - 1`: mask of one base-k digit, and the rotate amount of `cand`.
    kmask: Constant<Bits<16>>,
    /// `l * b`: position of digit `l` of a destination.
    shift: Constant<Bits<16>>,
    /// A destination `d` is covered iff `d & cover_mask == cover_val`.
    cover_mask: Constant<Bits<16>>,
    cover_val: Constant<Bits<16>>,
    /// One-hot bit of output `k` (up port 0).
    up_base: Constant<Bits<16>>,
    /// Bits of outputs `k..2k` (the up ports).
    up_mask: Constant<Bits<16>>,
    /// Bit `i` set iff input `i` may route up (a down input of a non-top switch).
    may_up: Constant<Bits<16>>,
    // Combinational temporaries.
    flit: Vec<Signal<Local, Flit>>,
    /// The next value of each output register: the OR of the flits sent to it. Built here and
    /// not on the register's `d`, because rust-hdl's simulator does not read a DFF's `d` back
    /// within one update (the fabric tests failed that way).
    out_next: Vec<Signal<Local, Flit>>,
    held: Signal<Local, Bits<16>>,
    start: Signal<Local, Bits<16>>,
    dst: Signal<Local, Bits<16>>,
    want: Signal<Local, Bits<16>>,
    cand: Signal<Local, Bits<16>>,
    /// Up ports not yet picked by the `pick` walk.
    avail: Signal<Local, Bits<16>>,
    /// `pick[r]`: the `r`-th free up port in the order they are tried (zero if fewer are free).
    pick: Vec<Signal<Local, Bits<16>>>,
    /// Down ports asked for by lower-numbered heads this cycle.
    claimed: Signal<Local, Bits<16>>,
    /// One-hot rank of the next up-bound head among this cycle's up-bound heads.
    rank: Signal<Local, Bits<16>>,
    grant: Signal<Local, Bits<16>>,
    send: Signal<Local, Bits<16>>,
    valid: Signal<Local, Bit>,
    head: Signal<Local, Bit>,
    tail: Signal<Local, Bit>,
    covered: Signal<Local, Bit>,
    _k: usize,
    _n_in: usize,
}

fn vec_of<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
}

fn c16(x: u64) -> Constant<Bits<16>> {
    Constant::new(Bits::from(x & 0xFFFF))
}

impl Switch {
    /// Switch `(level, w)` of the tree `topo`. Panics if `(level, w)` does not exist; the
    /// fallible entry points are [`crate::switch_verilog`] and [`Topology::new`].
    pub fn new(topo: &Topology, level: usize, w: usize) -> Self {
        assert!(
            level < topo.n && w < topo.per_level,
            "no switch ({level}, {w})"
        );
        let k = topo.k;
        let b = topo.b;
        let s = topo.switch_index(level, w);
        let top = level == topo.n - 1;
        let cover_shift = (level + 1) * b;
        let cover_mask = if cover_shift >= 16 {
            0
        } else {
            0xFFFFu64 << cover_shift
        };
        let cover_val = if cover_shift >= 16 {
            0
        } else {
            ((w as u64) >> (level * b)) << cover_shift
        };
        let may_up = if top { 0 } else { (1u64 << k) - 1 };
        Self {
            clock: Default::default(),
            down_in: vec_of(k),
            up_in: vec_of(k),
            down_out: vec_of(k),
            up_out: vec_of(k),
            drops_down: vec_of(k),
            drops_up: vec_of(k),
            lfsr: Lfsr::new(lfsr_seed(s)),
            out_reg: vec_of(2 * k),
            hold: vec_of(2 * k),
            discard: vec_of(2 * k),
            drops: vec_of(2 * k),
            zero: c16(0),
            zero_flit: Constant::new(Bits::default()),
            one: c16(1),
            kmask: c16(k as u64 - 1),
            shift: c16((level * b) as u64),
            cover_mask: c16(cover_mask),
            cover_val: c16(cover_val),
            up_base: c16(1 << k),
            up_mask: c16(((1 << k) - 1) << k),
            may_up: c16(may_up),
            flit: vec_of(2 * k),
            out_next: vec_of(2 * k),
            held: Default::default(),
            start: Default::default(),
            dst: Default::default(),
            want: Default::default(),
            cand: Default::default(),
            avail: Default::default(),
            pick: vec_of(k),
            claimed: Default::default(),
            rank: Default::default(),
            grant: Default::default(),
            send: Default::default(),
            valid: Default::default(),
            head: Default::default(),
            tail: Default::default(),
            covered: Default::default(),
            _k: k,
            _n_in: 2 * k,
        }
    }

    /// The radix `k` of this switch.
    pub fn k(&self) -> usize {
        self._k
    }
}

impl Logic for Switch {
    // Literal bit positions below are the flit fields of idemnet_rtl::flit (rust-hdl cannot
    // name a Rust `const` in HDL code): 34 valid, 33 head, 32 tail, 15:0 destination.
    // `kk` loops run exactly once with `kk = k`: they bind `k` as a loop variable so that
    // rust-hdl can evaluate the index `i + kk` (up port `i` is input/output `k + i`).
    #[hdl_gen]
    fn update(&mut self) {
        // Registers hold by default; output registers show zero unless a flit is forwarded.
        self.lfsr.clock.next = self.clock.val();
        for i in 0..self._n_in {
            self.out_reg[i].clock.next = self.clock.val();
            self.hold[i].clock.next = self.clock.val();
            self.hold[i].d.next = self.hold[i].q.val();
            self.discard[i].clock.next = self.clock.val();
            self.discard[i].d.next = self.discard[i].q.val();
            self.drops[i].clock.next = self.clock.val();
            self.drops[i].d.next = self.drops[i].q.val();
        }
        // Inputs in priority order: down_in$i is input i, up_in$i is input k + i.
        for i in 0..self._k {
            self.flit[i].next = self.down_in[i].val();
        }
        for kk in self._k..(self._k + 1) {
            for i in 0..self._k {
                self.flit[i + kk].next = self.up_in[i].val();
            }
        }
        // Outputs held at the start of the cycle: a valid head releases its input's output
        // before any arbitration.
        self.held.next = self.zero.val();
        for i in 0..self._n_in {
            if !(self.flit[i].val().get_bit(34) & self.flit[i].val().get_bit(33)) {
                self.held.next = self.held.val() | self.hold[i].q.val();
            }
        }
        // First up port to try, one-hot in the up half of the output mask.
        self.start.next = self.up_base.val() << (self.lfsr.value.val() & self.kmask.val());
        // The free up ports in the order §4 tries them: `pick[r]` goes to the `r`-th up-bound
        // head of the cycle, since every earlier up-bound head took the first port still free.
        // It depends on `held` and `start` only, so the heads' grants need no chain through
        // each other's decisions.
        self.avail.next = !self.held.val() & self.up_mask.val();
        for r in 0..self._k {
            self.pick[r].next = self.zero.val();
            self.cand.next = self.start.val();
            for _m in 0..self._k {
                if !self.pick[r].val().any() & (self.avail.val() & self.cand.val()).any() {
                    self.pick[r].next = self.cand.val();
                }
                // Rotate cand to the next up port (mod k).
                self.cand.next = ((self.cand.val() << 1) & self.up_mask.val())
                    | ((self.cand.val() >> self.kmask.val()) & self.up_base.val());
            }
            self.avail.next = self.avail.val() & !self.pick[r].val();
        }
        self.claimed.next = self.zero.val();
        self.rank.next = self.one.val();
        for o in 0..self._n_in {
            self.out_next[o].next = self.zero_flit.val();
        }
        for i in 0..self._n_in {
            self.valid.next = self.flit[i].val().get_bit(34);
            self.head.next = self.flit[i].val().get_bit(33);
            self.tail.next = self.flit[i].val().get_bit(32);
            self.dst.next = self.flit[i].val().get_bits::<16>(0);
            // Route: covered destinations leave by down port (dst >> l*b) & (k-1).
            self.covered.next = (self.dst.val() & self.cover_mask.val()) == self.cover_val.val();
            self.want.next =
                self.one.val() << ((self.dst.val() >> self.shift.val()) & self.kmask.val());
            self.grant.next = self.zero.val();
            // One-hot mask of the output this input's flit is copied to (zero: none).
            self.send.next = self.zero.val();
            if self.valid.val() {
                if self.head.val() {
                    // Arbitration against outputs held from earlier cycles and outputs asked
                    // for by lower-numbered heads (the first head to ask for a free down port
                    // gets it).
                    if self.covered.val() {
                        if !((self.held.val() | self.claimed.val()) & self.want.val()).any() {
                            self.grant.next = self.want.val();
                        }
                        self.claimed.next = self.claimed.val() | self.want.val();
                    } else if self.may_up.val().get_bit(i) {
                        for r in 0..self._k {
                            if self.rank.val().get_bit(r) {
                                self.grant.next = self.pick[r].val();
                            }
                        }
                        self.rank.next = self.rank.val() << 1;
                    }
                    if self.grant.val().any() {
                        self.send.next = self.grant.val();
                        self.discard[i].d.next = false;
                        if self.tail.val() {
                            self.hold[i].d.next = self.zero.val();
                        } else {
                            self.hold[i].d.next = self.grant.val();
                        }
                    } else {
                        self.drops[i].d.next = self.drops[i].q.val() + self.one.val();
                        self.hold[i].d.next = self.zero.val();
                        self.discard[i].d.next = !self.tail.val();
                    }
                } else if self.hold[i].q.val().any() {
                    // Body or tail in forward(o); a tail frees o at the end of the cycle.
                    self.send.next = self.hold[i].q.val();
                    if self.tail.val() {
                        self.hold[i].d.next = self.zero.val();
                    }
                } else if self.discard[i].q.val() {
                    if self.tail.val() {
                        self.discard[i].d.next = false;
                    }
                } else {
                    // Body or tail while idle: a worm whose head was lost.
                    self.drops[i].d.next = self.drops[i].q.val() + self.one.val();
                    self.discard[i].d.next = !self.tail.val();
                }
            }
            // At most one input sends to an output, so the output is an OR of the senders.
            for o in 0..self._n_in {
                if self.send.val().get_bit(o) {
                    self.out_next[o].next = self.out_next[o].val() | self.flit[i].val();
                }
            }
        }
        for o in 0..self._n_in {
            self.out_reg[o].d.next = self.out_next[o].val();
        }
        for i in 0..self._k {
            self.down_out[i].next = self.out_reg[i].q.val();
            self.drops_down[i].next = self.drops[i].q.val();
        }
        for kk in self._k..(self._k + 1) {
            for i in 0..self._k {
                self.up_out[i].next = self.out_reg[i + kk].q.val();
                self.drops_up[i].next = self.drops[i + kk].q.val();
            }
        }
    }
}
