//! The one action of an edge of the RMPP receive path and Figure 8's credit arithmetic
//! (docs/protocol.md §11.5).

use idemnet_spec::rmpp::RmppConfig;
use rust_hdl::prelude::*;

use super::{Action, DropReason};
use crate::c;

/// Says which source acts at this edge (the packet whose CRC flit was consumed at the edge
/// before, else the answer register, else the delivered register, neither of them while the
/// receiver awaits a CRC flit), counts the packets the verdict drops, and keeps `outstanding` (Figure 8: the grants given and
/// not yet used) with the allowance of a new CTS.
///
/// Ports (Verilog names, as a child `act$<port>`):
///
/// | port | dir | width | |
/// |------|-----|-------|-|
/// | `clock` | in | 1 | |
/// | `arrived`, `crc_flit` | in | 1, 1 | a tail at the CRC position is consumed now; its CRC is good and it is addressed to this node |
/// | `awaiting_crc` | in | 1 | a register: the receiver is at a worm's CRC position (before this edge's flit) |
/// | `verdict`, `reason`, `restart`, `finish`, `new_cts`, `resume`, `alive` | in | 4, 3, 1, 1, 1, 1, 1 | the latched verdict |
/// | `target_busy` | in | 1 | the verdict's slot is still busy (for the counters only: *replies again* to a freed slot counts `unknown`) |
/// | `answer_valid`, `answer_cts` | in | 1, 1 | the answer register, ready to act, and whether it accepts more than the first packet (RECEIVING, with a CTS) |
/// | `delivered_valid` | in | 1 | the delivered register holds a delivery |
/// | `target_grant` | in | 16 | the `grant` of `target` |
/// | `verdict_acts`, `answer_acts`, `delivered_acts` | out | 1, 1, 1 | which of the three acts now, if any: the action of this edge is then the latched `verdict`, *answer*, *delivered*, on the verdict's target, the answer's slot, the delivered register's slot (which this block does not need to see). There is no chosen action and no multiplexed slot: each consumer decodes what it needs from these bits and the registers beside them, so no decode waits for a choice (the node's critical path on the ECP5 ran from the choice into the slot fields' write enables) |
/// | `to_sender` | out | 1 | a CTS, MSGEND or MSGDROP for the send side passed its CRC now |
/// | `clears_due` | out | 1 | the packet acting now leaves `target` with no reply due (*free*, or *in sequence* with `finish`); from registers and the latched verdict only |
/// | `asks_cts` | out | 1 | the in-sequence packet acting now asks for a new CTS: its verdict's `new_cts`, or, with selective acceptance (§11.7), its grant is spent (it was at most 1 at its CRC flit's edge, `packet_spent`) |
/// | `allowance` | out | 16 | a new CTS's `n`: `clamp(max_rcv_buf - reserved - outstanding, 1, max_data_pkts)`, after the grant of the slot it is for is returned |
/// | `alive_acts` | out | 1 | a data packet of a RECEIVING slot (`alive`) passed its CRC and routing at the edge before: the verdict's target restarts its CTS timer now, whatever the verdict |
/// | `count_not_source` ... `count_restart` | out | 1 each | a packet dropped, by reason (a *resume* is a `sequence` drop that acts); a restart |
///
/// Timing: a packet acts at the edge after its CRC flit (§11.5): `crc_flit` and `arrived` are
/// registered (`packet`, `packet_good`), so the action, the counter strobes and the credit
/// arithmetic start from flip-flops and the CRC compare ends at one. `to_sender` alone is
/// combinational from `arrived`: it touches no state; the parent registers it and pulses
/// `snd_valid` at the packet's edge as well. The other outputs are combinational from the inputs and the registers here. The
/// answer and delivered registers are held back by `awaiting_crc`, a flip-flop, rather than by
/// `crc_flit`: with the flit's valid and tail bits the choice of the action was the first half
/// of the receive path's critical path on the ECP5 (receiver state to the slot registers'
/// clock enables).
///
/// Credits: `outstanding` changes at the action of an in-sequence or a *held* packet (one grant
/// used, or all returned when it completes or asks for a new CTS), an abort (all returned) and an answer with
/// a CTS. Nothing acts at a CRC flit's edge (the packet before has acted at least 8 edges
/// earlier), so `outstanding - grant[target]` is registered then (`packet_returned`, with
/// `packet_granted`: that grant is not 0) and is exact at the packet's action edge. An answer's
/// slot is in UPCALL, which holds no grant (grants are given only to RECEIVING slots and all
/// returned when they leave it, and an UPCALL slot leaves it only by its answer), so the
/// answer's `returned` is `outstanding` itself and no grant is looked up for it. The allowance
/// then comes from `returned` through [`CtsAllowance`] in one subtraction and two compares side
/// by side.
#[derive(LogicBlock)]
pub struct RmppAction {
    pub clock: Signal<In, Clock>,
    pub arrived: Signal<In, Bit>,
    pub crc_flit: Signal<In, Bit>,
    pub awaiting_crc: Signal<In, Bit>,
    pub verdict: Signal<In, Action>,
    pub reason: Signal<In, DropReason>,
    pub restart: Signal<In, Bit>,
    pub finish: Signal<In, Bit>,
    pub new_cts: Signal<In, Bit>,
    pub resume: Signal<In, Bit>,
    pub alive: Signal<In, Bit>,
    pub target_busy: Signal<In, Bit>,
    pub answer_valid: Signal<In, Bit>,
    pub answer_cts: Signal<In, Bit>,
    pub delivered_valid: Signal<In, Bit>,
    pub target_grant: Signal<In, Bits<16>>,
    pub verdict_acts: Signal<Out, Bit>,
    pub answer_acts: Signal<Out, Bit>,
    pub delivered_acts: Signal<Out, Bit>,
    pub to_sender: Signal<Out, Bit>,
    pub clears_due: Signal<Out, Bit>,
    pub alive_acts: Signal<Out, Bit>,
    pub asks_cts: Signal<Out, Bit>,
    pub allowance: Signal<Out, Bits<16>>,
    pub count_not_source: Signal<Out, Bit>,
    pub count_order: Signal<Out, Bit>,
    pub count_sequence: Signal<Out, Bit>,
    pub count_table_full: Signal<Out, Bit>,
    pub count_unknown: Signal<Out, Bit>,
    pub count_duplicate: Signal<Out, Bit>,
    pub count_busy: Signal<Out, Bit>,
    pub count_restart: Signal<Out, Bit>,
    outstanding: DFF<Bits<20>>,
    packet: DFF<Bit>,
    packet_good: DFF<Bit>,
    packet_returned: DFF<Bits<20>>,
    packet_granted: DFF<Bit>,
    /// The target's grant is at most 1 (registered at the CRC flit's edge, as `packet_granted`).
    packet_spent: DFF<Bit>,
    selective: Constant<Bit>,
    credit: CtsAllowance,
    outstanding_step: Constant<Bits<20>>,
}

