//! The receiving end of a worm (docs/protocol.md §8.3, §11.5): framing, route check and running
//! CRC, shared by every block that sinks worms from the fabric.
//!
//! A worm is a head flit (the route), `header_words` header words, the payload words its header
//! announces and a CRC flit with the tail bit. The cell knows the framing; its parent knows the
//! fields: it reads each word the cell presents, tells the cell when a header is malformed and
//! how many payload words follow, and counts the verdict the cell ends each worm with.

use rust_hdl::prelude::*;

use crate::crc::Crc32Word;
use crate::flit::Flit;

/// The largest `header_words` and payload a [`WormReceiver`] or a
/// [`crate::worm_transmitter::WormTransmitter`] frames: the width of its word index (4 bits)
/// less one, so that the index after the last word still fits.
pub const MAX_WORDS: usize = 15;

/// Where the receiver is in a worm. Every state but `Idle` and `Discard` has a worm in progress.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum ReceiveState {
    /// Between worms.
    Idle,
    /// Expecting header word `index`.
    Header,
    /// Expecting payload word `index`.
    Payload,
    /// Expecting the CRC flit (with the tail bit).
    Crc,
    /// Dropping the rest of a worm up to its tail: one whose head was lost, a malformed one.
    Discard,
}

/// How a worm ended (docs/protocol.md §8.3). Exactly one per worm, on `worm_end` (or on `cut`, which
/// is always `Truncated`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum WormVerdict {
    /// Whole, its CRC good and addressed to this node: the parent acts on it.
    Ok,
    /// Whole but its CRC differs.
    Crc,
    /// A tail before the CRC position, a head that is also a tail, or a worm without a head.
    Truncated,
    /// The parent rejected a header word, or the flit at the CRC position has no tail bit.
    Malformed,
    /// Whole and its CRC good, but its route's `dst` is another node.
    Misrouted,
}

/// A [`WormReceiver`] seen from a parent that does not own it (docs/protocol.md §13.3: the node's
/// one receiver serves the NI and the RMPP receive path): the receiver's outputs as inputs, of the
/// same names and meaning, and what the parent tells the receiver (`reject`, `payload_words`) as
/// outputs. The owner wires each signal to the receiver's port of the same name.
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "FramedWorm"]
pub struct ReceivedWorm {
    pub word: Signal<In, Bits<32>>,
    pub head: Signal<In, Bit>,
    pub source: Signal<In, Bits<16>>,
    pub header_valid: Signal<In, Bit>,
    pub payload_valid: Signal<In, Bit>,
    pub index: Signal<In, Bits<4>>,
    pub cut: Signal<In, Bit>,
    pub worm_end: Signal<In, Bit>,
    pub crc_check: Signal<In, Bit>,
    pub awaiting_crc: Signal<In, Bit>,
    pub verdict: Signal<In, WormVerdict>,
    pub reject: Signal<Out, Bit>,
    pub payload_words: Signal<Out, Bits<4>>,
}

/// The other end of a [`ReceivedWorm`]: the [`WormReceiver`]'s own ports (`worm`), and what the
/// node's split hands to each of its two sinks (§13.3); `FramedWorm::join` wires a receiver or a
/// split to a sink.
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "ReceivedWorm"]
pub struct FramedWorm {
    pub word: Signal<Out, Bits<32>>,
    pub head: Signal<Out, Bit>,
    pub source: Signal<Out, Bits<16>>,
    pub header_valid: Signal<Out, Bit>,
    pub payload_valid: Signal<Out, Bit>,
    pub index: Signal<Out, Bits<4>>,
    pub cut: Signal<Out, Bit>,
    pub worm_end: Signal<Out, Bit>,
    pub crc_check: Signal<Out, Bit>,
    pub awaiting_crc: Signal<Out, Bit>,
    pub verdict: Signal<Out, WormVerdict>,
    pub reject: Signal<In, Bit>,
    pub payload_words: Signal<In, Bits<4>>,
}

