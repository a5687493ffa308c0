//! The link-fault injector of docs/protocol.md §9.

use crate::lfsr;
use crate::switch::VALID;

/// Power-on value of the LFSR of injector `i`.
pub fn seed(i: usize) -> u16 {
    lfsr::seed_in_family(0x1D2B, 0x6F4B, i)
}

/// What the injectors of a fabric do: thresholds shared by all, and the dead inter-switch links.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Faults {
    /// A flit is dropped when the draw is below this (probability `loss / 65536`).
    pub loss: u16,
    /// ... else corrupted when the draw is below `loss + corrupt`.
    pub corrupt: u16,
    /// Dead inter-switch links `j` (both directions), §9 numbering.
    pub dead: Vec<usize>,
}

impl Faults {
    /// The draws below which a flit does not pass whole, lost or corrupted (§9: `loss +
    /// corrupt`, 17 bits): a corrupted flit fails its worm's CRC as surely as a lost one.
    pub fn damage(&self) -> u32 {
        u32::from(self.loss) + u32::from(self.corrupt)
    }

    /// Thresholds for probabilities per flit (rounded to the nearest 1/65536).
    pub fn from_probabilities(loss: f64, corrupt: f64) -> Result<Faults, String> {
        let t = |name: &str, p: f64| {
            if !(0.0..=1.0).contains(&p) || (p * 65536.0).round() > 65535.0 {
                return Err(format!(
                    "{name} {p}: must be in 0..=0.99998 (a 16-bit threshold)"
                ));
            }
            Ok((p * 65536.0).round() as u16)
        };
        let f = Faults {
            loss: t("loss", loss)?,
            corrupt: t("corrupt", corrupt)?,
            dead: vec![],
        };
        // An injector loses a flit at `r < loss` and corrupts it at `loss <= r < loss +
        // corrupt` (§9): past 1 together, the corruption asked for would silently be less.
        if f.damage() > 65535 {
            return Err(format!(
                "loss {loss} and corrupt {corrupt}: together at most 0.99998 (a flit is lost, \
                 corrupted or passed whole, one of the three)"
            ));
        }
        Ok(f)
    }
}

/// What an injector does to a valid flit in one cycle: `(f & keep) ^ flip`. A pass keeps
/// every bit and flips none, a drop keeps none, a flip keeps every bit and flips one data bit
/// (0..31). Masks, not a choice of three: a step then has no branch on the outcome.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Outcome {
    keep: u64,
    flip: u64,
}

impl Outcome {
    const PASS: Outcome = Outcome {
        keep: u64::MAX,
        flip: 0,
    };
}

/// One injector.
#[derive(Clone, Copy, Debug)]
pub struct LinkFault {
    /// The draw of the current cycle, `r_t`.
    lfsr: u16,
    /// The outcome of the current cycle, decided in the one before (§9).
    outcome: Outcome,
}

impl LinkFault {
    pub fn new(i: usize) -> LinkFault {
        LinkFault {
            lfsr: seed(i),
            outcome: Outcome::PASS,
        }
    }

    /// What [`LinkFault::pass`] lets through in a calm cycle of its [`InjectorSet`]: the
    /// flit, if valid.
    #[inline]
    pub fn pass_calm(f: u64) -> u64 {
        if f & VALID == 0 {
            0
        } else {
            f
        }
    }

    /// One cycle: the flit that leaves for `f` under this cycle's outcome; then the next
    /// cycle's draw judged against this cycle's thresholds (the LFSR steps whatever the flit).
    #[inline]
    pub fn pass(&mut self, f: u64, loss: u16, corrupt: u16, dead: bool) -> u64 {
        // Selects, not branches: whether a flit is on the link is the traffic's.
        let through = (f & VALID != 0) & !dead;
        let out = ((f & self.outcome.keep) ^ self.outcome.flip) & (through as u64).wrapping_neg();
        self.lfsr = lfsr::step(self.lfsr);
        let r = self.lfsr;
        let drop = r < loss;
        let flip = !drop & ((r as u32) < loss as u32 + corrupt as u32);
        self.outcome = Outcome {
            keep: if drop { 0 } else { u64::MAX },
            flip: (flip as u64) << (r >> 11),
        };
        out
    }
}

/// The period of the injectors' LFSR (x^16 + x^14 + x^13 + x^11 + 1 is primitive: every
/// nonzero value once).
const PERIOD: u64 = 65535;

/// Injectors stepped together, every cycle, under the same thresholds: the model's fast path
/// for fault-free cycles. While the thresholds are zero, an injector passes every flit as it
/// is and its LFSR's draws decide nothing, so the set owes the steps and takes them all at the
/// first cycle with a threshold (their number modulo the LFSR's period): what every injector
/// then does is what it would have done stepped cycle by cycle.
#[derive(Clone, Debug)]
pub struct InjectorSet {
    pub inj: Vec<LinkFault>,
    /// LFSR steps every injector owes.
    owed: u64,
    /// The last cycle's thresholds were zero, so every outcome decided for this one is a pass.
    calm: bool,
}

