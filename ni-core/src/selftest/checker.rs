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
/// Timing: every output is a register. Each beat is registered first (`beat_*`) and judged a
/// cycle later: the NI's `dlv_data` is the receive payloads' block-RAM read port, whose clock to
/// output takes 5.8 ns of the ECP5's 10 at 100 MHz, so judging it at the edge it shows left
/// the compares and the expectations' enables after it (73.3 MHz). The first beat's word is kept
/// (only if the sources send 8-byte datagrams, `two_words`; otherwise a datagram of more than
/// one beat is bad by its length alone); a datagram whose last beat shows in `O_(t-1)` is
/// registered at edge `t`, judged at edge `t + 1`, and its pulse is in `O_(t+1)`. The beat's
/// register also takes its source's expected number and its source decoded, so the judgment
/// starts from registers; the number is up to date because the NI separates two datagrams by
/// at least an edge (§8.4), so a datagram's last beat is registered at least an edge after the
/// previous datagram's judgment has advanced the number. A well-formed payload from source `s`
/// carrying the expected number is delivered (the number advances); one carrying the number
/// before it is a duplicate; anything else (wrong magic, node fields, length or second word, or
/// a number out of order) is bad.
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
    /// The beat shown last cycle: its valid, last, word, the low byte of its source, whether
    /// that source is a node of the tree, and its length as 4 or 8 bytes (8 only if allowed).
    beat_valid: DFF<Bit>,
    beat_last: DFF<Bit>,
    beat_data: DFF<Bits<32>>,
    beat_source: DFF<Bits<8>>,
    beat_source_known: DFF<Bit>,
    /// Whether the beat's source is node `s`, and the number expected from it.
    beat_from: Vec<DFF<Bit>>,
    beat_expected: DFF<Bits<8>>,
    beat_short: DFF<Bit>,
    beat_long: DFF<Bit>,
    /// The first word of a datagram of two beats, and whether it has been taken.
    held_word: DFF<Bits<32>>,
    held: DFF<Bit>,
    delivered_pulse: DFF<Bit>,
    duplicated_pulse: DFF<Bit>,
    bad_pulse: DFF<Bit>,
    first_word: Signal<Local, Bits<32>>,
    well_formed: Signal<Local, Bit>,
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
            beat_valid: Default::default(),
            beat_last: Default::default(),
            beat_data: Default::default(),
            beat_source: Default::default(),
            beat_source_known: Default::default(),
            beat_from: (0..nodes).map(|_| Default::default()).collect(),
            beat_expected: Default::default(),
            beat_short: Default::default(),
            beat_long: Default::default(),
            held_word: Default::default(),
            held: Default::default(),
            delivered_pulse: Default::default(),
            duplicated_pulse: Default::default(),
            bad_pulse: Default::default(),
            first_word: Default::default(),
            well_formed: Default::default(),
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
            beat_valid,
            beat_last,
            beat_data,
            beat_source,
            beat_source_known,
            beat_expected,
            beat_short,
            beat_long,
            held_word,
            held,
            delivered_pulse,
            duplicated_pulse,
            bad_pulse
        );
        self.beat_valid.d.next = self.dlv_valid.val();
        self.beat_last.d.next = self.dlv_last.val();
        self.beat_data.d.next = self.dlv_data.val();
        self.beat_source.d.next = self.dlv_src.val().get_bits::<8>(0);
        self.beat_source_known.d.next = false;
        self.beat_expected.d.next = self.expected[0].q.val();
        for s in 0..self._nodes {
            self.beat_from[s].clock.next = self.clock.val();
            self.beat_from[s].d.next = false;
            if self.dlv_src.val() == self.node_ids[s].val() {
                self.beat_from[s].d.next = true;
                self.beat_source_known.d.next = true;
                self.beat_expected.d.next = self.expected[s].q.val();
            }
        }
        self.beat_short.d.next = self.dlv_len.val() == self.short_length.val();
        self.beat_long.d.next =
            (self.dlv_len.val() == self.long_length.val()) & self.long_allowed.val();
        // The datagram's first word: this beat's, or the one kept from its first beat.
        self.first_word.next = self.beat_data.q.val();
        if self.long_allowed.val() & self.held.q.val() {
            self.first_word.next = self.held_word.q.val();
        }
        for s in 0..self._nodes {
            self.expected[s].clock.next = self.clock.val();
            self.expected[s].d.next = self.expected[s].q.val();
            self.exp_out[s].next = self.expected[s].q.val();
        }
        // Judged at the last beat, whose word is the second when there are two.
        self.well_formed.next = self.beat_source_known.q.val()
            & (self.first_word.val().get_bits::<16>(16) == self.payload_head.val())
            & (self.first_word.val().get_bits::<8>(8) == self.beat_source.q.val())
            & (self.beat_short.q.val()
                | (self.beat_long.q.val()
                    & self.held.q.val()
                    & (self.beat_data.q.val() == !self.first_word.val())));
        self.ev_delivered.next = self.delivered_pulse.q.val();
        self.ev_duplicated.next = self.duplicated_pulse.q.val();
        self.ev_bad.next = self.bad_pulse.q.val();
        self.delivered_pulse.d.next = false;
        self.duplicated_pulse.d.next = false;
        self.bad_pulse.d.next = false;
        if self.beat_valid.q.val() & !self.beat_last.q.val() & !self.held.q.val() {
            self.held.d.next = true;
            self.held_word.d.next = self.beat_data.q.val();
        }
        if self.beat_valid.q.val() & self.beat_last.q.val() {
            self.held.d.next = false;
            if !self.well_formed.val() {
                self.bad_pulse.d.next = true;
            } else if self.first_word.val().get_bits::<8>(0) == self.beat_expected.q.val() {
                self.delivered_pulse.d.next = true;
                for s in 0..self._nodes {
                    if self.beat_from[s].q.val() {
                        self.expected[s].d.next =
                            self.beat_expected.q.val() + self.sequence_step.val();
                    }
                }
            } else if self.first_word.val().get_bits::<8>(0) + self.sequence_step.val()
                == self.beat_expected.q.val()
            {
                self.duplicated_pulse.d.next = true;
            } else {
                self.bad_pulse.d.next = true;
            }
        }
    }
}