impl RmppAction {
    /// The action and credits of a receive path with `cfg`'s `mtu`, `max_rcv_buf`, `reserved`
    /// and `max_data_pkts`.
    pub fn new(cfg: &RmppConfig) -> Self {
        Self {
            clock: Default::default(),
            arrived: Default::default(),
            crc_flit: Default::default(),
            awaiting_crc: Default::default(),
            verdict: Default::default(),
            reason: Default::default(),
            restart: Default::default(),
            finish: Default::default(),
            new_cts: Default::default(),
            resume: Default::default(),
            alive: Default::default(),
            target_busy: Default::default(),
            answer_valid: Default::default(),
            answer_cts: Default::default(),
            delivered_valid: Default::default(),
            target_grant: Default::default(),
            verdict_acts: Default::default(),
            answer_acts: Default::default(),
            delivered_acts: Default::default(),
            to_sender: Default::default(),
            clears_due: Default::default(),
            alive_acts: Default::default(),
            asks_cts: Default::default(),
            allowance: Default::default(),
            count_not_source: Default::default(),
            count_order: Default::default(),
            count_sequence: Default::default(),
            count_table_full: Default::default(),
            count_unknown: Default::default(),
            count_duplicate: Default::default(),
            count_busy: Default::default(),
            count_restart: Default::default(),
            outstanding: Default::default(),
            packet: Default::default(),
            packet_good: Default::default(),
            packet_returned: Default::default(),
            packet_granted: Default::default(),
            packet_spent: Default::default(),
            selective: Constant::new(cfg.selective),
            credit: CtsAllowance::new(cfg),
            outstanding_step: c(1),
        }
    }
}

