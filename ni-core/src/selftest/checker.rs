//! The self-test's checker: one per node, taking every delivery of its NI (§14.2).

use super::source::MAGIC;
use rust_hdl::prelude::*;

/// Checks the deliveries of node `me`'s NI (docs/protocol.md §14.2).
///
/// Ports: `clock`; `dlv_valid`, `dlv_src` (16), `dlv_len` (6) (in, from the NI, whose
/// `dlv_ready` the self-test ties high), `dlv_data` (in, 64: the NI's `dlv_data[255:192]`,
/// the payload's first two words; the second is read only with `two_words`); `exp_out$s`
/// (out, 8: the sequence number expected next from node `s`); `ev_delivered`,
/// `ev_duplicated`, `ev_bad` (out, one-cycle pulses).
///
/// Timing: every output is a register; a delivery shown in `O_(t-1)` is judged at edge `t` and
/// its pulse is in `O_t`. A well-formed payload from source `s` carrying the expected number
/// is delivered (the number advances); one carrying the number before it is a duplicate;
/// anything else (wrong magic, node fields, length or second word, or a number out of order)
/// is bad.
#[derive(LogicBlock)]
pub struct Checker {
    pub clock: Signal<In, Clock>,
    pub dlv_valid: Signal<In, Bit>,
    pub dlv_src: Signal<In, Bits<16>>,
    pub dlv_len: Signal<In, Bits<6>>,
    pub dlv_data: Signal<In, Bits<64>>,
    pub exp_out: Vec<Signal<Out, Bits<8>>>,
    pub ev_delivered: Signal<Out, Bit>,
    pub ev_duplicated: Signal<Out, Bit>,
    pub ev_bad: Signal<Out, Bit>,
    exp: Vec<DFF<Bits<8>>>,
    o_delivered: DFF<Bit>,
    o_duplicated: DFF<Bit>,
    o_bad: DFF<Bit>,
    word0: Signal<Local, Bits<32>>,
    word1: Signal<Local, Bits<32>>,
    src_ok: Signal<Local, Bit>,
    form_ok: Signal<Local, Bit>,
    cur: Signal<Local, Bits<8>>,
    ids: Vec<Constant<Bits<16>>>,
    head: Constant<Bits<16>>,
    len4: Constant<Bits<6>>,
    len8: Constant<Bits<6>>,
    long_ok: Constant<Bit>,
    one8: Constant<Bits<8>>,
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
            dlv_src: Default::default(),
            dlv_len: Default::default(),
            dlv_data: Default::default(),
            exp_out: (0..nodes).map(|_| Default::default()).collect(),
            ev_delivered: Default::default(),
            ev_duplicated: Default::default(),
            ev_bad: Default::default(),
            exp: (0..nodes).map(|_| Default::default()).collect(),
            o_delivered: Default::default(),
            o_duplicated: Default::default(),
            o_bad: Default::default(),
            word0: Default::default(),
            word1: Default::default(),
            src_ok: Default::default(),
            form_ok: Default::default(),
            cur: Default::default(),
            ids: (0..nodes)
                .map(|s| Constant::new(Bits::from(s as u64)))
                .collect(),
            head: Constant::new(Bits::from((MAGIC << 8) | me as u64)),
            len4: Constant::new(Bits::from(4)),
            len8: Constant::new(Bits::from(8)),
            long_ok: Constant::new(two_words),
            one8: Constant::new(Bits::from(1)),
            _nodes: nodes,
        }
    }
}

impl Logic for Checker {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, o_delivered, o_duplicated, o_bad);
        self.word0.next = self.dlv_data.val().get_bits::<32>(32);
        self.word1.next = self.dlv_data.val().get_bits::<32>(0);
        self.src_ok.next = false;
        self.cur.next = self.exp[0].q.val();
        for s in 0..self._nodes {
            self.exp[s].clock.next = self.clock.val();
            self.exp[s].d.next = self.exp[s].q.val();
            self.exp_out[s].next = self.exp[s].q.val();
            if self.dlv_src.val() == self.ids[s].val() {
                self.src_ok.next = true;
                self.cur.next = self.exp[s].q.val();
            }
        }
        self.form_ok.next = self.src_ok.val()
            & (self.word0.val().get_bits::<16>(16) == self.head.val())
            & (self.word0.val().get_bits::<8>(8) == self.dlv_src.val().get_bits::<8>(0))
            & ((self.dlv_len.val() == self.len4.val())
                | ((self.dlv_len.val() == self.len8.val())
                    & self.long_ok.val()
                    & (self.word1.val() == !self.word0.val())));
        self.ev_delivered.next = self.o_delivered.q.val();
        self.ev_duplicated.next = self.o_duplicated.q.val();
        self.ev_bad.next = self.o_bad.q.val();
        self.o_delivered.d.next = false;
        self.o_duplicated.d.next = false;
        self.o_bad.d.next = false;
        if self.dlv_valid.val() {
            if !self.form_ok.val() {
                self.o_bad.d.next = true;
            } else if self.word0.val().get_bits::<8>(0) == self.cur.val() {
                self.o_delivered.d.next = true;
                for s in 0..self._nodes {
                    if self.dlv_src.val() == self.ids[s].val() {
                        self.exp[s].d.next = self.exp[s].q.val() + self.one8.val();
                    }
                }
            } else if self.word0.val().get_bits::<8>(0) + self.one8.val() == self.cur.val() {
                self.o_duplicated.d.next = true;
            } else {
                self.o_bad.d.next = true;
            }
        }
    }
}
