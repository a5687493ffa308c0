//! The message slots of the RMPP receive path (docs/protocol.md §11.4) and what each edge does
//! to them (§11.5).

use idemnet_spec::rmpp::RmppConfig;
use rust_hdl::prelude::*;

use super::slot_fields::{holding, SlotFields, SlotReads, SlotWrite};
use super::{Action, SlotState};
use crate::{c, vec_of};

/// The per-slot state of §11.4, the scans over it (lowest slot first, over the state before the
/// edge; the transmitter's pick round robin: the first slot with a reply due after the one
/// picked last, from a register `after_pick` of those slots, else the lowest) and the per-slot
/// part of the edge's action, the transmitter's pick and the two timers.
///
/// Ports (Verilog names, as a child `slots$<port>`):
///
/// | port | dir | width | |
/// |------|-----|-------|-|
/// | `clock` | in | 1 | |
/// | `write$*`, `delivered_acts`, `delivered_slot` | in | | the edge's action, as its three sources and their slots (the delivered register's beside the bundle: it writes no field), and the packet fields it writes ([`SlotWrite`]); its `key_node` and `key_msg_id` are also the key for `matched`, its `target` (the latched verdict's slot) the slot of `target_busy` and `target_grant`. Each slot knows it is the action's from the sources' bits and slots (decoded from registers), not from a multiplexer after a choice of the action: the node's critical path on the ECP5 ran from that choice through the multiplexer and its compare into the slot registers' enables |
/// | `ask` | in | 1 | a *held* packet acting now asks (§11.7): its slot's CTS is due |
/// | `clears_due` | in | 1 | the packet acting at this edge leaves `target` with no reply due (GCH's free, the last in-sequence packet): from registers only, so that `any_due` need not wait for the action's choice to know which slot it clears |
/// | `picked` | in | 1 | the transmitter starts the reply of the picked slot at this edge |
/// | `alive_acts` | in | 1 | a data packet of the RECEIVING slot `target` acts at this edge, whatever its verdict: that slot's repeat timer starts again |
/// | `awaiting_crc` | in | 1 | the receiver is at a worm's CRC position (a register): with its value of the edge before (`after_crc`, registered here), it marks the edges at which a packet may act (`after_crc` and not `awaiting_crc`: the CRC position was left), and no repeat fires at those |
/// | `up_valid`, `up_slot`, `dlv_valid`, `dlv_slot`, `read_slot` | in | 1, 4, 1, 4, 4 | slots whose fields are shown |
/// | `matched`, `match_slot` | out | 1, 4 | a busy slot holds the key, and which |
/// | `match_upcall`, `match_receiving`, `match_complete`, `match_over` | out | 1 x 4 | its state (ENDED or DROPPED: `over`) |
/// | `free`, `free_slot` | out | 1, 4 | some slot is free, and the lowest |
/// | `read_busy` | out | 1 | `read_slot` is busy (the read port shows nothing of a free slot) |
/// | `due`, `target_busy` | out | 1, 1 | a reply is due (a register, `any_due`: the OR of the slots' `reply_due` after the same edge); the `target` slot is busy (read by the counters and `any_due`: *replies again* sets a reply due only at a busy slot, which each slot knows of itself) |
/// | `target_grant` | out | 16 | the `grant` of `target` (the slot a packet that returns grants acts on; an answer's slot holds none) |
/// | `pick_receiving`, `pick_ended`, `pick_src` | out | 1, 1, 8 | the picked slot (the first with a reply due after the one picked last, else the lowest) is RECEIVING, ENDED; its `src`, from the key compare's flip-flops selected by the one-hot pick: the reply's route word is combinational from it in the pick's cycle, and read from LUT RAM at the encoded pick it was the ECP5 receive path's critical path (91.6 MHz) |
/// | `reads$*` | out | | ([`SlotReads`]) the picked slot: `pick_msg_id`, `pick_msg_num`, `pick_limit`, `pick_next_seq`, `pick_cts_n` (not defined while no reply is due); the matched slot's `match_next_seq` and `match_limit` (not defined while nothing matched); the fields of `up_slot` (zero unless `up_valid`), the `limit` of `dlv_slot` (zero unless `dlv_valid`), and `read_slot`'s `limit` |
///
/// Widths: the registers are as wide as the largest configuration (`src` 8, `limit` 13,
/// `next_seq` 11, `grant` and `cts_n` 16, the deadlines 21 bits); every value loaded into them
/// is masked to the bits the configuration's largest value needs (`nodes - 1`, `max_msg`,
/// `max_msg / mtu`, `max_data_pkts`, `gch_timeout + 1`, `reply_timeout`), so the bits above
/// are constant zero and synthesis removes them and the logic that reads them (with system16's
/// configuration: 4, 11, 6, 5, 14 and 8 bits).
///
/// The two timers of §11.5 are one free-running counter (`now`, modulo `2^W` with
/// `2^W > max(gch_timeout, reply_timeout) + 1`) and two deadlines per slot, each a compare
/// instead of a decrementer, a zero test and a load multiplexer:
///
/// - *The repeat*: the pick of a slot's reply, and a data packet of a RECEIVING slot, at edge `p`
///   set `repeat_at = now + reply_timeout` in the low `r` bits (`2^r > reply_timeout`) and clear
///   `ripe`; `ripe` is set at the edge at which the low bits of `now` equal `repeat_at`, edge
///   `p + reply_timeout`, and stays set. From edge `p + reply_timeout + 1` on, so, a RECEIVING,
///   ENDED or DROPPED slot with `ripe`, without `reply_due`, at an edge at which no packet may
///   act (`after_crc` and not `awaiting_crc`: the CRC position was left), sets `reply_due`, or frees
///   itself if it is ENDED or DROPPED and `expired`. That is §11.5's countdown, which runs at
///   every edge from its load and fires at the first such edge after it reaches 0.
/// - *`gch_timeout`*: the action that makes a slot ENDED or DROPPED at edge `e` sets
///   `deadline = now + gch_timeout` and clears `expired`; `expired` is set at the edge at which
///   `now == deadline`, edge `e + gch_timeout`, so from edge `e + gch_timeout + 1` on the slot
///   is expired, as the model's countdown from `gch_timeout` at `e` says.
///
/// Storage: the fields written at one slot an edge and read by slot number (`src`, `msg_id`,
/// `msg_num`, `len`, `limit`, `next_seq`, `cts_n`) are in LUT RAM, in the child
/// [`SlotFields`]. `src` and `msg_id` are kept in flip-flops as well, for the key compare, which
/// needs every slot at once. The fields that the timer or a free writes, or that an action
/// reads at its own slot (`state`, `grant`, `reply_due`, the deadline), are flip-flops.
///
/// Timing: every output is combinational from the inputs, the slot registers and the memories,
/// which change only at the edge; one-hot selections of slot fields are OR-ed (AND-OR muxes). The compare of
/// the key with each slot's (`src`, `msg_id`) is registered (`s_key_hit`), so `matched` and the
/// `match_*` outputs are the compare of the cycle before ANDed with `busy` now: the key is latched
/// at header words 1 and 2 and a slot's `src` and `msg_id` change only at a packet's action (the
/// edge after its CRC flit, at the latest the edge of the next worm's head, never inside a
/// header), so at word 5 (where the verdict reads the slot table, §11.5) that is the compare of
/// the state before the edge, and the 40-bit compares leave the verdict's path.
#[derive(LogicBlock)]
pub struct RmppSlots {
    pub clock: Signal<In, Clock>,
    pub write: SlotWrite,
    pub ask: Signal<In, Bit>,
    pub clears_due: Signal<In, Bit>,
    pub picked: Signal<In, Bit>,
    pub alive_acts: Signal<In, Bit>,
    pub awaiting_crc: Signal<In, Bit>,
    pub delivered_acts: Signal<In, Bit>,
    pub delivered_slot: Signal<In, Bits<4>>,
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
    pub free: Signal<Out, Bit>,
    pub free_slot: Signal<Out, Bits<4>>,
    pub due: Signal<Out, Bit>,
    pub target_busy: Signal<Out, Bit>,
    pub target_grant: Signal<Out, Bits<16>>,
    pub reads: SlotReads,
    pub pick_receiving: Signal<Out, Bit>,
    pub pick_ended: Signal<Out, Bit>,
    pub pick_src: Signal<Out, Bits<8>>,
    pub read_busy: Signal<Out, Bit>,
    s_state: Vec<DFF<SlotState>>,
    s_src: Vec<DFF<Bits<8>>>,
    s_msg_id: Vec<DFF<Bits<32>>>,
    fields: SlotFields,
    s_grant: Vec<DFF<Bits<16>>>,
    s_due: Vec<DFF<Bit>>,
    any_due: DFF<Bit>,
    s_deadline: Vec<DFF<Bits<21>>>,
    s_expired: Vec<DFF<Bit>>,
    s_repeat_at: Vec<DFF<Bits<21>>>,
    s_ripe: Vec<DFF<Bit>>,
    after_crc: DFF<Bit>,
    now: DFF<Bits<21>>,
    s_key_hit: Vec<DFF<Bit>>,
    /// The slots' `reply_due`, a bit each.
    due_slots: Signal<Local, Bits<16>>,
    /// Round robin (§11.5): the slots after the one picked last (none at power-on), those of
    /// them with a reply due, the lowest of these and the lowest of all (`x & -x`: a carry
    /// chain, not a scan of the slots one after another, whose chain of LUTs was the receive
    /// path's critical path on the ECP5, 76.4 MHz), and the slot picked: the first, else the
    /// second.
    after_pick: DFF<Bits<16>>,
    due_after_pick: Signal<Local, Bits<16>>,
    lowest_after_pick: Signal<Local, Bits<16>>,
    lowest_due: Signal<Local, Bits<16>>,
    pick_one: Signal<Local, Bits<16>>,
    /// The slots whose reply stays due unless picked; of them, those not picked (with the pick
    /// among the slots after the last, and with the pick the lowest of all).
    kept_slots: Signal<Local, Bits<16>>,
    after_rest: Signal<Local, Bits<16>>,
    due_rest: Signal<Local, Bits<16>>,
    /// The verdict, the answer register, the delivered register acts on this slot.
    hit_verdict: Signal<Local, Bit>,
    hit_answer: Signal<Local, Bit>,
    hit_delivered: Signal<Local, Bit>,
    /// The slot's repeat fires at this edge, it is ENDED or DROPPED, it is `alive_acts`'s
    /// target; and the OR of the repeats that set a reply due.
    repeat_now: Signal<Local, Bit>,
    over: Signal<Local, Bit>,
    alive_here: Signal<Local, Bit>,
    repeats_due: Signal<Local, Bit>,
    due_next: Signal<Local, Bit>,
    /// The edge's action sets the slot's `reply_due`, and to what.
    due_forced: Signal<Local, Bit>,
    due_value: Signal<Local, Bit>,
    due_after: Signal<Local, Bit>,
    /// `due_after` if the transmitter picks no reply at this edge, and if it does.
    due_kept: Signal<Local, Bit>,
    due_picked: Signal<Local, Bit>,
    due_set: Signal<Local, Bit>,
    pick_slot: Signal<Local, Bits<4>>,
    slot_number: Vec<Constant<Bits<4>>>,
    slot_bit: Vec<Constant<Bits<16>>>,
    slot_lowest: Constant<Bits<16>>,
    slot_none: Constant<Bits<16>>,
    no_slot: Constant<Bits<4>>,
    empty_grant: Constant<Bits<16>>,
    grant_step: Constant<Bits<16>>,
    time_step: Constant<Bits<21>>,
    timeout_end: Constant<Bits<21>>,
    repeat_end: Constant<Bits<21>>,
    repeat_mask: Constant<Bits<21>>,
    node_mask: Constant<Bits<8>>,
    no_node: Constant<Bits<8>>,
    grant_mask: Constant<Bits<16>>,
    time_mask: Constant<Bits<21>>,
    /// Selective acceptance (§11.7): the *held* verdict acts.
    selective: Constant<Bit>,
    _n: usize,
}

