//! The reply transmitter of the RMPP receive path (docs/protocol.md §11.5): CTS, MSGEND and
//! MSGDROP worms.

use idemnet_rtl::flit::Flit;
use idemnet_rtl::worm_transmitter::WormTransmitter;
use idemnet_spec::rmpp::{RmppConfig, Type, HEADER_WORDS};
use rust_hdl::prelude::*;

use super::header::HeaderWords;

/// Latches the reply of the slot the slot table picks and puts it out through a
/// [`WormTransmitter`]: head (`src = node`, `dst` = the slot's `src`), words 0-6, CRC (9 flits).
///
/// Ports (Verilog names, as a child `reply$<port>`):
///
/// | port | dir | width | |
/// |------|-----|-------|-|
/// | `clock` | in | 1 | |
/// | `grant`, `due` | in | 1, 1 | the link is free for the receive path (§13.2); a reply is due |
/// | `pick_src`, `pick_msg_id`, `pick_msg_num`, `pick_limit`, `pick_next_seq`, `pick_cts_n` | in | 8, 32, 32, 13, 11, 16 | the picked slot's fields |
/// | `pick_receiving`, `pick_ended` | in | 1, 1 | its state: a RECEIVING slot sends a CTS, an ENDED one a MSGEND, a DROPPED one a MSGDROP |
/// | `start` | out | 1 | the reply is picked at this edge (combinational) |
/// | `request` | out | 1 | idle with a reply due (combinational, §13.2's `tx_req`) |
/// | `net_out` | out | 35 | the flits (a register) |
///
/// Timing: a reply picked in cycle `t` has its head in `net_out` after edge `t`, then words 0-6
/// and the CRC. CTS carries `len = limit`, `seq = next_seq`, `info1 = cts_n`; MSGEND and MSGDROP
/// carry `len = limit`, `seq = 0`, `info = 0`; all carry `srcNID` = the slot's `src`, its
/// `msgID` and `msgNum`, version 1.
#[derive(LogicBlock)]
pub struct ReplyTransmitter {
    pub clock: Signal<In, Clock>,
    pub grant: Signal<In, Bit>,
    pub due: Signal<In, Bit>,
    pub pick_src: Signal<In, Bits<8>>,
    pub pick_msg_id: Signal<In, Bits<32>>,
    pub pick_msg_num: Signal<In, Bits<32>>,
    pub pick_limit: Signal<In, Bits<13>>,
    pub pick_next_seq: Signal<In, Bits<11>>,
    pub pick_cts_n: Signal<In, Bits<16>>,
    pub pick_receiving: Signal<In, Bit>,
    pub pick_ended: Signal<In, Bit>,
    pub start: Signal<Out, Bit>,
    pub request: Signal<Out, Bit>,
    pub net_out: Signal<Out, Flit>,
    transmitter: WormTransmitter,
    header: HeaderWords,
    tx_type: DFF<Bits<4>>,
    tx_nid: DFF<Bits<8>>,
    tx_msg_id: DFF<Bits<32>>,
    tx_len: DFF<Bits<13>>,
    tx_seq: DFF<Bits<11>>,
    tx_info: DFF<Bits<16>>,
    tx_msg_num: DFF<Bits<32>>,
    tx_word: Signal<Local, Bits<32>>,
    node_upper: Constant<Bits<32>>,
    type_cts: Constant<Bits<4>>,
    type_msg_end: Constant<Bits<4>>,
    type_msg_drop: Constant<Bits<4>>,
    no_seq: Constant<Bits<11>>,
    no_info: Constant<Bits<16>>,
    no_payload: Constant<Bits<4>>,
}

fn c<const N: usize>(x: u64) -> Constant<Bits<N>> {
    Constant::new(Bits::from(x))
}

impl ReplyTransmitter {
    /// The reply transmitter of node `cfg.node`.
    pub fn new(cfg: &RmppConfig) -> Self {
        Self {
            clock: Default::default(),
            grant: Default::default(),
            due: Default::default(),
            pick_src: Default::default(),
            pick_msg_id: Default::default(),
            pick_msg_num: Default::default(),
            pick_limit: Default::default(),
            pick_next_seq: Default::default(),
            pick_cts_n: Default::default(),
            pick_receiving: Default::default(),
            pick_ended: Default::default(),
            start: Default::default(),
            request: Default::default(),
            net_out: Default::default(),
            transmitter: WormTransmitter::new(HEADER_WORDS),
            header: Default::default(),
            tx_type: Default::default(),
            tx_nid: Default::default(),
            tx_msg_id: Default::default(),
            tx_len: Default::default(),
            tx_seq: Default::default(),
            tx_info: Default::default(),
            tx_msg_num: Default::default(),
            tx_word: Default::default(),
            node_upper: c((cfg.node as u64) << 16),
            type_cts: c(Type::Cts.code() as u64),
            type_msg_end: c(Type::MsgEnd.code() as u64),
            type_msg_drop: c(Type::MsgDrop.code() as u64),
            no_seq: c(0),
            no_info: c(0),
            no_payload: c(0),
        }
    }
}

impl Logic for ReplyTransmitter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, tx_type, tx_nid, tx_msg_id, tx_len, tx_seq, tx_info, tx_msg_num);
        self.transmitter.clock.next = self.clock.val();
        self.transmitter.grant.next = self.grant.val();
        self.transmitter.due.next = self.due.val();
        self.transmitter.payload_words.next = self.no_payload.val();
        self.start.next = self.transmitter.start.val();
        self.request.next = self.transmitter.request.val();
        self.net_out.next = self.transmitter.flit.val();
        if self.transmitter.start.val() {
            self.tx_nid.d.next = self.pick_src.val();
            self.tx_msg_id.d.next = self.pick_msg_id.val();
            self.tx_msg_num.d.next = self.pick_msg_num.val();
            self.tx_len.d.next = self.pick_limit.val();
            if self.pick_receiving.val() {
                self.tx_type.d.next = self.type_cts.val();
                self.tx_seq.d.next = self.pick_next_seq.val();
                self.tx_info.d.next = self.pick_cts_n.val();
            } else {
                self.tx_seq.d.next = self.no_seq.val();
                self.tx_info.d.next = self.no_info.val();
                if self.pick_ended.val() {
                    self.tx_type.d.next = self.type_msg_end.val();
                } else {
                    self.tx_type.d.next = self.type_msg_drop.val();
                }
            }
        }
        // The word asked for: the route, then header words 0-6.
        self.tx_word.next = 0.into();
        if self.transmitter.start.val() {
            self.tx_word.next = self.node_upper.val() | bit_cast::<32, 8>(self.pick_src.val());
        }
        self.header.index.next = self.transmitter.index.val();
        self.header.packet_type.next = self.tx_type.q.val();
        self.header.nid.next = bit_cast::<16, 8>(self.tx_nid.q.val());
        self.header.msg_id.next = self.tx_msg_id.q.val();
        self.header.len.next = bit_cast::<32, 13>(self.tx_len.q.val());
        self.header.seq.next = bit_cast::<32, 11>(self.tx_seq.q.val());
        self.header.info.next = bit_cast::<32, 16>(self.tx_info.q.val());
        self.header.msg_num.next = self.tx_msg_num.q.val();
        if self.transmitter.header_valid.val() {
            self.tx_word.next = self.header.word.val();
        }
        self.transmitter.word.next = self.tx_word.val();
    }
}
