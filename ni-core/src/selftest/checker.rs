//! The self-test's checker: one per node, taking every delivery of its NI (§14.2).

use super::source::MAGIC;
use rust_hdl::prelude::*;

/// Checks the deliveries of node `me`'s NI (docs/protocol.md §14.2).
///
/// Ports (Verilog names):
///
/// | port | dir | width | |
/// |------|-----|-------|-|
/// | `clock` | in | 1 | |
/// | `dlv_valid`, `dlv_data`, `dlv_last` | in | 1, 32, 1 | the NI's delivery stream, every beat taken (the self-test ties `dlv_ready` high) |
/// | `dlv_src`, `dlv_len` | in | 16, 6 | the datagram's source and payload bytes |
/// | `exp_out$s` | out | 8 | the sequence number expected next from node `s` |
/// | `ev_delivered`, `ev_duplicated`, `ev_bad` | out | 1 | one-cycle pulses |
///
/// Timing: every output is a register. The first beat's word is kept (only if the sources
/// send 8-byte datagrams, `two_words`; otherwise a datagram of more than one beat is bad by
/// its length alone); a datagram whose last beat shows in `O_(t-1)` is judged at edge `t` and
/// its pulse is in `O_t`. A well-formed payload from source `s` carrying the expected number is
/// delivered (the number advances); one carrying the number before it is a duplicate; anything
/// else (wrong magic, node fields, length or second word, or a number out of order) is bad.
#[derive(LogicBlock)]
pub struct Checker {
    pub clock: Signal<In, Clock>,
    pub dlv_valid: Signal<In, Bit>,
    pub dlv_data: Signal<In, Bits<32>>,
    pub dlv_last: Signal<In, Bit>,
    pub dlv_src: Signal<In, Bits<16>>,
    pub dlv_len: Signal<In, Bits<6>>,
    pub exp_out: Vec<Signal<Out, Bits<8>>>,
    pub ev_delivered: Signal<Out, Bit>,
    pub ev_duplicated: Signal<Out, Bit>,
    pub ev_bad: Signal<Out, Bit>,
    expected: Vec<DFF<Bits<8>>>,
    /// The first word of a datagram of two beats, and whether it has been taken.
    held_word: DFF<Bits<32>>,
    held: DFF<Bit>,
    delivered_pulse: DFF<Bit>,
    duplicated_pulse: DFF<Bit>,
    bad_pulse: DFF<Bit>,
    first_word: Signal<Local, Bits<32>>,
    source_known: Signal<Local, Bit>,
    well_formed: Signal<Local, Bit>,
    current: Signal<Local, Bits<8>>,
    node_ids: Vec<Constant<Bits<16>>>,
    payload_head: Constant<Bits<16>>,
    short_length: Constant<Bits<6>>,
    long_length: Constant<Bits<6>>,
    long_allowed: Constant<Bit>,
    sequence_step: Constant<Bits<8>>,
    _nodes: usize,
}

impl Checker {
    /// The checker of node `me` of `nodes`; 8-byte datagrams are well-formed only if the
    /// sources send them (`two_words`), so without them the second word is not read at all.
    pub fn new(me: usize, nodes: usize, two_words: bool) -> Self {
        assert!(me < nodes && nodes <= 16);
        Self {
            clock: Default::default(),
            dlv_valid: Default::default(),
            dlv_data: Default::default(),
            dlv_last: Default::default(),
            dlv_src: Default::default(),
            dlv_len: Default::default(),
            exp_out: (0..nodes).map(|_| Default::default()).collect(),
            ev_delivered: Default::default(),
            ev_duplicated: Default::default(),
            ev_bad: Default::default(),
            expected: (0..nodes).map(|_| Default::default()).collect(),
            held_word: Default::default(),
            held: Default::default(),
            delivered_pulse: Default::default(),
            duplicated_pulse: Default::default(),
            bad_pulse: Default::default(),
            first_word: Default::default(),
            source_known: Default::default(),
            well_formed: Default::default(),
            current: Default::default(),
            node_ids: (0..nodes)
                .map(|s| Constant::new(Bits::from(s as u64)))
                .collect(),
            payload_head: Constant::new(Bits::from((MAGIC << 8) | me as u64)),
            short_length: Constant::new(Bits::from(4)),
            long_length: Constant::new(Bits::from(8)),
            long_allowed: Constant::new(two_words),
            sequence_step: Constant::new(Bits::from(1)),
            _nodes: nodes,
        }
    }
}

impl Logic for Checker {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            held_word,
            held,
            delivered_pulse,
            duplicated_pulse,
            bad_pulse
        );
        // The datagram's first word: this beat's, or the one kept from its first beat.
        self.first_word.next = self.dlv_data.val();
        if self.long_allowed.val() & self.held.q.val() {
            self.first_word.next = self.held_word.q.val();
        }
        self.source_known.next = false;
        self.current.next = self.expected[0].q.val();
        for s in 0..self._nodes {
            self.expected[s].clock.next = self.clock.val();
            self.expected[s].d.next = self.expected[s].q.val();
            self.exp_out[s].next = self.expected[s].q.val();
            if self.dlv_src.val() == self.node_ids[s].val() {
                self.source_known.next = true;
                self.current.next = self.expected[s].q.val();
            }
        }
        // Judged at the last beat, whose word is the second when there are two.
        self.well_formed.next = self.source_known.val()
            & (self.first_word.val().get_bits::<16>(16) == self.payload_head.val())
            & (self.first_word.val().get_bits::<8>(8) == self.dlv_src.val().get_bits::<8>(0))
            & ((self.dlv_len.val() == self.short_length.val())
                | ((self.dlv_len.val() == self.long_length.val())
                    & self.long_allowed.val()
                    & self.held.q.val()
                    & (self.dlv_data.val() == !self.first_word.val())));
        self.ev_delivered.next = self.delivered_pulse.q.val();
        self.ev_duplicated.next = self.duplicated_pulse.q.val();
        self.ev_bad.next = self.bad_pulse.q.val();
        self.delivered_pulse.d.next = false;
        self.duplicated_pulse.d.next = false;
        self.bad_pulse.d.next = false;
        if self.dlv_valid.val() & !self.dlv_last.val() & !self.held.q.val() {
            self.held.d.next = true;
            self.held_word.d.next = self.dlv_data.val();
        }
        if self.dlv_valid.val() & self.dlv_last.val() {
            self.held.d.next = false;
            if !self.well_formed.val() {
                self.bad_pulse.d.next = true;
            } else if self.first_word.val().get_bits::<8>(0) == self.current.val() {
                self.delivered_pulse.d.next = true;
                for s in 0..self._nodes {
                    if self.dlv_src.val() == self.node_ids[s].val() {
                        self.expected[s].d.next =
                            self.expected[s].q.val() + self.sequence_step.val();
                    }
                }
            } else if self.first_word.val().get_bits::<8>(0) + self.sequence_step.val()
                == self.current.val()
            {
                self.duplicated_pulse.d.next = true;
            } else {
                self.bad_pulse.d.next = true;
            }
        }
    }
}
