//! The self-test's scoreboard counters: the events of every node, summed (§14.3).

use rust_hdl::prelude::*;

/// Sums the one-cycle event pulses of all nodes into five 32-bit counters (§14.3).
///
/// Ports: `clock`; `clear` (in: the counters go to 0 at the next edge); `sent$p`, `lost$p`
/// (in, from the sources), `delivered$p`, `duplicated$p`, `bad$p` (in, from the checkers);
/// `cnt_sent`, `cnt_delivered`, `cnt_duplicated`, `cnt_lost`, `cnt_bad` (out, 32, registers).
///
/// Timing: the pulses of cycle `t` are summed over the nodes into a register at edge `t` and
/// added to the counters at edge `t + 1` (shown in `O_(t+1)`); several nodes' pulses in one
/// cycle each count. The counters wrap. At an edge with `clear`, the counters and the sums not
/// yet added go to 0. Why the sums are registered: counted at once, the nodes' serial sum and
/// the 32-bit carry made the compact iCE40 image's critical path (75.4 MHz).
#[derive(LogicBlock)]
pub struct Tally {
    pub clock: Signal<In, Clock>,
    pub clear: Signal<In, Bit>,
    pub sent: Vec<Signal<In, Bit>>,
    pub lost: Vec<Signal<In, Bit>>,
    pub delivered: Vec<Signal<In, Bit>>,
    pub duplicated: Vec<Signal<In, Bit>>,
    pub bad: Vec<Signal<In, Bit>>,
    pub cnt_sent: Signal<Out, Bits<32>>,
    pub cnt_delivered: Signal<Out, Bits<32>>,
    pub cnt_duplicated: Signal<Out, Bits<32>>,
    pub cnt_lost: Signal<Out, Bits<32>>,
    pub cnt_bad: Signal<Out, Bits<32>>,
    c_sent: DFF<Bits<32>>,
    c_delivered: DFF<Bits<32>>,
    c_duplicated: DFF<Bits<32>>,
    c_lost: DFF<Bits<32>>,
    c_bad: DFF<Bits<32>>,
    // Pulse counts over the nodes (one adder into each counter, not one per node):
    // `a_x[p + 1]` is `a_x[p]` plus node p's pulse.
    a_sent: Vec<Signal<Local, Bits<5>>>,
    a_delivered: Vec<Signal<Local, Bits<5>>>,
    a_duplicated: Vec<Signal<Local, Bits<5>>>,
    a_lost: Vec<Signal<Local, Bits<5>>>,
    a_bad: Vec<Signal<Local, Bits<5>>>,
    n_sent: DFF<Bits<5>>,
    n_delivered: DFF<Bits<5>>,
    n_duplicated: DFF<Bits<5>>,
    n_lost: DFF<Bits<5>>,
    n_bad: DFF<Bits<5>>,
    zero32: Constant<Bits<32>>,
    zero5: Constant<Bits<5>>,
    one5: Constant<Bits<5>>,
    _nodes: usize,
}

fn v<T: Default>(n: usize) -> Vec<T> {
    (0..n).map(|_| T::default()).collect()
}

impl Tally {
    pub fn new(nodes: usize) -> Self {
        Self {
            clock: Default::default(),
            clear: Default::default(),
            sent: v(nodes),
            lost: v(nodes),
            delivered: v(nodes),
            duplicated: v(nodes),
            bad: v(nodes),
            cnt_sent: Default::default(),
            cnt_delivered: Default::default(),
            cnt_duplicated: Default::default(),
            cnt_lost: Default::default(),
            cnt_bad: Default::default(),
            c_sent: Default::default(),
            c_delivered: Default::default(),
            c_duplicated: Default::default(),
            c_lost: Default::default(),
            c_bad: Default::default(),
            a_sent: v(nodes + 1),
            a_delivered: v(nodes + 1),
            a_duplicated: v(nodes + 1),
            a_lost: v(nodes + 1),
            a_bad: v(nodes + 1),
            n_sent: Default::default(),
            n_delivered: Default::default(),
            n_duplicated: Default::default(),
            n_lost: Default::default(),
            n_bad: Default::default(),
            zero32: Constant::new(Bits::default()),
            zero5: Constant::new(Bits::default()),
            one5: Constant::new(Bits::from(1)),
            _nodes: nodes,
        }
    }
}

