//! The NI's delivery stream (docs/protocol.md §8.4) and the receive payload banks it reads.

use idemnet_rtl::fifo::Memory;
use idemnet_spec::ni::PAYLOAD_WORDS;
use rust_hdl::prelude::*;

use super::{c, RECEIVE_ADDRESS_BITS};

/// The delivery stream of an NI: two receive banks of 8 words in block RAM
/// ([`Memory::block`]), an arriving SEND written word by word into the bank not being delivered
/// and delivered from it when accepted, beat by beat as the host takes them.
///
/// Ports (Verilog names, as a child `<name>$<port>`):
///
/// | port | dir | width | |
/// |------|-----|-------|-|
/// | `clock` | in | 1 | |
/// | `write_enable`, `write_word`, `write_data` | in | 1, 3, 32 | the receiver's payload word `write_word`, written into the bank not being delivered at this edge |
/// | `start` | in | 1 | the SEND written so far is delivered from this edge (only while not `dlv_valid`): its bank becomes the delivered one |
/// | `start_source`, `start_uid`, `start_length` | in | 16, 32, 6 | its source, uid and length |
/// | `dlv_ready` | in | 1 | the host takes the delivery beat shown |
/// | `dlv_valid`, `dlv_data`, `dlv_last` | out | 1, 32, 1 | the delivery stream (§8.4) |
/// | `dlv_src`, `dlv_uid`, `dlv_len` | out | 16, 32, 6 | the datagram delivered, held through its beats |
///
/// Timing: every output is a register but `dlv_data`, the memory's read register gated by the
/// `dlv_len` register (zero for a zero-length datagram and between datagrams). A beat is taken
/// in cycle `t` when `dlv_valid` (`O_(t-1)`) and `dlv_ready`, and the next beat is in `O_t`; a
/// datagram started at edge `t` has its first beat in `O_t`. The delivered bank is read at the
/// beat after the one being taken; between datagrams word 0 of the bank being written, which no
/// word is written to at the edge that starts a delivery (a SEND's action edge, §8.4, when at
/// most a head flit arrives).
#[derive(LogicBlock)]
pub struct Delivery {
    pub clock: Signal<In, Clock>,
    pub write_enable: Signal<In, Bit>,
    pub write_word: Signal<In, Bits<3>>,
    pub write_data: Signal<In, Bits<32>>,
    pub start: Signal<In, Bit>,
    pub start_source: Signal<In, Bits<16>>,
    pub start_uid: Signal<In, Bits<32>>,
    pub start_length: Signal<In, Bits<6>>,
    pub dlv_ready: Signal<In, Bit>,
    pub dlv_valid: Signal<Out, Bit>,
    pub dlv_data: Signal<Out, Bits<32>>,
    pub dlv_last: Signal<Out, Bit>,
    pub dlv_src: Signal<Out, Bits<16>>,
    pub dlv_uid: Signal<Out, Bits<32>>,
    pub dlv_len: Signal<Out, Bits<6>>,
    receive_payloads: Memory<Bits<32>, RECEIVE_ADDRESS_BITS>,
    /// The bank the receiver writes.
    receive_bank: DFF<Bits<1>>,
    delivery_valid: DFF<Bit>,
    delivery_source: DFF<Bits<16>>,
    delivery_uid: DFF<Bits<32>>,
    delivery_length: DFF<Bits<6>>,
    delivery_beat: DFF<Bits<3>>,
    delivery_last: DFF<Bit>,
    delivery_taken: Signal<Local, Bit>,
    /// The bank being delivered: the other one (a named one bit wide, since Verilog would
    /// widen the operand of a `~` inside a wider expression).
    delivered_bank: Signal<Local, Bits<1>>,
    delivery_next_beat: Signal<Local, Bits<3>>,
    delivery_beats: Signal<Local, Bits<6>>,
    // Named values (rust-hdl writes integer literals 32 bits wide).
    empty_node: Constant<Bits<16>>,
    empty_len: Constant<Bits<6>>,
    first_beat: Constant<Bits<3>>,
    least_beats: Constant<Bits<6>>,
    word_bytes: Constant<Bits<6>>,
    /// The bits of a length at or above `word_bytes`.
    from_word: Constant<Bits<6>>,
    word_round_up: Constant<Bits<6>>,
}