impl InjectorSet {
    /// Injectors `first..first + count` of §9's numbering, at power-on (deciding a pass).
    pub fn new(first: usize, count: usize) -> InjectorSet {
        InjectorSet {
            inj: (first..first + count).map(LinkFault::new).collect(),
            owed: 0,
            calm: true,
        }
    }

    /// Called once a cycle before the flits pass: whether every injector passes every flit of
    /// this cycle as it is (this cycle's thresholds and the last's zero, and no dead link
    /// among them: `any_dead`), in which case the caller passes them without
    /// [`LinkFault::pass`], which this cycle must not be called; otherwise it is called for
    /// each injector as usual.
    #[inline]
    pub fn calm(&mut self, loss: u16, corrupt: u16, any_dead: bool) -> bool {
        let zero = loss == 0 && corrupt == 0;
        if zero && self.calm && !any_dead {
            self.owed += 1;
            return true;
        }
        if self.owed > 0 {
            let steps = self.owed % PERIOD;
            for inj in &mut self.inj {
                for _ in 0..steps {
                    inj.lfsr = lfsr::step(inj.lfsr);
                }
            }
            self.owed = 0;
        }
        self.calm = zero;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lfsr_has_the_period_the_set_takes_steps_modulo() {
        let mut v = seed(0);
        let mut n = 0u64;
        loop {
            v = lfsr::step(v);
            n += 1;
            if v == seed(0) {
                break;
            }
        }
        assert_eq!(n, PERIOD);
    }

    /// A set that owes its steps through fault-free stretches (one of them longer than the
    /// LFSR's period) passes and drops exactly as injectors stepped every cycle.
    #[test]
    fn a_set_owing_steps_acts_as_injectors_stepped_every_cycle() {
        let mut lazy = InjectorSet::new(7, 3);
        let mut eager: Vec<LinkFault> = (7..10).map(LinkFault::new).collect();
        let stretches = [
            (0u16, 0u16, 5u64),
            (3000, 2000, 40),
            (0, 0, 70_000),
            (0, 9000, 1),
        ];
        let mut t = 0u64;
        for (loss, corrupt, cycles) in stretches.into_iter().cycle().take(12) {
            for _ in 0..cycles {
                t += 1;
                // Every fifth flit invalid, with data bits set.
                let valid = if t.is_multiple_of(5) { 0 } else { VALID };
                let f = valid | (t & 0xFFFF);
                let calm = lazy.calm(loss, corrupt, false);
                for (a, b) in lazy.inj.iter_mut().zip(&mut eager) {
                    let want = b.pass(f, loss, corrupt, false);
                    let got = if calm {
                        LinkFault::pass_calm(f)
                    } else {
                        a.pass(f, loss, corrupt, false)
                    };
                    assert_eq!(got, want, "cycle {t}");
                }
            }
        }
        // A dead link is never calm.
        assert!(!lazy.calm(0, 0, true));
    }

    #[test]
    fn rates_follow_the_thresholds() {
        let mut lf = LinkFault::new(3);
        let f = VALID | 0x1234;
        let (mut lost, mut bad) = (0, 0);
        let n = 655_360;
        for _ in 0..n {
            match lf.pass(f, 655, 1310, false) {
                0 => lost += 1,
                x if x != f => bad += 1,
                _ => {}
            }
        }
        // 1% and 2% of a full LFSR period (65535 draws each of the nonzero values, ten times).
        assert!((lost as f64 / n as f64 - 0.01).abs() < 0.001, "{lost}");
        assert!((bad as f64 / n as f64 - 0.02).abs() < 0.001, "{bad}");
        assert_eq!(lf.pass(f, 0, 0, true), 0);
        assert_eq!(lf.pass(0, 0, 0, false), 0);
        assert!(Faults::from_probabilities(1.5, 0.0).is_err());
        assert_eq!(Faults::from_probabilities(0.001, 0.0005).unwrap().loss, 66);
        // Together past 1, the corruption asked for could not happen: refused, naming both.
        let e = Faults::from_probabilities(0.5, 0.99999).unwrap_err();
        assert!(e.contains("loss 0.5 and corrupt 0.99999"), "{e}");
        assert!(Faults::from_probabilities(0.5, 0.49998).is_ok());
        assert!(Faults::from_probabilities(0.5, 0.5).is_err());
    }

    /// §9: cycle 0 passes, and a threshold acts from the cycle after the one that shows it.
    #[test]
    fn the_outcome_is_decided_a_cycle_ahead() {
        let mut lf = LinkFault::new(5);
        let f = VALID | 0x5A5A;
        let all = u16::MAX;
        assert_eq!(lf.pass(f, all, 0, false), f, "cycle 0 passes");
        assert_eq!(lf.pass(f, 0, 0, false), 0, "cycle 1: cycle 0's loss");
        assert_eq!(
            lf.pass(f, 0, all, false),
            f,
            "cycle 2: cycle 1's thresholds, none"
        );
        let flipped = lf.pass(f, 0, 0, false);
        assert_eq!(
            (flipped ^ f).count_ones(),
            1,
            "cycle 3: cycle 2's corruption"
        );
        assert_eq!(lf.pass(f, 0, 0, false), f);
    }
}
