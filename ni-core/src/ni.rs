//! The idempotent network interface of docs/protocol.md §8, as a rust-hdl block built of
//! sub-blocks: the send slots and the request stream ([`send_slots::SendSlots`]), the receive
//! slots ([`receive_slots::ReceiveSlots`]), the delivery stream ([`delivery::Delivery`]) and the
//! transmit pick and words ([`transmit::Transmit`]).

use idemnet_rtl::counter_bank::CounterBank;
use idemnet_rtl::worm_receiver::{ReceivedWorm, WormEndStrobes};
use idemnet_rtl::worm_transmitter::WormSource;
use idemnet_spec::ni::{NiConfig, COUNTERS};
use rust_hdl::prelude::*;

use crate::host_ports::with_host_ports;
use crate::standalone::with_transmitter;

pub mod delivery;
pub mod receive_slots;
pub mod send_slots;
pub mod transmit;

use crate::{c, vec_of};
use delivery::Delivery;
use receive_slots::ReceiveSlots;
use send_slots::SendSlots;
use transmit::Transmit;

/// The NI's port table and its host port names (§8.2), from the contract's one copy.
pub use idemnet_spec::ni::{HOST_INPUTS, HOST_OUTPUTS, PORTS};

/// Header words of an NI packet after its route (§8.1): one, with `type`, `len` and the uid's
/// counter.
pub use idemnet_spec::ni::HEADER_WORDS;

/// Address bits of the send payload memory: a slot number (up to 16 slots) and a word. The
/// memory is declared for 16 slots whatever `send_slots` is, so that every address the index
/// can hold is a word (Verilator holds an index to the array's size); the slots not built are
/// never written, and a block RAM holds 128 words of 32 bits in as many cells as 8 (two iCE40
/// `SB_RAM40_4K` of 256 x 16, one ECP5 `DP16KD` of 512 x 36).
const SEND_ADDRESS_BITS: usize = 7;
/// Address bits of the receive payload memory: a bank (two) and a word.
const RECEIVE_ADDRESS_BITS: usize = 4;
/// The slot masks and the pickers over them are this wide: the most slots §8.2 allows.
const SLOTS: usize = 16;
/// Bits of a slot number.
const SLOT_BITS: usize = 4;
/// Sources of the counter bank: one per counter, and a second one for `truncated`, which a
/// head that is also a tail arriving in a worm counts twice in one cycle (the worm it cuts and
/// itself).
const COUNTER_SOURCES: usize = COUNTERS.len() + 1;
/// Bits of a counter number.
const COUNTER_BITS: usize = 4;

/// A send slot (§8.4, §8.5).
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum SendState {
    /// No datagram.
    Free,
    /// Its SEND repeats until the ACK comes.
    Waiting,
    /// ACKed: its FORGET is due, which frees the slot.
    ForgetPending,
}

