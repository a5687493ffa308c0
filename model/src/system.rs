//! The system of docs/protocol.md §10: one node (§13) per node number on a k-ary n-tree fabric,
//! with a link-fault injector (§9) on every link.
//!
//! Block ports (as [`ModelBlock`], `clock` excluded): [`Layout::ports`], derived from the
//! blocks' port tables in `idemnet_spec` (the NI's, the RMPP receive path's and the framer's
//! host ports, each over all nodes, suffixed `$p`); [`Layout`] gives every port's flat-buffer
//! word.
//!
//! Timing: links are wires through the injectors, so in cycle `t` a switch input and a node's
//! `net_in` see the neighbour's output register of `O_(t-1)`, passed through its injector.

use crate::block::ModelBlock;
use crate::fabric::Fabric;
use crate::fault::{InjectorSet, LinkFault};
use crate::latency::{Latencies, LatencySummary};
use crate::ni::{self, NiConfig, COUNTERS};
use crate::node::Node;
use crate::ports::PortSpec;
use crate::rmpp::host::{MsgHosts, MsgTraffic, Pattern};
use crate::rmpp::rx;
use crate::rmpp::RmppConfig;
use crate::stream::Collect;
use crate::topology::FatTree;

pub use idemnet_spec::system::Layout;

/// The flat-buffer layout of the system on `tree`: its nodes, inter-switch links and switch drop
/// counters.
pub fn layout(tree: &FatTree) -> Layout {
    Layout::new(
        tree.nodes(),
        (tree.n - 1) * tree.per_level() * tree.k,
        tree.switches() * 2 * tree.k,
    )
}

/// The whole system.
#[derive(Clone, Debug)]
pub struct System {
    tree: FatTree,
    lay: Layout,
    fabric: Fabric,
    nodes: Vec<Node>,
    /// Injectors `2p` (node to fabric) and `2p + 1` (fabric to node).
    node_inj: InjectorSet,
    node_net_out: Vec<u64>,
    fabric_out: Vec<u64>,
    fabric_out_before: Vec<u64>,
    fabric_in: Vec<u64>,
    dead: Vec<bool>,
    /// The fault inputs (`loss`, `corrupt`, `dead$j`) the fabric was last given, once given.
    faults_in: Option<Vec<u64>>,
    /// `O_t`, the flat output buffer ([`Layout`]): the blocks write only the words that change
    /// (`crate::view::Outputs::kept`), so it is the system's own and outlives each step.
    shown: Vec<u64>,
}

