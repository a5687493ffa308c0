//! The verdict of an RMPP packet (docs/protocol.md §11.5) and where its payload is written.

use idemnet_spec::rmpp::{RmppConfig, SELECTIVE_WINDOW};
use rust_hdl::prelude::*;

use super::{Action, DropReason};
use crate::c;

/// Takes the verdict of §11.5's table in the cycle header word 6 is consumed, from the slot
/// table as it was before the edge of header word 5, and latches it; then writes the payload
/// words as they arrive.
///
/// Ports (Verilog names, as a child `verdict$<port>`):
///
/// | port | dir | width | |
/// |------|-----|-------|-|
/// | `clock` | in | 1 | |
/// | `prepare` | in | 1 | header word 5 is consumed now: the slot table's side of the verdict is registered |
/// | `decide` | in | 1 | header word 6 of a well-formed packet is consumed now |
/// | `word` | in | 32 | the flit's data: `msgNum` when `decide`, a payload word when `payload_valid` |
/// | `payload_valid` | in | 1 | `word` is a payload word |
/// | `source`, `nid` | in | 16, 16 | the route's `src`, the header's `srcNID` |
/// | `is_rts`, `is_null`, `is_data`, `is_stop`, `is_to_sender` | in | 1 each | the packet's type, decoded |
/// | `seq` | in | 32 | the packet's `seq` |
/// | `seq_bytes`, `seq_far`, `seq_end_bytes`, `seq_end_far` | in | 14, 1, 14, 1 | `seq * mtu` and `(seq + 1) * mtu` modulo 16 KB, each with whether it is at least 16 KB |
/// | `expected` | in | 32 | `expected[srcNID]` (the RAM holds `expected - 1`) |
/// | `matched`, `match_slot` | in | 1, 4 | a busy slot holds (`srcNID`, `msgID`), and which (read with `prepare`, as every input from here to `free_slot`) |
/// | `match_upcall`, `match_receiving`, `match_complete`, `match_over` | in | 1 each | its state: UPCALL, RECEIVING, COMPLETE, ENDED or DROPPED |
/// | `match_next_seq`, `match_limit`, `match_held` | in | 11, 13, 16 | its `next_seq`, `limit` and `held` (§11.7: bit `i` for packet `next_seq + 1 + i`; zero unless `selective`) |
/// | `free`, `free_slot` | in | 1, 4 | a slot is free, and the lowest |
/// | `action`, `reason`, `target` | out | 4, 3, 4 | the latched verdict (registers): what the packet does, why it is dropped (`action` `None`), on which slot |
/// | `restart`, `finish`, `new_cts` | out | 1 each | (registers) an in-sequence packet restarts, completes the message, or asks for a new CTS |
/// | `resume` | out | 1 | (register) the in-sequence verdict is a *resume*: the packet after the one expected, not written, counted `sequence`, a new CTS naming the one expected |
/// | `alive` | out | 1 | (register) a data packet of a RECEIVING slot, whatever its verdict: its CTS timer starts again (§11.5) |
/// | `held`, `ask`, `advanced` | out | 16, 1, 11 | (registers, `selective` only, settled from the edge after `decide`) the target's `held` after a *held* or an in-sequence (not restart) packet; a *held* packet's predecessor is missing too, so its CTS is due; an in-sequence packet's new `next_seq`, past the packets held right behind it |
/// | `write_enable`, `write_address`, `write_data` | out | 1, 14, 32 | the buffer write of this cycle (combinational) |
///
/// Timing: the slot table's inputs (`matched` to `free_slot`) are registered at the edge of
/// `prepare` (`seen_*`), so the verdict's path starts from registers, not from the key compare
/// through the match's LUT-RAM reads (the node's critical path at 89.6 MHz on the ECP5 ran
/// `s_state` → `match_slot` → `m_next_seq` → `reason`). The verdict registers load at the edge
/// of `decide`; `seq`'s flags for the sequence check (it fits 11 bits, it is 1) are registered
/// from `seq`, latched at word 4, at every edge, so they are settled at word 6. The write
/// pointer (`waddr`) and
/// the bytes still to write (`remaining`) load then and step at each payload word. A payload
/// word is written when bytes are still to be written, with the bytes at or past the limit
/// zeroed (§11.5). The RAM's output is registered (`expected_held`) and `expected + 1` is
/// registered from that (`expected_next`) each cycle: the RAM is read at the `srcNID` latched
/// at word 1, so from word 5 on the register holds `expected[srcNID] + 1` (the RAM is written
/// only at a packet's action, never inside a header), and at word 6 the order check is one
/// compare of `word` with a register, not the RAM's output through an adder. The RAM's own
/// clock-to-output (5.8 ns for the ECP5's DP16KD) is not in series with the adder either: that
/// path was the ECP5 receive path's critical path once the action's were shortened.
/// The byte arithmetic against `limit` (at most 4096) is 14 bits wide: the receiver gives
/// `seq * mtu` and `(seq + 1) * mtu` in 14 bits with one "at or past 16 KB" bit each.
///
/// Selective acceptance (`cfg.selective`, §11.7): the *held* verdict is taken at `decide` with
/// the rest, from registers only (`seq - 1 - next_seq` in 11 bits, registered with the view at
/// `prepare`; its bit of the registered `held`; the byte check that `rem_in` shares), since the payload is written from the next
/// word on and a copy already held must not be overwritten by one whose CRC later fails. What
/// the action loads (`held`, `ask`, `advanced`, and `finish` of an in-sequence packet, which
/// takes the held run behind it in) is worked out at the edge after `decide` (`decided`), from
/// the run of ones at the bottom of `held` registered at `decide` (`run`): a packet acts two
/// edges after `decide` at the earliest (its CRC flit, then its action), so the action still
/// starts from registers, and the priority encoder, the adder and the byte compare stay off the
/// verdict's cycle. Without `selective`, these registers are constant and synthesis removes
/// them.
#[derive(LogicBlock)]
pub struct RmppVerdict {
    pub clock: Signal<In, Clock>,
    pub prepare: Signal<In, Bit>,
    pub decide: Signal<In, Bit>,
    pub word: Signal<In, Bits<32>>,
    pub payload_valid: Signal<In, Bit>,
    pub source: Signal<In, Bits<16>>,
    pub nid: Signal<In, Bits<16>>,
    pub is_rts: Signal<In, Bit>,
    pub is_null: Signal<In, Bit>,
    pub is_data: Signal<In, Bit>,
    pub is_stop: Signal<In, Bit>,
    pub is_to_sender: Signal<In, Bit>,
    pub seq: Signal<In, Bits<32>>,
    pub seq_bytes: Signal<In, Bits<14>>,
    pub seq_far: Signal<In, Bit>,
    pub seq_end_bytes: Signal<In, Bits<14>>,
    pub seq_end_far: Signal<In, Bit>,
    pub expected: Signal<In, Bits<32>>,
    pub matched: Signal<In, Bit>,
    pub match_slot: Signal<In, Bits<4>>,
    pub match_upcall: Signal<In, Bit>,
    pub match_receiving: Signal<In, Bit>,
    pub match_complete: Signal<In, Bit>,
    pub match_over: Signal<In, Bit>,
    pub match_next_seq: Signal<In, Bits<11>>,
    pub match_limit: Signal<In, Bits<13>>,
    pub match_held: Signal<In, Bits<16>>,
    pub free: Signal<In, Bit>,
    pub free_slot: Signal<In, Bits<4>>,
    pub action: Signal<Out, Action>,
    pub reason: Signal<Out, DropReason>,
    pub target: Signal<Out, Bits<4>>,
    pub restart: Signal<Out, Bit>,
    pub finish: Signal<Out, Bit>,
    pub new_cts: Signal<Out, Bit>,
    pub resume: Signal<Out, Bit>,
    pub alive: Signal<Out, Bit>,
    pub held: Signal<Out, Bits<16>>,
    pub ask: Signal<Out, Bit>,
    pub advanced: Signal<Out, Bits<11>>,
    pub write_enable: Signal<Out, Bit>,
    pub write_address: Signal<Out, Bits<14>>,
    pub write_data: Signal<Out, Bits<32>>,
    rx_v: DFF<Action>,
    rx_why: DFF<DropReason>,
    rx_tgt: DFF<Bits<4>>,
    rx_restart: DFF<Bit>,
    rx_fin: DFF<Bit>,
    rx_cts: DFF<Bit>,
    rx_resume: DFF<Bit>,
    rx_alive: DFF<Bit>,
    rx_waddr: DFF<Bits<14>>,
    rx_rem: DFF<Bits<6>>,
    expected_next: DFF<Bits<32>>,
    expected_held: DFF<Bits<32>>,
    // The slot table as it was before the edge of header word 5.
    seen_matched: DFF<Bit>,
    seen_match_slot: DFF<Bits<4>>,
    seen_upcall: DFF<Bit>,
    seen_receiving: DFF<Bit>,
    seen_complete: DFF<Bit>,
    seen_over: DFF<Bit>,
    /// `seq` fits the 11 bits of a slot's `next_seq`; `seq` is 1 (a restart's).
    seq_small: DFF<Bit>,
    seq_one: DFF<Bit>,
    /// `seq - 1` in 11 bits: a resume's `seq` is `next_seq + 1`.
    seq_before: DFF<Bits<11>>,
    seen_next_seq: DFF<Bits<11>>,
    seen_limit: DFF<Bits<13>>,
    seen_free: DFF<Bit>,
    seen_free_slot: DFF<Bits<4>>,
    // Selective acceptance (§11.7).
    seen_held: DFF<Bits<16>>,
    /// `seq - 1 - next_seq` of the matched slot, registered with the rest of the view.
    seen_ahead: DFF<Bits<11>>,
    seen_below_limit: DFF<Bit>,
    /// The number of ones at the bottom of `seen_held`: the packets held right behind the one
    /// expected (registered at every edge, settled at `decide`).
    run: DFF<Bits<5>>,
    /// `seq - 1 - next_seq` at `decide`: a *held* packet's bit in `held`.
    rx_ahead: DFF<Bits<4>>,
    decided: DFF<Bit>,
    rx_held: DFF<Bits<16>>,
    rx_ask: DFF<Bit>,
    rx_advanced: DFF<Bits<11>>,
    ahead: Signal<Local, Bits<11>>,
    fits: Signal<Local, Bit>,
    ahead_mask: Signal<Local, Bits<16>>,
    bytes_in: Signal<Local, Bit>,
    run_next: Signal<Local, Bits<5>>,
    run_open: Signal<Local, Bit>,
    ahead_bit: Signal<Local, Bits<16>>,
    advanced_next: Signal<Local, Bits<11>>,
    advanced_bytes: Signal<Local, Bits<17>>,
    selective: Constant<Bit>,
    held_window: Constant<Bits<11>>,
    held_lowest: Constant<Bits<16>>,
    run_full: Constant<Bits<5>>,
    run_bit: Vec<Constant<Bits<5>>>,
    log2_mtu: Constant<Bits<5>>,
    _window: usize,
    limit_wide: Signal<Local, Bits<14>>,
    limit_after_seq: Signal<Local, Bits<14>>,
    fin: Signal<Local, Bit>,
    rem_in: Signal<Local, Bits<6>>,
    seq_offset: Signal<Local, Bits<14>>,
    match_base: Signal<Local, Bits<14>>,
    free_base: Signal<Local, Bits<14>>,
    write_mask: Signal<Local, Bits<32>>,
    node: Constant<Bits<16>>,
    log2_mtu_words: Constant<Bits<6>>,
    slot_shift: Constant<Bits<6>>,
    slot_mask: Constant<Bits<14>>,
    word_mask: Constant<Bits<14>>,
    address_mask: Constant<Bits<14>>,
    address_step: Constant<Bits<14>>,
    word_bytes: Constant<Bits<6>>,
    seq_step: Constant<Bits<11>>,
    no_bytes: Constant<Bits<6>>,
    packet_bytes_max: Constant<Bits<6>>,
    packet_bytes_wide: Constant<Bits<14>>,
    whole_word: Constant<Bits<32>>,
}

