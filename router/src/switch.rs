//! The switch of `docs/protocol.md` §4, as a rust-hdl block.

use crate::topology::Topology;
use idemnet_rtl::flit::Flit;
use idemnet_rtl::lfsr::{lfsr_seed, Lfsr};
use idemnet_rtl::vec_of;
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
/// Timing: every output is a register output, and shows what §4 decides one cycle later (two
/// cycles per hop). A flit forwarded from an input in cycle `t` (applied before rising edge `t`)
/// is on the output register after edge `t + 1`; a drop counted in cycle `t` shows after edge
/// `t + 1`. After power-on the outputs are zero and the counters 0; outputs no worm drives are
/// all zero.
///
/// Internals: two stages, so that neither the 35-bit crossbar nor a 16-bit counter sits behind
/// the arbitration in one cycle.
///
/// * Stage 1 decides cycle `t` as §4 does and registers the decision, per input: `route`, the
///   one-hot mask of the output its flit of cycle `t` goes to (zero: none), `flit_stage` (that
///   flit), `in_worm` (its last valid flit was not a tail) and `headless` (a body or tail flit
///   arrived outside a worm in cycle `t`).
/// * Stage 2 is the crossbar and the counters, from those registers only: `owner[o]` is the
///   binary index of the input whose `route` names `o` (`owned[o]`: one does), `sent[o]` that
///   input's flit through a binary tree of 2:1 multiplexers (`tree`), and `out_reg[o]` takes it
///   if it is owned and valid (a held output whose input had a bubble sends zero); an input
///   drops a worm when its flit was a head that went nowhere, or `headless`. A binary tree
///   rather than a one-hot AND-OR, because the ECP5 builds each 4:1 of it from two LUT4s and a
///   PFUMX (`fpga/src/ecp5_mux_map.v`): 4 LUT4 per bit of an 8-input output against 5, the
///   same 5 on the iCE40.
///
/// Stage 1 keeps §4's priority order without chaining one input's grant through another's.
/// `route` is also the state: an input keeps its route (`kept_route`, and the output stays held)
/// while it is still in that worm, `in_worm` with no head this cycle (a head releases its input's
/// output before any arbitration); `held` is the OR of the kept routes. A free down port goes to the
/// lowest-numbered head that asks for it (`first_request`, from this cycle's flits only). The
/// `r`-th up-bound head of the cycle (`up_rank`, flits only) gets `pick[r]`, the `r`-th free up
/// port in the order `start, start+1, ... (mod k)`, `start = lfsr & (k-1)`, found by a walk that
/// depends only on `held` and the LFSR. Up inputs never go up, so up outputs only take the `k`
/// down inputs (`sources`). An input is in `forward(o)` exactly when its route `o` is held, and
/// in `discard` when it is `in_worm` otherwise. Next routes are ORs of masks, not constants
/// loaded under a condition, so that synthesis does not turn the late arbitration signals into
/// flip-flop set and reset inputs (slow to route on the iCE40). Masks are one-hot so that every
/// index rust-hdl has to evaluate is a loop variable.
#[derive(LogicBlock)]
pub struct Switch {
    pub clock: Signal<In, Clock>,
    pub down_in: Vec<Signal<In, Flit>>,
    pub up_in: Vec<Signal<In, Flit>>,
    pub down_out: Vec<Signal<Out, Flit>>,
    pub up_out: Vec<Signal<Out, Flit>>,
    pub drops_down: Vec<Signal<Out, Bits<16>>>,
    pub drops_up: Vec<Signal<Out, Bits<16>>>,
    // Stage 1 registers, per input.
    lfsr: Lfsr,
    /// Its flit of the cycle stage 1 decided.
    flit_stage: Vec<DFF<Flit>>,
    /// One-hot mask of the output that flit goes to (zero: none).
    route: Vec<DFF<Bits<16>>>,
    /// Inside a worm (its last valid flit was not a tail).
    in_worm: Vec<DFF<Bit>>,
    /// A body or tail flit arrived outside a worm in the cycle stage 1 decided.
    headless: Vec<DFF<Bit>>,
    // Stage 2 registers.
    out_reg: Vec<DFF<Flit>>,
    drops: Vec<DFF<Bits<16>>>,
    // Per-switch constants.
    /// One-hot masks of down port 0 (output 0), up port 0 (output `k`) and rank 0.
    first_down_port: Constant<Bits<16>>,
    first_up_port: Constant<Bits<16>>,
    first_rank: Constant<Bits<16>>,
    /// Per output: bit `i` set iff input `i` may send to it (down outputs: every input; up
    /// outputs: the down inputs of a switch that is not at the top).
    sources: Vec<Constant<Bits<16>>>,
    /// Per input: bit `o` set iff the input may send to output `o` (the transpose of `sources`).
    reachable: Vec<Constant<Bits<16>>>,
    /// Bit `i` set iff input `i` may route up (a down input of a non-top switch).
    may_up: Constant<Bits<16>>,
    /// The mask of no input, output or rank.
    empty_mask: Constant<Bits<16>>,
    /// Per input `i`: `i`, the binary index the crossbar selects it by.
    input_index: Vec<Constant<Bits<16>>>,
    /// Per node `j` of the crossbar's multiplexer tree: the one-hot mask of the bit of
    /// `owner` it selects by (the leaves' parents by bit 0, the root by the top bit).
    node_select: Vec<Constant<Bits<16>>>,
    /// What an output no worm drives shows.
    idle_flit: Constant<Flit>,
    /// `k - 1`: mask of one base-k digit.
    digit_mask: Constant<Bits<16>>,
    /// `l * b`: position of digit `l` of a destination.
    digit_shift: Constant<Bits<16>>,
    /// A destination `d` is covered iff `d & cover_mask == cover_value`.
    cover_mask: Constant<Bits<16>>,
    cover_value: Constant<Bits<16>>,
    /// What a drop counter adds per discarded worm.
    drop_increment: Constant<Bits<16>>,
    // Stage 1 combinational values.
    /// The inputs in priority order: `down_in$i` is input `i`, `up_in$i` is input `k + i`.
    flit: Vec<Signal<Local, Flit>>,
    /// Per input: its route if it is continuing (in a worm, and no head this cycle), else zero.
    kept_route: Vec<Signal<Local, Bits<16>>>,
    /// Outputs held at the start of the cycle: the OR of the kept routes.
    held: Signal<Local, Bits<16>>,
    /// Per input: one-hot mask of the down port its head asks for (zero: none).
    down_request: Vec<Signal<Local, Bits<16>>>,
    /// Per input: `down_request` unless a lower-numbered head asks for the same port.
    first_request: Vec<Signal<Local, Bits<16>>>,
    /// Down ports asked for by the inputs looked at so far.
    claimed: Signal<Local, Bits<16>>,
    /// Per input: one-hot rank among this cycle's up-bound heads (zero: not up-bound).
    up_rank: Vec<Signal<Local, Bits<16>>>,
    /// One-hot rank the next up-bound head gets.
    next_rank: Signal<Local, Bits<16>>,
    /// The walk of the up ports from `start`: the output it is at (one-hot) and the rank the
    /// next free one serves.
    position: Signal<Local, Bits<16>>,
    walk_rank: Signal<Local, Bits<16>>,
    /// Per rank `r`: one-hot mask of the `r`-th free up port in the walk (zero: fewer are free).
    pick: Vec<Signal<Local, Bits<16>>>,
    /// Per input: the next value of `route` (rust-hdl's simulator does not read a DFF's `d`
    /// back within one update, so it is built here).
    next_route: Vec<Signal<Local, Bits<16>>>,
    valid: Signal<Local, Bit>,
    head: Signal<Local, Bit>,
    destination: Signal<Local, Bits<16>>,
    covered: Signal<Local, Bit>,
    // Stage 2 combinational values.
    /// Per output: the flit of the input whose route names it, in the cycle stage 1 decided.
    sent: Vec<Signal<Local, Flit>>,
    /// Per output: the binary index of the input whose route names it, and whether one does.
    owner: Vec<Signal<Local, Bits<16>>>,
    owned: Vec<Signal<Local, Bit>>,
    /// The multiplexer tree of one output (`tree[0]` its root; [`Logic::update`]).
    tree: Vec<Signal<Local, Flit>>,
    _k: usize,
    _n_in: usize,
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
            route: vec_of(n_in),
            in_worm: vec_of(n_in),
            headless: vec_of(n_in),
            out_reg: vec_of(n_in),
            drops: vec_of(n_in),
            first_down_port: mask(1),
            first_up_port: mask(1 << k),
            first_rank: mask(1),
            sources: (0..n_in)
                .map(|o| mask(if o < k { (1 << n_in) - 1 } else { may_up }))
                .collect(),
            reachable: (0..n_in)
                .map(|i| {
                    let down_outputs = (1u64 << k) - 1;
                    let up_outputs = if (may_up >> i) & 1 == 1 {
                        down_outputs << k
                    } else {
                        0
                    };
                    mask(down_outputs | up_outputs)
                })
                .collect(),
            may_up: mask(may_up),
            empty_mask: mask(0),
            input_index: (0..n_in).map(|i| mask(i as u64)).collect(),
            // One per inner node of the multiplexer tree (heap order, `n_in - 1` of them).
            node_select: (0..n_in - 1)
                .map(|j| {
                    let levels = n_in.trailing_zeros();
                    let depth = (j + 1).ilog2();
                    mask(1 << (levels - 1 - depth))
                })
                .collect(),
            idle_flit: Constant::new(Bits::default()),
            digit_mask: mask(k as u64 - 1),
            digit_shift: mask((level * b) as u64),
            cover_mask: mask(cover_mask),
            cover_value: mask(cover_value),
            drop_increment: mask(1),
            flit: vec_of(n_in),
            kept_route: vec_of(n_in),
            held: Default::default(),
            down_request: vec_of(n_in),
            first_request: vec_of(n_in),
            claimed: Default::default(),
            up_rank: vec_of(n_in),
            next_rank: Default::default(),
            position: Default::default(),
            walk_rank: Default::default(),
            pick: vec_of(k),
            next_route: vec_of(n_in),
            valid: Default::default(),
            head: Default::default(),
            destination: Default::default(),
            covered: Default::default(),
            sent: vec_of(n_in),
            owner: vec_of(n_in),
            owned: vec_of(n_in),
            tree: vec_of(2 * n_in - 1),
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
        self.lfsr.clock.next = self.clock.val();
        for i in 0..self._n_in {
            self.flit_stage[i].clock.next = self.clock.val();
            self.route[i].clock.next = self.clock.val();
            self.in_worm[i].clock.next = self.clock.val();
            self.headless[i].clock.next = self.clock.val();
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

        // ---- Stage 2: the crossbar and the counters, from stage 1's registers. The leaves
        // of the multiplexer tree are the same for every output.
        for nn in self._n_in..(self._n_in + 1) {
            for i in 0..self._n_in {
                self.tree[i + nn - 1].next = self.flit_stage[i].q.val();
            }
        }
        for o in 0..self._n_in {
            // Routes are one-hot and no two name the same output: `owner` is the binary index
            // of the one input routed to the output, `owned` whether there is one.
            self.owner[o].next = self.empty_mask.val();
            self.owned[o].next = false;
            for i in 0..self._n_in {
                if self.route[i].q.val().get_bit(o) & self.sources[o].val().get_bit(i) {
                    self.owner[o].next = self.owner[o].val() | self.input_index[i].val();
                    self.owned[o].next = true;
                }
            }
            // The multiplexer tree, one level per bit of `owner` (heap order: node `j` chooses
            // between nodes `2j + 1` and `2j + 2`, the inputs are the leaves `n_in - 1 + i`,
            // node 0 is the root).
            for nn in self._n_in..(self._n_in + 1) {
                for jj in 1..self._n_in {
                    self.tree[nn - 1 - jj].next = self.tree[(nn - 1 - jj) * 2 + 1].val();
                    if (self.owner[o].val() & self.node_select[nn - 1 - jj].val()).any() {
                        self.tree[nn - 1 - jj].next = self.tree[(nn - 1 - jj) * 2 + 2].val();
                    }
                }
            }
            self.sent[o].next = self.tree[0].val();
            self.out_reg[o].d.next = self.idle_flit.val();
            if self.owned[o].val() & self.sent[o].val().get_bit(34) {
                self.out_reg[o].d.next = self.sent[o].val();
            }
        }
        for i in 0..self._n_in {
            // A head that went nowhere was discarded.
            self.drops[i].d.next = self.drops[i].q.val();
            if self.headless[i].q.val()
                | (self.flit_stage[i].q.val().get_bit(34)
                    & self.flit_stage[i].q.val().get_bit(33)
                    & !self.route[i].q.val().any())
            {
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

        // ---- Stage 1, decode: what each head asks for (this cycle's flits only), and the
        // outputs held at the start of the cycle.
        self.held.next = self.empty_mask.val();
        self.claimed.next = self.empty_mask.val();
        self.next_rank.next = self.first_rank.val();
        for i in 0..self._n_in {
            self.flit_stage[i].d.next = self.flit[i].val();
            self.valid.next = self.flit[i].val().get_bit(34);
            self.head.next = self.flit[i].val().get_bit(33);
            self.destination.next = self.flit[i].val().get_bits::<16>(0);
            self.in_worm[i].d.next = self.in_worm[i].q.val();
            if self.valid.val() {
                self.in_worm[i].d.next = !self.flit[i].val().get_bit(32);
            }
            self.headless[i].d.next =
                self.valid.val() & !self.head.val() & !self.in_worm[i].q.val();
            self.kept_route[i].next = self.empty_mask.val();
            if self.in_worm[i].q.val() & !(self.valid.val() & self.head.val()) {
                self.kept_route[i].next = self.route[i].q.val();
            }
            self.held.next = self.held.val() | self.kept_route[i].val();
            // Route: covered destinations leave by down port (dst >> l*b) & (k-1); others go
            // up if the input may.
            self.covered.next =
                (self.destination.val() & self.cover_mask.val()) == self.cover_value.val();
            self.down_request[i].next = self.empty_mask.val();
            self.up_rank[i].next = self.empty_mask.val();
            if self.valid.val() & self.head.val() {
                if self.covered.val() {
                    self.down_request[i].next = self.first_down_port.val()
                        << ((self.destination.val() >> self.digit_shift.val())
                            & self.digit_mask.val());
                } else if self.may_up.val().get_bit(i) {
                    self.up_rank[i].next = self.next_rank.val();
                    self.next_rank.next = self.next_rank.val() << 1;
                }
            }
            self.first_request[i].next = self.down_request[i].val() & !self.claimed.val();
            self.claimed.next = self.claimed.val() | self.down_request[i].val();
        }

        // ---- Stage 1, the up ports: walk them from `start`; the `r`-th free one is `pick[r]`.
        for r in 0..self._k {
            self.pick[r].next = self.empty_mask.val();
        }
        for kk in self._k..(self._k + 1) {
            self.position.next =
                self.first_up_port.val() << (self.lfsr.value.val() & self.digit_mask.val());
            self.walk_rank.next = self.first_rank.val();
            for _step in 0..self._k {
                if (self.position.val() & !self.held.val()).any() {
                    for r in 0..self._k {
                        if self.walk_rank.val().get_bit(r) {
                            self.pick[r].next = self.position.val();
                        }
                    }
                    self.walk_rank.next = self.walk_rank.val() << 1;
                }
                // The next up port, mod k: after the last (output 2k - 1) comes the first.
                if self.position.val().get_bit(kk + kk - 1) {
                    self.position.next = self.first_up_port.val();
                } else {
                    self.position.next = self.position.val() << 1;
                }
            }
        }

        // ---- Stage 1, next routes: the kept route, the down port if free and first asked
        // for, the up port of the input's rank.
        for i in 0..self._n_in {
            self.next_route[i].next =
                self.kept_route[i].val() | (self.first_request[i].val() & !self.held.val());
            for r in 0..self._k {
                if self.up_rank[i].val().get_bit(r) {
                    self.next_route[i].next = self.next_route[i].val() | self.pick[r].val();
                }
            }
            // Masked so that the route bits of outputs the input can never take are constant
            // for synthesis (it cannot see that a bit which only keeps itself stays zero).
            self.route[i].d.next = self.next_route[i].val() & self.reachable[i].val();
        }
    }
}
