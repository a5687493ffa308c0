//! A queue of slot numbers: the upcall and delivery FIFOs of the RMPP receive path (docs/protocol.md
//! §11.4).

use rust_hdl::prelude::*;

/// A circular FIFO of up to `slots` 4-bit slot numbers; each slot is in it at most once, so it
/// never overflows.
///
/// Ports (Verilog names, as a child `<name>$<port>`):
///
/// | port | dir | width | |
/// |------|-----|-------|-|
/// | `clock` | in | 1 | |
/// | `push`, `push_slot` | in | 1, 4 | append a slot number at this edge |
/// | `pop` | in | 1 | remove the first at this edge (only while `not_empty`) |
/// | `not_empty`, `first` | out | 1, 4 | the queue holds a slot number, and the first one |
///
/// Timing: `not_empty` and `first` are combinational from the registers (`entry`, `head`,
/// `count`); a push and a pop at the same edge keep the count.
#[derive(LogicBlock)]
pub struct SlotQueue {
    pub clock: Signal<In, Clock>,
    pub push: Signal<In, Bit>,
    pub push_slot: Signal<In, Bits<4>>,
    pub pop: Signal<In, Bit>,
    pub not_empty: Signal<Out, Bit>,
    pub first: Signal<Out, Bits<4>>,
    entry: Vec<DFF<Bits<4>>>,
    head: DFF<Bits<5>>,
    count: DFF<Bits<5>>,
    write_position: Signal<Local, Bits<5>>,
    position: Vec<Constant<Bits<5>>>,
    position_first: Constant<Bits<5>>,
    position_last: Constant<Bits<5>>,
    position_step: Constant<Bits<5>>,
    slots: Constant<Bits<5>>,
    no_slot: Constant<Bits<4>>,
    _n: usize,
}

impl SlotQueue {
    /// A queue for `slots` slots (1..=16).
    pub fn new(slots: usize) -> Self {
        let c = |x: usize| Constant::new(Bits::from(x as u64));
        Self {
            clock: Default::default(),
            push: Default::default(),
            push_slot: Default::default(),
            pop: Default::default(),
            not_empty: Default::default(),
            first: Default::default(),
            entry: (0..slots).map(|_| Default::default()).collect(),
            head: Default::default(),
            count: Default::default(),
            write_position: Default::default(),
            position: (0..slots).map(c).collect(),
            position_first: c(0),
            position_last: c(slots - 1),
            position_step: c(1),
            slots: c(slots),
            no_slot: Constant::new(Bits::default()),
            _n: slots,
        }
    }
}

impl Logic for SlotQueue {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, head, count);
        for k in 0..self._n {
            self.entry[k].clock.next = self.clock.val();
            self.entry[k].d.next = self.entry[k].q.val();
        }
        self.not_empty.next = self.count.q.val().any();
        self.first.next = self.no_slot.val();
        for k in 0..self._n {
            if self.head.q.val() == self.position[k].val() {
                self.first.next = self.first.val() | self.entry[k].q.val();
            }
        }
        self.write_position.next = self.head.q.val() + self.count.q.val();
        if self.write_position.val() >= self.slots.val() {
            self.write_position.next = self.write_position.val() - self.slots.val();
        }
        for k in 0..self._n {
            if self.push.val() & (self.write_position.val() == self.position[k].val()) {
                self.entry[k].d.next = self.push_slot.val();
            }
        }
        if self.push.val() & !self.pop.val() {
            self.count.d.next = self.count.q.val() + self.position_step.val();
        }
        if self.pop.val() & !self.push.val() {
            self.count.d.next = self.count.q.val() - self.position_step.val();
        }
        if self.pop.val() {
            if self.head.q.val() == self.position_last.val() {
                self.head.d.next = self.position_first.val();
            } else {
                self.head.d.next = self.head.q.val() + self.position_step.val();
            }
        }
    }
}