impl RmppVerdict {
    /// The verdict of node `cfg.node`'s receive path, its buffer laid out for `cfg`.
    pub fn new(cfg: &RmppConfig) -> Self {
        let slot_bits = (cfg.rx_slots as u64).next_power_of_two().trailing_zeros() as u64;
        let slot_words_log2 = cfg.slot_words().trailing_zeros() as u64;
        Self {
            clock: Default::default(),
            prepare: Default::default(),
            decide: Default::default(),
            word: Default::default(),
            payload_valid: Default::default(),
            source: Default::default(),
            nid: Default::default(),
            is_rts: Default::default(),
            is_null: Default::default(),
            is_data: Default::default(),
            is_stop: Default::default(),
            is_to_sender: Default::default(),
            seq: Default::default(),
            seq_bytes: Default::default(),
            seq_far: Default::default(),
            seq_end_bytes: Default::default(),
            seq_end_far: Default::default(),
            expected: Default::default(),
            matched: Default::default(),
            match_slot: Default::default(),
            match_upcall: Default::default(),
            match_receiving: Default::default(),
            match_complete: Default::default(),
            match_over: Default::default(),
            match_next_seq: Default::default(),
            match_limit: Default::default(),
            match_held: Default::default(),
            free: Default::default(),
            free_slot: Default::default(),
            action: Default::default(),
            reason: Default::default(),
            target: Default::default(),
            restart: Default::default(),
            finish: Default::default(),
            new_cts: Default::default(),
            resume: Default::default(),
            alive: Default::default(),
            held: Default::default(),
            ask: Default::default(),
            advanced: Default::default(),
            write_enable: Default::default(),
            write_address: Default::default(),
            write_data: Default::default(),
            rx_v: Default::default(),
            rx_why: Default::default(),
            rx_tgt: Default::default(),
            rx_restart: Default::default(),
            rx_fin: Default::default(),
            rx_cts: Default::default(),
            rx_resume: Default::default(),
            rx_alive: Default::default(),
            rx_waddr: Default::default(),
            rx_rem: Default::default(),
            expected_next: Default::default(),
            expected_held: Default::default(),
            seen_matched: Default::default(),
            seen_match_slot: Default::default(),
            seen_upcall: Default::default(),
            seen_receiving: Default::default(),
            seen_complete: Default::default(),
            seen_over: Default::default(),
            seq_small: Default::default(),
            seq_one: Default::default(),
            seq_before: Default::default(),
            seen_next_seq: Default::default(),
            seen_limit: Default::default(),
            seen_free: Default::default(),
            seen_free_slot: Default::default(),
            seen_held: Default::default(),
            seen_ahead: Default::default(),
            seen_below_limit: Default::default(),
            run: Default::default(),
            rx_ahead: Default::default(),
            decided: Default::default(),
            rx_held: Default::default(),
            rx_ask: Default::default(),
            rx_advanced: Default::default(),
            ahead: Default::default(),
            fits: Default::default(),
            ahead_mask: Default::default(),
            bytes_in: Default::default(),
            run_next: Default::default(),
            run_open: Default::default(),
            ahead_bit: Default::default(),
            advanced_next: Default::default(),
            advanced_bytes: Default::default(),
            selective: Constant::new(cfg.selective),
            held_window: c(SELECTIVE_WINDOW as u64),
            held_lowest: c(1),
            run_full: c(SELECTIVE_WINDOW as u64),
            run_bit: (0..SELECTIVE_WINDOW as u64).map(c).collect(),
            log2_mtu: c(cfg.mtu.trailing_zeros() as u64),
            _window: SELECTIVE_WINDOW as usize,
            limit_wide: Default::default(),
            limit_after_seq: Default::default(),
            fin: Default::default(),
            rem_in: Default::default(),
            seq_offset: Default::default(),
            match_base: Default::default(),
            free_base: Default::default(),
            write_mask: Default::default(),
            node: c(cfg.node as u64),
            log2_mtu_words: c(cfg.mtu.trailing_zeros() as u64 - 2),
            slot_shift: c(slot_words_log2),
            slot_mask: c((1 << slot_bits) - 1),
            word_mask: c((1 << slot_words_log2) - 1),
            address_mask: c((1 << (slot_bits + slot_words_log2)) - 1),
            address_step: c(1),
            word_bytes: c(4),
            seq_step: c(1),
            no_bytes: c(0),
            packet_bytes_max: c(32),
            packet_bytes_wide: c(32),
            whole_word: c(0xFFFF_FFFF),
        }
    }
}

