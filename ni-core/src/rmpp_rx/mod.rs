//! The RMPP receive path of docs/protocol.md §11, as a rust-hdl block built of sub-blocks: the
//! framing and header ([`receiver::RmppReceiver`]), the verdict ([`verdict::RmppVerdict`]), the
//! slot table ([`slots::RmppSlots`], its LUT-RAM fields in
//! [`slot_fields::SlotFields`]), the edge's action and Figure 8's credits
//! ([`action::RmppAction`]), the replies ([`reply::ReplySource`]), the upcall queue and the
//! answer register ([`answer::UpcallAnswer`]), the delivery queue ([`SlotFifo`]), the buffer
//! read port ([`read_port::ReadPort`]) and the
//! counters (the cell library's [`CounterBank`], strobes registered: §11.3).

use idemnet_rtl::counter_bank::CounterBank;
use idemnet_rtl::fifo::{Fifo, Memory};
use idemnet_rtl::worm_receiver::ReceivedWorm;
use idemnet_rtl::worm_transmitter::WormSource;
use idemnet_spec::rmpp::{cnt, RmppConfig, COUNTERS};
use rust_hdl::prelude::*;

use crate::host_ports::with_host_ports;
use crate::standalone::with_transmitter;

pub mod action;
pub mod answer;
pub mod header;
pub mod read_port;
pub mod receiver;
pub mod reply;
pub mod slot_fields;
pub mod slots;
pub mod verdict;

use crate::c;
use action::RmppAction;
use answer::UpcallAnswer;
use read_port::ReadPort;
use receiver::RmppReceiver;
use reply::ReplySource;
use slots::RmppSlots;
use verdict::RmppVerdict;

/// A FIFO of slot numbers (up to 16 slots): the upcall and the delivery queue (§11.4).
pub type SlotFifo = Fifo<Bits<4>, 4, 5>;

/// Address bits of the message buffer RAM: 16 slots of 1024 words, the largest configuration
/// (§11.2). The RAM itself holds `rx_slots * max_msg / 4` words (slot `k` from word
/// `k * max_msg / 4`), so a configuration takes only the block RAM it uses: with the defaults
/// 2048 words of 32 bits, with system16's (4 slots of 1024 bytes) 1024 words.
pub const BUF_ADDR_BITS: usize = 14;
/// Sources of the counter bank: one per counter, and a second one for `truncated`, which the
/// receiver counts twice in one cycle when a head cuts a worm in progress and is a tail itself.
const COUNTER_SOURCES: usize = COUNTERS.len() + 1;
/// Bits of a counter number.
const COUNTER_BITS: usize = 4;
// The wiring below indexes the bank by number (hdl_gen takes no path in an index): its sources
// are the counters in `COUNTERS` order, then the cut.
const _: () = assert!(
    cnt::CRC == 0
        && cnt::TRUNCATED == 1
        && cnt::MALFORMED == 2
        && cnt::MISROUTED == 3
        && cnt::VERSION == 4
        && cnt::NOT_SOURCE == 5
        && cnt::ORDER == 6
        && cnt::SEQUENCE == 7
        && cnt::TABLE_FULL == 8
        && cnt::UNKNOWN == 9
        && cnt::DUPLICATE == 10
        && cnt::BUSY == 11
        && cnt::RESTART == 12
        && COUNTER_SOURCES == 14
);

/// Address bits of the `expected` RAM: `nodes` <= 256 words, one per source.
pub const EXP_ADDR_BITS: usize = 8;

/// A message slot (§11.4); busy is "not `Free`".
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum SlotState {
    Free,
    /// Waiting for the upper layer's answer.
    Upcall,
    Receiving,
    /// Waiting for delivery.
    Complete,
    /// MSGEND owed or sent.
    Ended,
    /// MSGDROP owed or sent.
    Dropped,
}

/// What a packet does (its latched verdict, §11.5), and the one action of an edge.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum Action {
    /// A verdict: the packet is dropped (see [`DropReason`]). An edge: no action.
    None,
    /// RTS / RTS_LAST into the free slot.
    New,
    /// NULL with no slot: a free slot taken as DROPPED.
    AbortNew,
    /// In sequence (or a restart) on the matching slot.
    InSequence,
    /// The reply is sent again.
    Again,
    /// GCH frees the slot.
    Free,
    /// NULL aborts a RECEIVING slot.
    Abort,
    /// CTS, MSGEND or MSGDROP for this node's send side (`snd_valid`).
    ToSender,
    /// The answer register acts (not a verdict).
    Answer,
    /// The delivered register acts (not a verdict).
    Delivered,
    /// Selective acceptance (§11.7): a data packet past the one the slot expects, kept in the
    /// buffer and marked in the slot's `held`. Last, so that the other codes stay as they were.
    Held,
}