impl Logic for RmppAction {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            outstanding,
            packet,
            packet_good,
            packet_returned,
            packet_granted,
            packet_spent
        );
        self.packet.d.next = self.crc_flit.val();
        self.packet_good.d.next = self.arrived.val();
        self.to_sender.next = self.arrived.val() & (self.verdict.val() == Action::ToSender);
        self.alive_acts.next = self.packet_good.q.val() & self.alive.val();
        // Neither *free* nor *in sequence* is `Again`, so a packet with either verdict acts
        // whenever it arrived good: no `target_busy` in this term.
        self.clears_due.next = self.packet_good.q.val()
            & ((self.verdict.val() == Action::Free)
                | ((self.verdict.val() == Action::InSequence) & self.finish.val()));
        self.count_not_source.next = false;
        self.count_order.next = false;
        self.count_sequence.next = false;
        self.count_table_full.next = false;
        self.count_unknown.next = false;
        self.count_duplicate.next = false;
        self.count_busy.next = false;
        self.count_restart.next = false;
        if self.packet_good.q.val() {
            if self.verdict.val() == Action::None {
                match self.reason.val() {
                    DropReason::NotSource => self.count_not_source.next = true,
                    DropReason::Order => self.count_order.next = true,
                    DropReason::Sequence => self.count_sequence.next = true,
                    DropReason::TableFull => self.count_table_full.next = true,
                    DropReason::Unknown => self.count_unknown.next = true,
                    DropReason::Duplicate => self.count_duplicate.next = true,
                    _ => self.count_busy.next = true,
                }
            }
            // *Replies again* to a slot its repeat timer freed since the verdict is dropped
            // as `unknown`: the slot itself ignores it (it sets a reply due only while busy), so
            // that no action waits for `target_busy`, a look-up over the slots; only the
            // counters, behind their own register, read it.
            if self.verdict.val() == Action::Again {
                self.count_duplicate.next = self.target_busy.val();
                self.count_unknown.next = !self.target_busy.val();
            }
            if (self.verdict.val() == Action::InSequence) & self.restart.val() {
                if self.resume.val() {
                    self.count_sequence.next = true;
                } else {
                    self.count_restart.next = true;
                }
            }
        }
        // The packet acts at the edge after its CRC flit unless it is dropped or for the send
        // side (pulsed at its CRC flit); else the answer register, else the delivered register,
        // neither while a packet's CRC flit is due or consumed.
        self.verdict_acts.next = self.packet_good.q.val()
            & (self.verdict.val() != Action::None)
            & (self.verdict.val() != Action::ToSender);
        self.answer_acts.next = !self.packet_good.q.val()
            & !self.packet.q.val()
            & !self.awaiting_crc.val()
            & self.answer_valid.val();
        self.delivered_acts.next = !self.packet_good.q.val()
            & !self.packet.q.val()
            & !self.awaiting_crc.val()
            & !self.answer_valid.val()
            & self.delivered_valid.val();

        // Figure 8: a new CTS's allowance, after the slot's grant is returned.
        self.packet_returned.d.next =
            self.outstanding.q.val() - bit_cast::<20, 16>(self.target_grant.val());
        self.packet_granted.d.next = self.target_grant.val().any();
        self.packet_spent.d.next = !self.target_grant.val().get_bits::<15>(1).any();
        // The model's rule (§11.5): the grant is used, then the block is in when none is left.
        self.asks_cts.next = self.new_cts.val()
            | (self.selective.val() & !self.restart.val() & self.packet_spent.q.val());
        self.credit.returned.next = self.outstanding.q.val();
        if self.packet.q.val() {
            self.credit.returned.next = self.packet_returned.q.val();
        }
        self.allowance.next = self.credit.allowance.val();
        if self.verdict_acts.val() & (self.verdict.val() == Action::InSequence) {
            if self.finish.val() {
                self.outstanding.d.next = self.packet_returned.q.val();
            } else if self.asks_cts.val() {
                self.outstanding.d.next = self.credit.total.val();
            } else if self.packet_granted.q.val() {
                self.outstanding.d.next = self.outstanding.q.val() - self.outstanding_step.val();
            }
        } else if self.selective.val()
            & self.verdict_acts.val()
            & (self.verdict.val() == Action::Held)
            & self.packet_granted.q.val()
        {
            self.outstanding.d.next = self.outstanding.q.val() - self.outstanding_step.val();
        } else if self.verdict_acts.val() & (self.verdict.val() == Action::Abort) {
            self.outstanding.d.next = self.packet_returned.q.val();
        } else if self.answer_acts.val() & self.answer_cts.val() {
            self.outstanding.d.next = self.credit.total.val();
        }
    }
}

