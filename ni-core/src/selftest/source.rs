//! The self-test's traffic source: one per node, the host side of its NI (docs/protocol.md §14).

use idemnet_rtl::lfsr::{seed_in_family, Lfsr};
use rust_hdl::prelude::*;

/// The payload's first byte (§14.1): tells a self-test datagram from garbage.
pub const MAGIC: u64 = 0xC5;

/// Power-on value of the LFSR of the source of node `p` (§14.1).
pub fn source_seed(p: usize) -> u16 {
    seed_in_family(0x5EED, 0x3C6F, p)
}

/// Offers datagrams to the NI of node `me` and checks each completion (docs/protocol.md §14.1).
///
/// Ports: `clock`; `req_ready`, `done_valid` (in, from the NI), `done_uid` (in, 16: the
/// counter half of the NI's `done_uid`); `exp_in$d` (in, 8,
/// one per node `d`: the sequence number node `d`'s checker expects next from `me`);
/// `req_valid`, `req_dst` (16), `req_len` (6), `req_data` (256) (out, to the NI); `ev_sent`,
/// `ev_lost` (out, one-cycle pulses).
///
/// Timing: every output is a register. A request waits in `p_*` until the NI takes it (edge
/// `t` with `req_ready` from `O_(t-1)`), which pulses `ev_sent` in `O_t`. A completion in
/// cycle `t` whose datagram the destination has not delivered pulses `ev_lost` in `O_t`. At
/// most one datagram per destination is outstanding, so the sequence numbers of a pair arrive
/// in order and the checker needs one register per source.
#[derive(LogicBlock)]
pub struct TrafficSource {
    pub clock: Signal<In, Clock>,
    pub req_ready: Signal<In, Bit>,
    pub done_valid: Signal<In, Bit>,
    pub done_uid: Signal<In, Bits<16>>,
    pub exp_in: Vec<Signal<In, Bits<8>>>,
    pub req_valid: Signal<Out, Bit>,
    pub req_dst: Signal<Out, Bits<16>>,
    pub req_len: Signal<Out, Bits<6>>,
    pub req_data: Signal<Out, Bits<256>>,
    pub ev_sent: Signal<Out, Bit>,
    pub ev_lost: Signal<Out, Bit>,
    lfsr: Lfsr,
    p_valid: DFF<Bit>,
    p_dst: DFF<Bits<4>>,
    p_long: DFF<Bit>,
    uid_cnt: DFF<Bits<16>>,
    seq: Vec<DFF<Bits<8>>>,
    busy: Vec<DFF<Bit>>,
    out_uid: Vec<DFF<Bits<16>>>,
    o_sent: DFF<Bit>,
    o_lost: DFF<Bit>,
    draw_r: Signal<Local, Bits<4>>,
    pick: Signal<Local, Bits<4>>,
    pick_busy: Signal<Local, Bit>,
    cur_seq: Signal<Local, Bits<8>>,
    word0: Signal<Local, Bits<32>>,
    word1: Signal<Local, Bits<32>>,
    ids: Vec<Constant<Bits<4>>>,
    me_plus1: Constant<Bits<4>>,
    mask: Constant<Bits<4>>,
    load: Constant<Bits<16>>,
    long_mask: Constant<Bit>,
    match_uid: Constant<Bit>,
    head: Constant<Bits<32>>,
    sh16: Constant<Bits<8>>,
    sh192: Constant<Bits<8>>,
    sh224: Constant<Bits<8>>,
    len4: Constant<Bits<6>>,
    len8: Constant<Bits<6>>,
    zero32: Constant<Bits<32>>,
    one8: Constant<Bits<8>>,
    one16: Constant<Bits<16>>,
    _nodes: usize,
}

