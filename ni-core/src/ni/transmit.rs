//! The NI's transmit pick and words (docs/protocol.md §8.5): which packet a worm carries, and the
//! words the transmitter asks for.

use idemnet_rtl::worm_transmitter::{
    header_read_lead, WormSource, DIRECT_READ_LEAD, REGISTERED_READ_LEAD,
};
use idemnet_spec::ni::NiConfig;
use rust_hdl::prelude::*;

use super::{c, HEADER_WORDS, SEND_ADDRESS_BITS, SLOT_BITS};

/// The transmit side of an NI: the pick (§8.5), the first due packet in priority (a late
/// FORGET, a send slot's FORGET, a receive slot's ACK, a send slot's SEND) registered between
/// worms with its slot and fields, and the words of the worm that carries it.
///
/// Ports (Verilog names, as a child `<name>$<port>`):
///
/// | port | dir | width | |
/// |------|-----|-------|-|
/// | `clock` | in | 1 | |
/// | `worm$*` | | | the core's worm ([`WormSource`], linked to the core's): `start` and `finish` bound the worm in progress |
/// | `late_forget`, `late_counter`, `late_destination` | in | 1, 16, 16 | an ACK for no send slot arrived (only while not `late_forget_valid`): its FORGET is due from this edge, with this counter to this node |
/// | `forget_due`, `forget_slot`, `forget_destination`, `forget_counter` | in | 1, 4, 16, 16 | a send slot's FORGET is due, and its slot and fields |
/// | `ack_due`, `ack_slot`, `ack_uid` | in | 1, 4, 32 | a receive slot's ACK is due, and its slot and uid |
/// | `send_due`, `due_slot`, `due_destination`, `due_counter`, `due_length`, `due_transmitted` | in | 1, 4, 16, 16, 6, 1 | a send slot's SEND is due, and its slot and fields |
/// | `payload_word` | in | 32 | the send payload memory's read register |
/// | `late_forget_valid` | out | 1 | a late FORGET is due (a register) |
/// | `forget_sent`, `ack_sent`, `send_sent` | out | 1, 1, 1 | the worm started now carries that packet, of slot `sent_slot` |
/// | `sent_slot` | out | 4 | the picked packet's slot (a register): the send slot of a FORGET or a SEND, the receive slot of an ACK |
/// | `retransmit` | out | 1 | the SEND started now was sent before |
/// | `read_address` | out | 7 | the send payload word to read at this edge: the pick's slot, and the word a cycle ahead of the one asked for, or two with [`Transmit::registered_payload_read`]; word 0 while no worm is in progress |
/// | `done_valid`, `done_uid` | out | 1, 32 | one-cycle pulse: a send completed (its FORGET started) |
///
/// Timing: `worm$due` and `sent_slot` are registers, `worm$word` combinational from the
/// `worm$*` inputs, the registers and `payload_word`; the strobes are `worm$start` gated by the
/// pick's kind, `read_address` combinational from the pick's slot and `worm$index`,
/// `done_*` registers. `worm$word` gives the memory's read register while `payload_valid`, or,
/// with [`Transmit::registered_payload_read`], `payload_held`, a register loaded from it: the
/// node's choice, where the word runs on through the merge's multiplexer into the flit and the
/// ECP5's DP16KD clock-to-output (5.8 ns) ended its critical path. The NI alone and the
/// self-test's NIs read directly (32 flip-flops less an NI; the compact iCE40 self-test is at
/// 98 % of its device). The pick registers at every edge at which no worm is in progress (`start`
/// not seen since the last `finish`) and none starts, and at the `finish` edge; it holds from a
/// start to its finish, so the words a worm is asked for are its own. No path runs from the
/// slot state to `start`: the merge and the transmitter decide from the `due` register.
#[derive(LogicBlock)]
pub struct Transmit {
    pub clock: Signal<In, Clock>,
    pub worm: WormSource,
    pub late_forget: Signal<In, Bit>,
    pub late_counter: Signal<In, Bits<16>>,
    pub late_destination: Signal<In, Bits<16>>,
    pub forget_due: Signal<In, Bit>,
    pub forget_slot: Signal<In, Bits<SLOT_BITS>>,
    pub forget_destination: Signal<In, Bits<16>>,
    pub forget_counter: Signal<In, Bits<16>>,
    pub ack_due: Signal<In, Bit>,
    pub ack_slot: Signal<In, Bits<SLOT_BITS>>,
    pub ack_uid: Signal<In, Bits<32>>,
    pub send_due: Signal<In, Bit>,
    pub due_slot: Signal<In, Bits<SLOT_BITS>>,
    pub due_destination: Signal<In, Bits<16>>,
    pub due_counter: Signal<In, Bits<16>>,
    pub due_length: Signal<In, Bits<6>>,
    pub due_transmitted: Signal<In, Bit>,
    pub payload_word: Signal<In, Bits<32>>,
    pub late_forget_valid: Signal<Out, Bit>,
    pub forget_sent: Signal<Out, Bit>,
    pub ack_sent: Signal<Out, Bit>,
    pub send_sent: Signal<Out, Bit>,
    pub sent_slot: Signal<Out, Bits<SLOT_BITS>>,
    pub retransmit: Signal<Out, Bit>,
    pub read_address: Signal<Out, Bits<SEND_ADDRESS_BITS>>,
    pub done_valid: Signal<Out, Bit>,
    pub done_uid: Signal<Out, Bits<32>>,
    /// The FORGET owed for an ACK that matched no send slot.
    late: DFF<Bit>,
    late_forget_counter: DFF<Bits<16>>,
    late_forget_destination: DFF<Bits<16>>,
    // The pick: the packet of the next worm, then of the worm in progress.
    picked: DFF<Bit>,
    outgoing_kind: DFF<Bits<2>>,
    /// The pick is the late FORGET (its kind is FORGET).
    outgoing_late: DFF<Bit>,
    outgoing_destination: DFF<Bits<16>>,
    outgoing_length: DFF<Bits<6>>,
    /// The uid's counter (its owner is this node for a FORGET, the destination for an ACK).
    outgoing_counter: DFF<Bits<16>>,
    outgoing_slot: DFF<Bits<SLOT_BITS>>,
    outgoing_transmitted: DFF<Bit>,
    /// A worm of this NI is in progress: from its `start` to its `finish`.
    in_worm: DFF<Bit>,
    completion_valid: DFF<Bit>,
    completion_uid: DFF<Bits<32>>,
    /// The payload word asked for next: the memory's read register of the cycle before.
    payload_held: DFF<Bits<32>>,
    refresh: Signal<Local, Bit>,
    outgoing_word: Signal<Local, Bits<32>>,
    outgoing_words: Signal<Local, Bits<6>>,
    /// The payload word read now, ahead of the transmitter's (a payload has at most
    /// 8 words, the low 3 bits of an index; named, as rust-hdl cannot widen a slice without a
    /// width warning).
    fetch_word: Signal<Local, Bits<3>>,
    // Parameters and named values (rust-hdl writes integer literals 32 bits wide).
    node_upper: Constant<Bits<32>>,
    empty_len: Constant<Bits<6>>,
    word_round_up: Constant<Bits<6>>,
    kind_send: Constant<Bits<2>>,
    kind_ack: Constant<Bits<2>>,
    kind_forget: Constant<Bits<2>>,
    payload_lead: Constant<Bits<3>>,
    header_lead: Constant<Bits<3>>,
    payload_registered: Constant<Bit>,
    first_word: Constant<Bits<3>>,
}