impl Logic for RmppVerdict {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            rx_v,
            rx_why,
            rx_tgt,
            rx_restart,
            rx_fin,
            rx_cts,
            rx_resume,
            rx_alive,
            rx_waddr,
            rx_rem,
            expected_next,
            expected_held,
            seen_matched,
            seen_match_slot,
            seen_upcall,
            seen_receiving,
            seen_complete,
            seen_over,
            seq_small,
            seq_one,
            seq_before,
            seen_next_seq,
            seen_limit,
            seen_free,
            seen_free_slot,
            seen_held,
            seen_ahead,
            seen_below_limit,
            run,
            rx_ahead,
            decided,
            rx_held,
            rx_ask,
            rx_advanced
        );
        if self.prepare.val() {
            self.seen_matched.d.next = self.matched.val();
            self.seen_match_slot.d.next = self.match_slot.val();
            self.seen_upcall.d.next = self.match_upcall.val();
            self.seen_receiving.d.next = self.match_receiving.val();
            self.seen_complete.d.next = self.match_complete.val();
            self.seen_over.d.next = self.match_over.val();
            self.seen_next_seq.d.next = self.match_next_seq.val();
            self.seen_limit.d.next = self.match_limit.val();
            self.seen_free.d.next = self.free.val();
            self.seen_free_slot.d.next = self.free_slot.val();
            if self.selective.val() {
                self.seen_held.d.next = self.match_held.val();
                // `seq - 1 - next_seq` (`!x` is `-x - 1`): `seq` is latched at word 4, so the
                // subtraction is done here, not in word 6's cycle, where it was the receive
                // path's critical path on the ECP5 (89.1 MHz).
                self.seen_ahead.d.next =
                    self.seq.val().get_bits::<11>(0) + !self.match_next_seq.val();
                // Likewise `seq * mtu < limit` (bar `seq_far`, a register by word 6): in word
                // 6's cycle the compare was the next critical path (93.9 MHz).
                self.seen_below_limit.d.next =
                    self.seq_bytes.val() < bit_cast::<14, 13>(self.match_limit.val());
            }
        }
        self.action.next = self.rx_v.q.val();
        self.reason.next = self.rx_why.q.val();
        self.target.next = self.rx_tgt.q.val();
        self.restart.next = self.rx_restart.q.val();
        self.finish.next = self.rx_fin.q.val();
        self.new_cts.next = self.rx_cts.q.val();
        self.resume.next = self.rx_resume.q.val();
        self.alive.next = self.rx_alive.q.val();
        self.held.next = self.rx_held.q.val();
        self.ask.next = self.rx_ask.q.val() & self.selective.val();
        self.advanced.next = self.rx_advanced.q.val();

        // `seq` is latched at word 4, so these hold its flags from the edge after, before word
        // 6: the sequence check at `decide` is an 11-bit compare and two registers, not two
        // 32-bit compares (the node's critical path on the ECP5 ran from `seq` through them
        // into `reason`, 96.1 MHz at 08ff07d).
        self.seq_small.d.next = !self.seq.val().get_bits::<21>(11).any();
        self.seq_one.d.next = self.seq.val() == 1;
        self.seq_before.d.next = self.seq.val().get_bits::<11>(0) - self.seq_step.val();

        // ---- What the verdict reads of the matching slot, and where the payload goes.
        self.expected_held.d.next = self.expected.val();
        self.expected_next.d.next = self.expected_held.q.val() + 1;
        self.limit_wide.next = bit_cast::<14, 13>(self.seen_limit.q.val());
        self.fin.next =
            self.seq_end_far.val() | (self.seq_end_bytes.val() >= self.limit_wide.val());
        self.limit_after_seq.next = self.limit_wide.val() - self.seq_bytes.val();
        self.rem_in.next = self.no_bytes.val();
        self.bytes_in.next = !self.seq_far.val() & (self.seq_bytes.val() < self.limit_wide.val());
        if self.bytes_in.val() {
            if self.limit_after_seq.val() > self.packet_bytes_wide.val() {
                self.rem_in.next = self.packet_bytes_max.val();
            } else {
                self.rem_in.next = self.limit_after_seq.val().get_bits::<6>(0);
            }
        }
        self.seq_offset.next =
            (self.seq.val().get_bits::<14>(0) << self.log2_mtu_words.val()) & self.word_mask.val();
        self.match_base.next = ((bit_cast::<14, 4>(self.seen_match_slot.q.val())
            & self.slot_mask.val())
            << self.slot_shift.val())
            | self.seq_offset.val();
        self.free_base.next = (bit_cast::<14, 4>(self.seen_free_slot.q.val())
            & self.slot_mask.val())
            << self.slot_shift.val();

        // ---- Selective acceptance (§11.7): whether the packet may be held, from registers only
        // (the packet's bit is `seq - 1 - next_seq`, registered at `prepare`), and the run of
        // packets held right behind the one expected, registered for the edge after `decide`.
        self.ahead.next = self.seen_ahead.q.val();
        self.ahead_mask.next = self.held_lowest.val() << bit_cast::<16, 11>(self.ahead.val());
        self.fits.next = self.selective.val()
            & self.seq_small.q.val()
            & (self.ahead.val() < self.held_window.val())
            & !(self.seen_held.q.val() & self.ahead_mask.val()).any()
            & !self.seq_far.val()
            & self.seen_below_limit.q.val();
        self.run_next.next = self.run_full.val();
        self.run_open.next = true;
        for k in 0..self._window {
            if self.run_open.val() & !self.seen_held.q.val().get_bit(k) {
                self.run_next.next = self.run_bit[k].val();
                self.run_open.next = false;
            }
        }
        if self.selective.val() {
            self.run.d.next = self.run_next.val();
        }
        self.decided.d.next = self.decide.val();
        self.ahead_bit.next = self.held_lowest.val() << bit_cast::<16, 4>(self.rx_ahead.q.val());
        self.advanced_next.next = self.seq.val().get_bits::<11>(0)
            + self.seq_step.val()
            + bit_cast::<11, 5>(self.run.q.val());
        self.advanced_bytes.next =
            bit_cast::<17, 11>(self.advanced_next.val()) << bit_cast::<17, 5>(self.log2_mtu.val());
        if self.selective.val() & self.decided.q.val() {
            if self.rx_v.q.val() == Action::Held {
                self.rx_held.d.next = self.seen_held.q.val() | self.ahead_bit.val();
                // Its predecessor is missing too: the packet itself, or a bit clear below it.
                self.rx_ask.d.next = !((self.seen_held.q.val() << 1) & self.ahead_bit.val()).any();
            } else {
                self.rx_held.d.next =
                    (self.seen_held.q.val() >> bit_cast::<16, 5>(self.run.q.val())) >> 1;
                self.rx_advanced.d.next = self.advanced_next.val();
                if (self.rx_v.q.val() == Action::InSequence) & !self.rx_restart.q.val() {
                    self.rx_fin.d.next =
                        self.advanced_bytes.val() >= bit_cast::<17, 13>(self.seen_limit.q.val());
                }
            }
        }

        // ---- The verdict (§11.5), in the order of its table.
        if self.decide.val() {
            self.rx_v.d.next = Action::None;
            self.rx_why.d.next = DropReason::None;
            self.rx_tgt.d.next = self.seen_match_slot.q.val();
            self.rx_restart.d.next = false;
            self.rx_fin.d.next = self.fin.val();
            // With `selective`, an in-sequence packet asks for the next block when its grant is
            // spent (the action knows), not at STOP_DATA, which may come before a missing one.
            self.rx_cts.d.next = self.is_stop.val() & !self.selective.val();
            self.rx_ahead.d.next = self.ahead.val().get_bits::<4>(0);
            self.rx_resume.d.next = false;
            self.rx_alive.d.next =
                self.is_data.val() & self.seen_matched.q.val() & self.seen_receiving.q.val();
            self.rx_waddr.d.next = self.match_base.val();
            self.rx_rem.d.next = self.no_bytes.val();
            if self.is_to_sender.val() {
                if self.nid.val() != self.node.val() {
                    self.rx_why.d.next = DropReason::NotSource;
                } else {
                    self.rx_v.d.next = Action::ToSender;
                }
            } else if self.nid.val() != self.source.val() {
                self.rx_why.d.next = DropReason::NotSource;
            } else if self.is_rts.val() | self.is_null.val() {
                if !self.seen_matched.q.val() {
                    if self.word.val() != self.expected_next.q.val() {
                        self.rx_why.d.next = DropReason::Order;
                    } else if !self.seen_free.q.val() {
                        self.rx_why.d.next = DropReason::TableFull;
                    } else {
                        self.rx_tgt.d.next = self.seen_free_slot.q.val();
                        if self.is_null.val() {
                            self.rx_v.d.next = Action::AbortNew;
                        } else {
                            self.rx_v.d.next = Action::New;
                            self.rx_waddr.d.next = self.free_base.val();
                            self.rx_rem.d.next = self.packet_bytes_max.val();
                        }
                    }
                } else if self.seen_upcall.q.val() | self.seen_complete.q.val() {
                    if self.is_null.val() {
                        self.rx_why.d.next = DropReason::Busy;
                    } else {
                        self.rx_why.d.next = DropReason::Duplicate;
                    }
                } else if self.seen_receiving.q.val() & self.is_null.val() {
                    self.rx_v.d.next = Action::Abort;
                } else {
                    self.rx_v.d.next = Action::Again;
                }
            } else if self.is_data.val() {
                if !self.seen_matched.q.val() {
                    self.rx_why.d.next = DropReason::Unknown;
                } else if self.seen_receiving.q.val() {
                    if self.seq_small.q.val()
                        & (self.seq.val().get_bits::<11>(0) == self.seen_next_seq.q.val())
                    {
                        self.rx_v.d.next = Action::InSequence;
                        self.rx_rem.d.next = self.rem_in.val();
                    } else if self.seq_one.q.val() {
                        // A restart: what is held stays (nothing written).
                        self.rx_v.d.next = Action::InSequence;
                        self.rx_restart.d.next = true;
                        self.rx_cts.d.next = true;
                    } else if self.fits.val() {
                        // Selective acceptance (§11.7): kept, written as in sequence.
                        self.rx_v.d.next = Action::Held;
                        self.rx_rem.d.next = self.rem_in.val();
                    } else if !self.selective.val()
                        & self.seq_small.q.val()
                        & (self.seq_before.q.val() == self.seen_next_seq.q.val())
                    {
                        // A resume (§11.7): the packet before this one is missing. Acts as a
                        // restart does (nothing written, `next_seq` kept, a new CTS), but is
                        // counted as the `sequence` drop it is, and never completes.
                        self.rx_v.d.next = Action::InSequence;
                        self.rx_restart.d.next = true;
                        self.rx_resume.d.next = true;
                        self.rx_cts.d.next = true;
                        self.rx_fin.d.next = false;
                    } else {
                        self.rx_why.d.next = DropReason::Sequence;
                    }
                } else if self.seen_upcall.q.val() {
                    self.rx_why.d.next = DropReason::Sequence;
                } else if self.seen_complete.q.val() {
                    self.rx_why.d.next = DropReason::Duplicate;
                } else {
                    self.rx_v.d.next = Action::Again;
                }
            } else {
                // GCH
                if !self.seen_matched.q.val() {
                    self.rx_why.d.next = DropReason::Unknown;
                } else if self.seen_over.q.val() {
                    self.rx_v.d.next = Action::Free;
                } else {
                    self.rx_why.d.next = DropReason::Sequence;
                }
            }
        }

        // ---- Payload words: written while bytes remain, the bytes past the limit zeroed.
        self.write_mask.next = self.whole_word.val();
        if self.rx_rem.q.val() < self.word_bytes.val() {
            self.write_mask.next =
                !(self.whole_word.val() >> (bit_cast::<8, 6>(self.rx_rem.q.val()) << 3));
        }
        self.write_address.next = self.rx_waddr.q.val();
        self.write_data.next = self.word.val() & self.write_mask.val();
        self.write_enable.next = false;
        if self.payload_valid.val() {
            if self.rx_rem.q.val().any() {
                self.write_enable.next = true;
            }
            if self.rx_rem.q.val() < self.word_bytes.val() {
                self.rx_rem.d.next = self.no_bytes.val();
            } else {
                self.rx_rem.d.next = self.rx_rem.q.val() - self.word_bytes.val();
            }
            self.rx_waddr.d.next =
                (self.rx_waddr.q.val() + self.address_step.val()) & self.address_mask.val();
        }
    }
}
