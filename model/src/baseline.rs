//! The seeds' classic reliable protocols as baselines (docs/protocol.md §15), on the same
//! discarding fabric, link faults and host traffic as the idempotent NI, in the golden model
//! only (they have no RTL): ParaStation2's positive acknowledgement with NACKs and go-back-N
//! (seed 001) and U-Net's lazy acknowledgements (seed 002).
//!
//! Both are go-back-N over per-connection 8-bit sequence numbers and differ in when the receiver
//! acknowledges and how the sender times out ([`Policy`]). The endpoints are stepped directly,
//! without port vectors: one flit per cycle each way on the node's link, as the NI's.
//!
//! Timing: as the system's (§10): in cycle `t` the fabric's inputs are the endpoints' `net_out`
//! registers of cycle `t - 1` through the node links' injectors (§9), and an endpoint reads the
//! fabric's output of cycle `t - 1` through its own.

use std::collections::{HashMap, VecDeque};

use crate::fabric::Fabric;
use crate::fault::{Faults, LinkFault};
use crate::latency::Latencies;
use crate::ni::{bytes_to_words, crc32, words_to_bytes, MAX_PAYLOAD};
use crate::rmpp::host::Pattern;
use crate::switch::{HEAD, TAIL, VALID};
use crate::system::{Offer, ProtocolFigures};
use crate::topology::FatTree;

/// Which seed's rules the endpoints follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Policy {
    /// Seed 001: every data packet in sequence is acknowledged (ACK), or refused with a NACK
    /// when the receive ring would be left without a free slot; a packet out of sequence is
    /// discarded with a NACK naming the one expected; a duplicate is acknowledged again. The
    /// sender goes back to the first unacknowledged packet on an ACK beyond it (a lost ACK: the
    /// paper marks that packet for retransmission) and on a timeout, and to the packet a NACK
    /// names if it was sent (the paper's INTRANSIT), go-back-N as the paper has it.
    ParaStation,
    /// Seed 002: in-order packets are not acknowledged; the cumulative acknowledgement rides on
    /// every data packet going the other way; an out-of-order or duplicate packet is answered at
    /// once with a duplicate ACK. One retransmission timer for the left edge of the window,
    /// backed off exponentially on each retransmission up to a clamp; an acknowledgement that
    /// releases a packet restarts it and clears the backoff.
    UNet,
}

impl Policy {
    pub fn name(self) -> &'static str {
        match self {
            Policy::ParaStation => "parastation",
            Policy::UNet => "unet",
        }
    }
}

/// A baseline's parameters (§15).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BaselineConfig {
    pub policy: Policy,
    /// Packets in flight per connection: ParaStation2's 8 (its paper); U-Net's window is its
    /// transmission queue, which the paper does not size: 8 as well.
    pub window: u8,
    /// Cycles before an unacknowledged packet is sent again (neither paper gives one for this
    /// network: the idempotent NI's retry interval, 128).
    pub timeout: u64,
    /// U-Net: the clamp of the backed-off timeout (the paper's "constant", not given: 8 times
    /// the timeout).
    pub max_timeout: u64,
    /// Packets the receiving NI can hold for its host (ParaStation2's receive ring; U-Net's
    /// receive queue): 8, as the idempotent NI's receive slots.
    pub ring: usize,
}

impl BaselineConfig {
    pub fn new(policy: Policy) -> BaselineConfig {
        BaselineConfig {
            policy,
            window: 8,
            timeout: 128,
            max_timeout: 1024,
            ring: 8,
        }
    }
}

/// Header word types (bits 31:28).
const DATA: u32 = 1;
const ACK: u32 = 2;
const NACK: u32 = 3;
/// Bit 16 of a header: the `ack` field (7:0) is valid (U-Net's piggybacked acknowledgement).
const ACK_VALID: u32 = 1 << 16;

