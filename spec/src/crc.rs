//! The CRC of the wire format (`docs/protocol.md` §8.1, used by RMPP too, §11.1): CRC-32/MPEG-2
//! (polynomial 0x04C11DB7, initial value 0xFFFFFFFF, not reflected, no final XOR) over the data
//! words of every flit before the tail, each word most significant byte first.

/// The generator polynomial (§8.1).
pub const POLYNOMIAL: u32 = 0x04C1_1DB7;
/// The value the CRC register starts from (§8.1).
pub const INITIAL: u32 = 0xFFFF_FFFF;

/// The `crc` crate's tables for CRC-32/MPEG-2 (a `static`: a `const` would be a copy of them at
/// every use).
static ALGORITHM: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_MPEG_2);

/// CRC-32/MPEG-2 of 32-bit words, each most significant byte first (§8.1).
pub fn crc32(words: &[u32]) -> u32 {
    let mut digest = ALGORITHM.digest();
    for word in words {
        digest.update(&word.to_be_bytes());
    }
    digest.finalize()
}

/// One word of CRC-32/MPEG-2 as a one-word-per-cycle circuit computes it: the register after
/// `word`, from the register `crc` before it ([`INITIAL`] for the first word). Folding it over
/// the words gives [`crc32`] (no final XOR). Four tables compute it, one lookup per byte of the
/// register (the models step it for every flit of every worm); the circuit's own rule is
/// [`crc32_step_bitwise`], which the tests hold it to.
#[inline]
pub fn crc32_step(crc: u32, word: u32) -> u32 {
    let c = crc ^ word;
    let t = &WORD_TABLES;
    t[3][(c >> 24) as usize]
        ^ t[2][(c >> 16) as usize & 0xFF]
        ^ t[1][(c >> 8) as usize & 0xFF]
        ^ t[0][c as usize & 0xFF]
}

/// `WORD_TABLES[k][b]`: the register that byte value `b` in bits `8k + 7 .. 8k` becomes after
/// the 32 shifts of [`crc32_step_bitwise`] with a zero word. The step is linear in the
/// register, so a register's four bytes' entries XOR to its step.
static WORD_TABLES: [[u32; 256]; 4] = {
    let mut t = [[0u32; 256]; 4];
    let mut k = 0;
    while k < 4 {
        let mut b = 0;
        while b < 256 {
            t[k][b] = crc32_step_bitwise((b as u32) << (8 * k), 0);
            b += 1;
        }
        k += 1;
    }
    t
};

/// [`crc32_step`] bit by bit, the 32 shifts a one-word-per-cycle circuit unrolls: the rule the
/// RTL's CRC cell implements.
pub const fn crc32_step_bitwise(crc: u32, word: u32) -> u32 {
    let mut c = crc ^ word;
    // A `while`, not a `for`: the tables of [`crc32_step`] are made from this at compile time.
    let mut i = 0;
    while i < 32 {
        c = if c & 0x8000_0000 != 0 {
            (c << 1) ^ POLYNOMIAL
        } else {
            c << 1
        };
        i += 1;
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `crc` crate's algorithm is the one §8.1 names, parameter for parameter.
    #[test]
    fn the_crate_algorithm_is_the_documented_one() {
        let algorithm = crc::CRC_32_MPEG_2;
        assert_eq!(algorithm.width, 32);
        assert_eq!(algorithm.poly, POLYNOMIAL);
        assert_eq!(algorithm.init, INITIAL);
        assert!(!algorithm.refin && !algorithm.refout);
        assert_eq!(algorithm.xorout, 0);
        assert_eq!(crc32(&[]), INITIAL);
    }

    #[test]
    fn bitwise_step_matches_the_crate_on_every_prefix() {
        // Words with every bit pattern the shift loop branches on: zero, all ones, a lone top
        // bit, a lone bottom bit, then scrambled ones.
        let mut words = vec![0u32, u32::MAX, 0x8000_0000, 1];
        words.extend((1..12u32).map(|i| i.wrapping_mul(0x9E37_79B9).rotate_left(i)));
        let mut register = INITIAL;
        for (end, &word) in words.iter().enumerate() {
            register = crc32_step_bitwise(register, word);
            assert_eq!(register, crc32(&words[..=end]), "{} words", end + 1);
        }
    }

    /// The table-driven step is the bitwise one from any register, for any word.
    #[test]
    fn the_table_step_is_the_bitwise_step() {
        let mut x = 0x2545_F491u32;
        for _ in 0..10_000 {
            // xorshift32: registers and words all over the 32-bit range.
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let (register, word) = (x, x.rotate_left(11) ^ 0xA5A5_0F0F);
            assert_eq!(
                crc32_step(register, word),
                crc32_step_bitwise(register, word)
            );
        }
        for (register, word) in [(0, 0), (u32::MAX, u32::MAX), (INITIAL, 0), (0, 0x8000_0000)] {
            assert_eq!(
                crc32_step(register, word),
                crc32_step_bitwise(register, word)
            );
        }
    }

    /// The register after a message and its own CRC is zero: what lets a receiver check a worm
    /// without knowing where its tail is.
    #[test]
    fn a_message_followed_by_its_crc_leaves_zero() {
        let words = [0x1234_5678u32, 0x9abc_def0, 0x0f0f_0f0f];
        let crc = crc32(&words);
        let register = words.iter().fold(INITIAL, |c, &w| crc32_step(c, w));
        assert_eq!(crc32_step(register, crc), 0);
    }
}
