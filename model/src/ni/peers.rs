//! Seeded, reactive stimulus for one NI alone: the rest of the machine, played by fake peers.
//!
//! Every cycle [`Peers::step`] sees the NI's outputs of the previous cycle and writes its
//! inputs. The peers answer what the NI sends (an ACK for most of its SENDs, sometimes a late
//! duplicate ACK; a FORGET for most of its ACKs), send their own SENDs (sometimes again, as a
//! sender that missed the ACK would), and now and then a packet with a flipped bit, a worm cut
//! short or missing its tail, a malformed header, a packet for another node, a FORGET from the
//! wrong node, an orphan flit, or a bubble inside a worm. The host streams its requests (§8.5),
//! each beat held until taken, showing other `req_dst` and `req_len` values after the first
//! beat (the NI must read them there only) and now and then a request the NI must refuse; it
//! takes delivery beats when it feels like it (§8.4). A seed fixes the whole run.
//!
//! The peers also judge what the host sees: every datagram delivered must be a SEND some peer
//! made, from that peer, with its payload; every completion must be of a request taken whole.

use std::collections::{BTreeMap, HashMap, VecDeque};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{inp, out, words_to_bytes, Kind, NiConfig, Packet, MAX_PAYLOAD};
use crate::stream::{beat_words, beats, Beats, Collect};
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
    /// The host takes a delivery beat.
    pub dlv_ready_prob: f64,
    /// Per request: it is not well formed (§8.5), and the NI must refuse it.
    pub bad_request_prob: f64,
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
            bad_request_prob: 0.05,
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
    /// The payload of every SEND a peer made, by uid.
    sends: HashMap<u32, Vec<u8>>,
    req: Option<Request>,
    reading: Collect,
    /// Requests the NI took whole.
    pub accepted: u64,
    /// Requests that were not well formed, all their beats taken.
    pub refused: u64,
    /// Datagrams delivered to the host (last beats taken).
    pub delivered: u64,
    /// Completions (`done_valid`).
    pub completed: u64,
    /// What the host saw that no peer or request explains, and the first such thing.
    pub errors: u64,
    pub first_error: Option<String>,
}

/// A request the host streams: what its first beat shows, its beats, and whether it is well
/// formed.
struct Request {
    dst: u16,
    len: u64,
    beats: Beats,
    well_formed: bool,
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
            sends: HashMap::new(),
            req: None,
            reading: Collect::default(),
            accepted: 0,
            refused: 0,
            delivered: 0,
            completed: 0,
            errors: 0,
            first_error: None,
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

    fn error(&mut self, e: String) {
        self.errors += 1;
        self.first_error.get_or_insert(e);
    }

    /// A new request: mostly a datagram to another node, now and then one the NI must refuse
    /// (§8.5): a length past 32 bytes, or its last beat too early or too late.
    fn request(&mut self) -> Request {
        let dst = self.other_node();
        if !self.rng.gen_bool(self.p.bad_request_prob) {
            let data = self.data(MAX_PAYLOAD);
            return Request {
                dst,
                len: data.len() as u64,
                beats: Beats::of_words(padded_with_ones(&data)),
                well_formed: true,
            };
        }
        let (len, count) = match self.rng.gen_range(0..3) {
            0 => (self.rng.gen_range(33..64), self.rng.gen_range(1..=16)),
            1 => {
                let len = self.rng.gen_range(5..=MAX_PAYLOAD);
                (len, self.rng.gen_range(1..beats(len)))
            }
            _ => {
                let len = self.rng.gen_range(0..=MAX_PAYLOAD);
                (len, beats(len) + self.rng.gen_range(1..=3))
            }
        };
        let words = (0..count).map(|_| self.rng.gen()).collect();
        Request {
            dst,
            len: len as u64,
            beats: Beats::of_words(words),
            well_formed: false,
        }
    }