/// A packet on the wire (§15.1): the route head, a header word (`type` 31:28, payload `len`
/// 27:22, `ack valid` 16, `seq` 15:8, `ack` 7:0), the payload, a CRC-32/MPEG-2 tail.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Packet {
    kind: u32,
    src: u16,
    dst: u16,
    seq: u8,
    ack: Option<u8>,
    data: Vec<u8>,
}

impl Packet {
    fn flits(&self) -> Vec<u64> {
        let header = self.kind << 28
            | (self.data.len() as u32) << 22
            | self.ack.map_or(0, |a| ACK_VALID | a as u32)
            | (self.seq as u32) << 8;
        let mut words = vec![(self.src as u32) << 16 | self.dst as u32, header];
        words.extend(bytes_to_words(&self.data));
        let crc = crc32(&words);
        let mut flits: Vec<u64> = words.iter().map(|&w| VALID | w as u64).collect();
        flits[0] |= HEAD;
        flits.push(VALID | TAIL | crc as u64);
        flits
    }

    /// A whole worm with a good CRC and a sound header, else `None` (the receiver drops it).
    fn parse(flits: &[u64]) -> Option<Packet> {
        let words: Vec<u32> = flits.iter().map(|&f| f as u32).collect();
        let n = words.len();
        if n < 3 || crc32(&words[..n - 1]) != words[n - 1] {
            return None;
        }
        let header = words[1];
        let len = (header >> 22 & 0x3F) as usize;
        if len > MAX_PAYLOAD || n != 3 + len.div_ceil(4) || !(DATA..=NACK).contains(&(header >> 28))
        {
            return None;
        }
        Some(Packet {
            kind: header >> 28,
            src: (words[0] >> 16) as u16,
            dst: words[0] as u16,
            seq: (header >> 8) as u8,
            ack: (header & ACK_VALID != 0).then_some(header as u8),
            data: words_to_bytes(&words[2..n - 1], len),
        })
    }
}

/// `a` comes before `b` in 8-bit sequence space (within half of it).
fn before(a: u8, b: u8) -> bool {
    let d = b.wrapping_sub(a);
    d != 0 && d < 128
}

/// A message a host asked to send: its payload.
#[derive(Clone, Debug)]
struct Message {
    data: Vec<u8>,
}

/// The sending side of one connection.
#[derive(Clone, Debug, Default)]
struct Sender {
    /// Sequence number of the oldest unacknowledged packet.
    base: u8,
    /// Unacknowledged packets from `base` on, with the cycle each was last sent.
    window: VecDeque<(Message, Option<u64>)>,
    /// The next packet of `window` to send (go-back-N rewinds it to 0).
    next: usize,
    /// U-Net: retransmissions since the last ACK (the timer's backoff exponent).
    backoff: u32,
    /// U-Net: the left edge's timer started at this cycle.
    timer: Option<u64>,
}

/// The receiving side of one connection.
#[derive(Clone, Copy, Debug, Default)]
struct Receiver {
    expected: u8,
}

/// One node's endpoint: its connections, its transmitter and its receive ring.
#[derive(Clone, Debug)]
struct Endpoint {
    node: u16,
    senders: Vec<Sender>,
    receivers: Vec<Receiver>,
    /// ACKs and NACKs waiting for the link, before any data.
    control: VecDeque<Packet>,
    /// The worm going out, and the next of its flits.
    out: Vec<u64>,
    out_next: usize,
    /// The connection the transmitter looks at first (round robin).
    turn: usize,
    /// The worm coming in.
    incoming: Vec<u64>,
    /// Packets for the host: (source, message), and the cycle the host is done with the first.
    ring: VecDeque<(u16, Message)>,
    host_busy_until: u64,
}

/// Counts of a baseline run.
#[derive(Clone, Debug, Default)]
struct Counts {
    retransmissions: u64,
    receiver_drops: u64,
    duplicates_suppressed: u64,
}

impl Endpoint {
    fn new(node: u16, nodes: usize) -> Endpoint {
        Endpoint {
            node,
            senders: vec![Sender::default(); nodes],
            receivers: vec![Receiver::default(); nodes],
            control: VecDeque::new(),
            out: Vec::new(),
            out_next: 0,
            turn: 0,
            incoming: Vec::new(),
            ring: VecDeque::new(),
            host_busy_until: 0,
        }
    }

