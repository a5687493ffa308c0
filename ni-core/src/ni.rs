//! The idempotent network interface of docs/protocol.md §8, as a rust-hdl block.

use idemnet_rtl::flit::Flit;
use idemnet_rtl::worm_receiver::{WormReceiver, WormVerdict};
use idemnet_rtl::worm_transmitter::WormTransmitter;
use idemnet_spec::ni::NiConfig;
use rust_hdl::prelude::*;

/// The NI's host-side input ports, in port order (the system's and the self-test's port lists
/// repeat them per node).
pub const HOST_INPUTS: [&str; 5] = ["req_valid", "req_dst", "req_len", "req_data", "dlv_ready"];

/// The NI's host-side output ports, counters included, in port order.
pub const HOST_OUTPUTS: [&str; 18] = [
    "req_ready",
    "dlv_valid",
    "dlv_src",
    "dlv_uid",
    "dlv_len",
    "dlv_data",
    "done_valid",
    "done_uid",
    "cnt_crc",
    "cnt_truncated",
    "cnt_malformed",
    "cnt_misrouted",
    "cnt_not_source",
    "cnt_table_full",
    "cnt_unknown",
    "cnt_busy",
    "cnt_duplicate",
    "cnt_retransmit",
];

/// Header words of an NI packet after its route (§8.1): the header (`type`, `len`) and the uid.
pub const HEADER_WORDS: usize = 2;

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

