//! The replies of the RMPP receive path (docs/protocol.md §11.5): CTS, MSGEND and MSGDROP
//! worms, as a worm source of a transmitter ([`crate::standalone`]).

use idemnet_spec::rmpp::{RmppConfig, Type};
use rust_hdl::prelude::*;

use super::header::HeaderWords;
use crate::c;

/// Latches the reply of the slot the slot table picks when a transmitter starts it and answers
/// the words the transmitter asks for: the route (`src = node`, `dst` = the slot's `src`), then
/// words 0-6 (no payload).
///
/// Ports (Verilog names, as a child `reply$<port>`):
///
/// | port | dir | width | |
/// |------|-----|-------|-|
/// | `clock` | in | 1 | |
/// | `start` | in | 1 | the transmitter starts the reply at this edge: the picked slot's reply is latched |
/// | `header_valid`, `index` | in | 1, 4 | the transmitter asks for header word `index` |
/// | `pick_src`, `pick_msg_id`, `pick_msg_num`, `pick_limit`, `pick_next_seq`, `pick_cts_n` | in | 8, 32, 32, 13, 11, 16 | the picked slot's fields |
/// | `pick_held` | in | 16 | its `held` (§11.7: zero without selective acceptance), a CTS's `info2` |
/// | `pick_receiving`, `pick_ended` | in | 1, 1 | its state: a RECEIVING slot sends a CTS, an ENDED one a MSGEND, a DROPPED one a MSGDROP |
/// | `word` | out | 32 | the word asked for: the route at `start` (from the picked slot), header word `index` while `header_valid` (from the latched reply), else zero (combinational) |
///
/// Timing: the reply started in cycle `t` is latched at edge `t`; its words are asked for in
/// the cycles after it. CTS carries `len = limit`, `seq = next_seq`, `info1 = cts_n`; MSGEND and MSGDROP
/// carry `len = limit`, `seq = 0`, `info = 0`; all carry `srcNID` = the slot's `src`, its
/// `msgID` and `msgNum`, version 1. A CTS's `info2` is the slot's `held` (§11.7), zero without
/// selective acceptance.
#[derive(LogicBlock)]
pub struct ReplySource {
    pub clock: Signal<In, Clock>,
    pub start: Signal<In, Bit>,
    pub header_valid: Signal<In, Bit>,
    pub index: Signal<In, Bits<4>>,
    pub pick_src: Signal<In, Bits<8>>,
    pub pick_msg_id: Signal<In, Bits<32>>,
    pub pick_msg_num: Signal<In, Bits<32>>,
    pub pick_limit: Signal<In, Bits<13>>,
    pub pick_next_seq: Signal<In, Bits<11>>,
    pub pick_cts_n: Signal<In, Bits<16>>,
    pub pick_held: Signal<In, Bits<16>>,
    pub pick_receiving: Signal<In, Bit>,
    pub pick_ended: Signal<In, Bit>,
    pub word: Signal<Out, Bits<32>>,
    header: HeaderWords,
    /// The reply latched is a CTS, a MSGEND, a MSGDROP (its type, one-hot: none at power-on,
    /// when the type read is 0, as the type register's was before it).
    tx_receiving: DFF<Bit>,
    tx_ended: DFF<Bit>,
    tx_dropped: DFF<Bit>,
    tx_nid: DFF<Bits<8>>,
    tx_msg_id: DFF<Bits<32>>,
    tx_len: DFF<Bits<13>>,
    tx_seq: DFF<Bits<11>>,
    tx_info: DFF<Bits<16>>,
    tx_held: DFF<Bits<16>>,
    tx_msg_num: DFF<Bits<32>>,
    node_upper: Constant<Bits<32>>,
    type_cts: Constant<Bits<4>>,
    type_msg_end: Constant<Bits<4>>,
    type_msg_drop: Constant<Bits<4>>,
    no_type: Constant<Bits<4>>,
    no_seq: Constant<Bits<11>>,
    no_info: Constant<Bits<16>>,
    selective: Constant<Bit>,
}