    fn control(&mut self, kind: u32, dst: u16, seq: u8) {
        self.control.push_back(Packet {
            kind,
            src: self.node,
            dst,
            seq,
            ack: None,
            data: Vec::new(),
        });
    }

    /// A cumulative acknowledgement from `peer`: every packet before `next` arrived.
    fn acknowledged(&mut self, peer: u16, next: u8, t: u64) {
        let s = &mut self.senders[peer as usize];
        let mut released = false;
        while before(s.base, next) && !s.window.is_empty() {
            s.window.pop_front();
            s.base = s.base.wrapping_add(1);
            s.next = s.next.saturating_sub(1);
            released = true;
        }
        if released {
            // The timer restarts for the new left edge if it was sent, else when it is.
            s.backoff = 0;
            s.timer = match s.window.front() {
                Some((_, Some(_))) => Some(t),
                _ => None,
            };
        }
    }

    /// A whole worm arrived in cycle `t`.
    fn receive(&mut self, cfg: &BaselineConfig, t: u64, counts: &mut Counts) {
        let worm = std::mem::take(&mut self.incoming);
        let Some(p) = Packet::parse(&worm).filter(|p| p.dst == self.node) else {
            counts.receiver_drops += 1;
            return;
        };
        let peer = p.src;
        if peer as usize >= self.senders.len() || peer == self.node {
            counts.receiver_drops += 1;
            return;
        }
        match (p.kind, cfg.policy) {
            (DATA, policy) => {
                if let (Some(a), Policy::UNet) = (p.ack, policy) {
                    self.acknowledged(peer, a, t);
                }
                let expected = self.receivers[peer as usize].expected;
                if p.seq == expected {
                    // ParaStation2 keeps a free slot for the next packet: it takes this one
                    // only if another is free; U-Net takes it if one is.
                    let room = match policy {
                        Policy::ParaStation => self.ring.len() + 2 <= cfg.ring,
                        Policy::UNet => self.ring.len() < cfg.ring,
                    };
                    if room {
                        self.receivers[peer as usize].expected = expected.wrapping_add(1);
                        self.ring.push_back((peer, Message { data: p.data }));
                        if policy == Policy::ParaStation {
                            self.control(ACK, peer, p.seq);
                        }
                    } else {
                        counts.receiver_drops += 1;
                        if policy == Policy::ParaStation {
                            self.control(NACK, peer, p.seq);
                        }
                    }
                } else if before(p.seq, expected) {
                    counts.duplicates_suppressed += 1;
                    match policy {
                        // A lost ACK: send it again.
                        Policy::ParaStation => self.control(ACK, peer, p.seq),
                        Policy::UNet => self.control(ACK, peer, expected),
                    }
                } else {
                    counts.receiver_drops += 1;
                    match policy {
                        Policy::ParaStation => self.control(NACK, peer, expected),
                        Policy::UNet => self.control(ACK, peer, expected),
                    }
                }
            }
            (ACK, Policy::ParaStation) => {
                let s = &mut self.senders[peer as usize];
                if p.seq == s.base && !s.window.is_empty() {
                    self.acknowledged(peer, p.seq.wrapping_add(1), t);
                } else if before(s.base, p.seq) && !s.window.is_empty() {
                    // The ACK of `base` was lost: send it again, and what follows it.
                    s.next = 0;
                }
            }
            (ACK, Policy::UNet) => self.acknowledged(peer, p.seq, t),
            (NACK, _) => {
                let s = &mut self.senders[peer as usize];
                let offset = p.seq.wrapping_sub(s.base) as usize;
                if offset < s.window.len() {
                    s.next = s.next.min(offset);
                }
            }
            _ => counts.receiver_drops += 1,
        }
    }