/// Sinks one flit per cycle and frames worms (docs/protocol.md §8.3).
///
/// Ports (Verilog names, as a child `<name>$<port>`):
///
/// | port | dir | width | |
/// |------|-----|-------|-|
/// | `clock` | in | 1 | |
/// | `flit` | in | 35 | the flit of this cycle (§2); consumed at this edge |
/// | `header_words` | in | 4 | header words of the worm in progress (1..=15), read with each header word |
/// | `worm$reject` | in | 1 | read with a header word: the header is malformed, discard the rest |
/// | `worm$payload_words` | in | 4 | read with the last header word: payload words that follow (0..15) |
/// | `worm$word` | out | 32 | the data bits of `flit` |
/// | `worm$head` | out | 1 | a head flit starts a worm now (parents clear what they gather) |
/// | `worm$source` | out | 16 | the route's `src` of the latest head (a register) |
/// | `worm$header_valid` | out | 1 | `word` is header word `index` of a worm in progress |
/// | `worm$payload_valid` | out | 1 | `word` is payload word `index` |
/// | `worm$index` | out | 4 | the word's index within the header or within the payload |
/// | `worm$cut` | out | 1 | a head arrived while a worm was in progress: that worm ends `Truncated` |
/// | `worm$worm_end` | out | 1 | the worm of this flit ends now, with `verdict` |
/// | `worm$crc_check` | out | 1 | the flit is a tail at the CRC position: `worm_end` with `Ok`, `Crc` or `Misrouted`, known without the CRC compare |
/// | `worm$awaiting_crc` | out | 1 | the state register is `Crc`: the next valid flit is at the worm's CRC position (from the register alone, whatever `flit` is) |
/// | `worm$verdict` | out | 3 | [`WormVerdict`] (`Ok` when `worm_end` is low) |
///
/// The `worm$*` ports are a [`FramedWorm`], so a sink's [`ReceivedWorm`] joins them in one line.
///
/// Parameter: `node` (the `dst` a worm must carry, else `Misrouted`). `header_words` is a port, so
/// that one receiver frames the worms of two protocols (docs/protocol.md §13.3: the node's NI
/// and RMPP receive path, 2 and 7 header words); a parent with one protocol ties it to a
/// constant. Timing: every output but `source` is combinational from `flit` and the registers
/// (`state`, `index`, `payload_count`, `crc`, `source`, `to_node`), and `reject` /
/// `payload_words` / `header_words` reach only `worm_end`, `verdict` and the next state, so a
/// parent may compute them from `word` and `index` in the same cycle. The cell acts at the edge that consumes the flit,
/// no latency: the verdict of a worm is out in the cycle of its last flit. `cut` and `worm_end` can
/// both be high, for a head that is also a tail arriving in the middle of a worm (two truncated
/// worms).
///
/// The rules (§8.3), for a valid flit: a head starts a worm in any state (a worm in progress is
/// `cut`); a head that is also a tail ends at once, `Truncated`. A non-head while idle ends a
/// headless worm at once, `Truncated`, and the rest of it is discarded. A tail in a header or
/// payload position ends the worm `Truncated`. At the CRC position a flit without the tail bit
/// ends it `Malformed` (too long; the rest is discarded); with it the CRC is checked first, then
/// the route (`Crc`, then `Misrouted`, else `Ok`). Flits whose valid bit is 0 are ignored.
#[derive(LogicBlock)]
pub struct WormReceiver {
    pub clock: Signal<In, Clock>,
    pub flit: Signal<In, Flit>,
    pub header_words: Signal<In, Bits<4>>,
    pub worm: FramedWorm,
    state: DFF<ReceiveState>,
    word_index: DFF<Bits<4>>,
    payload_count: DFF<Bits<4>>,
    crc: DFF<Bits<32>>,
    route_source: DFF<Bits<16>>,
    to_node: DFF<Bit>,
    crc_unit: Crc32Word,
    valid: Signal<Local, Bit>,
    is_head: Signal<Local, Bit>,
    is_tail: Signal<Local, Bit>,
    next_index: Signal<Local, Bits<4>>,
    node: Constant<Bits<16>>,
    first_index: Constant<Bits<4>>,
    index_step: Constant<Bits<4>>,
    crc_initial: Constant<Bits<32>>,
}

impl WormReceiver {
    /// A receiver for node `node`.
    pub fn new(node: u16) -> Self {
        Self {
            clock: Default::default(),
            flit: Default::default(),
            header_words: Default::default(),
            worm: Default::default(),
            state: Default::default(),
            word_index: Default::default(),
            payload_count: Default::default(),
            crc: Default::default(),
            route_source: Default::default(),
            to_node: Default::default(),
            crc_unit: Default::default(),
            valid: Default::default(),
            is_head: Default::default(),
            is_tail: Default::default(),
            next_index: Default::default(),
            node: Constant::new(Bits::from(node as u64)),
            first_index: Constant::new(Bits::default()),
            index_step: Constant::new(Bits::from(1)),
            crc_initial: Constant::new(Bits::from(0xFFFF_FFFFu64)),
        }
    }
}

