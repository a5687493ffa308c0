//! The per-slot fields of the RMPP receive path that are written at one slot an edge and read
//! by slot number (docs/protocol.md §11.4), kept in LUT RAM.

use idemnet_rtl::lut_ram::LutRam;
use idemnet_spec::rmpp::{RmppConfig, SELECTIVE_WINDOW};
use rust_hdl::prelude::*;

use super::Action;
use crate::c;

/// The one action of an edge and the packet fields it writes (docs/protocol.md §11.5), as the
/// slot table ([`super::slots::RmppSlots`]) takes them and hands them on to its [`SlotFields`].
///
/// The action comes as its sources ([`super::action::RmppAction`]'s bits, at most one set):
/// the latched verdict on `target`, the answer register on `answer_slot` (the third, the
/// delivered register, writes no field; the slot table takes it beside this bundle). Every
/// write enable and address is decoded from these registers' bits, never from a chosen action
/// and a multiplexed slot.
#[derive(Clone, Debug, Default, LogicInterface)]
pub struct SlotWrite {
    /// The latched verdict ([`Action`]) and its slot; the verdict acts now.
    pub verdict: Signal<In, Action>,
    pub target: Signal<In, Bits<4>>,
    pub verdict_acts: Signal<In, Bit>,
    /// The answer register acts now, on `answer_slot`.
    pub answer_acts: Signal<In, Bit>,
    pub answer_slot: Signal<In, Bits<4>>,
    /// The packet's `srcNID` and `msgID` (also the key the slot table matches), `msgNum`, `len`
    /// and the low bits of `seq`.
    pub key_node: Signal<In, Bits<8>>,
    pub key_msg_id: Signal<In, Bits<32>>,
    pub msg_num: Signal<In, Bits<32>>,
    pub len: Signal<In, Bits<32>>,
    pub seq_low: Signal<In, Bits<11>>,
    /// The latched in-sequence verdict: a restart, the last packet, a new CTS due.
    pub restart: Signal<In, Bit>,
    pub finish: Signal<In, Bit>,
    pub new_cts: Signal<In, Bit>,
    /// A new CTS's `n` (Figure 8).
    pub allowance: Signal<In, Bits<16>>,
    /// Selective acceptance (§11.7): the target's `held` after a *held* or in-sequence packet,
    /// an in-sequence packet's new `next_seq` (past the run held behind it).
    pub held: Signal<In, Bits<16>>,
    pub advanced: Signal<In, Bits<11>>,
    /// The answer register: accepted bytes, `up_accept` was 0, more than one packet.
    pub answer_limit: Signal<In, Bits<13>>,
    pub answer_zero: Signal<In, Bit>,
    pub answer_cts: Signal<In, Bit>,
}

/// The fields a [`SlotFields`] shows, each of the slot its reader names; what the slot table
/// ([`super::slots::RmppSlots`]) hands on as its own outputs.
#[derive(Clone, Debug, Default, LogicInterface)]
pub struct SlotReads {
    /// The slot the transmitter picks: `msgID`, `msgNum`, `limit`, `next_seq`, a CTS's `n` (its
    /// `src` comes from the slot table's flip-flops, [`super::slots::RmppSlots`]'s `pick_src`).
    pub pick_msg_id: Signal<Out, Bits<32>>,
    pub pick_msg_num: Signal<Out, Bits<32>>,
    pub pick_limit: Signal<Out, Bits<13>>,
    pub pick_next_seq: Signal<Out, Bits<11>>,
    pub pick_cts_n: Signal<Out, Bits<16>>,
    /// Its `held` (a CTS's `info2`, §11.7; zero without selective acceptance).
    pub pick_held: Signal<Out, Bits<16>>,
    /// The slot holding the key.
    pub match_next_seq: Signal<Out, Bits<11>>,
    pub match_limit: Signal<Out, Bits<13>>,
    pub match_held: Signal<Out, Bits<16>>,
    /// The upcall's slot (zero unless `up_valid`).
    pub up_src: Signal<Out, Bits<8>>,
    pub up_msg_id: Signal<Out, Bits<32>>,
    pub up_msg_num: Signal<Out, Bits<32>>,
    pub up_len: Signal<Out, Bits<32>>,
    /// `min(len, max_msg)` of `up_slot`, shown or not: what the answer register loads when the
    /// upcall is taken, read without the gate of `up_valid` and without a compare.
    pub up_capped: Signal<Out, Bits<13>>,
    /// The delivery's and the read port's slot (zero unless valid).
    pub dlv_limit: Signal<Out, Bits<13>>,
    pub read_limit: Signal<Out, Bits<13>>,
}