    /// Timeouts of cycle `t`: go back to the first unacknowledged packet.
    fn timeouts(&mut self, cfg: &BaselineConfig, t: u64) {
        for s in &mut self.senders {
            let Some(&(_, Some(sent))) = s.window.front() else {
                continue;
            };
            let (start, wait) = match cfg.policy {
                Policy::ParaStation => (sent, cfg.timeout),
                Policy::UNet => (
                    s.timer.unwrap_or(sent),
                    (cfg.timeout << s.backoff.min(16)).min(cfg.max_timeout),
                ),
            };
            if t >= start + wait && s.next > 0 {
                s.next = 0;
                if cfg.policy == Policy::UNet {
                    s.backoff += 1;
                    s.timer = Some(t);
                }
            }
        }
    }

    /// The flit on `net_out` in cycle `t`: the worm in progress, else the next control packet,
    /// else the next data packet of the connections in turn.
    fn transmit(&mut self, cfg: &BaselineConfig, t: u64, counts: &mut Counts) -> u64 {
        if self.out_next >= self.out.len() {
            self.out.clear();
            self.out_next = 0;
            if let Some(c) = self.control.pop_front() {
                self.out = c.flits();
            } else {
                let nodes = self.senders.len();
                for i in 0..nodes {
                    let peer = (self.turn + i) % nodes;
                    let back = self.receivers[peer].expected;
                    let s = &mut self.senders[peer];
                    if s.next >= s.window.len() {
                        continue;
                    }
                    let seq = s.base.wrapping_add(s.next as u8);
                    let (m, sent) = &mut s.window[s.next];
                    if sent.is_some() {
                        counts.retransmissions += 1;
                    }
                    *sent = Some(t);
                    s.timer.get_or_insert(t);
                    s.next += 1;
                    let packet = Packet {
                        kind: DATA,
                        src: self.node,
                        dst: peer as u16,
                        seq,
                        ack: (cfg.policy == Policy::UNet).then_some(back),
                        data: m.data.clone(),
                    };
                    self.out = packet.flits();
                    self.turn = (peer + 1) % nodes;
                    break;
                }
            }
        }
        match self.out.get(self.out_next) {
            Some(&f) => {
                self.out_next += 1;
                f
            }
            None => 0,
        }
    }
}

/// A message the endpoint took: the cycle, and its payload.
type Taken = (u64, Vec<u8>);

/// Hosts, endpoints, fabric and scoreboard of one baseline run.
pub struct Baseline {
    cfg: BaselineConfig,
    tree: FatTree,
    fabric: Fabric,
    endpoints: Vec<Endpoint>,
    /// Injectors `2p` (node to fabric) and `2p + 1` (fabric to node).
    links: Vec<LinkFault>,
    net_out: Vec<u64>,
    fabric_out: Vec<u64>,
    fabric_out_before: Vec<u64>,
    fabric_in: Vec<u64>,
    offer: Offer,
    /// Per node: the message its host is asking to send (destination, payload).
    asking: Vec<Option<(u16, crate::system::Payload)>>,
    /// Per pair (source, destination): messages delivered, to name one in an error.
    delivered_numbers: HashMap<(u16, u16), u64>,
    /// Per pair: each message not yet delivered, in order.
    in_flight: HashMap<(u16, u16), VecDeque<Taken>>,
    counts: Counts,
    sent: u64,
    delivered: u64,
    duplicated: u64,
    out_of_order: u64,
    errors: u64,
    first_error: Option<String>,
    latencies: Latencies,
    payload_bytes: u64,
    quiet: bool,
}