impl System {
    /// Node `p` has `ni` and `rmpp` with `node = p`.
    pub fn new(tree: FatTree, ni: NiConfig, rmpp: RmppConfig) -> Result<System, String> {
        let lay = layout(&tree);
        let nodes = (0..lay.nodes)
            .map(|p| {
                let node = p as u16;
                Node::new(
                    NiConfig { node, ..ni },
                    RmppConfig {
                        node,
                        nodes: lay.nodes,
                        ..rmpp
                    },
                    lay,
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(System {
            tree,
            lay,
            fabric: Fabric::with_faults(tree),
            nodes,
            node_inj: InjectorSet::new(0, 2 * lay.nodes),
            node_net_out: vec![0; lay.nodes],
            fabric_out: vec![0; lay.nodes],
            fabric_out_before: vec![0; lay.nodes],
            fabric_in: vec![0; lay.nodes],
            dead: vec![false; lay.links],
            faults_in: None,
            shown: vec![0; lay.output_words()],
        })
    }

    /// Node `p`.
    pub fn node(&self, p: usize) -> &Node {
        &self.nodes[p]
    }

    pub fn layout(&self) -> Layout {
        self.lay
    }

    pub fn tree(&self) -> FatTree {
        self.tree
    }

    /// The flits of the last step's cycle at the fabric's edge, indexed by node: what entered
    /// the fabric (`node_in`, after the node links' injectors) and what the nodes were given
    /// (`node_out` of the cycle before, before the injectors). For studies of the fabric's
    /// discards (`examples/discards.rs`).
    pub fn links(&self) -> (&[u64], &[u64]) {
        (&self.fabric_in, &self.fabric_out_before)
    }

    /// Worms discarded by the switches since power-on.
    pub fn switch_drops(&self) -> u64 {
        self.fabric.total_drops()
    }
}

impl ModelBlock for System {
    fn ports(&self) -> Vec<PortSpec> {
        self.lay.ports()
    }

    fn step(&mut self, i: &[u64], o: &mut [u64]) {
        self.step_in_place(i);
        o.copy_from_slice(&self.shown);
    }
}

impl System {
    /// `O_t` as the last step left it (all zero before the first): what [`ModelBlock::step`]
    /// copies out, read here without the copy.
    pub fn outputs(&self) -> &[u64] {
        &self.shown
    }

    /// [`ModelBlock::step`] without the copy: apply `I_t`, take edge `t`, leave `O_t` in
    /// [`System::outputs`].
    pub fn step_in_place(&mut self, i: &[u64]) {
        let lay = self.lay;
        let o = &mut self.shown[..];
        let loss = i[Layout::LOSS] as u16;
        let corrupt = i[Layout::CORRUPT] as u16;
        // The fault inputs come first; the fabric keeps them until they change.
        let faults_in = &i[..lay.dead(lay.links)];
        if self.faults_in.as_deref() != Some(faults_in) {
            for (j, d) in self.dead.iter_mut().enumerate() {
                *d = i[lay.dead(j)] & 1 == 1;
            }
            self.fabric.set_faults(loss, corrupt, &self.dead);
            self.faults_in = Some(faults_in.to_vec());
        }
        // The wires of cycle t, from the registers of O_(t-1); a calm cycle's injectors pass
        // every flit as it is (`InjectorSet::calm`).
        let calm = self.node_inj.calm(loss, corrupt, false);
        let inj = &mut self.node_inj.inj;
        for p in 0..lay.nodes {
            let f = self.node_net_out[p];
            self.fabric_in[p] = if calm {
                LinkFault::pass_calm(f)
            } else {
                inj[2 * p].pass(f, loss, corrupt, false)
            };
        }
        // The fabric's outputs of cycle t - 1 go to the nodes; its outputs of cycle t are
        // written over the older buffer.
        std::mem::swap(&mut self.fabric_out, &mut self.fabric_out_before);
        self.fabric.step(&self.fabric_in, &mut self.fabric_out);
        for (p, &from_fabric) in self.fabric_out_before.iter().enumerate() {
            let net_in = if calm {
                LinkFault::pass_calm(from_fabric)
            } else {
                inj[2 * p + 1].pass(from_fabric, loss, corrupt, false)
            };
            self.node_net_out[p] = self.nodes[p].step(net_in, i, o);
        }
        // `o` keeps the counters the last step wrote (all zero before the first, as they are).
        if self.fabric.drops_moved() {
            let drops = self.fabric.drops();
            for (o, &d) in o[lay.drop(0)..][..drops.len()].iter_mut().zip(drops) {
                *o = d as u64;
            }
        }
    }
}

/// A datagram's payload, 0..=32 bytes held in place: a host draws, streams and checks one every
/// few cycles, and none of it allocates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Payload {
    len: u8,
    /// The bytes, zero past `len`.
    bytes: [u8; ni::MAX_PAYLOAD],
}

impl Payload {
    /// The payload bytes.
    pub fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The request's beats (§8.5): one per word, one for no bytes ([`crate::stream::beats`]).
    fn beats(&self) -> usize {
        crate::stream::beats(self.len())
    }

    /// Beat `k`'s word: bytes `4k..4k + 4`, byte `4k` in bits 31:24, zero past the payload
    /// (what [`crate::stream::beat_words`] makes of it).
    fn word(&self, k: usize) -> u32 {
        let b = &self.bytes[4 * k..4 * k + 4];
        u32::from_be_bytes([b[0], b[1], b[2], b[3]])
    }

    /// Whether a delivery of `len` bytes whose beats carried `words` brings these bytes: the
    /// first `len` bytes of `words` ([`ni::words_to_bytes`]) are the payload. Also returns
    /// how many bytes the delivery brings.
    fn delivered_as(&self, words: &[u32], len: usize) -> (bool, usize) {
        let got = words.iter().flat_map(|w| w.to_be_bytes()).take(len);
        let brought = len.min(4 * words.len());
        (self.as_slice().iter().copied().eq(got), brought)
    }
}

/// A request being streamed to the NI (§8.5): its destination, its payload, the next beat.
#[derive(Clone, Debug)]
struct Asking {
    dst: u16,
    payload: Payload,
    next: usize,
    /// The last step wrote the inputs of beat `next`, which a kept buffer still holds (a host
    /// waits on `req_ready` for many cycles when the NI's send slots are full).
    written: bool,
}

/// The bits of word `w` of a mask of `n` nodes that stand for nodes (bit `p % 64` of word
/// `p / 64` for node `p`).
fn node_bits(n: usize, w: usize) -> u64 {
    match n - 64 * w {
        left if left >= 64 => u64::MAX,
        left => (1 << left) - 1,
    }
}

/// The datagrams the hosts offer (§10), from one seeded generator: whether an idle host asks in
/// a cycle (probability `q = load / E[w + 3]`, `w` the payload words of a SEND worm of `w + 3`
/// flits), its destination by pattern, and its payload (0..=32 random bytes, or exactly
/// [`Offer::with_length`]'s). The idempotent hosts and the baselines (§15) both draw from it.
#[derive(Clone, Debug)]
pub struct Offer {
    rng: rand_chacha::ChaCha8Rng,
    load: f64,
    q: f64,
    /// `gen_bool(q)`'s distribution, made once (`gen_bool` makes it at every draw).
    asks: rand::distributions::Bernoulli,
    /// Every datagram's payload bytes; `None`: uniform in 0..=32.
    length: Option<usize>,
    pattern: Pattern,
}

impl Offer {
    /// `load` flits per sending node per cycle among `nodes`, destinations by `pattern`.
    pub fn new(nodes: usize, load: f64, pattern: Pattern, seed: u64) -> Result<Offer, String> {
        use rand::SeedableRng;
        if !(0.0..=1.0).contains(&load) {
            return Err(format!("load {load}: must be in 0..=1"));
        }
        pattern.check(nodes)?;
        let q = Offer::rate(load, None);
        Ok(Offer {
            rng: rand_chacha::ChaCha8Rng::seed_from_u64(seed),
            load,
            q,
            asks: Offer::asks(q),
            length: None,
            pattern,
        })
    }

    /// The draw of whether an idle host asks, with probability `q` (`q` is in 0..=1).
    fn asks(q: f64) -> rand::distributions::Bernoulli {
        rand::distributions::Bernoulli::new(q).expect("a probability")
    }

    /// The chance per cycle that an idle host asks: `load / E[w + 3]`, the SEND's flits.
    fn rate(load: f64, length: Option<usize>) -> f64 {
        let words = |l: usize| l.div_ceil(4) as f64;
        let mean_words = match length {
            Some(l) => words(l),
            // E[w] for 0..=32 bytes uniformly: the mean of ceil(len / 4).
            None => (0..=ni::MAX_PAYLOAD).map(words).sum::<f64>() / (ni::MAX_PAYLOAD + 1) as f64,
        };
        (load / (mean_words + ni::packet_flits(0) as f64)).min(1.0)
    }

    /// Every datagram `length` payload bytes (0..=32), the offered load in flits kept; `None`:
    /// uniform in 0..=32 (the default). A fixed length draws no length from the generator.
    pub fn with_length(mut self, length: Option<usize>) -> Result<Offer, String> {
        if let Some(l) = length.filter(|&l| l > ni::MAX_PAYLOAD) {
            return Err(format!(
                "datagram length {l}: a datagram carries 0..={} bytes",
                ni::MAX_PAYLOAD
            ));
        }
        self.length = length;
        self.q = Offer::rate(self.load, length);
        self.asks = Offer::asks(self.q);
        Ok(self)
    }

    /// The idle host of node `p` (of `nodes`) in this cycle: its destination and payload if it
    /// asks.
    #[inline]
    pub fn draw(&mut self, p: usize, nodes: usize) -> Option<(u16, Payload)> {
        use rand::Rng;
        // What `gen_bool(self.q)` draws.
        if !self.pattern.sends(p, nodes) || !self.rng.sample(self.asks) {
            return None;
        }
        Some(self.datagram(p, nodes))
    }

    /// The destination and payload of the datagram host `p` asks to send.
    fn datagram(&mut self, p: usize, nodes: usize) -> (u16, Payload) {
        use rand::Rng;
        let dst = self.pattern.destination(p, nodes, &mut self.rng);
        let len = match self.length {
            Some(l) => l,
            None => self.rng.gen_range(0..=ni::MAX_PAYLOAD),
        };
        let mut payload = Payload {
            len: len as u8,
            bytes: [0; ni::MAX_PAYLOAD],
        };
        // One draw per byte, in order.
        for b in &mut payload.bytes[..len] {
            *b = self.rng.gen();
        }
        (dst, payload)
    }
}

/// The hosts of every node and the end-to-end scoreboard (§10).
///
/// Each host asks to send a datagram with probability `q` per cycle when it is not already
/// asking, to a destination drawn uniformly from the other nodes, with 0..=32 random payload
/// bytes (or exactly `B`: [`Hosts::with_length`]), and streams it to its NI (§8.5): each beat is presented until taken, so with
/// `req_ready` high they go in consecutive cycles. Every host always takes deliveries
/// (`dlv_ready` high) and reads a datagram's beats up to its last. `load` is the offered SEND
/// traffic in flits per node per cycle (a SEND worm of `w` payload words is `w + 3` flits), so
/// `q = load / E[w + 3]`. The scoreboard learns each datagram's uid when the NI takes its last
/// beat (the NI numbers them in that order) and checks every delivery: a datagram it knows, to
/// the right node, from the right node, with the right payload, and never twice. After a drain,
/// a datagram taken but not delivered is lost.
pub struct Hosts {
    offer: Offer,
    lay: Layout,
    /// Per node: the request being streamed.
    asking: Vec<Option<Asking>>,
    /// Per node: the delivery being read.
    reading: Vec<Collect>,
    next_uid: Vec<u16>,
    /// The input buffer given to [`Hosts::step`] keeps what the last step wrote there
    /// ([`Hosts::with_inputs_kept`]).
    kept: bool,
    /// Bit `p % 64` of word `p / 64` set where `asking[p]` is.
    asking_bits: Vec<u64>,
    /// The same bits set where the last step wrote the inputs of a host not asking, which a
    /// kept buffer still holds.
    at_rest_bits: Vec<u64>,
    /// uid -> (destination, payload, cycle taken, delivered)
    outstanding: crate::hash::FastMap<u32, (u16, Payload, u64, bool)>,
    /// Stop asking (the drain).
    pub quiet: bool,
    pub accepted: u64,
    pub delivered: u64,
    pub completed: u64,
    pub errors: u64,
    pub first_error: Option<String>,
    /// Cycles from a datagram's acceptance to its first beat showing at the destination.
    pub latencies: Latencies,
    /// Payload bytes delivered while the hosts were asking (before the drain), counted as the
    /// sending host asked (not the padded words on the wire).
    pub payload_bytes: u64,
}

impl Hosts {
    /// Datagrams to uniformly drawn destinations.
    pub fn new(tree: &FatTree, load: f64, seed: u64) -> Result<Hosts, String> {
        Hosts::with_pattern(tree, load, Pattern::Uniform, seed)
    }

    /// Datagrams whose destinations follow `pattern`; `load` is per sending node.
    pub fn with_pattern(
        tree: &FatTree,
        load: f64,
        pattern: Pattern,
        seed: u64,
    ) -> Result<Hosts, String> {
        let lay = layout(tree);
        Ok(Hosts {
            offer: Offer::new(lay.nodes, load, pattern, seed)?,
            lay,
            asking: vec![None; lay.nodes],
            reading: vec![Collect::default(); lay.nodes],
            next_uid: vec![0; lay.nodes],
            kept: false,
            asking_bits: vec![0; lay.nodes.div_ceil(64)],
            at_rest_bits: vec![0; lay.nodes.div_ceil(64)],
            outstanding: Default::default(),
            quiet: false,
            accepted: 0,
            delivered: 0,
            completed: 0,
            errors: 0,
            first_error: None,
            latencies: Latencies::default(),
            payload_bytes: 0,
        })
    }

    /// Every datagram `length` payload bytes ([`Offer::with_length`]).
    pub fn with_length(mut self, length: Option<usize>) -> Result<Hosts, String> {
        self.offer = self.offer.with_length(length)?;
        Ok(self)
    }

    /// Hosts whose [`Hosts::step`] is given, every cycle, an input buffer that still holds what
    /// the last step wrote there (nothing else writes their words): a host not asking then
    /// writes nothing, its inputs being those it wrote at the last step.
    pub fn with_inputs_kept(mut self) -> Hosts {
        self.kept = true;
        self
    }

    fn error(&mut self, e: String) {
        self.errors += 1;
        self.first_error.get_or_insert(e);
    }

    /// Datagrams accepted and not yet both delivered and completed.
    pub fn in_flight(&self) -> usize {
        self.outstanding.len()
    }

    /// Datagrams accepted but never delivered.
    pub fn lost(&self) -> usize {
        self.outstanding.values().filter(|v| !v.3).count()
    }

    /// (source, destination) of each datagram accepted but never delivered.
    pub fn lost_pairs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.outstanding
            .iter()
            .filter(|(_, v)| !v.3)
            .map(|(uid, v)| ((uid >> 16) as usize, v.0 as usize))
    }

    /// Cycle `t`: `prev` is `O_(t-1)` (all zero for `t = 0`); writes the host inputs of `I_t`.
    pub fn step(&mut self, t: u64, prev: &[u64], inputs: &mut [u64]) {
        let lay = self.lay;
        let n = lay.nodes;
        // Node p's word of a port is the port's word of node 0 plus p.
        let input = |word| lay.ni_input(word, 0);
        let (valid, data, last) = (
            input(ni::inp::REQ_VALID),
            input(ni::inp::REQ_DATA),
            input(ni::inp::REQ_LAST),
        );
        let (dst_word, len_word) = (input(ni::inp::REQ_DST), input(ni::inp::REQ_LEN));
        let dlv_ready = input(ni::inp::DLV_READY);
        let req_ready = lay.ni_output(ni::out::REQ_READY, 0);
        // The hosts by the masks of those asking, word by word (a branch per host on whether
        // it asks would guess wrong as often as the traffic changes it): first the draws of
        // the hosts not asking, in node order (the generator's order), then each host's
        // inputs. Only a draw reads the generator, and a host's draw and inputs are its own.
        for w in 0..self.asking_bits.len() {
            let all = node_bits(n, w);
            if !self.quiet {
                let mut idle = !self.asking_bits[w] & all;
                while idle != 0 {
                    let p = 64 * w + idle.trailing_zeros() as usize;
                    idle &= idle - 1;
                    if let Some((dst, payload)) = self.offer.draw(p, n) {
                        self.asking[p] = Some(Asking {
                            dst,
                            payload,
                            next: 0,
                            written: false,
                        });
                        self.asking_bits[w] |= 1 << (p % 64);
                    }
                }
            } else {
                // The drain stops new requests; one already streaming goes on to its last beat.
                let mut asking = self.asking_bits[w];
                while asking != 0 {
                    let p = 64 * w + asking.trailing_zeros() as usize;
                    asking &= asking - 1;
                    if self.asking[p].as_ref().is_some_and(|a| a.next == 0) {
                        self.asking[p] = None;
                        self.asking_bits[w] &= !(1 << (p % 64));
                    }
                }
            }
            let asking = self.asking_bits[w];
            // A host not asking writes nothing but dlv_ready, once in a kept buffer.
            let mut unwritten = !asking & all;
            if self.kept {
                unwritten &= !self.at_rest_bits[w];
            }
            while unwritten != 0 {
                let p = 64 * w + unwritten.trailing_zeros() as usize;
                unwritten &= unwritten - 1;
                for word in [valid, data, last, dst_word, len_word] {
                    inputs[word + p] = 0;
                }
                inputs[dlv_ready + p] = 1;
            }
            self.at_rest_bits[w] = !asking & all;
            let mut m = asking;
            while m != 0 {
                let p = 64 * w + m.trailing_zeros() as usize;
                m &= m - 1;
                let ready = prev[req_ready + p] & 1 == 1;
                let Some(a) = self.asking[p].as_mut() else {
                    unreachable!("the mask says host {p} asks");
                };
                let beats = a.payload.beats();
                if !(self.kept && a.written) {
                    inputs[valid + p] = 1;
                    inputs[data + p] = a.payload.word(a.next) as u64;
                    inputs[last + p] = (a.next + 1 >= beats) as u64;
                    inputs[dst_word + p] = a.dst as u64;
                    inputs[len_word + p] = a.payload.len() as u64;
                    inputs[dlv_ready + p] = 1;
                    a.written = true;
                }
                // req_ready in O_(t-1) says this beat is taken now.
                if ready {
                    a.next += 1;
                    a.written = false;
                    if a.next >= beats {
                        let dst = a.dst;
                        let payload = a.payload;
                        self.asking[p] = None;
                        self.asking_bits[w] &= !(1 << (p % 64));
                        let uid = (p as u32) << 16 | self.next_uid[p] as u32;
                        self.next_uid[p] = self.next_uid[p].wrapping_add(1);
                        self.outstanding.insert(uid, (dst, payload, t, false));
                        self.accepted += 1;
                    }
                }
            }
        }
    }

    /// Reads the delivery beats and the completions shown in `O_t` (every beat shown is taken
    /// in cycle `t + 1`: the hosts keep `dlv_ready` high).
    pub fn observe(&mut self, t: u64, o: &[u64]) {
        let lay = self.lay;
        let (dlv_valid, done_valid) = (
            lay.ni_output(ni::out::DLV_VALID, 0),
            lay.ni_output(ni::out::DONE_VALID, 0),
        );
        let n = lay.nodes;
        // The nodes showing a beat or a completion, as a mask made without a branch per node,
        // 64 at a time; then those alone, in node order.
        let dlv = o[dlv_valid..dlv_valid + n].chunks(64);
        let done = o[done_valid..done_valid + n].chunks(64);
        for (w, (dlv, done)) in dlv.zip(done).enumerate() {
            let mut showing = dlv
                .iter()
                .zip(done)
                .enumerate()
                .fold(0u64, |m, (b, (&d, &c))| m | ((d | c) & 1) << b);
            while showing != 0 {
                let q = 64 * w + showing.trailing_zeros() as usize;
                showing &= showing - 1;
                self.observe_node(t, o, q);
            }
        }
    }

    /// [`Hosts::observe`] of node `q`, which shows a delivery beat or a completion.
    fn observe_node(&mut self, t: u64, o: &[u64], q: usize) {
        let lay = self.lay;
        let shown = |word| o[lay.ni_output(word, q)];
        if shown(ni::out::DLV_VALID) & 1 == 1 {
            let data = shown(ni::out::DLV_DATA) as u32;
            let last = shown(ni::out::DLV_LAST) & 1 == 1;
            if let Some((words, first)) = self.reading[q].beat_in_place(t, data, last) {
                let uid = shown(ni::out::DLV_UID) as u32;
                let src = shown(ni::out::DLV_SRC) as u16;
                let len = (shown(ni::out::DLV_LEN) & 0x3F) as usize;
                // The payload compared in place, without copying the words out.
                let sent = self.outstanding.get(&uid);
                let data = sent.map_or((false, 0), |e| e.1.delivered_as(words, len));
                self.delivery(t, q, first, src, uid, data);
            }
        }
        if shown(ni::out::DONE_VALID) & 1 == 1 {
            let uid = shown(ni::out::DONE_UID) as u32;
            match self.outstanding.get(&uid) {
                Some(e) if e.3 => {
                    self.outstanding.remove(&uid);
                    self.completed += 1;
                }
                _ => self.error(format!(
                    "cycle {t}: node {q} completed uid {uid:#x}, which was never delivered"
                )),
            }
        }
    }

    /// Node `q` took the last beat of datagram `uid` from `src` in cycle `t + 1`, its first beat
    /// shown in `O_first`; `data` says, for a datagram sent, whether it brought the payload
    /// sent and how many bytes it brought ([`Payload::delivered_as`]).
    fn delivery(
        &mut self,
        t: u64,
        q: usize,
        first: u64,
        src: u16,
        uid: u32,
        (right, brought): (bool, usize),
    ) {
        match self.outstanding.get_mut(&uid) {
            None => self.error(format!(
                "cycle {t}: node {q} got uid {uid:#x}, which no host sent or which completed already"
            )),
            Some(e) if e.3 => {
                self.error(format!("cycle {t}: node {q} got uid {uid:#x} twice"));
            }
            Some(e) => {
                e.3 = true;
                let (dst, wanted, at) = (e.0, e.1.len(), e.2);
                self.delivered += 1;
                if !self.quiet {
                    self.payload_bytes += wanted as u64;
                }
                self.latencies.record(first - at);
                if dst as usize != q || src as u32 != uid >> 16 || !right {
                    self.error(format!(
                        "cycle {t}: uid {uid:#x} delivered to {q} from {src} with {brought} bytes; sent to {dst} with {wanted} bytes",
                    ));
                }
            }
        }
    }
}

/// Two protocols' figures as the rows of a table: a name and each protocol's value.
pub fn figure_rows(h: &ProtocolFigures, m: &ProtocolFigures) -> Vec<[String; 3]> {
    let lat = |l: Option<LatencySummary>| match l {
        Some(l) => format!("{} / {} / {}", l.min, l.p50, l.p99),
        None => "-".into(),
    };
    let n = |x: u64| x.to_string();
    let maybe = |x: Option<u64>| x.map_or("-".into(), |x| x.to_string());
    let row = |name: &str, a: String, b: String| [name.to_string(), a, b];
    let both = |name: &str, g: &dyn Fn(&ProtocolFigures) -> String| row(name, g(h), g(m));
    vec![
        both("sent (datagrams / messages)", &|p| n(p.sent)),
        both("delivered", &|p| n(p.delivered)),
        both("completed at the sender", &|p| n(p.completed)),
        both("lost", &|p| n(p.lost)),
        both("duplicated", &|p| n(p.duplicated)),
        both("out of order (per pair)", &|p| maybe(p.out_of_order)),
        both("scoreboard errors", &|p| n(p.scoreboard_errors)),
        both("duplicates suppressed", &|p| n(p.duplicates_suppressed)),
        both("retransmissions (SEND / RTS)", &|p| n(p.retransmissions)),
        both("whole-message restarts", &|p| {
            maybe(p.whole_message_restarts)
        }),
        both("resumes from a missing packet", &|p| maybe(p.resumes)),
        both("worms discarded by the receivers", &|p| n(p.receiver_drops)),
        both("payload bytes delivered / node / cycle", &|p| {
            format!("{:.4}", p.payload_bytes_per_node_cycle)
        }),
        both("latency min / median / p99 (cycles)", &|p| lat(p.latency)),
    ]
}

/// The figures of one protocol in a system run (`SystemHosts::summary`).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ProtocolFigures {
    /// Datagrams accepted by the NIs, or messages the hosts sent.
    pub sent: u64,
    pub delivered: u64,
    pub completed: u64,
    /// Sent and never delivered, after the drain.
    pub lost: u64,
    pub duplicated: u64,
    /// Messages delivered out of their pair's order (RMPP only: datagrams promise no order).
    pub out_of_order: Option<u64>,
    pub scoreboard_errors: u64,
    /// Duplicates the receivers caught and did not deliver again.
    pub duplicates_suppressed: u64,
    /// Repeated SENDs (idempotent) or RTSs (RMPP).
    pub retransmissions: u64,
    /// RMPP only: the sender's data timeouts, each restarting its message at packet 1.
    pub whole_message_restarts: Option<u64>,
    /// RMPP only: CTSs naming a packet already sent, which the sender sends again from there
    /// (docs/protocol.md §12).
    pub resumes: Option<u64>,
    /// Worms the receivers discarded (CRC, framing, routing, table full, busy, ...).
    pub receiver_drops: u64,
    /// Payload bytes delivered before the drain, and per node per cycle of traffic.
    pub payload_bytes: u64,
    pub payload_bytes_per_node_cycle: f64,
    /// From send (or acceptance) to the delivery's first beat, in cycles.
    pub latency: Option<LatencySummary>,
}