/// One NI (docs/protocol.md §8).
///
/// Ports (Verilog names):
///
/// | port | dir | width | |
/// |------|-----|-------|-|
/// | `clock` | in | 1 | |
/// | `net_in` | in | 35 | flits from the fabric; one is sunk every cycle |
/// | `req_valid`, `req_dst`, `req_len`, `req_data` | in | 1, 16, 6, 256 | host request |
/// | `dlv_ready` | in | 1 | host takes the delivery |
/// | `tx_gnt` | in | 1 | the transmitter may start a worm this cycle (§13.2; tie high when alone) |
/// | `net_out` | out | 35 | flits into the fabric |
/// | `req_ready` | out | 1 | a send slot is free (0 before the first edge) |
/// | `dlv_valid`, `dlv_src`, `dlv_uid`, `dlv_len`, `dlv_data` | out | 1, 16, 32, 6, 256 | the delivery register |
/// | `done_valid`, `done_uid` | out | 1, 32 | one-cycle pulse: a send completed |
/// | `tx_req` | out | 1 | idle with a worm due (combinational from registers, §13.2) |
/// | `cnt_crc` ... `cnt_retransmit` | out | 16 each | wrapping event counters (§8.2) |
///
/// Timing: every output is a register. A request is accepted in cycle `t` when `req_valid` and
/// `req_ready` (as shown after edge `t-1`); a delivery is taken when `dlv_valid` (after `t-1`)
/// and `dlv_ready`. The flit on `net_in` in cycle `t` is consumed at edge `t`; a packet whose CRC
/// flit arrives in cycle `t` acts at edge `t` (so `dlv_valid` rises in `O_t`). A worm picked in
/// cycle `t` has its head in `net_out` of `O_t` and its other flits in the following cycles.
///
/// Internals: the framing is the worm cells': `receiver` ([`WormReceiver`], §8.3) presents the
/// header word, the uid and the payload words by index and ends each worm with its verdict, and
/// `transmitter` ([`WormTransmitter`], §8.5) asks for the route, the header, the uid and the
/// payload words by index. Per send slot `s_state` ([`SendState`]), `s_cnt`, `s_dst`, `s_len`,
/// `s_data`, `s_timer`, `s_sent`; per receive slot `r_act`, `r_uid`, `r_timer`; the late FORGET
/// register `lf_*`; the fields of the packet in reception `rx_*` and in transmission `tx_*`.
/// "Lowest slot first" is found by walking a one-hot probe over the slots, so that every index
/// rust-hdl evaluates is a loop variable; decisions read only register outputs (the state
/// before the edge), as §8.4 requires. Payloads sit word 0 at the top of their 256-bit
/// registers, and the cells' word index addresses the 32-bit lane of the flit in hand: nothing
/// shifts a whole payload, so an NI whose payloads are short (the self-test's) synthesizes only
/// the lanes it uses. The transmitter reads a SEND's payload from its slot (`tx_slot`,
/// one-hot), keeping no copy. A uid's owner is compared with the route's `src` and with `node`
/// when the uid word arrives, keeping one bit for each instead of the field; every uid stored
/// is then rebuilt from the route (`rx_uid`) or the node number.
#[derive(LogicBlock)]
pub struct Ni {
    pub clock: Signal<In, Clock>,
    pub net_in: Signal<In, Flit>,
    pub req_valid: Signal<In, Bit>,
    pub req_dst: Signal<In, Bits<16>>,
    pub req_len: Signal<In, Bits<6>>,
    pub req_data: Signal<In, Bits<256>>,
    pub dlv_ready: Signal<In, Bit>,
    pub tx_gnt: Signal<In, Bit>,
    pub net_out: Signal<Out, Flit>,
    pub req_ready: Signal<Out, Bit>,
    pub dlv_valid: Signal<Out, Bit>,
    pub dlv_src: Signal<Out, Bits<16>>,
    pub dlv_uid: Signal<Out, Bits<32>>,
    pub dlv_len: Signal<Out, Bits<6>>,
    pub dlv_data: Signal<Out, Bits<256>>,
    pub done_valid: Signal<Out, Bit>,
    pub done_uid: Signal<Out, Bits<32>>,
    pub tx_req: Signal<Out, Bit>,
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
    // The worm cells.
    receiver: WormReceiver,
    transmitter: WormTransmitter,
    // Send slots.
    s_state: Vec<DFF<SendState>>,
    s_cnt: Vec<DFF<Bits<16>>>,
    s_dst: Vec<DFF<Bits<16>>>,
    s_len: Vec<DFF<Bits<6>>>,
    s_data: Vec<DFF<Bits<256>>>,
    s_timer: Vec<DFF<Bits<16>>>,
    s_sent: Vec<DFF<Bit>>,
    // Receive slots.
    r_act: Vec<DFF<Bit>>,
    r_uid: Vec<DFF<Bits<32>>>,
    r_timer: Vec<DFF<Bits<16>>>,
    uid_cnt: DFF<Bits<16>>,
    lf_valid: DFF<Bit>,
    lf_cnt: DFF<Bits<16>>,
    lf_dst: DFF<Bits<16>>,
    // The packet in reception.
    rx_kind: DFF<Bits<2>>,
    rx_len: DFF<Bits<6>>,
    rx_cnt: DFF<Bits<16>>,
    rx_own_src: DFF<Bit>,
    rx_own_me: DFF<Bit>,
    rx_data: DFF<Bits<256>>,
    // The packet in transmission.
    tx_kind: DFF<Bits<2>>,
    tx_len: DFF<Bits<6>>,
    tx_uid: DFF<Bits<32>>,
    tx_slot: DFF<Bits<16>>,
    // Output registers.
    o_ready: DFF<Bit>,
    o_dlv_valid: DFF<Bit>,
    o_dlv_src: DFF<Bits<16>>,
    o_dlv_uid: DFF<Bits<32>>,
    o_dlv_len: DFF<Bits<6>>,
    o_dlv_data: DFF<Bits<256>>,
    o_done_valid: DFF<Bit>,
    o_done_uid: DFF<Bits<32>>,
    c_crc: DFF<Bits<16>>,
    c_truncated: DFF<Bits<16>>,
    c_malformed: DFF<Bits<16>>,
    c_misrouted: DFF<Bits<16>>,
    c_not_source: DFF<Bits<16>>,
    c_table_full: DFF<Bits<16>>,
    c_unknown: DFF<Bits<16>>,
    c_busy: DFF<Bits<16>>,
    c_duplicate: DFF<Bits<16>>,
    c_retransmit: DFF<Bits<16>>,
    // Combinational temporaries.
    probe: Signal<Local, Bits<16>>,
    s_free: Signal<Local, Bits<16>>,
    s_first_free: Signal<Local, Bits<16>>,
    s_fp: Signal<Local, Bits<16>>,
    s_due: Signal<Local, Bits<16>>,
    s_ack: Signal<Local, Bits<16>>,
    s_taken: Signal<Local, Bits<16>>,
    s_freed: Signal<Local, Bits<16>>,
    r_first_free: Signal<Local, Bits<16>>,
    r_due: Signal<Local, Bits<16>>,
    r_match: Signal<Local, Bits<16>>,
    accept: Signal<Local, Bit>,
    len_in: Signal<Local, Bits<6>>,
    rx_header_malformed: Signal<Local, Bit>,
    rx_cut: Signal<Local, Bits<1>>,
    rx_truncated: Signal<Local, Bits<1>>,
    truncated_worms: Signal<Local, Bits<16>>,
    arrived: Signal<Local, Bit>,
    rx_uid: Signal<Local, Bits<32>>,
    rx_word: Signal<Local, Bits<256>>,
    rx_words: Signal<Local, Bits<6>>,
    rx_lane: Signal<Local, Bits<3>>,
    rx_lane_shift: Signal<Local, Bits<9>>,
    pick_kind: Signal<Local, Bits<2>>,
    pick_dst: Signal<Local, Bits<16>>,
    pick_uid: Signal<Local, Bits<32>>,
    pick_cnt: Signal<Local, Bits<16>>,
    pick_len: Signal<Local, Bits<6>>,
    pick_slot: Signal<Local, Bits<16>>,
    tx_word: Signal<Local, Bits<32>>,
    tx_words: Signal<Local, Bits<6>>,
    tx_payload: Signal<Local, Bits<256>>,
    tx_lane: Signal<Local, Bits<3>>,
    tx_lane_shift: Signal<Local, Bits<9>>,
    tx_lane_data: Signal<Local, Bits<256>>,
    // Parameters.
    node: Constant<Bits<16>>,
    node_upper: Constant<Bits<32>>,
    retry_reload: Constant<Bits<16>>,
    ack_reload: Constant<Bits<16>>,
    retry_mask: Constant<Bits<16>>,
    ack_mask: Constant<Bits<16>>,
    // Named values (rust-hdl writes integer literals 32 bits wide, so narrower ones are here).
    count_step: Constant<Bits<16>>,
    timer_expired: Constant<Bits<16>>,
    slot_none: Constant<Bits<16>>,
    slot_lowest: Constant<Bits<16>>,
    empty_node: Constant<Bits<16>>,
    empty_len: Constant<Bits<6>>,
    empty_payload: Constant<Bits<256>>,
    whole_payload: Constant<Bits<256>>,
    len_max: Constant<Bits<6>>,
    word_round_up: Constant<Bits<6>>,
    kind_send: Constant<Bits<2>>,
    kind_ack: Constant<Bits<2>>,
    kind_forget: Constant<Bits<2>>,
    kind_malformed: Constant<Bits<2>>,
    _ns: usize,
    _nr: usize,
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

impl Ni {
    /// An NI with the parameters of `cfg` (validated by the caller: see [`crate::ni`]).
    pub fn new(cfg: &NiConfig) -> Self {
        let (ns, nr) = (cfg.send_slots, cfg.recv_slots);
        Self {
            clock: Default::default(),
            net_in: Default::default(),
            req_valid: Default::default(),
            req_dst: Default::default(),
            req_len: Default::default(),
            req_data: Default::default(),
            dlv_ready: Default::default(),
            tx_gnt: Default::default(),
            net_out: Default::default(),
            req_ready: Default::default(),
            dlv_valid: Default::default(),
            dlv_src: Default::default(),
            dlv_uid: Default::default(),
            dlv_len: Default::default(),
            dlv_data: Default::default(),
            done_valid: Default::default(),
            done_uid: Default::default(),
            tx_req: Default::default(),
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
            receiver: WormReceiver::new(cfg.node, HEADER_WORDS),
            transmitter: WormTransmitter::new(HEADER_WORDS),
            s_state: vec_of(ns),
            s_cnt: vec_of(ns),
            s_dst: vec_of(ns),
            s_len: vec_of(ns),
            s_data: vec_of(ns),
            s_timer: vec_of(ns),
            s_sent: vec_of(ns),
            r_act: vec_of(nr),
            r_uid: vec_of(nr),
            r_timer: vec_of(nr),
            uid_cnt: Default::default(),
            lf_valid: Default::default(),
            lf_cnt: Default::default(),
            lf_dst: Default::default(),
            rx_kind: Default::default(),
            rx_len: Default::default(),
            rx_cnt: Default::default(),
            rx_own_src: Default::default(),
            rx_own_me: Default::default(),
            rx_data: Default::default(),
            tx_kind: Default::default(),
            tx_len: Default::default(),
            tx_uid: Default::default(),
            tx_slot: Default::default(),
            o_ready: Default::default(),
            o_dlv_valid: Default::default(),
            o_dlv_src: Default::default(),
            o_dlv_uid: Default::default(),
            o_dlv_len: Default::default(),
            o_dlv_data: Default::default(),
            o_done_valid: Default::default(),
            o_done_uid: Default::default(),
            c_crc: Default::default(),
            c_truncated: Default::default(),
            c_malformed: Default::default(),
            c_misrouted: Default::default(),
            c_not_source: Default::default(),
            c_table_full: Default::default(),
            c_unknown: Default::default(),
            c_busy: Default::default(),
            c_duplicate: Default::default(),
            c_retransmit: Default::default(),
            probe: Default::default(),
            s_free: Default::default(),
            s_first_free: Default::default(),
            s_fp: Default::default(),
            s_due: Default::default(),
            s_ack: Default::default(),
            s_taken: Default::default(),
            s_freed: Default::default(),
            r_first_free: Default::default(),
            r_due: Default::default(),
            r_match: Default::default(),
            accept: Default::default(),
            len_in: Default::default(),
            rx_header_malformed: Default::default(),
            rx_cut: Default::default(),
            rx_truncated: Default::default(),
            truncated_worms: Default::default(),
            arrived: Default::default(),
            rx_uid: Default::default(),
            rx_word: Default::default(),
            rx_words: Default::default(),
            rx_lane: Default::default(),
            rx_lane_shift: Default::default(),
            pick_kind: Default::default(),
            pick_dst: Default::default(),
            pick_uid: Default::default(),
            pick_cnt: Default::default(),
            pick_len: Default::default(),
            pick_slot: Default::default(),
            tx_word: Default::default(),
            tx_words: Default::default(),
            tx_payload: Default::default(),
            tx_lane: Default::default(),
            tx_lane_shift: Default::default(),
            tx_lane_data: Default::default(),
            node: c(cfg.node as u64),
            node_upper: c((cfg.node as u64) << 16),
            retry_reload: c(cfg.retry_interval as u64 - 1),
            ack_reload: c(cfg.ack_interval as u64 - 1),
            retry_mask: c(timer_mask(cfg.retry_interval)),
            ack_mask: c(timer_mask(cfg.ack_interval)),
            count_step: c(1),
            timer_expired: c(0),
            slot_none: c(0),
            slot_lowest: c(1),
            empty_node: c(0),
            empty_len: c(0),
            empty_payload: Constant::new(Bits::default()),
            whole_payload: Constant::new(!Bits::<256>::default()),
            len_max: c(32),
            word_round_up: c(3),
            kind_send: c(0),
            kind_ack: c(1),
            kind_forget: c(2),
            kind_malformed: c(3),
            _ns: ns,
            _nr: nr,
        }
    }
}

impl Logic for Ni {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- Registers hold by default; timers count down; pulses fall.
        for s in 0..self._ns {
            self.s_state[s].clock.next = self.clock.val();
            self.s_cnt[s].clock.next = self.clock.val();
            self.s_dst[s].clock.next = self.clock.val();
            self.s_len[s].clock.next = self.clock.val();
            self.s_data[s].clock.next = self.clock.val();
            self.s_timer[s].clock.next = self.clock.val();
            self.s_sent[s].clock.next = self.clock.val();
            self.s_state[s].d.next = self.s_state[s].q.val();
            self.s_cnt[s].d.next = self.s_cnt[s].q.val();
            self.s_dst[s].d.next = self.s_dst[s].q.val();
            self.s_len[s].d.next = self.s_len[s].q.val();
            self.s_data[s].d.next = self.s_data[s].q.val();
            self.s_sent[s].d.next = self.s_sent[s].q.val();
            self.s_timer[s].d.next = self.s_timer[s].q.val();
            if self.s_timer[s].q.val().any() {
                self.s_timer[s].d.next =
                    (self.s_timer[s].q.val() - self.count_step.val()) & self.retry_mask.val();
            }
        }
        for r in 0..self._nr {
            self.r_act[r].clock.next = self.clock.val();
            self.r_uid[r].clock.next = self.clock.val();
            self.r_timer[r].clock.next = self.clock.val();
            self.r_act[r].d.next = self.r_act[r].q.val();
            self.r_uid[r].d.next = self.r_uid[r].q.val();
            self.r_timer[r].d.next = self.r_timer[r].q.val();
            if self.r_timer[r].q.val().any() {
                self.r_timer[r].d.next =
                    (self.r_timer[r].q.val() - self.count_step.val()) & self.ack_mask.val();
            }
        }
        dff_setup!(
            self,
            clock,
            uid_cnt,
            lf_valid,
            lf_cnt,
            lf_dst,
            rx_kind,
            rx_len,
            rx_cnt,
            rx_own_src,
            rx_own_me,
            rx_data,
            tx_kind,
            tx_len,
            tx_uid,
            tx_slot,
            o_ready,
            o_dlv_valid,
            o_dlv_src,
            o_dlv_uid,
            o_dlv_len,
            o_dlv_data,
            c_crc,
            c_truncated,
            c_malformed,
            c_misrouted,
            c_not_source,
            c_table_full,
            c_unknown,
            c_busy,
            c_duplicate,
            c_retransmit
        );
        self.receiver.clock.next = self.clock.val();
        self.transmitter.clock.next = self.clock.val();
        self.o_done_valid.clock.next = self.clock.val();
        self.o_done_valid.d.next = false;
        self.o_done_uid.clock.next = self.clock.val();
        self.o_done_uid.d.next = 0.into();

