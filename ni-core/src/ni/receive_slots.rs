//! The NI's receive slots (docs/protocol.md §8.4): the uids held until their FORGET, and the
//! ACKs they owe.

use idemnet_rtl::first_set::FirstSet;
use idemnet_rtl::one_hot_mux::OneHotMux;
use idemnet_rtl::timer_bank::TimerBank;
use idemnet_spec::ni::NiConfig;
use rust_hdl::prelude::*;

use super::{c, vec_of, SLOTS, SLOT_BITS};

/// The receive slots of an NI: each holds a uid (`active`) and a timer that makes its ACK due
/// when it runs out; the lowest free slot takes an arriving SEND, the lowest due one is the ACK
/// the transmitter sends.
///
/// Ports (Verilog names, as a child `<name>$<port>`):
///
/// | port | dir | width | |
/// |------|-----|-------|-|
/// | `clock` | in | 1 | |
/// | `presented_uid` | in | 32 | the uid of the header word the receiver presents (its owner the route's `src`, §8.1) |
/// | `compare` | in | 1 | the receiver presents the header word: the slots holding `presented_uid` are kept at this edge |
/// | `take`, `take_uid` | in | 1, 32 | the lowest free slot takes this uid at this edge, its ACK due at once (see the constraint below) |
/// | `forget` | in | 1 | the slots kept at the last `compare` are freed at this edge (a FORGET; see the constraint below) |
/// | `ack_sent`, `sent_slot` | in | 1, 4 | the transmitter starts slot `sent_slot`'s ACK at this edge: its timer reloads if the slot is held before the edge (§8.5: a FORGET may have freed it since the pick) |
/// | `free`, `due` | out | 1, 1 | a slot was free in the last cycle (a register); a slot's ACK is due |
/// | `arriving_held` | out | 1 | a slot held the uid kept at a `compare` two edges or more before (a register) |
/// | `due_slot`, `due_uid` | out | 4, 32 | the lowest due slot and its uid (0 when none) |
///
/// Timing: `due`, `due_slot` and `due_uid` are combinational from the registers; the inputs act
/// at the edge. The slots' due mask is itself a register, loaded from the slots' and the ACK
/// timers' next state (exactly "held and its timer not running" of the state it shows), so that
/// the pick into the transmitter's registers starts at a flip-flop: from `receive_active`
/// through the timer's `running` it was the ECP5 node's critical path (nextpnr seed 1, 97.8 MHz).
/// The slots change only when a worm ends, and a worm cannot end at the edge its
/// header word is compared, so the match kept is the one of the state before the worm's verdict.
///
/// `free`, `arriving_held` and the slot a `take` fills are registered one edge late, which
/// takes the OR over the slots and the lowest-free pick off the path from the worm's verdict
/// to the slot registers (the iCE40 NI's critical path at eee0159). They are exact where they
/// are used: the slots change only at `take` and `forget` edges, which come from one arrived
/// worm's action (§8.4) and so are at least a worm's four flits apart, and a worm's action is
/// two edges or more after its header word's `compare`. That is this block's constraint on its
/// user: no `take` or `forget` at the edge after another one, and none at the edge after a
/// `compare`; the NI's co-simulations check the result against the golden model every cycle.
#[derive(LogicBlock)]
pub struct ReceiveSlots {
    pub clock: Signal<In, Clock>,
    pub presented_uid: Signal<In, Bits<32>>,
    pub take: Signal<In, Bit>,
    pub take_uid: Signal<In, Bits<32>>,
    pub compare: Signal<In, Bit>,
    pub forget: Signal<In, Bit>,
    pub ack_sent: Signal<In, Bit>,
    pub sent_slot: Signal<In, Bits<SLOT_BITS>>,
    pub free: Signal<Out, Bit>,
    pub due: Signal<Out, Bit>,
    pub arriving_held: Signal<Out, Bit>,
    pub due_slot: Signal<Out, Bits<SLOT_BITS>>,
    pub due_uid: Signal<Out, Bits<32>>,
    free_receive_slot: FirstSet<SLOTS, SLOT_BITS>,
    due_receive_slot: FirstSet<SLOTS, SLOT_BITS>,
    /// The lowest due slot's uid: an AND-OR, not a chain of `if`s (fewer LUT4; with the
    /// `FirstSet` before it abc may still map a chain: `OneHotMux`'s documentation).
    due_uid_mux: OneHotMux<32>,
    /// Each slot's ACK timer: its ACK is due while the slot is held and the timer not running.
    ack_timers: TimerBank,
    receive_active: Vec<DFF<Bit>>,
    receive_uid: Vec<DFF<Bits<32>>>,
    /// The slots whose ACK is due: held and their timer not running.
    due_mask: DFF<Bits<SLOTS>>,
    /// The slots holding the arriving uid, compared when the header word arrives.
    arriving_match: DFF<Bits<SLOTS>>,
    /// `arriving_match` has a bit set, one edge later.
    arriving_held_late: DFF<Bit>,
    /// A slot is free, and the lowest free one, one edge later. `free_late` is the OR of
    /// `free_one_hot_late`, kept as a register of its own so that no OR is on `take`'s path.
    free_late: DFF<Bit>,
    free_one_hot_late: Vec<DFF<Bit>>,
    probe: Signal<Local, Bits<SLOTS>>,
    receive_free: Signal<Local, Bits<SLOTS>>,
    /// The due mask after the edge.
    next_due: Signal<Local, Bits<SLOTS>>,
    /// One slot's `receive_active` after the edge.
    active_next: Signal<Local, Bit>,
    receive_match: Signal<Local, Bits<SLOTS>>,
    slot_none: Constant<Bits<SLOTS>>,
    slot_lowest: Constant<Bits<SLOTS>>,
    /// The ACK timers' spread: none (§8.5: only SENDs are spread).
    no_spread: Constant<Bits<16>>,
    _receive_slots: usize,
}

