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
        Ok(Faults {
            loss: t("loss", loss)?,
            corrupt: t("corrupt", corrupt)?,
            dead: vec![],
        })
    }
}

/// What an injector does to a valid flit in one cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Outcome {
    Pass,
    Drop,
    /// Flip this data bit (0..31).
    Flip(u32),
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
            outcome: Outcome::Pass,
        }
    }

    /// One cycle: the flit that leaves for `f` under this cycle's outcome; then the next
    /// cycle's draw judged against this cycle's thresholds (the LFSR steps whatever the flit).
    #[inline]
    pub fn pass(&mut self, f: u64, loss: u16, corrupt: u16, dead: bool) -> u64 {
        let out = if f & VALID == 0 || dead {
            0
        } else {
            match self.outcome {
                Outcome::Pass => f,
                Outcome::Drop => 0,
                Outcome::Flip(bit) => f ^ (1u64 << bit),
            }
        };
        self.lfsr = lfsr::step(self.lfsr);
        let r = self.lfsr;
        self.outcome = if r < loss {
            Outcome::Drop
        } else if (r as u32) < loss as u32 + corrupt as u32 {
            Outcome::Flip(u32::from(r >> 11))
        } else {
            Outcome::Pass
        };
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