/// The message's `src`, `msgID`, `msgNum` and `len`, and `limit`, `next_seq`, a CTS's `n` and,
/// with selective acceptance (§11.7), `held`, one word per slot, written by the edge's action at its slot and read by slot number.
///
/// Ports (Verilog names, as a child `fields$<port>`):
///
/// | port | dir | width | |
/// |------|-----|-------|-|
/// | `clock` | in | 1 | |
/// | `write$*` | in | | the edge's action and the packet fields it writes ([`SlotWrite`]) |
/// | `pick_slot`, `match_slot` | in | 4, 4 | the slot the transmitter picks and the slot holding the key |
/// | `up_valid`, `up_slot`, `dlv_valid`, `dlv_slot` | in | 1, 4 each | slots whose fields are shown, each while valid |
/// | `read_slot` | in | 4 | the read port's slot, whose `limit` is shown busy or free (the read port masks a free slot's) |
/// | `reads$*` | out | | the fields of `pick_slot`, `match_slot`, `up_slot`, `dlv_slot` and `read_slot` ([`SlotReads`]) |
///
/// Writes: `src`, `msg_id`, `msg_num`, `len` and `capped` (`min(len, max_msg)`) only by *new*
/// and *abort new*; `limit` by *new* (`min(len, mtu)` or `len`), *abort new* (0) and *answer*
/// (the accepted bytes); `next_seq` and `cts_n` by *in sequence* and *answer*, never cleared (a
/// slot's next use writes them before reading them); `held` (`selective` only: without it the
/// memory is never written and synthesis removes it) by *new* and *abort new* (0), *held* and
/// *in sequence* other than a restart (the verdict's `held`), and an in-sequence packet's
/// `next_seq` is then the verdict's `advanced`. Each is a [`LutRam`] (one write port,
/// asynchronous reads, one copy per read port on the ECP5) of `rx_slots + 1` words: the upcall
/// and the delivery read word `rx_slots`, which is never written and so zero, while not valid,
/// and show zero without a gate per bit. Two reads are not gated, because their valid would
/// lie in series before the memory's address on a critical path: `capped` at `up_slot` (the
/// answer register loads it only when the upcall is taken), and `limit` at `read_slot` (the
/// read port clears a free slot's mask itself). Values are masked to the bits the
/// configuration's largest value needs, so the memories are no wider than that.
///
/// Timing: the outputs are combinational from the addresses (asynchronous reads); a write
/// shows at the edge.
#[derive(LogicBlock)]
pub struct SlotFields {
    pub clock: Signal<In, Clock>,
    pub write: SlotWrite,
    pub pick_slot: Signal<In, Bits<4>>,
    pub match_slot: Signal<In, Bits<4>>,
    pub up_valid: Signal<In, Bit>,
    pub up_slot: Signal<In, Bits<4>>,
    pub dlv_valid: Signal<In, Bit>,
    pub dlv_slot: Signal<In, Bits<4>>,
    pub read_slot: Signal<In, Bits<4>>,
    pub reads: SlotReads,
    m_src: LutRam<Bits<8>, 5>,
    m_msg_id: LutRam<Bits<32>, 5>,
    m_msg_num: LutRam<Bits<32>, 5>,
    m_len: LutRam<Bits<32>, 5>,
    m_capped: LutRam<Bits<13>, 5>,
    m_next_seq: LutRam<Bits<11>, 5>,
    m_cts_n: LutRam<Bits<16>, 5>,
    m_limit: LutRam<Bits<13>, 5>,
    m_held: LutRam<Bits<16>, 5>,
    selective: Constant<Bit>,
    no_held: Constant<Bits<16>>,
    new_limit: Signal<Local, Bits<13>>,
    /// The slot the verdict or the answer writes.
    slot_address: Signal<Local, Bits<5>>,
    /// The answer opens the slot for more packets (a CTS); the verdict is *in sequence*.
    answer_opens: Signal<Local, Bit>,
    in_sequence: Signal<Local, Bit>,
    up_address: Signal<Local, Bits<5>>,
    dlv_address: Signal<Local, Bits<5>>,
    no_word: Constant<Bits<5>>,
    empty_limit: Constant<Bits<13>>,
    sequence_step: Constant<Bits<11>>,
    sequence_first: Constant<Bits<11>>,
    /// The bits of a length at or above `mtu` (a power of two): `len > mtu` is a bit of them
    /// set and `len != mtu`.
    from_mtu: Constant<Bits<32>>,
    mtu_len: Constant<Bits<32>>,
    /// The bits of a length at or above `max_msg` (a power of two).
    from_max_msg: Constant<Bits<32>>,
    max_msg_limit: Constant<Bits<13>>,
    mtu_limit: Constant<Bits<13>>,
    node_mask: Constant<Bits<8>>,
    limit_mask: Constant<Bits<13>>,
    sequence_mask: Constant<Bits<11>>,
    grant_mask: Constant<Bits<16>>,
}