impl ReceiveSlots {
    /// The receive slots of `cfg`.
    pub fn new(cfg: &NiConfig) -> Self {
        let receive_slots = cfg.recv_slots;
        Self {
            clock: Default::default(),
            presented_uid: Default::default(),
            take: Default::default(),
            take_uid: Default::default(),
            compare: Default::default(),
            forget: Default::default(),
            ack_sent: Default::default(),
            sent_slot: Default::default(),
            free: Default::default(),
            due: Default::default(),
            arriving_held: Default::default(),
            due_slot: Default::default(),
            due_uid: Default::default(),
            free_receive_slot: FirstSet::new(),
            due_receive_slot: FirstSet::new(),
            due_uid_mux: OneHotMux::new(receive_slots),
            // The pick takes a cycle (§8.5): the timer runs `interval - 2` edges so that the ACK
            // repeats every `interval` cycles.
            ack_timers: TimerBank::new(receive_slots, cfg.ack_interval.saturating_sub(2)),
            receive_active: vec_of(receive_slots),
            receive_uid: vec_of(receive_slots),
            arriving_match: Default::default(),
            arriving_held_late: Default::default(),
            free_late: Default::default(),
            free_one_hot_late: vec_of(receive_slots),
            probe: Default::default(),
            receive_free: Default::default(),
            next_due: Default::default(),
            active_next: Default::default(),
            due_mask: Default::default(),
            receive_match: Default::default(),
            slot_none: c(0),
            slot_lowest: c(1),
            no_spread: c(0),
            _receive_slots: receive_slots,
        }
    }
}

impl Logic for ReceiveSlots {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- Registers and timers hold by default.
        self.ack_timers.clock.next = self.clock.val();
        self.ack_timers.spread.next = self.no_spread.val();
        for r in 0..self._receive_slots {
            self.receive_active[r].clock.next = self.clock.val();
            self.receive_uid[r].clock.next = self.clock.val();
            self.receive_active[r].d.next = self.receive_active[r].q.val();
            self.receive_uid[r].d.next = self.receive_uid[r].q.val();
            self.ack_timers.load[r].next = false;
            self.ack_timers.clear[r].next = false;
        }

