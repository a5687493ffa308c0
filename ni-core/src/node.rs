//! One node of the machine (docs/protocol.md §13): the idempotent NI (§8), the RMPP receive path
//! (§11), the framer of the RMPP send side (§13.1), the transmit merge that shares the node's
//! link among the three (§13.2) and the protocol split of the incoming link (§13.3).

use idemnet_rtl::fifo::Memory;
use idemnet_rtl::flit::Flit;
use idemnet_rtl::request_reader::RequestReader;
use idemnet_rtl::round_robin::RoundRobin;
use idemnet_rtl::worm_receiver::{FramedWorm, WormReceiver};
use idemnet_rtl::worm_transmitter::{
    header_read_lead, WormFetch, WormSource, WormTransmitter, REGISTERED_READ_LEAD,
};
use idemnet_spec::framer::HEADER_BEATS as FRAMER_HEADER_BEATS;
use idemnet_spec::ni::NiConfig;
use idemnet_spec::rmpp::{RmppConfig, MARKER, VERSION};
use rust_hdl::prelude::*;

use crate::c;
use crate::host_ports::with_host_ports;
use crate::ni::NiCore;
use crate::rmpp_rx::RmppRxCore;
use crate::standalone::with_transmitter;
use idemnet_rtl::vec_of;

/// Header words of an RMPP packet after its route (§11.1).
const RMPP_HEADER_WORDS: usize = idemnet_spec::rmpp::HEADER_WORDS;

/// The core of the framer of the RMPP send side (docs/protocol.md §13.1, `rmpp_tx`): all of it
/// but the transmitter, a worm source ([`crate::standalone`]) of the transmitter of its own in
/// [`RmppTx`] or of the node's one transmitter (§13.2).
///
/// Ports (Verilog names):
///
/// | port | dir | width | |
/// |------|-----|-------|-|
/// | `clock` | in | 1 | |
/// | `worm$*` | | | the worm of the older packet held ([`WormSource`], joined to the [`WormFetch`] of the framer alone's transmitter or of the node's merge, §13.2): `due` while a packet is held (from registers); `word` the route at `start`, header word `index` while `header_valid`, payload word `index` while `payload_valid` (words 2-6 and the payload from `stream_word`, a register loaded from the memory's read register, read two cycles ahead), zero when none is asked for; `payload_words` is `ceil(bytes / 4)` of that packet; at `finish` (its CRC goes out) it is no longer held |
/// | `tx_valid`, `tx_data`, `tx_last` | in | 1, 32, 1 | the packet stream: a beat, its word, the packet's last beat; header words 2-6 (`msgID`, `len`, `seq`, `info`, `msgNum`) are the first five beats, the payload words follow |
/// | `tx_dst`, `tx_type` | in | 16, 4 | read on a packet's first beat: destination node, RMPP type (§11.1) |
/// | `tx_bytes` | in | 6 | read on the first beat: the payload bytes (0..32) |
/// | `tx_ready` | out | 1 | fewer than two packets held: beats are taken (0 before the first edge) |
/// | `tx_cnt_host_error` | out | 16 | packets refused because they were not well formed, wrapping |
///
/// Timing: a beat is taken at edge `t` when `tx_valid` (`I_t`) and `tx_ready` (`O_(t-1)`). A
/// packet is read as the NI reads a request ([`RequestReader`], §8.5, with `tx_bytes` for
/// `req_len` and five header beats before the payload's `ceil(bytes / 4)`) into one of two
/// buffers, the halves of `packet_words`, a block RAM of 32 words ([`Memory::block`]): the
/// write buffer, which is free whenever a beat is taken. Its destination, type and bytes are
/// latched at its first beat into that buffer's registers, and every beat's word is written at
/// the beat's index in it. A well-formed packet's last beat fills the buffer and moves the
/// stream to the other; the worm is always the read buffer's, and its CRC edge (`worm$finish`)
/// empties it and moves the worm to the other, so packets leave in the order their last beats
/// were taken, and the stream writes one buffer while the transmitter reads the other. A
/// refused packet is counted at the beat that shows it and fills nothing. `tx_ready` is a
/// register (`o_ready`): 0 at power-on, then 1 after every edge that leaves a buffer free. The
/// words asked for: the route (`dst` = `tx_dst`, `src = node`), header words 0 and 1 (word 0 =
/// `11` in 31:30, `type` in 29:16, version 1 in 15:0; word 1 = `srcNID = node`), then the words
/// as the beats gave them (not masked): the memory holds them in the worm's order, so the word
/// asked for at header word `i` (`i` from 0) or at payload word `i` is read at address `i` or
/// `i + 7` of the read buffer, two words ahead, into `stream_word`; the block RAM's output
/// reaches only that register (on the ECP5 its DP16KD's clock-to-output of 5.8 ns, in series
/// with the merge and the flit's mux, was the node's critical path at 3ea7ee0: 96.2 MHz).
///
/// Why header words ride the stream: as five 32-bit ports latched at the first beat they took
/// 160 flip-flops and a 32-bit 5:1 multiplexer by header index; as beats they are words of the
/// block RAM the payload needs anyway (docs/protocol.md §13.1: 149 LUT4 and 158 flip-flops of
/// the node).
#[derive(LogicBlock)]
pub struct RmppTxCore {
    pub clock: Signal<In, Clock>,
    pub worm: WormSource,
    pub tx_valid: Signal<In, Bit>,
    pub tx_data: Signal<In, Bits<32>>,
    pub tx_last: Signal<In, Bit>,
    pub tx_dst: Signal<In, Bits<16>>,
    pub tx_type: Signal<In, Bits<4>>,
    pub tx_bytes: Signal<In, Bits<6>>,
    pub tx_ready: Signal<Out, Bit>,
    pub tx_cnt_host_error: Signal<Out, Bits<16>>,
    requests: RequestReader<STREAM_BEAT_BITS>,
    packet_words: Memory<Bits<32>, PACKET_ADDRESS_BITS>,
    host_errors: DFF<Bits<16>>,
    /// Per buffer: a well-formed packet is held in it, and its fields from the first beat.
    full: Vec<DFF<Bit>>,
    r_dst: Vec<DFF<Bits<16>>>,
    r_type: Vec<DFF<Bits<4>>>,
    r_bytes: Vec<DFF<Bits<6>>>,
    /// The buffer the stream writes into, and the one whose packet is sent next (the older).
    write_buffer: DFF<Bit>,
    read_buffer: DFF<Bit>,
    o_ready: DFF<Bit>,
    stream_word: DFF<Bits<32>>,
    // Combinational temporaries.
    tx_words: Signal<Local, Bits<6>>,
    /// `full` after this edge.
    full_after: Signal<Local, Bits<FRAMER_BUFFERS>>,
    read_dst: Signal<Local, Bits<16>>,
    read_type: Signal<Local, Bits<4>>,
    read_bytes: Signal<Local, Bits<6>>,
    read_offset: Signal<Local, Bits<STREAM_BEAT_BITS>>,
    write_address: Signal<Local, Bits<PACKET_ADDRESS_BITS>>,
    read_address: Signal<Local, Bits<PACKET_ADDRESS_BITS>>,
    // Parameters and named values.
    node_upper: Constant<Bits<32>>,
    node: Constant<Bits<32>>,
    /// Header word 0 but for its type.
    first_word: Constant<Bits<32>>,
    type_word_index: Constant<Bits<4>>,
    node_word_index: Constant<Bits<4>>,
    word_round_up: Constant<Bits<6>>,
    payload_lead: Constant<Bits<STREAM_BEAT_BITS>>,
    header_lead: Constant<Bits<STREAM_BEAT_BITS>>,
    /// The second buffer's first address, and each buffer's bit of `full_after`.
    second_buffer_base: Constant<Bits<PACKET_ADDRESS_BITS>>,
    no_buffers: Constant<Bits<FRAMER_BUFFERS>>,
    first_buffer: Constant<Bits<FRAMER_BUFFERS>>,
    second_buffer: Constant<Bits<FRAMER_BUFFERS>>,
    _buffers: usize,
}

/// Bits of a beat's index: 5 header words and 8 payload words of 32 bits (§13.1).
const STREAM_BEAT_BITS: usize = 4;

