//! One node of the system (docs/protocol.md §13): the idempotent NI and the RMPP receive path
//! behind the protocol split, and the RMPP framer, all three sharing the node's link through the
//! transmit merge.
//!
//! [`Framer`], [`Merge`] and [`Demux`] are the small blocks of §13.1-§13.3; [`Node`] wires them
//! with an [`Ni`] and an [`RmppRx`]. Every block steps once per cycle: apply `I_t`, take edge
//! `t`, show `O_t`.

use crate::block::ModelBlock;
use crate::ni::{self, Ni, NiConfig};
use crate::ports::PortSpec;
use crate::rmpp::rx::{self, RmppRx};
use crate::rmpp::{Packet, RmppConfig, Type};
use crate::stream::{Beats, Requests, Taken};
use crate::switch::{HEAD, TAIL, VALID};
use crate::view::{step_placed, Inputs, Outputs, Ports, Strided};
use idemnet_spec::ports::PortDir;
use idemnet_spec::system::{HostWords, Layout, Place, PLACES};
use std::collections::VecDeque;

pub use idemnet_spec::framer::{inp, out, COUNTERS, HEADER_BEATS, PORTS};

/// The framer (§13.1): takes a packet's beats while `tx_ready`, holds up to
/// [`FRAMER_PACKETS`] packets, and sends the oldest as a worm when granted.
///
/// Block ports (as [`ModelBlock`]): the table `idemnet_spec::framer::PORTS`, re-exported as
/// [`PORTS`], with the flat-buffer words [`inp`] and [`out`].
#[derive(Clone, Debug)]
pub struct Framer {
    node: u16,
    /// The packet stream; a request's header is the packet with the fields of the ports its
    /// first beat shows, its header words are the first [`HEADER_BEATS`] beats.
    requests: Requests<Packet>,
    /// The worms of the packets held, oldest first.
    held: VecDeque<Vec<u64>>,
    /// The next flit of the oldest worm while it is on the wire (from its grant to its CRC).
    sending: Option<usize>,
    ready: bool,
    net_out: u64,
    host_errors: u16,
    /// [`Framer::resting`] after the last step (only a step changes what it reads).
    rests: bool,
}

/// The packets a framer holds at most (§13.1: the one on the wire and the next).
pub const FRAMER_PACKETS: usize = 2;

impl Framer {
    /// The framer of node `node`, at power-on.
    pub fn new(node: u16) -> Framer {
        Framer {
            node,
            requests: Requests::with_header_beats(HEADER_BEATS),
            held: VecDeque::new(),
            sending: None,
            ready: false,
            net_out: 0,
            host_errors: 0,
            rests: false,
        }
    }

    /// Ready, holding nothing and sending nothing: an edge with no beat changes nothing.
    fn resting(&self) -> bool {
        debug_assert_eq!(
            self.rests,
            self.ready && self.held.is_empty() && self.net_out == 0
        );
        self.rests
    }

    /// `tx_req` as shown in the last `O_t`: holding a packet, no worm in flight.
    pub fn req(&self) -> bool {
        !self.held.is_empty() && self.sending.is_none()
    }
}

/// The packet a framer's first beat announces: the fields of its ports (§13.1), from node
/// `node`, its header words still to come, and its payload bytes.
fn announced<I: Inputs + ?Sized>(node: u16, i: &I) -> (Packet, usize) {
    let dst = i[inp::TX_DST] as u16;
    let packet = framer_packet(node, dst, i[inp::TX_TYPE] as u32, 0, 0, 0, 0, 0, vec![]);
    (packet, (i[inp::TX_BYTES] & 0x3F) as usize)
}

/// Header words 2 to 6 of `packet` (§11.1): what a framer packet's first [`HEADER_BEATS`]
/// beats carry (§13.1).
fn header_beats(packet: &Packet) -> [u32; HEADER_BEATS] {
    [
        packet.msg_id,
        packet.len,
        packet.seq,
        (packet.info2 as u32) << 16 | packet.info1 as u32,
        packet.msg_num,
    ]
}

impl ModelBlock for Framer {
    fn ports(&self) -> Vec<PortSpec> {
        PORTS.specs()
    }

