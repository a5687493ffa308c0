//! The NI's send slots (docs/protocol.md §8.4, §8.5) and the request stream that fills them.

use idemnet_rtl::fifo::Memory;
use idemnet_rtl::first_set::FirstSet;
use idemnet_rtl::lfsr::{ni_seed, SteppedLfsr};
use idemnet_rtl::one_hot_mux::OneHotMux;
use idemnet_rtl::request_reader::RequestReader;
use idemnet_rtl::timer_bank::TimerBank;
use idemnet_spec::ni::{NiConfig, PAYLOAD_WORDS};
use rust_hdl::prelude::*;

use super::{c, vec_of, SendState, SEND_ADDRESS_BITS, SLOTS, SLOT_BITS};

/// Bits of a request's beat index: a request has at most 8 beats, no header beats (§8.5).
const REQUEST_BEAT_BITS: usize = 3;

/// The send slots of an NI and the request stream (§8.5): a request is read by a
/// [`RequestReader`] into the lowest free slot, chosen at its first beat, its words into the
/// send payload memory ([`Memory::block`], 8 words a slot) as they come; it is committed at the
/// last beat of a well-formed request, its SEND due at once and repeated until the ACK, after
/// which its FORGET is due. Each repeat comes `retry_interval - retry_spread / 2 + r` cycles
/// after the SEND's start, `r` the low bits of an LFSR that steps at every SEND's start.
///
/// Ports (Verilog names, as a child `<name>$<port>`):
///
/// | port | dir | width | |
/// |------|-----|-------|-|
/// | `clock` | in | 1 | |
/// | `req_valid`, `req_data`, `req_last` | in | 1, 32, 1 | the request stream (§8.5) |
/// | `req_dst`, `req_len` | in | 16, 6 | read on a request's first beat |
/// | `arriving_counter` | in | 16 | the counter half of the arriving uid |
/// | `acknowledge` | in | 1 | an ACK of `arriving_counter` arrived: its waiting slot's FORGET is due after this edge |
/// | `forget_sent`, `send_sent`, `sent_slot` | in | 1, 1, 4 | the transmitter starts slot `sent_slot`'s FORGET (which frees it) / SEND at this edge (§8.5: the slot is busy) |
/// | `read_address` | in | 7 | the payload word read into `read_data` at this edge (slot, word) |
/// | `req_ready` | out | 1 | a slot is free: beats are taken (0 before the first edge) |
/// | `host_error` | out | 1 | a request beat is refused now (§8.5) |
/// | `acknowledged` | out | 1 | a busy slot holds `arriving_counter` |
/// | `forget_due`, `forget_slot`, `forget_destination`, `forget_counter` | out | 1, 4, 16, 16 | a FORGET is due, and the lowest FORGET-pending slot and its fields |
/// | `send_due`, `due_slot`, `due_destination`, `due_counter`, `due_length`, `due_transmitted` | out | 1, 4, 16, 16, 6, 1 | a SEND is due, and its slot and fields |
/// | `read_data` | out | 32 | the memory's read register |
///
/// Timing: `req_ready` and `read_data` are registers, `host_error` the request reader's, the
/// other outputs combinational from the registers (`acknowledged` also from
/// `arriving_counter`); the inputs act at the edge. `req_ready` after an edge says a slot was
/// free before it and not committed at it, or was freed at it.
#[derive(LogicBlock)]
pub struct SendSlots {
    pub clock: Signal<In, Clock>,
    pub req_valid: Signal<In, Bit>,
    pub req_data: Signal<In, Bits<32>>,
    pub req_last: Signal<In, Bit>,
    pub req_dst: Signal<In, Bits<16>>,
    pub req_len: Signal<In, Bits<6>>,
    pub arriving_counter: Signal<In, Bits<16>>,
    pub acknowledge: Signal<In, Bit>,
    pub forget_sent: Signal<In, Bit>,
    pub send_sent: Signal<In, Bit>,
    pub sent_slot: Signal<In, Bits<SLOT_BITS>>,
    pub read_address: Signal<In, Bits<SEND_ADDRESS_BITS>>,
    pub req_ready: Signal<Out, Bit>,
    pub host_error: Signal<Out, Bit>,
    pub acknowledged: Signal<Out, Bit>,
    pub forget_due: Signal<Out, Bit>,
    pub forget_slot: Signal<Out, Bits<SLOT_BITS>>,
    pub forget_destination: Signal<Out, Bits<16>>,
    pub forget_counter: Signal<Out, Bits<16>>,
    pub send_due: Signal<Out, Bit>,
    pub due_slot: Signal<Out, Bits<SLOT_BITS>>,
    pub due_destination: Signal<Out, Bits<16>>,
    pub due_counter: Signal<Out, Bits<16>>,
    pub due_length: Signal<Out, Bits<6>>,
    pub due_transmitted: Signal<Out, Bit>,
    pub read_data: Signal<Out, Bits<32>>,
    // The cells.
    send_payloads: Memory<Bits<32>, SEND_ADDRESS_BITS>,
    free_send_slot: FirstSet<SLOTS, SLOT_BITS>,
    forget_send_slot: FirstSet<SLOTS, SLOT_BITS>,
    due_send_slot: FirstSet<SLOTS, SLOT_BITS>,
    /// The lowest FORGET-pending slot's destination and counter, and the lowest due slot's
    /// destination, counter and length, packed: AND-OR multiplexers, not chains of `if`s.
    forget_fields: OneHotMux<32>,
    due_fields: OneHotMux<38>,
    requests: RequestReader<REQUEST_BEAT_BITS>,
    /// Each slot's retry timer: its SEND is due while it waits and the timer is not running.
    retry_timers: TimerBank,
    /// The retry spread's draws (§8.5): stepped at every SEND's start, its low bits added to
    /// the timer that start loads.
    retry_lfsr: SteppedLfsr,
    // Send slots.
    send_state: Vec<DFF<SendState>>,
    send_counter: Vec<DFF<Bits<16>>>,
    send_destination: Vec<DFF<Bits<16>>>,
    send_length: Vec<DFF<Bits<6>>>,
    send_transmitted: Vec<DFF<Bit>>,
    uid_counter: DFF<Bits<16>>,
    // The request stream: the slot and destination of a request, latched at its first beat.
    request_slot: DFF<Bits<SLOT_BITS>>,
    request_destination: DFF<Bits<16>>,
    request_ready: DFF<Bit>,
    // Combinational temporaries.
    probe: Signal<Local, Bits<SLOTS>>,
    send_free: Signal<Local, Bits<SLOTS>>,
    send_forget: Signal<Local, Bits<SLOTS>>,
    send_due_mask: Signal<Local, Bits<SLOTS>>,
    send_acknowledged: Signal<Local, Bits<SLOTS>>,
    send_committed: Signal<Local, Bits<SLOTS>>,
    send_freed: Signal<Local, Bits<SLOTS>>,
    request_word_mask: Signal<Local, Bits<32>>,
    commit_slot: Signal<Local, Bits<SLOT_BITS>>,
    /// A slot's fields, one slot at a time, packed into the pick's multiplexers.
    slot_destination: Signal<Local, Bits<16>>,
    slot_counter: Signal<Local, Bits<16>>,
    slot_length: Signal<Local, Bits<6>>,
    // Parameters and named values (rust-hdl writes integer literals 32 bits wide).
    slot_none: Constant<Bits<SLOTS>>,
    slot_lowest: Constant<Bits<SLOTS>>,
    /// The bytes of a request's final word by `bytes mod 4` (big-endian: the first byte in
    /// bits 31..24): four, one, two, three.
    final_word_masks: Vec<Constant<Bits<32>>>,
    _send_slots: usize,
}

