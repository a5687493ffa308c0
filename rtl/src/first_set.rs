//! The first-set picker: the lowest set bit of a mask, one-hot and encoded (like pulp-platform
//! common_cells' `lzc` counting trailing zeros).
//!
//! Ports (Verilog names):
//!
//! | port | dir | width | |
//! |------|-----|-------|-|
//! | `mask` | in | `WIDTH` | the candidates, bit 0 first |
//! | `one_hot` | out | `WIDTH` | the lowest set bit of `mask` alone; zero when `mask` is zero |
//! | `index` | out | `INDEX_BITS` | the position of that bit; 0 when `mask` is zero |
//! | `any` | out | 1 | `mask` is not zero |
//!
//! Timing: combinational, no clock.
//!
//! Parameters: `WIDTH` (1 to 64), `INDEX_BITS` with `2^INDEX_BITS >= WIDTH`, checked by
//! [`FirstSet::new`].
//!
//! Structure: the bits under each position are OR-ed by a log-depth prefix (a Kogge-Stone
//! doubling: shifts by 1, 2, 4, ..., 32), `one_hot = mask & !below`, and each `index` bit is the
//! OR of the `one_hot` bits whose position has that bit set. The carry-chain form
//! `mask & (!mask + 1)` was measured against it with yosys (`synth_ice40`, and `synth_ecp5`
//! with its default abc9) and lost on iCE40 on both counts:
//!
//! | `WIDTH` | prefix, iCE40 | carry, iCE40 | prefix, ECP5 | carry, ECP5 |
//! |---|---|---|---|---|
//! | 8 | 15 LUT4; 3 LUT | 23 LUT4, 6 carry; 4 LUT + 6 carry | 52 LUT4 | 27 LUT4, 4 CCU2C |
//! | 16 | 34 LUT4; 6 LUT | 65 LUT4, 14 carry; 4 LUT + 14 carry | 83 LUT4 | 52 LUT4, 8 CCU2C |
//! | 32 | 97 LUT4; 6 LUT | 115 LUT4, 30 carry; 5 LUT + 29 carry | 199 LUT4 | 116 LUT4, 16 CCU2C |
//!
//! (cells; the longest path in LUTs and `SB_CARRY` cells, counted on the mapped netlist.)
//! iCE40 is the smaller part and the one idemnet fills, so the prefix form is the one here; on
//! ECP5 the carry form takes fewer LUT4 (abc9 builds the prefix from wide PFUMX/L6MUX21 muxes),
//! which matters only if ECP5 area ever binds.

use rust_hdl::prelude::*;

/// The lowest set bit of `mask`: see the module documentation for ports and timing.
#[derive(LogicBlock)]
pub struct FirstSet<const WIDTH: usize, const INDEX_BITS: usize> {
    pub mask: Signal<In, Bits<WIDTH>>,
    pub one_hot: Signal<Out, Bits<WIDTH>>,
    pub index: Signal<Out, Bits<INDEX_BITS>>,
    pub any: Signal<Out, Bit>,
    /// Bit `i`: some bit of `mask` under position `i` is set.
    below: Signal<Local, Bits<WIDTH>>,
    /// The index shown for bit 0 and when nothing is set.
    lowest_index: Constant<Bits<INDEX_BITS>>,
}

impl<const WIDTH: usize, const INDEX_BITS: usize> FirstSet<WIDTH, INDEX_BITS> {
    /// A picker; panics unless `1 <= WIDTH <= 64` and `INDEX_BITS` can number `WIDTH` bits.
    pub fn new() -> Self {
        assert!(
            (1..=64).contains(&WIDTH),
            "FirstSet: WIDTH {WIDTH} is not in 1..=64"
        );
        assert!(
            INDEX_BITS >= 1 && INDEX_BITS < 64 && (1usize << INDEX_BITS) >= WIDTH,
            "FirstSet: INDEX_BITS {INDEX_BITS} cannot number {WIDTH} bits"
        );
        Self {
            mask: Default::default(),
            one_hot: Default::default(),
            index: Default::default(),
            any: Default::default(),
            below: Default::default(),
            lowest_index: Constant::new(Bits::default()),
        }
    }
}

impl<const WIDTH: usize, const INDEX_BITS: usize> Default for FirstSet<WIDTH, INDEX_BITS> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const WIDTH: usize, const INDEX_BITS: usize> Logic for FirstSet<WIDTH, INDEX_BITS> {
    #[hdl_gen]
    fn update(&mut self) {
        // Shifts past WIDTH give zero, which yosys removes, so one fixed ladder serves every width.
        self.below.next = self.mask.val() << 1;
        self.below.next = self.below.val() | (self.below.val() << 1);
        self.below.next = self.below.val() | (self.below.val() << 2);
        self.below.next = self.below.val() | (self.below.val() << 4);
        self.below.next = self.below.val() | (self.below.val() << 8);
        self.below.next = self.below.val() | (self.below.val() << 16);
        self.below.next = self.below.val() | (self.below.val() << 32);
        self.one_hot.next = self.mask.val() & !self.below.val();
        self.any.next = self.mask.val().any();
        // At most one one_hot bit is set, so OR-ing the positions encodes it without priority.
        self.index.next = self.lowest_index.val();
        for position in 1..WIDTH {
            if self.one_hot.val().get_bit(position) {
                self.index.next = self.index.val() | position.to_bits();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::settle;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The reference: the lowest set bit by counting trailing zeros.
    fn reference(mask: u64) -> (u64, u64, bool) {
        if mask == 0 {
            (0, 0, false)
        } else {
            let position = mask.trailing_zeros() as u64;
            (1 << position, position, true)
        }
    }

    fn check<const WIDTH: usize, const INDEX_BITS: usize>(masks: impl Iterator<Item = u64>) {
        let mut uut = FirstSet::<WIDTH, INDEX_BITS>::new();
        uut.connect_all();
        check_all(&uut).unwrap();
        for mask in masks {
            uut.mask.next = mask.to_bits();
            settle(&mut uut);
            let (one_hot, index, any) = reference(mask);
            assert_eq!(uut.one_hot.val().to_u64(), one_hot, "one_hot of {mask:#x}");
            assert_eq!(uut.index.val().to_u64(), index, "index of {mask:#x}");
            assert_eq!(uut.any.val(), any, "any of {mask:#x}");
        }
    }

    #[test]
    fn every_mask_of_eight_bits() {
        check::<8, 3>(0..256);
    }

    #[test]
    fn one_bit() {
        check::<1, 1>(0..2);
    }

    /// Wide masks: every pair of bits (the far bit must not be picked however far the near one
    /// is) and random masks with their low bits cleared at random, so that high positions are
    /// picked too.
    #[test]
    fn wide_masks() {
        let mut random = ChaCha8Rng::seed_from_u64(0x1de5);
        let mut masks = |width: u32| -> Vec<u64> {
            let all = u64::MAX >> (64 - width);
            let mut masks: Vec<u64> = (0..width)
                .flat_map(|low| (low..width).map(move |high| 1 << low | 1 << high))
                .collect();
            masks.extend((0..300).map(|_| {
                let cleared = random.gen_range(0..width);
                (random.gen::<u64>() & all) >> cleared << cleared
            }));
            masks
        };
        check::<13, 4>(masks(13).into_iter());
        check::<64, 6>(masks(64).into_iter());
    }

    #[test]
    #[should_panic(expected = "cannot number")]
    fn too_few_index_bits() {
        FirstSet::<9, 3>::new();
    }
}