/// Read ports of the `msgID` and `msgNum` memories: the pick and the upcall (`src`'s: the upcall
/// only) (a delivery
/// shows only its slot and `limit`, docs/protocol.md §11.3).
const WORD_READS: usize = 2;
/// Reads of `limit`: the match, the pick, the delivery and the read port's slot.
const LIMIT_READS: usize = 4;

/// How many low bits hold every value `0..=largest` (at least one).
pub(crate) fn bits_holding(largest: u64) -> usize {
    ((u64::BITS - largest.leading_zeros()) as usize).max(1)
}

/// The low bits that hold every value `0..=largest`: a field's register bits above them are
/// constant zero once its inputs are masked by this, and synthesis removes them.
pub(crate) fn holding<const N: usize>(largest: u64) -> Constant<Bits<N>> {
    c((1u64 << (u64::BITS - largest.leading_zeros())) - 1)
}

impl SlotFields {
    /// `cfg.rx_slots` slots with `cfg`'s `mtu`, `max_msg`, `max_data_pkts` and `nodes`.
    pub fn new(cfg: &RmppConfig) -> Self {
        let n = cfg.rx_slots;
        Self {
            clock: Default::default(),
            write: Default::default(),
            pick_slot: Default::default(),
            match_slot: Default::default(),
            up_valid: Default::default(),
            up_slot: Default::default(),
            dlv_valid: Default::default(),
            dlv_slot: Default::default(),
            read_slot: Default::default(),
            reads: Default::default(),
            // The upcall's only: the pick's `src` is the slot table's flip-flops.
            m_src: LutRam::narrow(n + 1, 1, bits_holding(cfg.nodes as u64 - 1)),
            m_msg_id: LutRam::new(n + 1, WORD_READS),
            m_msg_num: LutRam::new(n + 1, WORD_READS),
            m_len: LutRam::new(n + 1, 1),
            m_capped: LutRam::narrow(n, 1, bits_holding(cfg.max_msg as u64)),
            m_next_seq: LutRam::narrow(n + 1, 2, bits_holding((cfg.max_msg / cfg.mtu) as u64)),
            m_cts_n: LutRam::narrow(n + 1, 1, bits_holding(cfg.max_data_pkts as u64)),
            m_limit: LutRam::narrow(n + 1, LIMIT_READS, bits_holding(cfg.max_msg as u64)),
            // The pick's and the match's; one bit stored when never written.
            m_held: LutRam::narrow(
                n,
                2,
                if cfg.selective {
                    SELECTIVE_WINDOW as usize
                } else {
                    1
                },
            ),
            selective: Constant::new(cfg.selective),
            no_held: c(0),
            new_limit: Default::default(),
            slot_address: Default::default(),
            answer_opens: Default::default(),
            in_sequence: Default::default(),
            up_address: Default::default(),
            dlv_address: Default::default(),
            no_word: c(n as u64),
            empty_limit: c(0),
            sequence_step: c(1),
            sequence_first: c(1),
            from_mtu: c(!(cfg.mtu as u64 - 1) & 0xFFFF_FFFF),
            mtu_len: c(cfg.mtu as u64),
            from_max_msg: c(!(cfg.max_msg as u64 - 1) & 0xFFFF_FFFF),
            max_msg_limit: c(cfg.max_msg as u64),
            mtu_limit: c(cfg.mtu as u64),
            node_mask: holding(cfg.nodes as u64 - 1),
            limit_mask: holding(cfg.max_msg as u64),
            sequence_mask: holding((cfg.max_msg / cfg.mtu) as u64),
            grant_mask: holding(cfg.max_data_pkts as u64),
        }
    }
}