impl Transmit {
    /// The transmit side of the NI of `cfg`.
    pub fn new(cfg: &NiConfig) -> Self {
        Self {
            clock: Default::default(),
            worm: Default::default(),
            late_forget: Default::default(),
            late_counter: Default::default(),
            late_destination: Default::default(),
            forget_due: Default::default(),
            forget_slot: Default::default(),
            forget_destination: Default::default(),
            forget_counter: Default::default(),
            ack_due: Default::default(),
            ack_slot: Default::default(),
            ack_uid: Default::default(),
            send_due: Default::default(),
            due_slot: Default::default(),
            due_destination: Default::default(),
            due_counter: Default::default(),
            due_length: Default::default(),
            due_transmitted: Default::default(),
            payload_word: Default::default(),
            late_forget_valid: Default::default(),
            forget_sent: Default::default(),
            ack_sent: Default::default(),
            send_sent: Default::default(),
            sent_slot: Default::default(),
            retransmit: Default::default(),
            read_address: Default::default(),
            done_valid: Default::default(),
            done_uid: Default::default(),
            late: Default::default(),
            late_forget_counter: Default::default(),
            late_forget_destination: Default::default(),
            picked: Default::default(),
            outgoing_kind: Default::default(),
            outgoing_late: Default::default(),
            outgoing_destination: Default::default(),
            outgoing_length: Default::default(),
            outgoing_counter: Default::default(),
            outgoing_slot: Default::default(),
            outgoing_transmitted: Default::default(),
            in_worm: Default::default(),
            completion_valid: Default::default(),
            completion_uid: Default::default(),
            payload_held: Default::default(),
            refresh: Default::default(),
            outgoing_word: Default::default(),
            outgoing_words: Default::default(),
            fetch_word: Default::default(),
            node_upper: c((cfg.node as u64) << 16),
            empty_len: c(0),
            word_round_up: c(3),
            kind_send: c(0),
            kind_ack: c(1),
            kind_forget: c(2),
            payload_lead: c(DIRECT_READ_LEAD as u64),
            header_lead: c(header_read_lead(DIRECT_READ_LEAD, HEADER_WORDS, 3)),
            payload_registered: Constant::new(false),
            first_word: c(0),
        }
    }