/// Both protocols' figures of a system run.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RunFigures {
    pub idempotent: ProtocolFigures,
    pub rmpp: ProtocolFigures,
}

/// Both protocols' hosts of every node: the idempotent [`Hosts`] and the RMPP [`MsgHosts`].
pub struct SystemHosts {
    pub idem: Hosts,
    pub rmpp: MsgHosts,
    lay: Layout,
    /// Every node's NI counters (`ni::COUNTERS`) and receive-path counters (`rmpp::COUNTERS`)
    /// as the last `O_t` showed them, and as they were when last summed into `totals`.
    counters: Counters,
    /// The first cycle of the drain (the first with the hosts quiet), once it has begun.
    drain_start: Option<u64>,
    /// The last cycle observed.
    last_cycle: u64,
    /// The last cycle in which a datagram or message was delivered or completed: the verdict
    /// tells a backlog still draining from a system that stopped (docs/protocol.md §10).
    last_progress: Option<u64>,
}

impl SystemHosts {
    /// Idempotent datagrams at `idem_load` to uniform destinations and RMPP messages as
    /// `rmpp`, from one `seed`.
    pub fn new(
        tree: &FatTree,
        idem_load: f64,
        rmpp: MsgTraffic,
        seed: u64,
    ) -> Result<SystemHosts, String> {
        SystemHosts::with_pattern(tree, idem_load, Pattern::Uniform, rmpp, seed)
    }

