//! The idempotent network interface of docs/protocol.md §8, as a rust-hdl block.

use idemnet_rtl::counter_bank::CounterBank;
use idemnet_rtl::fifo::Memory;
use idemnet_rtl::first_set::FirstSet;
use idemnet_rtl::request_reader::RequestReader;
use idemnet_rtl::worm_receiver::{ReceivedWorm, WormVerdict};
use idemnet_spec::ni::{NiConfig, COUNTERS, PAYLOAD_WORDS};
use rust_hdl::prelude::*;

use crate::host_ports::with_host_ports;
use crate::standalone::with_transmitter;

/// The NI's port table and its host port names (§8.2), from the contract's one copy.
pub use idemnet_spec::ni::{HOST_INPUTS, HOST_OUTPUTS, PORTS};

/// Header words of an NI packet after its route (§8.1): the header (`type`, `len`) and the uid.
pub const HEADER_WORDS: usize = 2;

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
/// | `worm_start` | in | 1 | the transmitter starts this NI's worm at this edge: the first due packet in priority is picked |
/// | `worm_header_valid`, `worm_payload_valid`, `worm_index` | in | 1, 1, 4 | the transmitter asks for header / payload word `worm_index` |
/// | `worm_fetch_index` | in | 4 | the payload word asked for in the next cycle (read from block RAM a cycle ahead) |
/// | `req_valid`, `req_data`, `req_last` | in | 1, 32, 1 | the request stream (§8.5) |
/// | `req_dst`, `req_len` | in | 16, 6 | read on a request's first beat |
/// | `dlv_ready` | in | 1 | the host takes the delivery beat shown |
/// | `worm_due` | out | 1 | a worm is due (combinational from registers) |
/// | `worm_word` | out | 32 | the word asked for: the route at `worm_start`, then header word 0 (type, length), header word 1 (the uid), the payload words; zero when none is asked for |
/// | `worm_payload_words` | out | 4 | the payload words of the worm being sent (from its latched length) |
/// | `req_ready` | out | 1 | a send slot is free: beats are taken (0 before the first edge) |
/// | `dlv_valid`, `dlv_data`, `dlv_last` | out | 1, 32, 1 | the delivery stream (§8.4) |
/// | `dlv_src`, `dlv_uid`, `dlv_len` | out | 16, 32, 6 | the datagram delivered, held through its beats |
/// | `done_valid`, `done_uid` | out | 1, 32 | one-cycle pulse: a send completed |
/// | `cnt_crc` ... `cnt_host_error` | out | 16 each | wrapping event counters (§8.2) |
///
/// Timing: every output is a register but `worm_due` (from registers only), `worm_word`
/// (combinational from the `worm_*` inputs, the registers and the send memory's read register)
/// and `dlv_data`, the receive memory's read register gated by the `dlv_len` register (zero for
/// a zero-length datagram and between datagrams). A request beat is taken in cycle `t` when
/// `req_valid` and `req_ready` (`O_(t-1)`); a delivery beat when `dlv_valid` (`O_(t-1)`) and
/// `dlv_ready`, and the next beat is in `O_t`. The flit on `net_in` in cycle `t` is consumed at
/// edge `t`; a SEND whose CRC flit arrives in cycle `t` is delivered at edge `t` (its first beat
/// in `O_t`). A worm started in cycle `t` is the packet picked at edge `t`; its fields are
/// latched then, so the words it is asked for later are its own.
///
/// Internals: the framing is the worm cells': `receiver` ([`WormReceiver`], §8.3) presents the
/// header word, the uid and the payload words by index and ends each worm with its verdict, and
/// the transmitter (§8.5) asks for the route, the header, the uid and the
/// payload words by index; `requests` ([`RequestReader`]) reads the request stream. Payloads
/// live in two block RAMs ([`Memory::block`]): the send slots' words (8 a slot), written beat by
/// beat as a request streams in and read by the transmitter at its `fetch_index`, a cycle
/// ahead; and two receive banks of 8 words, an arriving SEND written word by word into the
/// bank not being delivered, the delivered bank read at the beat after the one being taken.
/// Neither reads a word at the edge that writes it when the word read matters: the transmitter
/// reads busy slots and requests write free ones; the delivery reads the bank the receiver
/// does not write, and between datagrams word 0 of the one it writes, which no flit writes at the edge
/// that delivers (the CRC flit's). The "lowest slot first" picks are
/// [`FirstSet`]s over the slot masks, the counters a [`CounterBank`]; decisions read only
/// register outputs (the state before the edge), as §8.4 requires. A uid's owner is compared
/// with the route's `src` and with `node` when the uid word arrives, keeping one bit for each
/// instead of the field; every uid stored is then rebuilt from the route or the node number.
/// The receive slots' uids are compared with the arriving one then too, a cycle or more before
/// the worm's verdict needs the result: the slots change only when a worm ends, so the match
/// kept (`arriving_match`) is the one of the state before the verdict's edge, and the 32-bit
/// compares are off the path from the CRC flit to the slots.
#[derive(LogicBlock)]
pub struct NiCore {
    pub clock: Signal<In, Clock>,
    pub receiver: ReceivedWorm,
    pub worm_start: Signal<In, Bit>,
    pub worm_header_valid: Signal<In, Bit>,
    pub worm_payload_valid: Signal<In, Bit>,
    pub worm_index: Signal<In, Bits<4>>,
    pub worm_fetch_index: Signal<In, Bits<4>>,
    pub req_valid: Signal<In, Bit>,
    pub req_data: Signal<In, Bits<32>>,
    pub req_last: Signal<In, Bit>,
    pub req_dst: Signal<In, Bits<16>>,
    pub req_len: Signal<In, Bits<6>>,
    pub dlv_ready: Signal<In, Bit>,
    pub worm_due: Signal<Out, Bit>,
    pub worm_word: Signal<Out, Bits<32>>,
    pub worm_payload_words: Signal<Out, Bits<4>>,
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
    pub cnt_not_source: Signal<Out, Bits<16>>,
    pub cnt_table_full: Signal<Out, Bits<16>>,
    pub cnt_unknown: Signal<Out, Bits<16>>,
    pub cnt_busy: Signal<Out, Bits<16>>,
    pub cnt_duplicate: Signal<Out, Bits<16>>,
    pub cnt_retransmit: Signal<Out, Bits<16>>,
    pub cnt_host_error: Signal<Out, Bits<16>>,
    // The cells.
    send_payloads: Memory<Bits<32>, SEND_ADDRESS_BITS>,
    receive_payloads: Memory<Bits<32>, RECEIVE_ADDRESS_BITS>,
    free_send_slot: FirstSet<SLOTS, SLOT_BITS>,
    forget_send_slot: FirstSet<SLOTS, SLOT_BITS>,
    due_send_slot: FirstSet<SLOTS, SLOT_BITS>,
    free_receive_slot: FirstSet<SLOTS, SLOT_BITS>,
    due_receive_slot: FirstSet<SLOTS, SLOT_BITS>,
    requests: RequestReader,
    counters: CounterBank<{ COUNTERS.len() }, COUNTER_SOURCES, COUNTER_BITS, 16>,
    // Send slots.
    send_state: Vec<DFF<SendState>>,
    send_counter: Vec<DFF<Bits<16>>>,
    send_destination: Vec<DFF<Bits<16>>>,
    send_length: Vec<DFF<Bits<6>>>,
    send_timer: Vec<DFF<Bits<16>>>,
    /// `send_timer` is not zero, kept in a flip-flop so that the due mask starts from one.
    send_timer_running: Vec<DFF<Bit>>,
    send_transmitted: Vec<DFF<Bit>>,
    // Receive slots.
    receive_active: Vec<DFF<Bit>>,
    receive_uid: Vec<DFF<Bits<32>>>,
    receive_timer: Vec<DFF<Bits<16>>>,
    /// `receive_timer` is not zero (as `send_timer_running`).
    receive_timer_running: Vec<DFF<Bit>>,
    uid_counter: DFF<Bits<16>>,
    late_forget_valid: DFF<Bit>,
    late_forget_counter: DFF<Bits<16>>,
    late_forget_destination: DFF<Bits<16>>,
    // The request stream: the slot and destination of a request, latched at its first beat.
    request_slot: DFF<Bits<SLOT_BITS>>,
    request_destination: DFF<Bits<16>>,
    request_ready: DFF<Bit>,
    // The packet in reception.
    arriving_kind: DFF<Bits<2>>,
    arriving_length: DFF<Bits<6>>,
    arriving_counter: DFF<Bits<16>>,
    arriving_owner_is_source: DFF<Bit>,
    arriving_owner_is_node: DFF<Bit>,
    /// The receive slots holding the arriving uid, compared when the uid word arrives.
    arriving_match: DFF<Bits<SLOTS>>,
    receive_bank: DFF<Bits<1>>,
    // The delivery stream.
    delivery_valid: DFF<Bit>,
    delivery_source: DFF<Bits<16>>,
    delivery_uid: DFF<Bits<32>>,
    delivery_length: DFF<Bits<6>>,
    delivery_beat: DFF<Bits<3>>,
    delivery_last: DFF<Bit>,
    // The packet in transmission.
    outgoing_kind: DFF<Bits<2>>,
    outgoing_length: DFF<Bits<6>>,
    outgoing_uid: DFF<Bits<32>>,
    outgoing_slot: DFF<Bits<SLOT_BITS>>,
    completion_valid: DFF<Bit>,
    completion_uid: DFF<Bits<32>>,
    // Combinational temporaries.
    probe: Signal<Local, Bits<SLOTS>>,
    send_free: Signal<Local, Bits<SLOTS>>,
    send_forget: Signal<Local, Bits<SLOTS>>,
    send_due: Signal<Local, Bits<SLOTS>>,
    send_acknowledged: Signal<Local, Bits<SLOTS>>,
    send_committed: Signal<Local, Bits<SLOTS>>,
    send_freed: Signal<Local, Bits<SLOTS>>,
    receive_free: Signal<Local, Bits<SLOTS>>,
    receive_due: Signal<Local, Bits<SLOTS>>,
    receive_match: Signal<Local, Bits<SLOTS>>,
    /// The uid of the uid word the receiver presents, its owner the route's `src`.
    presented_uid: Signal<Local, Bits<32>>,
    presented_counter: Signal<Local, Bits<16>>,
    request_bytes_left: Signal<Local, Bits<6>>,
    request_word_mask: Signal<Local, Bits<32>>,
    commit_slot: Signal<Local, Bits<SLOT_BITS>>,
    header_malformed: Signal<Local, Bit>,
    arrived: Signal<Local, Bit>,
    arriving_uid: Signal<Local, Bits<32>>,
    arriving_words: Signal<Local, Bits<6>>,
    /// The payload word the receiver presents, and the one the transmitter fetches (a payload
    /// has at most 8 words, the low 3 bits of the cells' index; named, as rust-hdl cannot
    /// widen a slice without a width warning).
    arriving_word: Signal<Local, Bits<3>>,
    fetch_word: Signal<Local, Bits<3>>,
    delivery_taken: Signal<Local, Bit>,
    /// The bank being delivered: the other one (a named one bit wide, since Verilog would
    /// widen the operand of a `~` inside a wider expression).
    delivered_bank: Signal<Local, Bits<1>>,
    delivery_next_beat: Signal<Local, Bits<3>>,
    delivery_beats: Signal<Local, Bits<6>>,
    pick_kind: Signal<Local, Bits<2>>,
    pick_destination: Signal<Local, Bits<16>>,
    pick_uid: Signal<Local, Bits<32>>,
    pick_counter: Signal<Local, Bits<16>>,
    pick_length: Signal<Local, Bits<6>>,
    outgoing_word: Signal<Local, Bits<32>>,
    outgoing_words: Signal<Local, Bits<6>>,
    // One strobe per counter (`cut` is `truncated`'s second source).
    count_crc: Signal<Local, Bit>,
    count_truncated: Signal<Local, Bit>,
    count_cut: Signal<Local, Bit>,
    count_malformed: Signal<Local, Bit>,
    count_misrouted: Signal<Local, Bit>,
    count_not_source: Signal<Local, Bit>,
    count_table_full: Signal<Local, Bit>,
    count_unknown: Signal<Local, Bit>,
    count_busy: Signal<Local, Bit>,
    count_duplicate: Signal<Local, Bit>,
    count_retransmit: Signal<Local, Bit>,
    count_host_error: Signal<Local, Bit>,
    // Parameters.
    node: Constant<Bits<16>>,
    node_upper: Constant<Bits<32>>,
    retry_reload: Constant<Bits<16>>,
    ack_reload: Constant<Bits<16>>,
    retry_mask: Constant<Bits<16>>,
    ack_mask: Constant<Bits<16>>,
    /// The reloads are not zero (an interval of one cycle reloads zero).
    retry_reload_running: Constant<Bit>,
    ack_reload_running: Constant<Bit>,
    /// The counter each source of the counter bank counts.
    source_counter: Vec<Constant<Bits<COUNTER_BITS>>>,
    // Named values (rust-hdl writes integer literals 32 bits wide, so narrower ones are here).
    timer_expired: Constant<Bits<16>>,
    timer_step: Constant<Bits<16>>,
    /// The bits of a timer above its lowest: a timer counting down from them is not zero after
    /// the edge.
    timer_above_one: Constant<Bits<16>>,
    slot_none: Constant<Bits<SLOTS>>,
    slot_lowest: Constant<Bits<SLOTS>>,
    empty_node: Constant<Bits<16>>,
    empty_len: Constant<Bits<6>>,
    first_beat: Constant<Bits<3>>,
    least_beats: Constant<Bits<6>>,
    whole_word: Constant<Bits<32>>,
    word_bytes: Constant<Bits<6>>,
    len_max: Constant<Bits<6>>,
    word_round_up: Constant<Bits<6>>,
    kind_send: Constant<Bits<2>>,
    kind_ack: Constant<Bits<2>>,
    kind_forget: Constant<Bits<2>>,
    kind_malformed: Constant<Bits<2>>,
    _send_slots: usize,
    _receive_slots: usize,
}

