//! A bank of one-shot timers of one interval, perhaps spread, kept as deadlines on one
//! free-running count (the NI's retry and ACK timers, `docs/protocol.md` §8.5).
//!
//! Ports (Verilog names; `$k` is a timer):
//!
//! | port | dir | width | |
//! |------|-----|-------|-|
//! | `clock` | in | 1 | |
//! | `load$k` | in | 1 | timer `k` starts at this edge: running for `interval` edges |
//! | `clear$k` | in | 1 | timer `k` stops at this edge (a `load` at the same edge wins) |
//! | `spread` | in | 16 | added to `interval` for a timer loaded at this edge: its bits below the bank's `spread` parameter are read, none without one |
//! | `running$k` | out | 1 | timer `k` runs (a register) |
//! | `running_next$k` | out | 1 | `running$k` after this edge (combinational: the register's input), for a user that registers a function of it |
//!
//! Timing: loaded at edge `p`, a timer of length `L = interval + spread` shows `running` after
//! edges `p` to `p + L - 1` and not from edge `p + L` on, until it is loaded again; with `L` 0
//! it does not run at all. That is a down counter loaded with `interval` at `p`, counting down at every edge and
//! running while not zero, with `running` registered: what the NI's slots had, one counter a
//! slot.
//!
//! Why deadlines: a down counter a timer needs a decrementer, a zero test and a load multiplexer
//! for each timer; here the bank counts once (`now`, modulo `2^W` with `2^W > interval`), a load
//! writes `now + interval` (one adder for the bank) into the timer's `deadline`, and a timer
//! stops at the edge at which `now == deadline`: a compare a timer. Between a load at `p` and
//! `p + L`, `now` takes `L - 1` other values, none of them the deadline, because `L < 2^W`. A
//! spread costs the bank one adder more (`interval + spread`), none a timer.
//!
//! Parameters: the number of timers (1 to 64), `interval` (0 to 65,535) and the spread's bound
//! (0 or a power of two, the `spread` input read modulo it; `interval + spread - 1` at most
//! 65,535), given to [`TimerBank::new`] or
//! [`TimerBank::spread`]. Registers are 16 bits wide; the bits above `W` are constant zero, and
//! synthesis removes them.
//!
//! Area (`docs/cells.md`): four timers of interval 62 (the NI's ACK timers) take 31 LUT4, 34
//! flip-flops and 7 `SB_CARRY` (yosys 0.23 `synth_ice40`); 36 LUT4, 6 `CCU2C` and 34
//! flip-flops (YoWASP yosys 0.70 `synth_ecp5 -nowidelut`).

use rust_hdl::prelude::*;

use crate::vec_of;

/// One-shot timers on deadlines: see the module documentation for ports and timing.
#[derive(LogicBlock)]
pub struct TimerBank {
    pub clock: Signal<In, Clock>,
    pub load: Vec<Signal<In, Bit>>,
    pub clear: Vec<Signal<In, Bit>>,
    pub spread: Signal<In, Bits<16>>,
    pub running: Vec<Signal<Out, Bit>>,
    pub running_next: Vec<Signal<Out, Bit>>,
    now: DFF<Bits<16>>,
    deadline: Vec<DFF<Bits<16>>>,
    timer_running: Vec<DFF<Bit>>,
    step: Constant<Bits<16>>,
    interval: Constant<Bits<16>>,
    /// `2^W - 1`: the bits `now` and the deadlines keep.
    mask: Constant<Bits<16>>,
    /// `spread - 1` of the parameter (a power of two), 0 without one: the bits of the `spread`
    /// input read, so that a bank without a spread has no adder for it.
    spread_mask: Constant<Bits<16>>,
    /// The length of a timer loaded at this edge: `interval + spread`.
    length: Signal<Local, Bits<16>>,
    /// One timer's `running` after the edge.
    next_running: Signal<Local, Bit>,
    _timers: usize,
}

impl TimerBank {
    /// `timers` timers of `interval` edges; panics on a count out of range.
    pub fn new(timers: usize, interval: u16) -> Self {
        Self::spread(timers, interval, 0)
    }

    /// `timers` timers of `interval + s` edges, `s` the `spread` input at the load, below
    /// `spread` (0 or a power of two; 0: the input is not read); panics on a count, a spread or
    /// a length out of range.
    pub fn spread(timers: usize, interval: u16, spread: u16) -> Self {
        assert!(
            (1..=64).contains(&timers),
            "TimerBank: {timers} timers (1 to 64)"
        );
        assert!(
            spread == 0 || spread.is_power_of_two(),
            "TimerBank: spread {spread} (0 or a power of two)"
        );
        let longest = u32::from(interval) + u32::from(spread.saturating_sub(1));
        assert!(
            longest <= 0xFFFF,
            "TimerBank: interval {interval} + spread {spread} - 1 above 65535"
        );
        let bits = u32::BITS - longest.leading_zeros();
        Self {
            clock: Default::default(),
            load: vec_of(timers),
            clear: vec_of(timers),
            spread: Default::default(),
            running: vec_of(timers),
            running_next: vec_of(timers),
            now: Default::default(),
            deadline: vec_of(timers),
            timer_running: vec_of(timers),
            step: Constant::new(Bits::from(1)),
            interval: Constant::new(Bits::from(interval as u64)),
            mask: Constant::new(Bits::from((1u64 << bits) - 1)),
            spread_mask: Constant::new(Bits::from(u64::from(spread.saturating_sub(1)))),
            length: Default::default(),
            next_running: Default::default(),
            _timers: timers,
        }
    }
}