        // The uid of a SEND or FORGET whose owner is its source (only those use it whole).
        self.rx_uid.next = (bit_cast::<32, 16>(self.receiver.source.val()) << 16)
            | bit_cast::<32, 16>(self.rx_cnt.q.val());
        // Payload words of the packet in reception / transmission: ceil(len / 4).
        self.rx_words.next = (self.rx_len.q.val() + self.word_round_up.val()) >> 2;
        self.tx_words.next = (self.tx_len.q.val() + self.word_round_up.val()) >> 2;
        // A payload has at most 8 words, so the low 3 bits of the cells' index are its lane.
        self.rx_lane.next = self.receiver.index.val().get_bits::<3>(0);
        self.tx_lane.next = self.transmitter.index.val().get_bits::<3>(0);
        self.rx_lane_shift.next = bit_cast::<9, 3>(self.rx_lane.val()) << 5;
        self.tx_lane_shift.next = bit_cast::<9, 3>(self.tx_lane.val()) << 5;
        // A SEND's payload is read from its slot while it goes out: the slot is not free (only
        // a FORGET, picked when the transmitter is idle, frees it), so `s_data` cannot change.
        self.tx_payload.next = self.empty_payload.val();
        for s in 0..self._ns {
            if self.tx_slot.q.val().get_bit(s) {
                self.tx_payload.next = self.s_data[s].q.val();
            }
        }
        self.tx_lane_data.next = self.tx_payload.val() << self.tx_lane_shift.val();