impl ReplySource {
    /// The replies of node `cfg.node`.
    pub fn new(cfg: &RmppConfig) -> Self {
        Self {
            clock: Default::default(),
            start: Default::default(),
            header_valid: Default::default(),
            index: Default::default(),
            pick_src: Default::default(),
            pick_msg_id: Default::default(),
            pick_msg_num: Default::default(),
            pick_limit: Default::default(),
            pick_next_seq: Default::default(),
            pick_cts_n: Default::default(),
            pick_held: Default::default(),
            pick_receiving: Default::default(),
            pick_ended: Default::default(),
            word: Default::default(),
            header: Default::default(),
            tx_receiving: Default::default(),
            tx_ended: Default::default(),
            tx_dropped: Default::default(),
            tx_nid: Default::default(),
            tx_msg_id: Default::default(),
            tx_len: Default::default(),
            tx_seq: Default::default(),
            tx_info: Default::default(),
            tx_held: Default::default(),
            tx_msg_num: Default::default(),
            node_upper: c((cfg.node as u64) << 16),
            type_cts: c(Type::Cts.code() as u64),
            type_msg_end: c(Type::MsgEnd.code() as u64),
            type_msg_drop: c(Type::MsgDrop.code() as u64),
            no_type: c(0),
            no_seq: c(0),
            no_info: c(0),
            selective: Constant::new(cfg.selective),
        }
    }
}

impl Logic for ReplySource {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            tx_receiving,
            tx_ended,
            tx_dropped,
            tx_nid,
            tx_msg_id,
            tx_len,
            tx_seq,
            tx_info,
            tx_held,
            tx_msg_num
        );
        // Every field is latched as the slot holds it, whatever the type; a MSGEND's and a
        // MSGDROP's zero `seq` and `info` are made when the words are read. Cleared at the
        // latch by the picked slot's state, the CTS fields had that state as the synchronous
        // reset of all their flip-flops: from the slots' `reply_due` through the pick and its
        // state, that was the ECP5 receive path's critical path (95.8 MHz, seed 1).
        if self.start.val() {
            self.tx_receiving.d.next = self.pick_receiving.val();
            self.tx_ended.d.next = !self.pick_receiving.val() & self.pick_ended.val();
            self.tx_dropped.d.next = !self.pick_receiving.val() & !self.pick_ended.val();
            self.tx_nid.d.next = self.pick_src.val();
            self.tx_msg_id.d.next = self.pick_msg_id.val();
            self.tx_msg_num.d.next = self.pick_msg_num.val();
            self.tx_len.d.next = self.pick_limit.val();
            self.tx_seq.d.next = self.pick_next_seq.val();
            self.tx_info.d.next = self.pick_cts_n.val();
            self.tx_held.d.next = self.pick_held.val();
        }
        // The word asked for: the route, then header words 0-6.
        self.word.next = 0.into();
        if self.start.val() {
            self.word.next = self.node_upper.val() | bit_cast::<32, 8>(self.pick_src.val());
        }
        self.header.index.next = self.index.val();
        self.header.nid.next = bit_cast::<16, 8>(self.tx_nid.q.val());
        self.header.msg_id.next = self.tx_msg_id.q.val();
        self.header.len.next = bit_cast::<32, 13>(self.tx_len.q.val());
        self.header.seq.next = bit_cast::<32, 11>(self.no_seq.val());
        self.header.info.next = bit_cast::<32, 16>(self.no_info.val());
        self.header.packet_type.next = self.no_type.val();
        if self.tx_ended.q.val() {
            self.header.packet_type.next = self.type_msg_end.val();
        }
        if self.tx_dropped.q.val() {
            self.header.packet_type.next = self.type_msg_drop.val();
        }
        if self.tx_receiving.q.val() {
            self.header.packet_type.next = self.type_cts.val();
            self.header.seq.next = bit_cast::<32, 11>(self.tx_seq.q.val());
            // Without selective acceptance `tx_held` is read nowhere, and synthesis removes it.
            self.header.info.next = bit_cast::<32, 16>(self.tx_info.q.val());
            if self.selective.val() {
                self.header.info.next = (bit_cast::<32, 16>(self.tx_held.q.val()) << 16)
                    | bit_cast::<32, 16>(self.tx_info.q.val());
            }
        }
        self.header.msg_num.next = self.tx_msg_num.q.val();
        if self.header_valid.val() {
            self.word.next = self.header.word.val();
        }
    }
}