    /// As [`SystemHosts::new`], the datagrams' destinations following `idem_pattern`.
    pub fn with_pattern(
        tree: &FatTree,
        idem_load: f64,
        idem_pattern: Pattern,
        rmpp: MsgTraffic,
        seed: u64,
    ) -> Result<SystemHosts, String> {
        let lay = layout(tree);
        Ok(SystemHosts {
            idem: Hosts::with_pattern(tree, idem_load, idem_pattern, seed)?,
            rmpp: MsgHosts::new(lay, rmpp, seed)?,
            lay,
            counters: Counters::new(lay),
            drain_start: None,
            last_cycle: 0,
            last_progress: None,
        })
    }

    /// Hosts given an input buffer that keeps what their last step wrote
    /// ([`Hosts::with_inputs_kept`], [`MsgHosts::with_inputs_kept`]), as [`run_with_hosts`]
    /// gives them.
    pub fn with_inputs_kept(mut self) -> SystemHosts {
        self.idem = self.idem.with_inputs_kept();
        self.rmpp = self.rmpp.with_inputs_kept();
        self
    }

    /// Every datagram `length` payload bytes ([`Hosts::with_length`]).
    pub fn with_dgram_len(mut self, length: Option<usize>) -> Result<SystemHosts, String> {
        self.idem = self.idem.with_length(length)?;
        Ok(self)
    }