        // ---- Slot scans over the state before the edge (one-hot, lowest slot first).
        self.s_free.next = self.slot_none.val();
        self.s_first_free.next = self.slot_none.val();
        self.s_fp.next = self.slot_none.val();
        self.s_due.next = self.slot_none.val();
        self.s_ack.next = self.slot_none.val();
        self.probe.next = self.slot_lowest.val();
        for s in 0..self._ns {
            if self.s_state[s].q.val() == SendState::Free {
                self.s_free.next = self.s_free.val() | self.probe.val();
                if !self.s_first_free.val().any() {
                    self.s_first_free.next = self.probe.val();
                }
            }
            if (self.s_state[s].q.val() == SendState::ForgetPending) & !self.s_fp.val().any() {
                self.s_fp.next = self.probe.val();
            }
            if (self.s_state[s].q.val() == SendState::Waiting)
                & !self.s_timer[s].q.val().any()
                & !self.s_due.val().any()
            {
                self.s_due.next = self.probe.val();
            }
            if (self.s_state[s].q.val() != SendState::Free)
                & (self.s_cnt[s].q.val() == self.rx_cnt.q.val())
                & !self.s_ack.val().any()
            {
                self.s_ack.next = self.probe.val();
            }
            self.probe.next = self.probe.val() << 1;
        }
        self.r_first_free.next = self.slot_none.val();
        self.r_due.next = self.slot_none.val();
        self.r_match.next = self.slot_none.val();
        self.probe.next = self.slot_lowest.val();
        for r in 0..self._nr {
            if !self.r_act[r].q.val() & !self.r_first_free.val().any() {
                self.r_first_free.next = self.probe.val();
            }
            if self.r_act[r].q.val() & !self.r_timer[r].q.val().any() & !self.r_due.val().any() {
                self.r_due.next = self.probe.val();
            }
            if self.r_act[r].q.val()
                & (self.r_uid[r].q.val() == self.rx_uid.val())
                & !self.r_match.val().any()
            {
                self.r_match.next = self.probe.val();
            }
            self.probe.next = self.probe.val() << 1;
        }

