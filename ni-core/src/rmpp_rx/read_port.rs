//! The buffer read port of the RMPP receive path (docs/protocol.md §11.6).

use crate::c;
use idemnet_spec::rmpp::RmppConfig;
use rust_hdl::prelude::*;

/// Addresses the message buffer at (`rd_slot`, `rd_word`) and masks what it reads to the slot's
/// `limit`.
///
/// Ports (Verilog names, as a child `read$<port>`):
///
/// | port | dir | width | |
/// |------|-----|-------|-|
/// | `clock` | in | 1 | |
/// | `rd_slot`, `rd_word` | in | 4, 10 | the address of this cycle |
/// | `limit`, `busy` | in | 13, 1 | `rd_slot`'s readable bytes and whether it is busy, as before the edge: a free slot reads as `limit` 0 |
/// | `ram_data` | in | 32 | the buffer RAM's registered read data |
/// | `ram_address` | out | 14 | the buffer RAM's read address (combinational) |
/// | `rd_data` | out | 32 | the word read at the previous edge, its bytes at or past `limit` zero |
///
/// Timing: the RAM registers its read at edge `t`; the byte mask, computed from `limit` before
/// the edge, is registered at the same edge; `rd_data` in `O_t` is their AND.
#[derive(LogicBlock)]
pub struct ReadPort {
    pub clock: Signal<In, Clock>,
    pub rd_slot: Signal<In, Bits<4>>,
    pub rd_word: Signal<In, Bits<10>>,
    pub limit: Signal<In, Bits<13>>,
    pub busy: Signal<In, Bit>,
    pub ram_data: Signal<In, Bits<32>>,
    pub ram_address: Signal<Out, Bits<14>>,
    pub rd_data: Signal<Out, Bits<32>>,
    rd_mask: DFF<Bits<4>>,
    limit_word: Signal<Local, Bits<11>>,
    limit_bytes: Signal<Local, Bits<2>>,
    word_below: Signal<Local, Bit>,
    word_at: Signal<Local, Bit>,
    word_mask_bytes: Signal<Local, Bits<32>>,
    slot_shift: Constant<Bits<6>>,
    slot_mask: Constant<Bits<14>>,
    word_mask: Constant<Bits<14>>,
    byte_lane: Vec<Constant<Bits<32>>>,
    all_bytes: Constant<Bits<4>>,
    no_bytes: Constant<Bits<4>>,
}

impl ReadPort {
    /// The read port of a buffer laid out for `cfg` (`rx_slots` slots of `max_msg` bytes).
    pub fn new(cfg: &RmppConfig) -> Self {
        let slot_bits = (cfg.rx_slots as u64).next_power_of_two().trailing_zeros() as u64;
        let slot_words_log2 = cfg.slot_words().trailing_zeros() as u64;
        Self {
            clock: Default::default(),
            rd_slot: Default::default(),
            rd_word: Default::default(),
            limit: Default::default(),
            busy: Default::default(),
            ram_data: Default::default(),
            ram_address: Default::default(),
            rd_data: Default::default(),
            rd_mask: Default::default(),
            limit_word: Default::default(),
            limit_bytes: Default::default(),
            word_below: Default::default(),
            word_at: Default::default(),
            word_mask_bytes: Default::default(),
            slot_shift: c(slot_words_log2),
            slot_mask: c((1 << slot_bits) - 1),
            word_mask: c((1 << slot_words_log2) - 1),
            byte_lane: (0..4).map(|byte| c(0xFF00_0000 >> (8 * byte))).collect(),
            all_bytes: c(0xF),
            no_bytes: c(0),
        }
    }
}

impl Logic for ReadPort {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rd_mask);
        self.ram_address.next = ((bit_cast::<14, 4>(self.rd_slot.val()) & self.slot_mask.val())
            << self.slot_shift.val())
            | (bit_cast::<14, 10>(self.rd_word.val()) & self.word_mask.val());
        // Byte `b` of word `w` is readable when `4w + b < limit`: when `w` is below the limit's
        // word, or is that word and `b` is below the limit's bytes in it. One 11-bit compare and
        // an equality, not four 13-bit compares (22 CCU2C on the ECP5).
        self.limit_word.next = self.limit.val().get_bits::<11>(2);
        self.limit_bytes.next = self.limit.val().get_bits::<2>(0);
        self.word_below.next = bit_cast::<11, 10>(self.rd_word.val()) < self.limit_word.val();
        self.word_at.next = bit_cast::<11, 10>(self.rd_word.val()) == self.limit_word.val();
        // A free slot's mask is cleared beside the compare, not by reading its `limit` as 0:
        // the slot's state then does not address the LUT RAM the compare waits for.
        // The free slot's branch repeats the default on purpose: nested under `busy` instead,
        // the same logic maps to 42 LUT4 more on the ECP5 (2,416 against 2,374, 88.6 MHz).
        self.rd_mask.d.next = self.no_bytes.val();
        if !self.busy.val() {
            self.rd_mask.d.next = self.no_bytes.val();
        } else if self.word_below.val() {
            self.rd_mask.d.next = self.all_bytes.val();
        } else if self.word_at.val() {
            // The first `limit_bytes` bytes (the most significant lanes).
            self.rd_mask.d.next = !(self.all_bytes.val() >> self.limit_bytes.val());
        }
        self.word_mask_bytes.next = 0.into();
        for byte in 0..4 {
            if self.rd_mask.q.val().get_bit(3 - byte) {
                self.word_mask_bytes.next = self.word_mask_bytes.val() | self.byte_lane[byte].val();
            }
        }
        self.rd_data.next = self.ram_data.val() & self.word_mask_bytes.val();
    }
}