impl Baseline {
    /// Hosts offering `load` flits per sending node per cycle of `length`-byte messages (`None`:
    /// uniform in 0..=32, as the idempotent hosts; §10's `q = load / E[w + 3]`), to destinations
    /// following `pattern`, from `seed`.
    pub fn new(
        tree: FatTree,
        cfg: BaselineConfig,
        load: f64,
        length: Option<usize>,
        pattern: Pattern,
        seed: u64,
    ) -> Result<Baseline, String> {
        let nodes = tree.nodes();
        let offer = Offer::new(nodes, load, pattern, seed)?.with_length(length)?;
        if cfg.window == 0 || cfg.window > 127 || cfg.ring < 2 || cfg.timeout == 0 {
            return Err(format!("baseline parameters out of range: {cfg:?}"));
        }
        Ok(Baseline {
            cfg,
            tree,
            fabric: Fabric::with_faults(tree),
            endpoints: (0..nodes).map(|p| Endpoint::new(p as u16, nodes)).collect(),
            links: (0..2 * nodes).map(LinkFault::new).collect(),
            net_out: vec![0; nodes],
            fabric_out: vec![0; nodes],
            fabric_out_before: vec![0; nodes],
            fabric_in: vec![0; nodes],
            offer,
            asking: vec![None; nodes],
            delivered_numbers: HashMap::new(),
            in_flight: HashMap::new(),
            counts: Counts::default(),
            sent: 0,
            delivered: 0,
            duplicated: 0,
            out_of_order: 0,
            errors: 0,
            first_error: None,
            latencies: Latencies::default(),
            payload_bytes: 0,
            quiet: false,
        })
    }

    fn error(&mut self, e: String) {
        self.errors += 1;
        self.first_error.get_or_insert(e);
    }

    /// Messages taken by the endpoints and not yet delivered.
    pub fn in_flight(&self) -> usize {
        self.in_flight.values().map(VecDeque::len).sum()
    }

    /// Cycle `t`.
    pub fn step(&mut self, t: u64, faults: &Faults, dead: &[bool]) {
        let nodes = self.endpoints.len();
        let (loss, corrupt) = (faults.loss, faults.corrupt);
        self.fabric.set_faults(loss, corrupt, dead);
        for p in 0..nodes {
            self.fabric_in[p] = self.links[2 * p].pass(self.net_out[p], loss, corrupt, false);
        }
        // The fabric's outputs of cycle t - 1 go to the endpoints.
        std::mem::swap(&mut self.fabric_out, &mut self.fabric_out_before);
        self.fabric.step(&self.fabric_in, &mut self.fabric_out);
        for p in 0..nodes {
            let from_fabric = self.fabric_out_before[p];
            let flit = self.links[2 * p + 1].pass(from_fabric, loss, corrupt, false);
            self.host_asks(p, t);
            let cfg = self.cfg;
            let e = &mut self.endpoints[p];
            if flit & VALID != 0 {
                if flit & HEAD != 0 {
                    if !e.incoming.is_empty() {
                        self.counts.receiver_drops += 1;
                    }
                    e.incoming.clear();
                }
                if !e.incoming.is_empty() || flit & HEAD != 0 {
                    e.incoming.push(flit);
                }
                if flit & TAIL != 0 && !e.incoming.is_empty() {
                    e.receive(&cfg, t, &mut self.counts);
                }
            }
            e.timeouts(&cfg, t);
            self.net_out[p] = self.endpoints[p].transmit(&cfg, t, &mut self.counts);
            self.host_reads(p, t);
        }
    }

    /// The host of node `p` asks to send, and its endpoint takes the message when the
    /// connection's window has room.
    fn host_asks(&mut self, p: usize, t: u64) {
        let nodes = self.endpoints.len();
        if self.asking[p].is_none() && !self.quiet {
            self.asking[p] = self.offer.draw(p, nodes);
        }
        if self.quiet {
            self.asking[p] = None;
        }
        let window = self.cfg.window as usize;
        let Some((dst, _)) = &self.asking[p] else {
            return;
        };
        let dst = *dst;
        if self.endpoints[p].senders[dst as usize].window.len() >= window {
            return;
        }
        let Some((_, payload)) = self.asking[p].take() else {
            return;
        };
        let data = payload.as_slice().to_vec();
        let pair = (p as u16, dst);
        self.in_flight
            .entry(pair)
            .or_default()
            .push_back((t, data.clone()));
        self.sent += 1;
        self.endpoints[p].senders[dst as usize]
            .window
            .push_back((Message { data }, None));
    }