        // ---- Delivery handshake: the register empties (to all zero) when taken.
        if self.o_dlv_valid.q.val() & self.dlv_ready.val() {
            self.o_dlv_valid.d.next = false;
            self.o_dlv_src.d.next = self.empty_node.val();
            self.o_dlv_uid.d.next = 0.into();
            self.o_dlv_len.d.next = self.empty_len.val();
            self.o_dlv_data.d.next = self.empty_payload.val();
        }

        // ---- Host request: the lowest free slot, payload masked to its length.
        self.s_taken.next = self.slot_none.val();
        self.len_in.next = self.req_len.val();
        if self.req_len.val() > self.len_max.val() {
            self.len_in.next = self.len_max.val();
        }
        self.accept.next = self.req_valid.val() & self.o_ready.q.val() & self.s_free.val().any();
        if self.accept.val() {
            self.s_taken.next = self.s_first_free.val();
            self.uid_cnt.d.next = self.uid_cnt.q.val() + self.count_step.val();
            for s in 0..self._ns {
                if self.s_first_free.val().get_bit(s) {
                    self.s_state[s].d.next = SendState::Waiting;
                    self.s_cnt[s].d.next = self.uid_cnt.q.val();
                    self.s_dst[s].d.next = self.req_dst.val();
                    self.s_len[s].d.next = self.len_in.val();
                    self.s_data[s].d.next = self.req_data.val()
                        & !(self.whole_payload.val() >> (bit_cast::<9, 6>(self.len_in.val()) << 3));
                    self.s_timer[s].d.next = self.timer_expired.val();
                    self.s_sent[s].d.next = false;
                }
            }
        }