impl Logic for Tally {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            c_sent,
            c_delivered,
            c_duplicated,
            c_lost,
            c_bad,
            n_sent,
            n_delivered,
            n_duplicated,
            n_lost,
            n_bad
        );
        self.a_sent[0].next = self.zero5.val();
        self.a_delivered[0].next = self.zero5.val();
        self.a_duplicated[0].next = self.zero5.val();
        self.a_lost[0].next = self.zero5.val();
        self.a_bad[0].next = self.zero5.val();
        for p in 0..self._nodes {
            self.a_sent[p + 1].next = self.a_sent[p].val();
            if self.sent[p].val() {
                self.a_sent[p + 1].next = self.a_sent[p].val() + self.one5.val();
            }
            self.a_delivered[p + 1].next = self.a_delivered[p].val();
            if self.delivered[p].val() {
                self.a_delivered[p + 1].next = self.a_delivered[p].val() + self.one5.val();
            }
            self.a_duplicated[p + 1].next = self.a_duplicated[p].val();
            if self.duplicated[p].val() {
                self.a_duplicated[p + 1].next = self.a_duplicated[p].val() + self.one5.val();
            }
            self.a_lost[p + 1].next = self.a_lost[p].val();
            if self.lost[p].val() {
                self.a_lost[p + 1].next = self.a_lost[p].val() + self.one5.val();
            }
            self.a_bad[p + 1].next = self.a_bad[p].val();
            if self.bad[p].val() {
                self.a_bad[p + 1].next = self.a_bad[p].val() + self.one5.val();
            }
            self.n_sent.d.next = self.a_sent[p + 1].val();
            self.n_delivered.d.next = self.a_delivered[p + 1].val();
            self.n_duplicated.d.next = self.a_duplicated[p + 1].val();
            self.n_lost.d.next = self.a_lost[p + 1].val();
            self.n_bad.d.next = self.a_bad[p + 1].val();
        }
        self.c_sent.d.next = self.c_sent.q.val() + bit_cast::<32, 5>(self.n_sent.q.val());
        self.c_delivered.d.next =
            self.c_delivered.q.val() + bit_cast::<32, 5>(self.n_delivered.q.val());
        self.c_duplicated.d.next =
            self.c_duplicated.q.val() + bit_cast::<32, 5>(self.n_duplicated.q.val());
        self.c_lost.d.next = self.c_lost.q.val() + bit_cast::<32, 5>(self.n_lost.q.val());
        self.c_bad.d.next = self.c_bad.q.val() + bit_cast::<32, 5>(self.n_bad.q.val());
        if self.clear.val() {
            self.c_sent.d.next = self.zero32.val();
            self.c_delivered.d.next = self.zero32.val();
            self.c_duplicated.d.next = self.zero32.val();
            self.c_lost.d.next = self.zero32.val();
            self.c_bad.d.next = self.zero32.val();
            self.n_sent.d.next = self.zero5.val();
            self.n_delivered.d.next = self.zero5.val();
            self.n_duplicated.d.next = self.zero5.val();
            self.n_lost.d.next = self.zero5.val();
            self.n_bad.d.next = self.zero5.val();
        }
        self.cnt_sent.next = self.c_sent.q.val();
        self.cnt_delivered.next = self.c_delivered.q.val();
        self.cnt_duplicated.next = self.c_duplicated.q.val();
        self.cnt_lost.next = self.c_lost.q.val();
        self.cnt_bad.next = self.c_bad.q.val();
    }
}