/// Why a packet is dropped (§11.5's table), each counted by its counter.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum DropReason {
    None,
    NotSource,
    Order,
    Sequence,
    TableFull,
    Unknown,
    Duplicate,
    Busy,
}

/// The core of an RMPP receive path (docs/protocol.md §11): all of it but the transmitter, a
/// worm source ([`crate::standalone`]) of the transmitter of its own in [`RmppRx`] or of the
/// node's one transmitter (§13.2).
///
/// Ports (Verilog names, in this order after `clock`):
///
/// | port | dir | width | |
/// |------|-----|-------|-|
/// | `clock` | in | 1 | |
/// | `receiver$*` | | | the worms of the fabric, framed by a [`idemnet_rtl::worm_receiver::WormReceiver`] this core does not own ([`ReceivedWorm`]: the receive path alone's, or the node's one receiver, §13.3), as that cell's ports |
/// | `worm$*` | | | the replies this path sends ([`WormSource`], joined to the [`idemnet_rtl::worm_transmitter::WormFetch`] of the path alone's transmitter or of the node's merge, §13.2): at `start` the slot with a reply due (CTS, MSGEND, MSGDROP) that the round robin picks (§11.5: the first after the slot picked last) is picked; `word` is the route at `start`, header word `index` while `header_valid`; `payload_words` is 0 (replies carry no payload); `payload_valid` and `finish` are not read |
/// | `up_ready`, `up_accept` | in | 1, 32 | the upper layer takes the upcall, and its answer (bytes accepted) |
/// | `dlv_ready` | in | 1 | the upper layer takes the delivery |
/// | `rd_slot`, `rd_word` | in | 4, 10 | buffer read address |
/// | `up_valid`, `up_slot`, `up_src`, `up_msg_id`, `up_msg_num`, `up_len` | out | 1, 4, 16, 32, 32, 32 | the upcall |
/// | `dlv_valid`, `dlv_slot`, `dlv_len` | out | 1, 4, 32 | the delivery: the slot (whose upcall the upper layer took) and the accepted bytes |
/// | `rd_data` | out | 32 | the buffer word read |
/// | `snd_valid`, `snd_type`, `snd_peer`, `snd_msg_id`, `snd_len`, `snd_seq`, `snd_info`, `snd_msg_num` | out | 1, 4, 16, 32 x 5 | one-cycle pulse: a CTS, MSGEND or MSGDROP for the send side |
/// | `cnt_crc` ... `cnt_restart` | out | 16 each | wrapping counters, in the order of `idemnet_spec::rmpp::COUNTERS` |
///
/// Timing (§11.5): the flit on `net_in` in cycle `t` is consumed at edge `t`. The header words
/// are latched as they arrive; the `expected` RAM is read at the latched `srcNID`, so its word is
/// ready when word 6 comes; the verdict is computed in the cycle word 6 is consumed, from the
/// state before that edge, and latched; payload words are written into the buffer RAM as they
/// arrive; the packet acts at the edge after its CRC flit (its CRC verdict is registered at the
/// CRC flit); a CTS, MSGEND or MSGDROP for the send side pulses `snd_valid` at that edge too. At most one action per edge: the packet whose CRC
/// flit (a tail in CRC position) was consumed at the edge before, else the answer register, else
/// the delivered register; neither register acts at a CRC flit's edge either (the packet owns
/// both edges). An upcall is taken in cycle `t` when `up_valid` (after `t-1`) and `up_ready`,
/// and the answer register acts at edge `t + 2` at the earliest; a delivery is taken likewise,
/// and the delivered register acts at `t + 1` at the earliest. A reply started in cycle `t`
/// (`worm$start`) is picked at edge `t` and asked for its words 0-6 in the cycles after it.
/// `rd_data` in `O_(t+1)` is the word addressed in `I_t`, before edge `t`, masked by the slot's
/// `limit` before edge `t` (§11.6).
///
/// Every output but `worm$word` (combinational from `worm$*` and registers) is a register or a
/// function of registers only (no path from an input port to an output port): `up_*` / `dlv_*` show the head of the upcall / delivery FIFO (slot number
/// registers) and that slot's fields, zero when not valid; `snd_*` are registers, the header of the
/// packet whose edge set `snd_valid`, zero otherwise; `rd_data` is a register:
/// the RAM's registered output under a registered byte mask, registered again; `worm$due` is the slot table's scan.
///
/// Internals: `receive` reads the worm a [`idemnet_rtl::worm_receiver::WormReceiver`] frames
/// (through `receiver`, §13.3) and latches the header; `verdict` takes and latches the verdict
/// and writes the payload; `slots`
/// holds the per-slot state (§11.4: [`SlotState`], `src` in 8 bits as `srcNID < nodes <= 256`,
/// `limit` in 13 bits as `limit <= max_msg <= 4096`, `next_seq` in 11 bits as a RECEIVING slot
/// has `next_seq * mtu < limit`, the `gch_timeout` deadline and the repeat timer's in 21 bits
/// against one free-running counter;
/// each masked to the bits the configuration needs, see [`slots::RmppSlots`]) with its scans
/// and per-slot updates;
/// `act` chooses the edge's one [`Action`] and keeps Figure 8's `outstanding` (20 bits: at most
/// 16 grants of 65535); `reply` latches the reply started and answers its
/// words; `answer` ([`answer::UpcallAnswer`]) queues the upcalls and holds the upper layer's
/// answer (the accepted bytes `min(up_accept, len, max_msg)`, registered in two steps);
/// `deliveries` is the delivery queue; both queues are [`SlotFifo`]s (the cell library's
/// [`Fifo`], one entry per slot, so never full when a slot is pushed: a slot is in a queue at
/// most once; the first entry is the FIFO's `pop_data` register); `read` the read port;
/// `counters` the counters. This block keeps the RAMs and the delivered register (`dl_*`), and
/// wires the sub-blocks. The RAMs are [`Memory::block`]s of the configuration's size
/// (`rx_slots * max_msg / 4` and `nodes` words): no read meets a write of the same word at
/// one edge that matters (§11.6 reads the word before the edge; `expected` is written at a
/// packet's action, the edge after its CRC flit, and read at the next packet's `srcNID`).
///
/// Where §11 is silent, this block does the following:
///
/// * Any tail consumed in the CRC position (good CRC or not) is "the packet whose CRC flit is
///   consumed": the answer and delivered registers wait at its edge and at the edge after it.
/// * MSGEND and MSGDROP carry `seq = 0` and `info = 0`; an *abort new* slot keeps the free
///   slot's `limit = 0`, so its MSGDROP has `len = 0`.
/// * Becoming COMPLETE (in sequence) and being freed (GCH) clear `reply_due`, so only
///   RECEIVING, ENDED and DROPPED slots are ever picked by the transmitter.
/// * A GCH whose slot was freed by its repeat timer (past `gch_timeout`) between its verdict
///   and its action frees it again and counts nothing (only *replies again* turns into
///   `unknown`).
/// * `up_*` and `dlv_*` are zero while their `valid` is low; `snd_*` are zero outside the pulse.
#[derive(LogicBlock)]
pub struct RmppRxCore {
    pub clock: Signal<In, Clock>,
    pub receiver: ReceivedWorm,
    pub worm: WormSource,
    pub up_ready: Signal<In, Bit>,
    pub up_accept: Signal<In, Bits<32>>,
    pub dlv_ready: Signal<In, Bit>,
    pub rd_slot: Signal<In, Bits<4>>,
    pub rd_word: Signal<In, Bits<10>>,
    pub up_valid: Signal<Out, Bit>,
    pub up_slot: Signal<Out, Bits<4>>,
    pub up_src: Signal<Out, Bits<16>>,
    pub up_msg_id: Signal<Out, Bits<32>>,
    pub up_msg_num: Signal<Out, Bits<32>>,
    pub up_len: Signal<Out, Bits<32>>,
    pub dlv_valid: Signal<Out, Bit>,
    pub dlv_slot: Signal<Out, Bits<4>>,
    pub dlv_len: Signal<Out, Bits<32>>,
    pub rd_data: Signal<Out, Bits<32>>,
    pub snd_valid: Signal<Out, Bit>,
    pub snd_type: Signal<Out, Bits<4>>,
    pub snd_peer: Signal<Out, Bits<16>>,
    pub snd_msg_id: Signal<Out, Bits<32>>,
    pub snd_len: Signal<Out, Bits<32>>,
    pub snd_seq: Signal<Out, Bits<32>>,
    pub snd_info: Signal<Out, Bits<32>>,
    pub snd_msg_num: Signal<Out, Bits<32>>,
    pub cnt_crc: Signal<Out, Bits<16>>,
    pub cnt_truncated: Signal<Out, Bits<16>>,
    pub cnt_malformed: Signal<Out, Bits<16>>,
    pub cnt_misrouted: Signal<Out, Bits<16>>,
    pub cnt_version: Signal<Out, Bits<16>>,
    pub cnt_not_source: Signal<Out, Bits<16>>,
    pub cnt_order: Signal<Out, Bits<16>>,
    pub cnt_sequence: Signal<Out, Bits<16>>,
    pub cnt_table_full: Signal<Out, Bits<16>>,
    pub cnt_unknown: Signal<Out, Bits<16>>,
    pub cnt_duplicate: Signal<Out, Bits<16>>,
    pub cnt_busy: Signal<Out, Bits<16>>,
    pub cnt_restart: Signal<Out, Bits<16>>,
    // Sub-blocks.
    receive: RmppReceiver,
    verdict: RmppVerdict,
    slots: RmppSlots,
    act: RmppAction,
    reply: ReplySource,
    answer: UpcallAnswer,
    deliveries: SlotFifo,
    counters: CounterBank<{ COUNTERS.len() }, COUNTER_SOURCES, COUNTER_BITS, 16>,
    /// The counter each source of `counters` names.
    source_counter: Vec<Constant<Bits<COUNTER_BITS>>>,
    read: ReadPort,
    // Block RAMs.
    exp_ram: Memory<Bits<32>, EXP_ADDR_BITS>,
    buf_ram: Memory<Bits<32>, BUF_ADDR_BITS>,
    // The answer and delivered registers, the snd_valid pulse.
    dl_valid: DFF<Bit>,
    dl_slot: DFF<Bits<4>>,
    /// A CTS, MSGEND or MSGDROP passed at this edge: `snd_valid` at the next.
    snd_passed: DFF<Bit>,
    o_snd_valid: DFF<Bit>,
    /// The `snd_*` outputs, loaded with the packet's header at the edge that sets `snd_valid`
    /// and zero at every other: a register with a synchronous reset, where the header gated by
    /// `snd_valid` took a LUT4 a bit (about 200 on the node). The reset is `snd_passed`, a
    /// register, not the verdict of the CRC flit's cycle, which ended 8 LUT levels deep in
    /// these registers' 180 reset pins (the node's ECP5 critical path, 91.0 MHz at seed 1).
    o_snd_type: DFF<Bits<4>>,
    o_snd_peer: DFF<Bits<16>>,
    o_snd_msg_id: DFF<Bits<32>>,
    o_snd_len: DFF<Bits<32>>,
    o_snd_seq: DFF<Bits<32>>,
    o_snd_info: DFF<Bits<32>>,
    o_snd_msg_num: DFF<Bits<32>>,
    // Combinational temporaries.
    key_node: Signal<Local, Bits<8>>,
    dl_v: Signal<Local, Bit>,
    dl_s: Signal<Local, Bits<4>>,
    // Parameters and named values.
    no_slot: Constant<Bits<4>>,
    empty_type: Constant<Bits<4>>,
    empty_node: Constant<Bits<16>>,
    no_payload: Constant<Bits<4>>,
}