fn vec_of<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
}

fn c<const N: usize>(x: u64) -> Constant<Bits<N>> {
    Constant::new(Bits::from(x))
}

/// The bits a timer reloaded with `interval - 1` ever uses. Masking the count down to them
/// keeps the higher flip-flops at 0, so synthesis removes them and their borrow chain.
fn timer_mask(interval: u16) -> u64 {
    let reload = interval.saturating_sub(1) as u64;
    (1u64 << (64 - reload.leading_zeros())) - 1
}

impl NiCore {
    /// The core of an NI with the parameters of `cfg` (validated by the caller: see [`crate::ni`]).
    pub fn new(cfg: &NiConfig) -> Self {
        let (send_slots, receive_slots) = (cfg.send_slots, cfg.recv_slots);
        assert!(send_slots <= SLOTS && receive_slots <= SLOTS);
        // Source `s` counts counter `s`; the extra source counts `truncated` again.
        let truncated = idemnet_spec::ni::cnt::TRUNCATED;
        let source_counter = (0..COUNTERS.len())
            .chain([truncated])
            .map(|counter| c(counter as u64))
            .collect();
        Self {
            clock: Default::default(),
            receiver: Default::default(),
            worm_start: Default::default(),
            worm_header_valid: Default::default(),
            worm_payload_valid: Default::default(),
            worm_index: Default::default(),
            worm_fetch_index: Default::default(),
            req_valid: Default::default(),
            req_data: Default::default(),
            req_last: Default::default(),
            req_dst: Default::default(),
            req_len: Default::default(),
            dlv_ready: Default::default(),
            worm_due: Default::default(),
            worm_word: Default::default(),
            worm_payload_words: Default::default(),
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
            cnt_not_source: Default::default(),
            cnt_table_full: Default::default(),
            cnt_unknown: Default::default(),
            cnt_busy: Default::default(),
            cnt_duplicate: Default::default(),
            cnt_retransmit: Default::default(),
            cnt_host_error: Default::default(),
            send_payloads: Memory::block(SLOTS * PAYLOAD_WORDS),
            receive_payloads: Memory::block(2 * PAYLOAD_WORDS),
            free_send_slot: FirstSet::new(),
            forget_send_slot: FirstSet::new(),
            due_send_slot: FirstSet::new(),
            free_receive_slot: FirstSet::new(),
            due_receive_slot: FirstSet::new(),
            requests: Default::default(),
            counters: CounterBank::new(false),
            send_state: vec_of(send_slots),
            send_counter: vec_of(send_slots),
            send_destination: vec_of(send_slots),
            send_length: vec_of(send_slots),
            send_timer: vec_of(send_slots),
            send_timer_running: vec_of(send_slots),
            send_transmitted: vec_of(send_slots),
            receive_active: vec_of(receive_slots),
            receive_uid: vec_of(receive_slots),
            receive_timer: vec_of(receive_slots),
            receive_timer_running: vec_of(receive_slots),
            uid_counter: Default::default(),
            late_forget_valid: Default::default(),
            late_forget_counter: Default::default(),
            late_forget_destination: Default::default(),
            request_slot: Default::default(),
            request_destination: Default::default(),
            request_ready: Default::default(),
            arriving_kind: Default::default(),
            arriving_length: Default::default(),
            arriving_counter: Default::default(),
            arriving_owner_is_source: Default::default(),
            arriving_owner_is_node: Default::default(),
            arriving_match: Default::default(),
            receive_bank: Default::default(),
            delivery_valid: Default::default(),
            delivery_source: Default::default(),
            delivery_uid: Default::default(),
            delivery_length: Default::default(),
            delivery_beat: Default::default(),
            delivery_last: Default::default(),
            outgoing_kind: Default::default(),
            outgoing_length: Default::default(),
            outgoing_uid: Default::default(),
            outgoing_slot: Default::default(),
            completion_valid: Default::default(),
            completion_uid: Default::default(),
            probe: Default::default(),
            send_free: Default::default(),
            send_forget: Default::default(),
            send_due: Default::default(),
            send_acknowledged: Default::default(),
            send_committed: Default::default(),
            send_freed: Default::default(),
            receive_free: Default::default(),
            receive_due: Default::default(),
            receive_match: Default::default(),
            presented_uid: Default::default(),
            presented_counter: Default::default(),
            request_bytes_left: Default::default(),
            request_word_mask: Default::default(),
            commit_slot: Default::default(),
            header_malformed: Default::default(),
            arrived: Default::default(),
            arriving_uid: Default::default(),
            arriving_words: Default::default(),
            arriving_word: Default::default(),
            fetch_word: Default::default(),
            delivery_taken: Default::default(),
            delivered_bank: Default::default(),
            delivery_next_beat: Default::default(),
            delivery_beats: Default::default(),
            pick_kind: Default::default(),
            pick_destination: Default::default(),
            pick_uid: Default::default(),
            pick_counter: Default::default(),
            pick_length: Default::default(),
            outgoing_word: Default::default(),
            outgoing_words: Default::default(),
            count_crc: Default::default(),
            count_truncated: Default::default(),
            count_cut: Default::default(),
            count_malformed: Default::default(),
            count_misrouted: Default::default(),
            count_not_source: Default::default(),
            count_table_full: Default::default(),
            count_unknown: Default::default(),
            count_busy: Default::default(),
            count_duplicate: Default::default(),
            count_retransmit: Default::default(),
            count_host_error: Default::default(),
            node: c(cfg.node as u64),
            node_upper: c((cfg.node as u64) << 16),
            retry_reload: c(cfg.retry_interval as u64 - 1),
            ack_reload: c(cfg.ack_interval as u64 - 1),
            retry_mask: c(timer_mask(cfg.retry_interval)),
            ack_mask: c(timer_mask(cfg.ack_interval)),
            retry_reload_running: Constant::new(cfg.retry_interval > 1),
            ack_reload_running: Constant::new(cfg.ack_interval > 1),
            source_counter,
            timer_expired: c(0),
            timer_step: c(1),
            timer_above_one: c(0xFFFE),
            slot_none: c(0),
            slot_lowest: c(1),
            empty_node: c(0),
            empty_len: c(0),
            first_beat: c(0),
            least_beats: c(1),
            whole_word: c(0xFFFF_FFFF),
            word_bytes: c(4),
            len_max: c(32),
            word_round_up: c(3),
            kind_send: c(0),
            kind_ack: c(1),
            kind_forget: c(2),
            kind_malformed: c(3),
            _send_slots: send_slots,
            _receive_slots: receive_slots,
        }
    }
}