impl RmppSlots {
    /// `cfg.rx_slots` slots with `cfg`'s `mtu`, `gch_timeout` and `reply_timeout`.
    pub fn new(cfg: &RmppConfig) -> Self {
        let n = cfg.rx_slots;
        Self {
            clock: Default::default(),
            write: Default::default(),
            ask: Default::default(),
            clears_due: Default::default(),
            picked: Default::default(),
            alive_acts: Default::default(),
            awaiting_crc: Default::default(),
            delivered_acts: Default::default(),
            delivered_slot: Default::default(),
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
            free: Default::default(),
            free_slot: Default::default(),
            due: Default::default(),
            target_busy: Default::default(),
            target_grant: Default::default(),
            reads: Default::default(),
            pick_receiving: Default::default(),
            pick_ended: Default::default(),
            pick_src: Default::default(),
            s_state: vec_of(n),
            s_src: vec_of(n),
            s_msg_id: vec_of(n),
            fields: SlotFields::new(cfg),
            s_grant: vec_of(n),
            s_due: vec_of(n),
            any_due: Default::default(),
            s_deadline: vec_of(n),
            s_expired: vec_of(n),
            s_repeat_at: vec_of(n),
            s_ripe: vec_of(n),
            after_crc: Default::default(),
            now: Default::default(),
            s_key_hit: vec_of(n),
            due_slots: Default::default(),
            after_pick: Default::default(),
            due_after_pick: Default::default(),
            lowest_after_pick: Default::default(),
            lowest_due: Default::default(),
            pick_one: Default::default(),
            kept_slots: Default::default(),
            after_rest: Default::default(),
            due_rest: Default::default(),
            hit_verdict: Default::default(),
            hit_answer: Default::default(),
            hit_delivered: Default::default(),
            repeat_now: Default::default(),
            over: Default::default(),
            alive_here: Default::default(),
            repeats_due: Default::default(),
            due_next: Default::default(),
            due_forced: Default::default(),
            due_value: Default::default(),
            due_after: Default::default(),
            due_kept: Default::default(),
            due_picked: Default::default(),
            due_set: Default::default(),
            read_busy: Default::default(),
            pick_slot: Default::default(),
            slot_number: (0..n).map(|k| c(k as u64)).collect(),
            slot_bit: (0..n).map(|k| c(1 << k)).collect(),
            slot_lowest: c(1),
            slot_none: c(0),
            no_slot: c(0),
            empty_grant: c(0),
            grant_step: c(1),
            time_step: c(1),
            timeout_end: c(cfg.gch_timeout as u64),
            repeat_end: c(cfg.reply_timeout as u64),
            repeat_mask: holding(cfg.reply_timeout as u64),
            node_mask: holding(cfg.nodes as u64 - 1),
            no_node: c(0),
            grant_mask: holding(cfg.max_data_pkts as u64),
            time_mask: holding(cfg.gch_timeout.max(cfg.reply_timeout) as u64 + 1),
            selective: Constant::new(cfg.selective),
            _n: n,
        }
    }
}