/// The core of an NI (docs/protocol.md §8): all of it but the transmitter, a worm source
/// ([`crate::standalone`]) of the NI's own transmitter in [`Ni`] or of the node's one transmitter
/// (§13.2).
///
/// Ports (Verilog names):
///
/// | port | dir | width | |
/// |------|-----|-------|-|
/// | `clock` | in | 1 | |
/// | `receiver$*` | | | the worms of the fabric, framed by a [`WormReceiver`] this core does not own ([`ReceivedWorm`]: the NI alone's, or the node's one receiver, §13.3), as that cell's ports |
/// | `upper_half_ahead` | in | 16 | data bits 31:16 of the flit the receiver frames in the next cycle (an NI header word's kind, length and reserved byte), read only with [`NiCore::header_check_ahead`] (the node's split has them in a register; the NI alone ties them to zero) |
/// | `worm$*` | | | the worm this NI sends ([`WormSource`], joined to the [`idemnet_rtl::worm_transmitter::WormFetch`] of the NI alone's transmitter or of the node's merge, §13.2): `due` is the pick (§8.5: the first due packet in priority, registered between worms and at a worm's `finish`); at `start` the picked packet's worm starts; `word` is the route at `start`, then the header word (type, length, the uid's counter), the payload words (read from block RAM ahead of the word asked for, [`transmit::Transmit`]), zero when none is asked for; `payload_words` from the pick's length |
/// | `req_valid`, `req_data`, `req_last` | in | 1, 32, 1 | the request stream (§8.5) |
/// | `req_dst`, `req_len` | in | 16, 6 | read on a request's first beat |
/// | `dlv_ready` | in | 1 | the host takes the delivery beat shown |
/// | `req_ready` | out | 1 | a send slot is free: beats are taken (0 before the first edge) |
/// | `dlv_valid`, `dlv_data`, `dlv_last` | out | 1, 32, 1 | the delivery stream (§8.4) |
/// | `dlv_src`, `dlv_uid`, `dlv_len` | out | 16, 32, 6 | the datagram delivered, held through its beats |
/// | `done_valid`, `done_uid` | out | 1, 32 | one-cycle pulse: a send completed |
/// | `cnt_crc` ... `cnt_host_error` | out | 16 each | wrapping event counters (§8.2) |
///
/// Timing: every output is a register but `worm$due` (the pick's register and the worm in
/// progress, so no path runs from the slot state to the link's arbiter), `worm$word`
/// (combinational from the `worm$*` inputs, the registers and the send memory's read register)
/// and `dlv_data`, the receive memory's read register gated by the `dlv_len` register (zero for
/// a zero-length datagram and between datagrams). A request beat is taken in cycle `t` when
/// `req_valid` and `req_ready` (`O_(t-1)`); a delivery beat when `dlv_valid` (`O_(t-1)`) and
/// `dlv_ready`, and the next beat is in `O_t`. The flit on `net_in` in cycle `t` is consumed at
/// edge `t`; a packet whose CRC flit arrives in cycle `t` acts at edge `t + 1` (§8.4), and a
/// SEND so delivered has its first beat in `O_(t+1)`. A worm started in cycle `t` is the packet picked at an earlier edge (§8.5: the
/// last edge before `t` between worms or at a worm's `finish`), its fields held until its
/// `finish`, so the words it is asked for are its own.
///
/// Internals: the framing is the worm cells': `receiver` ([`WormReceiver`], §8.3) presents the
/// header word and the payload words by index and ends each worm with its verdict, and
/// the transmitter (§8.5) asks for the route, the header word and the
/// payload words by index. This block reads the header words of the packet in reception and
/// decides what an arrived packet does (§8.4); the sub-blocks keep the state: `send`
/// ([`SendSlots`]) the send slots, the request stream and the send payloads (block RAM, 8 words
/// a slot, read by the transmitter a cycle ahead); `receive` ([`ReceiveSlots`]) the receive
/// slots; `delivery` ([`Delivery`]) the delivery stream and the two receive banks of 8 words
/// (block RAM), an arriving SEND written word by word into the bank not being delivered;
/// `transmit` ([`Transmit`]) the registered pick, the late FORGET and the worm's words. Neither
/// memory reads a word at the edge that writes it when the word read matters: the transmitter
/// reads busy slots and requests write free ones; the delivery reads the bank the receiver
/// does not write, and between datagrams word 0 of the one it writes, which no flit writes at
/// the edge that delivers (the action edge after the CRC flit's, when at most a head arrives). The "lowest slot first" picks are
/// [`idemnet_rtl::first_set::FirstSet`]s over the slot masks, the counters a [`CounterBank`];
/// decisions read only register outputs (the state before the edge), as §8.4 requires. A uid's
/// owner is not on the wire (§8.1): only its counter is kept, and every uid is rebuilt from
/// the route or the node number. The receive slots' uids are compared with the arriving one
/// when the header word arrives, a cycle or more before the worm's verdict needs the result: the slots change only when a worm
/// ends, so the match kept (the receive slots' `arriving_match`) is the one of the state before the action
/// edge, and the 32-bit compares are off the path from the CRC flit to the slots.
#[derive(LogicBlock)]
pub struct NiCore {
    pub clock: Signal<In, Clock>,
    pub receiver: ReceivedWorm,
    pub upper_half_ahead: Signal<In, Bits<16>>,
    pub worm: WormSource,
    pub req_valid: Signal<In, Bit>,
    pub req_data: Signal<In, Bits<32>>,
    pub req_last: Signal<In, Bit>,
    pub req_dst: Signal<In, Bits<16>>,
    pub req_len: Signal<In, Bits<6>>,
    pub dlv_ready: Signal<In, Bit>,
    pub req_ready: Signal<Out, Bit>,
    pub dlv_valid: Signal<Out, Bit>,
    pub dlv_data: Signal<Out, Bits<32>>,
    pub dlv_last: Signal<Out, Bit>,
    pub dlv_src: Signal<Out, Bits<16>>,
    pub dlv_uid: Signal<Out, Bits<32>>,
    pub dlv_len: Signal<Out, Bits<6>>,
    pub done_valid: Signal<Out, Bit>,
    pub done_uid: Signal<Out, Bits<32>>,
    pub cnt_crc: Signal<Out, Bits<16>>,
    pub cnt_truncated: Signal<Out, Bits<16>>,
    pub cnt_malformed: Signal<Out, Bits<16>>,
    pub cnt_misrouted: Signal<Out, Bits<16>>,
    pub cnt_table_full: Signal<Out, Bits<16>>,
    pub cnt_unknown: Signal<Out, Bits<16>>,
    pub cnt_busy: Signal<Out, Bits<16>>,
    pub cnt_duplicate: Signal<Out, Bits<16>>,
    pub cnt_retransmit: Signal<Out, Bits<16>>,
    pub cnt_host_error: Signal<Out, Bits<16>>,
    // The sub-blocks and cells.
    send: SendSlots,
    receive: ReceiveSlots,
    delivery: Delivery,
    transmit: Transmit,
    counters: CounterBank<{ COUNTERS.len() }, COUNTER_SOURCES, COUNTER_BITS, 16>,
    ends: WormEndStrobes,
    // The packet in reception.
    arriving_kind: DFF<Bits<2>>,
    arriving_length: DFF<Bits<6>>,
    arriving_counter: DFF<Bits<16>>,
    /// The worm whose CRC flit was consumed at the last edge ended whole and addressed here: its
    /// packet acts at this edge (§8.4).
    acting: DFF<Bit>,
    /// The header checks of the word the receiver presents, made a cycle ahead from
    /// `upper_half_ahead` (with [`NiCore::header_check_ahead`]).
    malformed_ahead: DFF<Bit>,
    words_ahead: DFF<Bits<4>>,
    // Combinational temporaries.
    /// The upper half (kind, length, reserved byte) of the word the header checks read:
    /// `receiver$word`'s, or `upper_half_ahead` to be registered.
    checked_half: Signal<Local, Bits<16>>,
    /// The uid of the header word the receiver presents, its owner the route's `src` (that of
    /// a SEND or FORGET; only those use it whole).
    presented_uid: Signal<Local, Bits<32>>,
    presented_counter: Signal<Local, Bits<16>>,
    header_malformed: Signal<Local, Bit>,
    arriving_uid: Signal<Local, Bits<32>>,
    arriving_words: Signal<Local, Bits<6>>,
    /// The payload word the receiver presents (a payload has at most 8 words, the low 3 bits
    /// of the cell's index; named, as rust-hdl cannot widen a slice without a width warning).
    arriving_word: Signal<Local, Bits<3>>,
    // One strobe per counter (`cut` is `truncated`'s second source).
    count_cut: Signal<Local, Bit>,
    count_table_full: Signal<Local, Bit>,
    count_unknown: Signal<Local, Bit>,
    count_busy: Signal<Local, Bit>,
    count_duplicate: Signal<Local, Bit>,
    // Parameters.
    /// The counter each source of the counter bank counts.
    source_counter: Vec<Constant<Bits<COUNTER_BITS>>>,
    // Named values (rust-hdl writes integer literals 32 bits wide, so narrower ones are here).
    len_max: Constant<Bits<6>>,
    word_round_up: Constant<Bits<6>>,
    kind_send: Constant<Bits<2>>,
    kind_ack: Constant<Bits<2>>,
    kind_malformed: Constant<Bits<2>>,
    /// The header checks are made a cycle ahead ([`NiCore::header_check_ahead`]).
    check_ahead: Constant<Bit>,
}