        // ---- Receive path (§8.3): the receiver frames, the NI reads header word 0 (type,
        // length), header word 1 (the uid) and the payload words.
        self.receiver.flit.next = self.net_in.val();
        self.rx_header_malformed.next = (self.receiver.word.val().get_bits::<2>(30)
            == self.kind_malformed.val())
            | (self.receiver.word.val() & 0x00FF_FFFF).any()
            | (self.receiver.word.val().get_bits::<6>(24) > self.len_max.val())
            | (self.receiver.word.val().get_bits::<2>(30).any()
                & self.receiver.word.val().get_bits::<6>(24).any());
        self.receiver.reject.next =
            !self.receiver.index.val().any() & self.rx_header_malformed.val();
        self.receiver.payload_words.next = self.rx_words.val().get_bits::<4>(0);
        // Payload word `rx_lane` goes straight to its place on the delivery bus (word 0 at the
        // top), so delivery needs no alignment shifter and unused lanes synthesize away.
        self.rx_word.next =
            (bit_cast::<256, 32>(self.receiver.word.val()) << 224) >> self.rx_lane_shift.val();
        if self.receiver.head.val() {
            self.rx_data.d.next = self.empty_payload.val();
        }
        if self.receiver.header_valid.val() {
            if !self.receiver.index.val().any() {
                self.rx_kind.d.next = self.receiver.word.val().get_bits::<2>(30);
                self.rx_len.d.next = self.receiver.word.val().get_bits::<6>(24);
            } else {
                // The owner is checked against the route now, so only the counter half is
                // kept: an accepted uid's owner is the source (SEND, FORGET) or `node` (ACK).
                self.rx_cnt.d.next = self.receiver.word.val().get_bits::<16>(0);
                self.rx_own_src.d.next =
                    self.receiver.word.val().get_bits::<16>(16) == self.receiver.source.val();
                self.rx_own_me.d.next =
                    self.receiver.word.val().get_bits::<16>(16) == self.node.val();
            }
        }
        if self.receiver.payload_valid.val() {
            self.rx_data.d.next = self.rx_data.q.val() | self.rx_word.val();
        }
        // A head that is also a tail, cutting a worm short, ends two worms at once.
        self.rx_cut.next = self.receiver.cut.val().into();
        self.rx_truncated.next = (self.receiver.worm_end.val()
            & (self.receiver.verdict.val() == WormVerdict::Truncated))
            .into();
        self.truncated_worms.next =
            bit_cast::<16, 1>(self.rx_cut.val()) + bit_cast::<16, 1>(self.rx_truncated.val());
        self.c_truncated.d.next = self.c_truncated.q.val() + self.truncated_worms.val();
        self.arrived.next = false;
        if self.receiver.worm_end.val() {
            match self.receiver.verdict.val() {
                WormVerdict::Ok => {
                    self.arrived.next = true;
                }
                WormVerdict::Crc => {
                    self.c_crc.d.next = self.c_crc.q.val() + self.count_step.val();
                }
                WormVerdict::Malformed => {
                    self.c_malformed.d.next = self.c_malformed.q.val() + self.count_step.val();
                }
                WormVerdict::Misrouted => {
                    self.c_misrouted.d.next = self.c_misrouted.q.val() + self.count_step.val();
                }
                _ => {}
            }
        }