    /// The same, answering payload words from `payload_held`, read two cycles ahead (above).
    pub fn registered_payload_read(self) -> Self {
        Self {
            payload_lead: c(REGISTERED_READ_LEAD as u64),
            header_lead: c(header_read_lead(REGISTERED_READ_LEAD, HEADER_WORDS, 3)),
            payload_registered: Constant::new(true),
            ..self
        }
    }
}

impl Logic for Transmit {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            late,
            late_forget_counter,
            late_forget_destination,
            picked,
            outgoing_kind,
            outgoing_late,
            outgoing_destination,
            outgoing_length,
            outgoing_counter,
            outgoing_slot,
            outgoing_transmitted,
            in_worm,
            payload_held
        );
        self.completion_valid.clock.next = self.clock.val();
        self.completion_valid.d.next = false;
        self.completion_uid.clock.next = self.clock.val();
        self.completion_uid.d.next = 0.into();
        self.late_forget_valid.next = self.late.q.val();
        if self.late_forget.val() {
            self.late.d.next = true;
        }
        // The late FORGET's fields follow the arriving ACK's while none is due, so that they
        // hold the accepted one's from its edge on: `late_forget` (the ACK's verdict, a long
        // path) drives one flip-flop, not 32 enables.
        if !self.late.q.val() {
            self.late_forget_counter.d.next = self.late_counter.val();
            self.late_forget_destination.d.next = self.late_destination.val();
        }
        // Payload words of the picked packet: ceil(len / 4).
        self.outgoing_words.next = (self.outgoing_length.q.val() + self.word_round_up.val()) >> 2;

        // ---- The pick (§8.5): between worms and at a worm's last flit, the first due packet
        // in priority, its slot and the fields its words carry.
        if self.worm.start.val() {
            self.in_worm.d.next = true;
        }
        if self.worm.finish.val() {
            self.in_worm.d.next = false;
        }
        self.refresh.next =
            (!self.in_worm.q.val() & !self.worm.start.val()) | self.worm.finish.val();
        if self.refresh.val() {
            self.picked.d.next = self.late.q.val()
                | self.forget_due.val()
                | self.ack_due.val()
                | self.send_due.val();
            self.outgoing_late.d.next = false;
            self.outgoing_transmitted.d.next = false;
            self.outgoing_length.d.next = self.empty_len.val();
            if self.late.q.val() {
                self.outgoing_kind.d.next = self.kind_forget.val();
                self.outgoing_late.d.next = true;
                self.outgoing_destination.d.next = self.late_forget_destination.q.val();
                self.outgoing_counter.d.next = self.late_forget_counter.q.val();
            } else if self.forget_due.val() {
                self.outgoing_kind.d.next = self.kind_forget.val();
                self.outgoing_slot.d.next = self.forget_slot.val();
                self.outgoing_destination.d.next = self.forget_destination.val();
                self.outgoing_counter.d.next = self.forget_counter.val();
            } else if self.ack_due.val() {
                self.outgoing_kind.d.next = self.kind_ack.val();
                self.outgoing_slot.d.next = self.ack_slot.val();
                self.outgoing_destination.d.next = self.ack_uid.val().get_bits::<16>(16);
                self.outgoing_counter.d.next = self.ack_uid.val().get_bits::<16>(0);
            } else {
                // A SEND, or nothing (`picked` low).
                self.outgoing_kind.d.next = self.kind_send.val();
                self.outgoing_slot.d.next = self.due_slot.val();
                self.outgoing_destination.d.next = self.due_destination.val();
                self.outgoing_length.d.next = self.due_length.val();
                self.outgoing_transmitted.d.next = self.due_transmitted.val();
                self.outgoing_counter.d.next = self.due_counter.val();
            }
        }
        self.worm.due.next = self.picked.q.val() & !self.in_worm.q.val();
        self.worm.payload_words.next = self.outgoing_words.val().get_bits::<4>(0);

        // ---- What the start of the picked packet does (§8.5), at the start's edge.
        self.sent_slot.next = self.outgoing_slot.q.val();
        self.forget_sent.next = false;
        self.ack_sent.next = false;
        self.send_sent.next = false;
        self.retransmit.next = false;
        if self.worm.start.val() {
            if self.outgoing_kind.q.val() == self.kind_forget.val() {
                if self.outgoing_late.q.val() {
                    self.late.d.next = false;
                } else {
                    self.forget_sent.next = true;
                    self.completion_valid.d.next = true;
                    self.completion_uid.d.next =
                        self.node_upper.val() | bit_cast::<32, 16>(self.outgoing_counter.q.val());
                }
            } else if self.outgoing_kind.q.val() == self.kind_ack.val() {
                self.ack_sent.next = true;
            } else {
                self.send_sent.next = true;
                self.retransmit.next = self.outgoing_transmitted.q.val();
            }
        }
        // The SEND's payload is read ahead of the word the transmitter asks for, from its header
        // words on; its slot is busy until its FORGET, so the words cannot change meanwhile.
        self.fetch_word.next = self.worm.index.val().get_bits::<3>(0) + self.payload_lead.val();
        if self.worm.header_valid.val() {
            self.fetch_word.next = self.worm.index.val().get_bits::<3>(0) + self.header_lead.val();
        }
        // Before a worm, word 0 of the picked slot: with one header word, the registered read
        // needs it at the start's edge (two cycles ahead of the cycle after the header's).
        if !self.in_worm.q.val() {
            self.fetch_word.next = self.first_word.val();
        }
        self.payload_held.d.next = self.payload_word.val();
        self.read_address.next =
            (bit_cast::<SEND_ADDRESS_BITS, SLOT_BITS>(self.outgoing_slot.q.val()) << 3)
                | bit_cast::<SEND_ADDRESS_BITS, 3>(self.fetch_word.val());
        // The word the transmitter asks for: the route, the header word (type, length, the
        // uid's counter), payload word `index` (the memory's read register).
        self.outgoing_word.next = 0.into();
        if self.worm.start.val() {
            self.outgoing_word.next =
                self.node_upper.val() | bit_cast::<32, 16>(self.outgoing_destination.q.val());
        }
        if self.worm.header_valid.val() {
            self.outgoing_word.next = (bit_cast::<32, 2>(self.outgoing_kind.q.val()) << 30)
                | (bit_cast::<32, 6>(self.outgoing_length.q.val()) << 24)
                | bit_cast::<32, 16>(self.outgoing_counter.q.val());
        }
        if self.worm.payload_valid.val() {
            self.outgoing_word.next = self.payload_word.val();
            if self.payload_registered.val() {
                self.outgoing_word.next = self.payload_held.q.val();
            }
        }
        self.worm.word.next = self.outgoing_word.val();
        self.done_valid.next = self.completion_valid.q.val();
        self.done_uid.next = self.completion_uid.q.val();
    }
}
