//! One 32-bit word of CRC-32/MPEG-2 (docs/protocol.md §8.1), as a combinational block.

use rust_hdl::prelude::*;

/// The CRC-32/MPEG-2 generator polynomial (not reflected).
pub const CRC32_POLY: u32 = 0x04C1_1DB7;

/// `crc_out` is `crc_in` advanced over the 32 bits of `word`, most significant bit first
/// (polynomial 0x04C11DB7, no reflection). Start from 0xFFFFFFFF; the final value, without any
/// XOR, is the packet's CRC.
///
/// Ports: `crc_in` (in, 32), `word` (in, 32), `crc_out` (out, 32). Timing: purely
/// combinational, 32 unrolled shift-and-XOR stages.
#[derive(LogicBlock)]
pub struct Crc32Word {
    pub crc_in: Signal<In, Bits<32>>,
    pub word: Signal<In, Bits<32>>,
    pub crc_out: Signal<Out, Bits<32>>,
    c: Signal<Local, Bits<32>>,
    poly: Constant<Bits<32>>,
    one: Constant<Bits<32>>,
}

impl Default for Crc32Word {
    fn default() -> Self {
        Self {
            crc_in: Default::default(),
            word: Default::default(),
            crc_out: Default::default(),
            c: Default::default(),
            poly: Constant::new(Bits::from(CRC32_POLY as u64)),
            one: Constant::new(Bits::from(1u64)),
        }
    }
}

impl Logic for Crc32Word {
    #[hdl_gen]
    fn update(&mut self) {
        self.c.next = self.crc_in.val() ^ self.word.val();
        for _b in 0..32 {
            if self.c.val().get_bit(31) {
                self.c.next = (self.c.val() << self.one.val()) ^ self.poly.val();
            } else {
                self.c.next = self.c.val() << self.one.val();
            }
        }
        self.crc_out.next = self.c.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The block, chained word by word, gives the reference CRC of the wire format
    /// (`idemnet_spec::crc::crc32`, the `crc` crate's CRC-32/MPEG-2) of every prefix.
    #[test]
    fn block_matches_the_reference_crc() {
        let mut uut = Crc32Word::default();
        uut.connect_all();
        check_all(&uut).unwrap();
        let words = [
            0x0002_0005u32,
            0x0400_0000,
            0x0002_0001,
            0xdead_beef,
            0,
            u32::MAX,
        ];
        let mut crc = 0xFFFF_FFFFu64;
        for (n, &w) in words.iter().enumerate() {
            uut.crc_in.next = Bits::from(crc);
            uut.word.next = Bits::from(w as u64);
            assert!(simulate(&mut uut, 100));
            crc = uut.crc_out.val().to_u64();
            assert_eq!(
                crc as u32,
                idemnet_spec::crc::crc32(&words[..=n]),
                "word {n}"
            );
        }
    }
}
