//! The message slots of the RMPP receive path (docs/protocol.md §11.4) and what each edge does
//! to them (§11.5).

use idemnet_rtl::lut_ram::LutRam;
use idemnet_spec::rmpp::RmppConfig;
use rust_hdl::prelude::*;

use super::{Action, SlotState};

/// The per-slot state of §11.4, the scans over it (lowest slot first, over the state before the
/// edge) and the per-slot part of the edge's action, the transmitter's pick and the clean-up
/// timer.
///
/// Ports (Verilog names, as a child `slots$<port>`):
///
/// | port | dir | width | |
/// |------|-----|-------|-|
/// | `clock` | in | 1 | |
/// | `key_node`, `key_msg_id` | in | 8, 32 | the packet's (`srcNID`, `msgID`), for `matched` |
/// | `target` | in | 4 | the latched verdict's slot, for `target_busy` and `target_grant` |
/// | `action`, `action_slot` | in | 4, 4 | the one action of this edge ([`Action`]) and its slot |
/// | `picked` | in | 1 | the transmitter starts the reply of the `due` slot at this edge |
/// | `msg_num`, `len`, `seq_low` | in | 32, 32, 11 | the packet's `msgNum`, `len`, `seq` (low bits) |
/// | `restart`, `finish`, `new_cts` | in | 1 each | the latched in-sequence verdict |
/// | `allowance` | in | 16 | a new CTS's `n` (Figure 8) |
/// | `answer_limit`, `answer_zero`, `answer_cts` | in | 13, 1, 1 | the answer register (it acts on `action_slot`): accepted bytes, `up_accept` was 0, more than one packet |
/// | `up_valid`, `up_slot`, `dlv_valid`, `dlv_slot`, `read_slot` | in | 1, 4, 1, 4, 4 | slots whose fields are shown |
/// | `matched`, `match_slot` | out | 1, 4 | a busy slot holds the key, and which |
/// | `match_upcall`, `match_receiving`, `match_complete`, `match_over`, `match_next_seq`, `match_limit` | out | 1 x 4, 11, 13 | its state (ENDED or DROPPED: `over`), `next_seq`, `limit` (`next_seq` and `limit` not defined while nothing matched) |
/// | `free`, `free_slot` | out | 1, 4 | some slot is free, and the lowest |
/// | `due`, `target_busy` | out | 1, 1 | a reply is due; the `target` slot is busy |
/// | `target_grant` | out | 16 | the `grant` of `target` (the slot a packet that returns grants acts on; an answer's slot holds none) |
/// | `pick_*` | out | | the lowest slot with a reply due: `src` (8), `msg_id`, `msg_num`, `limit` (13), `next_seq` (11), `cts_n` (16), RECEIVING, ENDED (`src`, `msg_id`, `msg_num`, `limit`, `next_seq`, `cts_n` not defined while no reply is due) |
/// | `up_*`, `dlv_limit`, `read_limit` | out | | the fields of `up_slot` (zero unless `up_valid`), the `limit` of `dlv_slot` (zero unless `dlv_valid`), and `read_slot`'s `limit` |
///
/// Widths: the registers are as wide as the largest configuration (`src` 8, `limit` 13,
/// `next_seq` 11, `grant` and `cts_n` 16, the deadline 21 bits); every value loaded into them
/// is masked to the bits the configuration's largest value needs (`nodes - 1`, `max_msg`,
/// `max_msg / mtu`, `max_data_pkts`, `gch_timeout + 1`), so the bits above are constant zero
/// and synthesis removes them and the logic that reads them (with system16's configuration: 4,
/// 11, 6, 5 and 14 bits).
///
/// The clean-up timer of §11.5 is one free-running counter (`now`, modulo `2^W` with
/// `2^W > gch_timeout + 1`) and a deadline per slot: the pick of an ENDED or DROPPED slot at
/// edge `p` sets `deadline = now + gch_timeout + 1`, and the slot frees itself at the edge at
/// which `now == deadline`, unless it has `reply_due` or is the edge's action's target. That is
/// §11.5's countdown (loaded with `gch_timeout` at `p`, 0 before edge `p + gch_timeout + 1`)
/// because the countdown never pauses without being loaded again: a slot becomes ENDED or
/// DROPPED only with `reply_due` (so it is picked, and loaded, before it counts), and an action
/// on an ENDED or DROPPED slot either frees it or sets `reply_due` (replies again). A compare
/// per slot instead of a decrementer, a zero test and a load multiplexer.
///
/// Storage: `src`, `msg_id`, `msg_num` and `len` are written only by *new* and *abort new*, one
/// slot at an edge, and read by slot number, so they are kept in [`LutRam`]s (one write port,
/// asynchronous reads; LUT RAM on the ECP5, one copy per read port): read by the pick (at the
/// lowest due slot's number) and the upcall (the delivery reads only `limit`). The upcall and
/// the delivery read word `rx_slots`, which is never written and so zero, while not valid, and
/// show zero without a gate per bit. `src` and
/// `msg_id` are kept in flip-flops as well, for the key compare, which needs every slot at once.
/// `next_seq` and `cts_n` are written only at the action's slot (*in sequence* and *answer*) and
/// never cleared (a slot's next use writes them before reading them), so they are [`LutRam`]s
/// too: `next_seq` read by the pick and at `match_slot`, `cts_n` by the pick. `limit` is written
/// only by *new* (`min(len, mtu)` or `len`), *abort new* (0) and *answer* (the accepted bytes),
/// at the action's slot, and read by the pick, at `match_slot`, by the delivery and by the read
/// port, so it is a [`LutRam`] too; a free slot is never asked for it but by the read port,
/// which then reads word `rx_slots` (zero), as a limit cleared at the free would show. The
/// fields that the timer or a free writes, or that an action reads at its own slot (`state`,
/// `grant`, `reply_due`, the deadline), are flip-flops.
///
/// Timing: every output is combinational from the inputs, the slot registers and the memories,
/// which change only at the edge; one-hot selections of slot fields are OR-ed (AND-OR muxes). The compare of
/// the key with each slot's (`src`, `msg_id`) is registered (`s_key_hit`), so `matched` and the
/// `match_*` outputs are the compare of the cycle before ANDed with `busy` now: the key is latched
/// at header words 1 and 2 and a slot's `src` and `msg_id` change only at a packet's action (the
/// edge after its CRC flit, at the latest the edge of the next worm's head, never inside a
/// header), so at word 6 (the verdict) that is the compare of the
/// state before the edge, and the 40-bit compares leave the verdict's path.
#[derive(LogicBlock)]
pub struct RmppSlots {
    pub clock: Signal<In, Clock>,
    pub key_node: Signal<In, Bits<8>>,
    pub key_msg_id: Signal<In, Bits<32>>,
    pub target: Signal<In, Bits<4>>,
    pub action: Signal<In, Action>,
    pub action_slot: Signal<In, Bits<4>>,
    pub picked: Signal<In, Bit>,
    pub msg_num: Signal<In, Bits<32>>,
    pub len: Signal<In, Bits<32>>,
    pub seq_low: Signal<In, Bits<11>>,
    pub restart: Signal<In, Bit>,
    pub finish: Signal<In, Bit>,
    pub new_cts: Signal<In, Bit>,
    pub allowance: Signal<In, Bits<16>>,
    pub answer_limit: Signal<In, Bits<13>>,
    pub answer_zero: Signal<In, Bit>,
    pub answer_cts: Signal<In, Bit>,
    pub up_valid: Signal<In, Bit>,
    pub up_slot: Signal<In, Bits<4>>,
    pub dlv_valid: Signal<In, Bit>,
    pub dlv_slot: Signal<In, Bits<4>>,
    pub read_slot: Signal<In, Bits<4>>,
    pub matched: Signal<Out, Bit>,
    pub match_slot: Signal<Out, Bits<4>>,
    pub match_upcall: Signal<Out, Bit>,
    pub match_receiving: Signal<Out, Bit>,
    pub match_complete: Signal<Out, Bit>,
    pub match_over: Signal<Out, Bit>,
    pub match_next_seq: Signal<Out, Bits<11>>,
    pub match_limit: Signal<Out, Bits<13>>,
    pub free: Signal<Out, Bit>,
    pub free_slot: Signal<Out, Bits<4>>,
    pub due: Signal<Out, Bit>,
    pub target_busy: Signal<Out, Bit>,
    pub target_grant: Signal<Out, Bits<16>>,
    pub pick_src: Signal<Out, Bits<8>>,
    pub pick_msg_id: Signal<Out, Bits<32>>,
    pub pick_msg_num: Signal<Out, Bits<32>>,
    pub pick_limit: Signal<Out, Bits<13>>,
    pub pick_next_seq: Signal<Out, Bits<11>>,
    pub pick_cts_n: Signal<Out, Bits<16>>,
    pub pick_receiving: Signal<Out, Bit>,
    pub pick_ended: Signal<Out, Bit>,
    pub up_src: Signal<Out, Bits<8>>,
    pub up_msg_id: Signal<Out, Bits<32>>,
    pub up_msg_num: Signal<Out, Bits<32>>,
    pub up_len: Signal<Out, Bits<32>>,
    pub dlv_limit: Signal<Out, Bits<13>>,
    pub read_limit: Signal<Out, Bits<13>>,
    s_state: Vec<DFF<SlotState>>,
    s_src: Vec<DFF<Bits<8>>>,
    s_msg_id: Vec<DFF<Bits<32>>>,
    m_src: LutRam<Bits<8>, 5>,
    m_msg_id: LutRam<Bits<32>, 5>,
    m_msg_num: LutRam<Bits<32>, 5>,
    m_len: LutRam<Bits<32>, 5>,
    m_next_seq: LutRam<Bits<11>, 5>,
    m_cts_n: LutRam<Bits<16>, 5>,
    m_limit: LutRam<Bits<13>, 5>,
    s_grant: Vec<DFF<Bits<16>>>,
    s_due: Vec<DFF<Bit>>,
    s_deadline: Vec<DFF<Bits<21>>>,
    now: DFF<Bits<21>>,
    s_key_hit: Vec<DFF<Bit>>,
    probe: Signal<Local, Bits<16>>,
    due_slots: Signal<Local, Bits<16>>,
    hit: Signal<Local, Bit>,
    due_next: Signal<Local, Bit>,
    new_limit: Signal<Local, Bits<13>>,
    read_busy: Signal<Local, Bit>,
    read_address: Signal<Local, Bits<5>>,
    pick_slot: Signal<Local, Bits<4>>,
    up_address: Signal<Local, Bits<5>>,
    dlv_address: Signal<Local, Bits<5>>,
    slot_number: Vec<Constant<Bits<4>>>,
    slot_lowest: Constant<Bits<16>>,
    slot_none: Constant<Bits<16>>,
    no_slot: Constant<Bits<4>>,
    no_word: Constant<Bits<5>>,
    empty_limit: Constant<Bits<13>>,
    empty_grant: Constant<Bits<16>>,
    grant_step: Constant<Bits<16>>,
    sequence_step: Constant<Bits<11>>,
    sequence_first: Constant<Bits<11>>,
    time_step: Constant<Bits<21>>,
    timeout_end: Constant<Bits<21>>,
    /// The bits of a length at or above `mtu` (a power of two): `len > mtu` is a bit of them
    /// set and `len != mtu`.
    from_mtu: Constant<Bits<32>>,
    mtu_len: Constant<Bits<32>>,
    mtu_limit: Constant<Bits<13>>,
    node_mask: Constant<Bits<8>>,
    limit_mask: Constant<Bits<13>>,
    sequence_mask: Constant<Bits<11>>,
    grant_mask: Constant<Bits<16>>,
    time_mask: Constant<Bits<21>>,
    _n: usize,
}

