//! The RMPP side of every node's host in the system (docs/protocol.md §10, §12), and the
//! end-to-end message scoreboard.
//!
//! Per node: a [`Sender`] (the send side of §12) fed by a seeded random message source, whose
//! packets are streamed to the node's framer (§13.1): the next one as soon as `tx_ready` shows,
//! its beats in consecutive cycles while it stays high; the receive path's `snd_*`
//! pulses go back to the sender. The upper layer accepts every message whole (`up_accept` =
//! 2^32 - 1, the upcall taken as soon as it shows) and takes a delivery after reading its
//! `ceil(len / 4)` words through the read port, one per cycle: it addresses a word in each
//! cycle and takes the delivery in the cycle after the last, whose outputs show that last word
//! (§11.6).
//!
//! The scoreboard checks every upcall (a message some host sent, to this node, once, and per
//! pair of nodes in send order: §3.8's ordering by arrival), every delivery (once, after its
//! upcall, exactly the bytes sent) and every completion at the sender (MSGEND with the whole
//! length). After a drain, a message sent but not delivered is lost.

use rand::{Rng, SeedableRng};

use super::send::{Completion, Outcome, SendConfig, Sender};
use super::{rx::inp as rxi, rx::out as rxo, Packet, Type};
use crate::hash::FastMap;
use crate::latency::Latencies;
use crate::ni;
use crate::node::{framer_beats, framer_inputs};
use crate::stream::Beats;
use crate::system::Layout;
use idemnet_spec::framer;

/// Slot numbers a 4-bit `up_slot` / `dlv_slot` can name (`rx_slots <= 16`, §11.2).
const SLOT_NUMBERS: usize = 16;

/// Where messages (and, in [`crate::system::Hosts`], datagrams) go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// Uniformly to the other nodes.
    Uniform,
    /// Every other node sends to this one.
    ToOne(u16),
    /// Only the first node sends, to the second.
    Pair(u16, u16),
    /// Node `p` sends to `nodes - 1 - p` (the bit complement of `p`, the node count being a
    /// power of two): a permutation in which every worm crosses the top of the fat tree.
    Complement,
}

impl Pattern {
    /// An error naming a node of the pattern that is not among `0..nodes`.
    pub fn check(self, nodes: usize) -> Result<(), String> {
        let named = match self {
            Pattern::Uniform | Pattern::Complement => vec![],
            Pattern::ToOne(d) => vec![d],
            Pattern::Pair(s, d) => vec![s, d],
        };
        match named.into_iter().find(|&d| d as usize >= nodes) {
            Some(d) => Err(format!("node {d}: the nodes are 0..{nodes}")),
            None => Ok(()),
        }
    }

    /// Whether node `p` of `nodes` sends.
    pub fn sends(self, p: usize, nodes: usize) -> bool {
        match self {
            Pattern::Uniform => true,
            Pattern::ToOne(d) => d as usize != p,
            Pattern::Pair(s, _) => s as usize == p,
            Pattern::Complement => nodes - 1 - p != p,
        }
    }

    /// The destination of node `p`'s next message; draws from `rng` only for [`Pattern::Uniform`].
    pub fn destination(self, p: usize, nodes: usize, rng: &mut impl Rng) -> u16 {
        match self {
            Pattern::ToOne(d) | Pattern::Pair(_, d) => d,
            Pattern::Complement => (nodes - 1 - p) as u16,
            Pattern::Uniform => {
                let mut d = rng.gen_range(0..nodes - 1);
                if d >= p {
                    d += 1;
                }
                d as u16
            }
        }
    }
}

/// The RMPP traffic of a run.
#[derive(Clone, Copy, Debug)]
pub struct MsgTraffic {
    /// Offered RMPP traffic in flits per sending node per cycle (data worms only).
    pub load: f64,
    /// Message lengths are uniform in `min_len..=max_len` bytes.
    pub min_len: usize,
    pub max_len: usize,
    pub pattern: Pattern,
    /// The send side's timers and limits (`node` is set per node).
    pub send: SendConfig,
}

