//! The framing and header of an RMPP packet in reception (docs/protocol.md §11.1, §11.5).

use crate::c;
use idemnet_rtl::worm_receiver::{ReceivedWorm, WormEndStrobes};
use idemnet_spec::rmpp::{RmppConfig, Type, HEADER_WORDS, MARKER, VERSION};
use rust_hdl::prelude::*;

/// Header word 6 (`msgNum`): the last, where the well-formed checks end and the verdict is taken.
const LAST_HEADER_WORD: u64 = HEADER_WORDS as u64 - 1;

/// The bits of `seq * mtu` the verdict compares with a slot's limit (at most 4096 bytes).
const SEQ_BYTES_BITS: u64 = 14;

/// Reads the worms a [`idemnet_rtl::worm_receiver::WormReceiver`] frames (the receive path's own,
/// or the node's one receiver, §13.3) and latches the seven header words of §11.1 as they pass,
/// with the well-formed checks.
///
/// Ports (Verilog names, as a child `receive$<port>`):
///
/// | port | dir | width | |
/// |------|-----|-------|-|
/// | `clock` | in | 1 | |
/// | `receiver$*` | | | the receiver's framing of the flit of this cycle ([`ReceivedWorm`]) |
/// | `source` | out | 16 | the route's `src` (register) |
/// | `packet_type`, `nid`, `msg_id`, `len`, `seq`, `info`, `msg_num` | out | 4, 16, 32 x 5 | the latched header words (registers) |
/// | `is_rts`, `is_null`, `is_data`, `is_stop`, `is_to_sender` | out | 1 each | `packet_type` is RTS or RTS_LAST; NULL; DATA, STOP_DATA or LAST_DATA; STOP_DATA or LAST_DATA; CTS, MSGEND or MSGDROP |
/// | `seq_bytes`, `seq_far` | out | 14, 1 | `seq * mtu` modulo 16 KB (wiring), and whether it is at least 16 KB (register) |
/// | `seq_end_bytes`, `seq_end_far` | out | 14, 1 | the same of `(seq + 1) * mtu` (registers) |
/// | `word` | out | 32 | the data of the flit |
/// | `prepare` | out | 1 | `word` is header word 5: the verdict reads the slot table now |
/// | `decide` | out | 1 | `word` is header word 6 of a well-formed header: the verdict is taken now |
/// | `payload_valid` | out | 1 | `word` is a payload word |
/// | `crc_flit` | out | 1 | a tail at the CRC position ends a worm now (CRC good or not) |
/// | `awaiting_crc` | out | 1 | the framing's state register is `Crc`: the worm's last word before its CRC was consumed and no flit since (§11.5: the answer and delivered registers wait) |
/// | `arrived` | out | 1 | that worm's CRC is good and it is addressed to `node` |
/// | `count_crc`, `count_cut`, `count_truncated`, `count_malformed`, `count_misrouted`, `count_version` | out | 1 each | a worm is dropped now, by reason (`count_cut` and `count_truncated` can be high together) |
///
/// Timing: the header outputs are registers, loaded as each word is consumed; the strobes are
/// combinational from the receiver's outputs and registers. The checks of words 0, 1
/// and 3-4 are latched as their words pass, so at word 6 the verdict of §11.1 is one OR:
/// `malformed` (marker, type, `srcNID`), else `version`, else `malformed` (length and `seq` for
/// the type); a rejected worm is discarded up to its tail. The payload length the CRC position
/// follows is `ceil(bytes / 4)` of the packet's payload bytes, from the latched type, `len` and
/// `seq`.
///
/// The length checks need no product: with `mtu = 2^k` and `last = (len - 1) >> k` (the `seq`
/// of a message's last packet), `(seq + 1) * mtu >= len` is `len == 0 | seq >= last` and
/// `seq * mtu >= len` is `len == 0 | seq > last`, and a well-formed LAST_DATA carries
/// `len mod mtu` bytes if it is the last packet and that is not 0, else `mtu` (a rejected header's
/// payload length is never read). One 32-bit decrement and one compare, where the exact 40-bit
/// products took an adder, a subtracter and three 40-bit compares; `last` is latched with `len`
/// (word 3), so the compare does not follow the decrement in one cycle. `seq * mtu` and
/// `(seq + 1) * mtu`, which the verdict reads only at word 6, are 14 bits and an "at least
/// 16 KB" bit (the limit they are compared with is at most 4096), the latter two registered
/// each cycle from `seq`, which is latched at word 4 and so is settled in them from word 5.
/// The payload length is registered each cycle too (`payload_words` to the receiver, read only
/// with word 6).
#[derive(LogicBlock)]
pub struct RmppReceiver {
    pub clock: Signal<In, Clock>,
    pub receiver: ReceivedWorm,
    pub source: Signal<Out, Bits<16>>,
    pub packet_type: Signal<Out, Bits<4>>,
    pub nid: Signal<Out, Bits<16>>,
    pub msg_id: Signal<Out, Bits<32>>,
    pub len: Signal<Out, Bits<32>>,
    pub seq: Signal<Out, Bits<32>>,
    pub info: Signal<Out, Bits<32>>,
    pub msg_num: Signal<Out, Bits<32>>,
    pub is_rts: Signal<Out, Bit>,
    pub is_null: Signal<Out, Bit>,
    pub is_data: Signal<Out, Bit>,
    pub is_stop: Signal<Out, Bit>,
    pub is_to_sender: Signal<Out, Bit>,
    pub seq_bytes: Signal<Out, Bits<14>>,
    pub seq_far: Signal<Out, Bit>,
    pub seq_end_bytes: Signal<Out, Bits<14>>,
    pub seq_end_far: Signal<Out, Bit>,
    pub word: Signal<Out, Bits<32>>,
    pub prepare: Signal<Out, Bit>,
    pub decide: Signal<Out, Bit>,
    pub payload_valid: Signal<Out, Bit>,
    pub crc_flit: Signal<Out, Bit>,
    pub awaiting_crc: Signal<Out, Bit>,
    pub arrived: Signal<Out, Bit>,
    pub count_crc: Signal<Out, Bit>,
    pub count_cut: Signal<Out, Bit>,
    pub count_truncated: Signal<Out, Bit>,
    pub count_malformed: Signal<Out, Bit>,
    pub count_misrouted: Signal<Out, Bit>,
    pub count_version: Signal<Out, Bit>,
    ends: WormEndStrobes,
    rx_type: DFF<Bits<4>>,
    rx_nid: DFF<Bits<16>>,
    rx_msg_id: DFF<Bits<32>>,
    rx_len: DFF<Bits<32>>,
    rx_seq: DFF<Bits<32>>,
    rx_info: DFF<Bits<32>>,
    rx_msg_num: DFF<Bits<32>>,
    bad_fields: DFF<Bit>,
    bad_version: DFF<Bit>,
    bad_length: DFF<Bit>,
    seq_far_held: DFF<Bit>,
    seq_end_held: DFF<Bits<14>>,
    seq_end_far_held: DFF<Bit>,
    payload_words_held: DFF<Bits<4>>,
    type_field: Signal<Local, Bits<14>>,
    length_wrong: Signal<Local, Bit>,
    /// `len > mtu`, for check 3 of RTS (`len <= mtu` is wrong) and RTS_LAST.
    above_mtu: Signal<Local, Bit>,
    rejected: Signal<Local, Bit>,
    version_rejected: Signal<Local, Bit>,
    seq_low: Signal<Local, Bits<14>>,
    seq_far_now: Signal<Local, Bit>,
    seq_end_sum: Signal<Local, Bits<15>>,
    last_seq: DFF<Bits<32>>,
    /// Where `seq` stands against the message's last packet, compared as `seq` (word 4) is
    /// latched, against `last_seq` (latched with `len`, word 3): read from word 5 on, so
    /// registered, which takes the 32-bit compares off the path into `bad_length` and
    /// `payload_words_held` (the ECP5 node's critical path at nextpnr seed 3, 98.5 MHz).
    seq_at_last: DFF<Bit>,
    seq_after_last: DFF<Bit>,
    len_or_seq_zero: Signal<Local, Bit>,
    len_partial: Signal<Local, Bits<6>>,
    payload_bytes: Signal<Local, Bits<6>>,
    rx_words: Signal<Local, Bits<6>>,
    nodes: Constant<Bits<16>>,
    version: Constant<Bits<16>>,
    marker: Constant<Bits<2>>,
    type_max: Constant<Bits<14>>,
    type_rts: Constant<Bits<4>>,
    type_rts_last: Constant<Bits<4>>,
    type_cts: Constant<Bits<4>>,
    type_data: Constant<Bits<4>>,
    type_stop_data: Constant<Bits<4>>,
    type_last_data: Constant<Bits<4>>,
    type_msg_end: Constant<Bits<4>>,
    type_msg_drop: Constant<Bits<4>>,
    type_null: Constant<Bits<4>>,
    mtu_bytes: Constant<Bits<6>>,
    /// The bits of a length at or above `mtu` (a power of two, §11.2): `len > mtu` is a bit of
    /// them set and `len != mtu`, one mask and an equality where a compare is a carry chain.
    from_mtu: Constant<Bits<32>>,
    mtu_len: Constant<Bits<32>>,
    log2_mtu: Constant<Bits<6>>,
    far_shift: Constant<Bits<6>>,
    mtu_low_mask: Constant<Bits<6>>,
    no_bytes: Constant<Bits<6>>,
    word_round_up: Constant<Bits<6>>,
    header_first: Constant<Bits<4>>,
    header_node: Constant<Bits<4>>,
    header_msg_id: Constant<Bits<4>>,
    header_len: Constant<Bits<4>>,
    header_seq: Constant<Bits<4>>,
    header_info: Constant<Bits<4>>,
    header_last: Constant<Bits<4>>,
}