impl Logic for WormReceiver {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            state,
            word_index,
            payload_count,
            crc,
            route_source,
            to_node
        );
        self.valid.next = self.flit.val().get_bit(34);
        self.is_head.next = self.flit.val().get_bit(33);
        self.is_tail.next = self.flit.val().get_bit(32);
        self.worm.word.next = self.flit.val().get_bits::<32>(0);
        self.worm.source.next = self.route_source.q.val();
        self.worm.index.next = self.word_index.q.val();
        self.next_index.next = self.word_index.q.val() + self.index_step.val();
        // A head restarts the CRC; any other word continues it.
        self.crc_unit.word.next = self.flit.val().get_bits::<32>(0);
        self.crc_unit.crc_in.next = self.crc.q.val();
        if self.is_head.val() {
            self.crc_unit.crc_in.next = self.crc_initial.val();
        }
        self.worm.head.next = false;
        self.worm.header_valid.next = false;
        self.worm.payload_valid.next = false;
        self.worm.cut.next = false;
        self.worm.worm_end.next = false;
        self.worm.crc_check.next = false;
        self.worm.awaiting_crc.next = self.state.q.val() == ReceiveState::Crc;
        self.worm.verdict.next = WormVerdict::Ok;
        if self.valid.val() & self.is_head.val() {
            self.worm.head.next = true;
            self.worm.cut.next = (self.state.q.val() == ReceiveState::Header)
                | (self.state.q.val() == ReceiveState::Payload)
                | (self.state.q.val() == ReceiveState::Crc);
            if self.is_tail.val() {
                self.worm.worm_end.next = true;
                self.worm.verdict.next = WormVerdict::Truncated;
                self.state.d.next = ReceiveState::Idle;
            } else {
                self.state.d.next = ReceiveState::Header;
            }
            self.route_source.d.next = self.flit.val().get_bits::<16>(16);
            self.to_node.d.next = self.flit.val().get_bits::<16>(0) == self.node.val();
            self.crc.d.next = self.crc_unit.crc_out.val();
            self.word_index.d.next = self.first_index.val();
        } else if self.valid.val() {
            match self.state.q.val() {
                ReceiveState::Idle => {
                    // A worm whose head was lost: counted once, the rest dropped.
                    self.worm.worm_end.next = true;
                    self.worm.verdict.next = WormVerdict::Truncated;
                    if !self.is_tail.val() {
                        self.state.d.next = ReceiveState::Discard;
                    }
                }
                ReceiveState::Crc => {
                    self.worm.worm_end.next = true;
                    if !self.is_tail.val() {
                        self.worm.verdict.next = WormVerdict::Malformed;
                        self.state.d.next = ReceiveState::Discard;
                    } else {
                        self.worm.crc_check.next = true;
                        self.state.d.next = ReceiveState::Idle;
                        if self.flit.val().get_bits::<32>(0) != self.crc.q.val() {
                            self.worm.verdict.next = WormVerdict::Crc;
                        } else if !self.to_node.q.val() {
                            self.worm.verdict.next = WormVerdict::Misrouted;
                        }
                    }
                }
                ReceiveState::Header => {
                    if self.is_tail.val() {
                        self.worm.worm_end.next = true;
                        self.worm.verdict.next = WormVerdict::Truncated;
                        self.state.d.next = ReceiveState::Idle;
                    } else {
                        self.worm.header_valid.next = true;
                        self.crc.d.next = self.crc_unit.crc_out.val();
                        self.word_index.d.next = self.next_index.val();
                        if self.worm.reject.val() {
                            self.worm.worm_end.next = true;
                            self.worm.verdict.next = WormVerdict::Malformed;
                            self.state.d.next = ReceiveState::Discard;
                        } else if self.next_index.val() == self.header_words.val() {
                            self.word_index.d.next = self.first_index.val();
                            self.payload_count.d.next = self.worm.payload_words.val();
                            if self.worm.payload_words.val().any() {
                                self.state.d.next = ReceiveState::Payload;
                            } else {
                                self.state.d.next = ReceiveState::Crc;
                            }
                        }
                    }
                }
                ReceiveState::Payload => {
                    if self.is_tail.val() {
                        self.worm.worm_end.next = true;
                        self.worm.verdict.next = WormVerdict::Truncated;
                        self.state.d.next = ReceiveState::Idle;
                    } else {
                        self.worm.payload_valid.next = true;
                        self.crc.d.next = self.crc_unit.crc_out.val();
                        self.word_index.d.next = self.next_index.val();
                        if self.next_index.val() == self.payload_count.q.val() {
                            self.state.d.next = ReceiveState::Crc;
                        }
                    }
                }
                _ => {
                    // Discard, and the three codes of the state register no state uses.
                    if self.is_tail.val() {
                        self.state.d.next = ReceiveState::Idle;
                    }
                }
            }
        }
    }
}