impl Logic for RmppSlots {
    #[hdl_gen]
    fn update(&mut self) {
        self.now.clock.next = self.clock.val();
        self.any_due.clock.next = self.clock.val();
        self.after_pick.clock.next = self.clock.val();
        self.after_crc.clock.next = self.clock.val();
        self.after_crc.d.next = self.awaiting_crc.val();
        self.now.d.next = (self.now.q.val() + self.time_step.val()) & self.time_mask.val();
        for k in 0..self._n {
            self.s_state[k].clock.next = self.clock.val();
            self.s_src[k].clock.next = self.clock.val();
            self.s_msg_id[k].clock.next = self.clock.val();
            self.s_grant[k].clock.next = self.clock.val();
            self.s_due[k].clock.next = self.clock.val();
            self.s_deadline[k].clock.next = self.clock.val();
            self.s_expired[k].clock.next = self.clock.val();
            self.s_repeat_at[k].clock.next = self.clock.val();
            self.s_ripe[k].clock.next = self.clock.val();
            self.s_key_hit[k].clock.next = self.clock.val();
            self.s_key_hit[k].d.next = (self.s_src[k].q.val()
                == (self.write.key_node.val() & self.node_mask.val()))
                & (self.s_msg_id[k].q.val() == self.write.key_msg_id.val());
            self.s_state[k].d.next = self.s_state[k].q.val();
            self.s_src[k].d.next = self.s_src[k].q.val();
            self.s_msg_id[k].d.next = self.s_msg_id[k].q.val();
            self.s_grant[k].d.next = self.s_grant[k].q.val();
            self.s_deadline[k].d.next = self.s_deadline[k].q.val();
            self.s_repeat_at[k].d.next = self.s_repeat_at[k].q.val();
            self.s_ripe[k].d.next = self.s_ripe[k].q.val()
                | ((self.now.q.val() & self.repeat_mask.val()) == self.s_repeat_at[k].q.val());
            self.s_expired[k].d.next =
                self.s_expired[k].q.val() | (self.s_deadline[k].q.val() == self.now.q.val());
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
                if self.write.target.val() == self.slot_number[k].val() {
                    self.target_busy.next = true;
                }
            } else if !self.free.val() {
                self.free.next = true;
                self.free_slot.next = self.slot_number[k].val();
            }
            if self.s_due[k].q.val() {
                self.due_slots.next = self.due_slots.val() | self.slot_bit[k].val();
            }
        }
        self.due_after_pick.next = self.due_slots.val() & self.after_pick.q.val();
        self.lowest_after_pick.next =
            self.due_after_pick.val() & (!self.due_after_pick.val() + self.slot_lowest.val());
        self.lowest_due.next =
            self.due_slots.val() & (!self.due_slots.val() + self.slot_lowest.val());
        self.pick_one.next = self.lowest_due.val();
        if self.due_after_pick.val().any() {
            self.pick_one.next = self.lowest_after_pick.val();
        }
        // At a pick, the slots above the one picked go first next time.
        self.after_pick.d.next = self.after_pick.q.val();
        if self.picked.val() {
            self.after_pick.d.next = !((self.pick_one.val() << 1) - self.slot_lowest.val());
        }
        // `due` is the OR of the `s_due` registers, kept in a register of its own: the merge's
        // grant (and through it the NI's pick) starts from a flip-flop, not from a 16-input OR.
        self.due.next = self.any_due.q.val();