impl Logic for NiCore {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- Registers hold by default; timers count down; pulses fall.
        for s in 0..self._send_slots {
            self.send_state[s].clock.next = self.clock.val();
            self.send_counter[s].clock.next = self.clock.val();
            self.send_destination[s].clock.next = self.clock.val();
            self.send_length[s].clock.next = self.clock.val();
            self.send_timer[s].clock.next = self.clock.val();
            self.send_transmitted[s].clock.next = self.clock.val();
            self.send_state[s].d.next = self.send_state[s].q.val();
            self.send_counter[s].d.next = self.send_counter[s].q.val();
            self.send_destination[s].d.next = self.send_destination[s].q.val();
            self.send_length[s].d.next = self.send_length[s].q.val();
            self.send_transmitted[s].d.next = self.send_transmitted[s].q.val();
            self.send_timer[s].d.next = self.send_timer[s].q.val();
            self.send_timer_running[s].clock.next = self.clock.val();
            self.send_timer_running[s].d.next =
                (self.send_timer[s].q.val() & self.timer_above_one.val()).any();
            if self.send_timer[s].q.val().any() {
                self.send_timer[s].d.next =
                    (self.send_timer[s].q.val() - self.timer_step.val()) & self.retry_mask.val();
            }
        }
        for r in 0..self._receive_slots {
            self.receive_active[r].clock.next = self.clock.val();
            self.receive_uid[r].clock.next = self.clock.val();
            self.receive_timer[r].clock.next = self.clock.val();
            self.receive_active[r].d.next = self.receive_active[r].q.val();
            self.receive_uid[r].d.next = self.receive_uid[r].q.val();
            self.receive_timer[r].d.next = self.receive_timer[r].q.val();
            self.receive_timer_running[r].clock.next = self.clock.val();
            self.receive_timer_running[r].d.next =
                (self.receive_timer[r].q.val() & self.timer_above_one.val()).any();
            if self.receive_timer[r].q.val().any() {
                self.receive_timer[r].d.next =
                    (self.receive_timer[r].q.val() - self.timer_step.val()) & self.ack_mask.val();
            }
        }
        dff_setup!(
            self,
            clock,
            uid_counter,
            late_forget_valid,
            late_forget_counter,
            late_forget_destination,
            request_slot,
            request_destination,
            request_ready,
            arriving_kind,
            arriving_length,
            arriving_counter,
            arriving_owner_is_source,
            arriving_owner_is_node,
            arriving_match,
            receive_bank,
            delivery_valid,
            delivery_source,
            delivery_uid,
            delivery_length,
            delivery_beat,
            delivery_last,
            outgoing_kind,
            outgoing_length,
            outgoing_uid,
            outgoing_slot
        );
        self.send_payloads.clock.next = self.clock.val();
        self.receive_payloads.clock.next = self.clock.val();
        self.requests.clock.next = self.clock.val();
        self.counters.clock.next = self.clock.val();
        self.completion_valid.clock.next = self.clock.val();
        self.completion_valid.d.next = false;
        self.completion_uid.clock.next = self.clock.val();
        self.completion_uid.d.next = 0.into();