impl NiCore {
    /// The core of an NI with the parameters of `cfg` (validated by the caller: see [`crate::ni`]).
    pub fn new(cfg: &NiConfig) -> Self {
        assert!(cfg.send_slots <= SLOTS && cfg.recv_slots <= SLOTS);
        // Source `s` counts counter `s`; the extra source counts `truncated` again.
        let truncated = idemnet_spec::ni::cnt::TRUNCATED;
        let source_counter = (0..COUNTERS.len())
            .chain([truncated])
            .map(|counter| c(counter as u64))
            .collect();
        Self {
            clock: Default::default(),
            receiver: Default::default(),
            upper_half_ahead: Default::default(),
            worm: Default::default(),
            req_valid: Default::default(),
            req_data: Default::default(),
            req_last: Default::default(),
            req_dst: Default::default(),
            req_len: Default::default(),
            dlv_ready: Default::default(),
            req_ready: Default::default(),
            dlv_valid: Default::default(),
            dlv_data: Default::default(),
            dlv_last: Default::default(),
            dlv_src: Default::default(),
            dlv_uid: Default::default(),
            dlv_len: Default::default(),
            done_valid: Default::default(),
            done_uid: Default::default(),
            cnt_crc: Default::default(),
            cnt_truncated: Default::default(),
            cnt_malformed: Default::default(),
            cnt_misrouted: Default::default(),
            cnt_table_full: Default::default(),
            cnt_unknown: Default::default(),
            cnt_busy: Default::default(),
            cnt_duplicate: Default::default(),
            cnt_retransmit: Default::default(),
            cnt_host_error: Default::default(),
            send: SendSlots::new(cfg),
            receive: ReceiveSlots::new(cfg),
            delivery: Default::default(),
            transmit: Transmit::new(cfg),
            // Registered strobes: the decision logic ends at a flip-flop, not in the adders
            // (§8.2: a counter shows an event a cycle after its edge).
            counters: CounterBank::new(true),
            ends: Default::default(),
            arriving_kind: Default::default(),
            arriving_length: Default::default(),
            arriving_counter: Default::default(),
            acting: Default::default(),
            malformed_ahead: Default::default(),
            words_ahead: Default::default(),
            checked_half: Default::default(),
            presented_uid: Default::default(),
            presented_counter: Default::default(),
            header_malformed: Default::default(),
            arriving_uid: Default::default(),
            arriving_words: Default::default(),
            arriving_word: Default::default(),
            count_cut: Default::default(),
            count_table_full: Default::default(),
            count_unknown: Default::default(),
            count_busy: Default::default(),
            count_duplicate: Default::default(),
            source_counter,
            len_max: c(32),
            word_round_up: c(3),
            kind_send: c(0),
            kind_ack: c(1),
            kind_malformed: c(3),
            check_ahead: Constant::new(false),
        }
    }