    /// Cycle `t`: `prev` is `O_(t-1)`; writes every host input of `I_t`.
    pub fn step(&mut self, t: u64, prev: &[u64], inputs: &mut [u64]) {
        if self.idem.quiet && self.drain_start.is_none() {
            self.drain_start = Some(t);
        }
        let before = self.done();
        self.idem.step(t, prev, inputs);
        self.rmpp.step(t, prev, inputs);
        self.progress(t, before);
    }

    /// Deliveries and completions so far, of both protocols (the hosts see some in `step` and
    /// some in `observe`).
    fn done(&self) -> u64 {
        self.idem.delivered + self.idem.completed + self.rmpp.delivered + self.rmpp.completed
    }

    fn progress(&mut self, t: u64, before: u64) {
        if self.done() != before {
            self.last_progress = Some(t);
        }
        self.last_cycle = t;
    }

    /// Checks what `O_t` shows.
    pub fn observe(&mut self, t: u64, o: &[u64]) {
        let before = self.done();
        self.idem.observe(t, o);
        self.rmpp.observe(t, o);
        self.progress(t, before);
        self.counters.observe(o);
    }

    /// Increments of every node's NI counters (`ni::COUNTERS`), summed over the nodes.
    pub fn ni_totals(&self) -> [u64; COUNTERS.len()] {
        let mut totals = [0; COUNTERS.len()];
        self.counters.totals(0, &mut totals);
        totals
    }

    /// Increments of every node's receive-path counters (`rmpp::COUNTERS`), summed over the
    /// nodes.
    pub fn rx_totals(&self) -> [u64; crate::rmpp::COUNTERS.len()] {
        let mut totals = [0; crate::rmpp::COUNTERS.len()];
        self.counters.totals(COUNTERS.len(), &mut totals);
        totals
    }

    /// Scoreboard errors plus datagrams and messages lost.
    pub fn failures(&self) -> u64 {
        self.errors() + self.idem.lost() as u64 + self.rmpp.lost() as u64
    }

    /// The figures of a run of `cycles` cycles (before the drain), per protocol.
    pub fn summary(&self, cycles: u64) -> RunFigures {
        let (h, m) = (&self.idem, &self.rmpp);
        let per = |bytes: u64| bytes as f64 / (cycles.max(1) as f64 * self.lay.nodes as f64);
        let stats = m.senders.iter().map(|s| s.stats()).fold((0, 0, 0), |a, s| {
            (a.0 + s.rts_resends, a.1 + s.restarts, a.2 + s.resumes)
        });
        let (ni_totals, rx_totals) = (self.ni_totals(), self.rx_totals());
        let ni_drops: u64 = ni_totals[..ni::cnt::DUPLICATE].iter().sum();
        let rx_drops: u64 = rx_totals[..crate::rmpp::cnt::DUPLICATE].iter().sum::<u64>()
            + rx_totals[crate::rmpp::cnt::BUSY];
        RunFigures {
            idempotent: ProtocolFigures {
                sent: h.accepted,
                delivered: h.delivered,
                completed: h.completed,
                lost: h.lost() as u64,
                duplicated: 0,
                out_of_order: None,
                scoreboard_errors: h.errors,
                duplicates_suppressed: ni_totals[ni::cnt::DUPLICATE],
                retransmissions: ni_totals[ni::cnt::RETRANSMIT],
                whole_message_restarts: None,
                resumes: None,
                receiver_drops: ni_drops,
                payload_bytes: h.payload_bytes,
                payload_bytes_per_node_cycle: per(h.payload_bytes),
                latency: h.latencies.summary(),
            },
            rmpp: ProtocolFigures {
                sent: m.sent,
                delivered: m.delivered,
                completed: m.completed,
                lost: m.lost() as u64,
                duplicated: m.duplicated,
                out_of_order: Some(m.out_of_order),
                scoreboard_errors: m.errors,
                duplicates_suppressed: rx_totals[crate::rmpp::cnt::DUPLICATE],
                retransmissions: stats.0,
                whole_message_restarts: Some(stats.1),
                resumes: Some(stats.2),
                receiver_drops: rx_drops,
                payload_bytes: m.payload_bytes,
                payload_bytes_per_node_cycle: per(m.payload_bytes),
                latency: m.latencies.summary(),
            },
        }
    }

    /// The figures of a run of `cycles` cycles (before the drain), one row per measure:
    /// name, idempotent, RMPP ("-" where a protocol has no such figure).
    pub fn figures(&self, cycles: u64) -> Vec<[String; 3]> {
        let f = self.summary(cycles);
        figure_rows(&f.idempotent, &f.rmpp)
    }

    /// Stop offering new traffic (the drain).
    pub fn set_quiet(&mut self, quiet: bool) {
        self.idem.quiet = quiet;
        self.rmpp.quiet = quiet;
    }

    /// Datagrams and messages not yet completed.
    pub fn in_flight(&self) -> usize {
        self.idem.in_flight() + self.rmpp.in_flight()
    }

    pub fn errors(&self) -> u64 {
        self.idem.errors + self.rmpp.errors
    }

    pub fn first_error(&self) -> Option<&String> {
        self.idem
            .first_error
            .as_ref()
            .or(self.rmpp.first_error.as_ref())
    }