        // The uid of a SEND or FORGET whose owner is its source (only those use it whole).
        self.presented_counter.next = self.receiver.word.val().get_bits::<16>(0);
        self.presented_uid.next = (bit_cast::<32, 16>(self.receiver.source.val()) << 16)
            | bit_cast::<32, 16>(self.presented_counter.val());
        self.arriving_uid.next = (bit_cast::<32, 16>(self.receiver.source.val()) << 16)
            | bit_cast::<32, 16>(self.arriving_counter.q.val());
        // Payload words of the packet in reception / transmission: ceil(len / 4).
        self.arriving_words.next = (self.arriving_length.q.val() + self.word_round_up.val()) >> 2;
        self.outgoing_words.next = (self.outgoing_length.q.val() + self.word_round_up.val()) >> 2;

        // ---- Slot masks over the state before the edge; the pickers take the lowest.
        self.send_free.next = self.slot_none.val();
        self.send_forget.next = self.slot_none.val();
        self.send_due.next = self.slot_none.val();
        self.send_acknowledged.next = self.slot_none.val();
        self.probe.next = self.slot_lowest.val();
        for s in 0..self._send_slots {
            if self.send_state[s].q.val() == SendState::Free {
                self.send_free.next = self.send_free.val() | self.probe.val();
            }
            if self.send_state[s].q.val() == SendState::ForgetPending {
                self.send_forget.next = self.send_forget.val() | self.probe.val();
            }
            if (self.send_state[s].q.val() == SendState::Waiting)
                & !self.send_timer_running[s].q.val()
            {
                self.send_due.next = self.send_due.val() | self.probe.val();
            }
            // Counters are unique among busy slots, so at most one slot matches.
            if (self.send_state[s].q.val() != SendState::Free)
                & (self.send_counter[s].q.val() == self.arriving_counter.q.val())
            {
                self.send_acknowledged.next = self.send_acknowledged.val() | self.probe.val();
            }
            self.probe.next = self.probe.val() << 1;
        }
        self.receive_free.next = self.slot_none.val();
        self.receive_due.next = self.slot_none.val();
        self.receive_match.next = self.slot_none.val();
        self.probe.next = self.slot_lowest.val();
        for r in 0..self._receive_slots {
            if !self.receive_active[r].q.val() {
                self.receive_free.next = self.receive_free.val() | self.probe.val();
            }
            if self.receive_active[r].q.val() & !self.receive_timer_running[r].q.val() {
                self.receive_due.next = self.receive_due.val() | self.probe.val();
            }
            // A held uid is never taken into a second slot, so at most one slot matches.
            if self.receive_active[r].q.val()
                & (self.receive_uid[r].q.val() == self.presented_uid.val())
            {
                self.receive_match.next = self.receive_match.val() | self.probe.val();
            }
            self.probe.next = self.probe.val() << 1;
        }
        self.free_send_slot.mask.next = self.send_free.val();
        self.forget_send_slot.mask.next = self.send_forget.val();
        self.due_send_slot.mask.next = self.send_due.val();
        self.free_receive_slot.mask.next = self.receive_free.val();
        self.due_receive_slot.mask.next = self.receive_due.val();