        // ---- Per slot: the two timers, the pick, the action (§11.5).
        self.repeats_due.next = false;
        for k in 0..self._n {
            self.hit_verdict.next = self.write.verdict_acts.val()
                & (self.write.target.val() == self.slot_number[k].val());
            self.hit_answer.next = self.write.answer_acts.val()
                & (self.write.answer_slot.val() == self.slot_number[k].val());
            self.hit_delivered.next = self.delivered_acts.val()
                & (self.delivered_slot.val() == self.slot_number[k].val());
            self.due_forced.next = false;
            self.due_value.next = false;
            self.alive_here.next =
                self.alive_acts.val() & (self.write.target.val() == self.slot_number[k].val());
            self.over.next = (self.s_state[k].q.val() == SlotState::Ended)
                | (self.s_state[k].q.val() == SlotState::Dropped);
            // From registers alone: the repeats' reply due enters `any_due` through an OR of
            // the slots. With the action's target compare (`hit`) and the deadlines' compares
            // in it, that was the ECP5 receive path's critical path (99.1 MHz, seed 1); with
            // "an action acts" (from the action block's `packet` and `packet_good`, whose
            // fanout then grew), the iCE40's fell from 82.1 to 73.5 MHz. Only a packet's
            // action can meet a timed slot (the answer's and the delivered register's slots are
            // UPCALL and COMPLETE), and a packet acts only at an edge after one at which the
            // receiver awaited a CRC flit and at which it no longer does: no repeat fires there,
            // so none meets an action. Not at every edge after a CRC wait: a worm whose CRC
            // flit never comes leaves the receiver waiting until the next worm's head, and the
            // repeats must go on meanwhile (holding them, a slot past `gch_timeout` freed itself
            // at the head of its sender's restart and the message never completed).
            self.repeat_now.next = (self.over.val()
                | (self.s_state[k].q.val() == SlotState::Receiving))
                & !self.s_due[k].q.val()
                & !(self.after_crc.q.val() & !self.awaiting_crc.val())
                & self.s_ripe[k].q.val();
            if self.repeat_now.val() {
                if self.over.val() & self.s_expired[k].q.val() {
                    self.s_state[k].d.next = SlotState::Free;
                } else {
                    self.due_forced.next = true;
                    self.due_value.next = true;
                    self.repeats_due.next = true;
                }
            }
            if (self.picked.val() & self.pick_one.val().get_bit(k)) | self.alive_here.val() {
                self.s_repeat_at[k].d.next =
                    (self.now.q.val() + self.repeat_end.val()) & self.repeat_mask.val();
                self.s_ripe[k].d.next = false;
            }
            if self.hit_verdict.val() {
                if (self.write.verdict.val() == Action::New)
                    | (self.write.verdict.val() == Action::AbortNew)
                {
                    self.s_src[k].d.next = self.write.key_node.val() & self.node_mask.val();
                    self.s_msg_id[k].d.next = self.write.key_msg_id.val();
                    if self.write.verdict.val() == Action::New {
                        self.s_state[k].d.next = SlotState::Upcall;
                    } else {
                        self.s_state[k].d.next = SlotState::Dropped;
                        self.due_forced.next = true;
                        self.due_value.next = true;
                        self.s_deadline[k].d.next =
                            (self.now.q.val() + self.timeout_end.val()) & self.time_mask.val();
                        self.s_expired[k].d.next = false;
                    }
                } else if self.write.verdict.val() == Action::InSequence {
                    if self.write.finish.val() {
                        self.s_state[k].d.next = SlotState::Complete;
                        self.s_grant[k].d.next = self.empty_grant.val();
                        self.due_forced.next = true;
                        self.due_value.next = false;
                    } else if self.write.new_cts.val() {
                        self.s_grant[k].d.next = self.write.allowance.val() & self.grant_mask.val();
                        self.due_forced.next = true;
                        self.due_value.next = true;
                    } else if self.s_grant[k].q.val().any() {
                        self.s_grant[k].d.next = (self.s_grant[k].q.val() - self.grant_step.val())
                            & self.grant_mask.val();
                    }
                } else if self.write.verdict.val() == Action::Again {
                    // Not on a slot its repeat timer freed since the verdict (§11.5: dropped
                    // as `unknown`, which the action counts).
                    if self.s_state[k].q.val() != SlotState::Free {
                        self.due_forced.next = true;
                        self.due_value.next = true;
                    }
                } else if self.write.verdict.val() == Action::Free {
                    self.s_state[k].d.next = SlotState::Free;
                    self.due_forced.next = true;
                    self.due_value.next = false;
                } else if self.selective.val() & (self.write.verdict.val() == Action::Held) {
                    // Selective acceptance (§11.7): a grant used; the CTS as it stands, with
                    // what is held, if the packet before it is missing too.
                    if self.s_grant[k].q.val().any() {
                        self.s_grant[k].d.next = (self.s_grant[k].q.val() - self.grant_step.val())
                            & self.grant_mask.val();
                    }
                    if self.ask.val() {
                        self.due_forced.next = true;
                        self.due_value.next = true;
                    }
                } else {
                    // Abort (the verdicts that act are these seven).
                    self.s_state[k].d.next = SlotState::Dropped;
                    self.s_grant[k].d.next = self.empty_grant.val();
                    self.due_forced.next = true;
                    self.due_value.next = true;
                    self.s_deadline[k].d.next =
                        (self.now.q.val() + self.timeout_end.val()) & self.time_mask.val();
                    self.s_expired[k].d.next = false;
                }
            } else if self.hit_answer.val() {
                if self.write.answer_zero.val() {
                    self.s_state[k].d.next = SlotState::Dropped;
                    self.due_forced.next = true;
                    self.due_value.next = true;
                    self.s_deadline[k].d.next =
                        (self.now.q.val() + self.timeout_end.val()) & self.time_mask.val();
                    self.s_expired[k].d.next = false;
                } else if self.write.answer_cts.val() {
                    self.s_state[k].d.next = SlotState::Receiving;
                    self.s_grant[k].d.next = self.write.allowance.val() & self.grant_mask.val();
                    self.due_forced.next = true;
                    self.due_value.next = true;
                } else {
                    self.s_state[k].d.next = SlotState::Complete;
                }
            } else if self.hit_delivered.val() {
                self.s_state[k].d.next = SlotState::Ended;
                self.due_forced.next = true;
                self.due_value.next = true;
                self.s_deadline[k].d.next =
                    (self.now.q.val() + self.timeout_end.val()) & self.time_mask.val();
                self.s_expired[k].d.next = false;
            }
            // The action's choice, else the reply kept unless picked now; `picked` comes late
            // (the merge's grant), so it enters here and nowhere before.
            self.due_next.next = self.s_due[k].q.val();
            if self.picked.val() & self.pick_one.val().get_bit(k) {
                self.due_next.next = false;
            }
            if self.due_forced.val() {
                self.due_next.next = self.due_value.val();
            }
            self.s_due[k].d.next = self.due_next.val();
        }