impl RmppRxCore {
    /// The core of a receive path with the parameters of `cfg` (validated by the caller: see
    /// [`crate::rmpp_rx`]).
    pub fn new(cfg: &RmppConfig) -> Self {
        let n = cfg.rx_slots;
        Self {
            clock: Default::default(),
            receiver: Default::default(),
            worm: Default::default(),
            up_ready: Default::default(),
            up_accept: Default::default(),
            dlv_ready: Default::default(),
            rd_slot: Default::default(),
            rd_word: Default::default(),
            up_valid: Default::default(),
            up_slot: Default::default(),
            up_src: Default::default(),
            up_msg_id: Default::default(),
            up_msg_num: Default::default(),
            up_len: Default::default(),
            dlv_valid: Default::default(),
            dlv_slot: Default::default(),
            dlv_len: Default::default(),
            rd_data: Default::default(),
            snd_valid: Default::default(),
            snd_type: Default::default(),
            snd_peer: Default::default(),
            snd_msg_id: Default::default(),
            snd_len: Default::default(),
            snd_seq: Default::default(),
            snd_info: Default::default(),
            snd_msg_num: Default::default(),
            cnt_crc: Default::default(),
            cnt_truncated: Default::default(),
            cnt_malformed: Default::default(),
            cnt_misrouted: Default::default(),
            cnt_version: Default::default(),
            cnt_not_source: Default::default(),
            cnt_order: Default::default(),
            cnt_sequence: Default::default(),
            cnt_table_full: Default::default(),
            cnt_unknown: Default::default(),
            cnt_duplicate: Default::default(),
            cnt_busy: Default::default(),
            cnt_restart: Default::default(),
            receive: RmppReceiver::new(cfg),
            verdict: RmppVerdict::new(cfg),
            slots: RmppSlots::new(cfg),
            act: RmppAction::new(cfg),
            reply: ReplySource::new(cfg),
            answer: UpcallAnswer::new(cfg),
            deliveries: SlotFifo::new(n),
            // A counter shows its events a cycle after their edge (§11.3), so the adders start
            // from registers, not from the receiver's and the action's decisions.
            counters: CounterBank::new(true),
            source_counter: (0..COUNTERS.len())
                .chain([cnt::TRUNCATED])
                .map(|counter| c(counter as u64))
                .collect(),
            read: ReadPort::new(cfg),
            // Two words at least: yosys builds no block RAM of one (`nodes` may be 1).
            exp_ram: Memory::block(cfg.nodes.max(2)),
            buf_ram: Memory::block((n * cfg.slot_words()).max(2)),
            dl_valid: Default::default(),
            dl_slot: Default::default(),
            snd_passed: Default::default(),
            o_snd_valid: Default::default(),
            o_snd_type: Default::default(),
            o_snd_peer: Default::default(),
            o_snd_msg_id: Default::default(),
            o_snd_len: Default::default(),
            o_snd_seq: Default::default(),
            o_snd_info: Default::default(),
            o_snd_msg_num: Default::default(),
            key_node: Default::default(),
            dl_v: Default::default(),
            dl_s: Default::default(),
            no_slot: c(0),
            empty_type: c(0),
            empty_node: c(0),
            no_payload: c(0),
        }
    }
}