        // ---- Counter strobes: none unless an event below raises one.
        self.count_crc.next = false;
        self.count_truncated.next = false;
        self.count_cut.next = false;
        self.count_malformed.next = false;
        self.count_misrouted.next = false;
        self.count_not_source.next = false;
        self.count_table_full.next = false;
        self.count_unknown.next = false;
        self.count_busy.next = false;
        self.count_duplicate.next = false;
        self.count_retransmit.next = false;

        // ---- The delivery stream (§8.4): a taken beat shows the next, the last one ends it
        // (every dlv_* register to zero).
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

        // ---- The request stream (§8.5): the slot is chosen at the first beat, the words go
        // into its payload as they come, and it is committed at the last beat of a
        // well-formed request.
        self.requests.taken.next = self.req_valid.val() & self.request_ready.q.val();
        self.requests.last.next = self.req_last.val();
        self.requests.length.next = self.req_len.val();
        self.commit_slot.next = self.request_slot.q.val();
        if self.requests.first.val() {
            self.commit_slot.next = self.free_send_slot.index.val();
        }
        if self.requests.taken.val() & self.requests.first.val() {
            self.request_slot.d.next = self.commit_slot.val();
            self.request_destination.d.next = self.req_dst.val();
        }
        // Bytes at or past the length are sent as zero (§8.1): the beat's word keeps the
        // bytes left of the payload, all four if there are that many.
        self.request_bytes_left.next =
            self.requests.bytes.val() - (bit_cast::<6, 3>(self.requests.beat.val()) << 2);
        self.request_word_mask.next = self.whole_word.val();
        if self.request_bytes_left.val() < self.word_bytes.val() {
            self.request_word_mask.next =
                !(self.whole_word.val() >> (self.request_bytes_left.val() << 3));
        }
        self.send_payloads.write_enable.next =
            self.requests.taken.val() & self.requests.accepted.val();
        self.send_payloads.write_address.next =
            (bit_cast::<SEND_ADDRESS_BITS, SLOT_BITS>(self.commit_slot.val()) << 3)
                | bit_cast::<SEND_ADDRESS_BITS, 3>(self.requests.beat.val());
        self.send_payloads.write_data.next = self.req_data.val() & self.request_word_mask.val();
        self.count_host_error.next = self.requests.refused.val();
        // A request of one beat is committed from the ports, a longer one from its latches.
        self.send_committed.next = self.slot_none.val();
        self.probe.next = self.slot_lowest.val();
        if self.requests.complete.val() {
            self.uid_counter.d.next = self.uid_counter.q.val() + true;
            for s in 0..self._send_slots {
                if self.commit_slot.val() == s.to_bits() {
                    self.send_committed.next = self.probe.val();
                    self.send_state[s].d.next = SendState::Waiting;
                    self.send_counter[s].d.next = self.uid_counter.q.val();
                    self.send_destination[s].d.next = self.request_destination.q.val();
                    if self.requests.first.val() {
                        self.send_destination[s].d.next = self.req_dst.val();
                    }
                    self.send_length[s].d.next = self.requests.bytes.val();
                    self.send_timer[s].d.next = self.timer_expired.val();
                    self.send_timer_running[s].d.next = false;
                    self.send_transmitted[s].d.next = false;
                }
                self.probe.next = self.probe.val() << 1;
            }
        }