    /// The host of node `p` reads its ring: a packet of `w` payload words takes `max(w, 1)`
    /// cycles, as the NI's delivery beats.
    fn host_reads(&mut self, p: usize, t: u64) {
        let e = &mut self.endpoints[p];
        if t < e.host_busy_until {
            return;
        }
        let Some((src, m)) = e.ring.pop_front() else {
            return;
        };
        e.host_busy_until = t + m.data.len().div_ceil(4).max(1) as u64;
        let pair = (src, p as u16);
        let next = self.delivered_numbers.entry(pair).or_insert(0);
        let number = *next;
        *next += 1;
        // The next message of the pair, a later one (out of order), or none (a duplicate).
        let queue = self.in_flight.entry(pair).or_default();
        let at = queue.iter().position(|(_, data)| *data == m.data);
        let Some((taken, data)) = at.and_then(|i| queue.remove(i)) else {
            self.duplicated += 1;
            return self.error(format!(
                "cycle {t}: message {number} from {src} to {p} was delivered before (a duplicate)"
            ));
        };
        self.delivered += 1;
        self.latencies.record(t - taken);
        if !self.quiet {
            self.payload_bytes += data.len() as u64;
        }
        if at != Some(0) {
            self.out_of_order += 1;
            self.error(format!(
                "cycle {t}: message {number} from {src} to {p} delivered out of order"
            ));
        }
    }

    /// `cycles` of traffic, then a drain of at most `drain` cycles until every message is
    /// delivered.
    pub fn run(
        mut self,
        cycles: u64,
        drain: u64,
        faults: &Faults,
    ) -> Result<BaselineResult, String> {
        let links = (self.tree.n - 1) * self.tree.per_level() * self.tree.k;
        let mut dead = vec![false; links];
        for &j in &faults.dead {
            *dead
                .get_mut(j)
                .ok_or_else(|| format!("dead link {j}: the links are 0..{links}"))? = true;
        }
        let end = cycles
            .checked_add(drain)
            .ok_or_else(|| format!("{cycles} cycles and a drain of {drain}: too many"))?;
        let mut t = 0;
        while t < cycles || (self.in_flight() > 0 && t < end) {
            self.quiet = t >= cycles;
            self.step(t, faults, &dead);
            t += 1;
        }
        let nodes = self.endpoints.len() as f64;
        let lost = self.in_flight() as u64;
        let figures = ProtocolFigures {
            sent: self.sent,
            delivered: self.delivered,
            completed: self.delivered,
            lost,
            duplicated: self.duplicated,
            out_of_order: Some(self.out_of_order),
            scoreboard_errors: self.errors,
            duplicates_suppressed: self.counts.duplicates_suppressed,
            retransmissions: self.counts.retransmissions,
            whole_message_restarts: None,
            resumes: None,
            receiver_drops: self.counts.receiver_drops,
            payload_bytes: self.payload_bytes,
            payload_bytes_per_node_cycle: self.payload_bytes as f64
                / (nodes * cycles.max(1) as f64),
            latency: self.latencies.summary(),
        };
        Ok(BaselineResult {
            figures,
            first_error: self.first_error,
            cycles: t,
        })
    }
}

/// What a baseline run measured.
#[derive(Clone, Debug)]
pub struct BaselineResult {
    pub figures: ProtocolFigures,
    /// The scoreboard's first complaint (loss, duplicate, disorder, wrong payload).
    pub first_error: Option<String>,
    /// Cycles run, the drain included.
    pub cycles: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(src: u16, dst: u16, seq: u8, ack: Option<u8>) -> Packet {
        Packet {
            kind: DATA,
            src,
            dst,
            seq,
            ack,
            data: vec![seq; 5],
        }
    }

    /// Endpoint 1 of 4 receives `p` in cycle `t`.
    fn deliver(e: &mut Endpoint, cfg: &BaselineConfig, p: &Packet, t: u64) -> Counts {
        let mut counts = Counts::default();
        e.incoming = p.flits();
        e.receive(cfg, t, &mut counts);
        counts
    }