        // ---- `any_due` after the edge: the OR of the `reply_due`s written above, taken apart so
        // that the action's choice reaches it through one signal, not through each slot's
        // `reply_due` and then a 16-input OR. A slot keeps its reply due unless it is picked or
        // the packet acting on it clears it (`clears_due`, from registers, at `target`); any
        // action that sets a reply due sets it on its own slot. These are the per-slot rules
        // above written a second way, and must agree with them: this block's own test checks
        // `due` against the OR of the slots every cycle under random edges (and catches a
        // `due_kept` that ignores `clears_due`, which the co-simulation's traffic never
        // exercised), and the co-simulation compares the transmitter's starts every cycle
        // (`cli/tests/mutation.rs` shows it catching a `due_set` without *delivered*).
        self.kept_slots.next = self.slot_none.val();
        for k in 0..self._n {
            if self.s_due[k].q.val()
                & !(self.clears_due.val() & (self.write.target.val() == self.slot_number[k].val()))
            {
                self.kept_slots.next = self.kept_slots.val() | self.slot_bit[k].val();
            }
        }
        self.due_kept.next = self.kept_slots.val().any();
        // The replies kept but the one picked, without waiting for the pick: the pick is the
        // lowest of `X` (`due_after_pick`, else `due_slots`), and `kept & !lowest(X)` is
        // `kept & (!X | (X - 1))`, which is `kept & (due_slots - 1)` for `X = due_slots`, as
        // `kept` lies within it. The carry chains run beside the pick's instead of after it:
        // through the pick, `any_due` was the ECP5 receive path's critical path (83.2 MHz).
        self.after_rest.next = self.kept_slots.val()
            & (!self.due_after_pick.val() | (self.due_after_pick.val() - self.slot_lowest.val()));
        self.due_rest.next =
            self.kept_slots.val() & (self.due_slots.val() - self.slot_lowest.val());
        self.due_picked.next = self.due_rest.val().any();
        if self.due_after_pick.val().any() {
            self.due_picked.next = self.after_rest.val().any();
        }
        // `picked` is the merge's grant, from the three sources' `due`s through the arbiter:
        // it chooses between the two ORs (a LUT) instead of entering each slot's term, so the
        // loop from `any_due` through the merge back to `any_due` has one level after it, not
        // four (the ECP5 node's critical path at 96.1 and 90.6 MHz, seeds 1 and 2, before).
        self.due_after.next = self.due_kept.val();
        if self.picked.val() {
            self.due_after.next = self.due_picked.val();
        }
        self.due_set.next = (self.write.verdict_acts.val()
            & ((self.write.verdict.val() == Action::AbortNew)
                | ((self.write.verdict.val() == Action::Again) & self.target_busy.val())
                | (self.write.verdict.val() == Action::Abort)
                | ((self.write.verdict.val() == Action::InSequence)
                    & !self.write.finish.val()
                    & self.write.new_cts.val())
                | (self.selective.val()
                    & (self.write.verdict.val() == Action::Held)
                    & self.ask.val())))
            | (self.write.answer_acts.val()
                & (self.write.answer_zero.val() | self.write.answer_cts.val()))
            | self.delivered_acts.val();
        self.any_due.d.next = self.due_after.val() | self.due_set.val() | self.repeats_due.val();