    /// The host side of cycle `t`: the request stream's beat, the delivery stream's `ready`,
    /// and what `O_(t-1)` showed of deliveries and completions.
    fn host(&mut self, t: u64, prev: &[u64], inputs: &mut [u64]) {
        if self.req.is_none() && self.rng.gen_bool(self.p.req_rate) {
            self.req = Some(self.request());
        }
        let ready = prev[out::REQ_READY] & 1 == 1;
        let mut finished = None;
        match self.req.as_mut() {
            Some(r) => {
                let (word, last) = r.beats.beat();
                inputs[inp::REQ_VALID] = 1;
                inputs[inp::REQ_DATA] = word as u64;
                inputs[inp::REQ_LAST] = last as u64;
                // Read on the first beat only: the later beats show something else.
                let (dst, len) = if r.beats.started() {
                    (self.rng.gen(), self.rng.gen_range(0..64))
                } else {
                    (r.dst, r.len)
                };
                inputs[inp::REQ_DST] = dst as u64;
                inputs[inp::REQ_LEN] = len;
                if ready && r.beats.taken() {
                    finished = Some(r.well_formed);
                }
            }
            None => {
                inputs[inp::REQ_VALID..=inp::REQ_LEN].fill(0);
            }
        }
        match finished {
            Some(true) => self.accepted += 1,
            Some(false) => self.refused += 1,
            None => {}
        }
        if finished.is_some() {
            self.req = None;
        }
        let take = self.rng.gen_bool(self.p.dlv_ready_prob);
        inputs[inp::DLV_READY] = take as u64;
        if take && prev[out::DLV_VALID] & 1 == 1 {
            let (data, last) = (prev[out::DLV_DATA] as u32, prev[out::DLV_LAST] & 1 == 1);
            if let Some((words, _)) = self.reading.beat(t - 1, data, last) {
                self.delivery(t, prev, &words);
            }
        }
        if prev[out::DONE_VALID] & 1 == 1 {
            self.completed += 1;
            let uid = prev[out::DONE_UID];
            if uid >> 16 != self.node as u64 || self.completed > self.accepted {
                self.error(format!(
                    "cycle {}: done uid {uid:#x}, with {} requests taken",
                    t - 1,
                    self.accepted
                ));
            }
        }
    }

    /// The last beat of a delivery, shown in `O_(t-1)`, is taken in cycle `t`.
    fn delivery(&mut self, t: u64, prev: &[u64], words: &[u32]) {
        self.delivered += 1;
        let (src, uid) = (prev[out::DLV_SRC], prev[out::DLV_UID] as u32);
        let len = (prev[out::DLV_LEN] & 0x3F) as usize;
        let data = words_to_bytes(words, len);
        let known = self.sends.get(&uid);
        if known != Some(&data) || uid >> 16 != src as u32 || words.len() != beats(len) {
            self.error(format!(
                "cycle {t}: delivered uid {uid:#x} from {src}, {len} bytes in {} beats, which no peer sent so",
                words.len()
            ));
        }
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
            self.sends.insert(p.uid, p.data.clone());
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

        self.host(t, prev, inputs);
        // The grant of a shared link (§13.2), withheld now and then.
        inputs[inp::TX_GNT] = self.rng.gen_bool(0.75) as u64;
    }
}

/// The beats of a well-formed request for `data`, with every byte of its final word past the
/// length set (a request of no bytes: its one word). §8.1 lets a host leave anything there and
/// the NI sends those bytes as zero, so a co-simulation shows the NI clearing them. Ones, not
/// bytes from the random stream, so that a seed's traffic is what it was before.
fn padded_with_ones(data: &[u8]) -> Vec<u32> {
    let mut words = beat_words(data);
    let tail = data.len() % 4;
    if data.is_empty() || tail != 0 {
        let last = words.last_mut().expect("a request has a beat");
        *last |= u32::MAX.checked_shr(8 * tail as u32).unwrap_or(0);
    }
    words
}