    fn step(&mut self, i: &[u64], o: &mut [u64]) {
        self.step_ports(i, o);
    }
}

impl Ports for Framer {
    fn step_ports<I: Inputs + ?Sized, O: Outputs + ?Sized>(&mut self, i: &I, o: &mut O) {
        // Ready, holding nothing, sending nothing, and no beat: the edge changes nothing, and
        // a buffer that kept the last outputs already shows them.
        if self.resting() && i[inp::TX_VALID] & 1 == 0 && o.kept() {
            return;
        }
        let req = self.req();
        if self.ready && i[inp::TX_VALID] & 1 == 1 {
            let node = self.node;
            let first = || announced(node, i);
            let data = i[inp::TX_DATA] as u32;
            let last = i[inp::TX_LAST] & 1 == 1;
            match self.requests.take(first, data, last) {
                Taken::Complete {
                    header: mut packet,
                    words,
                } => {
                    let (header, payload) = words.split_at(HEADER_BEATS);
                    packet.msg_id = header[0];
                    packet.len = header[1];
                    packet.seq = header[2];
                    packet.info1 = header[3] as u16;
                    packet.info2 = (header[3] >> 16) as u16;
                    packet.msg_num = header[4];
                    // The payload words go out as the beats gave them, unused bytes included.
                    packet.data = ni::words_to_bytes(payload, 4 * payload.len());
                    self.held.push_back(packet.flits());
                }
                Taken::Refused => self.host_errors = self.host_errors.wrapping_add(1),
                Taken::Pending | Taken::Ignored => {}
            }
        }
        if req && i[inp::TX_GNT] & 1 == 1 {
            self.sending = Some(0);
        }
        self.net_out = 0;
        if let (Some(n), Some(worm)) = (self.sending, self.held.front()) {
            let f = worm[n];
            self.net_out = f;
            self.sending = Some(n + 1);
            if f & TAIL != 0 {
                self.held.pop_front();
                self.sending = None;
            }
        }
        self.ready = self.held.len() < FRAMER_PACKETS;
        o[out::NET_OUT] = self.net_out;
        o[out::TX_REQ] = self.req() as u64;
        o[out::TX_READY] = self.ready as u64;
        o[out::TX_CNT_HOST_ERROR] = self.host_errors as u64;
        self.rests = self.ready && self.held.is_empty() && self.net_out == 0;
    }
}

/// The transmit merge (§13.2): round-robin grants of a free link.
#[derive(Clone, Copy, Debug, Default)]
pub struct Merge {
    turn: usize,
}

impl Merge {
    /// The grants of cycle `t` from the sources' `net_out` and `tx_req` as shown after edge
    /// `t-1`; moves `turn` at edge `t`.
    pub fn step(&mut self, flits: [u64; 3], reqs: [bool; 3]) -> [bool; 3] {
        let f = flits[0] | flits[1] | flits[2];
        let free = f & VALID == 0 || f & TAIL != 0;
        let next = |j: usize| if j == 2 { 0 } else { j + 1 };
        let mut gnt = [false; 3];
        if free && reqs.contains(&true) {
            // The first source asking from `turn` on.
            let mut j = self.turn;
            while !reqs[j] {
                j = next(j);
            }
            gnt[j] = true;
            self.turn = next(j);
        }
        gnt
    }
}

/// The protocol split (§13.3): a two-flit delay that sends each worm to the NI or to the RMPP
/// receive path by its first header word, the flit behind its head in the delay.
#[derive(Clone, Copy, Debug, Default)]
pub struct Demux {
    /// The flit that leaves the delay now, and the one behind it.
    held: u64,
    next: u64,
    rmpp: bool,
}

/// What the split hands on in one cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Split {
    /// The flit to the NI (zero when it goes to the receive path).
    pub to_ni: u64,
    /// The flit to the RMPP receive path (zero when it goes to the NI).
    pub to_rmpp: u64,
    /// The flit is a head going to the other side than the worm before it: the one receiver of
    /// §13.3 cuts the previous side's worm, if one is in progress, at this edge.
    pub switched: bool,
}