impl MsgTraffic {
    /// Mean flits of a message's data worms (RTS / RTS_LAST and DATA packets).
    pub fn mean_flits(&self) -> f64 {
        let mtu = self.send.mtu;
        let flits = |len: usize| -> usize {
            let packets = 1 + len.saturating_sub(mtu).div_ceil(mtu);
            (0..packets)
                .map(|s| 9 + (len.saturating_sub(s * mtu).min(mtu)).div_ceil(4))
                .sum()
        };
        let lens = self.min_len..=self.max_len;
        lens.clone().map(flits).sum::<usize>() as f64 / lens.count().max(1) as f64
    }
}

struct Rec {
    dst: u16,
    data: Vec<u8>,
    msg_num: u32,
    sent_at: u64,
    upcalled: bool,
    delivered: bool,
}

/// A delivery being read.
struct Reading {
    slot: u64,
    src: u16,
    msg_id: u32,
    len: usize,
    issued: u64,
    /// A word was addressed in this cycle: it shows in the outputs of the next (§11.6).
    issued_now: bool,
    words: Vec<u32>,
}

/// The RMPP hosts of all nodes and the message scoreboard.
pub struct MsgHosts {
    rng: rand_chacha::ChaCha8Rng,
    lay: Layout,
    traffic: MsgTraffic,
    q: f64,
    /// `gen_bool(q)`'s distribution, made once (`gen_bool` makes it at every draw).
    sends: rand::distributions::Bernoulli,
    pub senders: Vec<Sender>,
    /// Per node: the packet being streamed to the framer, and its beats.
    framing: Vec<Option<(Packet, Beats)>>,
    reading: Vec<Option<Reading>>,
    /// A delivery taken in cycle `.0` whose last word shows in that cycle's outputs.
    finishing: Vec<Option<(u64, Reading)>>,
    /// Per node and slot: the message (`src`, `msg_id`) of the last upcall that named the slot.
    /// A delivery names only the slot (docs/protocol.md §11.3), which holds that message from
    /// its upcall until its delivery is taken.
    slot_messages: Vec<[Option<(u16, u32)>; SLOT_NUMBERS]>,
    recs: FastMap<(u16, u32), Rec>,
    next_upcall: FastMap<(u16, u16), u32>,
    sent_num: FastMap<(u16, u16), u32>,
    /// The input buffer given to [`MsgHosts::step`] keeps what the last step wrote there
    /// ([`MsgHosts::with_inputs_kept`]).
    kept: bool,
    /// Per node: the last step wrote its idle host's inputs, which a kept buffer still holds.
    at_rest: Vec<bool>,
    /// Every host was at rest at the last step (none framing, reading, answering or sending,
    /// and none given a message since): nothing is being read.
    all_rest: bool,
    /// Stop sending new messages (the drain).
    pub quiet: bool,
    pub sent: u64,
    pub upcalls: u64,
    pub delivered: u64,
    pub completed: u64,
    pub duplicated: u64,
    pub out_of_order: u64,
    pub errors: u64,
    pub first_error: Option<String>,
    /// Latencies from the host's send to the delivery showing, in cycles.
    pub latencies: Latencies,
    /// Payload bytes delivered while the hosts were sending (before the drain).
    pub payload_bytes: u64,
}