/// Packet buffers of the framer (§13.1: the packet on the wire and the next), each
/// `2^STREAM_BEAT_BITS` words of its memory.
const FRAMER_BUFFERS: usize = 2;

/// Address bits of the framer's memory: the buffer, then the beat.
const PACKET_ADDRESS_BITS: usize = STREAM_BEAT_BITS + 1;

/// Header words the framer builds itself (words 0 and 1: type and version, `srcNID`); the
/// stream's header beats are the rest.
const BUILT_HEADER_WORDS: usize = RMPP_HEADER_WORDS - FRAMER_HEADER_BEATS;

impl RmppTxCore {
    /// The core of a framer for node `node`.
    pub fn new(node: u16) -> Self {
        Self {
            clock: Default::default(),
            worm: Default::default(),
            tx_valid: Default::default(),
            tx_data: Default::default(),
            tx_last: Default::default(),
            tx_dst: Default::default(),
            tx_type: Default::default(),
            tx_bytes: Default::default(),
            tx_ready: Default::default(),
            tx_cnt_host_error: Default::default(),
            requests: RequestReader::new(FRAMER_HEADER_BEATS),
            packet_words: Memory::block(1 << PACKET_ADDRESS_BITS),
            host_errors: Default::default(),
            full: vec_of(FRAMER_BUFFERS),
            r_dst: vec_of(FRAMER_BUFFERS),
            r_type: vec_of(FRAMER_BUFFERS),
            r_bytes: vec_of(FRAMER_BUFFERS),
            write_buffer: Default::default(),
            read_buffer: Default::default(),
            o_ready: Default::default(),
            stream_word: Default::default(),
            tx_words: Default::default(),
            full_after: Default::default(),
            read_dst: Default::default(),
            read_type: Default::default(),
            read_bytes: Default::default(),
            read_offset: Default::default(),
            write_address: Default::default(),
            read_address: Default::default(),
            node_upper: c((node as u64) << 16),
            node: c(node as u64),
            first_word: c(((MARKER as u64) << 30) | VERSION as u64),
            type_word_index: c(0),
            node_word_index: c(1),
            word_round_up: c(3),
            // The memory holds the worm's words from header word 2 on, so a payload word's
            // address is its index after the stored header words.
            payload_lead: c((REGISTERED_READ_LEAD + FRAMER_HEADER_BEATS) as u64),
            header_lead: c(header_read_lead(
                REGISTERED_READ_LEAD,
                BUILT_HEADER_WORDS,
                STREAM_BEAT_BITS,
            )),
            second_buffer_base: c(1 << STREAM_BEAT_BITS),
            no_buffers: c(0),
            first_buffer: c(1),
            second_buffer: c(2),
            _buffers: FRAMER_BUFFERS,
        }
    }
}

impl Logic for RmppTxCore {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            host_errors,
            write_buffer,
            read_buffer,
            stream_word
        );
        for b in 0..self._buffers {
            self.full[b].clock.next = self.clock.val();
            self.r_dst[b].clock.next = self.clock.val();
            self.r_type[b].clock.next = self.clock.val();
            self.r_bytes[b].clock.next = self.clock.val();
            self.r_dst[b].d.next = self.r_dst[b].q.val();
            self.r_type[b].d.next = self.r_type[b].q.val();
            self.r_bytes[b].d.next = self.r_bytes[b].q.val();
        }
        self.o_ready.clock.next = self.clock.val();
        self.requests.clock.next = self.clock.val();
        self.packet_words.clock.next = self.clock.val();

        // ---- The packet stream (§13.1): beats while tx_ready, read as the NI reads requests,
        // into the write buffer, which is free whenever a beat is taken (tx_ready says one is).
        self.requests.taken.next = self.tx_valid.val() & self.o_ready.q.val();
        self.requests.last.next = self.tx_last.val();
        self.requests.length.next = self.tx_bytes.val();
        self.packet_words.write_enable.next =
            self.requests.taken.val() & self.requests.accepted.val();
        self.write_address.next =
            bit_cast::<PACKET_ADDRESS_BITS, STREAM_BEAT_BITS>(self.requests.beat.val());
        if self.write_buffer.q.val() {
            self.write_address.next = self.write_address.val() | self.second_buffer_base.val();
        }
        self.packet_words.write_address.next = self.write_address.val();
        self.packet_words.write_data.next = self.tx_data.val();
        if self.requests.refused.val() {
            self.host_errors.d.next = self.host_errors.q.val() + true;
        }

        // A well-formed packet's last beat fills the write buffer and moves the stream to the
        // other; the CRC edge empties the read buffer and moves the worm to the other. Packets
        // so leave in the order their last beats were taken.
        if self.requests.taken.val() & self.requests.first.val() {
            if self.write_buffer.q.val() {
                self.r_dst[1].d.next = self.tx_dst.val();
                self.r_type[1].d.next = self.tx_type.val();
                self.r_bytes[1].d.next = self.requests.bytes.val();
            } else {
                self.r_dst[0].d.next = self.tx_dst.val();
                self.r_type[0].d.next = self.tx_type.val();
                self.r_bytes[0].d.next = self.requests.bytes.val();
            }
        }
        self.full_after.next = self.no_buffers.val();
        if self.full[0].q.val() & !(self.worm.finish.val() & !self.read_buffer.q.val())
            | (self.requests.complete.val() & !self.write_buffer.q.val())
        {
            self.full_after.next = self.full_after.val() | self.first_buffer.val();
        }
        if self.full[1].q.val() & !(self.worm.finish.val() & self.read_buffer.q.val())
            | (self.requests.complete.val() & self.write_buffer.q.val())
        {
            self.full_after.next = self.full_after.val() | self.second_buffer.val();
        }
        self.full[0].d.next = self.full_after.val().get_bit(0);
        self.full[1].d.next = self.full_after.val().get_bit(1);
        if self.requests.complete.val() {
            self.write_buffer.d.next = !self.write_buffer.q.val();
        }
        if self.worm.finish.val() {
            self.read_buffer.d.next = !self.read_buffer.q.val();
        }
        // tx_ready after the edge: a buffer is free (0 at power-on, 1 after edge 0).
        self.o_ready.d.next = !self.full_after.val().all();

        // The worm: the older packet held, when the transmitter starts it.
        self.read_dst.next = self.r_dst[0].q.val();
        self.read_type.next = self.r_type[0].q.val();
        self.read_bytes.next = self.r_bytes[0].q.val();
        if self.read_buffer.q.val() {
            self.read_dst.next = self.r_dst[1].q.val();
            self.read_type.next = self.r_type[1].q.val();
            self.read_bytes.next = self.r_bytes[1].q.val();
        }
        self.worm.due.next = self.full[0].q.val() | self.full[1].q.val();
        self.tx_words.next = (self.read_bytes.val() + self.word_round_up.val()) >> 2;
        self.worm.payload_words.next = self.tx_words.val().get_bits::<4>(0);
        // The memory is read two words ahead of the one asked for, within the read buffer;
        // what it reads past the payload's last word nobody asks for.
        self.read_offset.next = self.worm.index.val() + self.payload_lead.val();
        if self.worm.header_valid.val() {
            self.read_offset.next = self.worm.index.val() + self.header_lead.val();
        }
        self.read_address.next =
            bit_cast::<PACKET_ADDRESS_BITS, STREAM_BEAT_BITS>(self.read_offset.val());
        if self.read_buffer.q.val() {
            self.read_address.next = self.read_address.val() | self.second_buffer_base.val();
        }
        self.packet_words.read_address.next = self.read_address.val();
        self.stream_word.d.next = self.packet_words.read_data.val();
        self.worm.word.next = 0.into();
        if self.worm.start.val() {
            self.worm.word.next = self.node_upper.val() | bit_cast::<32, 16>(self.read_dst.val());
        }
        if self.worm.header_valid.val() {
            if self.worm.index.val() == self.type_word_index.val() {
                self.worm.word.next =
                    self.first_word.val() | (bit_cast::<32, 4>(self.read_type.val()) << 16);
            } else if self.worm.index.val() == self.node_word_index.val() {
                self.worm.word.next = self.node.val();
            } else {
                self.worm.word.next = self.stream_word.q.val();
            }
        }
        if self.worm.payload_valid.val() {
            self.worm.word.next = self.stream_word.q.val();
        }

        self.tx_ready.next = self.o_ready.q.val();
        self.tx_cnt_host_error.next = self.host_errors.q.val();
    }
}