        // ---- What an arrived packet does (§8.4).
        if self.arrived.val() {
            if self.rx_kind.q.val() == self.kind_send.val() {
                if !self.rx_own_src.q.val() {
                    self.c_not_source.d.next = self.c_not_source.q.val() + self.count_step.val();
                } else if self.r_match.val().any() {
                    self.c_duplicate.d.next = self.c_duplicate.q.val() + self.count_step.val();
                } else if self.r_first_free.val().any() & !self.o_dlv_valid.q.val() {
                    for r in 0..self._nr {
                        if self.r_first_free.val().get_bit(r) {
                            self.r_act[r].d.next = true;
                            self.r_uid[r].d.next = self.rx_uid.val();
                            self.r_timer[r].d.next = self.timer_expired.val();
                        }
                    }
                    self.o_dlv_valid.d.next = true;
                    self.o_dlv_src.d.next = self.receiver.source.val();
                    self.o_dlv_uid.d.next = self.rx_uid.val();
                    self.o_dlv_len.d.next = self.rx_len.q.val();
                    self.o_dlv_data.d.next = self.rx_data.q.val();
                } else {
                    self.c_table_full.d.next = self.c_table_full.q.val() + self.count_step.val();
                }
            } else if self.rx_kind.q.val() == self.kind_ack.val() {
                if !self.rx_own_me.q.val() {
                    self.c_not_source.d.next = self.c_not_source.q.val() + self.count_step.val();
                } else if self.s_ack.val().any() {
                    for s in 0..self._ns {
                        if self.s_ack.val().get_bit(s)
                            & (self.s_state[s].q.val() == SendState::Waiting)
                        {
                            self.s_state[s].d.next = SendState::ForgetPending;
                        }
                    }
                } else if !self.lf_valid.q.val() {
                    self.lf_valid.d.next = true;
                    self.lf_cnt.d.next = self.rx_cnt.q.val();
                    self.lf_dst.d.next = self.receiver.source.val();
                } else {
                    self.c_busy.d.next = self.c_busy.q.val() + self.count_step.val();
                }
            } else {
                // FORGET
                if !self.rx_own_src.q.val() {
                    self.c_not_source.d.next = self.c_not_source.q.val() + self.count_step.val();
                } else if self.r_match.val().any() {
                    for r in 0..self._nr {
                        if self.r_match.val().get_bit(r) {
                            self.r_act[r].d.next = false;
                        }
                    }
                } else {
                    self.c_unknown.d.next = self.c_unknown.q.val() + self.count_step.val();
                }
            }
        }

