//! The sending end of a worm (docs/protocol.md §8.5, §11.5, §13.1): link request, framing and
//! the CRC, shared by every block that puts worms into the fabric.
//!
//! A worm is a head flit (the route), `header_words` header words, `payload_words` payload words
//! and the CRC-32/MPEG-2 of all of their data words in a tail flit, one flit per cycle without
//! gaps. The cell knows the framing; its parent knows the fields and answers, in the same cycle,
//! the word the cell asks for by its index.

use rust_hdl::prelude::*;

use crate::crc::Crc32Word;
use crate::flit::Flit;

/// Cycles between the read of a payload word in a parent's block RAM and the cycle in which
/// `payload_valid` asks for it, when the RAM's read register answers directly: the RAM reads at
/// the edge before.
pub const DIRECT_READ_LEAD: usize = 1;

/// The same when the parent registers the RAM's output once more before answering with it.
pub const REGISTERED_READ_LEAD: usize = 2;

/// What a parent of `header_words` header words adds to `index` while `header_valid` to read
/// its payload `lead` cycles ahead, modulo a RAM of `address_bits` address bits
/// (`index + lead - header_words`, without going below zero).
pub const fn header_read_lead(lead: usize, header_words: usize, address_bits: usize) -> u64 {
    let words = 1usize << address_bits;
    ((lead + words - header_words % words) % words) as u64
}

/// Where the transmitter is in a worm.
#[derive(Copy, Clone, Debug, PartialEq, Eq, LogicState)]
pub enum TransmitState {
    /// No worm in flight: the head of the next goes out when one is due and granted.
    Idle,
    /// Header word `index` goes out this cycle.
    Header,
    /// Payload word `index` goes out this cycle.
    Payload,
    /// The CRC goes out this cycle, with the tail bit.
    Crc,
}

/// A [`WormTransmitter`] seen from a worm source, the block whose worm it sends (docs/protocol.md
/// §13.2: the node's NI, RMPP receive path and framer share one): what the source answers
/// (`due`, `word`, `payload_words`) as outputs and what the transmitter asks (`start`,
/// `header_valid`, `payload_valid`, `index`, `finish`) as inputs, of the
/// transmitter's meaning (its port table). A source may leave inputs it does not need unread.
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "WormFetch"]
pub struct WormSource {
    pub due: Signal<Out, Bit>,
    pub word: Signal<Out, Bits<32>>,
    pub payload_words: Signal<Out, Bits<4>>,
    pub start: Signal<In, Bit>,
    pub header_valid: Signal<In, Bit>,
    pub payload_valid: Signal<In, Bit>,
    pub index: Signal<In, Bits<4>>,
    pub finish: Signal<In, Bit>,
}

/// The other end of a [`WormSource`]: the [`WormTransmitter`]'s own ports (`source`), and what
/// the node's merge hands to each of its three sources (§13.2); `WormSource::join` wires a
/// source to a transmitter or to the merge.
#[derive(Clone, Debug, Default, LogicInterface)]
#[join = "WormSource"]
pub struct WormFetch {
    pub due: Signal<In, Bit>,
    pub word: Signal<In, Bits<32>>,
    pub payload_words: Signal<In, Bits<4>>,
    pub start: Signal<Out, Bit>,
    pub header_valid: Signal<Out, Bit>,
    pub payload_valid: Signal<Out, Bit>,
    pub index: Signal<Out, Bits<4>>,
    pub finish: Signal<Out, Bit>,
}

