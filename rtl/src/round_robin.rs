//! A round-robin arbiter with a lock for multi-cycle transfers (like pulp-platform
//! common_cells' `rr_arb_tree` with `LockIn`, flattened), built from two [`FirstSet`] pickers.
//!
//! Ports (Verilog names):
//!
//! | port | dir | width | |
//! |------|-----|-------|-|
//! | `clock` | in | 1 | |
//! | `request` | in | `REQUESTERS` | bit `i`: requester `i` asks for the resource |
//! | `ready` | in | 1 | the resource takes a grant this cycle (for a link: it is free) |
//! | `lock` | in | 1 | keep the resource with the requester granted last |
//! | `grant` | out | `REQUESTERS` | one-hot: the requester that has the resource this cycle, or 0 |
//! | `grant_index` | out | `INDEX_BITS` | its number (for a multiplexer); any value if none |
//! | `requested` | out | 1 | some requester requests, granted or not (for a tree of arbiters) |
//! | `holder` | out | `REQUESTERS` | one-hot: the requester granted last (a register; zero before the first grant): the one a `lock` keeps, for a multiplexer that must not wait for `request` |
//!
//! Timing: the outputs are combinational from `request`, `ready`, `lock` and the registers
//! `last` (one-hot, the requester granted last; none at power-on), `last_index` (its number)
//! and `after_last` (the requesters after it). In cycle `t`, without `lock`, the grant goes to
//! the first requester after `last` in the cyclic order 0, 1, ..., `REQUESTERS - 1` (from
//! requester 0 at power-on); with `lock`, to `last` if it still requests, else (or before any
//! grant) to nobody. There is a grant only if `ready`. At edge `t` a grant becomes `last`: the
//! pointer moves past the granted requester only when a grant is taken. The path to `grant` is
//! `request` through a masked and an unmasked picker and a multiplexer; the pointer's update (a
//! `REQUESTERS`-bit carry from `grant`) lengthens only the path into the registers.
//!
//! Fairness: without `lock`, a requester that keeps requesting is granted within `REQUESTERS`
//! grants (at most one grant to each other requester comes first), whatever the others do. A
//! `lock` held forever starves the others; a worm holds it from its head to its tail.
//!
//! The node's transmit merge (`docs/protocol.md` §13.2, `ni-core` `TxMerge`) is this arbiter
//! with three requesters in front of one transmitter: `ready` the transmitter idle with a worm
//! due (the link free), `lock` otherwise, so that `grant_index` names the source whose worm is
//! out; §13.2's `turn` is the requester after `last`.
//!
//! Parameters: `REQUESTERS` (1 to 64); `INDEX_BITS` with `2^INDEX_BITS >= REQUESTERS`, for the
//! pickers.
//!
//! Area (yosys 0.23 `synth_ice40`; `docs/cells.md`): 3 requesters, 20 LUT4, 1 `SB_CARRY` and 8
//! flip-flops (4 LUTs from `request` to `grant`); 16 requesters, 149 LUT4, 14 `SB_CARRY` and 36
//! flip-flops (9 LUTs).

use crate::first_set::FirstSet;
use rust_hdl::prelude::*;

/// A round-robin arbiter: see the module documentation for ports and timing.
#[derive(LogicBlock)]
pub struct RoundRobin<const REQUESTERS: usize, const INDEX_BITS: usize> {
    pub clock: Signal<In, Clock>,
    pub request: Signal<In, Bits<REQUESTERS>>,
    pub ready: Signal<In, Bit>,
    pub lock: Signal<In, Bit>,
    pub grant: Signal<Out, Bits<REQUESTERS>>,
    pub grant_index: Signal<Out, Bits<INDEX_BITS>>,
    pub requested: Signal<Out, Bit>,
    pub holder: Signal<Out, Bits<REQUESTERS>>,
    /// One-hot: the requester granted last (zero before the first grant).
    last: DFF<Bits<REQUESTERS>>,
    last_index: DFF<Bits<INDEX_BITS>>,
    /// The requesters after `last`, which go first (zero before the first grant: all equal).
    after_last: DFF<Bits<REQUESTERS>>,
    /// Picks among the requesters after `last`.
    pick_after_last: FirstSet<REQUESTERS, INDEX_BITS>,
    /// Picks among all requesters, when none after `last` requests.
    pick_any: FirstSet<REQUESTERS, INDEX_BITS>,
    chosen: Signal<Local, Bits<REQUESTERS>>,
    no_requester: Constant<Bits<REQUESTERS>>,
    every_requester: Constant<Bits<REQUESTERS>>,
}

impl<const REQUESTERS: usize, const INDEX_BITS: usize> RoundRobin<REQUESTERS, INDEX_BITS> {
    /// An arbiter; panics on parameters [`FirstSet::new`] refuses.
    pub fn new() -> Self {
        Self {
            clock: Default::default(),
            request: Default::default(),
            ready: Default::default(),
            lock: Default::default(),
            grant: Default::default(),
            grant_index: Default::default(),
            requested: Default::default(),
            holder: Default::default(),
            last: Default::default(),
            last_index: Default::default(),
            after_last: Default::default(),
            pick_after_last: FirstSet::new(),
            pick_any: FirstSet::new(),
            chosen: Default::default(),
            no_requester: Constant::new(Bits::default()),
            every_requester: Constant::new(Bits::mask()),
        }
    }
}