    /// The verdict of a run with `faults` on `tree`, `None` when it passed: the first scoreboard
    /// error, or what was lost after the drain and why. A datagram or message between two nodes
    /// the dead links disconnect cannot arrive (a limit of the topology); RMPP messages still
    /// in flight at a flit loss of [`RMPP_LOSS_LIMIT`] or more are the protocol's documented
    /// limit (docs/protocol.md §12, "Where RMPP stops finishing"); anything else lost is a
    /// defect, and said to be one, when nothing was delivered or completed in the drain's last
    /// quarter and the faults let enough worms through in that quarter that a working system
    /// would have (§10, "The verdict": [`CHANNEL_ARRIVALS`]); if something was, the drain ended
    /// on a backlog, and if the faults did not, the channel may explain it: the verdict says
    /// which instead. `ni` is the NIs' configuration (their repeat intervals).
    pub fn verdict(
        &self,
        tree: &FatTree,
        faults: &crate::fault::Faults,
        ni: &NiConfig,
    ) -> Option<String> {
        if let Some(e) = self.first_error() {
            return Some(e.clone());
        }
        if self.failures() == 0 {
            return None;
        }
        let reach = crate::Reachability::new(tree, &faults.dead);
        let unreachable = |(p, q): (usize, usize)| !reach.reaches(p, q);
        let (idem, rmpp) = (self.idem.lost(), self.rmpp.lost());
        let idem_cut = self.idem.lost_pairs().filter(|&x| unreachable(x)).count();
        let rmpp_cut = self.rmpp.lost_pairs().filter(|&x| unreachable(x)).count();
        let mut v = format!("{idem} datagrams and {rmpp} messages lost after the drain");
        if let Some(cut) = reach.describe() {
            v += &format!(
                "; {cut}: {idem_cut} of the datagrams and {rmpp_cut} of the messages are \
                 between such nodes and cannot arrive (a limit of the topology)"
            );
        }
        let rmpp_left = rmpp - rmpp_cut;
        // The limit is the in-order receiver's; a selective one (§11.7) has not been shown to
        // have one, so what it leaves is judged by the drain like the datagrams.
        let damage = faults.damage();
        let rmpp_limit =
            rmpp_left > 0 && damage >= u32::from(RMPP_LOSS_LIMIT) && !self.rmpp.selective();
        if rmpp_limit {
            v += &format!(
                "; RMPP takes a message's packets in order only, going back to each lost one, \
                 and at a flit loss of {:.4} (lost or corrupted; at least {:.4}) it does not \
                 finish within the drain: a documented limit of the protocol (docs/protocol.md \
                 §12), not a defect",
                f64::from(damage) / 65536.0,
                f64::from(RMPP_LOSS_LIMIT) / 65536.0
            );
        }
        let rmpp_judged = if rmpp_limit { 0 } else { rmpp_left };
        let left = (idem - idem_cut) + rmpp_judged;
        if left > 0 {
            v += &match self.draining() {
                Drain::Stopped { window } => {
                    let chance = ChannelChance::new(tree, faults, ni, self.rmpp.send_config());
                    let expected = chance.datagram_arrivals(window) * (idem - idem_cut) as f64
                        + chance.message_arrivals(window) * rmpp_judged as f64;
                    if expected >= CHANNEL_ARRIVALS {
                        format!(
                            "; {left} of them between connected nodes below the protocols' \
                             limits, and nothing was delivered or completed in the drain's last \
                             {window} cycles: a defect"
                        )
                    } else {
                        format!(
                            "; {left} of them between connected nodes below the protocols' \
                             limits, and nothing was delivered or completed in the drain's last \
                             {window} cycles, but a working system would have got only about \
                             {expected:.2} worms of them through in that time ({}): too few to \
                             tell a defect from the faults and a short drain, not shown to be a \
                             defect (a longer --drain tells)",
                            chance.describe(idem > idem_cut, rmpp_judged > 0),
                        )
                    }
                }
                Drain::StillCompleting { last, drain } => format!(
                    "; {left} of them between connected nodes below the protocols' limits, but \
                     the system was still delivering or completing when the drain of {drain} \
                     cycles ended (the last at cycle {last}, in its last quarter): a backlog the \
                     drain was too short to clear, not shown to be a defect (a longer --drain \
                     tells)"
                ),
                Drain::None => format!(
                    "; {left} of them between connected nodes below the protocols' limits, with \
                     no drain (--drain 0) to tell a backlog from a defect"
                ),
            };
        }
        Some(v)
    }

    /// Whether the drain ended on a system still making progress: a delivery or completion in
    /// the drain's last quarter.
    fn draining(&self) -> Drain {
        let end = self.last_cycle + 1;
        let start = self.drain_start.unwrap_or(end).min(end);
        let drain = end - start;
        let window = drain.div_ceil(4);
        match self.last_progress {
            Some(last) if last >= end - window && window > 0 => {
                Drain::StillCompleting { last, drain }
            }
            _ if drain == 0 => Drain::None,
            _ => Drain::Stopped { window },
        }
    }
}

/// The NIs' and the receive paths' 16-bit counters of every node, summed over the nodes
/// without their wrapping: a copy of their words each cycle, summed into the totals every
/// [`Counters::FOLD`] cycles, far fewer than a counter needs to wrap (it counts at most a few
/// events an edge).
struct Counters {
    lay: Layout,
    /// The counters' words of the last `O_t`: the NIs' (counter `c` of every node, then
    /// counter `c + 1`), then the receive paths'.
    now: Vec<u64>,
    /// The same words when last folded into `totals`.
    folded: Vec<u64>,
    /// Per counter (the NIs', then the receive paths'): increments up to `folded`.
    totals: Vec<u64>,
    /// Cycles observed since the last fold.
    since: u64,
    /// Copy the counters' words only at a fold, and when [`Counters::settle`] is called at the
    /// end of a run ([`run_with_hosts`]): `now` is only read after the last copy.
    lazy: bool,
}

impl Counters {
    const FOLD: u64 = 1024;
    const NI: usize = COUNTERS.len();
    const RX: usize = crate::rmpp::COUNTERS.len();

    fn new(lay: Layout) -> Counters {
        let words = (Self::NI + Self::RX) * lay.nodes;
        Counters {
            lay,
            now: vec![0; words],
            folded: vec![0; words],
            totals: vec![0; Self::NI + Self::RX],
            since: 0,
            lazy: false,
        }
    }

    /// Copies the counters' words of `o` into `now`.
    fn settle(&mut self, o: &[u64]) {
        let (lay, n) = (self.lay, self.lay.nodes);
        let ni = lay.ni_output(ni::out::COUNTERS, 0);
        let rx = lay.rx_output(rx::out::COUNTERS, 0);
        let (ni_now, rx_now) = self.now.split_at_mut(Self::NI * n);
        ni_now.copy_from_slice(&o[ni..ni + Self::NI * n]);
        rx_now.copy_from_slice(&o[rx..rx + Self::RX * n]);
    }

    fn observe(&mut self, o: &[u64]) {
        self.since += 1;
        if !self.lazy || self.since == Self::FOLD {
            self.settle(o);
        }
        if self.since == Self::FOLD {
            for c in 0..self.totals.len() {
                self.totals[c] += self.increments(c);
            }
            self.folded.copy_from_slice(&self.now);
            self.since = 0;
        }
    }

    /// Counter `c`'s increments since the last fold, summed over the nodes.
    fn increments(&self, c: usize) -> u64 {
        let n = self.lay.nodes;
        let words = c * n..(c + 1) * n;
        let pairs = self.now[words.clone()].iter().zip(&self.folded[words]);
        pairs.map(|(x, f)| x.wrapping_sub(*f) & 0xFFFF).sum()
    }

    /// Fills `into` with the totals of counters `first..first + into.len()`.
    fn totals(&self, first: usize, into: &mut [u64]) {
        for (k, total) in into.iter_mut().enumerate() {
            *total = self.totals[first + k] + self.increments(first + k);
        }
    }
}

/// How a drain that left something undelivered ended.
enum Drain {
    /// Nothing delivered or completed in the drain's last `window` cycles.
    Stopped { window: u64 },
    /// The last delivery or completion, at cycle `last`, fell in the last quarter of a drain of
    /// `drain` cycles.
    StillCompleting { last: u64, drain: u64 },
    /// There was no drain (`--drain 0`): nothing can be told.
    None,
}

/// The worms that must have been expected to get through, whole, in the drain's last quarter
/// before a run that delivered and completed nothing there is called a defect: a working
/// system shows nothing in that time with probability about `e^-14` (under 10^-6).
pub const CHANNEL_ARRIVALS: f64 = 14.0;

/// What the faults let through (docs/protocol.md §10, "The verdict"): each flit of a worm
/// crosses each link it takes whole with probability `1 - damage`, `damage` the injectors'
/// loss and corruption together, and a worm arrives only whole (a corrupted flit fails its
/// CRC). Counted on the longest path (`2n` links) for each protocol's longest worm, sent again
/// at its slowest repeat: a lower bound on what a working system would have got through.
struct ChannelChance {
    damage: f64,
    links: usize,
    /// The datagram's SEND of 32 bytes, and the longest gap between two of its SENDs.
    send_flits: usize,
    /// (at least 1: `retry_interval` is, `NiConfig::validate`)
    send_gap: u64,
    /// RMPP's data worm of one `mtu`, and the sender's backstop timeout.
    data_flits: usize,
    data_gap: u64,
}

impl ChannelChance {
    fn new(
        tree: &FatTree,
        faults: &crate::fault::Faults,
        ni: &NiConfig,
        send: &crate::rmpp::send::SendConfig,
    ) -> ChannelChance {
        ChannelChance {
            damage: (f64::from(faults.damage()) / 65536.0).min(1.0),
            links: 2 * tree.n,
            send_flits: ni::packet_flits(ni::PAYLOAD_WORDS),
            // §8.5: `retry_interval - retry_spread / 2 + r`, `r < retry_spread`, and a wait
            // for the transmitter on top; twice the spread bounds both.
            send_gap: u64::from(ni.retry_interval) + 2 * u64::from(ni.retry_spread),
            // The route, the header words, the payload and the CRC (§11.1).
            data_flits: 1 + idemnet_spec::rmpp::HEADER_WORDS + send.mtu.div_ceil(4) + 1,
            data_gap: send.data_timeout.max(1),
        }
    }

