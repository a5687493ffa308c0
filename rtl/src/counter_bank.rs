//! A bank of wrapping event counters, counted by reason from several sources (like the NI's
//! "discarded by reason" counters of `docs/protocol.md` §8.2 and §11.3).
//!
//! Ports (Verilog names; `$s` is a source, `$c` a counter):
//!
//! | port | dir | width | |
//! |------|-----|-------|-|
//! | `clock` | in | 1 | |
//! | `strobe$s` | in | 1 | source `s` counts an event this cycle |
//! | `reason$s` | in | `REASON_BITS` | the counter it names: `c` counts if `reason$s == c` |
//! | `count$c` | out | `WIDTH` | counter `c` (a register), wrapping modulo `2^WIDTH` |
//!
//! A reason from `COUNTERS` up counts nothing. Each source names at most one reason per cycle,
//! as a decision process does; several sources may count in one cycle, the same counter too (it
//! then adds the number of sources naming it). One strobe per counter is the case
//! `SOURCES = COUNTERS` with `reason$s` tied to `s`, which yosys reduces to an incrementer per
//! counter.
//!
//! Timing, two choices given to [`CounterBank::new`]:
//! * direct: the events of cycle `t` are counted at edge `t` (shown in `O_t`); the path is
//!   `strobe`/`reason` through a compare and a `WIDTH`-bit adder into the counter.
//! * registered strobes: each counter's events of cycle `t` (how many sources name it) are
//!   registered at edge `t` and counted at edge `t + 1` (shown in `O_(t+1)`, one cycle late), so
//!   the path from the user's decision logic ends at a flip-flop after the reason decode and
//!   the adder starts from one. For users whose strobe logic is long. Registering the decoded
//!   sums, not the strobes and reasons, keeps a user's constant reasons constant (a register
//!   of a constant reason is not one from power-on, so yosys would keep its decode).
//!
//! Every counter is zero at power-on.
//!
//! Parameters: `COUNTERS` and `SOURCES` (1 to 15 sources), `REASON_BITS` with
//! `2^REASON_BITS >= COUNTERS`, `WIDTH` (1 to 64); checked by [`CounterBank::new`].
//!
//! Area (yosys 0.23 `synth_ice40`; `docs/cells.md`): ten 16-bit counters from two sources take
//! 194 LUT4, 150 `SB_CARRY` and 160 flip-flops (3 LUTs and 15 carries from `strobe` to a
//! counter), 20 more flip-flops with registered strobes (each counter's 2-bit event sum; yosys
//! drops the sum bits two sources cannot reach) and 206 LUT4; with one strobe per counter, 160 LUT4
//! (one per counter bit, the incrementer).

use rust_hdl::prelude::*;

use crate::vec_of;

/// The width of the per-counter sum of the sources' events (up to 15 sources).
const SUM_BITS: usize = 4;

/// Wrapping event counters by reason: see the module documentation for ports and timing.
#[derive(LogicBlock)]
pub struct CounterBank<
    const COUNTERS: usize,
    const SOURCES: usize,
    const REASON_BITS: usize,
    const WIDTH: usize,
> {
    pub clock: Signal<In, Clock>,
    pub strobe: Vec<Signal<In, Bit>>,
    pub reason: Vec<Signal<In, Bits<REASON_BITS>>>,
    pub count: Vec<Signal<Out, Bits<WIDTH>>>,
    counters: Vec<DFF<Bits<WIDTH>>>,
    /// Each counter's events of the last cycle (registered strobes only).
    events_held: Vec<DFF<Bits<SUM_BITS>>>,
    /// How many sources name the counter at hand this cycle, then the events it counts.
    events: Signal<Local, Bits<SUM_BITS>>,
    no_events: Constant<Bits<SUM_BITS>>,
    registered_strobes: Constant<Bit>,
}

impl<const COUNTERS: usize, const SOURCES: usize, const REASON_BITS: usize, const WIDTH: usize>
    CounterBank<COUNTERS, SOURCES, REASON_BITS, WIDTH>
{
    /// A bank whose events count at the edge they come (`registered_strobes` false) or one
    /// edge later; panics on parameters out of range (module documentation).
    pub fn new(registered_strobes: bool) -> Self {
        assert!(
            COUNTERS >= 1 && (1..1 << SUM_BITS).contains(&SOURCES),
            "CounterBank: {COUNTERS} counters, {SOURCES} sources (1 to 15)"
        );
        assert!(
            REASON_BITS < usize::BITS as usize && 1 << REASON_BITS >= COUNTERS,
            "CounterBank: {REASON_BITS} reason bits cannot name {COUNTERS} counters"
        );
        assert!(
            (1..=64).contains(&WIDTH),
            "CounterBank: WIDTH {WIDTH} not in 1..=64"
        );
        Self {
            clock: Default::default(),
            strobe: vec_of(SOURCES),
            reason: vec_of(SOURCES),
            count: vec_of(COUNTERS),
            counters: vec_of(COUNTERS),
            events_held: vec_of(COUNTERS),
            events: Default::default(),
            no_events: Constant::new(Bits::default()),
            registered_strobes: Constant::new(registered_strobes),
        }
    }
}