/// The end of a worm as its parent counts it (docs/protocol.md §8.2, §11.3): one strobe per
/// verdict, `arrived` for `Ok` (the parent acts on the packet), the others its drop counters'.
///
/// Ports: `worm_end`, `verdict` (in, 1 and 3: a [`WormReceiver`]'s); `arrived`, `crc`,
/// `truncated`, `malformed`, `misrouted` (out, 1 each): `worm_end` with that verdict.
/// Combinational. The receiver's `cut` is a second truncated worm in the same cycle, which the
/// parent counts beside `truncated`.
#[derive(LogicBlock, Default)]
pub struct WormEndStrobes {
    pub worm_end: Signal<In, Bit>,
    pub verdict: Signal<In, WormVerdict>,
    pub arrived: Signal<Out, Bit>,
    pub crc: Signal<Out, Bit>,
    pub truncated: Signal<Out, Bit>,
    pub malformed: Signal<Out, Bit>,
    pub misrouted: Signal<Out, Bit>,
}

impl Logic for WormEndStrobes {
    #[hdl_gen]
    fn update(&mut self) {
        self.arrived.next = false;
        self.crc.next = false;
        self.truncated.next = false;
        self.malformed.next = false;
        self.misrouted.next = false;
        if self.worm_end.val() {
            match self.verdict.val() {
                WormVerdict::Ok => {
                    self.arrived.next = true;
                }
                WormVerdict::Crc => {
                    self.crc.next = true;
                }
                WormVerdict::Truncated => {
                    self.truncated.next = true;
                }
                WormVerdict::Malformed => {
                    self.malformed.next = true;
                }
                WormVerdict::Misrouted => {
                    self.misrouted.next = true;
                }
                _ => {
                    // The three codes of the verdict no verdict uses: nothing to count.
                }
            }
        }
    }
}

#[cfg(test)]
mod end_strobes_tests {
    use super::*;