impl SendSlots {
    /// The send slots of `cfg`.
    pub fn new(cfg: &NiConfig) -> Self {
        let send_slots = cfg.send_slots;
        Self {
            clock: Default::default(),
            req_valid: Default::default(),
            req_data: Default::default(),
            req_last: Default::default(),
            req_dst: Default::default(),
            req_len: Default::default(),
            arriving_counter: Default::default(),
            acknowledge: Default::default(),
            forget_sent: Default::default(),
            send_sent: Default::default(),
            sent_slot: Default::default(),
            read_address: Default::default(),
            req_ready: Default::default(),
            host_error: Default::default(),
            acknowledged: Default::default(),
            forget_due: Default::default(),
            forget_slot: Default::default(),
            forget_destination: Default::default(),
            forget_counter: Default::default(),
            send_due: Default::default(),
            due_slot: Default::default(),
            due_destination: Default::default(),
            due_counter: Default::default(),
            due_length: Default::default(),
            due_transmitted: Default::default(),
            read_data: Default::default(),
            send_payloads: Memory::block(SLOTS * PAYLOAD_WORDS),
            free_send_slot: FirstSet::new(),
            forget_send_slot: FirstSet::new(),
            due_send_slot: FirstSet::new(),
            forget_fields: OneHotMux::new(send_slots),
            due_fields: OneHotMux::new(send_slots),
            requests: RequestReader::new(0),
            // The pick takes a cycle (§8.5): the timer runs `interval - spread / 2 - 2 + r` edges
            // so that the SEND repeats `interval - spread / 2 + r` cycles after it started.
            retry_timers: TimerBank::spread(
                send_slots,
                (cfg.retry_interval - cfg.retry_spread / 2).saturating_sub(2),
                cfg.retry_spread,
            ),
            retry_lfsr: SteppedLfsr::new(ni_seed(cfg.node as usize)),
            send_state: vec_of(send_slots),
            send_counter: vec_of(send_slots),
            send_destination: vec_of(send_slots),
            send_length: vec_of(send_slots),
            send_transmitted: vec_of(send_slots),
            uid_counter: Default::default(),
            request_slot: Default::default(),
            request_destination: Default::default(),
            request_ready: Default::default(),
            probe: Default::default(),
            send_free: Default::default(),
            send_forget: Default::default(),
            send_due_mask: Default::default(),
            send_acknowledged: Default::default(),
            send_committed: Default::default(),
            send_freed: Default::default(),
            request_word_mask: Default::default(),
            commit_slot: Default::default(),
            slot_destination: Default::default(),
            slot_counter: Default::default(),
            slot_length: Default::default(),
            slot_none: c(0),
            slot_lowest: c(1),
            final_word_masks: [0xFFFF_FFFF, 0xFF00_0000, 0xFFFF_0000, 0xFFFF_FF00]
                .into_iter()
                .map(c)
                .collect(),
            _send_slots: send_slots,
        }
    }
}

