//! The per-switch 16-bit Galois LFSR of docs/protocol.md §4.
//!
//! Polynomial x^16 + x^14 + x^13 + x^11 + 1, right-shifting Galois form:
//! `next = (v >> 1) ^ (if v & 1 { 0xB400 } else { 0 })`. Switch `s` powers on with
//! [`seed`]`(s)`; the value used in cycle `t` is the value held before edge `t` (cycle 0 uses the
//! seed itself), and the register steps once every cycle.

/// Feedback mask of the polynomial x^16 + x^14 + x^13 + x^11 + 1.
pub const TAPS: u16 = 0xB400;

/// Power-on value of switch `s`: `0xACE1 ^ ((s * 0x9E37) mod 2^16)`, or `0x0001` if that is 0.
pub fn seed(s: usize) -> u16 {
    seed_in_family(0xACE1, 0x9E37, s)
}

/// Power-on value of the retry LFSR of the NI of node `p` (§8.5):
/// `0x3B9D ^ ((p * 0x51A7) mod 2^16)`, or `0x0001` if that is 0.
pub fn ni_seed(p: usize) -> u16 {
    seed_in_family(0x3B9D, 0x51A7, p)
}

/// Power-on value `i` of a family of LFSRs (§4 switches, §9 injectors):
/// `base ^ ((i * mul) mod 2^16)`, or `0x0001` if that is 0 (an all-zero LFSR never leaves 0).
pub fn seed_in_family(base: u16, mul: u16, i: usize) -> u16 {
    match base ^ (i as u16).wrapping_mul(mul) {
        0 => 1,
        v => v,
    }
}

/// One step of the LFSR.
#[inline(always)]
pub fn step(v: u16) -> u16 {
    (v >> 1) ^ if v & 1 != 0 { TAPS } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds() {
        assert_eq!(seed(0), 0xACE1);
        // 1 * 0x9E37 = 0x9E37; 0xACE1 ^ 0x9E37 = 0x32D6
        assert_eq!(seed(1), 0x32D6);
        // 2 * 0x9E37 = 0x13C6E -> 0x3C6E; 0xACE1 ^ 0x3C6E = 0x908F
        assert_eq!(seed(2), 0x908F);
        // Find an s whose product is exactly 0xACE1 mod 2^16: the seed must then be 1.
        let s = (0..65536usize)
            .find(|&s| (s * 0x9E37) & 0xFFFF == 0xACE1)
            .expect("0x9E37 is odd, so invertible mod 2^16");
        assert_eq!(seed(s), 1);
        assert_eq!(seed(s + 65536), 1);
    }

    #[test]
    fn first_values() {
        // 0xACE1 = 1010_1100_1110_0001, lsb 1: (0x5670) ^ 0xB400 = 0xE270
        let v1 = step(0xACE1);
        assert_eq!(v1, 0xE270);
        // 0xE270, lsb 0: 0x7138
        let v2 = step(v1);
        assert_eq!(v2, 0x7138);
        // 0x7138 lsb 0: 0x389C
        let v3 = step(v2);
        assert_eq!(v3, 0x389C);
        // 0x389C lsb 0: 0x1C4E
        let v4 = step(v3);
        assert_eq!(v4, 0x1C4E);
        // 0x1C4E lsb 0: 0x0E27
        let v5 = step(v4);
        assert_eq!(v5, 0x0E27);
        // 0x0E27 lsb 1: 0x0713 ^ 0xB400 = 0xB313
        assert_eq!(step(v5), 0xB313);
        // 1 -> 0xB400
        assert_eq!(step(1), 0xB400);
    }

    #[test]
    fn maximal_period() {
        let mut v = 0xACE1u16;
        let mut n = 0u32;
        loop {
            v = step(v);
            n += 1;
            assert_ne!(v, 0);
            if v == 0xACE1 {
                break;
            }
        }
        assert_eq!(n, 65535);
    }
}
