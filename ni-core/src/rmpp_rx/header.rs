//! The seven header words of an RMPP packet as they go out (docs/protocol.md §11.1).

use idemnet_spec::rmpp::{HEADER_WORDS, MARKER, VERSION};
use rust_hdl::prelude::*;

/// Header word `index` of an RMPP packet from its fields: word 0 = `11` in 31:30, `type` in
/// 29:16, version 1 in 15:0; word 1 = `srcNID`; then `msgID`, `len`, `seq`, `info`, `msgNum`.
/// Shared by the receive path's reply transmitter and the node's framer.
///
/// Ports (Verilog names, as a child `header$<port>`): `index` (in, 4), `packet_type` (in, 4),
/// `nid` (in, 16), `msg_id`, `len`, `seq`, `info`, `msg_num` (in, 32 each), `word` (out, 32;
/// zero for an index past word 6). Timing: purely combinational, one AND-OR mux (the fields of
/// the index are OR-ed).
#[derive(LogicBlock)]
pub struct HeaderWords {
    pub index: Signal<In, Bits<4>>,
    pub packet_type: Signal<In, Bits<4>>,
    pub nid: Signal<In, Bits<16>>,
    pub msg_id: Signal<In, Bits<32>>,
    pub len: Signal<In, Bits<32>>,
    pub seq: Signal<In, Bits<32>>,
    pub info: Signal<In, Bits<32>>,
    pub msg_num: Signal<In, Bits<32>>,
    pub word: Signal<Out, Bits<32>>,
    first_word: Constant<Bits<32>>,
    word_index: Vec<Constant<Bits<4>>>,
}

impl Default for HeaderWords {
    fn default() -> Self {
        Self {
            index: Default::default(),
            packet_type: Default::default(),
            nid: Default::default(),
            msg_id: Default::default(),
            len: Default::default(),
            seq: Default::default(),
            info: Default::default(),
            msg_num: Default::default(),
            word: Default::default(),
            first_word: Constant::new(Bits::from(((MARKER as u64) << 30) | VERSION as u64)),
            word_index: (0..HEADER_WORDS)
                .map(|i| Constant::new(Bits::from(i as u64)))
                .collect(),
        }
    }
}

impl Logic for HeaderWords {
    #[hdl_gen]
    fn update(&mut self) {
        self.word.next = 0.into();
        if self.index.val() == self.word_index[0].val() {
            self.word.next =
                self.first_word.val() | (bit_cast::<32, 4>(self.packet_type.val()) << 16);
        }
        if self.index.val() == self.word_index[1].val() {
            self.word.next = self.word.val() | bit_cast::<32, 16>(self.nid.val());
        }
        if self.index.val() == self.word_index[2].val() {
            self.word.next = self.word.val() | self.msg_id.val();
        }
        if self.index.val() == self.word_index[3].val() {
            self.word.next = self.word.val() | self.len.val();
        }
        if self.index.val() == self.word_index[4].val() {
            self.word.next = self.word.val() | self.seq.val();
        }
        if self.index.val() == self.word_index[5].val() {
            self.word.next = self.word.val() | self.info.val();
        }
        if self.index.val() == self.word_index[6].val() {
            self.word.next = self.word.val() | self.msg_num.val();
        }
    }
}