        // ---- Receive path (§8.3): the receiver frames, the NI reads header word 0 (type,
        // length) and header word 1 (the uid), and the payload words go into the bank not
        // being delivered.
        self.header_malformed.next = (self.receiver.word.val().get_bits::<2>(30)
            == self.kind_malformed.val())
            | (self.receiver.word.val() & 0x00FF_FFFF).any()
            | (self.receiver.word.val().get_bits::<6>(24) > self.len_max.val())
            | (self.receiver.word.val().get_bits::<2>(30).any()
                & self.receiver.word.val().get_bits::<6>(24).any());
        self.receiver.reject.next = !self.receiver.index.val().any() & self.header_malformed.val();
        self.receiver.payload_words.next = self.arriving_words.val().get_bits::<4>(0);
        if self.receiver.header_valid.val() {
            if !self.receiver.index.val().any() {
                self.arriving_kind.d.next = self.receiver.word.val().get_bits::<2>(30);
                self.arriving_length.d.next = self.receiver.word.val().get_bits::<6>(24);
            } else {
                // The owner is checked against the route now, so only the counter half is
                // kept: an accepted uid's owner is the source (SEND, FORGET) or `node` (ACK).
                self.arriving_counter.d.next = self.receiver.word.val().get_bits::<16>(0);
                self.arriving_owner_is_source.d.next =
                    self.receiver.word.val().get_bits::<16>(16) == self.receiver.source.val();
                self.arriving_owner_is_node.d.next =
                    self.receiver.word.val().get_bits::<16>(16) == self.node.val();
                // Compared now, not when the worm ends: receive slots change only when a worm
                // ends, and this one cannot end before the next edge.
                self.arriving_match.d.next = self.receive_match.val();
            }
        }
        self.receive_payloads.write_enable.next = self.receiver.payload_valid.val();
        self.arriving_word.next = self.receiver.index.val().get_bits::<3>(0);
        self.receive_payloads.write_address.next =
            (bit_cast::<RECEIVE_ADDRESS_BITS, 1>(self.receive_bank.q.val()) << 3)
                | bit_cast::<RECEIVE_ADDRESS_BITS, 3>(self.arriving_word.val());
        self.receive_payloads.write_data.next = self.receiver.word.val();
        // A head that is also a tail, cutting a worm short, ends two worms at once.
        self.count_cut.next = self.receiver.cut.val();
        self.arrived.next = false;
        if self.receiver.worm_end.val() {
            match self.receiver.verdict.val() {
                WormVerdict::Ok => {
                    self.arrived.next = true;
                }
                WormVerdict::Crc => {
                    self.count_crc.next = true;
                }
                WormVerdict::Truncated => {
                    self.count_truncated.next = true;
                }
                WormVerdict::Malformed => {
                    self.count_malformed.next = true;
                }
                WormVerdict::Misrouted => {
                    self.count_misrouted.next = true;
                }
                _ => {}
            }
        }