    /// The same, with the header checks that decide the receiver's next state (the header is
    /// malformed; its payload words) made a cycle ahead from `upper_half_ahead`, the upper half of the
    /// word the receiver frames in the next cycle, and registered: a node's choice, whose split holds every flit
    /// in a register before its receiver (§13.3). Alone, the NI's receiver frames `net_in`
    /// itself and has no word ahead. On the ECP5 node this check ran from the split's `held`
    /// register through the receiver's next state (10.72 ns at nextpnr seed 2, 93.3 MHz, once the pick's multiplexers were trees).
    pub fn header_check_ahead(self) -> Self {
        Self {
            check_ahead: Constant::new(true),
            ..self
        }
    }

    /// The same, with the send payload read two cycles ahead into a register of the transmit
    /// side's ([`transmit::Transmit::registered_payload_read`]): a node's choice.
    pub fn registered_payload_read(self) -> Self {
        Self {
            transmit: self.transmit.registered_payload_read(),
            ..self
        }
    }
}

impl Logic for NiCore {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- Registers hold by default; the sub-blocks' clocks.
        dff_setup!(
            self,
            clock,
            arriving_kind,
            arriving_length,
            arriving_counter,
            malformed_ahead,
            words_ahead
        );
        self.acting.clock.next = self.clock.val();
        self.send.clock.next = self.clock.val();
        self.receive.clock.next = self.clock.val();
        self.delivery.clock.next = self.clock.val();
        self.transmit.clock.next = self.clock.val();
        self.counters.clock.next = self.clock.val();