impl Logic for SlotFields {
    #[hdl_gen]
    fn update(&mut self) {
        self.m_src.clock.next = self.clock.val();
        self.m_msg_id.clock.next = self.clock.val();
        self.m_msg_num.clock.next = self.clock.val();
        self.m_len.clock.next = self.clock.val();
        self.m_capped.clock.next = self.clock.val();
        self.m_limit.clock.next = self.clock.val();
        self.m_next_seq.clock.next = self.clock.val();
        self.m_cts_n.clock.next = self.clock.val();
        self.m_held.clock.next = self.clock.val();

        // ---- The fields a new message brings, written once into the slot it takes (*new* and
        // *abort new* are verdicts: at `target`).
        self.m_src.write_enable.next = self.write.verdict_acts.val()
            & ((self.write.verdict.val() == Action::New)
                | (self.write.verdict.val() == Action::AbortNew));
        self.m_src.write_address.next = bit_cast::<5, 4>(self.write.target.val());
        self.m_src.write_data.next = self.write.key_node.val() & self.node_mask.val();
        self.m_msg_id.write_enable.next = self.m_src.write_enable.val();
        self.m_msg_id.write_address.next = self.m_src.write_address.val();
        self.m_msg_id.write_data.next = self.write.key_msg_id.val();
        self.m_msg_num.write_enable.next = self.m_src.write_enable.val();
        self.m_msg_num.write_address.next = self.m_src.write_address.val();
        self.m_msg_num.write_data.next = self.write.msg_num.val();
        self.m_len.write_enable.next = self.m_src.write_enable.val();
        self.m_len.write_address.next = self.m_src.write_address.val();
        self.m_len.write_data.next = self.write.len.val();
        // `min(len, max_msg)`, with `>=` a constant as masks and an OR tree (no carry chain).
        self.m_capped.write_enable.next = self.m_src.write_enable.val();
        self.m_capped.write_address.next = self.m_src.write_address.val();
        self.m_capped.write_data.next =
            self.write.len.val().get_bits::<13>(0) & self.limit_mask.val();
        if (self.write.len.val() & self.from_max_msg.val()).any() {
            self.m_capped.write_data.next = self.max_msg_limit.val();
        }
        self.new_limit.next = self.write.len.val().get_bits::<13>(0);
        // A compare with a constant as masks and OR trees: yosys would build a 32-bit carry
        // chain for `>` (13 CCU2C on the ECP5).
        if (self.write.len.val() & self.from_mtu.val()).any()
            & (self.write.len.val() != self.mtu_len.val())
        {
            self.new_limit.next = self.mtu_limit.val();
        }

        // ---- The fields the verdict or the answer writes: at `answer_slot` while the answer
        // acts, else at `target` (written only if the verdict acts). `limit` by *new* (the first
        // packet's bytes), *abort new* (0) and the answer (the accepted bytes); the sequence
        // number expected next and a CTS's `n` by *in sequence* (the packet's successor unless
        // it restarts; a new CTS's `n`) and by an answer with a CTS (the first; its `n`).
        self.slot_address.next = bit_cast::<5, 4>(self.write.target.val());
        if self.write.answer_acts.val() {
            self.slot_address.next = bit_cast::<5, 4>(self.write.answer_slot.val());
        }
        self.m_limit.write_address.next = self.slot_address.val();
        self.m_limit.write_enable.next =
            self.m_src.write_enable.val() | self.write.answer_acts.val();
        self.m_limit.write_data.next = self.empty_limit.val();
        if self.write.verdict.val() == Action::New {
            self.m_limit.write_data.next = self.new_limit.val() & self.limit_mask.val();
        }
        if self.write.answer_acts.val() {
            self.m_limit.write_data.next = self.write.answer_limit.val() & self.limit_mask.val();
        }
        self.answer_opens.next = self.write.answer_acts.val()
            & !self.write.answer_zero.val()
            & self.write.answer_cts.val();
        self.in_sequence.next =
            self.write.verdict_acts.val() & (self.write.verdict.val() == Action::InSequence);
        self.m_next_seq.write_address.next = self.slot_address.val();
        self.m_next_seq.write_enable.next =
            (self.in_sequence.val() & !self.write.restart.val()) | self.answer_opens.val();
        self.m_next_seq.write_data.next =
            (self.write.seq_low.val() + self.sequence_step.val()) & self.sequence_mask.val();
        if self.selective.val() {
            self.m_next_seq.write_data.next = self.write.advanced.val() & self.sequence_mask.val();
        }
        if self.write.answer_acts.val() {
            self.m_next_seq.write_data.next = self.sequence_first.val();
        }
        self.m_cts_n.write_address.next = self.slot_address.val();
        self.m_cts_n.write_enable.next =
            (self.in_sequence.val() & !self.write.finish.val() & self.write.new_cts.val())
                | self.answer_opens.val();
        self.m_cts_n.write_data.next = self.write.allowance.val() & self.grant_mask.val();
        self.m_held.write_address.next = self.slot_address.val();
        self.m_held.write_enable.next = self.selective.val()
            & (self.m_src.write_enable.val()
                | (self.in_sequence.val() & !self.write.restart.val())
                | (self.write.verdict_acts.val() & (self.write.verdict.val() == Action::Held)));
        self.m_held.write_data.next = self.write.held.val();
        if self.m_src.write_enable.val() {
            self.m_held.write_data.next = self.no_held.val();
        }

        // ---- Reads by slot number; the upcall and the delivery read word `n`, never written, so
        // zero, when not valid.
        self.up_address.next = self.no_word.val();
        if self.up_valid.val() {
            self.up_address.next = bit_cast::<5, 4>(self.up_slot.val());
        }
        self.dlv_address.next = self.no_word.val();
        if self.dlv_valid.val() {
            self.dlv_address.next = bit_cast::<5, 4>(self.dlv_slot.val());
        }
        self.m_msg_id.read_address[0].next = bit_cast::<5, 4>(self.pick_slot.val());
        self.m_msg_num.read_address[0].next = bit_cast::<5, 4>(self.pick_slot.val());
        self.m_next_seq.read_address[0].next = bit_cast::<5, 4>(self.pick_slot.val());
        self.m_cts_n.read_address[0].next = bit_cast::<5, 4>(self.pick_slot.val());
        self.m_limit.read_address[0].next = bit_cast::<5, 4>(self.pick_slot.val());
        self.m_next_seq.read_address[1].next = bit_cast::<5, 4>(self.match_slot.val());
        self.m_limit.read_address[1].next = bit_cast::<5, 4>(self.match_slot.val());
        self.m_src.read_address[0].next = self.up_address.val();
        self.m_msg_id.read_address[1].next = self.up_address.val();
        self.m_msg_num.read_address[1].next = self.up_address.val();
        self.m_len.read_address[0].next = self.up_address.val();
        self.m_limit.read_address[2].next = self.dlv_address.val();
        self.m_limit.read_address[3].next = bit_cast::<5, 4>(self.read_slot.val());
        self.reads.pick_msg_id.next = self.m_msg_id.read_data[0].val();
        self.reads.pick_msg_num.next = self.m_msg_num.read_data[0].val();
        self.reads.pick_next_seq.next = self.m_next_seq.read_data[0].val();
        self.reads.pick_cts_n.next = self.m_cts_n.read_data[0].val();
        self.m_held.read_address[0].next = bit_cast::<5, 4>(self.pick_slot.val());
        self.m_held.read_address[1].next = bit_cast::<5, 4>(self.match_slot.val());
        // Without selective acceptance the memory is read nowhere, and synthesis removes it.
        self.reads.pick_held.next = self.no_held.val();
        self.reads.match_held.next = self.no_held.val();
        if self.selective.val() {
            self.reads.pick_held.next = self.m_held.read_data[0].val();
            self.reads.match_held.next = self.m_held.read_data[1].val();
        }
        self.reads.pick_limit.next = self.m_limit.read_data[0].val();
        self.reads.match_next_seq.next = self.m_next_seq.read_data[1].val();
        self.reads.match_limit.next = self.m_limit.read_data[1].val();
        self.reads.up_src.next = self.m_src.read_data[0].val();
        self.reads.up_msg_id.next = self.m_msg_id.read_data[1].val();
        self.reads.up_msg_num.next = self.m_msg_num.read_data[1].val();
        self.reads.up_len.next = self.m_len.read_data[0].val();
        self.m_capped.read_address[0].next = bit_cast::<5, 4>(self.up_slot.val());
        self.reads.up_capped.next = self.m_capped.read_data[0].val();
        self.reads.dlv_limit.next = self.m_limit.read_data[2].val();
        self.reads.read_limit.next = self.m_limit.read_data[3].val();
    }
}
