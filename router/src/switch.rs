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
/// Timing: every output is a register output, and every output is §4's, one cycle later (two
/// cycles per hop). A flit forwarded from an input in cycle `t` (applied before rising edge `t`)
/// is on the output register after edge `t + 1`; a drop counted in cycle `t` shows after edge
/// `t + 1`. After power-on the outputs are zero and the counters 0. Outputs no worm drives are
/// all zero.
///
/// Internals: two stages, so that no path runs from an input's destination through the
/// arbitration into a 35-bit crossbar, nor from the arbitration into a 16-bit counter.
///
/// * Stage 1 decides cycle `t` exactly as §4 does and registers the decision: per output, `owner`
///   (the number of the input it takes flits from), `send` (it takes that input's flit of cycle
///   `t`) and `busy` (it is held after cycle `t`); per input, `flit_stage` (its flit of cycle
///   `t`), `in_worm` (it is inside a worm, forwarding or discarding it) and `drop_event` (it
///   discarded a worm in cycle `t`).
/// * Stage 2 is a multiplexer and the counters: `out_reg[o] = send[o] ? flit_stage[owner[o]]
///   : 0` (zero through the flip-flops' synchronous reset), `drops[i] += drop_event[i]`.
///
/// The decision keeps §4's priority order without chaining one input's grant through another's.
/// An output is held at the start of the cycle (`held`) when it is `busy` and its owner has no
/// head this cycle (a head releases its input's output before any arbitration). A free down port
/// goes to the lowest-numbered head that asks for it (`first_request`, input-only). The `r`-th
/// up-bound head of the cycle (`up_rank`, input-only) gets the `r`-th free up port in the order
/// `start, start+1, ... (mod k)`, `start = lfsr & (k-1)`: the walk that numbers the free up ports
/// (`served_rank[u]`) depends only on `held` and the LFSR. Up inputs never go up, so up outputs
/// only take the `k` down inputs. Per input, forwarding or discarding is not stored: an input is
/// in `forward(o)` exactly when output `o` is busy and owned by it, so one bit (`in_worm`)
/// suffices, and it depends on the input's flits alone. Masks are one-hot so that every index
/// rust-hdl has to evaluate is a loop variable.
#[derive(LogicBlock)]
pub struct Switch {
    pub clock: Signal<In, Clock>,
    pub down_in: Vec<Signal<In, Flit>>,
    pub up_in: Vec<Signal<In, Flit>>,
    pub down_out: Vec<Signal<Out, Flit>>,
    pub up_out: Vec<Signal<Out, Flit>>,
    pub drops_down: Vec<Signal<Out, Bits<16>>>,
    pub drops_up: Vec<Signal<Out, Bits<16>>>,
    // Stage 1 registers.
    lfsr: Lfsr,
    /// Per input: its flit of the cycle stage 1 decided.
    flit_stage: Vec<DFF<Flit>>,
    /// Per input: inside a worm (the last valid flit was not a tail).
    in_worm: Vec<DFF<Bit>>,
    /// Per input: a worm was discarded in the cycle stage 1 decided.
    drop_event: Vec<DFF<Bit>>,
    /// Per output: the input it takes flits from (meaningful while `busy` or `send`).
    owner: Vec<DFF<Bits<4>>>,
    /// Per output: held by `owner` at the end of the cycle stage 1 decided.
    busy: Vec<DFF<Bit>>,
    /// Per output: takes `owner`'s flit of the cycle stage 1 decided.
    send: Vec<DFF<Bit>>,
    // Stage 2 registers.
    out_reg: Vec<DFF<Flit>>,
    drops: Vec<DFF<Bits<16>>>,
    // Per-switch constants.
    /// `input_number[i]` is `i`, the value `owner` holds for input `i`.
    input_number: Vec<Constant<Bits<4>>>,
    /// Per output: bit `i` set iff input `i` may send to it (up outputs: the down inputs of a
    /// switch that is not at the top; down outputs: every input).
    sources: Vec<Constant<Bits<16>>>,
    zero_mask: Constant<Bits<16>>,
    /// What a drop counter adds per discarded worm.
    drop_increment: Constant<Bits<16>>,
    zero_flit: Constant<Flit>,
    /// One-hot mask of port 0 (the lowest-numbered port, and the lowest rank).
    lowest_port: Constant<Bits<16>>,
    /// `k - 1`: mask of one base-k digit.
    digit_mask: Constant<Bits<16>>,
    /// `l * b`: position of digit `l` of a destination.
    digit_shift: Constant<Bits<16>>,
    /// A destination `d` is covered iff `d & cover_mask == cover_value`.
    cover_mask: Constant<Bits<16>>,
    cover_value: Constant<Bits<16>>,
    /// Bit `i` set iff input `i` may route up (a down input of a non-top switch).
    may_up: Constant<Bits<16>>,
    // Stage 1 combinational values.
    /// The inputs in priority order: `down_in$i` is input `i`, `up_in$i` is input `k + i`.
    flit: Vec<Signal<Local, Flit>>,
    /// Per input: one-hot mask of the down port its head asks for (zero: none).
    down_request: Vec<Signal<Local, Bits<16>>>,
    /// Per input: `down_request` unless a lower-numbered head asks for the same port.
    first_request: Vec<Signal<Local, Bits<16>>>,
    /// Down ports asked for by the inputs looked at so far; after the loop, by any head.
    claimed: Signal<Local, Bits<16>>,
    /// Per down port: the lowest-numbered input asking for it, and that head's tail bit.
    first_owner: Vec<Signal<Local, Bits<4>>>,
    first_tail: Vec<Signal<Local, Bit>>,
    /// Per input: one-hot rank among this cycle's up-bound heads (zero: not up-bound).
    up_rank: Vec<Signal<Local, Bits<16>>>,
    /// One-hot rank the next up-bound head gets.
    next_rank: Signal<Local, Bits<16>>,
    /// Ranks some up-bound head has this cycle.
    requested_ranks: Signal<Local, Bits<16>>,
    /// Per rank: the input that has it, and that head's tail bit.
    rank_owner: Vec<Signal<Local, Bits<4>>>,
    rank_tail: Vec<Signal<Local, Bit>>,
    /// Per output: held at the start of the cycle, before any arbitration.
    held: Vec<Signal<Local, Bit>>,
    /// The valid, head and tail bits of the flit on the input that owns the output looked at.
    owner_valid: Signal<Local, Bit>,
    owner_head: Signal<Local, Bit>,
    owner_tail: Signal<Local, Bit>,
    /// One-hot up port the walk of the free up ports is at, and the rank it gives the next one.
    position: Signal<Local, Bits<16>>,
    walk_rank: Signal<Local, Bits<16>>,
    position_free: Signal<Local, Bit>,
    /// Per up port: one-hot rank of the up-bound head it goes to if there is one (zero: held).
    served_rank: Vec<Signal<Local, Bits<16>>>,
    /// Ranks that get an up port: as many as there are free up ports.
    served_ranks: Signal<Local, Bits<16>>,
    new_owner: Signal<Local, Bits<4>>,
    new_tail: Signal<Local, Bit>,
    granted: Signal<Local, Bit>,
    valid: Signal<Local, Bit>,
    head: Signal<Local, Bit>,
    tail: Signal<Local, Bit>,
    destination: Signal<Local, Bits<16>>,
    covered: Signal<Local, Bit>,
    // Stage 2 combinational value.
    /// The flit of the output's owner, before the `send` gate (rust-hdl's simulator does not
    /// read a DFF's `d` back within one update, so it is built here).
    out_next: Signal<Local, Flit>,
    _k: usize,
    _n_in: usize,
}