    /// Every verdict, with and without `worm_end`: exactly the strobe of its verdict while
    /// `worm_end`, none otherwise; and the emitted Verilog passes Verilator's lint.
    #[test]
    fn one_strobe_per_verdict_at_the_end_only() {
        let mut uut = WormEndStrobes::default();
        uut.connect_all();
        check_all(&uut).unwrap();
        let verdicts = [
            WormVerdict::Ok,
            WormVerdict::Crc,
            WormVerdict::Truncated,
            WormVerdict::Malformed,
            WormVerdict::Misrouted,
        ];
        for (k, &verdict) in verdicts.iter().enumerate() {
            for end in [false, true] {
                uut.worm_end.next = end;
                uut.verdict.next = verdict;
                crate::testing::settle(&mut uut);
                let shown = [
                    uut.arrived.val(),
                    uut.crc.val(),
                    uut.truncated.val(),
                    uut.malformed.val(),
                    uut.misrouted.val(),
                ];
                let expected: Vec<bool> = (0..verdicts.len()).map(|j| end && j == k).collect();
                assert_eq!(shown.to_vec(), expected, "{verdict:?}, worm_end {end}");
            }
        }
        idemnet_cosim::tools::verilator_lint(&generate_verilog(&uut), crate::LINT_WAIVERS)
            .unwrap_or_else(|e| panic!("{e:#}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flit;
    use crate::testing::Random;

    const NODE: u16 = 5;

    /// What the cell shows in one cycle.
    #[derive(Debug, PartialEq, Eq, Default)]
    struct Shown {
        head: bool,
        header: Option<u8>,
        payload: Option<u8>,
        cut: bool,
        end: Option<WormVerdict>,
        crc_check: bool,
        awaiting_crc: bool,
        source: u16,
    }

    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Expect {
        Nothing,
        Header,
        Payload,
        Crc,
        Drop,
    }

    /// §8.3 read as a list of rules, one flit at a time; the parent of the test rejects a
    /// header word whose bit 31 is set and reads the payload length from the low four bits of
    /// the last header word.
    struct Reference {
        header_words: u8,
        expect: Expect,
        at: u8,
        payload: u8,
        crc: u32,
        source: u16,
        dst: u16,
    }

    impl Reference {
        fn new(header_words: u8) -> Self {
            Self {
                header_words,
                expect: Expect::Nothing,
                at: 0,
                payload: 0,
                crc: 0,
                source: 0,
                dst: 0,
            }
        }

        fn step(&mut self, f: u64) -> Shown {
            // `source` is a register: the head of this cycle shows from the next one.
            let mut s = Shown {
                source: self.source,
                awaiting_crc: self.expect == Expect::Crc,
                ..Shown::default()
            };
            let word = flit::data(f);
            if flit::is_valid(f) {
                let (head, tail) = (flit::is_head(f), flit::is_tail(f));
                let in_worm = matches!(self.expect, Expect::Header | Expect::Payload | Expect::Crc);
                if head {
                    s.head = true;
                    s.cut = in_worm;
                    self.source = (word >> 16) as u16;
                    self.dst = word as u16;
                    self.crc = idemnet_model::ni::crc32_step(0xFFFF_FFFF, word);
                    self.at = 0;
                    self.expect = if tail {
                        s.end = Some(WormVerdict::Truncated);
                        Expect::Nothing
                    } else {
                        Expect::Header
                    };
                } else if self.expect == Expect::Nothing {
                    s.end = Some(WormVerdict::Truncated);
                    self.expect = if tail { Expect::Nothing } else { Expect::Drop };
                } else if self.expect == Expect::Drop {
                    if tail {
                        self.expect = Expect::Nothing;
                    }
                } else if tail && self.expect != Expect::Crc {
                    s.end = Some(WormVerdict::Truncated);
                    self.expect = Expect::Nothing;
                } else if self.expect == Expect::Crc {
                    if !tail {
                        s.end = Some(WormVerdict::Malformed);
                        self.expect = Expect::Drop;
                    } else {
                        s.crc_check = true;
                        s.end = Some(if word != self.crc {
                            WormVerdict::Crc
                        } else if self.dst != NODE {
                            WormVerdict::Misrouted
                        } else {
                            WormVerdict::Ok
                        });
                        self.expect = Expect::Nothing;
                    }
                } else {
                    self.crc = idemnet_model::ni::crc32_step(self.crc, word);
                    if self.expect == Expect::Header {
                        s.header = Some(self.at);
                        self.at += 1;
                        if word >> 31 == 1 {
                            s.end = Some(WormVerdict::Malformed);
                            self.expect = Expect::Drop;
                        } else if self.at == self.header_words {
                            self.payload = (word & 0xF) as u8;
                            self.at = 0;
                            self.expect = if self.payload == 0 {
                                Expect::Crc
                            } else {
                                Expect::Payload
                            };
                        }
                    } else {
                        s.payload = Some(self.at);
                        self.at += 1;
                        if self.at == self.payload {
                            self.expect = Expect::Crc;
                        }
                    }
                }
            }
            s
        }
    }

    /// A random worm, whole or damaged in one of the ways §8.3 names, as packed flits.
    fn worm(r: &mut Random, header_words: u8) -> Vec<u64> {
        let dst = if r.chance(85) {
            NODE
        } else {
            r.below(8) as u16
        };
        let payload = r.below(9) as u32;
        let mut words = vec![flit::route(r.below(1 << 16) as u16, dst)];
        for i in 0..header_words {
            let mut w = r.next_u64() as u32 & 0x7FFF_FFF0;
            if i + 1 == header_words {
                w |= payload;
            }
            words.push(w);
        }
        for _ in 0..payload {
            words.push(r.next_u64() as u32);
        }
        let crc = idemnet_model::ni::crc32(&words);
        words.push(crc);
        match r.below(10) {
            // A bad CRC, or any word changed.
            0 => {
                let i = 1 + r.below(words.len() as u64 - 1) as usize;
                words[i] ^= 1 << r.below(31);
            }
            // A header word the parent rejects.
            1 => {
                let i = 1 + r.below(header_words as u64) as usize;
                words[i] |= 1 << 31;
            }
            _ => {}
        }
        let last = words.len() - 1;
        let mut flits: Vec<u64> = words
            .iter()
            .enumerate()
            .map(|(i, &w)| flit::make(i == 0, i == last, w))
            .collect();
        match r.below(12) {
            // Truncated: a tail early, or cut without a tail (the next worm's head ends it).
            0 => {
                let n = r.below(flits.len() as u64) as usize;
                flits.truncate(n.max(1));
                let l = flits.len() - 1;
                flits[l] |= 1 << flit::TAIL_BIT;
            }
            1 => flits.truncate(1 + r.below(flits.len() as u64 - 1) as usize),
            // Too long: the CRC flit without its tail, then more.
            2 => {
                flits[last] &= !(1 << flit::TAIL_BIT);
                for _ in 0..r.below(3) {
                    flits.push(flit::make(false, false, r.next_u64() as u32));
                }
                flits.push(flit::make(false, true, r.next_u64() as u32));
            }
            // The head lost.
            3 => {
                flits.remove(0);
            }
            // Head and tail in one flit.
            4 => flits = vec![flit::make(true, true, flit::route(1, NODE))],
            _ => {}
        }
        flits
    }

    fn shown(uut: &WormReceiver) -> Shown {
        let index = uut.worm.index.val().to_u64() as u8;
        Shown {
            head: uut.worm.head.val(),
            header: uut.worm.header_valid.val().then_some(index),
            payload: uut.worm.payload_valid.val().then_some(index),
            cut: uut.worm.cut.val(),
            end: uut.worm.worm_end.val().then_some(uut.worm.verdict.val()),
            crc_check: uut.worm.crc_check.val(),
            awaiting_crc: uut.worm.awaiting_crc.val(),
            source: uut.worm.source.val().to_u64() as u16,
        }
    }

    /// `header_words` 0: each worm's header is 2 or 7 words at random, given on the port from its
    /// head on, as the node's split does (§13.3).
    fn run(header_words: u8, seed: u64, worms: usize) -> [usize; 5] {
        let mut uut = WormReceiver::new(NODE);
        uut.connect_all();
        check_all(&uut).unwrap();
        let mut reference = Reference::new(header_words);
        let mut r = Random::new(seed);
        let mut seen = [0; 5];
        let mut cycle = 0;
        let mut cuts = 0;
        for _ in 0..worms {
            let words = match header_words {
                0 if r.chance(50) => 2,
                0 => 7,
                n => n,
            };
            let mut flits = worm(&mut r, words);
            // Idle cycles between worms, whose other bits are junk, and one inside a worm.
            if r.chance(30) {
                let at = r.below(flits.len() as u64 + 1) as usize;
                flits.insert(at, r.next_u64() & !(1 << flit::VALID_BIT) & ((1 << 35) - 1));
            }
            for f in flits {
                uut.clock.next = false.into();
                uut.flit.next = flit::to_bits(f);
                if f >> flit::VALID_BIT & 1 == 1 && f >> flit::HEAD_BIT & 1 == 1 {
                    reference.header_words = words;
                    uut.header_words.next = Bits::from(words as u64);
                }
                // The parent of the reference, combinational as a real one would be.
                assert!(simulate(&mut uut, 1000));
                let word = uut.worm.word.val().to_u64();
                uut.worm.reject.next = word >> 31 == 1;
                uut.worm.payload_words.next = Bits::from(word & 0xF);
                assert!(simulate(&mut uut, 1000));
                let want = reference.step(f);
                assert_eq!(shown(&uut), want, "cycle {cycle}, flit {f:#011x}");
                if let Some(v) = want.end {
                    seen[v as usize] += 1;
                }
                cuts += want.cut as usize;
                uut.clock.next = true.into();
                assert!(simulate(&mut uut, 1000));
                cycle += 1;
            }
        }
        assert!(cuts > 20, "{cuts} worms cut by a head");
        seen
    }

    /// Seeded random worms, whole and damaged, against the reference, for the NI's header (2
    /// words), the RMPP header (7), a one-word header and both mixed (the node's split); every
    /// verdict occurs.
    #[test]
    fn frames_random_worms_as_the_reference_does() {
        for (header_words, seed) in [(2, 1), (7, 2), (1, 3), (0, 4)] {
            let seen = run(header_words, seed, 1500);
            assert!(seen.iter().all(|&n| n > 20), "{header_words}: {seen:?}");
        }
    }
}