fn code<const N: usize>(t: Type) -> Constant<Bits<N>> {
    c(t.code() as u64)
}

impl RmppReceiver {
    /// The receiver of node `cfg.node` (with `cfg.nodes` and `cfg.mtu`).
    pub fn new(cfg: &RmppConfig) -> Self {
        Self {
            clock: Default::default(),
            receiver: Default::default(),
            source: Default::default(),
            packet_type: Default::default(),
            nid: Default::default(),
            msg_id: Default::default(),
            len: Default::default(),
            seq: Default::default(),
            info: Default::default(),
            msg_num: Default::default(),
            is_rts: Default::default(),
            is_null: Default::default(),
            is_data: Default::default(),
            is_stop: Default::default(),
            is_to_sender: Default::default(),
            seq_bytes: Default::default(),
            seq_far: Default::default(),
            seq_end_bytes: Default::default(),
            seq_end_far: Default::default(),
            word: Default::default(),
            prepare: Default::default(),
            decide: Default::default(),
            payload_valid: Default::default(),
            crc_flit: Default::default(),
            awaiting_crc: Default::default(),
            arrived: Default::default(),
            count_crc: Default::default(),
            count_cut: Default::default(),
            count_truncated: Default::default(),
            count_malformed: Default::default(),
            count_misrouted: Default::default(),
            count_version: Default::default(),
            ends: Default::default(),
            rx_type: Default::default(),
            rx_nid: Default::default(),
            rx_msg_id: Default::default(),
            rx_len: Default::default(),
            rx_seq: Default::default(),
            rx_info: Default::default(),
            rx_msg_num: Default::default(),
            bad_fields: Default::default(),
            bad_version: Default::default(),
            bad_length: Default::default(),
            seq_far_held: Default::default(),
            seq_end_held: Default::default(),
            seq_end_far_held: Default::default(),
            payload_words_held: Default::default(),
            type_field: Default::default(),
            length_wrong: Default::default(),
            above_mtu: Default::default(),
            rejected: Default::default(),
            version_rejected: Default::default(),
            seq_low: Default::default(),
            seq_far_now: Default::default(),
            seq_end_sum: Default::default(),
            last_seq: Default::default(),
            seq_at_last: Default::default(),
            seq_after_last: Default::default(),
            len_or_seq_zero: Default::default(),
            len_partial: Default::default(),
            payload_bytes: Default::default(),
            rx_words: Default::default(),
            nodes: c(cfg.nodes as u64),
            version: c(VERSION as u64),
            marker: c(MARKER as u64),
            type_max: code(Type::Null),
            type_rts: code(Type::Rts),
            type_rts_last: code(Type::RtsLast),
            type_cts: code(Type::Cts),
            type_data: code(Type::Data),
            type_stop_data: code(Type::StopData),
            type_last_data: code(Type::LastData),
            type_msg_end: code(Type::MsgEnd),
            type_msg_drop: code(Type::MsgDrop),
            type_null: code(Type::Null),
            mtu_bytes: c(cfg.mtu as u64),
            from_mtu: c(!(cfg.mtu as u64 - 1) & 0xFFFF_FFFF),
            mtu_len: c(cfg.mtu as u64),
            log2_mtu: c(cfg.mtu.trailing_zeros() as u64),
            far_shift: c(SEQ_BYTES_BITS - cfg.mtu.trailing_zeros() as u64),
            mtu_low_mask: c(cfg.mtu as u64 - 1),
            no_bytes: c(0),
            word_round_up: c(3),
            header_first: c(0),
            header_node: c(1),
            header_msg_id: c(2),
            header_len: c(3),
            header_seq: c(4),
            header_info: c(5),
            header_last: c(LAST_HEADER_WORD),
        }
    }
}