/// Puts out one worm at a time, one flit per cycle (docs/protocol.md §8.5, §13.2).
///
/// Ports (Verilog names, as a child `<name>$<port>`):
///
/// | port | dir | width | |
/// |------|-----|-------|-|
/// | `clock` | in | 1 | |
/// | `source$due` | in | 1 | the parent has a worm to send |
/// | `grant` | in | 1 | the link is the parent's this cycle (§13.2; tie high when alone) |
/// | `source$word` | in | 32 | the parent's answer: the route when `start`, header word `index` when `header_valid`, payload word `index` when `payload_valid` |
/// | `header_words` | in | 4 | read in every header cycle: the worm's header words (1..15), steady from `start` to its last header word |
/// | `source$payload_words` | in | 4 | read with the last header word: payload words that follow (0..15) |
/// | `request` | out | 1 | idle with a worm due (§13.2's `tx_req`) |
/// | `source$start` | out | 1 | idle, due and granted: the head goes out at this edge (the parent latches the worm's fields) |
/// | `source$header_valid`, `source$payload_valid` | out | 1, 1 | header / payload word `index` goes out at this edge |
/// | `source$index` | out | 4 | the word's index within the header or within the payload |
/// | `source$finish` | out | 1 | the CRC goes out at this edge: the worm's last flit |
/// | `flit` | out | 35 | the flit put out (a register; zero when idle) |
///
/// Timing: `flit` is a register; every other output is combinational from `due`, `grant` and
/// the registers (`state`, `index`, `payload_count`), and `word`, `header_words` and
/// `payload_words` reach only `flit` and the next state, so the parent may answer from them in
/// the same cycle (and one transmitter can serve parents of different headers, §13.2). The CRC is computed from registers only (the flit put
/// out and the CRC of the words before it), a cycle after each word, so no path runs from
/// `word` through it. A worm started in cycle `t` has its head in `flit` after
/// edge `t`, then its header words, its payload words and its CRC after edges `t+1`, `t+2`, ...;
/// the cycle of the CRC edge is `finish`, and the next worm can start in the cycle after it, so
/// worms follow each other without gaps.
///
/// A parent whose payload sits in block RAM reads it `lead` cycles ahead of the cycle in which
/// `payload_valid` asks for the word: [`DIRECT_READ_LEAD`] when the RAM's read register
/// answers, [`REGISTERED_READ_LEAD`] when a register of the parent's follows it, so that the
/// RAM's clock-to-output (5.8 ns for the ECP5's DP16KD) reaches one register and no logic. In
/// cycle `t` it addresses payload word `index + lead` while `payload_valid` and `index + lead -
/// header_words` while `header_valid` ([`header_read_lead`] gives the offset modulo the RAM's
/// words). Past the last word it reads words nobody asks for. A worm that has a payload and
/// at least `lead` header words has all its reads within the worm.
#[derive(LogicBlock)]
pub struct WormTransmitter {
    pub clock: Signal<In, Clock>,
    pub source: WormFetch,
    pub grant: Signal<In, Bit>,
    pub header_words: Signal<In, Bits<4>>,
    pub request: Signal<Out, Bit>,
    pub flit: Signal<Out, Flit>,
    state: DFF<TransmitState>,
    word_index: DFF<Bits<4>>,
    payload_count: DFF<Bits<4>>,
    crc: DFF<Bits<32>>,
    flit_out: DFF<Flit>,
    crc_unit: Crc32Word,
    next_index: Signal<Local, Bits<4>>,
    first_index: Constant<Bits<4>>,
    index_step: Constant<Bits<4>>,
    crc_initial: Constant<Bits<32>>,
    no_flit: Constant<Flit>,
    valid_flag: Constant<Flit>,
    head_flag: Constant<Flit>,
    tail_flag: Constant<Flit>,
}

impl Default for WormTransmitter {
    fn default() -> Self {
        let flag = |bit: usize| Constant::new(Bits::from(1u64 << bit));
        Self {
            clock: Default::default(),
            source: Default::default(),
            grant: Default::default(),
            header_words: Default::default(),
            request: Default::default(),
            flit: Default::default(),
            state: Default::default(),
            word_index: Default::default(),
            payload_count: Default::default(),
            crc: Default::default(),
            flit_out: Default::default(),
            crc_unit: Default::default(),
            next_index: Default::default(),
            first_index: Constant::new(Bits::default()),
            index_step: Constant::new(Bits::from(1)),
            crc_initial: Constant::new(Bits::from(0xFFFF_FFFFu64)),
            no_flit: Constant::new(Bits::default()),
            valid_flag: flag(crate::flit::VALID_BIT),
            head_flag: flag(crate::flit::HEAD_BIT),
            tail_flag: flag(crate::flit::TAIL_BIT),
        }
    }
}