impl Logic for RmppRxCore {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            dl_valid,
            dl_slot,
            snd_passed,
            o_snd_type,
            o_snd_peer,
            o_snd_msg_id,
            o_snd_len,
            o_snd_seq,
            o_snd_info,
            o_snd_msg_num
        );
        self.o_snd_valid.clock.next = self.clock.val();
        self.exp_ram.clock.next = self.clock.val();
        self.buf_ram.clock.next = self.clock.val();
        self.receive.clock.next = self.clock.val();
        self.verdict.clock.next = self.clock.val();
        self.slots.clock.next = self.clock.val();
        self.act.clock.next = self.clock.val();
        self.read.clock.next = self.clock.val();
        self.reply.clock.next = self.clock.val();
        self.answer.clock.next = self.clock.val();
        self.deliveries.clock.next = self.clock.val();
        self.counters.clock.next = self.clock.val();

        // ---- The packet in reception, its verdict against the slots, its payload.
        ReceivedWorm::link(&mut self.receiver, &mut self.receive.receiver);
        self.key_node.next = self.receive.nid.val().get_bits::<8>(0);
        self.slots.write.key_node.next = self.key_node.val();
        self.slots.write.key_msg_id.next = self.receive.msg_id.val();
        self.slots.write.target.next = self.verdict.target.val();
        self.verdict.prepare.next = self.receive.prepare.val();
        self.verdict.decide.next = self.receive.decide.val();
        self.verdict.word.next = self.receive.word.val();
        self.verdict.payload_valid.next = self.receive.payload_valid.val();
        self.verdict.source.next = self.receive.source.val();
        self.verdict.nid.next = self.receive.nid.val();
        self.verdict.is_rts.next = self.receive.is_rts.val();
        self.verdict.is_null.next = self.receive.is_null.val();
        self.verdict.is_data.next = self.receive.is_data.val();
        self.verdict.is_stop.next = self.receive.is_stop.val();
        self.verdict.is_to_sender.next = self.receive.is_to_sender.val();
        self.verdict.seq.next = self.receive.seq.val();
        self.verdict.seq_bytes.next = self.receive.seq_bytes.val();
        self.verdict.seq_far.next = self.receive.seq_far.val();
        self.verdict.seq_end_bytes.next = self.receive.seq_end_bytes.val();
        self.verdict.seq_end_far.next = self.receive.seq_end_far.val();
        self.verdict.expected.next = self.exp_ram.read_data.val();
        self.verdict.matched.next = self.slots.matched.val();
        self.verdict.match_slot.next = self.slots.match_slot.val();
        self.verdict.match_upcall.next = self.slots.match_upcall.val();
        self.verdict.match_receiving.next = self.slots.match_receiving.val();
        self.verdict.match_complete.next = self.slots.match_complete.val();
        self.verdict.match_over.next = self.slots.match_over.val();
        self.verdict.match_next_seq.next = self.slots.reads.match_next_seq.val();
        self.verdict.match_limit.next = self.slots.reads.match_limit.val();
        self.verdict.match_held.next = self.slots.reads.match_held.val();
        self.verdict.free.next = self.slots.free.val();
        self.verdict.free_slot.next = self.slots.free_slot.val();
        // `expected` at the latched srcNID; the buffer written from the payload.
        self.exp_ram.read_address.next = self.key_node.val();
        self.exp_ram.write_address.next = self.key_node.val();
        self.exp_ram.write_data.next = self.receive.msg_num.val();
        self.exp_ram.write_enable.next = false;
        self.buf_ram.write_address.next = self.verdict.write_address.val();
        self.buf_ram.write_data.next = self.verdict.write_data.val();
        self.buf_ram.write_enable.next = self.verdict.write_enable.val();

        // ---- The one action of this edge, and the credits of Figure 8.
        self.act.arrived.next = self.receive.arrived.val();
        self.act.crc_flit.next = self.receive.crc_flit.val();
        self.act.awaiting_crc.next = self.receive.awaiting_crc.val();
        self.act.verdict.next = self.verdict.action.val();
        self.act.reason.next = self.verdict.reason.val();
        self.act.restart.next = self.verdict.restart.val();
        self.act.finish.next = self.verdict.finish.val();
        self.act.new_cts.next = self.verdict.new_cts.val();
        self.act.resume.next = self.verdict.resume.val();
        self.act.alive.next = self.verdict.alive.val();
        self.act.target_busy.next = self.slots.target_busy.val();
        self.act.answer_valid.next = self.answer.ready.val();
        self.act.answer_cts.next = self.answer.cts.val();
        self.act.delivered_valid.next = self.dl_valid.q.val();
        self.act.target_grant.next = self.slots.target_grant.val();
        self.snd_passed.d.next = self.act.to_sender.val();
        self.o_snd_valid.d.next = self.snd_passed.q.val();
        // The header registers hold the packet at the edge after its CRC flit's: its last
        // header word was latched before the CRC flit, and the next worm's head, at that edge
        // at the earliest, changes them after it.
        self.o_snd_type.d.next = self.empty_type.val();
        self.o_snd_peer.d.next = self.empty_node.val();
        self.o_snd_msg_id.d.next = 0.into();
        self.o_snd_len.d.next = 0.into();
        self.o_snd_seq.d.next = 0.into();
        self.o_snd_info.d.next = 0.into();
        self.o_snd_msg_num.d.next = 0.into();
        if self.snd_passed.q.val() {
            self.o_snd_type.d.next = self.receive.packet_type.val();
            self.o_snd_peer.d.next = self.receive.source.val();
            self.o_snd_msg_id.d.next = self.receive.msg_id.val();
            self.o_snd_len.d.next = self.receive.len.val();
            self.o_snd_seq.d.next = self.receive.seq.val();
            self.o_snd_info.d.next = self.receive.info.val();
            self.o_snd_msg_num.d.next = self.receive.msg_num.val();
        }
        // The action's decodes from its sources (`verdict_acts` with the latched verdict,
        // `answer_acts`, `delivered_acts`), not from the chosen action: on the ECP5 and the
        // iCE40 the node's critical paths ran from the choice (the receiver's state holding
        // back the answer) through these.
        self.exp_ram.write_enable.next = self.act.verdict_acts.val()
            & ((self.verdict.action.val() == Action::New)
                | (self.verdict.action.val() == Action::AbortNew));
        self.slots.write.verdict.next = self.verdict.action.val();
        self.slots.picked.next = self.worm.start.val();
        self.slots.write.msg_num.next = self.receive.msg_num.val();
        self.slots.write.len.next = self.receive.len.val();
        self.slots.write.seq_low.next = self.receive.seq.val().get_bits::<11>(0);
        self.slots.write.restart.next = self.verdict.restart.val();
        self.slots.write.finish.next = self.verdict.finish.val();
        self.slots.write.new_cts.next = self.act.asks_cts.val();
        self.slots.write.held.next = self.verdict.held.val();
        self.slots.ask.next = self.verdict.ask.val();
        self.slots.write.advanced.next = self.verdict.advanced.val();
        self.slots.write.allowance.next = self.act.allowance.val();
        self.slots.write.answer_limit.next = self.answer.limit.val();
        self.slots.write.answer_zero.next = self.answer.zero.val();
        self.slots.write.answer_cts.next = self.answer.cts.val();
        self.slots.clears_due.next = self.act.clears_due.val();
        self.slots.alive_acts.next = self.act.alive_acts.val();
        self.slots.awaiting_crc.next = self.receive.awaiting_crc.val();
        self.slots.write.verdict_acts.next = self.act.verdict_acts.val();
        self.slots.write.answer_acts.next = self.act.answer_acts.val();
        self.slots.delivered_acts.next = self.act.delivered_acts.val();
        self.slots.write.answer_slot.next = self.answer.slot.val();
        self.slots.delivered_slot.next = self.dl_slot.q.val();

        // ---- The replies: the slot picked (round robin), when the transmitter starts one.
        self.worm.due.next = self.slots.due.val();
        self.worm.payload_words.next = self.no_payload.val();
        self.reply.start.next = self.worm.start.val();
        self.reply.header_valid.next = self.worm.header_valid.val();
        self.reply.index.next = self.worm.index.val();
        self.worm.word.next = self.reply.word.val();
        self.reply.pick_src.next = self.slots.pick_src.val();
        self.reply.pick_msg_id.next = self.slots.reads.pick_msg_id.val();
        self.reply.pick_msg_num.next = self.slots.reads.pick_msg_num.val();
        self.reply.pick_limit.next = self.slots.reads.pick_limit.val();
        self.reply.pick_next_seq.next = self.slots.reads.pick_next_seq.val();
        self.reply.pick_cts_n.next = self.slots.reads.pick_cts_n.val();
        self.reply.pick_held.next = self.slots.reads.pick_held.val();
        self.reply.pick_receiving.next = self.slots.pick_receiving.val();
        self.reply.pick_ended.next = self.slots.pick_ended.val();

        // ---- The upcall queue and the answer register.
        self.answer.opens.next =
            self.act.verdict_acts.val() & (self.verdict.action.val() == Action::New);
        self.answer.answers.next = self.act.answer_acts.val();
        self.answer.open_slot.next = self.verdict.target.val();
        self.answer.up_ready.next = self.up_ready.val();
        self.answer.up_accept.next = self.up_accept.val();
        self.answer.up_capped.next = self.slots.reads.up_capped.val();
        self.slots.up_valid.next = self.answer.up_valid.val();
        self.slots.up_slot.next = self.answer.first.val();

        // ---- Delivery FIFO and the delivered register.
        self.dl_v.next = self.deliveries.pop_valid.val() & !self.dl_valid.q.val();
        self.dl_s.next = self.no_slot.val();
        if self.dl_v.val() {
            self.dl_s.next = self.deliveries.pop_data.val();
        }
        self.deliveries.push_valid.next = (self.act.verdict_acts.val()
            & (self.verdict.action.val() == Action::InSequence)
            & self.verdict.finish.val())
            | (self.act.answer_acts.val() & !self.answer.zero.val() & !self.answer.cts.val());
        // The slot that completes: the answer's while it acts, else the verdict's.
        self.deliveries.push_data.next = self.verdict.target.val();
        if self.act.answer_acts.val() {
            self.deliveries.push_data.next = self.answer.slot.val();
        }
        self.deliveries.pop_ready.next = self.dl_v.val() & self.dlv_ready.val();
        self.slots.dlv_valid.next = self.dl_v.val();
        self.slots.dlv_slot.next = self.dl_s.val();
        if self.dl_v.val() & self.dlv_ready.val() {
            self.dl_valid.d.next = true;
            self.dl_slot.d.next = self.dl_s.val();
        } else if self.act.delivered_acts.val() {
            self.dl_valid.d.next = false;
        }

        // ---- Buffer read port (§11.6).
        self.read.rd_slot.next = self.rd_slot.val();
        self.read.rd_word.next = self.rd_word.val();
        self.slots.read_slot.next = self.rd_slot.val();
        self.read.limit.next = self.slots.reads.read_limit.val();
        self.read.busy.next = self.slots.read_busy.val();
        self.buf_ram.read_address.next = self.read.ram_address.val();
        self.read.ram_data.next = self.buf_ram.read_data.val();

        // ---- Counters of dropped worms, by the receiver's verdict.
        self.counters.strobe[0].next = self.receive.count_crc.val();
        self.counters.strobe[1].next = self.receive.count_truncated.val();
        self.counters.strobe[2].next = self.receive.count_malformed.val();
        self.counters.strobe[3].next = self.receive.count_misrouted.val();
        self.counters.strobe[4].next = self.receive.count_version.val();
        self.counters.strobe[5].next = self.act.count_not_source.val();
        self.counters.strobe[6].next = self.act.count_order.val();
        self.counters.strobe[7].next = self.act.count_sequence.val();
        self.counters.strobe[8].next = self.act.count_table_full.val();
        self.counters.strobe[9].next = self.act.count_unknown.val();
        self.counters.strobe[10].next = self.act.count_duplicate.val();
        self.counters.strobe[11].next = self.act.count_busy.val();
        self.counters.strobe[12].next = self.act.count_restart.val();
        self.counters.strobe[13].next = self.receive.count_cut.val();
        for source in 0..COUNTER_SOURCES {
            self.counters.reason[source].next = self.source_counter[source].val();
        }

        // ---- Outputs.
        self.rd_data.next = self.read.rd_data.val();
        self.up_valid.next = self.answer.up_valid.val();
        self.up_slot.next = self.answer.up_slot.val();
        self.up_src.next = bit_cast::<16, 8>(self.slots.reads.up_src.val());
        self.up_msg_id.next = self.slots.reads.up_msg_id.val();
        self.up_msg_num.next = self.slots.reads.up_msg_num.val();
        self.up_len.next = self.slots.reads.up_len.val();
        self.dlv_valid.next = self.dl_v.val();
        self.dlv_slot.next = self.dl_s.val();
        self.dlv_len.next = bit_cast::<32, 13>(self.slots.reads.dlv_limit.val());
        self.snd_valid.next = self.o_snd_valid.q.val();
        self.snd_type.next = self.o_snd_type.q.val();
        self.snd_peer.next = self.o_snd_peer.q.val();
        self.snd_msg_id.next = self.o_snd_msg_id.q.val();
        self.snd_len.next = self.o_snd_len.q.val();
        self.snd_seq.next = self.o_snd_seq.q.val();
        self.snd_info.next = self.o_snd_info.q.val();
        self.snd_msg_num.next = self.o_snd_msg_num.q.val();
        self.cnt_crc.next = self.counters.count[0].val();
        self.cnt_truncated.next = self.counters.count[1].val();
        self.cnt_malformed.next = self.counters.count[2].val();
        self.cnt_misrouted.next = self.counters.count[3].val();
        self.cnt_version.next = self.counters.count[4].val();
        self.cnt_not_source.next = self.counters.count[5].val();
        self.cnt_order.next = self.counters.count[6].val();
        self.cnt_sequence.next = self.counters.count[7].val();
        self.cnt_table_full.next = self.counters.count[8].val();
        self.cnt_unknown.next = self.counters.count[9].val();
        self.cnt_duplicate.next = self.counters.count[10].val();
        self.cnt_busy.next = self.counters.count[11].val();
        self.cnt_restart.next = self.counters.count[12].val();
    }
}