fn vec_of<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
}

fn mask(x: u64) -> Constant<Bits<16>> {
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
        let cover_value = if cover_shift >= 16 {
            0
        } else {
            ((w as u64) >> (level * b)) << cover_shift
        };
        let may_up = if top { 0 } else { (1u64 << k) - 1 };
        let n_in = 2 * k;
        Self {
            clock: Default::default(),
            down_in: vec_of(k),
            up_in: vec_of(k),
            down_out: vec_of(k),
            up_out: vec_of(k),
            drops_down: vec_of(k),
            drops_up: vec_of(k),
            lfsr: Lfsr::new(lfsr_seed(s)),
            flit_stage: vec_of(n_in),
            in_worm: vec_of(n_in),
            drop_event: vec_of(n_in),
            owner: vec_of(n_in),
            busy: vec_of(n_in),
            send: vec_of(n_in),
            out_reg: vec_of(n_in),
            drops: vec_of(n_in),
            sources: (0..n_in)
                .map(|o| mask(if o < k { (1 << n_in) - 1 } else { may_up }))
                .collect(),
            input_number: (0..n_in)
                .map(|i| Constant::new(Bits::from(i as u64)))
                .collect(),
            zero_mask: mask(0),
            drop_increment: mask(1),
            zero_flit: Constant::new(Bits::default()),
            lowest_port: mask(1),
            digit_mask: mask(k as u64 - 1),
            digit_shift: mask((level * b) as u64),
            cover_mask: mask(cover_mask),
            cover_value: mask(cover_value),
            may_up: mask(may_up),
            flit: vec_of(n_in),
            down_request: vec_of(n_in),
            first_request: vec_of(n_in),
            claimed: Default::default(),
            first_owner: vec_of(k),
            first_tail: vec_of(k),
            up_rank: vec_of(n_in),
            next_rank: Default::default(),
            requested_ranks: Default::default(),
            rank_owner: vec_of(k),
            rank_tail: vec_of(k),
            held: vec_of(n_in),
            owner_valid: Default::default(),
            owner_head: Default::default(),
            owner_tail: Default::default(),
            position: Default::default(),
            walk_rank: Default::default(),
            position_free: Default::default(),
            served_rank: vec_of(k),
            served_ranks: Default::default(),
            new_owner: Default::default(),
            new_tail: Default::default(),
            granted: Default::default(),
            valid: Default::default(),
            head: Default::default(),
            tail: Default::default(),
            destination: Default::default(),
            covered: Default::default(),
            out_next: Default::default(),
            _k: k,
            _n_in: n_in,
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
        // Registers hold by default; nothing is sent or dropped unless decided below.
        self.lfsr.clock.next = self.clock.val();
        for i in 0..self._n_in {
            self.flit_stage[i].clock.next = self.clock.val();
            self.in_worm[i].clock.next = self.clock.val();
            self.in_worm[i].d.next = self.in_worm[i].q.val();
            self.drop_event[i].clock.next = self.clock.val();
            self.owner[i].clock.next = self.clock.val();
            self.owner[i].d.next = self.owner[i].q.val();
            self.busy[i].clock.next = self.clock.val();
            self.busy[i].d.next = self.busy[i].q.val();
            self.send[i].clock.next = self.clock.val();
            self.send[i].d.next = false;
            self.out_reg[i].clock.next = self.clock.val();
            self.drops[i].clock.next = self.clock.val();
        }
        for i in 0..self._k {
            self.flit[i].next = self.down_in[i].val();
        }
        for kk in self._k..(self._k + 1) {
            for i in 0..self._k {
                self.flit[i + kk].next = self.up_in[i].val();
            }
        }

        // ---- Stage 1, decode: what each head asks for (this cycle's flits only).
        self.claimed.next = self.zero_mask.val();
        self.next_rank.next = self.lowest_port.val();
        self.requested_ranks.next = self.zero_mask.val();
        for i in 0..self._n_in {
            self.flit_stage[i].d.next = self.flit[i].val();
            self.valid.next = self.flit[i].val().get_bit(34);
            self.head.next = self.flit[i].val().get_bit(33);
            self.tail.next = self.flit[i].val().get_bit(32);
            self.destination.next = self.flit[i].val().get_bits::<16>(0);
            if self.valid.val() {
                self.in_worm[i].d.next = !self.tail.val();
            }
            // Route: covered destinations leave by down port (dst >> l*b) & (k-1); others go
            // up if the input may.
            self.covered.next =
                (self.destination.val() & self.cover_mask.val()) == self.cover_value.val();
            self.down_request[i].next = self.zero_mask.val();
            self.up_rank[i].next = self.zero_mask.val();
            if self.valid.val() & self.head.val() {
                if self.covered.val() {
                    self.down_request[i].next = self.lowest_port.val()
                        << ((self.destination.val() >> self.digit_shift.val())
                            & self.digit_mask.val());
                } else if self.may_up.val().get_bit(i) {
                    self.up_rank[i].next = self.next_rank.val();
                    self.next_rank.next = self.next_rank.val() << 1;
                }
            }
            self.first_request[i].next = self.down_request[i].val() & !self.claimed.val();
            self.claimed.next = self.claimed.val() | self.down_request[i].val();
            self.requested_ranks.next = self.requested_ranks.val() | self.up_rank[i].val();
        }
        // The first requests and the ranks are one-hot across inputs, so each owner below is
        // the one input that matches (input 0 when none does: then nothing is sent).
        for d in 0..self._k {
            self.first_owner[d].next = self.input_number[0].val();
            self.first_tail[d].next = false;
        }
        for r in 0..self._k {
            self.rank_owner[r].next = self.input_number[0].val();
            self.rank_tail[r].next = false;
        }
        for i in 0..self._n_in {
            for d in 0..self._k {
                if self.first_request[i].val().get_bit(d) {
                    self.first_owner[d].next = self.input_number[i].val();
                    self.first_tail[d].next = self.flit[i].val().get_bit(32);
                }
            }
            for r in 0..self._k {
                if self.up_rank[i].val().get_bit(r) {
                    self.rank_owner[r].next = self.input_number[i].val();
                    self.rank_tail[r].next = self.flit[i].val().get_bit(32);
                }
            }
        }

        // ---- Stage 1, held outputs: an output is held at the start of the cycle unless its
        // owner's flit is a head. A held output takes its owner's body or tail flit, if there
        // is one, and a tail frees it at the end of the cycle.
        for o in 0..self._n_in {
            self.owner_valid.next = false;
            self.owner_head.next = false;
            self.owner_tail.next = false;
            for i in 0..self._n_in {
                if self.sources[o].val().get_bit(i)
                    & (self.owner[o].q.val() == self.input_number[i].val())
                {
                    self.owner_valid.next = self.flit[i].val().get_bit(34);
                    self.owner_head.next = self.flit[i].val().get_bit(33);
                    self.owner_tail.next = self.flit[i].val().get_bit(32);
                }
            }
            self.held[o].next =
                self.busy[o].q.val() & !(self.owner_valid.val() & self.owner_head.val());
            if self.held[o].val() {
                self.send[o].d.next = self.owner_valid.val();
                self.busy[o].d.next = !(self.owner_valid.val() & self.owner_tail.val());
            }
        }

        // ---- Stage 1, grants. A free down port goes to its first request.
        for d in 0..self._k {
            if !self.held[d].val() {
                self.owner[d].d.next = self.first_owner[d].val();
                self.send[d].d.next = self.claimed.val().get_bit(d);
                self.busy[d].d.next = self.claimed.val().get_bit(d) & !self.first_tail[d].val();
            }
        }
        // Walk the up ports from `start`: the `r`-th free one serves rank `r`.
        self.position.next =
            self.lowest_port.val() << (self.lfsr.value.val() & self.digit_mask.val());
        self.walk_rank.next = self.lowest_port.val();
        for u in 0..self._k {
            self.served_rank[u].next = self.zero_mask.val();
        }
        for _step in 0..self._k {
            self.position_free.next = false;
            for kk in self._k..(self._k + 1) {
                for u in 0..self._k {
                    if self.position.val().get_bit(u) & !self.held[u + kk].val() {
                        self.served_rank[u].next = self.walk_rank.val();
                        self.position_free.next = true;
                    }
                }
            }
            if self.position_free.val() {
                self.walk_rank.next = self.walk_rank.val() << 1;
            }
            // The next up port, mod k.
            self.position.next = self.position.val() << 1;
            for kk in self._k..(self._k + 1) {
                if self.position.val().get_bit(kk) {
                    self.position.next = self.lowest_port.val();
                }
            }
        }
        self.served_ranks.next = self.zero_mask.val();
        for kk in self._k..(self._k + 1) {
            for u in 0..self._k {
                self.served_ranks.next = self.served_ranks.val() | self.served_rank[u].val();
                self.new_owner.next = self.input_number[0].val();
                self.new_tail.next = false;
                for r in 0..self._k {
                    if self.served_rank[u].val().get_bit(r) {
                        self.new_owner.next = self.rank_owner[r].val();
                        self.new_tail.next = self.rank_tail[r].val();
                    }
                }
                if !self.held[u + kk].val() {
                    self.granted.next =
                        (self.served_rank[u].val() & self.requested_ranks.val()).any();
                    self.owner[u + kk].d.next = self.new_owner.val();
                    self.send[u + kk].d.next = self.granted.val();
                    self.busy[u + kk].d.next = self.granted.val() & !self.new_tail.val();
                }
            }
        }
        // A head that gets no output is discarded and counted; so is a body or tail flit
        // arriving outside a worm (its head was lost).
        for i in 0..self._n_in {
            self.granted.next = (self.up_rank[i].val() & self.served_ranks.val()).any();
            for d in 0..self._k {
                if self.first_request[i].val().get_bit(d) & !self.held[d].val() {
                    self.granted.next = true;
                }
            }
            self.valid.next = self.flit[i].val().get_bit(34);
            self.head.next = self.flit[i].val().get_bit(33);
            self.drop_event[i].d.next = self.valid.val()
                & ((self.head.val() & !self.granted.val())
                    | (!self.head.val() & !self.in_worm[i].q.val()));
        }

        // ---- Stage 2: the crossbar and the counters, from stage 1's registers only.
        for o in 0..self._n_in {
            self.out_next.next = self.zero_flit.val();
            for i in 0..self._n_in {
                if self.sources[o].val().get_bit(i)
                    & (self.owner[o].q.val() == self.input_number[i].val())
                {
                    self.out_next.next = self.flit_stage[i].q.val();
                }
            }
            self.out_reg[o].d.next = self.zero_flit.val();
            if self.send[o].q.val() {
                self.out_reg[o].d.next = self.out_next.val();
            }
        }
        for i in 0..self._n_in {
            self.drops[i].d.next = self.drops[i].q.val();
            if self.drop_event[i].q.val() {
                self.drops[i].d.next = self.drops[i].q.val() + self.drop_increment.val();
            }
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
