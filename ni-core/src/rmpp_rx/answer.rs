//! The upcall queue of the RMPP receive path and its answer register (docs/protocol.md §11.3,
//! §11.5): which message the upper layer is asked about, and what it answered.

use idemnet_spec::rmpp::RmppConfig;
use rust_hdl::prelude::*;

use super::SlotFifo;
use crate::c;

/// Queues the slots of new messages for their upcall and holds the upper layer's answer until
/// the slot table acts on it.
///
/// Ports (Verilog names, as a child `answer$<port>`):
///
/// | port | dir | width | |
/// |------|-----|-------|-|
/// | `clock` | in | 1 | |
/// | `opens`, `answers`, `open_slot` | in | 1, 1, 4 | the edge's one action is *new* (it queues `open_slot`, the verdict's target), is *answer* (it empties the register): two bits decoded from the action's sources (`RmppAction`'s `verdict_acts`, `answer_acts`) and the latched verdict, so the queue's write and count wait for no choice |
/// | `up_ready`, `up_accept` | in | 1, 32 | the upper layer takes the upcall shown, and the bytes it accepts |
/// | `up_capped` | in | 13 | `min(len, max_msg)` of the queue's first slot (the slot table's `up_capped`, read at `first`) |
/// | `up_valid`, `up_slot` | out | 1, 4 | an upcall is shown, and its slot (0 while none is) |
/// | `first` | out | 4 | the queue's first slot, shown or not (the slot table's `up_slot`) |
/// | `ready`, `slot` | out | 1, 4 | the answer register acts at this edge unless an action of higher priority does (§11.5), on that slot |
/// | `limit`, `zero`, `cts` | out | 13, 1, 1 | the accepted bytes `min(up_accept, len, max_msg)`, `up_accept` was 0, and `limit > mtu` (a CTS follows) |
///
/// Timing: `up_valid` is the queue's `pop_valid` while the register is empty, so an upcall is
/// shown only after the answer before it has acted; an upcall taken at edge `t` (`up_valid`
/// and `up_ready`) loads the slot, `up_accept` cut to 13 bits (a larger answer accepts more
/// than any `len`), `min(len, max_msg)` and whether `up_accept` was 0; at edge `t + 1` the
/// accepted bytes (the smaller of the two) and whether both exceed `mtu` are registered, and
/// `ready` rises, so the answer acts at edge `t + 2` at the earliest. Neither the queue's
/// lookup nor the minimum lies on one path with the other or with the action. Every output is a
/// register or a function of registers only; the *answer* action empties the register at its
/// edge.
#[derive(LogicBlock)]
pub struct UpcallAnswer {
    pub clock: Signal<In, Clock>,
    pub opens: Signal<In, Bit>,
    pub answers: Signal<In, Bit>,
    pub open_slot: Signal<In, Bits<4>>,
    pub up_ready: Signal<In, Bit>,
    pub up_accept: Signal<In, Bits<32>>,
    pub up_capped: Signal<In, Bits<13>>,
    pub up_valid: Signal<Out, Bit>,
    pub up_slot: Signal<Out, Bits<4>>,
    pub first: Signal<Out, Bits<4>>,
    pub ready: Signal<Out, Bit>,
    pub slot: Signal<Out, Bits<4>>,
    pub limit: Signal<Out, Bits<13>>,
    pub zero: Signal<Out, Bit>,
    pub cts: Signal<Out, Bit>,
    upcalls: SlotFifo,
    held: DFF<Bit>,
    acting: DFF<Bit>,
    held_slot: DFF<Bits<4>>,
    accepted: DFF<Bits<13>>,
    length: DFF<Bits<13>>,
    answer_limit: DFF<Bits<13>>,
    accepted_zero: DFF<Bit>,
    answer_cts: DFF<Bit>,
    shown: Signal<Local, Bit>,
    taken: Signal<Local, Bit>,
    accept_low: Signal<Local, Bits<13>>,
    /// The bits of a byte count at or above `mtu` (a power of two): `x > mtu` is a bit of
    /// them set and `x != mtu`.
    from_mtu: Constant<Bits<13>>,
    mtu_limit: Constant<Bits<13>>,
    accept_most: Constant<Bits<13>>,
    no_slot: Constant<Bits<4>>,
}