impl<const REQUESTERS: usize, const INDEX_BITS: usize> Default
    for RoundRobin<REQUESTERS, INDEX_BITS>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<const REQUESTERS: usize, const INDEX_BITS: usize> Logic
    for RoundRobin<REQUESTERS, INDEX_BITS>
{
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, last, last_index, after_last);
        self.pick_after_last.mask.next = self.request.val() & self.after_last.q.val();
        self.pick_any.mask.next = self.request.val();
        if self.lock.val() {
            self.chosen.next = self.last.q.val();
            self.grant_index.next = self.last_index.q.val();
        } else if self.pick_after_last.any.val() {
            self.chosen.next = self.pick_after_last.one_hot.val();
            self.grant_index.next = self.pick_after_last.index.val();
        } else {
            self.chosen.next = self.pick_any.one_hot.val();
            self.grant_index.next = self.pick_any.index.val();
        }
        self.requested.next = self.pick_any.any.val();
        self.holder.next = self.last.q.val();
        self.grant.next = self.no_requester.val();
        if self.ready.val() {
            self.grant.next = self.chosen.val() & self.request.val();
        }
        if self.grant.val().any() {
            self.last.d.next = self.grant.val();
            self.last_index.d.next = self.grant_index.val();
            // grant + every_requester is grant - 1: the requesters before the granted one.
            self.after_last.d.next =
                !(self.grant.val() | (self.grant.val() + self.every_requester.val()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{rising_edge, settle, Verilated};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The reference: the requester granted last, and the grant of one cycle.
    struct Reference {
        requesters: usize,
        last: Option<usize>,
    }

    impl Reference {
        fn cycle(&mut self, request: u64, ready: bool, lock: bool) -> u64 {
            let requests = |i: usize| request >> i & 1 == 1;
            let chosen = if lock {
                self.last.filter(|&i| requests(i))
            } else {
                let first = self.last.map_or(0, |i| i + 1);
                (first..first + self.requesters)
                    .map(|i| i % self.requesters)
                    .find(|&i| requests(i))
            };
            match chosen {
                Some(i) if ready => {
                    self.last = Some(i);
                    1 << i
                }
                _ => 0,
            }
        }
    }

    /// `cycles` cycles of seeded random requests; `ready` high three cycles in four; `lock`
    /// raised after a grant and held for a few cycles, as a worm holds a link. The grant is
    /// compared with the reference before every edge, and with the emitted Verilog under
    /// Verilator after it. Returns how many cycles had a locked grant.
    fn against_reference<const REQUESTERS: usize, const INDEX_BITS: usize>(
        cycles: usize,
        seed: u64,
    ) -> usize {
        let mut uut = RoundRobin::<REQUESTERS, INDEX_BITS>::new();
        uut.connect_all();
        check_all(&uut).unwrap();
        let mut verilated = Verilated::new(&uut);
        let mut reference = Reference {
            requesters: REQUESTERS,
            last: None,
        };
        let mut random = ChaCha8Rng::seed_from_u64(seed);
        let all = u64::MAX >> (64 - REQUESTERS);
        let (mut held, mut locked_grants) = (0, 0);
        for cycle in 0..cycles {
            let request = random.gen::<u64>() & random.gen::<u64>() & all;
            let ready = random.gen_bool(0.75);
            let lock = held > 0;
            uut.request.next = request.to_bits();
            uut.ready.next = ready;
            uut.lock.next = lock;
            settle(&mut uut);
            let holder = reference.last.map_or(0, |i| 1 << i);
            assert_eq!(uut.holder.val().to_u64(), holder, "cycle {cycle}");
            let grant = reference.cycle(request, ready, lock);
            assert_eq!(uut.grant.val().to_u64(), grant, "cycle {cycle}");
            if grant != 0 {
                let index = uut.grant_index.val().to_u64();
                assert_eq!(index, u64::from(grant.trailing_zeros()), "cycle {cycle}");
            }
            assert_eq!(uut.requested.val(), request != 0, "cycle {cycle}");
            if lock {
                held -= 1;
                locked_grants += usize::from(grant != 0);
            } else if grant != 0 {
                held = random.gen_range(0..4);
            }
            rising_edge(&mut uut, |u| &mut u.clock);
            let inputs = [request, ready.into(), lock.into()];
            let simulated = [
                uut.grant.val().to_u64(),
                uut.grant_index.val().to_u64(),
                uut.requested.val().into(),
                uut.holder.val().to_u64(),
            ];
            assert_eq!(
                verilated.cycle(&inputs),
                simulated,
                "Verilog, cycle {cycle}"
            );
        }
        locked_grants
    }

    #[test]
    fn three_requesters() {
        assert!(against_reference::<3, 2>(2000, 3) > 100);
    }

    #[test]
    fn sixteen_requesters() {
        assert!(against_reference::<16, 4>(2000, 16) > 100);
    }

    /// Everyone requesting, the resource always ready: the grant walks 0, 1, ..., 4, 0, ...
    #[test]
    fn grants_take_turns() {
        let mut uut = RoundRobin::<5, 3>::new();
        uut.connect_all();
        uut.request.next = 0b11111u64.to_bits();
        uut.ready.next = true;
        for turn in 0..12 {
            settle(&mut uut);
            assert_eq!(uut.grant.val().to_u64(), 1 << (turn % 5), "turn {turn}");
            rising_edge(&mut uut, |u| &mut u.clock);
        }
    }
}
