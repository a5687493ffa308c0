//! Seeded, reactive stimulus for one NI alone: the rest of the machine, played by fake peers.
//!
//! Every cycle [`Peers::step`] sees the NI's outputs of the previous cycle and writes its
//! inputs. The peers answer what the NI sends (an ACK for most of its SENDs, sometimes a late
//! duplicate ACK; a FORGET for most of its ACKs), send their own SENDs (sometimes again, as a
//! sender that missed the ACK would), and now and then a packet with a flipped bit, a worm cut
//! short or missing its tail, a malformed header, a packet for another node, a FORGET from the
//! wrong node, an orphan flit, or a bubble inside a worm. The host side keeps a request valid
//! until it is accepted and takes deliveries when it feels like it. A seed fixes the whole run.

use std::collections::{BTreeMap, VecDeque};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{
    bus_from_words, bytes_to_words, inp, out, Kind, NiConfig, Packet, MAX_PAYLOAD, PAYLOAD_WORDS,
};
use crate::switch::{HEAD, TAIL, VALID};

/// How busy and how hostile the peers are; probabilities per cycle unless said otherwise.
#[derive(Clone, Copy, Debug)]
pub struct PeerParams {
    /// Number of nodes (peers are the other `nodes - 1`).
    pub nodes: u16,
    /// A peer starts a new SEND to the NI.
    pub send_rate: f64,
    /// The host asks to send a datagram (when it is not already asking).
    pub req_rate: f64,
    /// Per SEND of the NI: the addressee ACKs it.
    pub ack_prob: f64,
    /// Per ACK of the NI: the sender FORGETs.
    pub forget_prob: f64,
    /// Per worm: a bit flip, a cut, a missing tail.
    pub error_prob: f64,
    /// Something malformed, misrouted or foreign.
    pub junk_rate: f64,
    /// The host takes a delivery.
    pub dlv_ready_prob: f64,
}

impl Default for PeerParams {
    fn default() -> Self {
        PeerParams {
            nodes: 16,
            send_rate: 0.02,
            req_rate: 0.02,
            ack_prob: 0.8,
            forget_prob: 0.8,
            error_prob: 0.03,
            junk_rate: 0.002,
            dlv_ready_prob: 0.7,
        }
    }
}

/// The fake peers of one NI.
pub struct Peers {
    rng: ChaCha8Rng,
    node: u16,
    p: PeerParams,
    /// Worms to present, by (earliest cycle, sequence number).
    due: BTreeMap<(u64, u64), Vec<u64>>,
    seq: u64,
    cur: VecDeque<u64>,
    seen: Vec<u64>,
    peer_counter: Vec<u16>,
    recent: VecDeque<Packet>,
    req: Option<(u16, Vec<u8>)>,
    presented: bool,
    ready_before: bool,
    /// Datagrams the host asked for and the NI accepted.
    pub accepted: u64,
}

impl Peers {
    pub fn new(cfg: &NiConfig, p: PeerParams, seed: u64) -> Peers {
        Peers {
            rng: ChaCha8Rng::seed_from_u64(seed),
            node: cfg.node,
            p,
            due: BTreeMap::new(),
            seq: 0,
            cur: VecDeque::new(),
            seen: vec![],
            peer_counter: vec![0; p.nodes.max(1) as usize],
            recent: VecDeque::new(),
            req: None,
            presented: false,
            ready_before: false,
            accepted: 0,
        }
    }

    fn schedule(&mut self, at: u64, flits: Vec<u64>) {
        self.due.insert((at, self.seq), flits);
        self.seq += 1;
    }

    fn other_node(&mut self) -> u16 {
        let n = self.p.nodes.max(2);
        let mut x = self.rng.gen_range(0..n - 1);
        if x >= self.node {
            x += 1;
        }
        x
    }

    fn data(&mut self, max: usize) -> Vec<u8> {
        let len = self.rng.gen_range(0..=max);
        (0..len).map(|_| self.rng.gen()).collect()
    }

    /// A worm of `p`, sometimes damaged.
    fn worm(&mut self, p: &Packet) -> Vec<u64> {
        let mut f = p.flits();
        if self.rng.gen_bool(self.p.error_prob) {
            let n = f.len();
            match self.rng.gen_range(0..3) {
                0 => {
                    let i = self.rng.gen_range(1..n);
                    f[i] ^= 1 << self.rng.gen_range(0..32);
                }
                1 => {
                    let keep = self.rng.gen_range(1..n);
                    f.truncate(keep);
                    f[keep - 1] |= TAIL;
                }
                _ => {
                    f.pop();
                }
            }
        }
        f
    }