impl Default for Delivery {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            write_enable: Default::default(),
            write_word: Default::default(),
            write_data: Default::default(),
            start: Default::default(),
            start_source: Default::default(),
            start_uid: Default::default(),
            start_length: Default::default(),
            dlv_ready: Default::default(),
            dlv_valid: Default::default(),
            dlv_data: Default::default(),
            dlv_last: Default::default(),
            dlv_src: Default::default(),
            dlv_uid: Default::default(),
            dlv_len: Default::default(),
            receive_payloads: Memory::block(2 * PAYLOAD_WORDS),
            receive_bank: Default::default(),
            delivery_valid: Default::default(),
            delivery_source: Default::default(),
            delivery_uid: Default::default(),
            delivery_length: Default::default(),
            delivery_beat: Default::default(),
            delivery_last: Default::default(),
            delivery_taken: Default::default(),
            delivered_bank: Default::default(),
            delivery_next_beat: Default::default(),
            delivery_beats: Default::default(),
            empty_node: c(0),
            empty_len: c(0),
            first_beat: c(0),
            least_beats: c(1),
            word_bytes: c(4),
            from_word: c(0b11_1100),
            word_round_up: c(3),
        }
    }
}

impl Logic for Delivery {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            receive_bank,
            delivery_valid,
            delivery_source,
            delivery_uid,
            delivery_length,
            delivery_beat,
            delivery_last
        );
        self.receive_payloads.clock.next = self.clock.val();

        // ---- A taken beat shows the next, the last one ends it (every dlv_* register to zero).
        self.delivery_taken.next = self.delivery_valid.q.val() & self.dlv_ready.val();
        self.delivery_next_beat.next = self.delivery_beat.q.val();
        // A datagram has max(1, ceil(len / 4)) beats.
        self.delivery_beats.next = (self.delivery_length.q.val() + self.word_round_up.val()) >> 2;
        if !self.delivery_length.q.val().any() {
            self.delivery_beats.next = self.least_beats.val();
        }
        if self.delivery_taken.val() {
            if self.delivery_last.q.val() {
                self.delivery_valid.d.next = false;
                self.delivery_source.d.next = self.empty_node.val();
                self.delivery_uid.d.next = 0.into();
                self.delivery_length.d.next = self.empty_len.val();
                self.delivery_beat.d.next = self.first_beat.val();
                self.delivery_last.d.next = false;
            } else {
                self.delivery_next_beat.next = self.delivery_beat.q.val() + true;
                self.delivery_beat.d.next = self.delivery_next_beat.val();
                self.delivery_last.d.next = bit_cast::<6, 3>(self.delivery_next_beat.val()) + true
                    == self.delivery_beats.val();
            }
        }
        // The read register shows the beat after the edge: the delivered bank (the one the
        // receiver does not write) at the next beat; between datagrams, word 0 of the bank
        // being written, so that a SEND delivered at this edge shows its first word at once.
        self.receive_payloads.read_address.next =
            bit_cast::<RECEIVE_ADDRESS_BITS, 1>(self.receive_bank.q.val()) << 3;
        self.delivered_bank.next = !self.receive_bank.q.val();
        if self.delivery_valid.q.val() {
            self.receive_payloads.read_address.next =
                (bit_cast::<RECEIVE_ADDRESS_BITS, 1>(self.delivered_bank.val()) << 3)
                    | bit_cast::<RECEIVE_ADDRESS_BITS, 3>(self.delivery_next_beat.val());
        }

        // ---- The receiver's payload words go into the bank not being delivered.
        self.receive_payloads.write_enable.next = self.write_enable.val();
        self.receive_payloads.write_address.next =
            (bit_cast::<RECEIVE_ADDRESS_BITS, 1>(self.receive_bank.q.val()) << 3)
                | bit_cast::<RECEIVE_ADDRESS_BITS, 3>(self.write_word.val());
        self.receive_payloads.write_data.next = self.write_data.val();

        // ---- A SEND delivered: its words are in the bank written so far, which is delivered
        // now; the next SEND goes into the other.
        if self.start.val() {
            self.receive_bank.d.next = !self.receive_bank.q.val();
            self.delivery_valid.d.next = true;
            self.delivery_source.d.next = self.start_source.val();
            self.delivery_uid.d.next = self.start_uid.val();
            self.delivery_length.d.next = self.start_length.val();
            self.delivery_beat.d.next = self.first_beat.val();
            // `start_length <= 4` as a mask and an equality, not a carry chain.
            self.delivery_last.d.next = !(self.start_length.val() & self.from_word.val()).any()
                | (self.start_length.val() == self.word_bytes.val());
        }

        // ---- Outputs.
        self.dlv_valid.next = self.delivery_valid.q.val();
        self.dlv_data.next = 0.into();
        if self.delivery_length.q.val().any() {
            self.dlv_data.next = self.receive_payloads.read_data.val();
        }
        self.dlv_last.next = self.delivery_last.q.val();
        self.dlv_src.next = self.delivery_source.q.val();
        self.dlv_uid.next = self.delivery_uid.q.val();
        self.dlv_len.next = self.delivery_length.q.val();
    }
}