        // The uid of a SEND or FORGET, whose owner is its source (§8.1).
        self.presented_counter.next = self.receiver.word.val().get_bits::<16>(0);
        self.presented_uid.next = (bit_cast::<32, 16>(self.receiver.source.val()) << 16)
            | bit_cast::<32, 16>(self.presented_counter.val());
        self.arriving_uid.next = (bit_cast::<32, 16>(self.receiver.source.val()) << 16)
            | bit_cast::<32, 16>(self.arriving_counter.q.val());
        // Payload words of the packet in reception, ceil(len / 4), from the header word the
        // receiver presents: it reads them with the last header word, which is the only one.
        self.checked_half.next = self.receiver.word.val().get_bits::<16>(16);
        if self.check_ahead.val() {
            self.checked_half.next = self.upper_half_ahead.val();
        }
        // Bits 31:16 of the word: the kind in 15:14 here, the length in 13:8, the reserved byte.
        self.arriving_words.next =
            (self.checked_half.val().get_bits::<6>(8) + self.word_round_up.val()) >> 2;

        // ---- Counter strobes: none unless an event below raises one.
        self.count_cut.next = false;
        self.count_table_full.next = false;
        self.count_unknown.next = false;
        self.count_busy.next = false;
        self.count_duplicate.next = false;

        // ---- The request stream and the send slots (§8.5).
        self.send.req_valid.next = self.req_valid.val();
        self.send.req_data.next = self.req_data.val();
        self.send.req_last.next = self.req_last.val();
        self.send.req_dst.next = self.req_dst.val();
        self.send.req_len.next = self.req_len.val();
        self.send.arriving_counter.next = self.arriving_counter.q.val();
        self.send.acknowledge.next = false;
        self.send.forget_sent.next = self.transmit.forget_sent.val();
        self.send.send_sent.next = self.transmit.send_sent.val();
        self.send.sent_slot.next = self.transmit.sent_slot.val();
        self.send.read_address.next = self.transmit.read_address.val();

        // ---- Receive path (§8.3): the receiver frames, the NI reads the header word (type,
        // length, the uid's counter), and the payload words go into the bank not being
        // delivered.
        self.header_malformed.next = (self.checked_half.val().get_bits::<2>(14)
            == self.kind_malformed.val())
            | self.checked_half.val().get_bits::<8>(0).any()
            | (self.checked_half.val().get_bits::<6>(8) > self.len_max.val())
            | (self.checked_half.val().get_bits::<2>(14).any()
                & self.checked_half.val().get_bits::<6>(8).any());
        self.malformed_ahead.d.next = self.header_malformed.val();
        self.words_ahead.d.next = self.arriving_words.val().get_bits::<4>(0);
        if self.check_ahead.val() {
            self.receiver.reject.next = self.malformed_ahead.q.val();
            self.receiver.payload_words.next = self.words_ahead.q.val();
        } else {
            self.receiver.reject.next = self.header_malformed.val();
            self.receiver.payload_words.next = self.arriving_words.val().get_bits::<4>(0);
        }
        self.receive.presented_uid.next = self.presented_uid.val();
        // The receive slots keep the slots holding the uid when the header word arrives.
        self.receive.compare.next = self.receiver.header_valid.val();
        if self.receiver.header_valid.val() {
            self.arriving_kind.d.next = self.receiver.word.val().get_bits::<2>(30);
            self.arriving_length.d.next = self.receiver.word.val().get_bits::<6>(24);
            // Only the uid's counter is kept: its owner is the route's source (SEND, FORGET)
            // or `node` (an ACK, which reaches this node only if addressed to it).
            self.arriving_counter.d.next = self.presented_counter.val();
        }
        self.delivery.write_enable.next = self.receiver.payload_valid.val();
        self.arriving_word.next = self.receiver.index.val().get_bits::<3>(0);
        self.delivery.write_word.next = self.arriving_word.val();
        self.delivery.write_data.next = self.receiver.word.val();
        // A head that is also a tail, cutting a worm short, ends two worms at once.
        self.count_cut.next = self.receiver.cut.val();
        self.ends.worm_end.next = self.receiver.worm_end.val();
        self.ends.verdict.next = self.receiver.verdict.val();