impl MsgHosts {
    pub fn new(lay: Layout, traffic: MsgTraffic, seed: u64) -> Result<MsgHosts, String> {
        if !(0.0..=1.0).contains(&traffic.load) {
            return Err(format!("RMPP load {}: must be in 0..=1", traffic.load));
        }
        traffic.pattern.check(lay.nodes)?;
        if traffic.min_len > traffic.max_len {
            return Err(format!(
                "message lengths {}..={}: empty range",
                traffic.min_len, traffic.max_len
            ));
        }
        let senders = (0..lay.nodes)
            .map(|p| {
                Sender::new(SendConfig {
                    node: p as u16,
                    nodes: lay.nodes,
                    ..traffic.send
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let q = (traffic.load / traffic.mean_flits()).min(1.0);
        Ok(MsgHosts {
            rng: rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ 0x524d_5050),
            lay,
            q,
            sends: rand::distributions::Bernoulli::new(q).expect("a probability"),
            traffic,
            senders,
            framing: vec![None; lay.nodes],
            reading: (0..lay.nodes).map(|_| None).collect(),
            finishing: (0..lay.nodes).map(|_| None).collect(),
            slot_messages: vec![[None; SLOT_NUMBERS]; lay.nodes],
            recs: FastMap::default(),
            next_upcall: FastMap::default(),
            sent_num: FastMap::default(),
            kept: false,
            at_rest: vec![false; lay.nodes],
            all_rest: false,
            quiet: false,
            sent: 0,
            upcalls: 0,
            delivered: 0,
            completed: 0,
            duplicated: 0,
            out_of_order: 0,
            errors: 0,
            first_error: None,
            latencies: Latencies::default(),
            payload_bytes: 0,
        })
    }

    /// Hosts whose [`MsgHosts::step`] is given, every cycle, an input buffer that still holds
    /// what the last step wrote there (nothing else writes their words): a host at rest then
    /// writes nothing, its inputs being those it wrote at the last step.
    pub fn with_inputs_kept(mut self) -> MsgHosts {
        self.kept = true;
        self
    }

    fn error(&mut self, e: String) {
        self.errors += 1;
        self.first_error.get_or_insert(e);
    }

    /// Messages sent and not yet completed at their sender.
    pub fn in_flight(&self) -> usize {
        self.recs.len()
    }

    /// The messages in flight, for debugging.
    pub fn debug_inflight(&self) -> String {
        let mut v: Vec<String> = self
            .recs
            .iter()
            .map(|((s, id), r)| {
                format!(
                    "{s}->{} id {id:#x} num {} len {} up {} dlv {} at {}",
                    r.dst,
                    r.msg_num,
                    r.data.len(),
                    r.upcalled,
                    r.delivered,
                    r.sent_at
                )
            })
            .collect();
        v.sort();
        v.join("\n")
    }

    /// Messages sent but never delivered.
    /// The senders expect receivers that accept selectively (docs/protocol.md §11.7).
    pub fn selective(&self) -> bool {
        self.traffic.send.selective
    }

    /// The senders' timers and packet size.
    pub fn send_config(&self) -> &SendConfig {
        &self.traffic.send
    }

    pub fn lost(&self) -> usize {
        self.recs.values().filter(|r| !r.delivered).count()
    }

    /// (source, destination) of each message sent but never delivered.
    pub fn lost_pairs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.recs
            .iter()
            .filter(|(_, r)| !r.delivered)
            .map(|((src, _), r)| (*src as usize, r.dst as usize))
    }

    /// Host `p` sends `data` to `dst` now (for scripted runs; the random source does the same).
    pub fn send(&mut self, t: u64, p: usize, dst: u16, data: Vec<u8>) -> u32 {
        self.at_rest[p] = false;
        self.all_rest = false;
        let msg_id = self.senders[p].send(t, dst, data.clone());
        self.sent += 1;
        // Numbered per pair in send order (§3.8), counted here independently of the sender.
        let num = self.sent_num.entry((p as u16, dst)).or_insert(0);
        *num += 1;
        let msg_num = *num;
        self.recs.insert(
            (p as u16, msg_id),
            Rec {
                dst,
                data,
                msg_num,
                sent_at: t,
                upcalled: false,
                delivered: false,
            },
        );
        msg_id
    }

    /// Cycle `t`: `prev` is `O_(t-1)` (all zero for `t = 0`); writes the RMPP host inputs of
    /// `I_t`.
    pub fn step(&mut self, t: u64, prev: &[u64], inputs: &mut [u64]) {
        let lay = self.lay;
        let n = lay.nodes;
        let ro = |x: usize, p: usize| prev[lay.rx_output(x, p)];
        // Node p's word of a port is the port's word of node 0 plus p.
        let (snd_valid, up_valid, dlv_valid) = (
            lay.rx_output(rxo::SND_VALID, 0),
            lay.rx_output(rxo::UP_VALID, 0),
            lay.rx_output(rxo::DLV_VALID, 0),
        );
        let (up_ready, up_accept, dlv_ready) = (
            lay.rx_input(rxi::UP_READY, 0),
            lay.rx_input(rxi::UP_ACCEPT, 0),
            lay.rx_input(rxi::DLV_READY, 0),
        );
        let framer_words = lay.framer_input(framer::inp::TX_VALID, 0)
            ..lay.framer_input(framer::inp::WORDS - 1, 0) + 1;
        // Every host at rest at the last step (a message given since clears its mark), none
        // drawing a message, and no receive path showing a reply, upcall or delivery: each
        // finds itself at rest again, and a kept buffer holds what it would write.
        if self.kept && (self.q <= 0.0 || self.quiet) && self.all_rest {
            let shown = |w: usize| prev[w..w + n].iter().fold(0, |a, &x| a | x);
            if (shown(snd_valid) | shown(up_valid) | shown(dlv_valid)) & 1 == 0 {
                return;
            }
        }
        let mut all_rest = true;
        for p in 0..n {
            // New messages from the random source.
            // With no RMPP load no draw decides anything: skip them (the generator is this
            // traffic's own, so nothing else moves).
            if self.q > 0.0
                && !self.quiet
                && self.traffic.pattern.sends(p, n)
                && self.senders[p].queued() < 64
                // What `gen_bool(self.q)` draws.
                && self.rng.sample(self.sends)
            {
                let dst = self.traffic.pattern.destination(p, n, &mut self.rng);
                let len = self
                    .rng
                    .gen_range(self.traffic.min_len..=self.traffic.max_len);
                let data: Vec<u8> = (0..len).map(|_| self.rng.gen()).collect();
                self.send(t, p, dst, data);
            }
            // A host with nothing to send, frame, read or answer presents nothing but its
            // standing answers (what the rules below write for it).
            let shown = prev[snd_valid + p] | prev[up_valid + p] | prev[dlv_valid + p];
            if shown & 1 == 0
                && self.framing[p].is_none()
                && self.reading[p].is_none()
                && self.senders[p].idle()
                && !self.senders[p].has_completions()
            {
                // What `framer_inputs(None, ..)` and the answers below write for it.
                if !(self.kept && self.at_rest[p]) {
                    for word in framer_words.clone().step_by(n) {
                        inputs[word + p] = 0;
                    }
                    inputs[up_ready + p] = 0;
                    inputs[up_accept + p] = u32::MAX as u64;
                    inputs[dlv_ready + p] = 0;
                    self.at_rest[p] = true;
                }
                continue;
            }
            self.at_rest[p] = false;
            all_rest = false;
            // Replies for the send side.
            if ro(rxo::SND_VALID, p) & 1 == 1 {
                if let Some(ty) = Type::from_code(ro(rxo::SND_TYPE, p) as u32) {
                    self.senders[p].on_reply(
                        t,
                        ro(rxo::SND_PEER, p) as u16,
                        ty,
                        ro(rxo::SND_MSG_ID, p) as u32,
                        ro(rxo::SND_LEN, p) as u32,
                        ro(rxo::SND_SEQ, p) as u32,
                        ro(rxo::SND_INFO, p) as u32,
                        ro(rxo::SND_MSG_NUM, p) as u32,
                    );
                }
            }
            for c in self.senders[p].take_completions() {
                self.completion(t, p, c);
            }
            // The framer: the packet being streamed, or the next one once tx_ready shows.
            let ready = prev[lay.framer_output(framer::out::TX_READY, p)] & 1 == 1;
            // An idle sender has nothing to send whenever it is asked, and its timers catch
            // up with the time when it is next given a message (`Sender::send`).
            if self.framing[p].is_none() && ready && !self.senders[p].idle() {
                self.framing[p] = self.senders[p].next_packet(t).map(|packet| {
                    let beats = framer_beats(&packet);
                    (packet, beats)
                });
            }
            self.present(inputs, p, ready);
            // The upcall: accept everything, at once.
            let up = ro(rxo::UP_VALID, p) & 1 == 1;
            inputs[lay.rx_input(rxi::UP_READY, p)] = up as u64;
            inputs[lay.rx_input(rxi::UP_ACCEPT, p)] = u32::MAX as u64;
            if up {
                self.upcall(t, p, prev);
            }
            // Deliveries: read, then take.
            inputs[lay.rx_input(rxi::DLV_READY, p)] = 0;
            if self.reading[p].is_none() && ro(rxo::DLV_VALID, p) & 1 == 1 {
                let len = ro(rxo::DLV_LEN, p) as usize;
                let slot = ro(rxo::DLV_SLOT, p);
                let named = self.slot_messages[p].get(slot as usize).copied().flatten();
                let Some((src, msg_id)) = named else {
                    self.error(format!(
                        "cycle {t}: node {p} delivered slot {slot}, which no upcall named"
                    ));
                    continue;
                };
                self.reading[p] = Some(Reading {
                    slot,
                    src,
                    msg_id,
                    len,
                    issued: 0,
                    issued_now: false,
                    words: vec![],
                });
                self.shown(t - 1, p, src, msg_id);
            }
            let mut take = None;
            if let Some(r) = self.reading[p].as_mut() {
                inputs[lay.rx_input(rxi::RD_SLOT, p)] = r.slot;
                r.issued_now = (r.issued as usize) < r.len.div_ceil(4);
                if r.issued_now {
                    inputs[lay.rx_input(rxi::RD_WORD, p)] = r.issued;
                    r.issued += 1;
                } else {
                    inputs[lay.rx_input(rxi::DLV_READY, p)] = 1;
                    take = self.reading[p].take();
                }
            }
            if let Some(r) = take {
                if r.words.len() == r.issued as usize {
                    self.delivery(t, p, r);
                } else {
                    self.finishing[p] = Some((t, r));
                }
            }
        }
        self.all_rest = all_rest;
    }

    /// Collects the word addressed in cycle `t - 1`, shown in `O_t` (§11.6), and makes the
    /// deliveries whose last word that is.
    pub fn observe(&mut self, _t: u64, o: &[u64]) {
        // A host at rest reads nothing (its `reading` and `finishing` are empty).
        if self.all_rest {
            return;
        }
        let lay = self.lay;
        for (p, r) in self.reading.iter_mut().enumerate() {
            if let Some(r) = r {
                let shown = r.issued as usize - r.issued_now as usize;
                if r.words.len() < shown {
                    r.words.push(o[lay.rx_output(rxo::RD_DATA, p)] as u32);
                }
            }
        }
        for p in 0..self.finishing.len() {
            if self.finishing[p].is_none() {
                continue;
            }
            if let Some((taken, mut r)) = self.finishing[p].take() {
                r.words.push(o[lay.rx_output(rxo::RD_DATA, p)] as u32);
                self.delivery(taken, p, r);
            }
        }
    }

    /// Presents node `p`'s framer beat of this cycle, if a packet is streaming; `ready`
    /// (`tx_ready` in `O_(t-1)`) says the framer takes it now.
    fn present(&mut self, inputs: &mut [u64], p: usize, ready: bool) {
        let lay = self.lay;
        let beat = self.framing[p]
            .as_ref()
            .map(|(packet, beats)| (packet, beats.beat()));
        framer_inputs(beat, |word, value| {
            inputs[lay.framer_input(word, p)] = value
        });
        if ready
            && self.framing[p]
                .as_mut()
                .is_some_and(|(_, beats)| beats.taken())
        {
            self.framing[p] = None;
        }
    }

    fn upcall(&mut self, t: u64, q: usize, prev: &[u64]) {
        let lay = self.lay;
        let ro = |x: usize| prev[lay.rx_output(x, q)];
        let (src, msg_id, num) = (
            ro(rxo::UP_SRC) as u16,
            ro(rxo::UP_MSG_ID) as u32,
            ro(rxo::UP_MSG_NUM) as u32,
        );
        self.upcalls += 1;
        let slot = ro(rxo::UP_SLOT);
        match self.slot_messages[q].get_mut(slot as usize) {
            Some(named) => *named = Some((src, msg_id)),
            None => self.error(format!(
                "node {q}: upcall of slot {slot}, past the 16 slots"
            )),
        }
        let expected = self.next_upcall.entry((src, q as u16)).or_insert(1);
        let want = *expected;
        let Some(r) = self.recs.get_mut(&(src, msg_id)) else {
            return self.error(format!(
                "cycle {t}: node {q} upcalled message {msg_id:#x} from {src}, which no host sent or which completed"
            ));
        };
        if r.upcalled {
            self.duplicated += 1;
            return self.error(format!(
                "cycle {t}: node {q}: message {msg_id:#x} from {src} upcalled twice"
            ));
        }
        r.upcalled = true;
        if r.dst as usize != q || r.msg_num != num {
            let e = format!("cycle {t}: message {msg_id:#x} from {src} (msgNum {}) upcalled at node {q} with msgNum {num}", r.msg_num);
            return self.error(e);
        }
        if num != want {
            self.out_of_order += 1;
            return self.error(format!(
                "cycle {t}: node {q} upcalled msgNum {num} from {src} while {want} was next"
            ));
        }
        *self
            .next_upcall
            .get_mut(&(src, q as u16))
            .expect("inserted") = want + 1;
    }

    /// The delivery of (`src`, `msg_id`) first showed in `O_at`.
    fn shown(&mut self, at: u64, q: usize, src: u16, msg_id: u32) {
        let _ = q;
        if let Some(r) = self.recs.get(&(src, msg_id)) {
            self.latencies.record(at - r.sent_at);
        }
    }

    fn delivery(&mut self, t: u64, q: usize, d: Reading) {
        let data = ni::words_to_bytes(&d.words, d.len);
        let quiet = self.quiet;
        let Some(r) = self.recs.get_mut(&(d.src, d.msg_id)) else {
            return self.error(format!(
                "cycle {t}: node {q} delivered message {:#x} from {}, which no host sent or which completed",
                d.msg_id, d.src
            ));
        };
        if r.delivered {
            self.duplicated += 1;
            return self.error(format!(
                "cycle {t}: message {:#x} from {} delivered twice",
                d.msg_id, d.src
            ));
        }
        r.delivered = true;
        let ok = r.upcalled && r.dst as usize == q && r.data == data;
        let n = r.data.len();
        self.delivered += 1;
        if !quiet {
            self.payload_bytes += n as u64;
        }
        if !ok {
            self.error(format!(
                "cycle {t}: message {:#x} from {} delivered at {q} with {} bytes (sent {n} bytes); upcalled first: {}",
                d.msg_id, d.src, data.len(), self.recs[&(d.src, d.msg_id)].upcalled
            ));
        }
    }

    fn completion(&mut self, t: u64, p: usize, c: Completion) {
        let key = (p as u16, c.msg_id);
        let Some(r) = self.recs.get(&key) else {
            return self.error(format!(
                "cycle {t}: node {p} completed message {:#x} twice",
                c.msg_id
            ));
        };
        let want = r.data.len() as u32;
        match c.outcome {
            Outcome::End { accepted } if accepted == want && r.delivered => {
                self.recs.remove(&key);
                self.completed += 1;
            }
            o => self.error(format!(
                "cycle {t}: node {p}'s message {:#x} of {want} bytes completed as {o:?} (delivered: {})",
                c.msg_id, r.delivered
            )),
        }
    }
}