/// Read ports of the `src`, `msgID` and `msgNum` memories: the pick and the upcall (a delivery
/// shows only its slot and `limit`, docs/protocol.md §11.3).
const WORD_READS: usize = 2;
/// Reads of `limit`: the match, the pick, the delivery and the read port's slot.
const LIMIT_READS: usize = 4;

fn vec_of<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
}

fn c<const N: usize>(x: u64) -> Constant<Bits<N>> {
    Constant::new(Bits::from(x))
}

/// How many low bits hold every value `0..=largest` (at least one).
fn bits_holding(largest: u64) -> usize {
    ((u64::BITS - largest.leading_zeros()) as usize).max(1)
}

/// The low bits that hold every value `0..=largest`: a field's register bits above them are
/// constant zero once its inputs are masked by this, and synthesis removes them.
fn holding<const N: usize>(largest: u64) -> Constant<Bits<N>> {
    c((1u64 << (u64::BITS - largest.leading_zeros())) - 1)
}

impl RmppSlots {
    /// `cfg.rx_slots` slots with `cfg`'s `mtu` and `gch_timeout`.
    pub fn new(cfg: &RmppConfig) -> Self {
        let n = cfg.rx_slots;
        Self {
            clock: Default::default(),
            key_node: Default::default(),
            key_msg_id: Default::default(),
            target: Default::default(),
            action: Default::default(),
            action_slot: Default::default(),
            picked: Default::default(),
            msg_num: Default::default(),
            len: Default::default(),
            seq_low: Default::default(),
            restart: Default::default(),
            finish: Default::default(),
            new_cts: Default::default(),
            allowance: Default::default(),
            answer_limit: Default::default(),
            answer_zero: Default::default(),
            answer_cts: Default::default(),
            up_valid: Default::default(),
            up_slot: Default::default(),
            dlv_valid: Default::default(),
            dlv_slot: Default::default(),
            read_slot: Default::default(),
            matched: Default::default(),
            match_slot: Default::default(),
            match_upcall: Default::default(),
            match_receiving: Default::default(),
            match_complete: Default::default(),
            match_over: Default::default(),
            match_next_seq: Default::default(),
            match_limit: Default::default(),
            free: Default::default(),
            free_slot: Default::default(),
            due: Default::default(),
            target_busy: Default::default(),
            target_grant: Default::default(),
            pick_src: Default::default(),
            pick_msg_id: Default::default(),
            pick_msg_num: Default::default(),
            pick_limit: Default::default(),
            pick_next_seq: Default::default(),
            pick_cts_n: Default::default(),
            pick_receiving: Default::default(),
            pick_ended: Default::default(),
            up_src: Default::default(),
            up_msg_id: Default::default(),
            up_msg_num: Default::default(),
            up_len: Default::default(),
            dlv_limit: Default::default(),
            read_limit: Default::default(),
            s_state: vec_of(n),
            s_src: vec_of(n),
            s_msg_id: vec_of(n),
            m_src: LutRam::narrow(n + 1, WORD_READS, bits_holding(cfg.nodes as u64 - 1)),
            m_msg_id: LutRam::new(n + 1, WORD_READS),
            m_msg_num: LutRam::new(n + 1, WORD_READS),
            m_len: LutRam::new(n + 1, 1),
            m_next_seq: LutRam::narrow(n + 1, 2, bits_holding((cfg.max_msg / cfg.mtu) as u64)),
            m_cts_n: LutRam::narrow(n + 1, 1, bits_holding(cfg.max_data_pkts as u64)),
            m_limit: LutRam::narrow(n + 1, LIMIT_READS, bits_holding(cfg.max_msg as u64)),
            s_grant: vec_of(n),
            s_due: vec_of(n),
            s_deadline: vec_of(n),
            now: Default::default(),
            s_key_hit: vec_of(n),
            probe: Default::default(),
            due_slots: Default::default(),
            hit: Default::default(),
            due_next: Default::default(),
            new_limit: Default::default(),
            read_busy: Default::default(),
            read_address: Default::default(),
            pick_slot: Default::default(),
            up_address: Default::default(),
            dlv_address: Default::default(),
            slot_number: (0..n).map(|k| c(k as u64)).collect(),
            slot_lowest: c(1),
            slot_none: c(0),
            no_slot: c(0),
            no_word: c(n as u64),
            empty_limit: c(0),
            empty_grant: c(0),
            grant_step: c(1),
            sequence_step: c(1),
            sequence_first: c(1),
            time_step: c(1),
            timeout_end: c(cfg.gch_timeout as u64 + 1),
            from_mtu: c(!(cfg.mtu as u64 - 1) & 0xFFFF_FFFF),
            mtu_len: c(cfg.mtu as u64),
            mtu_limit: c(cfg.mtu as u64),
            node_mask: holding(cfg.nodes as u64 - 1),
            limit_mask: holding(cfg.max_msg as u64),
            sequence_mask: holding((cfg.max_msg / cfg.mtu) as u64),
            grant_mask: holding(cfg.max_data_pkts as u64),
            time_mask: holding(cfg.gch_timeout as u64 + 1),
            _n: n,
        }
    }
}