    fn whole(&self, flits: usize) -> f64 {
        (1.0 - self.damage).powi((flits * self.links) as i32)
    }

    fn datagram_whole(&self) -> f64 {
        self.whole(self.send_flits)
    }

    /// SENDs of one datagram expected whole at its destination in `window` cycles.
    fn datagram_arrivals(&self, window: u64) -> f64 {
        (window / self.send_gap) as f64 * self.datagram_whole()
    }

    /// Data worms of one message expected whole at its receiver in `window` cycles.
    fn message_arrivals(&self, window: u64) -> f64 {
        (window / self.data_gap) as f64 * self.whole(self.data_flits)
    }

    /// The repeats and the odds the verdict counted, for the protocols that left something.
    fn describe(&self, datagrams: bool, messages: bool) -> String {
        let mut parts = vec![];
        if datagrams {
            parts.push(format!(
                "a datagram's SEND goes again at least every {} cycles and crosses the {} links \
                 of the longest path whole with probability {:.3e}",
                self.send_gap,
                self.links,
                self.datagram_whole()
            ));
        }
        if messages {
            parts.push(format!(
                "a message's data worm goes again at least every {} cycles and crosses the {} \
                 links whole with probability {:.3e}",
                self.data_gap,
                self.links,
                self.whole(self.data_flits)
            ));
        }
        parts.push(format!(
            "a flit lost or corrupted with probability {:.5}",
            self.damage
        ));
        parts.join("; ")
    }
}

/// The flit loss (as an injector threshold of 65536: 2 %) from which RMPP, which takes a
/// message's packets in order only and goes back to each lost one, no longer finishes all of
/// the main job's messages within the drain: measured on the golden model (docs/protocol.md
/// §12, "Where RMPP stops finishing"; 1 % until issue 17's resume and repeat timer).
pub const RMPP_LOSS_LIMIT: u16 = 1311;

/// The golden model of the system alone under [`SystemHosts`]: `cycles` of traffic, then a
/// drain of at most `drain` cycles. The fast way to run large experiments.
#[allow(clippy::too_many_arguments)]
pub fn run_with_hosts(
    tree: FatTree,
    ni: NiConfig,
    rmpp: RmppConfig,
    hosts: SystemHosts,
    cycles: u64,
    faults: &crate::fault::Faults,
    drain: u64,
) -> Result<SystemHosts, String> {
    run_with_hosts_progress(tree, ni, rmpp, hosts, cycles, faults, drain, |_| {})
}

/// Cycles between two calls of a run's progress callback.
pub const PROGRESS_EVERY: u64 = 1 << 14;