impl Demux {
    /// Cycle `t` with `net_in` = `f`.
    pub fn step(&mut self, f: u64) -> Split {
        let h = self.held;
        let n = self.next;
        let head = h & VALID != 0 && h & HEAD != 0;
        let rmpp = if head {
            n & VALID != 0 && n & HEAD == 0 && (n as u32) >> 30 == crate::rmpp::MARKER
        } else {
            self.rmpp
        };
        let switched = head && rmpp != self.rmpp;
        self.held = n;
        self.next = f;
        self.rmpp = rmpp;
        if rmpp {
            Split {
                to_ni: 0,
                to_rmpp: h,
                switched,
            }
        } else {
            Split {
                to_ni: h,
                to_rmpp: 0,
                switched,
            }
        }
    }
}

/// The link words (`net_in`, `tx_gnt`; `net_out`, `tx_req`) that come first in the NI's and
/// the receive path's buffers, and the framer's (`tx_gnt` in, the same two out): the node
/// drives and reads them, the system's buffers hold the host words after them.
const NI_LINK_IN: usize = ni::PORTS.link_words(PortDir::In);
const RX_LINK_IN: usize = rx::PORTS.link_words(PortDir::In);
const FRAMER_LINK_IN: usize = PORTS.link_words(PortDir::In);
const LINK_OUT: usize = 2;
const _: () = assert!(
    ni::PORTS.link_words(PortDir::Out) == LINK_OUT
        && rx::PORTS.link_words(PortDir::Out) == LINK_OUT
        && PORTS.link_words(PortDir::Out) == LINK_OUT,
    "every block shows net_out and tx_req, and only those, as link outputs"
);

/// One node: NI, RMPP receive path, framer, merge and split.
///
/// The blocks read their host inputs from the system's input buffer and write their host
/// outputs into its output buffer, where [`Layout`] places them for this node
/// ([`crate::view`]); the node drives their link inputs (`net_in` through the split, `tx_gnt`
/// from the merge) and keeps their link outputs.
#[derive(Clone, Debug)]
pub struct Node {
    pub ni: Ni,
    pub rx: RmppRx,
    pub framer: Framer,
    merge: Merge,
    demux: Demux,
    /// Each block's `net_out` and `tx_req` as shown in the last `O_t`, in the order of
    /// `idemnet_spec::node::BLOCKS`: the NI's, the receive path's, the framer's.
    links: [[u64; LINK_OUT]; 3],
    /// Where each block's host inputs and outputs of this node sit in the system's buffers, in
    /// the same order.
    places: [(Strided, Strided); 3],
}

impl Node {
    /// Node `ni.node` of a system laid out as `lay`.
    pub fn new(ni: NiConfig, rmpp: RmppConfig, lay: Layout) -> Result<Node, String> {
        if ni.node != rmpp.node {
            return Err(format!(
                "the NI is node {} but the RMPP receive path node {}",
                ni.node, rmpp.node
            ));
        }
        let p = ni.node as usize;
        if p >= lay.nodes {
            return Err(format!("node {p}: the system has {} nodes", lay.nodes));
        }
        let places = PLACES.map(|placed| {
            let at = |words: HostWords, place: Place| Strided {
                base: if words.count() > 0 {
                    place(&lay, words.first, p)
                } else {
                    0
                },
                stride: lay.nodes,
            };
            (
                at(placed.inputs, placed.input),
                at(placed.outputs, placed.output),
            )
        });
        Ok(Node {
            ni: Ni::new(ni)?,
            rx: RmppRx::new(rmpp)?,
            framer: Framer::new(ni.node),
            merge: Merge::default(),
            demux: Demux::default(),
            links: [[0; LINK_OUT]; 3],
            places,
        })
    }