/// Declares [`RmppTx`] with the framer's host ports of [`with_host_ports`]'s list.
macro_rules! rmpp_tx_with_transmitter {
    (
        ni: $_ni:tt,
        rx: $_rx:tt,
        tx: {
            inputs: { $($_input_node:ident = $input:ident: $input_type:ty),* $(,)? },
            outputs: { $($_output_node:ident = $output:ident: $output_type:ty),* $(,)? } $(,)?
        } $(,)?
    ) => {
        with_transmitter! {
            /// The framer of the RMPP send side (docs/protocol.md §13.1, `rmpp_tx`): an
            /// [`RmppTxCore`] with a [`WormTransmitter`] of its own ([`crate::standalone`]).
            ///
            /// Ports (Verilog names), in port order (`idemnet_spec::framer::PORTS`):
            ///
            /// | port | dir | width | |
            /// |------|-----|-------|-|
            /// | `clock` | in | 1 | |
            /// | `tx_gnt` | in | 1 | the framer may start its worm this cycle (§13.2; tie high when alone) |
            /// | `tx_valid`, `tx_data`, `tx_last` | in | 1, 32, 1 | the packet stream: a beat, its word (header words 2-6, `msgID` to `msgNum`, then the payload words), the packet's last beat |
            /// | `tx_dst`, `tx_type` | in | 16, 4 | read on a packet's first beat: destination node, RMPP type (§11.1) |
            /// | `tx_bytes` | in | 6 | read on the first beat: the payload bytes (0..32) |
            /// | `net_out` | out | 35 | flits into the link; zero when idle |
            /// | `tx_req` | out | 1 | a packet is held and the transmitter is idle (combinational from registers) |
            /// | `tx_ready` | out | 1 | no packet held: beats are taken (0 before the first edge) |
            /// | `tx_cnt_host_error` | out | 16 | packets refused because they were not well formed, wrapping |
            ///
            /// Timing: the core's for the packet stream and `tx_ready`, which is high again in
            /// the `O_t` whose `net_out` is the packet's CRC flit. In a cycle with `tx_gnt` and
            /// `tx_req` the head is registered at that edge (in `net_out` of `O_t`), then one
            /// flit per cycle without gaps: header words 0-6, `ceil(bytes / 4)` payload words
            /// and the CRC-32/MPEG-2 of all the data words before it, as the NI's transmitter
            /// computes it.
            RmppTx = RmppTxCore::new(node: u16),
            header_words: RMPP_HEADER_WORDS,
            inputs: { $($input: $input_type),* },
            outputs: { $($output: $output_type),* },
        }
    };
}

with_host_ports!(rmpp_tx_with_transmitter);

/// The transmit merge of a node (docs/protocol.md §13.2, `tx_merge`): the node's one
/// [`WormTransmitter`] (one CRC unit for the link), shared by three worm sources
/// ([`crate::standalone`]): the NI, the RMPP receive path's replies and the framer, in that
/// cyclic order.
///
/// Ports (Verilog names):
///
/// | port | dir | width | |
/// |------|-----|-------|-|
/// | `clock` | in | 1 | |
/// | `ni$*`, `rmpp$*`, `framer$*` | | | the three sources ([`WormFetch`], each joined to the source's [`WormSource`]): their `due`, `word`, `payload_words` in; `start` the source's alone; `finish` the NI's and the framer's alone (0 to the receive path, which reads none); `header_valid`, `payload_valid`, `index` the transmitter's, shown to all three |
/// | `net_out` | out | 35 | the transmitter's flit (a register; zero when idle) |
///
/// Timing: as §13.2 has it for three transmitters, OR-ed: the link is free in cycle `t` when
/// the transmitter is idle, which is exactly when its flit (after edge `t-1`) is invalid or a
/// tail. Then the source granted is the first with `due` at or after `turn` in the cyclic order
/// NI, receive path, framer, its `start` is high and its head goes out at edge `t`, and `turn` becomes the
/// source after it; otherwise there is no start and `turn` holds (the NI at power-on). The arbiter
/// is a [`RoundRobin`] (its `turn` is the requester after `last`), `ready` the transmitter idle
/// with a worm due and `lock` otherwise, so that its `holder` names the source whose worm
/// is in flight from head to tail: the transmitter's `word`, header length (the NI's 2 or the
/// RMPP's 7, §8.1, §11.1) and `payload_words` are that source's. The word goes through an
/// AND-OR on a one-hot select (the arbiter's `grant` in the cycle a worm starts, its `holder`
/// after), the header length and `payload_words` through one on the `holder` alone. The
/// strobes that act on a source (`start`, the NI's and the framer's `finish`) are its alone; the ones that only ask
/// for a word are shared, the sources not served answer them into the AND-OR's masked
/// inputs. `start` is combinational from the `due`s and registers; `word` and `payload_words`
/// reach only the transmitter's registers, so a source answers in the cycle it is asked.
#[derive(LogicBlock)]
pub struct TxMerge {
    pub clock: Signal<In, Clock>,
    pub ni: WormFetch,
    pub rmpp: WormFetch,
    pub framer: WormFetch,
    pub net_out: Signal<Out, Flit>,
    arbiter: RoundRobin<MERGE_SOURCES, MERGE_SOURCE_BITS>,
    transmitter: WormTransmitter,
    requests: Signal<Local, Bits<MERGE_SOURCES>>,
    ni_request: Constant<Bits<MERGE_SOURCES>>,
    receive_request: Constant<Bits<MERGE_SOURCES>>,
    framer_request: Constant<Bits<MERGE_SOURCES>>,
    no_request: Constant<Bits<MERGE_SOURCES>>,
    selected: Signal<Local, Bits<MERGE_SOURCES>>,
    word: Signal<Local, Bits<32>>,
    no_word: Constant<Bits<32>>,
    ni_header_words: Constant<Bits<4>>,
    rmpp_header_words: Constant<Bits<4>>,
}

/// The sources of a node's link (§13.2), and the bits of a source's number.
const MERGE_SOURCES: usize = 3;
const MERGE_SOURCE_BITS: usize = 2;

/// A source's number in the merge's cyclic order (§13.2), the arbiter's requester number.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum MergeSource {
    Ni,
    Receive,
    Framer,
}

impl MergeSource {
    fn number(self) -> u64 {
        self as u64
    }
}

impl Default for TxMerge {
    fn default() -> Self {
        let request = |source: MergeSource| c(1 << source.number());
        Self {
            clock: Default::default(),
            ni: Default::default(),
            rmpp: Default::default(),
            framer: Default::default(),
            net_out: Default::default(),
            arbiter: RoundRobin::new(),
            transmitter: Default::default(),
            requests: Default::default(),
            ni_request: request(MergeSource::Ni),
            receive_request: request(MergeSource::Receive),
            framer_request: request(MergeSource::Framer),
            no_request: c(0),
            selected: Default::default(),
            word: Default::default(),
            no_word: c(0),
            ni_header_words: c(crate::ni::HEADER_WORDS as u64),
            rmpp_header_words: c(RMPP_HEADER_WORDS as u64),
        }
    }
}