/// Declares [`RmppRx`] with the receive path's host ports of [`with_host_ports`]'s list.
macro_rules! rmpp_rx_with_transmitter {
    (
        ni: $_ni:tt,
        rx: {
            inputs: { $($_input_node:ident = $input:ident: $input_type:ty),* $(,)? },
            outputs: { $($_output_node:ident = $output:ident: $output_type:ty),* $(,)? } $(,)?
        },
        $($_others:tt)*
    ) => {
        with_transmitter! {
            /// One RMPP receive path (docs/protocol.md §11): an [`RmppRxCore`] with a
            /// [`idemnet_rtl::worm_transmitter::WormTransmitter`] of its own ([`crate::standalone`]); the
            /// timing below is the core's with the transmitter's.
            ///
            /// Ports (Verilog names, in this order after `clock`):
            ///
            /// | port | dir | width | |
            /// |------|-----|-------|-|
            /// | `clock` | in | 1 | |
            /// | `net_in` | in | 35 | flits from the fabric; one is sunk every cycle |
            /// | `tx_gnt` | in | 1 | the transmitter may start a worm this cycle (§13.2; tie high when alone) |
            /// | `up_ready`, `up_accept` | in | 1, 32 | the upper layer takes the upcall, and its answer (bytes accepted) |
            /// | `dlv_ready` | in | 1 | the upper layer takes the delivery |
            /// | `rd_slot`, `rd_word` | in | 4, 10 | buffer read address |
            /// | `net_out` | out | 35 | CTS, MSGEND, MSGDROP worms |
            /// | `tx_req` | out | 1 | idle with a reply due |
            /// | `up_valid`, `up_slot`, `up_src`, `up_msg_id`, `up_msg_num`, `up_len` | out | 1, 4, 16, 32, 32, 32 | the upcall |
            /// | `dlv_valid`, `dlv_slot`, `dlv_len` | out | 1, 4, 32 | the delivery: the slot (whose upcall the upper layer took) and the accepted bytes |
            /// | `rd_data` | out | 32 | the buffer word read |
            /// | `snd_valid`, `snd_type`, `snd_peer`, `snd_msg_id`, `snd_len`, `snd_seq`, `snd_info`, `snd_msg_num` | out | 1, 4, 16, 32 x 5 | one-cycle pulse: a CTS, MSGEND or MSGDROP for the send side |
            /// | `cnt_crc` ... `cnt_restart` | out | 16 each | wrapping counters, in the order of `idemnet_spec::rmpp::COUNTERS` |
            ///
            /// Timing (§11.5): the core's ([`RmppRxCore`]: the packet acts at the edge after its CRC
            /// flit, the answer register two edges after the take at the earliest), and a worm
            /// picked in cycle `t` (idle, `tx_gnt`) has its head in `net_out` of `O_t`, then words
            /// 0-6 and the CRC.
            ///
            /// Every output is a register or a function of registers only (no path from an input port to an
            /// output port): `up_*` / `dlv_*` show the head of the upcall / delivery FIFO (slot number
            /// registers) and that slot's fields, zero when not valid; `snd_*` show the latched header of the
            /// packet whose CRC flit set the `snd_valid` register, zero otherwise; `rd_data` is the RAM's
            /// registered output under a registered byte mask; `tx_req` is the reply transmitter idle with a
            /// reply due.
            ///
            /// Internals, and what this block does where §11 is silent: [`RmppRxCore`]'s.
            RmppRx = RmppRxCore::new(cfg: &RmppConfig),
            header_words: idemnet_spec::rmpp::HEADER_WORDS,
            receives: net_in into receiver(cfg.node),
            inputs: { $($input: $input_type),* },
            outputs: { $($output: $output_type),* },
        }
    };
}

with_host_ports!(rmpp_rx_with_transmitter);