impl Logic for SendSlots {
    #[hdl_gen]
    fn update(&mut self) {
        // ---- Registers and timers hold by default.
        self.retry_timers.clock.next = self.clock.val();
        self.retry_lfsr.clock.next = self.clock.val();
        self.retry_lfsr.advance.next = self.send_sent.val();
        self.retry_timers.spread.next = self.retry_lfsr.value.val();
        for s in 0..self._send_slots {
            self.send_state[s].clock.next = self.clock.val();
            self.send_counter[s].clock.next = self.clock.val();
            self.send_destination[s].clock.next = self.clock.val();
            self.send_length[s].clock.next = self.clock.val();
            self.send_transmitted[s].clock.next = self.clock.val();
            self.send_state[s].d.next = self.send_state[s].q.val();
            self.send_counter[s].d.next = self.send_counter[s].q.val();
            self.send_destination[s].d.next = self.send_destination[s].q.val();
            self.send_length[s].d.next = self.send_length[s].q.val();
            self.send_transmitted[s].d.next = self.send_transmitted[s].q.val();
            self.retry_timers.load[s].next = false;
            self.retry_timers.clear[s].next = false;
        }
        dff_setup!(
            self,
            clock,
            uid_counter,
            request_slot,
            request_destination,
            request_ready
        );
        self.send_payloads.clock.next = self.clock.val();
        self.requests.clock.next = self.clock.val();

        // ---- Slot masks over the state before the edge; the pickers take the lowest.
        self.send_free.next = self.slot_none.val();
        self.send_forget.next = self.slot_none.val();
        self.send_due_mask.next = self.slot_none.val();
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
                & !self.retry_timers.running[s].val()
            {
                self.send_due_mask.next = self.send_due_mask.val() | self.probe.val();
            }
            // Counters are unique among busy slots, so at most one slot matches.
            if (self.send_state[s].q.val() != SendState::Free)
                & (self.send_counter[s].q.val() == self.arriving_counter.val())
            {
                self.send_acknowledged.next = self.send_acknowledged.val() | self.probe.val();
            }
            self.probe.next = self.probe.val() << 1;
        }
        self.free_send_slot.mask.next = self.send_free.val();
        self.forget_send_slot.mask.next = self.send_forget.val();
        self.due_send_slot.mask.next = self.send_due_mask.val();
        self.acknowledged.next = self.send_acknowledged.val().any();

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
        // Bytes at or past the length are sent as zero (§8.1): only a well-formed request's
        // final beat holds any (a malformed one is never committed), and that word keeps
        // `bytes mod 4` bytes, four if 0, none of a request of no bytes (its one beat's first
        // `bytes`, the only `bytes` of 0). A table of four masks on two bits, not `bytes - 4 *
        // beat` and a shift: that subtraction lay on the node's critical path on the ECP5 (the
        // reader's state through it into the payload memory's data).
        self.request_word_mask.next = self.final_word_masks[0].val();
        if self.requests.final_beat.val() {
            for m in 0..4 {
                if self.requests.bytes.val().get_bits::<2>(0) == m.to_bits() {
                    self.request_word_mask.next = self.final_word_masks[m].val();
                }
            }
            if !self.requests.bytes.val().any() {
                self.request_word_mask.next = 0.into();
            }
        }
        self.send_payloads.write_enable.next =
            self.requests.taken.val() & self.requests.accepted.val();
        self.send_payloads.write_address.next =
            (bit_cast::<SEND_ADDRESS_BITS, SLOT_BITS>(self.commit_slot.val()) << 3)
                | bit_cast::<SEND_ADDRESS_BITS, 3>(self.requests.beat.val());
        self.send_payloads.write_data.next = self.req_data.val() & self.request_word_mask.val();
        self.host_error.next = self.requests.refused.val();
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
                    self.retry_timers.clear[s].next = true;
                    self.send_transmitted[s].d.next = false;
                }
                self.probe.next = self.probe.val() << 1;
            }
        }

        // ---- An ACK makes its waiting slot's FORGET due.
        if self.acknowledge.val() {
            for s in 0..self._send_slots {
                if self.send_acknowledged.val().get_bit(s)
                    & (self.send_state[s].q.val() == SendState::Waiting)
                {
                    self.send_state[s].d.next = SendState::ForgetPending;
                }
            }
        }

        // ---- The transmitter's pick (§8.5) reads the lowest FORGET-pending and the lowest due
        // slot; when it starts, a FORGET frees its slot and a SEND reloads its retry timer.
        self.forget_due.next = self.forget_send_slot.any.val();
        self.forget_slot.next = self.forget_send_slot.index.val();
        self.send_due.next = self.due_send_slot.any.val();
        self.due_slot.next = self.due_send_slot.index.val();
        self.due_transmitted.next = false;
        for s in 0..self._send_slots {
            self.forget_fields.select[s].next = self.forget_send_slot.one_hot.val().get_bit(s);
            // Named first: rust-hdl's `bit_cast` cannot take an indexed register.
            self.slot_destination.next = self.send_destination[s].q.val();
            self.slot_counter.next = self.send_counter[s].q.val();
            self.slot_length.next = self.send_length[s].q.val();
            self.forget_fields.data[s].next = (bit_cast::<32, 16>(self.slot_destination.val())
                << 16)
                | bit_cast::<32, 16>(self.slot_counter.val());
            self.due_fields.select[s].next = self.due_send_slot.one_hot.val().get_bit(s);
            self.due_fields.data[s].next = (bit_cast::<38, 16>(self.slot_destination.val()) << 22)
                | (bit_cast::<38, 16>(self.slot_counter.val()) << 6)
                | bit_cast::<38, 6>(self.slot_length.val());
            self.due_transmitted.next = self.due_transmitted.val()
                | (self.due_send_slot.one_hot.val().get_bit(s) & self.send_transmitted[s].q.val());
        }
        self.forget_destination.next = self.forget_fields.word.val().get_bits::<16>(16);
        self.forget_counter.next = self.forget_fields.word.val().get_bits::<16>(0);
        self.due_destination.next = self.due_fields.word.val().get_bits::<16>(22);
        self.due_counter.next = self.due_fields.word.val().get_bits::<16>(6);
        self.due_length.next = self.due_fields.word.val().get_bits::<6>(0);
        self.send_freed.next = self.slot_none.val();
        if self.forget_sent.val() {
            self.send_freed.next = self.slot_lowest.val() << self.sent_slot.val();
        }
        for s in 0..self._send_slots {
            if self.sent_slot.val() == s.to_bits() {
                if self.forget_sent.val() {
                    self.send_state[s].d.next = SendState::Free;
                }
                if self.send_sent.val() {
                    self.retry_timers.load[s].next = true;
                    self.send_transmitted[s].d.next = true;
                }
            }
        }
        self.send_payloads.read_address.next = self.read_address.val();
        self.read_data.next = self.send_payloads.read_data.val();

        // ---- req_ready after the edge: free before and not committed now, or freed now.
        self.request_ready.d.next =
            ((self.send_free.val() & !self.send_committed.val()) | self.send_freed.val()).any();
        self.req_ready.next = self.request_ready.q.val();
    }
}