        // ---- What an arrived packet does (§8.4), at the edge after its CRC flit's: the fields
        // it reads are registers the next worm replaces only from its header words on.
        self.acting.d.next = self.ends.arrived.val();
        self.receive.take.next = false;
        self.receive.take_uid.next = self.arriving_uid.val();
        self.receive.forget.next = false;
        self.transmit.late_forget.next = false;
        self.transmit.late_counter.next = self.arriving_counter.q.val();
        self.transmit.late_destination.next = self.receiver.source.val();
        if self.acting.q.val() {
            if self.arriving_kind.q.val() == self.kind_send.val() {
                if self.receive.arriving_held.val() {
                    self.count_duplicate.next = true;
                } else if self.receive.free.val() & !self.delivery.dlv_valid.val() {
                    self.receive.take.next = true;
                } else {
                    self.count_table_full.next = true;
                }
            } else if self.arriving_kind.q.val() == self.kind_ack.val() {
                if self.send.acknowledged.val() {
                    self.send.acknowledge.next = true;
                } else if !self.transmit.late_forget_valid.val() {
                    self.transmit.late_forget.next = true;
                } else {
                    self.count_busy.next = true;
                }
            } else {
                // FORGET
                if self.receive.arriving_held.val() {
                    self.receive.forget.next = true;
                } else {
                    self.count_unknown.next = true;
                }
            }
        }
        // An accepted SEND is delivered from the bank its words went into.
        self.delivery.start.next = self.receive.take.val();
        self.delivery.start_source.next = self.receiver.source.val();
        self.delivery.start_uid.next = self.arriving_uid.val();
        self.delivery.start_length.next = self.arriving_length.q.val();
        self.delivery.dlv_ready.next = self.dlv_ready.val();

        // ---- Transmitter (§8.5): the transmit block picks among the due packets.
        WormSource::link(&mut self.worm, &mut self.transmit.worm);
        self.transmit.forget_due.next = self.send.forget_due.val();
        self.transmit.forget_slot.next = self.send.forget_slot.val();
        self.transmit.forget_destination.next = self.send.forget_destination.val();
        self.transmit.forget_counter.next = self.send.forget_counter.val();
        self.transmit.ack_due.next = self.receive.due.val();
        self.transmit.ack_slot.next = self.receive.due_slot.val();
        self.transmit.ack_uid.next = self.receive.due_uid.val();
        self.transmit.send_due.next = self.send.send_due.val();
        self.transmit.due_slot.next = self.send.due_slot.val();
        self.transmit.due_destination.next = self.send.due_destination.val();
        self.transmit.due_counter.next = self.send.due_counter.val();
        self.transmit.due_length.next = self.send.due_length.val();
        self.transmit.due_transmitted.next = self.send.due_transmitted.val();
        self.transmit.payload_word.next = self.send.read_data.val();
        self.receive.ack_sent.next = self.transmit.ack_sent.val();
        self.receive.sent_slot.next = self.transmit.sent_slot.val();

        // ---- The counters, in the order of idemnet_spec::ni::COUNTERS; source 10 is the
        // second `truncated`.
        self.counters.strobe[0].next = self.ends.crc.val();
        self.counters.strobe[1].next = self.ends.truncated.val();
        self.counters.strobe[2].next = self.ends.malformed.val();
        self.counters.strobe[3].next = self.ends.misrouted.val();
        self.counters.strobe[4].next = self.count_table_full.val();
        self.counters.strobe[5].next = self.count_unknown.val();
        self.counters.strobe[6].next = self.count_busy.val();
        self.counters.strobe[7].next = self.count_duplicate.val();
        self.counters.strobe[8].next = self.transmit.retransmit.val();
        self.counters.strobe[9].next = self.send.host_error.val();
        self.counters.strobe[10].next = self.count_cut.val();
        for source in 0..COUNTER_SOURCES {
            self.counters.reason[source].next = self.source_counter[source].val();
        }

        // ---- Outputs.
        self.req_ready.next = self.send.req_ready.val();
        self.dlv_valid.next = self.delivery.dlv_valid.val();
        self.dlv_data.next = self.delivery.dlv_data.val();
        self.dlv_last.next = self.delivery.dlv_last.val();
        self.dlv_src.next = self.delivery.dlv_src.val();
        self.dlv_uid.next = self.delivery.dlv_uid.val();
        self.dlv_len.next = self.delivery.dlv_len.val();
        self.done_valid.next = self.transmit.done_valid.val();
        self.done_uid.next = self.transmit.done_uid.val();
        self.cnt_crc.next = self.counters.count[0].val();
        self.cnt_truncated.next = self.counters.count[1].val();
        self.cnt_malformed.next = self.counters.count[2].val();
        self.cnt_misrouted.next = self.counters.count[3].val();
        self.cnt_table_full.next = self.counters.count[4].val();
        self.cnt_unknown.next = self.counters.count[5].val();
        self.cnt_busy.next = self.counters.count[6].val();
        self.cnt_duplicate.next = self.counters.count[7].val();
        self.cnt_retransmit.next = self.counters.count[8].val();
        self.cnt_host_error.next = self.counters.count[9].val();
    }
}

