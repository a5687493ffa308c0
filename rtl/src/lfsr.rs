//! The 16-bit Galois LFSR of `docs/protocol.md` §4.
//!
//! Polynomial x^16 + x^14 + x^13 + x^11 + 1:
//! `next = (v >> 1) ^ (if v & 1 { 0xB400 } else { 0 })`.
//! Power-on value for switch `s`: `0xACE1 ^ ((s * 0x9E37) mod 2^16)`, or `0x0001` if that is 0.

use crate::reg::InitReg;
use rust_hdl::prelude::*;

/// Feedback mask of the Galois LFSR.
pub const LFSR_TAPS: u16 = 0xB400;

/// One step of the LFSR (software reference).
pub fn lfsr_next(v: u16) -> u16 {
    (v >> 1) ^ if v & 1 == 1 { LFSR_TAPS } else { 0 }
}

/// Power-on value of the LFSR of switch `s` (global switch index).
pub fn lfsr_seed(s: usize) -> u16 {
    seed_in_family(0xACE1, 0x9E37, s)
}

/// Power-on value of the retry LFSR of the NI of node `p` (§8.5).
pub fn ni_seed(p: usize) -> u16 {
    seed_in_family(0x3B9D, 0x51A7, p)
}

/// Power-on value `i` of a family of LFSRs (switches, fault injectors):
/// `base ^ ((i * mul) mod 2^16)`, or `0x0001` if that is 0.
pub fn seed_in_family(base: u16, mul: u16, i: usize) -> u16 {
    match base ^ (i as u16).wrapping_mul(mul) {
        0 => 1,
        v => v,
    }
}

/// 16-bit Galois LFSR that steps once per clock.
///
/// Ports: `clock` (in), `value` (out, 16 bits).
/// Timing: `value` is a register output; it shows the seed before the first rising edge and
/// `lfsr_next` of its previous value after every edge. A consumer using `value` in cycle `t`
/// uses the value held before edge `t` (cycle 0 uses the seed), as §4 requires.
#[derive(LogicBlock)]
pub struct Lfsr {
    pub clock: Signal<In, Clock>,
    pub value: Signal<Out, Bits<16>>,
    state: InitReg<Bits<16>>,
    taps: Constant<Bits<16>>,
}

impl Lfsr {
    /// An LFSR that powers on holding `seed` (must not be 0, or it stays 0 forever).
    pub fn new(seed: u16) -> Self {
        Self {
            clock: Default::default(),
            value: Default::default(),
            state: InitReg::new(Bits::from(seed as u64)),
            taps: Constant::new(Bits::from(LFSR_TAPS as u64)),
        }
    }
}

impl Logic for Lfsr {
    #[hdl_gen]
    fn update(&mut self) {
        self.state.clock.next = self.clock.val();
        if self.state.q.val().get_bit(0) {
            self.state.d.next = (self.state.q.val() >> 1) ^ self.taps.val();
        } else {
            self.state.d.next = self.state.q.val() >> 1;
        }
        self.value.next = self.state.q.val();
    }
}

/// The same LFSR, stepping only at the edges at which `advance` is high: the NI's retry spread
/// (§8.5) draws from it once a SEND, so that an idle NI keeps its state. A cell of its own so
/// that the free-running [`Lfsr`] of the switches and injectors keeps its netlist (an enable
/// tied high there cost the ECP5 switch 6 LUT4 and 4.4 MHz under abc9).
///
/// Ports: `clock` (in), `advance` (in, 1), `value` (out, 16 bits).
/// Timing: `value` is a register output; it shows the seed before the first rising edge and
/// `lfsr_next` of its previous value after every edge with `advance` high, the same value
/// after the others.
#[derive(LogicBlock)]
pub struct SteppedLfsr {
    pub clock: Signal<In, Clock>,
    pub advance: Signal<In, Bit>,
    pub value: Signal<Out, Bits<16>>,
    state: InitReg<Bits<16>>,
    taps: Constant<Bits<16>>,
}

impl SteppedLfsr {
    /// An LFSR that powers on holding `seed` (must not be 0, or it stays 0 forever).
    pub fn new(seed: u16) -> Self {
        Self {
            clock: Default::default(),
            advance: Default::default(),
            value: Default::default(),
            state: InitReg::new(Bits::from(seed as u64)),
            taps: Constant::new(Bits::from(LFSR_TAPS as u64)),
        }
    }
}

impl Logic for SteppedLfsr {
    #[hdl_gen]
    fn update(&mut self) {
        self.state.clock.next = self.clock.val();
        self.state.d.next = self.state.q.val();
        if self.advance.val() {
            if self.state.q.val().get_bit(0) {
                self.state.d.next = (self.state.q.val() >> 1) ^ self.taps.val();
            } else {
                self.state.d.next = self.state.q.val() >> 1;
            }
        }
        self.value.next = self.state.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds() {
        assert_eq!(lfsr_seed(0), 0xACE1);
        assert_eq!(lfsr_seed(1), 0xACE1 ^ 0x9E37);
        for s in 0..70000 {
            assert_ne!(lfsr_seed(s), 0);
        }
    }

    #[test]
    fn block_matches_reference() {
        let mut uut = Lfsr::new(0xACE1);
        uut.connect_all();
        check_all(&uut).unwrap();
        let mut v = 0xACE1u16;
        uut.clock.next = false.into();
        assert!(simulate(&mut uut, 10));
        for _ in 0..100 {
            assert_eq!(uut.value.val().to_u64() as u16, v);
            uut.clock.next = true.into();
            assert!(simulate(&mut uut, 10));
            uut.clock.next = false.into();
            assert!(simulate(&mut uut, 10));
            v = lfsr_next(v);
        }
    }

    #[test]
    fn the_stepped_one_holds_where_it_is_not_advanced() {
        let mut uut = SteppedLfsr::new(0xACE1);
        uut.connect_all();
        check_all(&uut).unwrap();
        let mut v = 0xACE1u16;
        uut.clock.next = false.into();
        assert!(simulate(&mut uut, 10));
        for k in 0..100 {
            // Held at every third edge.
            let advance = k % 3 != 2;
            uut.advance.next = advance;
            assert_eq!(uut.value.val().to_u64() as u16, v);
            uut.clock.next = true.into();
            assert!(simulate(&mut uut, 10));
            uut.clock.next = false.into();
            assert!(simulate(&mut uut, 10));
            if advance {
                v = lfsr_next(v);
            }
        }
    }

    #[test]
    fn maximal_period() {
        let mut v = 1u16;
        let mut n = 0u32;
        loop {
            v = lfsr_next(v);
            n += 1;
            if v == 1 {
                break;
            }
        }
        assert_eq!(n, 65535);
    }
}