impl Logic for RmppReceiver {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            rx_type,
            rx_nid,
            rx_msg_id,
            rx_len,
            rx_seq,
            rx_info,
            rx_msg_num,
            bad_fields,
            bad_version,
            bad_length,
            seq_far_held,
            seq_end_held,
            seq_end_far_held,
            payload_words_held,
            last_seq,
            seq_at_last,
            seq_after_last
        );
        self.word.next = self.receiver.word.val();
        self.source.next = self.receiver.source.val();
        self.packet_type.next = self.rx_type.q.val();
        self.nid.next = self.rx_nid.q.val();
        self.msg_id.next = self.rx_msg_id.q.val();
        self.len.next = self.rx_len.q.val();
        self.seq.next = self.rx_seq.q.val();
        self.info.next = self.rx_info.q.val();
        self.msg_num.next = self.rx_msg_num.q.val();
        self.type_field.next = self.receiver.word.val().get_bits::<14>(16);

        // ---- The latched type, decoded.
        self.is_rts.next = (self.rx_type.q.val() == self.type_rts.val())
            | (self.rx_type.q.val() == self.type_rts_last.val());
        self.is_null.next = self.rx_type.q.val() == self.type_null.val();
        self.is_stop.next = (self.rx_type.q.val() == self.type_stop_data.val())
            | (self.rx_type.q.val() == self.type_last_data.val());
        self.is_data.next = (self.rx_type.q.val() == self.type_data.val())
            | (self.rx_type.q.val() == self.type_stop_data.val())
            | (self.rx_type.q.val() == self.type_last_data.val());
        self.is_to_sender.next = (self.rx_type.q.val() == self.type_cts.val())
            | (self.rx_type.q.val() == self.type_msg_end.val())
            | (self.rx_type.q.val() == self.type_msg_drop.val());
        // `seq * mtu` and `(seq + 1) * mtu` for the verdict, in 14 bits and a "far" bit.
        self.seq_low.next = self.rx_seq.q.val().get_bits::<14>(0) << self.log2_mtu.val();
        self.seq_far_now.next = (self.rx_seq.q.val() >> self.far_shift.val()).any();
        self.seq_far_held.d.next = self.seq_far_now.val();
        self.seq_end_sum.next =
            bit_cast::<15, 14>(self.seq_low.val()) + bit_cast::<15, 6>(self.mtu_bytes.val());
        self.seq_end_held.d.next = self.seq_end_sum.val().get_bits::<14>(0);
        self.seq_end_far_held.d.next = self.seq_far_now.val() | self.seq_end_sum.val().get_bit(14);
        self.seq_bytes.next = self.seq_low.val();
        self.seq_far.next = self.seq_far_held.q.val();
        self.seq_end_bytes.next = self.seq_end_held.q.val();
        self.seq_end_far.next = self.seq_end_far_held.q.val();
        // The `seq` of the message's last packet, and where this one stands against it.
        self.len_or_seq_zero.next = !self.rx_len.q.val().any() | !self.rx_seq.q.val().any();
        self.len_partial.next = self.rx_len.q.val().get_bits::<6>(0) & self.mtu_low_mask.val();
        // Well-formed check 3 and the payload bytes of the packet (§11.1).
        self.above_mtu.next = (self.rx_len.q.val() & self.from_mtu.val()).any()
            & (self.rx_len.q.val() != self.mtu_len.val());
        self.length_wrong.next = false;
        self.payload_bytes.next = self.no_bytes.val();
        if self.rx_type.q.val() == self.type_rts.val() {
            self.length_wrong.next = !self.above_mtu.val() | self.rx_seq.q.val().any();
            self.payload_bytes.next = self.mtu_bytes.val();
        } else if self.rx_type.q.val() == self.type_rts_last.val() {
            self.length_wrong.next = self.above_mtu.val() | self.rx_seq.q.val().any();
            self.payload_bytes.next = self.rx_len.q.val().get_bits::<6>(0);
        } else if (self.rx_type.q.val() == self.type_data.val())
            | (self.rx_type.q.val() == self.type_stop_data.val())
        {
            self.length_wrong.next =
                self.len_or_seq_zero.val() | self.seq_at_last.q.val() | self.seq_after_last.q.val();
            self.payload_bytes.next = self.mtu_bytes.val();
        } else if self.rx_type.q.val() == self.type_last_data.val() {
            self.length_wrong.next = self.len_or_seq_zero.val() | self.seq_after_last.q.val();
            if self.seq_at_last.q.val() & self.len_partial.val().any() {
                self.payload_bytes.next = self.len_partial.val();
            } else {
                self.payload_bytes.next = self.mtu_bytes.val();
            }
        }
        self.rx_words.next = (self.payload_bytes.val() + self.word_round_up.val()) >> 2;

        // ---- Header words as they pass; the checks end at word 6.
        self.rejected.next =
            self.bad_fields.q.val() | self.bad_version.q.val() | self.bad_length.q.val();
        self.receiver.reject.next =
            (self.receiver.index.val() == self.header_last.val()) & self.rejected.val();
        // Read by the receiver only with word 6, two edges or more after `seq` (word 4): so
        // registered, which takes the length arithmetic off the receiver's next-state path.
        self.payload_words_held.d.next = self.rx_words.val().get_bits::<4>(0);
        self.receiver.payload_words.next = self.payload_words_held.q.val();
        if self.receiver.header_valid.val() {
            if self.receiver.index.val() == self.header_first.val() {
                self.rx_type.d.next = self.receiver.word.val().get_bits::<4>(16);
                self.bad_fields.d.next = (self.receiver.word.val().get_bits::<2>(30)
                    != self.marker.val())
                    | !self.type_field.val().any()
                    | (self.type_field.val() > self.type_max.val());
                self.bad_version.d.next =
                    self.receiver.word.val().get_bits::<16>(0) != self.version.val();
            }
            if self.receiver.index.val() == self.header_node.val() {
                self.rx_nid.d.next = self.receiver.word.val().get_bits::<16>(0);
                self.bad_fields.d.next = self.bad_fields.q.val()
                    | self.receiver.word.val().get_bits::<16>(16).any()
                    | (self.receiver.word.val().get_bits::<16>(0) >= self.nodes.val());
            }
            if self.receiver.index.val() == self.header_msg_id.val() {
                self.rx_msg_id.d.next = self.receiver.word.val();
            }
            if self.receiver.index.val() == self.header_len.val() {
                self.rx_len.d.next = self.receiver.word.val();
                // Latched with `len`, so that the compares with `seq` (word 4) are not behind
                // a 32-bit decrement: on the iCE40 the two carry chains in a row were the
                // receive path's critical path, into `payload_words_held`.
                self.last_seq.d.next = (self.receiver.word.val() - 1) >> self.log2_mtu.val();
            }
            if self.receiver.index.val() == self.header_seq.val() {
                self.rx_seq.d.next = self.receiver.word.val();
                self.seq_at_last.d.next = self.receiver.word.val() == self.last_seq.q.val();
                self.seq_after_last.d.next = self.receiver.word.val() > self.last_seq.q.val();
            }
            if self.receiver.index.val() == self.header_info.val() {
                self.rx_info.d.next = self.receiver.word.val();
                self.bad_length.d.next = self.length_wrong.val();
            }
            if self.receiver.index.val() == self.header_last.val() {
                self.rx_msg_num.d.next = self.receiver.word.val();
            }
        }
        self.prepare.next = self.receiver.header_valid.val()
            & (self.receiver.index.val() == self.header_info.val());
        self.decide.next = self.receiver.header_valid.val()
            & (self.receiver.index.val() == self.header_last.val())
            & !self.rejected.val();
        self.payload_valid.next = self.receiver.payload_valid.val();

        // ---- How the worm ends: the verdicts the receive path counts, and the packet.
        self.version_rejected.next = self.receiver.header_valid.val()
            & (self.receiver.index.val() == self.header_last.val())
            & !self.bad_fields.q.val()
            & self.bad_version.q.val();
        self.count_version.next = self.version_rejected.val();
        self.count_cut.next = self.receiver.cut.val();
        self.crc_flit.next = self.receiver.crc_check.val();
        // The framing's state, not the flit: the action's choice then starts from a flip-flop.
        self.awaiting_crc.next = self.receiver.awaiting_crc.val();
        self.ends.worm_end.next = self.receiver.worm_end.val();
        self.ends.verdict.next = self.receiver.verdict.val();
        self.arrived.next = self.ends.arrived.val();
        self.count_crc.next = self.ends.crc.val();
        self.count_misrouted.next = self.ends.misrouted.val();
        self.count_truncated.next = self.ends.truncated.val();
        // The rejection of word 6 that is a version is counted as such, not as malformed.
        self.count_malformed.next = self.ends.malformed.val() & !self.version_rejected.val();
    }
}