impl Logic for WormTransmitter {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state, word_index, payload_count, crc, flit_out);
        self.flit_out.d.next = self.no_flit.val();
        self.flit.next = self.flit_out.q.val();
        self.source.index.next = self.word_index.q.val();
        self.next_index.next = self.word_index.q.val() + self.index_step.val();
        self.request.next = (self.state.q.val() == TransmitState::Idle) & self.source.due.val();
        self.source.start.next = false;
        self.source.header_valid.next = false;
        self.source.payload_valid.next = false;
        self.source.finish.next = false;
        // The CRC runs one flit behind, over the word already in `flit_out`, so that the
        // parent's answer reaches only a register and the CRC starts from registers: the two
        // long paths are in different cycles. A head restarts it; `crc` then holds the CRC of
        // every data word before the one in `flit_out`, and the tail's is `crc_out`.
        self.crc_unit.word.next = self.flit_out.q.val().get_bits::<32>(0);
        self.crc_unit.crc_in.next = self.crc.q.val();
        if (self.flit_out.q.val() & self.head_flag.val()).any() {
            self.crc_unit.crc_in.next = self.crc_initial.val();
        }
        self.crc.d.next = self.crc_unit.crc_out.val();
        match self.state.q.val() {
            TransmitState::Idle => {
                if self.source.due.val() & self.grant.val() {
                    self.source.start.next = true;
                    self.flit_out.d.next = self.valid_flag.val()
                        | self.head_flag.val()
                        | bit_cast::<35, 32>(self.source.word.val());
                    self.word_index.d.next = self.first_index.val();
                    self.state.d.next = TransmitState::Header;
                }
            }
            TransmitState::Header => {
                self.source.header_valid.next = true;
                self.flit_out.d.next =
                    self.valid_flag.val() | bit_cast::<35, 32>(self.source.word.val());
                self.word_index.d.next = self.next_index.val();
                if self.next_index.val() == self.header_words.val() {
                    self.word_index.d.next = self.first_index.val();
                    self.payload_count.d.next = self.source.payload_words.val();
                    if self.source.payload_words.val().any() {
                        self.state.d.next = TransmitState::Payload;
                    } else {
                        self.state.d.next = TransmitState::Crc;
                    }
                }
            }
            TransmitState::Payload => {
                self.source.payload_valid.next = true;
                self.flit_out.d.next =
                    self.valid_flag.val() | bit_cast::<35, 32>(self.source.word.val());
                self.word_index.d.next = self.next_index.val();
                if self.next_index.val() == self.payload_count.q.val() {
                    self.state.d.next = TransmitState::Crc;
                }
            }
            _ => {
                // The CRC (the state's one remaining code).
                self.source.finish.next = true;
                self.flit_out.d.next = self.valid_flag.val()
                    | self.tail_flag.val()
                    | bit_cast::<35, 32>(self.crc_unit.crc_out.val());
                self.state.d.next = TransmitState::Idle;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;

    use super::*;
    use crate::flit;
    use crate::testing::Random;

    /// A worm as its parent holds it.
    #[derive(Clone, Debug)]
    struct Worm {
        route: u32,
        header: Vec<u32>,
        payload: Vec<u32>,
    }

    impl Worm {
        fn random(r: &mut Random, header_words: usize) -> Self {
            let payload_words = r.below(9);
            let mut words = |n: u64| (0..n).map(|_| r.next_u64() as u32).collect::<Vec<_>>();
            let header = words(header_words as u64);
            let payload = words(payload_words);
            Self {
                route: r.next_u64() as u32,
                header,
                payload,
            }
        }

        /// Its flits on the wire (§8.1): head, header, payload, CRC in the tail.
        fn flits(&self) -> Vec<u64> {
            let mut words = vec![self.route];
            words.extend(&self.header);
            words.extend(&self.payload);
            let crc = idemnet_model::ni::crc32(&words);
            let mut f: Vec<u64> = words
                .iter()
                .enumerate()
                .map(|(i, &w)| flit::make(i == 0, false, w))
                .collect();
            f.push(flit::make(false, true, crc));
            f
        }
    }

    /// How the parent answers payload words.
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum PayloadRead {
        /// From the worm at `index`, in the same cycle.
        Direct,
        /// From a block RAM addressed `lead` cycles ahead from `index` and the header length:
        /// its read register (lead 1), or a register loaded from it at every edge (lead 2).
        Ahead(usize),
    }

    /// Worms queued at random times and granted at random, against a reference that puts each
    /// granted worm's flits out back to back; the parent answers the cell's index and its
    /// header length from the worm it latched at `start` (payload words as `read` says). Each
    /// worm has one of the lengths `header_words`, as when one transmitter serves several
    /// parents (§13.2).
    fn run(header_words: &[usize], seed: u64, cycles: usize, read: PayloadRead) -> usize {
        let mut uut = WormTransmitter::default();
        uut.connect_all();
        check_all(&uut).unwrap();
        let mut r = Random::new(seed);
        let mut queue: VecDeque<Worm> = VecDeque::new();
        let mut in_flight: Option<Worm> = None;
        let mut to_go: VecDeque<u64> = VecDeque::new();
        let mut read_register = 0u32;
        let mut held_register = 0u32;
        let mut sent = 0;
        for cycle in 0..cycles {
            uut.clock.next = false.into();
            uut.source.due.next = !queue.is_empty();
            uut.grant.next = r.chance(60);
            assert!(simulate(&mut uut, 1000));
            let index = uut.source.index.val().to_u64() as usize;
            let worm = if uut.source.start.val() {
                queue.front()
            } else {
                in_flight.as_ref()
            };
            uut.source.word.next = Bits::from(match worm {
                Some(w) if uut.source.start.val() => w.route as u64,
                Some(w) if uut.source.header_valid.val() => {
                    w.header.get(index).copied().unwrap_or(0) as u64
                }
                Some(w) if uut.source.payload_valid.val() => match read {
                    PayloadRead::Direct => w.payload.get(index).copied().unwrap_or(0) as u64,
                    PayloadRead::Ahead(DIRECT_READ_LEAD) => read_register as u64,
                    PayloadRead::Ahead(_) => held_register as u64,
                },
                _ => 0,
            });
            uut.source.payload_words.next =
                Bits::from(in_flight.as_ref().map_or(0, |w| w.payload.len()) as u64);
            uut.header_words.next =
                Bits::from(in_flight.as_ref().map_or(0, |w| w.header.len()) as u64);
            assert!(simulate(&mut uut, 1000));

            let idle = to_go.is_empty();
            assert_eq!(
                uut.request.val(),
                idle && !queue.is_empty(),
                "cycle {cycle}"
            );
            let start = idle && !queue.is_empty() && uut.grant.val();
            assert_eq!(uut.source.start.val(), start, "cycle {cycle}");
            if start {
                let w = queue.pop_front().unwrap();
                to_go = w.flits().into();
                in_flight = Some(w);
                sent += 1;
            }
            let want = to_go.pop_front().unwrap_or(0);
            assert_eq!(
                uut.source.finish.val(),
                !start && flit::is_tail(want),
                "cycle {cycle}"
            );
            // The parent's read of an 8-word RAM, as its doc has it; outside a worm's header and
            // payload, and past its payload, a random word stands for whatever the RAM held.
            let lead = match read {
                PayloadRead::Ahead(lead) => lead,
                PayloadRead::Direct => DIRECT_READ_LEAD,
            };
            let fetch = match &in_flight {
                Some(w) if uut.source.header_valid.val() => {
                    Some((index as u64 + header_read_lead(lead, w.header.len(), 3)) as usize % 8)
                }
                Some(_) if uut.source.payload_valid.val() => Some((index + lead) % 8),
                _ => None,
            };
            held_register = read_register;
            read_register = fetch
                .and_then(|a| in_flight.as_ref().and_then(|w| w.payload.get(a).copied()))
                .unwrap_or_else(|| r.next_u64() as u32);
            uut.clock.next = true.into();
            assert!(simulate(&mut uut, 1000));
            assert_eq!(
                flit::from_bits(uut.flit.val()),
                want,
                "cycle {cycle}: flit after the edge"
            );
            if r.chance(12) {
                let length = header_words[r.below(header_words.len() as u64) as usize];
                queue.push_back(Worm::random(&mut r, length));
            }
        }
        sent
    }

    /// The NI's header (2 words), the RMPP header (7), a one-word header, and the NI's and the
    /// RMPP's worms mixed, as a node's one transmitter sends them.
    #[test]
    fn puts_out_random_worms_as_the_reference_does() {
        for (header_words, seed) in [(&[2][..], 1), (&[7], 2), (&[1], 3), (&[2, 7], 7)] {
            let sent = run(header_words, seed, 6000, PayloadRead::Direct);
            assert!(sent > 300, "{header_words:?}: {sent} worms");
        }
    }

    /// A parent that reads its payload from block RAM a cycle ahead (its read register
    /// answers) or two (a register of the parent's follows): the same worms, with headers of
    /// at least `lead` words, as the doc asks.
    #[test]
    fn a_payload_read_ahead_from_block_ram_keeps_the_worms_whole() {
        let (direct, registered) = (DIRECT_READ_LEAD, REGISTERED_READ_LEAD);
        for (lead, header_words, seed) in [
            (direct, &[1][..], 9),
            (direct, &[2], 10),
            (direct, &[2, 7], 11),
            (registered, &[2], 4),
            (registered, &[7], 5),
            (registered, &[3], 6),
            (registered, &[2, 7], 8),
        ] {
            let sent = run(header_words, seed, 6000, PayloadRead::Ahead(lead));
            assert!(sent > 300, "lead {lead}, {header_words:?}: {sent} worms");
        }
    }
}