/// Declares [`Ni`] with the NI's host ports of [`with_host_ports`]'s list.
macro_rules! ni_with_transmitter {
    (
        ni: {
            inputs: { $($_input_node:ident = $input:ident: $input_type:ty),* $(,)? },
            outputs: { $($_output_node:ident = $output:ident: $output_type:ty),* $(,)? } $(,)?
        },
        $($_others:tt)*
    ) => {
        with_transmitter! {
            /// One NI (docs/protocol.md §8): an [`NiCore`] with a
            /// [`idemnet_rtl::worm_transmitter::WormTransmitter`] of its own
            /// ([`crate::standalone`]).
            ///
            /// Ports (Verilog names), in port order (`idemnet_spec::ni::PORTS`):
            ///
            /// | port | dir | width | |
            /// |------|-----|-------|-|
            /// | `clock` | in | 1 | |
            /// | `net_in` | in | 35 | flits from the fabric; one is sunk every cycle |
            /// | `tx_gnt` | in | 1 | the transmitter may start a worm this cycle (§13.2; tie high when alone) |
            /// | `req_valid`, `req_data`, `req_last` | in | 1, 32, 1 | the request stream (§8.5) |
            /// | `req_dst`, `req_len` | in | 16, 6 | read on a request's first beat |
            /// | `dlv_ready` | in | 1 | the host takes the delivery beat shown |
            /// | `net_out` | out | 35 | flits into the fabric |
            /// | `tx_req` | out | 1 | idle with a worm due (combinational from registers, §13.2) |
            /// | `req_ready` | out | 1 | a send slot is free: beats are taken (0 before the first edge) |
            /// | `dlv_valid`, `dlv_data`, `dlv_last` | out | 1, 32, 1 | the delivery stream (§8.4) |
            /// | `dlv_src`, `dlv_uid`, `dlv_len` | out | 16, 32, 6 | the datagram delivered, held through its beats |
            /// | `done_valid`, `done_uid` | out | 1, 32 | one-cycle pulse: a send completed |
            /// | `cnt_crc` ... `cnt_host_error` | out | 16 each | wrapping event counters (§8.2) |
            ///
            /// Timing: the core's, and every output is a register but `tx_req` (from registers
            /// only) and `dlv_data` (the core's). A worm started in cycle `t` (the transmitter
            /// idle, a packet picked, `tx_gnt`) has its head in `net_out` of `O_t` and its other
            /// flits in the following cycles, with no gap.
            Ni = NiCore::new(cfg: &NiConfig),
            header_words: HEADER_WORDS,
            receives: net_in into receiver(cfg.node),
            ties: { upper_half_ahead: Bits<16> },
            inputs: { $($input: $input_type),* },
            outputs: { $($output: $output_type),* },
        }
    };
}

with_host_ports!(ni_with_transmitter);

#[cfg(test)]
mod tests {
    use super::*;
    use idemnet_spec::ni::cnt;

    /// The NI's ports are the contract's table, name, direction, width and order.
    #[test]
    fn the_ports_are_the_spec_table() {
        for (send_slots, recv_slots) in [(1, 1), (4, 8), (16, 16)] {
            let ni = crate::ni(&NiConfig {
                send_slots,
                recv_slots,
                ..NiConfig::DEFAULT
            })
            .unwrap();
            assert_eq!(idemnet_rtl::ports::port_list(&ni), PORTS.specs());
        }
    }

    /// The counter bank's literal indices in `update` are the spec's counter numbers.
    #[test]
    fn the_counter_bank_follows_the_spec_order() {
        let order = [
            cnt::CRC,
            cnt::TRUNCATED,
            cnt::MALFORMED,
            cnt::MISROUTED,
            cnt::TABLE_FULL,
            cnt::UNKNOWN,
            cnt::BUSY,
            cnt::DUPLICATE,
            cnt::RETRANSMIT,
            cnt::HOST_ERROR,
        ];
        assert_eq!(order.to_vec(), (0..COUNTERS.len()).collect::<Vec<_>>());
        assert_eq!(COUNTER_SOURCES, 11);
    }
}