impl Logic for TimerBank {
    #[hdl_gen]
    fn update(&mut self) {
        self.now.clock.next = self.clock.val();
        self.now.d.next = (self.now.q.val() + self.step.val()) & self.mask.val();
        self.length.next = self.interval.val() + (self.spread.val() & self.spread_mask.val());
        for k in 0..self._timers {
            self.deadline[k].clock.next = self.clock.val();
            self.timer_running[k].clock.next = self.clock.val();
            self.deadline[k].d.next = self.deadline[k].q.val();
            self.next_running.next =
                self.timer_running[k].q.val() & (self.deadline[k].q.val() != self.now.q.val());
            if self.clear[k].val() {
                self.next_running.next = false;
            }
            if self.load[k].val() {
                self.deadline[k].d.next = (self.now.q.val() + self.length.val()) & self.mask.val();
                self.next_running.next = self.length.val().any();
            }
            self.timer_running[k].d.next = self.next_running.val();
            self.running_next[k].next = self.next_running.val();
            self.running[k].next = self.timer_running[k].q.val();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{rising_edge, settle, Random, Verilated};

    /// Seeded random loads and clears (some at the same edge, some while running), compared
    /// after every edge with a reference of down counters, one a timer, and with the emitted
    /// Verilog under Verilator. Returns how many times a timer ran out.
    fn against_down_counters(
        timers: usize,
        interval: u16,
        spread: u16,
        cycles: usize,
        seed: u64,
    ) -> usize {
        let mut uut = TimerBank::spread(timers, interval, spread);
        uut.connect_all();
        check_all(&uut).unwrap();
        let mut verilated = Verilated::new(&uut);
        let mut random = Random::new(seed);
        // The reference: a down counter a timer, running while not zero after the edge.
        let mut counters = vec![0u32; timers];
        let mut ran_out = 0;
        for cycle in 0..cycles {
            // About one load in two intervals, one clear in four: most timers run out.
            let span = u64::from(interval) + u64::from(spread) / 2 + 2;
            let load: Vec<bool> = (0..timers).map(|_| random.below(2 * span) == 0).collect();
            let clear: Vec<bool> = (0..timers).map(|_| random.below(4 * span) == 0).collect();
            let drawn = if spread == 0 {
                0
            } else {
                random.below(u64::from(spread)) as u16
            };
            for k in 0..timers {
                uut.load[k].next = load[k];
                uut.clear[k].next = clear[k];
            }
            uut.spread.next = drawn.to_bits();
            settle(&mut uut);
            let announced: Vec<u64> = uut
                .running_next
                .iter()
                .map(|r| u64::from(r.val()))
                .collect();
            rising_edge(&mut uut, |u| &mut u.clock);
            for k in 0..timers {
                let before = counters[k];
                counters[k] = counters[k].saturating_sub(1);
                if clear[k] {
                    counters[k] = 0;
                }
                if load[k] {
                    counters[k] = u32::from(interval) + u32::from(drawn);
                }
                ran_out += usize::from(before == 1 && !load[k] && !clear[k]);
            }
            let want: Vec<u64> = counters.iter().map(|&c| u64::from(c > 0)).collect();
            let simulated: Vec<u64> = uut.running.iter().map(|r| u64::from(r.val())).collect();
            assert_eq!(simulated, want, "cycle {cycle}");
            assert_eq!(announced, want, "running_next, cycle {cycle}");
            // Verilog port order: every load, every clear, the spread.
            let mut inputs: Vec<u64> = load.iter().chain(&clear).map(|&b| u64::from(b)).collect();
            inputs.push(u64::from(drawn));
            // Outputs: every `running`, then every `running_next`.
            assert_eq!(
                &verilated.cycle(&inputs)[..timers],
                &want[..],
                "Verilog, cycle {cycle}"
            );
        }
        ran_out
    }

    /// The NI's shapes (ACK timers of 62 edges, retry timers of 126) and short intervals, whose
    /// `now` wraps many times: every timer runs out often.
    #[test]
    fn timers_run_out_as_down_counters_do() {
        for (timers, interval, seed) in [(4, 62, 1), (2, 126, 2), (3, 1, 3), (3, 2, 4), (5, 7, 5)] {
            let ran_out = against_down_counters(timers, interval, 0, 6000, seed);
            assert!(ran_out >= 20, "{timers} x {interval}: {ran_out}");
        }
    }

    /// Spread timers (the NI's retry timers: 118 edges and a spread of 16, §8.5), some whose
    /// length reaches a power of two (`2^W` must exceed the longest), one of interval 0 whose
    /// drawn length may be 0 (then it does not run).
    #[test]
    fn spread_timers_run_out_as_down_counters_do() {
        for (timers, interval, spread, seed) in
            [(4, 118, 16, 7), (2, 56, 8, 8), (3, 0, 4, 9), (2, 1, 2, 10)]
        {
            let ran_out = against_down_counters(timers, interval, spread, 6000, seed);
            assert!(ran_out >= 20, "{timers} x {interval} + {spread}: {ran_out}");
        }
    }

    /// An interval of 0 never runs (the NI's intervals of one or two cycles reload 0).
    #[test]
    fn an_interval_of_zero_never_runs() {
        assert_eq!(against_down_counters(2, 0, 0, 300, 6), 0);
    }

    #[test]
    #[should_panic(expected = "above 65535")]
    fn a_length_beyond_the_count_is_refused() {
        TimerBank::spread(1, 0xFFF0, 32);
    }

    #[test]
    #[should_panic(expected = "0 timers")]
    fn no_timers_is_refused() {
        TimerBank::new(0, 5);
    }
}