impl TrafficSource {
    /// The source of node `me` of `nodes` (a power of two, 2..=16), offering a datagram with
    /// probability `load / 65536` per cycle, of 4 bytes or (if `two_words`, half of them)
    /// 8 bytes (`load` at most 0x0800: §14.1 draws the destination and length from the low
    /// bits of the same LFSR value).
    ///
    /// With one send slot (`send_slots == 1`) the NI completes each datagram before it takes
    /// the next, so at most one destination is busy and a completion is that one's: the
    /// source then keeps no uids (§14.1).
    pub fn new(me: usize, nodes: usize, load: u16, two_words: bool, send_slots: usize) -> Self {
        assert!(nodes.is_power_of_two() && (2..=16).contains(&nodes) && me < nodes);
        let c4 = |v: usize| Constant::new(Bits::<4>::from(v as u64));
        Self {
            clock: Default::default(),
            req_ready: Default::default(),
            done_valid: Default::default(),
            done_uid: Default::default(),
            exp_in: (0..nodes).map(|_| Default::default()).collect(),
            req_valid: Default::default(),
            req_dst: Default::default(),
            req_len: Default::default(),
            req_data: Default::default(),
            ev_sent: Default::default(),
            ev_lost: Default::default(),
            lfsr: Lfsr::new(source_seed(me)),
            p_valid: Default::default(),
            p_dst: Default::default(),
            p_long: Default::default(),
            uid_cnt: Default::default(),
            seq: (0..nodes).map(|_| Default::default()).collect(),
            busy: (0..nodes).map(|_| Default::default()).collect(),
            out_uid: (0..nodes).map(|_| Default::default()).collect(),
            o_sent: Default::default(),
            o_lost: Default::default(),
            draw_r: Default::default(),
            pick: Default::default(),
            pick_busy: Default::default(),
            cur_seq: Default::default(),
            word0: Default::default(),
            word1: Default::default(),
            ids: (0..nodes).map(c4).collect(),
            me_plus1: c4((me + 1) % 16),
            mask: c4(nodes - 1),
            load: Constant::new(Bits::from(load as u64)),
            long_mask: Constant::new(two_words),
            match_uid: Constant::new(send_slots > 1),
            head: Constant::new(Bits::from((MAGIC << 24) | ((me as u64) << 8))),
            sh16: Constant::new(Bits::from(16)),
            sh192: Constant::new(Bits::from(192)),
            sh224: Constant::new(Bits::from(224)),
            len4: Constant::new(Bits::from(4)),
            len8: Constant::new(Bits::from(8)),
            zero32: Constant::new(Bits::default()),
            one8: Constant::new(Bits::from(1)),
            one16: Constant::new(Bits::from(1)),
            _nodes: nodes,
        }
    }
}

impl Logic for TrafficSource {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, p_valid, p_dst, p_long, uid_cnt, o_sent, o_lost);
        self.lfsr.clock.next = self.clock.val();
        for d in 0..self._nodes {
            self.seq[d].clock.next = self.clock.val();
            self.busy[d].clock.next = self.clock.val();
            self.out_uid[d].clock.next = self.clock.val();
            self.seq[d].d.next = self.seq[d].q.val();
            self.busy[d].d.next = self.busy[d].q.val();
            self.out_uid[d].d.next = self.out_uid[d].q.val();
        }
        // The candidate destination: `me + 1 + r` over the others; `r = nodes - 1` would be me.
        self.draw_r.next = self.lfsr.value.val().get_bits::<4>(4) & self.mask.val();
        self.pick.next = (self.me_plus1.val() + self.draw_r.val()) & self.mask.val();
        self.pick_busy.next = false;
        self.cur_seq.next = self.seq[0].q.val();
        for d in 0..self._nodes {
            if self.pick.val() == self.ids[d].val() {
                self.pick_busy.next = self.busy[d].q.val();
            }
            if self.p_dst.q.val() == self.ids[d].val() {
                self.cur_seq.next = self.seq[d].q.val();
            }
        }
        self.word0.next = self.head.val()
            | (bit_cast::<32, 4>(self.p_dst.q.val()) << self.sh16.val())
            | bit_cast::<32, 8>(self.cur_seq.val());
        self.word1.next = self.zero32.val();
        if self.p_long.q.val() {
            self.word1.next = !self.word0.val();
        }
        self.req_valid.next = self.p_valid.q.val();
        self.req_dst.next = bit_cast::<16, 4>(self.p_dst.q.val());
        self.req_len.next = self.len4.val();
        if self.p_long.q.val() {
            self.req_len.next = self.len8.val();
        }
        self.req_data.next = (bit_cast::<256, 32>(self.word0.val()) << self.sh224.val())
            | (bit_cast::<256, 32>(self.word1.val()) << self.sh192.val());
        self.ev_sent.next = self.o_sent.q.val();
        self.ev_lost.next = self.o_lost.q.val();

        self.o_sent.d.next = false;
        self.o_lost.d.next = false;
        if self.p_valid.q.val() {
            if self.req_ready.val() {
                self.o_sent.d.next = true;
                self.p_valid.d.next = false;
                self.uid_cnt.d.next = self.uid_cnt.q.val() + self.one16.val();
                for d in 0..self._nodes {
                    if self.p_dst.q.val() == self.ids[d].val() {
                        self.busy[d].d.next = true;
                        self.out_uid[d].d.next = self.uid_cnt.q.val();
                    }
                }
            }
        } else if (self.lfsr.value.val() < self.load.val())
            & (self.draw_r.val() != self.mask.val())
            & !self.pick_busy.val()
        {
            self.p_valid.d.next = true;
            self.p_dst.d.next = self.pick.val();
            self.p_long.d.next = self.lfsr.value.val().get_bit(0) & self.long_mask.val();
        }
        if self.done_valid.val() {
            for d in 0..self._nodes {
                if self.busy[d].q.val()
                    & (!self.match_uid.val() | (self.out_uid[d].q.val() == self.done_uid.val()))
                {
                    self.busy[d].d.next = false;
                    self.seq[d].d.next = self.seq[d].q.val() + self.one8.val();
                    if self.exp_in[d].val() != self.seq[d].q.val() + self.one8.val() {
                        self.o_lost.d.next = true;
                    }
                }
            }
        }
    }
}
