//! The link-fault injector of docs/protocol.md §9.

use crate::flit::Flit;
use crate::lfsr::{lfsr_next, Lfsr};
use rust_hdl::prelude::*;

/// Power-on value of the LFSR of injector `i` (§9).
pub fn fault_seed(i: usize) -> u16 {
    crate::lfsr::seed_in_family(0x1D2B, 0x6F4B, i)
}

/// Drops or corrupts the flits of one link (docs/protocol.md §9).
///
/// Ports: `clock` (in), `flit_in` (in, 35), `loss` (in, 16), `corrupt` (in, 16), `dead` (in, 1),
/// `flit_out` (out, 35). Timing: `flit_out` is combinational from `flit_in`, `dead` and the
/// registered outcome of this cycle (the link stays a wire). The outcome is judged a cycle
/// ahead (§9): the LFSR runs one step ahead of the draws (its power-on value is the seed
/// stepped once), so at edge `t` it shows `r_t`, and the outcome registers take its compares
/// with the thresholds of cycle `t - 1`; they power on at pass, cycle 0's outcome.
#[derive(LogicBlock)]
pub struct LinkFault {
    pub clock: Signal<In, Clock>,
    pub flit_in: Signal<In, Flit>,
    pub loss: Signal<In, Bits<16>>,
    pub corrupt: Signal<In, Bits<16>>,
    pub dead: Signal<In, Bit>,
    pub flit_out: Signal<Out, Flit>,
    /// Shows the next cycle's draw.
    lfsr: Lfsr,
    draw: Signal<Local, Bits<17>>,
    bound: Signal<Local, Bits<17>>,
    /// This cycle's outcome: drop, or else flip data bit `flip_position` if `corrupting`.
    dropping: DFF<Bit>,
    corrupting: DFF<Bit>,
    flip_position: DFF<Bits<5>>,
    /// The flip positions a draw below the thresholds' bound can name ([`LinkFault::bounded`]).
    position_mask: Constant<Bits<5>>,
    one: Constant<Flit>,
    zero: Constant<Flit>,
}

impl LinkFault {
    /// Injector number `i` (its LFSR seed is [`fault_seed`]`(i)`), any thresholds.
    pub fn new(i: usize) -> Self {
        Self::bounded(i, FULL_BOUND)
    }

    /// Injector `i` for thresholds that never sum past `bound` (`loss + corrupt <= bound`), as
    /// the self-test's constants: a corrupting draw is below `bound`, so it names only data bits
    /// up to `(bound - 1) >> 11`, and the flip decode is only that wide (bit 0 alone for
    /// `bound` up to 2,048). Registered apart from the draw's compare, the flip position no
    /// longer folds with it, and the full 32-way decode costs about 30 LUT4 per injector.
    pub fn bounded(i: usize, bound: u32) -> Self {
        let highest = (bound.min(FULL_BOUND).saturating_sub(1) >> 11).min(31) as u64;
        Self {
            clock: Default::default(),
            flit_in: Default::default(),
            loss: Default::default(),
            corrupt: Default::default(),
            dead: Default::default(),
            flit_out: Default::default(),
            lfsr: Lfsr::new(lfsr_next(fault_seed(i))),
            draw: Default::default(),
            bound: Default::default(),
            dropping: Default::default(),
            corrupting: Default::default(),
            flip_position: Default::default(),
            position_mask: Constant::new(Bits::from((highest + 1).next_power_of_two() - 1)),
            one: Constant::new(Bits::from(1u64)),
            zero: Constant::new(Bits::default()),
        }
    }
}

/// The largest `loss + corrupt`: both thresholds 16 bits.
const FULL_BOUND: u32 = 2 * u16::MAX as u32;

impl Logic for LinkFault {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, dropping, corrupting, flip_position);
        self.lfsr.clock.next = self.clock.val();
        self.draw.next = bit_cast::<17, 16>(self.lfsr.value.val());
        self.bound.next =
            bit_cast::<17, 16>(self.loss.val()) + bit_cast::<17, 16>(self.corrupt.val());
        self.dropping.d.next = self.lfsr.value.val() < self.loss.val();
        self.corrupting.d.next = self.draw.val() < self.bound.val();
        self.flip_position.d.next =
            self.lfsr.value.val().get_bits::<5>(11) & self.position_mask.val();
        self.flit_out.next = self.zero.val();
        if self.flit_in.val().get_bit(34) & !self.dead.val() & !self.dropping.q.val() {
            if self.corrupting.q.val() {
                self.flit_out.next =
                    self.flit_in.val() ^ (self.one.val() << self.flip_position.q.val());
            } else {
                self.flit_out.next = self.flit_in.val();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs injector 7 against the golden model's for 3,000 cycles, flit by flit, with a valid
    /// flit in cycle 0 and thresholds that change every other cycle; returns how many valid
    /// flits were dropped, corrupted and passed.
    fn against_the_model(mut uut: LinkFault, thresholds: &[(u16, u16)]) -> [usize; 3] {
        uut.connect_all();
        check_all(&uut).unwrap();
        let mut model = idemnet_model::fault::LinkFault::new(7);
        let mut seen = [0usize; 3];
        for t in 0..3000u64 {
            let (loss, corrupt) = thresholds[(t / 2) as usize % thresholds.len()];
            uut.loss.next = Bits::from(loss as u64);
            uut.corrupt.next = Bits::from(corrupt as u64);
            let dead = t % 500 > 480;
            let f = if t % 3 == 1 {
                0
            } else {
                (1 << 34) | ((t * 0x9E37_79B9) & 0x3_FFFF_FFFF)
            };
            uut.clock.next = false.into();
            uut.flit_in.next = Bits::from(f);
            uut.dead.next = dead;
            assert!(simulate(&mut uut, 100));
            let want = model.pass(f, loss, corrupt, dead);
            assert_eq!(uut.flit_out.val().to_u64(), want, "cycle {t}");
            if f != 0 && !dead {
                seen[if want == 0 {
                    0
                } else if want == f {
                    2
                } else {
                    1
                }] += 1;
            }
            uut.clock.next = true.into();
            assert!(simulate(&mut uut, 100));
        }
        seen
    }

    /// Every outcome, under thresholds that change from cycle to cycle (§9: an injector judging
    /// each draw in its own cycle, or against its own cycle's thresholds, fails this).
    #[test]
    fn block_matches_the_golden_model() {
        let thresholds = [(9000, 12000), (40000, 0), (0, 30000), (0, 0)];
        let seen = against_the_model(LinkFault::new(7), &thresholds);
        assert!(seen.iter().all(|&n| n > 100), "{seen:?}");
    }

    /// Bounded to 4,096 (flips of data bits 0 and 1 only), under thresholds within the bound.
    #[test]
    fn a_bounded_block_matches_the_golden_model() {
        let thresholds = [(1000, 3096), (0, 4096), (2000, 0)];
        let seen = against_the_model(LinkFault::bounded(7, 4096), &thresholds);
        assert!(seen.iter().all(|&n| n > 20), "{seen:?}");
    }
}
