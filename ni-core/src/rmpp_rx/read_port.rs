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
/// | `rd_data` | out | 32 | the word addressed a cycle earlier, its bytes at or past `limit` zero (a register) |
///
/// Timing: the RAM registers its read at edge `t`; the byte mask, computed from `limit` before
/// the edge, is registered at the same edge; their AND is registered at edge `t + 1`, so
/// `rd_data` in `O_(t+1)` is the word addressed in `I_t` (§11.6). That last register keeps the
/// block RAM's clock-to-output (5.8 ns for the ECP5's DP16KD) from running on into the upper
/// layer's logic: with `rd_data` the AND itself, that path ended the ECP5 receive path's and the
/// node's critical paths at 98 to 101 MHz.
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
    /// `rd_data`'s bytes, most significant first: each cleared by its mask bit as a
    /// synchronous reset, which the ECP5's and the iCE40's flip-flops take without a LUT.
    rd_out: Vec<DFF<Bits<8>>>,
    limit_word: Signal<Local, Bits<11>>,
    limit_bytes: Signal<Local, Bits<2>>,
    word_below: Signal<Local, Bit>,
    word_at: Signal<Local, Bit>,
    slot_shift: Constant<Bits<6>>,
    slot_mask: Constant<Bits<14>>,
    word_mask: Constant<Bits<14>>,
    all_bytes: Constant<Bits<4>>,
    cleared_byte: Constant<Bits<8>>,
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
            rd_out: (0..4).map(|_| Default::default()).collect(),
            limit_word: Default::default(),
            limit_bytes: Default::default(),
            word_below: Default::default(),
            word_at: Default::default(),
            slot_shift: c(slot_words_log2),
            slot_mask: c((1 << slot_bits) - 1),
            word_mask: c((1 << slot_words_log2) - 1),
            all_bytes: c(0xF),
            cleared_byte: c(0),
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
        for byte in 0..4 {
            self.rd_out[byte].clock.next = self.clock.val();
            self.rd_out[byte].d.next = self.cleared_byte.val();
            if self.rd_mask.q.val().get_bit(3 - byte) {
                self.rd_out[byte].d.next = self.ram_data.val().get_bits::<8>(24 - 8 * byte);
            }
        }
        self.rd_data.next = (bit_cast::<32, 8>(self.rd_out[0].q.val()) << 24)
            | (bit_cast::<32, 8>(self.rd_out[1].q.val()) << 16)
            | (bit_cast::<32, 8>(self.rd_out[2].q.val()) << 8)
            | bit_cast::<32, 8>(self.rd_out[3].q.val());
    }
}