impl UpcallAnswer {
    /// The upcall queue of `cfg.rx_slots` slots and the answer register, for `cfg.max_msg` and
    /// `cfg.mtu`.
    pub fn new(cfg: &RmppConfig) -> Self {
        Self {
            clock: Default::default(),
            opens: Default::default(),
            answers: Default::default(),
            open_slot: Default::default(),
            up_ready: Default::default(),
            up_accept: Default::default(),
            up_capped: Default::default(),
            up_valid: Default::default(),
            up_slot: Default::default(),
            first: Default::default(),
            ready: Default::default(),
            slot: Default::default(),
            limit: Default::default(),
            zero: Default::default(),
            cts: Default::default(),
            upcalls: SlotFifo::new(cfg.rx_slots),
            held: Default::default(),
            acting: Default::default(),
            held_slot: Default::default(),
            accepted: Default::default(),
            length: Default::default(),
            answer_limit: Default::default(),
            accepted_zero: Default::default(),
            answer_cts: Default::default(),
            shown: Default::default(),
            taken: Default::default(),
            accept_low: Default::default(),
            from_mtu: c(!(cfg.mtu as u64 - 1) & 0x1FFF),
            mtu_limit: c(cfg.mtu as u64),
            accept_most: c(0x1FFF),
            no_slot: c(0),
        }
    }
}

impl Logic for UpcallAnswer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            held,
            acting,
            held_slot,
            accepted,
            length,
            answer_limit,
            accepted_zero,
            answer_cts
        );
        self.upcalls.clock.next = self.clock.val();
        self.shown.next = self.upcalls.pop_valid.val() & !self.held.q.val();
        self.taken.next = self.shown.val() & self.up_ready.val();
        self.upcalls.push_valid.next = self.opens.val();
        self.upcalls.push_data.next = self.open_slot.val();
        self.upcalls.pop_ready.next = self.taken.val();
        self.up_valid.next = self.shown.val();
        self.up_slot.next = self.no_slot.val();
        if self.shown.val() {
            self.up_slot.next = self.upcalls.pop_data.val();
        }
        self.first.next = self.upcalls.pop_data.val();

        // Compares with constants (powers of two) as masks and OR trees: yosys builds a carry
        // chain for each `>=` or `>` (19 CCU2C in all on the ECP5).
        self.accept_low.next = self.up_accept.val().get_bits::<13>(0);
        if (self.up_accept.val() >> 13).any() {
            self.accept_low.next = self.accept_most.val();
        }
        // `min(x, len) > mtu` is `x > mtu` and `len > mtu`: two compares beside the minimum's,
        // so that whether the answer sends a CTS is a flip-flop at its action, not a compare of
        // the accepted bytes in the action's cycle.
        self.answer_cts.d.next = (self.accepted.q.val() & self.from_mtu.val()).any()
            & (self.accepted.q.val() != self.mtu_limit.val())
            & (self.length.q.val() & self.from_mtu.val()).any()
            & (self.length.q.val() != self.mtu_limit.val());
        self.answer_limit.d.next = self.accepted.q.val();
        if self.accepted.q.val() >= self.length.q.val() {
            self.answer_limit.d.next = self.length.q.val();
        }
        if self.taken.val() {
            self.held.d.next = true;
            self.held_slot.d.next = self.upcalls.pop_data.val();
            self.accepted.d.next = self.accept_low.val();
            self.length.d.next = self.up_capped.val();
            self.accepted_zero.d.next = !self.up_accept.val().any();
        } else if self.answers.val() {
            self.held.d.next = false;
        }
        self.acting.d.next = self.held.q.val() & !self.answers.val();
        self.ready.next = self.acting.q.val();
        self.slot.next = self.held_slot.q.val();
        self.limit.next = self.answer_limit.q.val();
        self.zero.next = self.accepted_zero.q.val();
        self.cts.next = self.answer_cts.q.val();
    }
}