        // ---- What an arrived packet does (§8.4).
        if self.arrived.val() {
            if self.arriving_kind.q.val() == self.kind_send.val() {
                if !self.arriving_owner_is_source.q.val() {
                    self.count_not_source.next = true;
                } else if self.arriving_match.q.val().any() {
                    self.count_duplicate.next = true;
                } else if self.free_receive_slot.any.val() & !self.delivery_valid.q.val() {
                    for r in 0..self._receive_slots {
                        if self.free_receive_slot.one_hot.val().get_bit(r) {
                            self.receive_active[r].d.next = true;
                            self.receive_uid[r].d.next = self.arriving_uid.val();
                            self.receive_timer[r].d.next = self.timer_expired.val();
                            self.receive_timer_running[r].d.next = false;
                        }
                    }
                    // Its words are in the bank written so far, which is delivered now; the
                    // next SEND goes into the other.
                    self.receive_bank.d.next = !self.receive_bank.q.val();
                    self.delivery_valid.d.next = true;
                    self.delivery_source.d.next = self.receiver.source.val();
                    self.delivery_uid.d.next = self.arriving_uid.val();
                    self.delivery_length.d.next = self.arriving_length.q.val();
                    self.delivery_beat.d.next = self.first_beat.val();
                    self.delivery_last.d.next =
                        self.arriving_length.q.val() <= self.word_bytes.val();
                } else {
                    self.count_table_full.next = true;
                }
            } else if self.arriving_kind.q.val() == self.kind_ack.val() {
                if !self.arriving_owner_is_node.q.val() {
                    self.count_not_source.next = true;
                } else if self.send_acknowledged.val().any() {
                    for s in 0..self._send_slots {
                        if self.send_acknowledged.val().get_bit(s)
                            & (self.send_state[s].q.val() == SendState::Waiting)
                        {
                            self.send_state[s].d.next = SendState::ForgetPending;
                        }
                    }
                } else if !self.late_forget_valid.q.val() {
                    self.late_forget_valid.d.next = true;
                    self.late_forget_counter.d.next = self.arriving_counter.q.val();
                    self.late_forget_destination.d.next = self.receiver.source.val();
                } else {
                    self.count_busy.next = true;
                }
            } else {
                // FORGET
                if !self.arriving_owner_is_source.q.val() {
                    self.count_not_source.next = true;
                } else if self.arriving_match.q.val().any() {
                    for r in 0..self._receive_slots {
                        if self.arriving_match.q.val().get_bit(r) {
                            self.receive_active[r].d.next = false;
                        }
                    }
                } else {
                    self.count_unknown.next = true;
                }
            }
        }

        // ---- Transmitter (§8.5): when it starts a worm, the first due packet in priority.
        self.worm_due.next = self.late_forget_valid.q.val()
            | self.forget_send_slot.any.val()
            | self.due_receive_slot.any.val()
            | self.due_send_slot.any.val();
        self.worm_payload_words.next = self.outgoing_words.val().get_bits::<4>(0);
        self.send_freed.next = self.slot_none.val();
        self.pick_kind.next = self.kind_send.val();
        self.pick_destination.next = self.empty_node.val();
        self.pick_uid.next = 0.into();
        self.pick_counter.next = self.empty_node.val();
        self.pick_length.next = self.empty_len.val();
        if self.worm_start.val() {
            if self.late_forget_valid.q.val() {
                self.pick_kind.next = self.kind_forget.val();
                self.late_forget_valid.d.next = false;
                self.pick_destination.next = self.late_forget_destination.q.val();
                self.pick_uid.next =
                    self.node_upper.val() | bit_cast::<32, 16>(self.late_forget_counter.q.val());
            } else if self.forget_send_slot.any.val() {
                self.pick_kind.next = self.kind_forget.val();
                self.send_freed.next = self.forget_send_slot.one_hot.val();
                for s in 0..self._send_slots {
                    if self.forget_send_slot.one_hot.val().get_bit(s) {
                        self.send_state[s].d.next = SendState::Free;
                        self.pick_destination.next = self.send_destination[s].q.val();
                        self.pick_counter.next = self.send_counter[s].q.val();
                    }
                }
                self.pick_uid.next =
                    self.node_upper.val() | bit_cast::<32, 16>(self.pick_counter.val());
                self.completion_valid.d.next = true;
                self.completion_uid.d.next = self.pick_uid.val();
            } else if self.due_receive_slot.any.val() {
                self.pick_kind.next = self.kind_ack.val();
                for r in 0..self._receive_slots {
                    if self.due_receive_slot.one_hot.val().get_bit(r) {
                        self.receive_timer[r].d.next = self.ack_reload.val();
                        self.receive_timer_running[r].d.next = self.ack_reload_running.val();
                        self.pick_uid.next = self.receive_uid[r].q.val();
                        self.pick_destination.next = self.receive_uid[r].q.val().get_bits::<16>(16);
                    }
                }
            } else {
                // A SEND (`due` says one of the four is there).
                for s in 0..self._send_slots {
                    if self.due_send_slot.one_hot.val().get_bit(s) {
                        self.send_timer[s].d.next = self.retry_reload.val();
                        self.send_timer_running[s].d.next = self.retry_reload_running.val();
                        if self.send_transmitted[s].q.val() {
                            self.count_retransmit.next = true;
                        }
                        self.send_transmitted[s].d.next = true;
                        self.pick_destination.next = self.send_destination[s].q.val();
                        self.pick_counter.next = self.send_counter[s].q.val();
                        self.pick_length.next = self.send_length[s].q.val();
                    }
                }
                self.pick_uid.next =
                    self.node_upper.val() | bit_cast::<32, 16>(self.pick_counter.val());
            }
            self.outgoing_kind.d.next = self.pick_kind.val();
            self.outgoing_length.d.next = self.pick_length.val();
            self.outgoing_uid.d.next = self.pick_uid.val();
            self.outgoing_slot.d.next = self.due_send_slot.index.val();
        }
        self.fetch_word.next = self.worm_fetch_index.val().get_bits::<3>(0);
        // The SEND's payload is read a cycle ahead, at the word the transmitter asks for next;
        // its slot is busy until its FORGET, so the words cannot change meanwhile.
        self.send_payloads.read_address.next =
            (bit_cast::<SEND_ADDRESS_BITS, SLOT_BITS>(self.outgoing_slot.q.val()) << 3)
                | bit_cast::<SEND_ADDRESS_BITS, 3>(self.fetch_word.val());
        // The word the transmitter asks for: the route, header word 0 (type, length), header
        // word 1 (the uid), payload word `index` (the memory's read register).
        self.outgoing_word.next = 0.into();
        if self.worm_start.val() {
            self.outgoing_word.next =
                self.node_upper.val() | bit_cast::<32, 16>(self.pick_destination.val());
        }
        if self.worm_header_valid.val() {
            if !self.worm_index.val().any() {
                self.outgoing_word.next = (bit_cast::<32, 2>(self.outgoing_kind.q.val()) << 30)
                    | (bit_cast::<32, 6>(self.outgoing_length.q.val()) << 24);
            } else {
                self.outgoing_word.next = self.outgoing_uid.q.val();
            }
        }
        if self.worm_payload_valid.val() {
            self.outgoing_word.next = self.send_payloads.read_data.val();
        }
        self.worm_word.next = self.outgoing_word.val();

