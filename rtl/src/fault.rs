//! The link-fault injector of docs/protocol.md §9.

use crate::flit::Flit;
use crate::lfsr::Lfsr;
use rust_hdl::prelude::*;

/// Power-on value of the LFSR of injector `i` (§9).
pub fn fault_seed(i: usize) -> u16 {
    crate::lfsr::seed_in_family(0x1D2B, 0x6F4B, i)
}

/// Drops or corrupts the flits of one link (docs/protocol.md §9).
///
/// Ports: `clock` (in), `flit_in` (in, 35), `loss` (in, 16), `corrupt` (in, 16), `dead` (in, 1),
/// `flit_out` (out, 35). Timing: `flit_out` is combinational from `flit_in` and the register of
/// the injector's LFSR, which steps every cycle: the link stays a wire.
#[derive(LogicBlock)]
pub struct LinkFault {
    pub clock: Signal<In, Clock>,
    pub flit_in: Signal<In, Flit>,
    pub loss: Signal<In, Bits<16>>,
    pub corrupt: Signal<In, Bits<16>>,
    pub dead: Signal<In, Bit>,
    pub flit_out: Signal<Out, Flit>,
    lfsr: Lfsr,
    draw: Signal<Local, Bits<17>>,
    bound: Signal<Local, Bits<17>>,
    flip: Signal<Local, Flit>,
    one: Constant<Flit>,
    zero: Constant<Flit>,
}

impl LinkFault {
    /// Injector number `i` (its LFSR seed is [`fault_seed`]`(i)`).
    pub fn new(i: usize) -> Self {
        Self {
            clock: Default::default(),
            flit_in: Default::default(),
            loss: Default::default(),
            corrupt: Default::default(),
            dead: Default::default(),
            flit_out: Default::default(),
            lfsr: Lfsr::new(fault_seed(i)),
            draw: Default::default(),
            bound: Default::default(),
            flip: Default::default(),
            one: Constant::new(Bits::from(1u64)),
            zero: Constant::new(Bits::default()),
        }
    }
}

impl Logic for LinkFault {
    #[hdl_gen]
    fn update(&mut self) {
        self.lfsr.clock.next = self.clock.val();
        self.draw.next = bit_cast::<17, 16>(self.lfsr.value.val());
        self.bound.next =
            bit_cast::<17, 16>(self.loss.val()) + bit_cast::<17, 16>(self.corrupt.val());
        self.flip.next = self.one.val() << self.lfsr.value.val().get_bits::<5>(11);
        self.flit_out.next = self.zero.val();
        if self.flit_in.val().get_bit(34) & !self.dead.val() {
            if self.lfsr.value.val() < self.loss.val() {
                self.flit_out.next = self.zero.val();
            } else if self.draw.val() < self.bound.val() {
                self.flit_out.next = self.flit_in.val() ^ self.flip.val();
            } else {
                self.flit_out.next = self.flit_in.val();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The block against the golden model's injector, flit by flit, over all three outcomes.
    #[test]
    fn block_matches_the_golden_model() {
        let mut uut = LinkFault::new(7);
        uut.connect_all();
        check_all(&uut).unwrap();
        let mut model = idemnet_model::fault::LinkFault::new(7);
        let (loss, corrupt) = (9000u16, 12000u16);
        uut.loss.next = Bits::from(loss as u64);
        uut.corrupt.next = Bits::from(corrupt as u64);
        let mut seen = [0usize; 3];
        for t in 0..3000u64 {
            let dead = t % 500 < 20;
            let f = if t % 3 == 0 {
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
        assert!(seen.iter().all(|&n| n > 100), "{seen:?}");
    }
}