    fn react(&mut self, t: u64, p: Packet) {
        match p.kind {
            Kind::Send if p.dst != self.node && self.rng.gen_bool(self.p.ack_prob) => {
                let ack = Packet {
                    kind: Kind::Ack,
                    src: p.dst,
                    dst: self.node,
                    uid: p.uid,
                    data: vec![],
                };
                let at = t + self.rng.gen_range(4..60);
                let w = self.worm(&ack);
                self.schedule(at, w);
                if self.rng.gen_bool(0.1) {
                    let late = t + self.rng.gen_range(150..400);
                    let w = ack.flits();
                    self.schedule(late, w);
                }
            }
            Kind::Ack if self.rng.gen_bool(self.p.forget_prob) => {
                let forget = Packet {
                    kind: Kind::Forget,
                    src: p.dst,
                    dst: self.node,
                    uid: p.uid,
                    data: vec![],
                };
                let at = t + self.rng.gen_range(4..60);
                let w = self.worm(&forget);
                self.schedule(at, w);
            }
            _ => {}
        }
    }

    /// Cycle `t`: `prev` is `O_(t-1)` of the NI (all zero for `t = 0`), `inputs` receives `I_t`.
    pub fn step(&mut self, t: u64, prev: &[u64], inputs: &mut [u64]) {
        // What the NI did last cycle.
        let f = prev[out::NET_OUT];
        if f & VALID != 0 {
            if f & HEAD != 0 {
                self.seen.clear();
            }
            self.seen.push(f);
            if f & TAIL != 0 {
                if let Some(p) = Packet::from_flits(&self.seen) {
                    self.react(t, p);
                }
                self.seen.clear();
            }
        }
        if self.presented && self.ready_before {
            self.req = None;
            self.accepted += 1;
        }
        self.ready_before = prev[out::REQ_READY] & 1 == 1;

        // New traffic from the peers.
        if self.rng.gen_bool(self.p.send_rate) {
            let src = self.other_node();
            let k = src as usize % self.peer_counter.len();
            let c = self.peer_counter[k];
            self.peer_counter[k] = c.wrapping_add(1);
            let p = Packet {
                kind: Kind::Send,
                src,
                dst: self.node,
                uid: (src as u32) << 16 | c as u32,
                data: self.data(MAX_PAYLOAD),
            };
            let w = self.worm(&p);
            self.schedule(t, w);
            self.recent.push_back(p);
            if self.recent.len() > 8 {
                self.recent.pop_front();
            }
        }
        if !self.recent.is_empty() && self.rng.gen_bool(self.p.send_rate / 4.0) {
            let i = self.rng.gen_range(0..self.recent.len());
            let w = self.recent[i].flits();
            self.schedule(t, w);
        }
        if self.rng.gen_bool(self.p.junk_rate) {
            let src = self.other_node();
            let other = self.other_node();
            let uid = (src as u32) << 16 | self.rng.gen_range(0..4u32);
            let (kind, dst, uid, data) = match self.rng.gen_range(0..5) {
                0 => (Kind::Send, other, uid, vec![]),
                1 => (Kind::Forget, self.node, (other as u32) << 16, vec![]),
                2 => (Kind::Ack, self.node, uid, vec![1]),
                3 => (Kind::Send, self.node, uid, vec![0x5a; 36]),
                _ => (
                    Kind::Ack,
                    self.node,
                    (self.node as u32) << 16 | self.rng.gen_range(0..64u32),
                    vec![],
                ),
            };
            let p = Packet {
                kind,
                src,
                dst,
                uid,
                data,
            };
            self.schedule(t, p.flits());
        }
        if self.rng.gen_bool(self.p.junk_rate / 2.0) {
            let orphan = VALID | self.rng.gen::<u32>() as u64;
            self.schedule(t, vec![orphan]);
        }

        // Network input: one flit per cycle, a rare bubble inside a worm.
        inputs[inp::NET_IN] = 0;
        if self.cur.is_empty() {
            if let Some(entry) = self.due.first_entry() {
                if entry.key().0 <= t {
                    self.cur = entry.remove().into();
                }
            }
        }
        if !self.cur.is_empty() && !self.rng.gen_bool(0.01) {
            inputs[inp::NET_IN] = self.cur.pop_front().unwrap_or(0);
        }

        // Host request, held until accepted.
        if self.req.is_none() && self.rng.gen_bool(self.p.req_rate) {
            let dst = self.other_node();
            let data = self.data(MAX_PAYLOAD);
            self.req = Some((dst, data));
        }
        self.presented = self.req.is_some();
        match &self.req {
            Some((dst, data)) => {
                let mut w = [0u32; PAYLOAD_WORDS];
                for (j, x) in bytes_to_words(data).into_iter().enumerate() {
                    w[j] = x;
                }
                inputs[inp::REQ_VALID] = 1;
                inputs[inp::REQ_DST] = *dst as u64;
                inputs[inp::REQ_LEN] = data.len() as u64;
                inputs[inp::REQ_DATA..inp::REQ_DATA + 4].copy_from_slice(&bus_from_words(&w));
            }
            None => inputs[inp::REQ_VALID..inp::REQ_DATA + 4].fill(0),
        }
        inputs[inp::DLV_READY] = self.rng.gen_bool(self.p.dlv_ready_prob) as u64;
        // The grant of a shared link (§13.2), withheld now and then.
        inputs[inp::TX_GNT] = self.rng.gen_bool(0.75) as u64;
    }
}
