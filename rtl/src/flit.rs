//! The flit wire format (`docs/protocol.md` §2).
//!
//! | bits  | name  |
//! |-------|-------|
//! | 34    | valid |
//! | 33    | head  |
//! | 32    | tail  |
//! | 31:0  | data  |
//!
//! A head flit's data carries the route: bits 15:0 destination, bits 31:16 source.

use rust_hdl::prelude::Bits;

/// Width of a flit in bits.
pub const FLIT_BITS: usize = 35;
/// Bit position of `valid`.
pub const VALID_BIT: usize = 34;
/// Bit position of `head`.
pub const HEAD_BIT: usize = 33;
/// Bit position of `tail`.
pub const TAIL_BIT: usize = 32;
/// Lowest bit of the destination field of a head flit (16 bits wide).
pub const DST_LSB: usize = 0;
/// Lowest bit of the source field of a head flit (16 bits wide).
pub const SRC_LSB: usize = 16;
/// Width of the drop counters.
pub const DROP_BITS: usize = 16;

/// The rust-hdl type of a flit.
pub type Flit = Bits<FLIT_BITS>;

/// Pack a valid flit.
pub fn make(head: bool, tail: bool, data: u32) -> u64 {
    (1u64 << VALID_BIT) | ((head as u64) << HEAD_BIT) | ((tail as u64) << TAIL_BIT) | data as u64
}

/// Head-flit data word for a route `src -> dst`.
pub fn route(src: u16, dst: u16) -> u32 {
    ((src as u32) << SRC_LSB) | ((dst as u32) << DST_LSB)
}

/// Convert a packed flit to the rust-hdl type.
pub fn to_bits(x: u64) -> Flit {
    Bits::from(x & ((1u64 << FLIT_BITS) - 1))
}

/// Convert a rust-hdl flit to a packed `u64`.
pub fn from_bits(x: Flit) -> u64 {
    x.to_u64()
}

/// `valid` bit of a packed flit.
pub fn is_valid(x: u64) -> bool {
    x >> VALID_BIT & 1 == 1
}
/// `head` bit of a packed flit.
pub fn is_head(x: u64) -> bool {
    x >> HEAD_BIT & 1 == 1
}
/// `tail` bit of a packed flit.
pub fn is_tail(x: u64) -> bool {
    x >> TAIL_BIT & 1 == 1
}
/// Data word of a packed flit.
pub fn data(x: u64) -> u32 {
    x as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_unpack() {
        let f = make(true, false, route(3, 12));
        assert!(is_valid(f) && is_head(f) && !is_tail(f));
        assert_eq!(data(f), 3 << 16 | 12);
        assert_eq!(from_bits(to_bits(f)), f);
        assert_eq!(f >> 35, 0);
    }
}