        // ---- Transmitter (§8.5): when it starts a worm, the first due packet in priority.
        self.transmitter.grant.next = self.tx_gnt.val();
        self.transmitter.due.next = self.lf_valid.q.val()
            | self.s_fp.val().any()
            | self.r_due.val().any()
            | self.s_due.val().any();
        self.transmitter.payload_words.next = self.tx_words.val().get_bits::<4>(0);
        self.s_freed.next = self.slot_none.val();
        self.pick_kind.next = self.kind_send.val();
        self.pick_dst.next = self.empty_node.val();
        self.pick_uid.next = 0.into();
        self.pick_cnt.next = self.empty_node.val();
        self.pick_len.next = self.empty_len.val();
        self.pick_slot.next = self.slot_none.val();
        if self.transmitter.start.val() {
            if self.lf_valid.q.val() {
                self.pick_kind.next = self.kind_forget.val();
                self.lf_valid.d.next = false;
                self.pick_dst.next = self.lf_dst.q.val();
                self.pick_uid.next =
                    self.node_upper.val() | bit_cast::<32, 16>(self.lf_cnt.q.val());
            } else if self.s_fp.val().any() {
                self.pick_kind.next = self.kind_forget.val();
                self.s_freed.next = self.s_fp.val();
                for s in 0..self._ns {
                    if self.s_fp.val().get_bit(s) {
                        self.s_state[s].d.next = SendState::Free;
                        self.pick_dst.next = self.s_dst[s].q.val();
                        self.pick_cnt.next = self.s_cnt[s].q.val();
                    }
                }
                self.pick_uid.next =
                    self.node_upper.val() | bit_cast::<32, 16>(self.pick_cnt.val());
                self.o_done_valid.d.next = true;
                self.o_done_uid.d.next = self.pick_uid.val();
            } else if self.r_due.val().any() {
                self.pick_kind.next = self.kind_ack.val();
                for r in 0..self._nr {
                    if self.r_due.val().get_bit(r) {
                        self.r_timer[r].d.next = self.ack_reload.val();
                        self.pick_uid.next = self.r_uid[r].q.val();
                        self.pick_dst.next = self.r_uid[r].q.val().get_bits::<16>(16);
                    }
                }
            } else {
                // A SEND (`due` says one of the four is there).
                self.pick_slot.next = self.s_due.val();
                for s in 0..self._ns {
                    if self.s_due.val().get_bit(s) {
                        self.s_timer[s].d.next = self.retry_reload.val();
                        if self.s_sent[s].q.val() {
                            self.c_retransmit.d.next =
                                self.c_retransmit.q.val() + self.count_step.val();
                        }
                        self.s_sent[s].d.next = true;
                        self.pick_dst.next = self.s_dst[s].q.val();
                        self.pick_cnt.next = self.s_cnt[s].q.val();
                        self.pick_len.next = self.s_len[s].q.val();
                    }
                }
                self.pick_uid.next =
                    self.node_upper.val() | bit_cast::<32, 16>(self.pick_cnt.val());
            }
            self.tx_kind.d.next = self.pick_kind.val();
            self.tx_len.d.next = self.pick_len.val();
            self.tx_uid.d.next = self.pick_uid.val();
            self.tx_slot.d.next = self.pick_slot.val();
        }
        // The word the transmitter asks for: the route, header word 0 (type, length), header
        // word 1 (the uid), payload word `tx_lane` (word 0 at the top of the payload).
        self.tx_word.next = 0.into();
        if self.transmitter.start.val() {
            self.tx_word.next = self.node_upper.val() | bit_cast::<32, 16>(self.pick_dst.val());
        }
        if self.transmitter.header_valid.val() {
            if !self.transmitter.index.val().any() {
                self.tx_word.next = (bit_cast::<32, 2>(self.tx_kind.q.val()) << 30)
                    | (bit_cast::<32, 6>(self.tx_len.q.val()) << 24);
            } else {
                self.tx_word.next = self.tx_uid.q.val();
            }
        }
        if self.transmitter.payload_valid.val() {
            self.tx_word.next = self.tx_lane_data.val().get_bits::<32>(224);
        }
        self.transmitter.word.next = self.tx_word.val();

        // ---- req_ready after the edge: free before, not taken now, or freed now.
        self.o_ready.d.next =
            ((self.s_free.val() & !self.s_taken.val()) | self.s_freed.val()).any();

        // ---- Outputs.
        self.net_out.next = self.transmitter.flit.val();
        self.tx_req.next = self.transmitter.request.val();
        self.req_ready.next = self.o_ready.q.val();
        self.dlv_valid.next = self.o_dlv_valid.q.val();
        self.dlv_src.next = self.o_dlv_src.q.val();
        self.dlv_uid.next = self.o_dlv_uid.q.val();
        self.dlv_len.next = self.o_dlv_len.q.val();
        self.dlv_data.next = self.o_dlv_data.q.val();
        self.done_valid.next = self.o_done_valid.q.val();
        self.done_uid.next = self.o_done_uid.q.val();
        self.cnt_crc.next = self.c_crc.q.val();
        self.cnt_truncated.next = self.c_truncated.q.val();
        self.cnt_malformed.next = self.c_malformed.q.val();
        self.cnt_misrouted.next = self.c_misrouted.q.val();
        self.cnt_not_source.next = self.c_not_source.q.val();
        self.cnt_table_full.next = self.c_table_full.q.val();
        self.cnt_unknown.next = self.c_unknown.q.val();
        self.cnt_busy.next = self.c_busy.q.val();
        self.cnt_duplicate.next = self.c_duplicate.q.val();
        self.cnt_retransmit.next = self.c_retransmit.q.val();
    }
}