/// [`run_with_hosts`], telling `progress` the cycles done every [`PROGRESS_EVERY`] cycles.
#[allow(clippy::too_many_arguments)]
pub fn run_with_hosts_progress(
    tree: FatTree,
    ni: NiConfig,
    rmpp: RmppConfig,
    hosts: SystemHosts,
    cycles: u64,
    faults: &crate::fault::Faults,
    drain: u64,
    mut progress: impl FnMut(u64),
) -> Result<SystemHosts, String> {
    let mut sys = System::new(tree, ni, rmpp)?;
    // Only the hosts write their words of `i`, which it keeps from cycle to cycle.
    let mut hosts = hosts.with_inputs_kept();
    let lay = sys.layout();
    let mut i = vec![0u64; lay.input_words()];
    i[Layout::LOSS] = faults.loss as u64;
    i[Layout::CORRUPT] = faults.corrupt as u64;
    for &j in &faults.dead {
        if j >= lay.links {
            return Err(format!("dead link {j}: the links are 0..{}", lay.links));
        }
        i[lay.dead(j)] = 1;
    }
    let end = cycles.checked_add(drain).ok_or_else(|| {
        format!("{cycles} cycles and a drain of {drain}: the run would pass 2^64 cycles")
    })?;
    // The counters are read after the run: copied at their folds and at its end only.
    hosts.counters.lazy = true;
    let mut t = 0;
    while t < cycles || (hosts.in_flight() > 0 && t < end) {
        hosts.set_quiet(t >= cycles);
        // The system's outputs are O_(t-1) until its step, O_t after it.
        hosts.step(t, sys.outputs(), &mut i);
        sys.step_in_place(&i);
        hosts.observe(t, sys.outputs());
        t += 1;
        if t.is_multiple_of(PROGRESS_EVERY) {
            progress(t);
        }
    }
    hosts.counters.settle(sys.outputs());
    hosts.counters.lazy = false;
    Ok(hosts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fault::Faults;
    use crate::rmpp::host::Pattern;
    use crate::rmpp::send::SendConfig;

    fn traffic(load: f64, pattern: Pattern) -> MsgTraffic {
        MsgTraffic {
            load,
            min_len: 0,
            max_len: 1024,
            pattern,
            send: SendConfig::DEFAULT,
        }
    }

    fn run(
        idem: f64,
        rmpp: MsgTraffic,
        loss: u16,
        corrupt: u16,
        dead: Option<usize>,
        cycles: u64,
    ) -> SystemHosts {
        let tree = FatTree::new(4, 2).unwrap();
        let sys = System::new(tree, NiConfig::DEFAULT, RmppConfig::DEFAULT).unwrap();
        let lay = sys.layout();
        assert_eq!(crate::block::input_words(&sys.ports()), lay.input_words());
        assert_eq!(crate::block::output_words(&sys.ports()), lay.output_words());
        let faults = Faults {
            loss,
            corrupt,
            dead: dead.into_iter().collect(),
        };
        let hosts = SystemHosts::new(&tree, idem, rmpp, 1).unwrap();
        let (ni, rm) = (NiConfig::DEFAULT, RmppConfig::DEFAULT);
        run_with_hosts(tree, ni, rm, hosts, cycles, &faults, 200_000).unwrap()
    }

    /// The verdict of hosts before a system that never answers, after `cycles` of traffic and
    /// a drain of `drain`: whatever they sent stays in flight, and nothing is delivered.
    fn verdict_of_a_silent_system(cycles: u64, drain: u64) -> String {
        let tree = FatTree::new(4, 2).unwrap();
        let mut hosts = SystemHosts::new(&tree, 0.2, traffic(0.2, Pattern::Uniform), 1).unwrap();
        let lay = layout(&tree);
        let silent = vec![0; lay.output_words()];
        let mut inputs = vec![0; lay.input_words()];
        for t in 0..cycles + drain {
            hosts.set_quiet(t >= cycles);
            hosts.step(t, &silent, &mut inputs);
            hosts.observe(t, &silent);
        }
        assert!(hosts.in_flight() > 0);
        hosts
            .verdict(&tree, &Faults::default(), &NiConfig::DEFAULT)
            .unwrap()
    }

    #[test]
    fn the_verdict_calls_a_system_that_stopped_a_defect() {
        // 25,000 cycles: 20 of RMPP's slowest repeats (1,200 cycles) for each message left.
        let verdict = verdict_of_a_silent_system(1_000, 100_000);
        assert!(
            verdict.contains("in the drain's last 25000 cycles: a defect"),
            "{verdict}"
        );
        // 250 cycles: shorter than that repeat, so a working system might show nothing.
        let verdict = verdict_of_a_silent_system(1_000, 1_000);
        assert!(
            verdict
                .contains("last 250 cycles, but a working system would have got only about 0.00"),
            "{verdict}"
        );
        // The last quarter is rounded up (was 7 - 1 * 3 = 4 of 7 cycles). Two cycles are
        // shorter than any repeat of a SEND: a working system could have shown nothing in them.
        let verdict = verdict_of_a_silent_system(1_000, 7);
        assert!(
            verdict.contains(
                "in the drain's last 2 cycles, but a working system would have got only about 0.00"
            ),
            "{verdict}"
        );
        assert!(verdict.contains("not shown to be a defect"), "{verdict}");
    }

    /// The verdict's count of what the faults let through (§10): a fault-free channel passes
    /// every worm, and a flit lost or corrupted with probability 1 none.
    #[test]
    fn the_channel_chance_counts_whole_worms_on_the_longest_path() {
        let tree = FatTree::new(4, 2).unwrap();
        let send = crate::rmpp::send::SendConfig::DEFAULT;
        let ni = NiConfig::DEFAULT;
        let clean = ChannelChance::new(&tree, &Faults::default(), &ni, &send);
        assert_eq!(clean.links, 4);
        assert_eq!(clean.datagram_whole(), 1.0);
        // 160 cycles between two SENDs at most: 128 + 2 * 16.
        assert_eq!(clean.datagram_arrivals(12_500), 78.0);
        assert_eq!(clean.message_arrivals(12_500), 10.0);
        let half = Faults::from_probabilities(0.25, 0.25).unwrap();
        let lossy = ChannelChance::new(&tree, &half, &ni, &send);
        assert_eq!(lossy.damage, 0.5);
        // 11 flits over 4 links, each whole with probability 1/2.
        assert_eq!(lossy.datagram_whole(), 0.5f64.powi(44));
        assert!(lossy.datagram_arrivals(1_000_000) < 1e-6);
        let mut total = Faults::from_probabilities(0.5, 0.0).unwrap();
        total.corrupt = u16::MAX;
        assert_eq!(ChannelChance::new(&tree, &total, &ni, &send).damage, 1.0);
    }

    /// `--dgram-len B`: every datagram B bytes, at the same offered load in flits (so fewer of
    /// them for longer ones); more than 32 is refused.
    #[test]
    fn datagrams_of_one_length_keep_the_offered_load() {
        let tree = FatTree::new(4, 2).unwrap();
        let fixed = |b: Option<usize>| {
            let hosts = SystemHosts::new(&tree, 0.1, traffic(0.0, Pattern::Uniform), 1)
                .and_then(|h| h.with_dgram_len(b))
                .unwrap();
            let (ni, rm) = (NiConfig::DEFAULT, RmppConfig::DEFAULT);
            let h = run_with_hosts(tree, ni, rm, hosts, 20_000, &Faults::default(), 50_000)
                .unwrap()
                .idem;
            assert_eq!((h.errors, h.lost()), (0, 0), "{:?}", h.first_error);
            (h.accepted, h.payload_bytes)
        };
        let (short, short_bytes) = fixed(Some(4));
        let (long, long_bytes) = fixed(Some(32));
        assert_eq!(short_bytes % 4, 0);
        assert_eq!(long_bytes % 32, 0);
        // A 4-byte SEND is 5 flits, a 32-byte one 12: about 12/5 as many short ones.
        let ratio = short as f64 / long as f64;
        assert!((2.0..2.8).contains(&ratio), "{short} / {long}");
        let error = SystemHosts::new(&tree, 0.1, traffic(0.0, Pattern::Uniform), 1)
            .and_then(|h| h.with_dgram_len(Some(33)))
            .err()
            .unwrap();
        assert!(error.contains("datagram length 33"), "{error}");
    }

    #[test]
    fn the_ports_are_the_layouts_and_the_drop_counters_the_switchs() {
        let tree = FatTree::new(4, 2).unwrap();
        let sys = System::new(tree, NiConfig::DEFAULT, RmppConfig::DEFAULT).unwrap();
        assert_eq!(sys.ports(), layout(&tree).ports());
        assert_eq!(idemnet_spec::system::DROP_BITS, crate::switch::DROP_BITS);
        let drops = sys
            .ports()
            .into_iter()
            .filter(|p| p.name.starts_with("drops$"));
        assert_eq!(drops.count(), tree.switches() * 2 * tree.k);
    }

    #[test]
    fn exactly_once_over_a_lossy_fabric_and_a_dead_link() {
        for (loss, corrupt, dead) in [(0, 0, None), (66, 33, None), (66, 33, Some(5))] {
            let h = run(
                0.3,
                traffic(0.0, Pattern::Uniform),
                loss,
                corrupt,
                dead,
                20_000,
            );
            let h = h.idem;
            assert_eq!(h.errors, 0, "{:?}", h.first_error);
            assert_eq!(h.lost(), 0);
            assert_eq!(h.in_flight(), 0);
            assert!(h.accepted > 1000, "{}", h.accepted);
            assert_eq!((h.delivered, h.completed), (h.accepted, h.accepted));
        }
    }

    /// The goodput counts the bytes the hosts asked to send (uniform in 0..=32: a mean of 16),
    /// not the 4-byte words that carry them (a mean of 17.45 with the padding).
    #[test]
    fn goodput_counts_the_bytes_hosts_asked_to_send() {
        let h = run(0.3, traffic(0.0, Pattern::Uniform), 0, 0, None, 20_000).idem;
        assert!(h.delivered > 4000, "{}", h.delivered);
        let mean = h.payload_bytes as f64 / h.delivered as f64;
        assert!((15.0..=16.6).contains(&mean), "{mean} bytes per datagram");
    }

    #[test]
    fn rmpp_messages_arrive_once_complete_and_in_order_beside_datagrams() {
        for (pattern, idem, load) in [
            (Pattern::Uniform, 0.1, 0.05),
            (Pattern::ToOne(5), 0.0, 0.02),
        ] {
            let h = run(idem, traffic(load, pattern), 66, 33, None, 30_000);
            assert_eq!(h.errors(), 0, "{:?}", h.first_error());
            let m = &h.rmpp;
            assert_eq!((m.lost(), m.in_flight()), (0, 0));
            assert!(m.sent > 20, "{}", m.sent);
            assert_eq!(
                (m.delivered, m.completed, m.upcalls),
                (m.sent, m.sent, m.sent)
            );
            assert_eq!(h.idem.lost(), 0);
        }
    }

    #[test]
    fn selective_rmpp_arrives_once_complete_and_in_order_and_asks_less() {
        // The same lossy runs with and without selective acceptance (docs/protocol.md §11.7).
        let tree = FatTree::new(4, 2).unwrap();
        let faults = Faults {
            loss: 66,
            corrupt: 33,
            dead: Vec::new(),
        };
        let dropped = |selective: bool| {
            let rmpp = RmppConfig {
                selective,
                ..RmppConfig::DEFAULT
            };
            let mut t = traffic(0.05, Pattern::Uniform);
            t.send.selective = selective;
            let hosts = SystemHosts::new(&tree, 0.05, t, 1).unwrap();
            let h = run_with_hosts(
                tree,
                NiConfig::DEFAULT,
                rmpp,
                hosts,
                30_000,
                &faults,
                200_000,
            )
            .unwrap();
            assert_eq!(h.errors(), 0, "{:?}", h.first_error());
            let m = &h.rmpp;
            assert_eq!((m.lost(), m.in_flight()), (0, 0));
            assert!(m.sent > 50, "{}", m.sent);
            assert_eq!((m.delivered, m.completed), (m.sent, m.sent));
            assert_eq!(h.idem.lost(), 0);
            h.rx_totals()[crate::rmpp::cnt::SEQUENCE]
        };
        let (plain, selective) = (dropped(false), dropped(true));
        // Held packets are not dropped: far fewer `sequence` drops.
        assert!(selective * 3 < plain, "{selective} against {plain}");
    }
}