    fn control(e: &mut Endpoint) -> Vec<(u32, u8)> {
        e.control.drain(..).map(|c| (c.kind, c.seq)).collect()
    }

    #[test]
    fn packets_round_trip_and_damaged_ones_are_refused() {
        let p = data(2, 5, 200, Some(7));
        let flits = p.flits();
        assert_eq!(flits.len(), 3 + 2);
        assert_eq!(Packet::parse(&flits), Some(p));
        let mut bad = flits.clone();
        bad[2] ^= 1 << 9;
        assert_eq!(Packet::parse(&bad), None, "a flipped bit fails the CRC");
        assert_eq!(Packet::parse(&flits[..4]), None, "a truncated worm");
    }

    #[test]
    fn sequence_numbers_compare_across_the_wrap() {
        assert!(before(254, 1) && before(1, 2) && !before(2, 2) && !before(3, 2));
        assert!(!before(1, 254), "half the space away is behind, not ahead");
    }

    #[test]
    fn parastation_acks_in_sequence_nacks_ahead_and_acks_duplicates_again() {
        let cfg = BaselineConfig::new(Policy::ParaStation);
        let mut e = Endpoint::new(1, 4);
        deliver(&mut e, &cfg, &data(0, 1, 0, None), 10);
        assert_eq!(control(&mut e), [(ACK, 0)]);
        assert_eq!((e.receivers[0].expected, e.ring.len()), (1, 1));
        // A duplicate (its ACK was lost): acknowledged again, not delivered again.
        let c = deliver(&mut e, &cfg, &data(0, 1, 0, None), 11);
        assert_eq!(
            (control(&mut e), c.duplicates_suppressed),
            (vec![(ACK, 0)], 1)
        );
        assert_eq!(e.ring.len(), 1);
        // Ahead of sequence (packet 1 lost): discarded, NACK naming the one expected.
        let c = deliver(&mut e, &cfg, &data(0, 1, 2, None), 12);
        assert_eq!((control(&mut e), c.receiver_drops), (vec![(NACK, 1)], 1));
        // The ring keeps a free slot: the packet that would take the last one is refused.
        while e.ring.len() + 1 < cfg.ring {
            e.ring.push_back((3, Message { data: vec![] }));
        }
        deliver(&mut e, &cfg, &data(0, 1, 1, None), 13);
        assert_eq!(control(&mut e), [(NACK, 1)]);
        assert_eq!(e.receivers[0].expected, 1);
    }

    #[test]
    fn unet_acknowledges_lazily_and_duplicates_at_once() {
        let cfg = BaselineConfig::new(Policy::UNet);
        let mut e = Endpoint::new(1, 4);
        deliver(&mut e, &cfg, &data(0, 1, 0, None), 10);
        assert!(control(&mut e).is_empty(), "in order: no acknowledgement");
        deliver(&mut e, &cfg, &data(0, 1, 0, None), 11);
        assert_eq!(
            control(&mut e),
            [(ACK, 1)],
            "a duplicate: the cumulative ACK at once"
        );
        deliver(&mut e, &cfg, &data(0, 1, 3, None), 12);
        assert_eq!(control(&mut e), [(ACK, 1)], "out of order: the same");
        // The acknowledgement riding on a data packet releases the sender's window.
        for _ in 0..3 {
            e.senders[0]
                .window
                .push_back((Message { data: vec![] }, Some(5)));
        }
        e.senders[0].next = 3;
        deliver(&mut e, &cfg, &data(0, 1, 1, Some(2)), 20);
        let s = &e.senders[0];
        assert_eq!(
            (s.base, s.window.len(), s.next, s.timer),
            (2, 1, 1, Some(20))
        );
    }