        // ---- The slot that the transmitter picks (whatever it is when no reply is due).
        self.pick_slot.next = self.no_slot.val();
        for k in 0..self._n {
            if self.pick_one.val().get_bit(k) {
                self.pick_slot.next = self.pick_slot.val() | self.slot_number[k].val();
            }
        }

        // ---- Fields of selected slots (one-hot or by number, OR-ed).
        self.target_grant.next = self.empty_grant.val();
        self.pick_receiving.next = false;
        self.pick_ended.next = false;
        self.pick_src.next = self.no_node.val();
        self.read_busy.next = false;
        for k in 0..self._n {
            if self.write.target.val() == self.slot_number[k].val() {
                self.target_grant.next = self.target_grant.val() | self.s_grant[k].q.val();
            }
            if self.pick_one.val().get_bit(k) {
                self.pick_receiving.next =
                    self.pick_receiving.val() | (self.s_state[k].q.val() == SlotState::Receiving);
                self.pick_ended.next =
                    self.pick_ended.val() | (self.s_state[k].q.val() == SlotState::Ended);
                self.pick_src.next = self.pick_src.val() | self.s_src[k].q.val();
            }
            if (self.read_slot.val() == self.slot_number[k].val())
                & (self.s_state[k].q.val() != SlotState::Free)
            {
                self.read_busy.next = true;
            }
        }