impl Logic for TxMerge {
    #[hdl_gen]
    fn update(&mut self) {
        self.arbiter.clock.next = self.clock.val();
        self.transmitter.clock.next = self.clock.val();
        self.requests.next = self.no_request.val();
        if self.ni.due.val() {
            self.requests.next = self.requests.val() | self.ni_request.val();
        }
        if self.rmpp.due.val() {
            self.requests.next = self.requests.val() | self.receive_request.val();
        }
        if self.framer.due.val() {
            self.requests.next = self.requests.val() | self.framer_request.val();
        }
        self.arbiter.request.next = self.requests.val();
        // The transmitter starts whenever it is idle with a worm due; the arbiter only says
        // whose, and holds that choice while the worm is out.
        self.transmitter.source.due.next = self.arbiter.requested.val();
        self.transmitter.grant.next = true;
        self.arbiter.ready.next = self.transmitter.request.val();
        self.arbiter.lock.next = !self.transmitter.request.val();
        self.ni.start.next = self.arbiter.grant.val().get_bit(0);
        self.rmpp.start.next = self.arbiter.grant.val().get_bit(1);
        self.framer.start.next = self.arbiter.grant.val().get_bit(2);
        // The source whose word goes out: in the cycle a worm starts the one granted, else the
        // one holding the link, one-hot and AND-OR-ed into the word. (A compare of
        // `grant_index`, whose lock multiplexer waits for the `due`s in every state, made the
        // ECP5 node's critical path at e2a2284's parent: six LUT levels from the receive path's
        // `due` to the flit.) While the link is idle with nothing due, the select is the
        // holder's, which the transmitter does not read.
        self.selected.next = self.arbiter.holder.val();
        if self.transmitter.request.val() {
            self.selected.next = self.arbiter.grant.val();
        }
        self.word.next = self.no_word.val();
        if self.selected.val().get_bit(0) {
            self.word.next = self.word.val() | self.ni.word.val();
        }
        if self.selected.val().get_bit(1) {
            self.word.next = self.word.val() | self.rmpp.word.val();
        }
        if self.selected.val().get_bit(2) {
            self.word.next = self.word.val() | self.framer.word.val();
        }
        self.transmitter.source.word.next = self.word.val();
        // The rest is read only while a worm is out, from the holder (a register).
        self.transmitter.header_words.next = self.rmpp_header_words.val();
        self.transmitter.source.payload_words.next = self.framer.payload_words.val();
        self.ni.finish.next = false;
        self.rmpp.finish.next = false;
        self.framer.finish.next = false;
        if self.arbiter.holder.val().get_bit(0) {
            self.transmitter.header_words.next = self.ni_header_words.val();
            self.transmitter.source.payload_words.next = self.ni.payload_words.val();
            self.ni.finish.next = self.transmitter.source.finish.val();
        }
        if self.arbiter.holder.val().get_bit(1) {
            self.transmitter.source.payload_words.next = self.rmpp.payload_words.val();
        }
        if self.arbiter.holder.val().get_bit(2) {
            // The replies' state moves at `start`; the NI and the framer read `finish`.
            self.framer.finish.next = self.transmitter.source.finish.val();
        }
        self.ni.header_valid.next = self.transmitter.source.header_valid.val();
        self.ni.payload_valid.next = self.transmitter.source.payload_valid.val();
        self.ni.index.next = self.transmitter.source.index.val();
        self.rmpp.header_valid.next = self.transmitter.source.header_valid.val();
        self.rmpp.payload_valid.next = self.transmitter.source.payload_valid.val();
        self.rmpp.index.next = self.transmitter.source.index.val();
        self.framer.header_valid.next = self.transmitter.source.header_valid.val();
        self.framer.payload_valid.next = self.transmitter.source.payload_valid.val();
        self.framer.index.next = self.transmitter.source.index.val();
        self.net_out.next = self.transmitter.flit.val();
    }
}

/// The protocol split of a node's incoming link and its one worm receiver (docs/protocol.md
/// §13.3, `rx_demux`).
///
/// Ports (Verilog names):
///
/// | port | dir | width | |
/// |------|-----|-------|-|
/// | `clock` | in | 1 | |
/// | `net_in` | in | 35 | flits from the fabric |
/// | `to_ni$*`, `to_rmpp$*` | | | the worms framed for the NI and for the RMPP receive path ([`FramedWorm`], joined to the cores' [`idemnet_rtl::worm_receiver::ReceivedWorm`]s) |
/// | `upper_half_ahead` | out | 16 | data bits 31:16 of `next`: of the word the receiver frames in the next cycle, so that the NI can check its header word a cycle ahead (its `upper_half_ahead`) |
///
/// Timing: every flit passes two registers, `next` and then `held` (zero at power-on; an
/// invalid input flit is held as zero, §2), and `next_rmpp` says whether the flit in `next` is
/// valid, not a head, and has `11` in data bits 31:30. In cycle `t`: if `held` is a valid head,
/// the side now is RMPP when `next_rmpp`, else the NI; otherwise the side now is the register
/// `side` (0 NI, 1 RMPP, 0 at power-on). `held` goes to `receiver`, a [`WormReceiver`] framing
/// headers of the side now's length (2 or 7 words), and at edge `t` `held <= next`, `next <=
/// net_in` and `side <=` the side now. So every flit is framed exactly two cycles after it
/// arrives, and the rest of a worm follows its head until the next head. The side now is one
/// LUT of four registers: with one register, the flit behind the head was `net_in` itself, and
/// the side reached the cores' framing and header checks through the link's wires (the ECP5
/// node's most frequent critical path, docs/fpga.md).
///
/// Each side sees the receiver's `word`, `source`, `index` and `verdict` as they are, its
/// strobes (`head`, `header_valid`, `payload_valid`, `worm_end`, `crc_check`) only while the
/// side now is its own, and `cut` and `awaiting_crc` only while `side` (the side of the worm before this flit) is
/// its own: a head for one side ends the other's worm in progress there (§13.3). The receiver
/// reads `reject` and `payload_words` from the side now. All of it is combinational from the
/// registers here and the receiver's.
#[derive(LogicBlock)]
pub struct RxDemux {
    pub clock: Signal<In, Clock>,
    pub net_in: Signal<In, Flit>,
    pub to_ni: FramedWorm,
    pub to_rmpp: FramedWorm,
    pub upper_half_ahead: Signal<Out, Bits<16>>,
    receiver: WormReceiver,
    held: DFF<Flit>,
    next: DFF<Flit>,
    next_rmpp: DFF<Bit>,
    side: DFF<Bit>,
    side_now: Signal<Local, Bit>,
    no_flit: Constant<Flit>,
    marker: Constant<Bits<2>>,
    ni_header_words: Constant<Bits<4>>,
    rmpp_header_words: Constant<Bits<4>>,
}

impl RxDemux {
    /// The split of node `node` (the `dst` its receiver checks).
    pub fn new(node: u16) -> Self {
        Self {
            clock: Default::default(),
            net_in: Default::default(),
            to_ni: Default::default(),
            to_rmpp: Default::default(),
            upper_half_ahead: Default::default(),
            receiver: WormReceiver::new(node),
            held: Default::default(),
            next: Default::default(),
            next_rmpp: Default::default(),
            side: Default::default(),
            side_now: Default::default(),
            no_flit: Constant::new(Bits::default()),
            marker: c(idemnet_spec::rmpp::MARKER as u64),
            ni_header_words: c(crate::ni::HEADER_WORDS as u64),
            rmpp_header_words: c(RMPP_HEADER_WORDS as u64),
        }
    }
}