    /// One cycle with the fabric's flit `net_in` and the system's inputs `i` of `I_t`; writes
    /// this node's host outputs of `O_t` into the system's `o` and returns its `net_out`.
    #[inline]
    pub fn step(&mut self, net_in: u64, i: &[u64], o: &mut [u64]) -> u64 {
        let host_word =
            |block: Strided, word: usize, link: usize| i[block.base + block.stride * (word - link)];
        // Nothing on the link (no flit in or in the split's delay, none out, no block asking
        // for it), an NI at rest taking no request beat, a receive path and a framer that a
        // step would not change (each block's own test): the cycle only advances the NI's
        // clock, and every output stays as shown (the system's buffer keeps them).
        // (The NI's test first: it fails most often when the node is busy.)
        if self
            .ni
            .rests_without(host_word(self.places[0].0, ni::inp::REQ_VALID, NI_LINK_IN))
            && (net_in | self.demux.held | self.demux.next) == 0
            && self.links.iter().flatten().all(|&w| w == 0)
            && self.framer.resting()
            && host_word(self.places[2].0, inp::TX_VALID, FRAMER_LINK_IN) & 1 == 0
        {
            let rx_in = self.places[1].0;
            let read = (
                host_word(rx_in, rx::inp::RD_SLOT, RX_LINK_IN),
                host_word(rx_in, rx::inp::RD_WORD, RX_LINK_IN),
            );
            if self.rx.unchanged_by(0, read) {
                self.ni.rest();
                return 0;
            }
        }
        let [ni_link, rx_link, framer_link] = &mut self.links;
        let flits = [ni_link[0], rx_link[0], framer_link[0]];
        let reqs = [
            ni_link[1] & 1 == 1,
            rx_link[1] & 1 == 1,
            framer_link[1] & 1 == 1,
        ];
        let gnt = self.merge.step(flits, reqs);
        let split = self.demux.step(net_in);
        let (to_ni, to_rx) = (split.to_ni, split.to_rmpp);
        // One receiver for both sides (§13.3): a head for one side cuts the other's worm.
        if split.switched {
            if to_rx != 0 {
                self.ni.cut_worm();
            } else {
                self.rx.cut_worm();
            }
        }
        let mut link_in = [0u64; NI_LINK_IN];
        link_in[ni::inp::NET_IN] = to_ni;
        link_in[ni::inp::TX_GNT] = gnt[0] as u64;
        step_placed(&mut self.ni, link_in, i, ni_link, o, self.places[0]);
        // The receive path's step, when it would change nothing (its own first test, read here
        // before its buffers are set up; resting, it asks for no grant).
        let rx_in = self.places[1].0;
        let read = (
            host_word(rx_in, rx::inp::RD_SLOT, RX_LINK_IN),
            host_word(rx_in, rx::inp::RD_WORD, RX_LINK_IN),
        );
        if !self.rx.unchanged_by(to_rx, read) {
            let mut link_in = [0u64; RX_LINK_IN];
            link_in[rx::inp::NET_IN] = to_rx;
            link_in[rx::inp::TX_GNT] = gnt[1] as u64;
            step_placed(&mut self.rx, link_in, i, rx_link, o, self.places[1]);
        }
        // A framer at rest with no beat offered changes nothing (its step's first test, read
        // here before its buffers are set up); holding nothing, it is granted nothing.
        let tx_valid = host_word(self.places[2].0, inp::TX_VALID, FRAMER_LINK_IN);
        if !(self.framer.resting() && tx_valid & 1 == 0) {
            let mut link_in = [0u64; FRAMER_LINK_IN];
            link_in[inp::TX_GNT] = gnt[2] as u64;
            step_placed(&mut self.framer, link_in, i, framer_link, o, self.places[2]);
        }
        ni_link[ni::out::NET_OUT] | rx_link[rx::out::NET_OUT] | framer_link[out::NET_OUT]
    }
}

/// The framer's packet fields as a [`Packet`] from node `node` (what its `tx_*` ports carry).
#[allow(clippy::too_many_arguments)]
pub fn framer_packet(
    node: u16,
    dst: u16,
    ty: u32,
    msg_id: u32,
    len: u32,
    seq: u32,
    info: u32,
    msg_num: u32,
    data: Vec<u8>,
) -> Packet {
    let mut p = Packet::new(Type::Rts, node, dst, node);
    p.ty = ty & 0xF;
    p.msg_id = msg_id;
    p.len = len;
    p.seq = seq;
    p.info1 = info as u16;
    p.info2 = (info >> 16) as u16;
    p.msg_num = msg_num;
    p.data = data;
    p
}