        // ---- Slot masks over the state before the edge; the pickers take the lowest.
        self.receive_free.next = self.slot_none.val();
        self.receive_match.next = self.slot_none.val();
        self.probe.next = self.slot_lowest.val();
        for r in 0..self._receive_slots {
            if !self.receive_active[r].q.val() {
                self.receive_free.next = self.receive_free.val() | self.probe.val();
            }
            // A held uid is never taken into a second slot, so at most one slot matches.
            if self.receive_active[r].q.val()
                & (self.receive_uid[r].q.val() == self.presented_uid.val())
            {
                self.receive_match.next = self.receive_match.val() | self.probe.val();
            }
            self.probe.next = self.probe.val() << 1;
        }
        self.free_receive_slot.mask.next = self.receive_free.val();
        self.due_mask.clock.next = self.clock.val();
        self.due_receive_slot.mask.next = self.due_mask.q.val();
        self.free_late.clock.next = self.clock.val();
        self.free_late.d.next = self.free_receive_slot.any.val();
        for r in 0..self._receive_slots {
            self.free_one_hot_late[r].clock.next = self.clock.val();
            self.free_one_hot_late[r].d.next = self.free_receive_slot.one_hot.val().get_bit(r);
        }
        self.free.next = self.free_late.q.val();
        self.due.next = self.due_receive_slot.any.val();
        // Compared now, not when the worm ends: receive slots change only when a worm ends,
        // and this one cannot end before the next edge.
        self.arriving_match.clock.next = self.clock.val();
        self.arriving_match.d.next = self.arriving_match.q.val();
        if self.compare.val() {
            self.arriving_match.d.next = self.receive_match.val();
        }
        self.arriving_held_late.clock.next = self.clock.val();
        self.arriving_held_late.d.next = self.arriving_match.q.val().any();
        self.arriving_held.next = self.arriving_held_late.q.val();

        // ---- An accepted SEND takes the lowest free slot; a FORGET frees its slot.
        if self.take.val() {
            for r in 0..self._receive_slots {
                if self.free_one_hot_late[r].q.val() {
                    self.ack_timers.clear[r].next = true;
                }
            }
        }
        // A free slot's uid follows `take_uid`, so the one `take` fills holds its uid from
        // that edge: `take` (the worm's verdict, a long path) enables no uid register.
        for r in 0..self._receive_slots {
            if !self.receive_active[r].q.val() {
                self.receive_uid[r].d.next = self.take_uid.val();
            }
        }
        // A slot is held after the edge if `take` fills it or it was held, unless `forget` frees
        // it; its ACK is due after the edge if it is held and its timer does not run.
        self.next_due.next = self.slot_none.val();
        self.probe.next = self.slot_lowest.val();
        for r in 0..self._receive_slots {
            self.active_next.next = self.receive_active[r].q.val();
            if self.take.val() & self.free_one_hot_late[r].q.val() {
                self.active_next.next = true;
            }
            if self.forget.val() & self.arriving_match.q.val().get_bit(r) {
                self.active_next.next = false;
            }
            self.receive_active[r].d.next = self.active_next.val();
            if self.active_next.val() & !self.ack_timers.running_next[r].val() {
                self.next_due.next = self.next_due.val() | self.probe.val();
            }
            self.probe.next = self.probe.val() << 1;
        }
        self.due_mask.d.next = self.next_due.val();

        // ---- The lowest due slot's ACK is the transmitter's to pick; the started one's timer
        // reloads, unless a FORGET freed its slot since the pick.
        self.due_slot.next = self.due_receive_slot.index.val();
        for r in 0..self._receive_slots {
            self.due_uid_mux.select[r].next = self.due_receive_slot.one_hot.val().get_bit(r);
            self.due_uid_mux.data[r].next = self.receive_uid[r].q.val();
        }
        self.due_uid.next = self.due_uid_mux.word.val();
        for r in 0..self._receive_slots {
            if self.ack_sent.val()
                & (self.sent_slot.val() == r.to_bits())
                & self.receive_active[r].q.val()
            {
                self.ack_timers.load[r].next = true;
            }
        }
    }
}