/// Figure 8's allowance of a new CTS for one slot, from `returned = outstanding - grant` (the
/// slot's grants given back first): `allowance = clamp(max_rcv_buf - reserved - returned, 1,
/// max_data_pkts)`, signed, and `total = returned + allowance`, the new `outstanding`.
///
/// Ports (Verilog names, as a child `<name>$<port>`): `returned` (in, 20), `allowance` (out,
/// 16), `total` (out, 20). Timing: purely combinational; the two clamps are compares of
/// `returned` with constants, side by side with the subtraction, and `total` is `returned + 1`,
/// `returned + max_data_pkts` or `max_rcv_buf - reserved` itself, so no carry chain follows
/// another.
#[derive(LogicBlock)]
pub struct CtsAllowance {
    pub returned: Signal<In, Bits<20>>,
    pub allowance: Signal<Out, Bits<16>>,
    pub total: Signal<Out, Bits<20>>,
    at_least_one: Signal<Local, Bit>,
    at_most: Signal<Local, Bit>,
    headroom: Signal<Local, Bits<16>>,
    budget: Constant<Bits<20>>,
    budget_low: Constant<Bits<16>>,
    budget_positive: Constant<Bit>,
    most_below: Constant<Bits<20>>,
    most_reachable: Constant<Bit>,
    max_pkts_wide: Constant<Bits<20>>,
    max_pkts: Constant<Bits<16>>,
    allowance_min: Constant<Bits<16>>,
    allowance_min_wide: Constant<Bits<20>>,
}

impl CtsAllowance {
    /// The allowance with `cfg`'s `max_rcv_buf`, `reserved` and `max_data_pkts`.
    pub fn new(cfg: &RmppConfig) -> Self {
        // `budget - returned <= 0` is `returned >= budget`; `budget - returned > max_data_pkts`
        // is `returned < budget - max_data_pkts`. Where a bound is 0 or less, the flag beside it
        // decides and the compare's constant is 1, not 0: a compare with 0 is constant, which
        // Verilator refuses.
        let budget = cfg.max_rcv_buf as i64 - cfg.reserved as i64;
        let most_below = budget - cfg.max_data_pkts as i64;
        Self {
            returned: Default::default(),
            allowance: Default::default(),
            total: Default::default(),
            at_least_one: Default::default(),
            at_most: Default::default(),
            headroom: Default::default(),
            budget: c(budget.max(1) as u64),
            budget_low: c(budget.max(1) as u64),
            budget_positive: Constant::new(budget > 0),
            most_below: c(most_below.max(1) as u64),
            most_reachable: Constant::new(most_below > 0),
            max_pkts_wide: c(cfg.max_data_pkts as u64),
            max_pkts: c(cfg.max_data_pkts as u64),
            allowance_min: c(1),
            allowance_min_wide: c(1),
        }
    }
}

impl Logic for CtsAllowance {
    #[hdl_gen]
    fn update(&mut self) {
        self.at_least_one.next =
            !self.budget_positive.val() | (self.returned.val() >= self.budget.val());
        self.at_most.next =
            self.most_reachable.val() & (self.returned.val() < self.most_below.val());
        // Where it is the allowance, `budget - returned` is 1 to `max_data_pkts`: 16 bits of it.
        self.headroom.next = self.budget_low.val() - self.returned.val().get_bits::<16>(0);
        if self.at_least_one.val() {
            self.allowance.next = self.allowance_min.val();
            self.total.next = self.returned.val() + self.allowance_min_wide.val();
        } else if self.at_most.val() {
            self.allowance.next = self.max_pkts.val();
            self.total.next = self.returned.val() + self.max_pkts_wide.val();
        } else {
            self.allowance.next = self.headroom.val();
            self.total.next = self.budget.val();
        }
    }
}