/// The beats of `packet` on the framer's stream (§13.1): its header words 2 to 6, then its
/// payload words ([`crate::stream::beat_words`]; none for no payload).
pub fn framer_beats(packet: &Packet) -> Beats {
    let mut words = header_beats(packet).to_vec();
    if !packet.data.is_empty() {
        words.extend(crate::stream::beat_words(&packet.data));
    }
    Beats::of_words(words)
}

/// Writes the framer's host inputs of one cycle through `set(word, value)` (`word` one of
/// [`inp`]): `Some` presents a beat of `packet` (the fields its ports carry, which the framer
/// reads on the first beat, beside every beat) with the beat's word and `last` bit
/// ([`framer_beats`]); `None` presents nothing.
pub fn framer_inputs(beat: Option<(&Packet, (u32, bool))>, mut set: impl FnMut(usize, u64)) {
    let Some((packet, (data, last))) = beat else {
        for word in inp::TX_VALID..inp::WORDS {
            set(word, 0);
        }
        return;
    };
    set(inp::TX_VALID, 1);
    set(inp::TX_DATA, data as u64);
    set(inp::TX_LAST, last as u64);
    set(inp::TX_DST, packet.dst as u64);
    set(inp::TX_TYPE, packet.ty as u64);
    set(inp::TX_BYTES, packet.data.len() as u64);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flit(head: bool, tail: bool, d: u32) -> u64 {
        VALID | if head { HEAD } else { 0 } | if tail { TAIL } else { 0 } | d as u64
    }

    #[test]
    fn the_demux_delays_by_two_and_splits_by_the_first_header_word() {
        let mut d = Demux::default();
        let worm = [
            flit(true, false, 5),
            flit(false, false, 0xC001_0001),
            flit(false, true, 7),
        ];
        let mut out = vec![];
        for f in worm
            .iter()
            .copied()
            .chain([0, flit(true, false, 1), flit(false, true, 2), 0, 0])
        {
            let split = d.step(f);
            out.push((split.to_ni, split.to_rmpp, split.switched));
        }
        assert_eq!(out[0], (0, 0, false));
        assert_eq!(out[1], (0, 0, false));
        assert_eq!(out[2], (0, worm[0], true), "the head goes with its header");
        assert_eq!(out[3], (0, worm[1], false));
        assert_eq!(out[4], (0, worm[2], false));
        assert_eq!(out[6], (flit(true, false, 1), 0, true), "an NI worm");
        assert_eq!(out[7], (flit(false, true, 2), 0, false));
    }

    /// §13.3's one receiver: an NI worm cut by a head that goes to the receive path ends
    /// `truncated` at that head's edge, counted by the NI; the receive path counts nothing.
    #[test]
    fn a_head_for_the_other_side_cuts_the_worm_in_progress() {
        // Node 0 of a system of one node and no inter-switch links.
        let lay = Layout::new(1, 0, 0);
        let mut node = Node::new(NiConfig::DEFAULT, RmppConfig::DEFAULT, lay).unwrap();
        let i = vec![0; lay.input_words()];
        let mut o = vec![0; lay.output_words()];
        let truncated = |o: &[u64]| {
            (
                o[lay.ni_output(ni::out::COUNTERS + ni::cnt::TRUNCATED, 0)],
                o[lay.rx_output(rx::out::COUNTERS + crate::rmpp::cnt::TRUNCATED, 0)],
            )
        };
        // An NI SEND's head and header word, then an RMPP head and its first header word.
        let flits = [
            flit(true, false, 0x0003_0000),
            flit(false, false, 0x0400_0000),
            flit(true, false, 0x0003_0000),
            flit(false, false, 0xC001_0001),
            0,
            0,
            0,
        ];
        let mut seen = vec![];
        for f in flits {
            node.step(f, &i, &mut o);
            seen.push(truncated(&o));
        }
        // Each flit reaches its block two cycles late: the RMPP head in cycle 4, whose edge
        // cuts the NI's worm; the NI's counter shows it a cycle later (docs/protocol.md §8.2).
        assert_eq!(seen[3], (0, 0));
        assert_eq!(seen[4], (0, 0));
        assert_eq!(seen[5], (1, 0), "cut at the other side's head");
        assert_eq!(seen[6], (1, 0));
    }

    #[test]
    fn the_merge_grants_round_robin_on_a_free_link_only() {
        let mut m = Merge::default();
        assert_eq!(m.step([0; 3], [true, true, true]), [true, false, false]);
        assert_eq!(m.step([0; 3], [true, true, true]), [false, true, false]);
        let body = flit(false, false, 0);
        assert_eq!(m.step([0, body, 0], [true, false, true]), [false; 3]);
        let tail = flit(false, true, 0);
        assert_eq!(
            m.step([0, tail, 0], [true, false, true]),
            [false, false, true]
        );
        assert_eq!(m.step([0; 3], [true, false, true]), [true, false, false]);
    }

    /// A framer with its port buffers and the flits it sent.
    struct FramerBench {
        framer: Framer,
        i: Vec<u64>,
        o: Vec<u64>,
        sent: Vec<u64>,
    }

    impl FramerBench {
        fn new() -> FramerBench {
            let mut bench = FramerBench {
                framer: Framer::new(2),
                i: vec![0; inp::WORDS],
                o: vec![0; out::WORDS],
                sent: vec![],
            };
            bench.cycle(None, false);
            assert_eq!(bench.o[out::TX_READY], 1, "ready after the first edge");
            bench
        }
        /// One cycle presenting `beat` (of `packet`), with grant `gnt`; returns whether the beat
        /// was taken (ready before the edge).
        fn cycle(&mut self, beat: Option<(&Packet, (u32, bool))>, gnt: bool) -> bool {
            let taken = beat.is_some() && self.o[out::TX_READY] == 1;
            framer_inputs(beat, |word, value| self.i[word] = value);
            self.i[inp::TX_GNT] = gnt as u64;
            self.framer.step(&self.i, &mut self.o);
            if self.o[out::NET_OUT] != 0 {
                self.sent.push(self.o[out::NET_OUT]);
            }
            taken
        }
        /// Streams `packet`'s header words and then `words` as its beats, one per cycle, not
        /// granted.
        fn stream(&mut self, packet: &Packet, words: &[u32]) {
            let mut all = header_beats(packet).to_vec();
            all.extend(words);
            let mut beats = Beats::of_words(all);
            loop {
                assert!(
                    self.cycle(Some((packet, beats.beat())), false),
                    "ready throughout"
                );
                if beats.taken() {
                    break;
                }
            }
        }
        fn errors(&self) -> u64 {
            self.o[out::TX_CNT_HOST_ERROR]
        }
    }

    #[test]
    fn the_framer_takes_beats_while_ready_and_sends_the_worm_when_granted() {
        let mut b = FramerBench::new();
        let p = framer_packet(2, 5, 1, 9, 100, 0, 0x0003_0004, 1, (1..=30).collect());
        let words = crate::stream::beat_words(&p.data);
        assert_eq!(words.len(), 8);
        b.stream(&p, &words);
        assert_eq!(
            framer_beats(&p),
            Beats::of_words([header_beats(&p).to_vec(), words].concat())
        );
        assert_eq!(
            b.o[out::TX_READY],
            1,
            "one packet held: the second buffer takes beats"
        );
        assert_eq!(b.o[out::TX_REQ], 1);
        // A second packet, without payload, streams in before the first is granted.
        let q = framer_packet(2, 6, 3, 10, 0, 0, 0, 1, vec![]);
        b.stream(&q, &[]);
        assert_eq!(
            b.o[out::TX_READY],
            0,
            "low from the edge that takes the last beat of the second packet held"
        );
        b.cycle(None, false);
        assert!(b.sent.is_empty(), "nothing leaves before the grant");
        while b.sent.last().is_none_or(|f| f & TAIL == 0) {
            assert_eq!(b.o[out::TX_READY], 0);
            b.cycle(None, true);
        }
        assert_eq!(b.o[out::TX_READY], 1, "ready again with the first CRC flit");
        assert_eq!(b.o[out::TX_REQ], 1, "the second packet is due at once");
        let mut padded = p.clone();
        padded.data.resize(32, 0);
        assert_eq!(
            b.sent,
            padded.flits(),
            "eight words, the last two bytes as the beat gave them"
        );
        // Granted in the cycle after the first CRC flit, the second head leaves at once.
        b.sent.clear();
        b.cycle(None, true);
        assert_eq!(b.o[out::TX_REQ], 0);
        while b.sent.last().is_none_or(|f| f & TAIL == 0) {
            b.cycle(None, false);
        }
        assert_eq!(b.sent, q.flits(), "the second packet, in the order taken");
        assert_eq!(b.o[out::TX_READY], 1);
        assert_eq!(b.o[out::TX_REQ], 0, "nothing held");
        assert_eq!(b.errors(), 0);
    }

    #[test]
    fn the_framer_reads_the_header_on_the_first_beat_and_sends_words_as_given() {
        let mut b = FramerBench::new();
        let p = framer_packet(2, 5, 4, 9, 100, 1, 0, 1, vec![0xAA; 5]);
        let mut later = p.clone();
        later.dst = 7;
        later.msg_id = 0xFFFF;
        for (k, word) in header_beats(&p).into_iter().enumerate() {
            b.cycle(
                Some((if k == 0 { &p } else { &later }, (word, false))),
                false,
            );
        }
        b.cycle(Some((&later, (0x0102_0304, false))), false);
        b.cycle(Some((&later, (0x0506_0708, true))), false);
        while b.sent.last().is_none_or(|f| f & TAIL == 0) {
            b.cycle(None, true);
        }
        let sent = Packet::from_flits(&b.sent).unwrap();
        assert_eq!(
            (sent.dst, sent.ty, sent.msg_id, sent.len, sent.seq),
            (5, 4, 9, 100, 1),
            "the first beat's fields, the header words' words"
        );
        assert_eq!(
            sent.data,
            [1, 2, 3, 4, 5, 6, 7, 8],
            "the last word's unused bytes too"
        );
        let mut empty = framer_packet(2, 5, 7, 9, 0, 0, 0, 1, vec![]);
        b.sent.clear();
        b.stream(&empty, &[]);
        while b.sent.last().is_none_or(|f| f & TAIL == 0) {
            b.cycle(None, true);
        }
        empty.data.clear();
        assert_eq!(
            b.sent,
            empty.flits(),
            "zero bytes: the header words' beats only, no payload word"
        );
    }

    #[test]
    fn the_framer_refuses_a_bad_packet_once_and_sends_nothing_of_it() {
        let mut b = FramerBench::new();
        let mut p = framer_packet(2, 5, 4, 9, 100, 1, 0, 1, vec![7; 8]);
        // tx_last early: two payload beats due, one given.
        b.stream(&p, &[1]);
        assert_eq!(b.errors(), 1);
        // tx_last missing on the second beat: refused there, the third swallowed.
        b.stream(&p, &[1, 2, 3]);
        assert_eq!(b.errors(), 2);
        // More bytes than a packet carries.
        p.data = vec![0; 33];
        b.stream(&p, &[1, 2, 3, 4, 5, 6, 7, 8, 9]);
        assert_eq!(b.errors(), 3);
        // tx_last on the last header word's beat, a payload due.
        p.data = vec![0; 8];
        b.stream(&p, &[]);
        assert_eq!(b.errors(), 4);
        for _ in 0..20 {
            b.cycle(None, true);
        }
        assert!(b.sent.is_empty(), "nothing sent");
        assert_eq!(b.o[out::TX_READY], 1, "still ready");
        p.data = vec![9; 4];
        b.stream(&p, &[0x0909_0909]);
        while b.sent.last().is_none_or(|f| f & TAIL == 0) {
            b.cycle(None, true);
        }
        assert_eq!(b.sent, p.flits(), "the next packet is read as its own");
        assert_eq!(b.errors(), 4, "each refusal counted once");
    }
}