impl Logic for RmppSlots {
    #[hdl_gen]
    fn update(&mut self) {
        self.now.clock.next = self.clock.val();
        self.m_src.clock.next = self.clock.val();
        self.m_msg_id.clock.next = self.clock.val();
        self.m_msg_num.clock.next = self.clock.val();
        self.m_len.clock.next = self.clock.val();
        self.m_limit.clock.next = self.clock.val();
        self.m_next_seq.clock.next = self.clock.val();
        self.m_cts_n.clock.next = self.clock.val();
        self.now.d.next = (self.now.q.val() + self.time_step.val()) & self.time_mask.val();
        for k in 0..self._n {
            self.s_state[k].clock.next = self.clock.val();
            self.s_src[k].clock.next = self.clock.val();
            self.s_msg_id[k].clock.next = self.clock.val();
            self.s_grant[k].clock.next = self.clock.val();
            self.s_due[k].clock.next = self.clock.val();
            self.s_deadline[k].clock.next = self.clock.val();
            self.s_key_hit[k].clock.next = self.clock.val();
            self.s_key_hit[k].d.next = (self.s_src[k].q.val()
                == (self.key_node.val() & self.node_mask.val()))
                & (self.s_msg_id[k].q.val() == self.key_msg_id.val());
            self.s_state[k].d.next = self.s_state[k].q.val();
            self.s_src[k].d.next = self.s_src[k].q.val();
            self.s_msg_id[k].d.next = self.s_msg_id[k].q.val();
            self.s_grant[k].d.next = self.s_grant[k].q.val();
            self.s_deadline[k].d.next = self.s_deadline[k].q.val();
        }

        // ---- Scans over the state before the edge: the busy slot holding the key, the lowest
        // free slot, the lowest reply due, whether the verdict's target is still busy.
        self.matched.next = false;
        self.match_slot.next = self.no_slot.val();
        self.match_upcall.next = false;
        self.match_receiving.next = false;
        self.match_complete.next = false;
        self.match_over.next = false;
        self.free.next = false;
        self.free_slot.next = self.no_slot.val();
        self.due_slots.next = self.slot_none.val();
        self.target_busy.next = false;
        self.probe.next = self.slot_lowest.val();
        for k in 0..self._n {
            if self.s_state[k].q.val() != SlotState::Free {
                if self.s_key_hit[k].q.val() {
                    self.matched.next = true;
                    self.match_slot.next = self.match_slot.val() | self.slot_number[k].val();
                    self.match_upcall.next =
                        self.match_upcall.val() | (self.s_state[k].q.val() == SlotState::Upcall);
                    self.match_receiving.next = self.match_receiving.val()
                        | (self.s_state[k].q.val() == SlotState::Receiving);
                    self.match_complete.next = self.match_complete.val()
                        | (self.s_state[k].q.val() == SlotState::Complete);
                    self.match_over.next = self.match_over.val()
                        | (self.s_state[k].q.val() == SlotState::Ended)
                        | (self.s_state[k].q.val() == SlotState::Dropped);
                }
                if self.target.val() == self.slot_number[k].val() {
                    self.target_busy.next = true;
                }
            } else if !self.free.val() {
                self.free.next = true;
                self.free_slot.next = self.slot_number[k].val();
            }
            if self.s_due[k].q.val() & !self.due_slots.val().any() {
                self.due_slots.next = self.probe.val();
            }
            self.probe.next = self.probe.val() << 1;
        }
        self.due.next = self.due_slots.val().any();

        // ---- Per slot: the clean-up timer, the pick, the action (§11.5).
        self.new_limit.next = self.len.val().get_bits::<13>(0);
        // A compare with a constant as masks and OR trees: yosys would build a 32-bit carry
        // chain for `>` (13 CCU2C on the ECP5).
        if (self.len.val() & self.from_mtu.val()).any() & (self.len.val() != self.mtu_len.val()) {
            self.new_limit.next = self.mtu_limit.val();
        }
        for k in 0..self._n {
            self.hit.next = (self.action_slot.val() == self.slot_number[k].val())
                & (self.action.val() != Action::None);
            self.due_next.next =
                self.s_due[k].q.val() & !(self.picked.val() & self.due_slots.val().get_bit(k));
            if ((self.s_state[k].q.val() == SlotState::Ended)
                | (self.s_state[k].q.val() == SlotState::Dropped))
                & !self.s_due[k].q.val()
                & !self.hit.val()
                & (self.s_deadline[k].q.val() == self.now.q.val())
            {
                self.s_state[k].d.next = SlotState::Free;
            }
            if self.picked.val()
                & self.due_slots.val().get_bit(k)
                & (self.s_state[k].q.val() != SlotState::Receiving)
            {
                self.s_deadline[k].d.next =
                    (self.now.q.val() + self.timeout_end.val()) & self.time_mask.val();
            }
            if self.hit.val() {
                if (self.action.val() == Action::New) | (self.action.val() == Action::AbortNew) {
                    self.s_src[k].d.next = self.key_node.val() & self.node_mask.val();
                    self.s_msg_id[k].d.next = self.key_msg_id.val();
                    if self.action.val() == Action::New {
                        self.s_state[k].d.next = SlotState::Upcall;
                    } else {
                        self.s_state[k].d.next = SlotState::Dropped;
                        self.due_next.next = true;
                    }
                } else if self.action.val() == Action::InSequence {
                    if self.finish.val() {
                        self.s_state[k].d.next = SlotState::Complete;
                        self.s_grant[k].d.next = self.empty_grant.val();
                        self.due_next.next = false;
                    } else if self.new_cts.val() {
                        self.s_grant[k].d.next = self.allowance.val() & self.grant_mask.val();
                        self.due_next.next = true;
                    } else if self.s_grant[k].q.val().any() {
                        self.s_grant[k].d.next = (self.s_grant[k].q.val() - self.grant_step.val())
                            & self.grant_mask.val();
                    }
                } else if self.action.val() == Action::Again {
                    self.due_next.next = true;
                } else if self.action.val() == Action::Free {
                    self.s_state[k].d.next = SlotState::Free;
                    self.due_next.next = false;
                } else if self.action.val() == Action::Abort {
                    self.s_state[k].d.next = SlotState::Dropped;
                    self.s_grant[k].d.next = self.empty_grant.val();
                    self.due_next.next = true;
                } else if self.action.val() == Action::Answer {
                    if self.answer_zero.val() {
                        self.s_state[k].d.next = SlotState::Dropped;
                        self.due_next.next = true;
                    } else if self.answer_cts.val() {
                        self.s_state[k].d.next = SlotState::Receiving;
                        self.s_grant[k].d.next = self.allowance.val() & self.grant_mask.val();
                        self.due_next.next = true;
                    } else {
                        self.s_state[k].d.next = SlotState::Complete;
                    }
                } else {
                    // Delivered.
                    self.s_state[k].d.next = SlotState::Ended;
                    self.due_next.next = true;
                }
            }
            self.s_due[k].d.next = self.due_next.val();
        }

        // ---- The fields a new message brings, written once into the slot it takes.
        self.m_src.write_enable.next =
            (self.action.val() == Action::New) | (self.action.val() == Action::AbortNew);
        self.m_src.write_address.next = bit_cast::<5, 4>(self.action_slot.val());
        self.m_src.write_data.next = self.key_node.val() & self.node_mask.val();
        self.m_msg_id.write_enable.next = self.m_src.write_enable.val();
        self.m_msg_id.write_address.next = self.m_src.write_address.val();
        self.m_msg_id.write_data.next = self.key_msg_id.val();
        self.m_msg_num.write_enable.next = self.m_src.write_enable.val();
        self.m_msg_num.write_address.next = self.m_src.write_address.val();
        self.m_msg_num.write_data.next = self.msg_num.val();
        self.m_len.write_enable.next = self.m_src.write_enable.val();
        self.m_len.write_address.next = self.m_src.write_address.val();
        self.m_len.write_data.next = self.len.val();
        self.m_limit.write_address.next = bit_cast::<5, 4>(self.action_slot.val());
        self.m_limit.write_enable.next = false;
        self.m_limit.write_data.next = self.empty_limit.val();
        if self.action.val() == Action::New {
            self.m_limit.write_enable.next = true;
            self.m_limit.write_data.next = self.new_limit.val() & self.limit_mask.val();
        }
        if self.action.val() == Action::AbortNew {
            self.m_limit.write_enable.next = true;
        }
        if self.action.val() == Action::Answer {
            self.m_limit.write_enable.next = true;
            self.m_limit.write_data.next = self.answer_limit.val() & self.limit_mask.val();
        }

        // ---- The fields in-sequence data and the answer write at the action's slot: a CTS's
        // `n` and the sequence number expected next (the first after the answer, the packet's
        // successor after in-sequence data unless it restarts).
        self.m_next_seq.write_address.next = bit_cast::<5, 4>(self.action_slot.val());
        self.m_next_seq.write_enable.next = false;
        self.m_next_seq.write_data.next =
            (self.seq_low.val() + self.sequence_step.val()) & self.sequence_mask.val();
        self.m_cts_n.write_address.next = bit_cast::<5, 4>(self.action_slot.val());
        self.m_cts_n.write_enable.next = false;
        self.m_cts_n.write_data.next = self.allowance.val() & self.grant_mask.val();
        if self.action.val() == Action::InSequence {
            self.m_next_seq.write_enable.next = !self.restart.val();
            self.m_cts_n.write_enable.next = !self.finish.val() & self.new_cts.val();
        }
        if (self.action.val() == Action::Answer) & !self.answer_zero.val() & self.answer_cts.val() {
            self.m_next_seq.write_enable.next = true;
            self.m_next_seq.write_data.next = self.sequence_first.val();
            self.m_cts_n.write_enable.next = true;
        }

        // ---- ... read by slot number: the pick's (whatever it is when no reply is due), and
        // the upcall's and the delivery's, which read word `n`, never written, so zero, when
        // not valid.
        self.pick_slot.next = self.no_slot.val();
        for k in 0..self._n {
            if self.due_slots.val().get_bit(k) {
                self.pick_slot.next = self.pick_slot.val() | self.slot_number[k].val();
            }
        }
        self.up_address.next = self.no_word.val();
        if self.up_valid.val() {
            self.up_address.next = bit_cast::<5, 4>(self.up_slot.val());
        }
        self.dlv_address.next = self.no_word.val();
        if self.dlv_valid.val() {
            self.dlv_address.next = bit_cast::<5, 4>(self.dlv_slot.val());
        }
        self.m_src.read_address[0].next = bit_cast::<5, 4>(self.pick_slot.val());
        self.m_msg_id.read_address[0].next = bit_cast::<5, 4>(self.pick_slot.val());
        self.m_msg_num.read_address[0].next = bit_cast::<5, 4>(self.pick_slot.val());
        self.m_next_seq.read_address[0].next = bit_cast::<5, 4>(self.pick_slot.val());
        self.m_cts_n.read_address[0].next = bit_cast::<5, 4>(self.pick_slot.val());
        self.m_next_seq.read_address[1].next = bit_cast::<5, 4>(self.match_slot.val());
        self.m_src.read_address[1].next = self.up_address.val();
        self.m_msg_id.read_address[1].next = self.up_address.val();
        self.m_msg_num.read_address[1].next = self.up_address.val();
        self.m_len.read_address[0].next = self.up_address.val();
        self.pick_src.next = self.m_src.read_data[0].val();
        self.pick_msg_id.next = self.m_msg_id.read_data[0].val();
        self.pick_msg_num.next = self.m_msg_num.read_data[0].val();
        self.pick_next_seq.next = self.m_next_seq.read_data[0].val();
        self.pick_cts_n.next = self.m_cts_n.read_data[0].val();
        self.match_next_seq.next = self.m_next_seq.read_data[1].val();
        self.up_src.next = self.m_src.read_data[1].val();
        self.up_msg_id.next = self.m_msg_id.read_data[1].val();
        self.up_msg_num.next = self.m_msg_num.read_data[1].val();
        self.up_len.next = self.m_len.read_data[0].val();

        // ---- Fields of selected slots (one-hot or by number, OR-ed).
        self.target_grant.next = self.empty_grant.val();
        self.pick_receiving.next = false;
        self.pick_ended.next = false;
        self.read_busy.next = false;
        for k in 0..self._n {
            if self.target.val() == self.slot_number[k].val() {
                self.target_grant.next = self.target_grant.val() | self.s_grant[k].q.val();
            }
            if self.due_slots.val().get_bit(k) {
                self.pick_receiving.next =
                    self.pick_receiving.val() | (self.s_state[k].q.val() == SlotState::Receiving);
                self.pick_ended.next =
                    self.pick_ended.val() | (self.s_state[k].q.val() == SlotState::Ended);
            }
            if (self.read_slot.val() == self.slot_number[k].val())
                & (self.s_state[k].q.val() != SlotState::Free)
            {
                self.read_busy.next = true;
            }
        }
        // `limit` is written only by *new*, *abort new* and *answer* (at the action's slot), so
        // it is LUT RAM; a free slot reads as limit 0 through word `n`, never written, as
        // `limit` was cleared when a slot was freed.
        self.read_address.next = self.no_word.val();
        if self.read_busy.val() {
            self.read_address.next = bit_cast::<5, 4>(self.read_slot.val());
        }
        self.m_limit.read_address[0].next = bit_cast::<5, 4>(self.pick_slot.val());
        self.m_limit.read_address[1].next = bit_cast::<5, 4>(self.match_slot.val());
        self.m_limit.read_address[2].next = self.dlv_address.val();
        self.m_limit.read_address[3].next = self.read_address.val();
        self.pick_limit.next = self.m_limit.read_data[0].val();
        self.match_limit.next = self.m_limit.read_data[1].val();
        self.dlv_limit.next = self.m_limit.read_data[2].val();
        self.read_limit.next = self.m_limit.read_data[3].val();
    }
}