impl Logic for RxDemux {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, held, next, next_rmpp, side);
        self.receiver.clock.next = self.clock.val();
        if self.held.q.val().get_bit(34) & self.held.q.val().get_bit(33) {
            self.side_now.next = self.next_rmpp.q.val();
        } else {
            self.side_now.next = self.side.q.val();
        }
        self.receiver.flit.next = self.held.q.val();
        if self.side_now.val() {
            self.receiver.header_words.next = self.rmpp_header_words.val();
            self.receiver.worm.reject.next = self.to_rmpp.reject.val();
            self.receiver.worm.payload_words.next = self.to_rmpp.payload_words.val();
        } else {
            self.receiver.header_words.next = self.ni_header_words.val();
            self.receiver.worm.reject.next = self.to_ni.reject.val();
            self.receiver.worm.payload_words.next = self.to_ni.payload_words.val();
        }
        self.to_ni.word.next = self.receiver.worm.word.val();
        self.to_ni.source.next = self.receiver.worm.source.val();
        self.to_ni.index.next = self.receiver.worm.index.val();
        self.to_ni.verdict.next = self.receiver.worm.verdict.val();
        self.to_ni.head.next = self.receiver.worm.head.val() & !self.side_now.val();
        self.to_ni.header_valid.next = self.receiver.worm.header_valid.val() & !self.side_now.val();
        self.to_ni.payload_valid.next =
            self.receiver.worm.payload_valid.val() & !self.side_now.val();
        self.to_ni.worm_end.next = self.receiver.worm.worm_end.val() & !self.side_now.val();
        self.to_ni.crc_check.next = self.receiver.worm.crc_check.val() & !self.side_now.val();
        self.to_ni.awaiting_crc.next = self.receiver.worm.awaiting_crc.val() & !self.side.q.val();
        self.to_ni.cut.next = self.receiver.worm.cut.val() & !self.side.q.val();
        self.to_rmpp.word.next = self.receiver.worm.word.val();
        self.to_rmpp.source.next = self.receiver.worm.source.val();
        self.to_rmpp.index.next = self.receiver.worm.index.val();
        self.to_rmpp.verdict.next = self.receiver.worm.verdict.val();
        self.to_rmpp.head.next = self.receiver.worm.head.val() & self.side_now.val();
        self.to_rmpp.header_valid.next =
            self.receiver.worm.header_valid.val() & self.side_now.val();
        self.to_rmpp.payload_valid.next =
            self.receiver.worm.payload_valid.val() & self.side_now.val();
        self.to_rmpp.worm_end.next = self.receiver.worm.worm_end.val() & self.side_now.val();
        self.to_rmpp.crc_check.next = self.receiver.worm.crc_check.val() & self.side_now.val();
        self.to_rmpp.awaiting_crc.next = self.receiver.worm.awaiting_crc.val() & self.side.q.val();
        self.to_rmpp.cut.next = self.receiver.worm.cut.val() & self.side.q.val();
        self.held.d.next = self.next.q.val();
        self.upper_half_ahead.next = self.next.q.val().get_bits::<16>(16);
        if self.net_in.val().get_bit(34) {
            self.next.d.next = self.net_in.val();
        } else {
            self.next.d.next = self.no_flit.val();
        }
        self.next_rmpp.d.next = self.net_in.val().get_bit(34)
            & !self.net_in.val().get_bit(33)
            & (self.net_in.val().get_bits::<2>(30) == self.marker.val());
        self.side.d.next = self.side_now.val();
    }
}

/// Declares [`Node`] with the host ports of [`with_host_ports`]'s list: each a port of the node
/// wired to the block's port it shows, so the ports are written once for the node and the
/// system (docs/protocol.md §10, §13).
macro_rules! node_with_host_ports {
    (
        ni: {
            inputs: { $($ni_input:ident = $ni_input_port:ident: $ni_input_type:ty),* $(,)? },
            outputs: { $($ni_output:ident = $ni_output_port:ident: $ni_output_type:ty),* $(,)? } $(,)?
        },
        rx: {
            inputs: { $($rx_input:ident = $rx_input_port:ident: $rx_input_type:ty),* $(,)? },
            outputs: { $($rx_output:ident = $rx_output_port:ident: $rx_output_type:ty),* $(,)? } $(,)?
        },
        tx: {
            inputs: { $($tx_input:ident = $tx_input_port:ident: $tx_input_type:ty),* $(,)? },
            outputs: { $($tx_output:ident = $tx_output_port:ident: $tx_output_type:ty),* $(,)? } $(,)?
        } $(,)?
    ) => {
        /// One node (docs/protocol.md §13): the cores of an idempotent NI ([`NiCore`], §8), an RMPP
        /// receive path ([`RmppRxCore`], §11) and a framer ([`RmppTxCore`], §13.1), which are the
        /// worm sources of one transmitter in a [`TxMerge`] (§13.2), and an [`RxDemux`] (§13.3).
        ///
        /// Ports (Verilog names), in the order of `idemnet_spec::node::ports` (a test holds them to it),
        /// from the one list of [`crate::host_ports`]:
        ///
        /// | port | dir | width | |
        /// |------|-----|-------|-|
        /// | `clock` | in | 1 | |
        /// | `net_in` | in | 35 | flits from the fabric, through the split to the NI or the RMPP receive path |
        /// | `net_out` | out | 35 | flits into the fabric: the merge's one transmitter |
        /// | `req_valid`, `req_data`, `req_last`, `req_dst`, `req_len`, `dlv_ready` | in | 1, 32, 1, 16, 6, 1 | the NI's host inputs (§8.2) |
        /// | `req_ready`, `dlv_valid`, `dlv_data`, `dlv_last`, `dlv_src`, `dlv_uid`, `dlv_len`, `done_valid`, `done_uid` | out | 1, 1, 32, 1, 16, 32, 6, 1, 32 | the NI's host outputs |
        /// | `cnt_crc` ... `cnt_retransmit`, `cnt_host_error` | out | 16 each | the NI's counters |
        /// | `rx_up_ready`, `rx_up_accept`, `rx_dlv_ready`, `rx_rd_slot`, `rx_rd_word` | in | 1, 32, 1, 4, 10 | the RMPP receive path's host inputs (§11.3) |
        /// | `rx_up_valid`, `rx_up_slot`, `rx_up_src`, `rx_up_msg_id`, `rx_up_msg_num`, `rx_up_len` | out | 1, 4, 16, 32, 32, 32 | its upcall |
        /// | `rx_dlv_valid`, `rx_dlv_slot`, `rx_dlv_len` | out | 1, 4, 32 | its delivery (the slot of an upcall taken, and the accepted bytes) |
        /// | `rx_rd_data` | out | 32 | its buffer read port |
        /// | `rx_snd_valid`, `rx_snd_type`, `rx_snd_peer`, `rx_snd_msg_id`, `rx_snd_len`, `rx_snd_seq`, `rx_snd_info`, `rx_snd_msg_num` | out | 1, 4, 16, 32 ... | replies for the send side |
        /// | `rx_cnt_crc` ... `rx_cnt_restart` | out | 16 each | its counters |
        /// | `tx_valid`, `tx_data`, `tx_last`, `tx_dst`, `tx_type`, `tx_bytes` | in | 1, 32, 1, 16, 4, 6 | the framer's packet stream (§13.1) |
        /// | `tx_ready`, `tx_cnt_host_error` | out | 1, 16 | the framer takes beats; packets it refused |
        ///
        /// Timing: the blocks keep their own timing; the split delays every incoming flit by one cycle
        /// (a worm reaches the NI or the RMPP receive path one cycle later than without it), and the
        /// merge adds none (its starts are combinational from the cores' registers, and a core
        /// answers the word asked for in the same cycle). Every output port of the node is a
        /// register output of one of the blocks.
        #[derive(LogicBlock)]
        pub struct Node {
            pub clock: Signal<In, Clock>,
            pub net_in: Signal<In, Flit>,
            pub net_out: Signal<Out, Flit>,
            $(pub $ni_input: Signal<In, $ni_input_type>,)*
            $(pub $ni_output: Signal<Out, $ni_output_type>,)*
            $(pub $rx_input: Signal<In, $rx_input_type>,)*
            $(pub $rx_output: Signal<Out, $rx_output_type>,)*
            $(pub $tx_input: Signal<In, $tx_input_type>,)*
            $(pub $tx_output: Signal<Out, $tx_output_type>,)*
            pub demux: RxDemux,
            pub ni: NiCore,
            pub rx: RmppRxCore,
            pub tx: RmppTxCore,
            pub merge: TxMerge,
        }

        impl Node {
            /// A node with the NI parameters `ni` and the RMPP parameters `rmpp`, both for the
            /// same `node` (validated by the caller).
            pub fn new(ni: &NiConfig, rmpp: &RmppConfig) -> Self {
                Self {
                    clock: Default::default(),
                    net_in: Default::default(),
                    net_out: Default::default(),
                    $($ni_input: Default::default(),)*
                    $($ni_output: Default::default(),)*
                    $($rx_input: Default::default(),)*
                    $($rx_output: Default::default(),)*
                    $($tx_input: Default::default(),)*
                    $($tx_output: Default::default(),)*
                    demux: RxDemux::new(ni.node),
                    ni: NiCore::new(ni).registered_payload_read().header_check_ahead(),
                    rx: RmppRxCore::new(rmpp),
                    tx: RmppTxCore::new(ni.node),
                    merge: Default::default(),
                }
            }
        }

        impl Logic for Node {
            #[hdl_gen]
            fn update(&mut self) {
                self.demux.clock.next = self.clock.val();
                self.ni.clock.next = self.clock.val();
                self.rx.clock.next = self.clock.val();
                self.tx.clock.next = self.clock.val();
                self.merge.clock.next = self.clock.val();
                // Receive side: the split, one cycle late, to the NI or the RMPP receive path.
                self.demux.net_in.next = self.net_in.val();
                FramedWorm::join(&mut self.demux.to_ni, &mut self.ni.receiver);
                self.ni.upper_half_ahead.next = self.demux.upper_half_ahead.val();
                FramedWorm::join(&mut self.demux.to_rmpp, &mut self.rx.receiver);
                // Transmit side: the NI, the RMPP receive path and the framer, one transmitter.
                WormSource::join(&mut self.ni.worm, &mut self.merge.ni);
                WormSource::join(&mut self.rx.worm, &mut self.merge.rmpp);
                WormSource::join(&mut self.tx.worm, &mut self.merge.framer);
                self.net_out.next = self.merge.net_out.val();
                // Host ports.
                $(self.ni.$ni_input_port.next = self.$ni_input.val();)*
                $(self.$ni_output.next = self.ni.$ni_output_port.val();)*
                $(self.rx.$rx_input_port.next = self.$rx_input.val();)*
                $(self.$rx_output.next = self.rx.$rx_output_port.val();)*
                $(self.tx.$tx_input_port.next = self.$tx_input.val();)*
                $(self.$tx_output.next = self.tx.$tx_output_port.val();)*
            }
        }
    };
}