impl<const COUNTERS: usize, const SOURCES: usize, const REASON_BITS: usize, const WIDTH: usize>
    Logic for CounterBank<COUNTERS, SOURCES, REASON_BITS, WIDTH>
{
    #[hdl_gen]
    fn update(&mut self) {
        for counter in 0..COUNTERS {
            self.counters[counter].clock.next = self.clock.val();
            self.events_held[counter].clock.next = self.clock.val();
            self.events.next = self.no_events.val();
            for source in 0..SOURCES {
                if self.strobe[source].val() & (self.reason[source].val() == counter.to_bits()) {
                    self.events.next = self.events.val() + true;
                }
            }
            self.events_held[counter].d.next = self.events.val();
            if self.registered_strobes.val() {
                self.events.next = self.events_held[counter].q.val();
            }
            self.counters[counter].d.next =
                self.counters[counter].q.val() + bit_cast::<WIDTH, SUM_BITS>(self.events.val());
            self.count[counter].next = self.counters[counter].q.val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{rising_edge, settle, Verilated};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// `cycles` cycles of seeded random events (each source busy a third of the time, reasons
    /// drawn over every value `REASON_BITS` can hold, so some name no counter), compared after
    /// every edge with a reference of the counts, and with the emitted Verilog under Verilator.
    fn against_reference<
        const COUNTERS: usize,
        const SOURCES: usize,
        const REASON_BITS: usize,
        const WIDTH: usize,
    >(
        registered_strobes: bool,
        cycles: usize,
        seed: u64,
    ) {
        let mut uut = CounterBank::<COUNTERS, SOURCES, REASON_BITS, WIDTH>::new(registered_strobes);
        uut.connect_all();
        check_all(&uut).unwrap();
        let mut verilated = Verilated::new(&uut);
        let wrap = u64::MAX >> (64 - WIDTH);
        let mut counts = [0u64; COUNTERS];
        let mut held: Vec<(bool, u64)> = vec![(false, 0); SOURCES];
        let mut random = ChaCha8Rng::seed_from_u64(seed);
        for cycle in 0..cycles {
            let events: Vec<(bool, u64)> = (0..SOURCES)
                .map(|_| (random.gen_bool(0.33), random.gen_range(0..1 << REASON_BITS)))
                .collect();
            for (source, &(strobe, reason)) in events.iter().enumerate() {
                uut.strobe[source].next = strobe;
                uut.reason[source].next = reason.to_bits();
            }
            settle(&mut uut);
            rising_edge(&mut uut, |u| &mut u.clock);
            let counted = if registered_strobes {
                std::mem::replace(&mut held, events.clone())
            } else {
                events.clone()
            };
            for (strobe, reason) in counted {
                if strobe && (reason as usize) < COUNTERS {
                    counts[reason as usize] = (counts[reason as usize] + 1) & wrap;
                }
            }
            let simulated: Vec<u64> = uut.count.iter().map(|c| c.val().to_u64()).collect();
            assert_eq!(simulated, counts, "cycle {cycle}");
            // Verilog port order: every strobe, then every reason.
            let strobes = events.iter().map(|&(strobe, _)| u64::from(strobe));
            let inputs: Vec<u64> = strobes.chain(events.iter().map(|&(_, r)| r)).collect();
            assert_eq!(verilated.cycle(&inputs), counts, "Verilog, cycle {cycle}");
        }
    }

    /// Four-bit counters wrap many times; three sources often name one counter together.
    #[test]
    fn small_counters_wrap() {
        against_reference::<5, 3, 3, 4>(false, 1500, 5);
    }

    #[test]
    fn registered_strobes_count_a_cycle_late() {
        against_reference::<5, 3, 3, 4>(true, 1500, 6);
    }

    /// The NI's shape: ten 16-bit counters, two sources.
    #[test]
    fn sixteen_bit_counters() {
        against_reference::<10, 2, 4, 16>(false, 1000, 10);
    }

    #[test]
    #[should_panic(expected = "cannot name")]
    fn too_few_reason_bits() {
        CounterBank::<5, 1, 2, 16>::new(false);
    }
}