        // ---- The fields in LUT RAM, written at the action's slot and read by slot number.
        self.fields.clock.next = self.clock.val();
        SlotWrite::link(&mut self.write, &mut self.fields.write);
        SlotReads::link(&mut self.reads, &mut self.fields.reads);
        self.fields.pick_slot.next = self.pick_slot.val();
        self.fields.match_slot.next = self.match_slot.val();
        self.fields.up_valid.next = self.up_valid.val();
        self.fields.up_slot.next = self.up_slot.val();
        self.fields.dlv_valid.next = self.dlv_valid.val();
        self.fields.dlv_slot.next = self.dlv_slot.val();
        self.fields.read_slot.next = self.read_slot.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use idemnet_rtl::ports::port_list;
    use idemnet_spec::ports::PortDir;
    use std::collections::HashMap;

    /// The verdicts that act on a slot, with their Verilog codes (the order of [`Action`]).
    const VERDICTS: [(Action, u64); 7] = [
        (Action::New, 1),
        (Action::AbortNew, 2),
        (Action::InSequence, 3),
        (Action::Again, 4),
        (Action::Free, 5),
        (Action::Abort, 6),
        (Action::Held, 10),
    ];

    /// A 64-bit xorshift: the stimulus needs no more, and no dependency.
    struct Stimulus(u64);