with_host_ports!(node_with_host_ports);

#[cfg(test)]
mod tests {
    use super::*;
    use idemnet_rtl::flit;

    /// Cycle `t` of §1: inputs `I_t` while the clock is low, then the rising edge.
    fn tx_cycle(uut: &mut RmppTx, set: impl FnOnce(&mut RmppTx)) {
        uut.clock.next = false.into();
        set(uut);
        assert!(simulate(uut, 1000));
        uut.clock.next = true.into();
        assert!(simulate(uut, 1000));
    }

    fn words_of(data: &[u8; 32], bytes: usize) -> Vec<u32> {
        (0..bytes.div_ceil(4))
            .map(|j| u32::from_be_bytes(data[4 * j..4 * j + 4].try_into().unwrap()))
            .collect()
    }

    /// Header words 2-6 of the test packets: the first five beats of their streams.
    const HEADER: [u32; 5] = [0x1234_5678, 1000, 3, 0x0002_0010, 77];

    /// Presents beat `beat` of a packet of `bytes` bytes whose beats' words are `words` (`last`
    /// on beat `beats - 1`); the fields beside the stream show their values on the first beat
    /// only.
    fn present_beat(u: &mut RmppTx, words: &[u32], beat: usize, beats: usize, bytes: usize) {
        u.tx_valid.next = true;
        u.tx_data.next = Bits::from(words.get(beat).copied().unwrap_or(0xBAD0_0000) as u64);
        u.tx_last.next = beat + 1 == beats;
        let first = beat == 0;
        u.tx_dst.next = Bits::from(if first { 9u64 } else { 1 });
        u.tx_type.next = Bits::from(if first { 4u64 } else { 1 });
        u.tx_bytes.next = Bits::from(if first { bytes as u64 } else { 63 });
    }

    #[test]
    fn framer_puts_out_the_worm_with_the_documented_timing() {
        let mut uut = RmppTx::new(5);
        uut.connect_all();
        check_all(&uut).unwrap();
        // Power-on: all zero; tx_ready rises after edge 0.
        assert!(!uut.tx_ready.val() && !uut.tx_req.val());
        assert_eq!(uut.net_out.val().to_u64(), 0);
        tx_cycle(&mut uut, |_| {});
        assert!(uut.tx_ready.val() && !uut.tx_req.val());
        // Two packets at a time: the first held leaves tx_ready high, the second lowers it;
        // they leave in that order, and tx_ready rises with the first one's CRC flit.
        for pair in [[(13usize, 0usize), (0, 3)], [(32, 1), (4, 0)]] {
            let mut wants = vec![];
            for (k, &(bytes, gnt_delay)) in pair.iter().enumerate() {
                let mut data = [0u8; 32];
                for (i, b) in data.iter_mut().enumerate() {
                    *b = (i as u8).wrapping_mul(37).wrapping_add(bytes as u8) | 1;
                }
                // The last word's bytes past `bytes` are sent as given.
                let words = words_of(&data, bytes.div_ceil(4) * 4);
                let stream = [&HEADER[..], &words].concat();
                let beats = stream.len();
                // The beats, one per cycle: tx_ready stays high until the last is taken.
                for beat in 0..beats {
                    assert!(uut.tx_ready.val(), "packet {k} beat {beat}");
                    assert_eq!(uut.tx_req.val(), k == 1, "packet {k} beat {beat}");
                    tx_cycle(&mut uut, |u| {
                        present_beat(u, &stream, beat, beats, bytes);
                        u.tx_gnt.next = false;
                    });
                }
                assert_eq!(
                    uut.tx_ready.val(),
                    k == 0,
                    "one buffer left after the first"
                );
                assert!(uut.tx_req.val());
                assert_eq!(uut.net_out.val().to_u64(), 0);
                // Inputs change and are ignored while tx_ready is low; no grant for a while.
                for _ in 0..gnt_delay {
                    tx_cycle(&mut uut, |u| {
                        present_beat(u, &words, 1, 1, 3);
                        u.tx_valid.next = k == 1;
                        u.tx_gnt.next = false;
                    });
                    assert!(uut.tx_req.val());
                    assert_eq!(uut.net_out.val().to_u64(), 0);
                }
                let mut want = vec![flit::route(5, 9), 0xC004_0001, 5];
                want.extend(&stream);
                want.push(idemnet_spec::crc::crc32(&want));
                wants.push(want);
            }
            assert!(!uut.tx_ready.val(), "both buffers held");
            for (k, want) in wants.iter().enumerate() {
                let mut got = vec![];
                for i in 0..want.len() {
                    tx_cycle(&mut uut, |u| {
                        u.tx_valid.next = false;
                        u.tx_gnt.next = i == 0;
                    });
                    let f = uut.net_out.val().to_u64();
                    assert!(flit::is_valid(f));
                    assert_eq!(flit::is_head(f), i == 0);
                    let tail = i == want.len() - 1;
                    assert_eq!(flit::is_tail(f), tail);
                    // High with the first packet's CRC flit, and from then on.
                    assert_eq!(uut.tx_ready.val(), k == 1 || tail, "packet {k} flit {i}");
                    // The second packet is due from the first one's CRC flit.
                    assert_eq!(uut.tx_req.val(), k == 0 && tail, "packet {k} flit {i}");
                    got.push(flit::data(f));
                }
                assert_eq!(&got, want, "packet {k} of {pair:?}");
            }
            tx_cycle(&mut uut, |u| {
                u.tx_valid.next = false;
                u.tx_gnt.next = true;
            });
            assert_eq!(uut.net_out.val().to_u64(), 0);
            assert!(uut.tx_ready.val() && !uut.tx_req.val());
        }
        assert_eq!(uut.tx_cnt_host_error.val().to_u64(), 0);
    }

    /// A packet that is not well formed (too long a length, an early or a missing last) is
    /// counted at the beat that shows it, its beats are taken up to its last, and nothing is
    /// held or sent: tx_ready stays high throughout.
    #[test]
    fn the_framer_refuses_a_bad_packet_and_sends_nothing() {
        let mut uut = RmppTx::new(5);
        uut.connect_all();
        check_all(&uut).unwrap();
        tx_cycle(&mut uut, |_| {});
        let words = [1u32, 2, 3, 4, 5, 6, 7, 8];
        // (bytes announced, beats sent with last on the final one): too many bytes, `last` on
        // a header word's beat, early, on a beat past the end, past a too long length.
        for (round, (bytes, beats)) in [(33usize, 1usize), (8, 5), (4, 3), (0, 6), (40, 2)]
            .into_iter()
            .enumerate()
        {
            for beat in 0..beats {
                tx_cycle(&mut uut, |u| {
                    present_beat(u, &words, beat, beats, bytes);
                    if beat == 0 {
                        u.tx_bytes.next = Bits::from(bytes as u64);
                    }
                    u.tx_gnt.next = true;
                });
                assert!(uut.tx_ready.val() && !uut.tx_req.val());
                assert_eq!(uut.net_out.val().to_u64(), 0);
            }
            assert_eq!(uut.tx_cnt_host_error.val().to_u64(), round as u64 + 1);
        }
    }