        // ---- req_ready after the edge: free before and not committed now, or freed now.
        self.request_ready.d.next =
            ((self.send_free.val() & !self.send_committed.val()) | self.send_freed.val()).any();

        // ---- The counters, in the order of idemnet_spec::ni::COUNTERS; source 11 is the
        // second `truncated`.
        self.counters.strobe[0].next = self.count_crc.val();
        self.counters.strobe[1].next = self.count_truncated.val();
        self.counters.strobe[2].next = self.count_malformed.val();
        self.counters.strobe[3].next = self.count_misrouted.val();
        self.counters.strobe[4].next = self.count_not_source.val();
        self.counters.strobe[5].next = self.count_table_full.val();
        self.counters.strobe[6].next = self.count_unknown.val();
        self.counters.strobe[7].next = self.count_busy.val();
        self.counters.strobe[8].next = self.count_duplicate.val();
        self.counters.strobe[9].next = self.count_retransmit.val();
        self.counters.strobe[10].next = self.count_host_error.val();
        self.counters.strobe[11].next = self.count_cut.val();
        for source in 0..COUNTER_SOURCES {
            self.counters.reason[source].next = self.source_counter[source].val();
        }

        // ---- Outputs.
        self.req_ready.next = self.request_ready.q.val();
        self.dlv_valid.next = self.delivery_valid.q.val();
        self.dlv_data.next = 0.into();
        if self.delivery_length.q.val().any() {
            self.dlv_data.next = self.receive_payloads.read_data.val();
        }
        self.dlv_last.next = self.delivery_last.q.val();
        self.dlv_src.next = self.delivery_source.q.val();
        self.dlv_uid.next = self.delivery_uid.q.val();
        self.dlv_len.next = self.delivery_length.q.val();
        self.done_valid.next = self.completion_valid.q.val();
        self.done_uid.next = self.completion_uid.q.val();
        self.cnt_crc.next = self.counters.count[0].val();
        self.cnt_truncated.next = self.counters.count[1].val();
        self.cnt_malformed.next = self.counters.count[2].val();
        self.cnt_misrouted.next = self.counters.count[3].val();
        self.cnt_not_source.next = self.counters.count[4].val();
        self.cnt_table_full.next = self.counters.count[5].val();
        self.cnt_unknown.next = self.counters.count[6].val();
        self.cnt_busy.next = self.counters.count[7].val();
        self.cnt_duplicate.next = self.counters.count[8].val();
        self.cnt_retransmit.next = self.counters.count[9].val();
        self.cnt_host_error.next = self.counters.count[10].val();
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
            /// only) and `dlv_data` (the core's). A worm picked in cycle `t` (the transmitter
            /// idle, a worm due, `tx_gnt`) has its head in `net_out` of `O_t` and its other
            /// flits in the following cycles, with no gap.
            Ni = NiCore::new(cfg: &NiConfig),
            header_words: HEADER_WORDS,
            receives: net_in into receiver(cfg.node),
            inputs: { $($input: $input_type),* },
            outputs: { $($output: $output_type),* },
            asks: {
                worm_start = start,
                worm_header_valid = header_valid,
                worm_payload_valid = payload_valid,
                worm_index = index,
                worm_fetch_index = fetch_index,
            },
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
            cnt::NOT_SOURCE,
            cnt::TABLE_FULL,
            cnt::UNKNOWN,
            cnt::BUSY,
            cnt::DUPLICATE,
            cnt::RETRANSMIT,
            cnt::HOST_ERROR,
        ];
        assert_eq!(order.to_vec(), (0..COUNTERS.len()).collect::<Vec<_>>());
        assert_eq!(COUNTER_SOURCES, 12);
    }
}