    impl Stimulus {
        fn below(&mut self, n: u64) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0 % n
        }
    }

    /// Random edges of the slot table (each source acting on any slot with any verdict and
    /// fields, `clears_due` as the action block makes it, `picked` only while `due`), run on
    /// rust-hdl's simulation and on the Verilog that `edit` makes of the emitted one. Checks
    /// in rust-hdl, every cycle, that `due` (the register `any_due`, §11.5's "a reply is due"
    /// kept apart from the slots) is the OR of the slots' `reply_due`; returns the first cycle
    /// at which the Verilog's `due` differs from rust-hdl's, if any, and how many cycles a
    /// packet cleared a reply still due (the case the co-simulation's traffic never met).
    fn due_against(edit: impl FnOnce(String) -> String, cycles: u64) -> (Option<u64>, u64) {
        let cfg = RmppConfig {
            rx_slots: 4,
            gch_timeout: 40,
            reply_timeout: 6,
            selective: true,
            ..RmppConfig::default()
        };
        let n = cfg.rx_slots as u64;
        let mut uut = RmppSlots::new(&cfg);
        uut.connect_all();
        check_all(&uut).unwrap();
        let ports = port_list(&uut);
        let mut build =
            idemnet_cosim::VerilatorBuild::new("top", edit(generate_verilog(&uut)), ports.clone());
        build.trace = false;
        build.waivers = Some(idemnet_rtl::LINT_WAIVERS.into());
        let library = build
            .build(idemnet_cosim::default_cache_dir())
            .unwrap_or_else(|e| panic!("{e:#}"));
        let mut verilated = library.instance();
        let inputs: Vec<&str> = ports
            .iter()
            .filter(|p| p.dir == PortDir::In)
            .map(|p| p.name.as_str())
            .collect();
        let due_word = ports
            .iter()
            .filter(|p| p.dir == PortDir::Out)
            .position(|p| p.name == "due")
            .unwrap();
        let mut outputs = vec![0; idemnet_cosim::output_words(library.ports())];
        let mut random = Stimulus(0x9E37_79B9_7F4A_7C15);
        let (mut differs, mut cleared) = (None, 0);
        // A packet acts only at an edge after one at which the receiver awaited a CRC flit and
        // at which it no longer does (§11.5), as the block's own receiver guarantees; the
        // stimulus keeps that.
        let mut awaited = false;
        for cycle in 0..cycles {
            let due_now = uut.due.val();
            let (verdict, verdict_code) = VERDICTS[random.below(VERDICTS.len() as u64) as usize];
            let source = random.below(4);
            let mut word = HashMap::new();
            let mut set = |name: &str, value: u64| {
                word.insert(name.to_string(), value);
                value
            };
            let target = set("write$target", random.below(n));
            set("write$verdict", verdict_code);
            let awaiting_crc = set("awaiting_crc", random.below(2)) == 1;
            let packet_edge = awaited && !awaiting_crc;
            awaited = awaiting_crc;
            let verdict_acts =
                set("write$verdict_acts", u64::from(source == 0 && packet_edge)) == 1;
            let answer_acts = set("write$answer_acts", u64::from(source == 1)) == 1;
            let delivered_acts = set("delivered_acts", u64::from(source == 2)) == 1;
            let answer_slot = set("write$answer_slot", random.below(n));
            let delivered_slot = set("delivered_slot", random.below(n));
            let key_node = set("write$key_node", random.below(4));
            let key_msg_id = set("write$key_msg_id", random.below(4));
            let msg_num = set("write$msg_num", random.below(8));
            let len = set("write$len", random.below(2048));
            let seq_low = set("write$seq_low", random.below(64));
            let restart = set("write$restart", random.below(2)) == 1;
            let finish = set("write$finish", random.below(2)) == 1;
            let new_cts = set("write$new_cts", random.below(2)) == 1;
            let allowance = set("write$allowance", 1 + random.below(16));
            let held = set("write$held", random.below(1 << 16));
            let advanced = set("write$advanced", random.below(64));
            let ask = set("ask", random.below(2)) == 1;
            let answer_limit = set("write$answer_limit", random.below(1025));
            let answer_zero = set("write$answer_zero", random.below(4) / 3) == 1;
            let answer_cts = set("write$answer_cts", random.below(2)) == 1;
            let clears_due = verdict_acts
                && (verdict == Action::Free || (verdict == Action::InSequence && finish));
            set("clears_due", u64::from(clears_due));
            let picked = set("picked", u64::from(due_now && random.below(3) == 0)) == 1;
            let alive_acts = set("alive_acts", u64::from(packet_edge && random.below(4) == 0)) == 1;
            let up_valid = set("up_valid", random.below(2)) == 1;
            let up_slot = set("up_slot", random.below(n));
            let dlv_valid = set("dlv_valid", random.below(2)) == 1;
            let dlv_slot = set("dlv_slot", random.below(n));
            let read_slot = set("read_slot", random.below(n));
            let words: Vec<u64> = inputs.iter().map(|name| word[*name]).collect();

            uut.clock.next = false.into();
            uut.write.verdict.next = verdict;
            uut.write.target.next = target.to_bits();
            uut.write.verdict_acts.next = verdict_acts;
            uut.write.answer_acts.next = answer_acts;
            uut.delivered_acts.next = delivered_acts;
            uut.write.answer_slot.next = answer_slot.to_bits();
            uut.delivered_slot.next = delivered_slot.to_bits();
            uut.write.key_node.next = key_node.to_bits();
            uut.write.key_msg_id.next = key_msg_id.to_bits();
            uut.write.msg_num.next = msg_num.to_bits();
            uut.write.len.next = len.to_bits();
            uut.write.seq_low.next = seq_low.to_bits();
            uut.write.restart.next = restart;
            uut.write.finish.next = finish;
            uut.write.new_cts.next = new_cts;
            uut.write.allowance.next = allowance.to_bits();
            uut.write.held.next = held.to_bits();
            uut.write.advanced.next = advanced.to_bits();
            uut.ask.next = ask;
            uut.write.answer_limit.next = answer_limit.to_bits();
            uut.write.answer_zero.next = answer_zero;
            uut.write.answer_cts.next = answer_cts;
            uut.clears_due.next = clears_due;
            uut.picked.next = picked;
            uut.alive_acts.next = alive_acts;
            uut.awaiting_crc.next = awaiting_crc;
            uut.up_valid.next = up_valid;
            uut.up_slot.next = up_slot.to_bits();
            uut.dlv_valid.next = dlv_valid;
            uut.dlv_slot.next = dlv_slot.to_bits();
            uut.read_slot.next = read_slot.to_bits();
            assert!(simulate(&mut uut, 1000));
            if clears_due && uut.s_due[target as usize].q.val() && !picked {
                cleared += 1;
            }
            uut.clock.next = true.into();
            assert!(simulate(&mut uut, 1000));
            verilated.set_inputs(&words);
            verilated.tick();
            verilated.outputs(&mut outputs);

            let any = uut.s_due.iter().any(|d| d.q.val());
            assert_eq!(
                uut.due.val(),
                any,
                "cycle {cycle}: `due` is not the OR of the slots"
            );
            if differs.is_none() && (outputs[due_word] == 1) != uut.due.val() {
                differs = Some(cycle);
            }
        }
        (differs, cleared)
    }

    /// `due` is the OR of the slots' replies due after every edge, the emitted Verilog agrees,
    /// and mutants whose `any_due` ignores the reply a packet clears (`clears_due`) or the
    /// replies the repeat timers set are caught.
    #[test]
    fn due_is_the_or_of_the_slots_replies_due() {
        let (differs, cleared) = due_against(|v| v, 6000);
        assert_eq!(differs, None);
        assert!(
            cleared > 20,
            "a packet cleared a reply still due {cleared} times"
        );
        let (differs, _) = due_against(
            |v| {
                assert!(v.contains("~(clears_due & "), "the mutation's needle");
                v.replace("~(clears_due & ", "~(1'b0 & ")
            },
            3000,
        );
        assert!(differs.is_some(), "the mutant passed");
        // And one whose `any_due` misses the replies the repeat timers set (§11.5).
        let (differs, _) = due_against(
            |v| {
                let needle = "due_set | repeats_due;";
                assert!(v.contains(needle), "the mutation's needle");
                v.replace(needle, "due_set;")
            },
            3000,
        );
        assert!(differs.is_some(), "the mutant without the repeats passed");
    }
}