    /// A worm as a source of the merge holds it: route, header and payload words.
    #[derive(Clone, Debug)]
    struct Worm {
        words: Vec<u32>,
        header_words: usize,
    }

    impl Worm {
        /// Its flits on the wire (§8.1): head, header, payload, CRC in the tail.
        fn flits(&self) -> Vec<u64> {
            let crc = idemnet_spec::crc::crc32(&self.words);
            let mut f: Vec<u64> = self
                .words
                .iter()
                .enumerate()
                .map(|(i, &w)| flit::make(i == 0, false, w))
                .collect();
            f.push(flit::make(false, true, crc));
            f
        }
    }

    /// The merge against §13.2's three transmitters on one link: sources with worms queued at
    /// random (the NI's of 2 header words, the replies of 7 without payload, the framer's of 7),
    /// each answering the word asked for from the worm it latched at its start. The reference
    /// grants the first due source at or after `turn` whenever the link is free (idle, or a
    /// tail on it) and puts the worm out back to back; the flits, the starts and the framer's
    /// finish must be the reference's in every cycle.
    #[test]
    fn merge_serves_the_sources_as_three_transmitters_on_one_link() {
        let mut uut = TxMerge::default();
        uut.connect_all();
        check_all(&uut).unwrap();
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut random = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let header_words = [idemnet_spec::ni::HEADER_WORDS, 7, 7];
        let most_payload = [8u64, 0, 8];
        let mut queues: [Vec<Worm>; 3] = Default::default();
        let mut latched: [Option<Worm>; 3] = Default::default();
        let mut to_go: std::collections::VecDeque<u64> = Default::default();
        let (mut turn, mut serving) = (0usize, 0usize);
        let mut started = [0usize; 3];
        for cycle in 0..20_000 {
            uut.clock.next = false.into();
            for (source, queue) in [&mut uut.ni, &mut uut.rmpp, &mut uut.framer]
                .into_iter()
                .zip(&queues)
            {
                source.due.next = !queue.is_empty();
            }
            assert!(simulate(&mut uut, 1000));
            let pick = if to_go.is_empty() {
                (0..3)
                    .map(|k| (turn + k) % 3)
                    .find(|&j| !queues[j].is_empty())
            } else {
                None
            };
            let starts = [&uut.ni, &uut.rmpp, &uut.framer].map(|source| source.start.val());
            assert_eq!(starts, [0, 1, 2].map(|j| pick == Some(j)), "cycle {cycle}");
            // The asks are shown to every source alike.
            for source in [&uut.rmpp, &uut.framer] {
                assert_eq!(source.index.val(), uut.ni.index.val());
                assert_eq!(source.header_valid.val(), uut.ni.header_valid.val());
                assert_eq!(source.payload_valid.val(), uut.ni.payload_valid.val());
            }
            let index = uut.ni.index.val().to_u64() as usize;
            let (header_valid, payload_valid) =
                (uut.ni.header_valid.val(), uut.ni.payload_valid.val());
            let mut answers = [0u64; 3];
            let mut payloads = [0u64; 3];
            for j in 0..3 {
                let worm = if starts[j] {
                    queues[j].first()
                } else {
                    latched[j].as_ref()
                };
                if let Some(w) = worm {
                    let position = if starts[j] {
                        Some(0)
                    } else if header_valid {
                        Some(1 + index)
                    } else if payload_valid {
                        Some(1 + w.header_words + index)
                    } else {
                        None
                    };
                    answers[j] = position.and_then(|p| w.words.get(p)).copied().unwrap_or(0) as u64;
                }
                payloads[j] = latched[j]
                    .as_ref()
                    .map_or(0, |w| w.words.len() - 1 - w.header_words)
                    as u64;
            }
            for (j, source) in [&mut uut.ni, &mut uut.rmpp, &mut uut.framer]
                .into_iter()
                .enumerate()
            {
                source.word.next = Bits::from(answers[j]);
                source.payload_words.next = Bits::from(payloads[j]);
            }
            assert!(simulate(&mut uut, 1000));
            if let Some(j) = pick {
                let w = queues[j].remove(0);
                to_go = w.flits().into();
                latched[j] = Some(w);
                turn = (j + 1) % 3;
                serving = j;
                started[j] += 1;
            }
            let want = to_go.pop_front().unwrap_or(0);
            let finishes = [&uut.ni, &uut.rmpp, &uut.framer].map(|source| source.finish.val());
            let tail = pick.is_none() && flit::is_tail(want);
            assert_eq!(
                finishes,
                [serving == 0 && tail, false, serving == 2 && tail],
                "cycle {cycle}"
            );
            uut.clock.next = true.into();
            assert!(simulate(&mut uut, 1000));
            assert_eq!(uut.net_out.val().to_u64(), want, "cycle {cycle}");
            for j in 0..3 {
                if random() % 40 == 0 && queues[j].len() < 3 {
                    let payload = random() % (most_payload[j] + 1);
                    let words = (0..1 + header_words[j] as u64 + payload)
                        .map(|_| random() as u32)
                        .collect();
                    queues[j].push(Worm {
                        words,
                        header_words: header_words[j],
                    });
                }
            }
        }
        assert!(started.iter().all(|&n| n > 300), "{started:?}");
    }

    #[test]
    fn demux_sends_rmpp_worms_to_rmpp_and_the_rest_to_the_ni() {
        let mut uut = RxDemux::new(1);
        uut.connect_all();
        check_all(&uut).unwrap();
        let h = flit::make(true, false, flit::route(1, 0));
        let r0 = flit::make(false, false, 0xC001_0001);
        let i0 = flit::make(false, false, 0x0000_0000);
        let b = flit::make(false, false, 0xDEAD_BEEF);
        let t = flit::make(false, true, 0xC000_0000);
        let garbage_invalid = 0x3_FFFF_FFFFu64;
        // The flits in; each is framed two cycles later.
        let stream = [
            h,
            r0,
            b,
            garbage_invalid,
            t,
            h,
            i0,
            b,
            t,
            h,
            h,
            r0,
            t,
            0,
            h,
            0,
            r0,
            t,
            h,
            r0,
            h,
            i0,
            t,
            0,
        ];
        // Reference: the side of each flit; a head's strobe goes to its side, the cut of the worm
        // before it to that worm's side.
        let (mut older, mut prev) = (0u64, 0u64);
        let mut side = false;
        let mut cuts = [0; 2];
        for (i, &f) in stream.iter().chain([0u64, 0].iter()).enumerate() {
            uut.clock.next = false.into();
            uut.net_in.next = flit::to_bits(f);
            // The cores' answers: a malformed header never, no payload.
            for to in [&mut uut.to_ni, &mut uut.to_rmpp] {
                to.reject.next = false;
                to.payload_words.next = 0.into();
            }
            assert!(simulate(&mut uut, 1000));
            let fv = if flit::is_valid(f) { f } else { 0 };
            let before = side;
            // The side of a head is decided by the flit behind it, which arrived a cycle after it.
            if flit::is_valid(older) && flit::is_head(older) {
                side = flit::is_valid(prev) && !flit::is_head(prev) && flit::data(prev) >> 30 == 3;
            }
            let head = flit::is_valid(older) && flit::is_head(older);
            assert_eq!(uut.to_ni.head.val(), head && !side, "cycle {i}");
            assert_eq!(uut.to_rmpp.head.val(), head && side, "cycle {i}");
            for (k, to) in [&uut.to_ni, &uut.to_rmpp].into_iter().enumerate() {
                assert_eq!(
                    to.word.val().to_u64(),
                    flit::data(older) as u64,
                    "cycle {i}"
                );
                if to.cut.val() {
                    assert!(head, "cycle {i}: a cut only at a head");
                    assert_eq!(k == 1, before, "cycle {i}: the cut goes to the worm's side");
                    cuts[k] += 1;
                }
            }
            uut.clock.next = true.into();
            assert!(simulate(&mut uut, 1000));
            older = prev;
            prev = fv;
        }
        assert!(cuts[0] > 0 && cuts[1] > 0, "{cuts:?}");
    }