    #[test]
    fn senders_go_back_n_and_unet_backs_off_up_to_its_clamp() {
        let mut counts = Counts::default();
        for policy in [Policy::ParaStation, Policy::UNet] {
            let cfg = BaselineConfig::new(policy);
            let mut e = Endpoint::new(0, 2);
            for _ in 0..3 {
                e.senders[1]
                    .window
                    .push_back((Message { data: vec![1] }, None));
            }
            for t in 0..3 * 4 {
                e.transmit(&cfg, t, &mut counts);
            }
            assert_eq!(e.senders[1].next, 3, "{policy:?}: all three sent");
            // A NACK of packet 1 goes back to it.
            e.incoming = Packet {
                kind: NACK,
                src: 1,
                dst: 0,
                seq: 1,
                ack: None,
                data: vec![],
            }
            .flits();
            e.receive(&cfg, 20, &mut counts);
            assert_eq!(e.senders[1].next, 1, "{policy:?}");
            // A timeout goes back to the first unacknowledged packet.
            e.senders[1].next = 3;
            e.timeouts(&cfg, cfg.timeout - 1);
            assert_eq!(e.senders[1].next, 3, "{policy:?}: not yet");
            e.timeouts(&cfg, cfg.timeout + 1);
            assert_eq!(e.senders[1].next, 0, "{policy:?}");
        }
        // U-Net's timer doubles with each retransmission, up to its clamp.
        let cfg = BaselineConfig::new(Policy::UNet);
        let mut e = Endpoint::new(0, 2);
        e.senders[1]
            .window
            .push_back((Message { data: vec![] }, Some(0)));
        e.senders[1].timer = Some(0);
        let mut fired = vec![];
        for t in 0..6000 {
            e.senders[1].next = 1;
            e.timeouts(&cfg, t);
            if e.senders[1].next == 0 {
                fired.push(t);
            }
        }
        assert_eq!(fired[..5], [128, 384, 896, 1920, 2944]);
    }

    /// The scoreboard names what went wrong: a message delivered again is a duplicate, one
    /// delivered before an earlier one of its pair is out of order.
    #[test]
    fn the_scoreboard_tells_duplicates_from_disorder() {
        let tree = FatTree::new(4, 2).unwrap();
        let cfg = BaselineConfig::new(Policy::ParaStation);
        let mut b = Baseline::new(tree, cfg, 0.0, None, Pattern::Uniform, 1).unwrap();
        let pair = (2u16, 1u16);
        for data in [vec![1], vec![2]] {
            b.in_flight.entry(pair).or_default().push_back((0, data));
        }
        for (t, data) in [(10, vec![2]), (20, vec![1]), (30, vec![1])] {
            b.endpoints[1].ring.push_back((2, Message { data }));
            b.host_reads(1, t);
        }
        assert_eq!((b.delivered, b.out_of_order, b.duplicated), (2, 1, 1));
        assert_eq!(b.errors, 2);
    }

    /// The main job's faults (0.1 % loss, 0.05 % corruption per flit and link) and a dead
    /// inter-switch link: every message delivered once, in order, with its payload.
    #[test]
    fn both_pass_the_scoreboard_under_faults() {
        let tree = FatTree::new(4, 2).unwrap();
        let mut faults = Faults::from_probabilities(0.001, 0.0005).unwrap();
        faults.dead = vec![5];
        for policy in [Policy::ParaStation, Policy::UNet] {
            for pattern in [Pattern::Uniform, Pattern::Complement, Pattern::ToOne(5)] {
                let cfg = BaselineConfig::new(policy);
                let b = Baseline::new(tree, cfg, 0.2, None, pattern, 3).unwrap();
                let r = b.run(20_000, 200_000, &faults).unwrap();
                let f = &r.figures;
                let what = format!("{policy:?} {pattern:?}");
                assert_eq!(f.scoreboard_errors, 0, "{what}: {:?}", r.first_error);
                assert_eq!((f.lost, f.delivered), (0, f.sent), "{what}");
                assert!(f.sent > 500 && f.retransmissions > 0, "{what}: {f:?}");
            }
        }
    }
}