    fn node(p: u16) -> Node {
        let mut n = Node::new(
            &NiConfig {
                node: p,
                ..NiConfig::DEFAULT
            },
            &RmppConfig {
                node: p,
                // No reply is repeated within these tests' 600 cycles (§11.5): they are about
                // the merge and the split, and count each reply once.
                reply_timeout: 1_000,
                ..RmppConfig::DEFAULT
            },
        );
        n.connect_all();
        check_all(&n).unwrap();
        n
    }

    /// Two nodes wired back to back (each one's `net_out` is the other's `net_in` a cycle
    /// later): cycle `t` of both.
    fn pair_cycle(a: &mut Node, b: &mut Node, set: impl FnOnce(&mut Node, &mut Node)) {
        let (ao, bo) = (a.net_out.val(), b.net_out.val());
        a.clock.next = false.into();
        b.clock.next = false.into();
        a.net_in.next = bo;
        b.net_in.next = ao;
        set(a, b);
        assert!(simulate(a, 1000));
        assert!(simulate(b, 1000));
        a.clock.next = true.into();
        b.clock.next = true.into();
        assert!(simulate(a, 1000));
        assert!(simulate(b, 1000));
    }

    /// Node 0 sends a datagram (NI) and a one-packet RMPP message (framer) to node 1, both
    /// streams starting in the same cycle: the merge puts the NI's worm first and the framer's
    /// right behind it; node 1's split hands each to its block, which answer through their
    /// merge; both exchanges complete without a counted discard.
    #[test]
    fn two_nodes_carry_both_protocols() {
        let (mut a, mut b) = (node(0), node(1));
        pair_cycle(&mut a, &mut b, |_, _| {});
        assert!(a.req_ready.val() && a.tx_ready.val());
        // Payload bytes 0x40, 0x41, ...: word i is 0x40+4i .. 0x43+4i.
        let word = |i: u64| (0..4).fold(0u64, |w, j| w << 8 | (0x40 + 4 * i + j));
        // The NI's request: 8 bytes, two beats; the framer's packet: 20 bytes, five header
        // beats and five payload beats, in cycles 1 to 10. `out[i]` is O_(i + 2): the NI's
        // request is taken whole at edge 2, its SEND picked at edge 3 and its head leaves at
        // edge 4.
        let header = [7u64, 20, 0, 0, 1];
        let mut out = vec![];
        for beat in 0..10u64 {
            pair_cycle(&mut a, &mut b, |a, _| {
                a.req_valid.next = beat < 2;
                a.req_data.next = Bits::from(word(beat));
                a.req_last.next = beat == 1;
                a.req_dst.next = Bits::from(1u64);
                a.req_len.next = Bits::from(8u64);
                a.tx_valid.next = true;
                a.tx_data.next = Bits::from(match beat {
                    0..=4 => header[beat as usize],
                    _ => word(beat - 5),
                });
                a.tx_last.next = beat == 9;
                a.tx_dst.next = Bits::from(1u64);
                a.tx_type.next = Bits::from(2u64); // RTS_LAST
                a.tx_bytes.next = Bits::from(20u64);
            });
            if beat >= 1 {
                out.push(a.net_out.val().to_u64());
            }
        }
        assert!(
            a.tx_ready.val(),
            "one packet held: the framer's second buffer is free"
        );
        let (mut upcall, mut delivered, mut done, mut snd) = (0, 0, 0, 0);
        let mut beats = vec![];
        let mut word_addressed_at_upcall = false;
        for t in 11..600 {
            // The upcall shown in O_(t-1) is taken in cycle t.
            let up = b.rx_up_valid.val();
            if up {
                upcall += 1;
                assert_eq!(b.rx_up_src.val().to_u64(), 0);
                assert_eq!(b.rx_up_msg_id.val().to_u64(), 7);
                assert_eq!(b.rx_up_msg_num.val().to_u64(), 1);
                assert_eq!(b.rx_up_len.val().to_u64(), 20);
            }
            pair_cycle(&mut a, &mut b, |a, b| {
                a.req_valid.next = false;
                a.tx_valid.next = false;
                b.dlv_ready.next = true;
                b.rx_up_ready.next = true;
                b.rx_up_accept.next = Bits::from(20u64);
                b.rx_dlv_ready.next = true;
                b.rx_rd_slot.next = Bits::from(0u64);
                b.rx_rd_word.next = Bits::from(1u64);
            });
            if t < 45 {
                out.push(a.net_out.val().to_u64());
            }
            // The word addressed in the cycle the upcall is taken, payload word 1, shows a cycle
            // later (§11.6).
            if word_addressed_at_upcall {
                assert_eq!(b.rx_rd_data.val().to_u64(), 0x4445_4647);
            }
            word_addressed_at_upcall = up;
            if b.dlv_valid.val() {
                assert_eq!(b.dlv_src.val().to_u64(), 0);
                assert_eq!(b.dlv_len.val().to_u64(), 8);
                beats.push((b.dlv_data.val().to_u64(), b.dlv_last.val()));
                delivered += usize::from(b.dlv_last.val());
            }
            if a.done_valid.val() {
                done += 1;
            }
            if a.rx_snd_valid.val() {
                snd += 1;
                assert_eq!(a.rx_snd_type.val().to_u64(), 7, "MSGEND");
                assert_eq!(a.rx_snd_peer.val().to_u64(), 1);
                assert_eq!(a.rx_snd_msg_id.val().to_u64(), 7);
                assert_eq!(a.rx_snd_len.val().to_u64(), 20);
            }
        }
        assert_eq!(beats, [(word(0), false), (word(1), true)]);
        // O_4 .. O_8: the NI's SEND (8 bytes: 5 flits), picked at edge 3 (§8.5); the framer's
        // packet, held from edge 10, is due in cycle 11: O_11 .. O_24, its worm.
        let kinds: Vec<(bool, bool, bool)> = out
            .iter()
            .map(|&f| (flit::is_valid(f), flit::is_head(f), flit::is_tail(f)))
            .collect();
        assert_eq!(kinds[1], (false, false, false));
        assert_eq!(kinds[2], (true, true, false));
        assert_eq!(kinds[6], (true, false, true));
        assert_eq!(kinds[7], (false, false, false));
        assert_eq!(kinds[8], (false, false, false));
        assert_eq!(kinds[9], (true, true, false));
        assert_eq!(flit::data(out[10]), 0xC002_0001);
        assert_eq!(kinds[22], (true, false, true));
        assert!(kinds[3..6]
            .iter()
            .chain(kinds[10..22].iter())
            .all(|&k| k == (true, false, false)));
        assert_eq!((upcall, delivered, done, snd), (1, 1, 1, 1));
        for n in [&a, &b] {
            for c in [
                &n.cnt_crc,
                &n.cnt_truncated,
                &n.cnt_malformed,
                &n.cnt_misrouted,
                &n.cnt_table_full,
                &n.cnt_unknown,
                &n.cnt_busy,
                &n.cnt_duplicate,
                &n.cnt_retransmit,
                &n.cnt_host_error,
                &n.tx_cnt_host_error,
                &n.rx_cnt_crc,
                &n.rx_cnt_truncated,
                &n.rx_cnt_malformed,
                &n.rx_cnt_misrouted,
                &n.rx_cnt_version,
                &n.rx_cnt_not_source,
                &n.rx_cnt_order,
                &n.rx_cnt_sequence,
                &n.rx_cnt_table_full,
                &n.rx_cnt_unknown,
                &n.rx_cnt_duplicate,
                &n.rx_cnt_busy,
                &n.rx_cnt_restart,
            ] {
                assert_eq!(c.val().to_u64(), 0);
            }
        }
    }
}
