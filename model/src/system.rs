//! The system of docs/protocol.md §10: one NI per node on a k-ary n-tree fabric, with a
//! link-fault injector (§9) on every link.
//!
//! Block ports (as [`ModelBlock`], `clock` excluded), in this order: in `loss`, `corrupt` (16),
//! `dead$j` (1, one per inter-switch link), then per node `p` the NI's host ports
//! `req_valid$p`, `req_dst$p`, `req_len$p`, `req_data$p`, `dlv_ready$p` (each group over all
//! nodes before the next); out `req_ready$p`, `dlv_valid$p`, `dlv_src$p`, `dlv_uid$p`,
//! `dlv_len$p`, `dlv_data$p`, `done_valid$p`, `done_uid$p`, the NI counters `cnt_<name>$p`,
//! and the switches' `drops$x` (§5).
//!
//! Timing: links are wires through the injectors, so in cycle `t` a switch input and an NI's
//! `net_in` see the neighbour's output register of `O_(t-1)`, passed through its injector.

use crate::block::ModelBlock;
use crate::fabric::Fabric;
use crate::fault::LinkFault;
use crate::ni::{self, NiConfig, COUNTERS, DATA_BITS};
use crate::node::{framer_packet, Node, NodeInputs};
use crate::ports::PortSpec;
use crate::rmpp::host::{MsgHosts, MsgTraffic};
use crate::rmpp::rx::{self, RmppRx};
use crate::rmpp::RmppConfig;
use crate::switch::DROP_BITS;
use crate::topology::FatTree;

/// Flat-buffer layout of the system's ports.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    pub nodes: usize,
    pub links: usize,
    pub drops: usize,
}

impl Layout {
    pub fn new(tree: &FatTree) -> Layout {
        Layout {
            nodes: tree.nodes(),
            links: (tree.n - 1) * tree.per_level() * tree.k,
            drops: tree.switches() * 2 * tree.k,
        }
    }
    // Inputs.
    pub const LOSS: usize = 0;
    pub const CORRUPT: usize = 1;
    pub fn dead(&self, j: usize) -> usize {
        2 + j
    }
    fn host0(&self) -> usize {
        2 + self.links
    }
    pub fn req_valid(&self, p: usize) -> usize {
        self.host0() + p
    }
    pub fn req_dst(&self, p: usize) -> usize {
        self.host0() + self.nodes + p
    }
    pub fn req_len(&self, p: usize) -> usize {
        self.host0() + 2 * self.nodes + p
    }
    pub fn req_data(&self, p: usize) -> usize {
        self.host0() + 3 * self.nodes + 4 * p
    }
    pub fn dlv_ready(&self, p: usize) -> usize {
        self.host0() + 7 * self.nodes + p
    }
    /// Input word of node `p`'s RMPP host input group `g` (one of the `rin` constants).
    pub fn rin(&self, g: usize, p: usize) -> usize {
        self.host0() + (8 + g) * self.nodes + p
    }
    /// First input word of node `p`'s `tx_data` (4 words).
    pub fn tx_data(&self, p: usize) -> usize {
        self.host0() + (8 + rin::GROUPS) * self.nodes + 4 * p
    }
    pub fn input_words(&self) -> usize {
        self.tx_data(self.nodes)
    }
    // Outputs.
    pub fn req_ready(&self, p: usize) -> usize {
        p
    }
    pub fn dlv_valid(&self, p: usize) -> usize {
        self.nodes + p
    }
    pub fn dlv_src(&self, p: usize) -> usize {
        2 * self.nodes + p
    }
    pub fn dlv_uid(&self, p: usize) -> usize {
        3 * self.nodes + p
    }
    pub fn dlv_len(&self, p: usize) -> usize {
        4 * self.nodes + p
    }
    pub fn dlv_data(&self, p: usize) -> usize {
        5 * self.nodes + 4 * p
    }
    pub fn done_valid(&self, p: usize) -> usize {
        9 * self.nodes + p
    }
    pub fn done_uid(&self, p: usize) -> usize {
        10 * self.nodes + p
    }
    pub fn counter(&self, c: usize, p: usize) -> usize {
        (11 + c) * self.nodes + p
    }
    pub fn drop(&self, x: usize) -> usize {
        (11 + COUNTERS.len()) * self.nodes + x
    }
    /// Output word of node `p`'s RMPP output group `g` (one of the `rout` constants).
    pub fn rout(&self, g: usize, p: usize) -> usize {
        self.drop(self.drops) + g * self.nodes + p
    }
    pub fn output_words(&self) -> usize {
        self.rout(rout::GROUPS, 0)
    }
}

/// The RMPP host input groups of the system, in port order (`name$p` over all nodes each):
/// the receive path's `up_ready`, `up_accept`, `dlv_ready`, `rd_slot`, `rd_word` (as
/// `rx_<name>`), then the framer's `tx_valid` .. `tx_bytes`; `tx_data` (256 bits) follows.
pub mod rin {
    pub const UP_READY: usize = 0;
    pub const UP_ACCEPT: usize = 1;
    pub const DLV_READY: usize = 2;
    pub const RD_SLOT: usize = 3;
    pub const RD_WORD: usize = 4;
    pub const TX_VALID: usize = 5;
    pub const TX_DST: usize = 6;
    pub const TX_TYPE: usize = 7;
    pub const TX_MSG_ID: usize = 8;
    pub const TX_LEN: usize = 9;
    pub const TX_SEQ: usize = 10;
    pub const TX_INFO: usize = 11;
    pub const TX_MSG_NUM: usize = 12;
    pub const TX_BYTES: usize = 13;
    pub const GROUPS: usize = 14;
    /// Names and widths, in order.
    pub const PORTS: [(&str, u32); GROUPS] = [
        ("rx_up_ready", 1),
        ("rx_up_accept", 32),
        ("rx_dlv_ready", 1),
        ("rx_rd_slot", 4),
        ("rx_rd_word", 10),
        ("tx_valid", 1),
        ("tx_dst", 16),
        ("tx_type", 4),
        ("tx_msg_id", 32),
        ("tx_len", 32),
        ("tx_seq", 32),
        ("tx_info", 32),
        ("tx_msg_num", 32),
        ("tx_bytes", 6),
    ];
}

/// The RMPP output groups of the system, in port order: every output of the receive path but
/// `net_out` and `tx_req`, as `rx_<name>` (group `g` is `rmpp::rx::out` index `g + 2`), then
/// the framer's `tx_ready`.
pub mod rout {
    /// Group of the receive path's output `rmpp::rx::out::X`.
    pub const fn of_rx(x: usize) -> usize {
        x - 2
    }
    pub const TX_READY: usize = 34;
    pub const GROUPS: usize = 35;
}

/// The whole system.
#[derive(Clone, Debug)]
pub struct System {
    tree: FatTree,
    lay: Layout,
    fabric: Fabric,
    nodes: Vec<Node>,
    /// Injectors `2p` (node to fabric) and `2p + 1` (fabric to node).
    node_inj: Vec<LinkFault>,
    ni_net_out: Vec<u64>,
    fabric_out: Vec<u64>,
    fabric_in: Vec<u64>,
    dead: Vec<bool>,
    ni_in: Vec<u64>,
    rx_in: Vec<u64>,
}

impl System {
    /// Node `p` has `ni` and `rmpp` with `node = p`.
    pub fn new(tree: FatTree, ni: NiConfig, rmpp: RmppConfig) -> Result<System, String> {
        let lay = Layout::new(&tree);
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
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(System {
            tree,
            lay,
            fabric: Fabric::with_faults(tree),
            nodes,
            node_inj: (0..2 * lay.nodes).map(LinkFault::new).collect(),
            ni_net_out: vec![0; lay.nodes],
            fabric_out: vec![0; lay.nodes],
            fabric_in: vec![0; lay.nodes],
            dead: vec![false; lay.links],
            ni_in: vec![0; ni::inp::WORDS],
            rx_in: vec![0; rx::inp::WORDS],
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

    /// Worms discarded by the switches since power-on.
    pub fn switch_drops(&self) -> u64 {
        self.fabric.total_drops()
    }
}

impl ModelBlock for System {
    fn ports(&self) -> Vec<PortSpec> {
        let n = self.lay.nodes;
        let mut v = vec![PortSpec::input("loss", 16), PortSpec::input("corrupt", 16)];
        let each = |v: &mut Vec<PortSpec>, name: &str, w: u32, input: bool| {
            for p in 0..n {
                v.push(if input {
                    PortSpec::input(format!("{name}${p}"), w)
                } else {
                    PortSpec::output(format!("{name}${p}"), w)
                });
            }
        };
        for j in 0..self.lay.links {
            v.push(PortSpec::input(format!("dead${j}"), 1));
        }
        each(&mut v, "req_valid", 1, true);
        each(&mut v, "req_dst", 16, true);
        each(&mut v, "req_len", 6, true);
        each(&mut v, "req_data", DATA_BITS, true);
        each(&mut v, "dlv_ready", 1, true);
        each(&mut v, "req_ready", 1, false);
        each(&mut v, "dlv_valid", 1, false);
        each(&mut v, "dlv_src", 16, false);
        each(&mut v, "dlv_uid", 32, false);
        each(&mut v, "dlv_len", 6, false);
        each(&mut v, "dlv_data", DATA_BITS, false);
        each(&mut v, "done_valid", 1, false);
        each(&mut v, "done_uid", 32, false);
        for c in COUNTERS {
            each(&mut v, &format!("cnt_{c}"), 16, false);
        }
        for x in 0..self.lay.drops {
            v.push(PortSpec::output(format!("drops${x}"), DROP_BITS));
        }
        for (name, w) in rin::PORTS {
            each(&mut v, name, w, true);
        }
        each(&mut v, "tx_data", DATA_BITS, true);
        let probe = RmppRx::new(RmppConfig::default()).expect("defaults are valid");
        for port in ModelBlock::ports(&probe)
            .into_iter()
            .skip(rx::inp::WORDS + 2)
        {
            each(&mut v, &format!("rx_{}", port.name), port.width, false);
        }
        each(&mut v, "tx_ready", 1, false);
        v
    }

    fn step(&mut self, i: &[u64], o: &mut [u64]) {
        let lay = self.lay;
        let loss = i[Layout::LOSS] as u16;
        let corrupt = i[Layout::CORRUPT] as u16;
        for (j, d) in self.dead.iter_mut().enumerate() {
            *d = i[lay.dead(j)] & 1 == 1;
        }
        self.fabric.set_faults(loss, corrupt, &self.dead);
        // The wires of cycle t, from the registers of O_(t-1).
        for p in 0..lay.nodes {
            self.fabric_in[p] = self.node_inj[2 * p].pass(self.ni_net_out[p], loss, corrupt, false);
        }
        let fabric_out_before = std::mem::take(&mut self.fabric_out);
        self.fabric_out = vec![0; lay.nodes];
        self.fabric.step(&self.fabric_in, &mut self.fabric_out);
        for p in 0..lay.nodes {
            let net_in = self.node_inj[2 * p + 1].pass(fabric_out_before[p], loss, corrupt, false);
            let ni_in = &mut self.ni_in;
            ni_in[ni::inp::REQ_VALID] = i[lay.req_valid(p)];
            ni_in[ni::inp::REQ_DST] = i[lay.req_dst(p)];
            ni_in[ni::inp::REQ_LEN] = i[lay.req_len(p)];
            ni_in[ni::inp::REQ_DATA..ni::inp::REQ_DATA + 4]
                .copy_from_slice(&i[lay.req_data(p)..lay.req_data(p) + 4]);
            ni_in[ni::inp::DLV_READY] = i[lay.dlv_ready(p)];
            for g in rin::UP_READY..=rin::RD_WORD {
                self.rx_in[g + 2] = i[lay.rin(g, p)];
            }
            let tx = (i[lay.rin(rin::TX_VALID, p)] & 1 == 1).then(|| {
                let w: Vec<u32> =
                    ni::words_from_bus(&i[lay.tx_data(p)..lay.tx_data(p) + 4]).to_vec();
                let bytes = (i[lay.rin(rin::TX_BYTES, p)] & 0x3F) as usize;
                let g = |k: usize| i[lay.rin(k, p)] as u32;
                let mut pk = framer_packet(
                    p as u16,
                    g(rin::TX_DST) as u16,
                    g(rin::TX_TYPE),
                    g(rin::TX_MSG_ID),
                    g(rin::TX_LEN),
                    g(rin::TX_SEQ),
                    g(rin::TX_INFO),
                    g(rin::TX_MSG_NUM),
                    vec![],
                );
                // The framer sends the words as given, unused bytes included.
                pk.data = ni::words_to_bytes(&w, 4 * bytes.div_ceil(4));
                pk
            });
            let host = NodeInputs {
                ni: &self.ni_in,
                rx: &self.rx_in,
                tx: tx.as_ref(),
            };
            let node = &mut self.nodes[p];
            self.ni_net_out[p] = node.step(net_in, &host);
            let no = &node.ni_out;
            o[lay.req_ready(p)] = no[ni::out::REQ_READY];
            o[lay.dlv_valid(p)] = no[ni::out::DLV_VALID];
            o[lay.dlv_src(p)] = no[ni::out::DLV_SRC];
            o[lay.dlv_uid(p)] = no[ni::out::DLV_UID];
            o[lay.dlv_len(p)] = no[ni::out::DLV_LEN];
            o[lay.dlv_data(p)..lay.dlv_data(p) + 4]
                .copy_from_slice(&no[ni::out::DLV_DATA..ni::out::DLV_DATA + 4]);
            o[lay.done_valid(p)] = no[ni::out::DONE_VALID];
            o[lay.done_uid(p)] = no[ni::out::DONE_UID];
            for c in 0..COUNTERS.len() {
                o[lay.counter(c, p)] = no[ni::out::COUNTERS + c];
            }
            for x in rx::out::UP_VALID..rx::out::WORDS {
                o[lay.rout(rout::of_rx(x), p)] = node.rx_out[x];
            }
            o[lay.rout(rout::TX_READY, p)] = node.framer.ready as u64;
        }
        for (x, &d) in self.fabric.drops().iter().enumerate() {
            o[lay.drop(x)] = d as u64;
        }
    }
}

/// The hosts of every node and the end-to-end scoreboard (§10).
///
/// Each host asks to send a datagram with probability `q` per cycle when it is not already
/// asking, to a destination drawn uniformly from the other nodes, with 0..=32 random payload
/// bytes, and holds the request until the NI accepts it; every host always takes deliveries.
/// `load` is the offered SEND traffic in flits per node per cycle (a SEND worm of `w` payload
/// words is `w + 4` flits), so `q = load / E[w + 4]`. The scoreboard learns each accepted
/// datagram's uid (the NI numbers them in acceptance order) and checks every delivery: a
/// datagram it knows, to the right node, from the right node, with the right payload, and never
/// twice. After a drain, a datagram accepted but not delivered is lost.
pub struct Hosts {
    rng: rand_chacha::ChaCha8Rng,
    lay: Layout,
    q: f64,
    asking: Vec<Option<(u16, Vec<u8>)>>,
    presented: Vec<bool>,
    ready_before: Vec<bool>,
    next_uid: Vec<u16>,
    /// uid -> (destination, payload, cycle accepted, delivered)
    outstanding: std::collections::HashMap<u32, (u16, Vec<u8>, u64, bool)>,
    /// Stop asking (the drain).
    pub quiet: bool,
    pub accepted: u64,
    pub delivered: u64,
    pub completed: u64,
    pub errors: u64,
    pub first_error: Option<String>,
    pub latencies: Vec<u64>,
    /// Payload bytes delivered while the hosts were asking (before the drain), counted as the
    /// sending host asked (not the padded words on the wire).
    pub payload_bytes: u64,
}

impl Hosts {
    pub fn new(tree: &FatTree, load: f64, seed: u64) -> Result<Hosts, String> {
        use rand::SeedableRng;
        if !(0.0..=1.0).contains(&load) {
            return Err(format!("load {load}: must be in 0..=1"));
        }
        let lay = Layout::new(tree);
        // E[w] for 0..=32 bytes uniformly: the mean of ceil(len / 4).
        let ew: f64 = (0..=32).map(|l: usize| l.div_ceil(4) as f64).sum::<f64>() / 33.0;
        Ok(Hosts {
            rng: rand_chacha::ChaCha8Rng::seed_from_u64(seed),
            lay,
            q: (load / (ew + 4.0)).min(1.0),
            asking: vec![None; lay.nodes],
            presented: vec![false; lay.nodes],
            ready_before: vec![false; lay.nodes],
            next_uid: vec![0; lay.nodes],
            outstanding: Default::default(),
            quiet: false,
            accepted: 0,
            delivered: 0,
            completed: 0,
            errors: 0,
            first_error: None,
            latencies: vec![],
            payload_bytes: 0,
        })
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
        use rand::Rng;
        let lay = self.lay;
        let n = lay.nodes;
        for p in 0..n {
            if self.presented[p] && self.ready_before[p] {
                if let Some((dst, data)) = self.asking[p].take() {
                    let uid = (p as u32) << 16 | self.next_uid[p] as u32;
                    self.next_uid[p] = self.next_uid[p].wrapping_add(1);
                    self.outstanding.insert(uid, (dst, data, t - 1, false));
                    self.accepted += 1;
                }
            }
            self.ready_before[p] = prev[lay.req_ready(p)] & 1 == 1;
            if self.asking[p].is_none() && !self.quiet && self.rng.gen_bool(self.q) {
                let mut dst = self.rng.gen_range(0..n - 1);
                if dst >= p {
                    dst += 1;
                }
                let len = self.rng.gen_range(0..=ni::MAX_PAYLOAD);
                let data: Vec<u8> = (0..len).map(|_| self.rng.gen()).collect();
                self.asking[p] = Some((dst as u16, data));
            }
            if self.quiet {
                self.asking[p] = None;
            }
            self.presented[p] = self.asking[p].is_some();
            match &self.asking[p] {
                Some((dst, data)) => {
                    let mut w = [0u32; ni::PAYLOAD_WORDS];
                    for (j, x) in ni::bytes_to_words(data).into_iter().enumerate() {
                        w[j] = x;
                    }
                    inputs[lay.req_valid(p)] = 1;
                    inputs[lay.req_dst(p)] = *dst as u64;
                    inputs[lay.req_len(p)] = data.len() as u64;
                    inputs[lay.req_data(p)..lay.req_data(p) + 4]
                        .copy_from_slice(&ni::bus_from_words(&w));
                }
                None => {
                    inputs[lay.req_valid(p)] = 0;
                    inputs[lay.req_dst(p)] = 0;
                    inputs[lay.req_len(p)] = 0;
                    inputs[lay.req_data(p)..lay.req_data(p) + 4].fill(0);
                }
            }
            inputs[lay.dlv_ready(p)] = 1;
        }
    }

    /// Checks the deliveries and completions shown in `O_t`.
    pub fn observe(&mut self, t: u64, o: &[u64]) {
        let lay = self.lay;
        for q in 0..lay.nodes {
            if o[lay.dlv_valid(q)] & 1 == 1 {
                let uid = o[lay.dlv_uid(q)] as u32;
                let src = o[lay.dlv_src(q)] as u16;
                let len = (o[lay.dlv_len(q)] & 0x3F) as usize;
                let words = ni::words_from_bus(&o[lay.dlv_data(q)..lay.dlv_data(q) + 4]);
                let data = ni::words_to_bytes(&words, len);
                match self.outstanding.get_mut(&uid) {
                    None => self.error(format!(
                        "cycle {t}: node {q} got uid {uid:#x}, which no host sent or which completed already"
                    )),
                    Some(e) if e.3 => {
                        let _ = e;
                        self.error(format!("cycle {t}: node {q} got uid {uid:#x} twice"));
                    }
                    Some(e) => {
                        e.3 = true;
                        let (dst, want, at) = (e.0, e.1.clone(), e.2);
                        self.delivered += 1;
                        if !self.quiet {
                            self.payload_bytes += want.len() as u64;
                        }
                        self.latencies.push(t - at);
                        if dst as usize != q || src as u32 != uid >> 16 || want != data {
                            self.error(format!(
                                "cycle {t}: uid {uid:#x} delivered to {q} from {src} with {} bytes; sent to {dst} with {} bytes",
                                data.len(),
                                want.len()
                            ));
                        }
                    }
                }
            }
            if o[lay.done_valid(q)] & 1 == 1 {
                let uid = o[lay.done_uid(q)] as u32;
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
    }

    /// (min, median, p99) of the delivery latencies, in cycles from acceptance to delivery.
    pub fn latency(&self) -> Option<(u64, u64, u64)> {
        let mut v = self.latencies.clone();
        if v.is_empty() {
            return None;
        }
        v.sort_unstable();
        let at = |f: f64| v[((v.len() - 1) as f64 * f).round() as usize];
        Some((v[0], at(0.5), at(0.99)))
    }
}

/// Both protocols' hosts of every node: the idempotent [`Hosts`] and the RMPP [`MsgHosts`].
pub struct SystemHosts {
    pub idem: Hosts,
    pub rmpp: MsgHosts,
    lay: Layout,
    /// Increments of every node's NI counters (`ni::COUNTERS`) and receive-path counters
    /// (`rmpp::COUNTERS`), summed over the nodes: the 16-bit counters wrap.
    pub ni_totals: [u64; COUNTERS.len()],
    pub rx_totals: [u64; crate::rmpp::COUNTERS.len()],
    last: Vec<u64>,
}

impl SystemHosts {
    /// Idempotent datagrams at `idem_load` and RMPP messages as `rmpp`, from one `seed`.
    pub fn new(
        tree: &FatTree,
        idem_load: f64,
        rmpp: MsgTraffic,
        seed: u64,
    ) -> Result<SystemHosts, String> {
        let lay = Layout::new(tree);
        Ok(SystemHosts {
            idem: Hosts::new(tree, idem_load, seed)?,
            rmpp: MsgHosts::new(lay, rmpp, seed)?,
            lay,
            ni_totals: [0; COUNTERS.len()],
            rx_totals: [0; crate::rmpp::COUNTERS.len()],
            last: vec![0; lay.output_words()],
        })
    }

    /// Cycle `t`: `prev` is `O_(t-1)`; writes every host input of `I_t`.
    pub fn step(&mut self, t: u64, prev: &[u64], inputs: &mut [u64]) {
        self.idem.step(t, prev, inputs);
        self.rmpp.step(t, prev, inputs);
    }

    /// Checks what `O_t` shows.
    pub fn observe(&mut self, t: u64, o: &[u64]) {
        self.idem.observe(t, o);
        self.rmpp.observe(t, o);
        let lay = self.lay;
        for p in 0..lay.nodes {
            for (c, total) in self.ni_totals.iter_mut().enumerate() {
                let x = lay.counter(c, p);
                *total += o[x].wrapping_sub(self.last[x]) & 0xFFFF;
                self.last[x] = o[x];
            }
            for (c, total) in self.rx_totals.iter_mut().enumerate() {
                let x = lay.rout(rout::of_rx(rx::out::COUNTERS + c), p);
                *total += o[x].wrapping_sub(self.last[x]) & 0xFFFF;
                self.last[x] = o[x];
            }
        }
    }

    /// Scoreboard errors plus datagrams and messages lost.
    pub fn failures(&self) -> u64 {
        self.errors() + self.idem.lost() as u64 + self.rmpp.lost() as u64
    }

    /// The figures of a run of `cycles` cycles (before the drain), one row per measure:
    /// name, idempotent, RMPP ("-" where a protocol has no such figure).
    pub fn figures(&self, cycles: u64) -> Vec<[String; 3]> {
        let (h, m) = (&self.idem, &self.rmpp);
        let per = |bytes: u64| {
            format!(
                "{:.4}",
                bytes as f64 / (cycles.max(1) as f64 * self.lay.nodes as f64)
            )
        };
        let lat = |l: Option<(u64, u64, u64)>| match l {
            Some((a, b, c)) => format!("{a} / {b} / {c}"),
            None => "-".into(),
        };
        let stats = m
            .senders
            .iter()
            .map(|s| s.stats())
            .fold((0, 0), |a, s| (a.0 + s.rts_resends, a.1 + s.restarts));
        let ni_drops: u64 = self.ni_totals[..ni::cnt::DUPLICATE].iter().sum();
        let rx_drops: u64 = self.rx_totals[..crate::rmpp::cnt::DUPLICATE]
            .iter()
            .sum::<u64>()
            + self.rx_totals[crate::rmpp::cnt::BUSY];
        let row = |name: &str, a: String, b: String| [name.to_string(), a, b];
        let n = |x: u64| x.to_string();
        vec![
            row("sent (datagrams / messages)", n(h.accepted), n(m.sent)),
            row("delivered", n(h.delivered), n(m.delivered)),
            row("completed at the sender", n(h.completed), n(m.completed)),
            row("lost", n(h.lost() as u64), n(m.lost() as u64)),
            row("duplicated", "0".into(), n(m.duplicated)),
            row("out of order (per pair)", "-".into(), n(m.out_of_order)),
            row("scoreboard errors", n(h.errors), n(m.errors)),
            row(
                "duplicates suppressed",
                n(self.ni_totals[ni::cnt::DUPLICATE]),
                n(self.rx_totals[crate::rmpp::cnt::DUPLICATE]),
            ),
            row(
                "retransmissions (SEND / RTS)",
                n(self.ni_totals[ni::cnt::RETRANSMIT]),
                n(stats.0),
            ),
            row("whole-message restarts", "-".into(), n(stats.1)),
            row("worms discarded by the receivers", n(ni_drops), n(rx_drops)),
            row(
                "payload bytes delivered / node / cycle",
                per(h.payload_bytes),
                per(m.payload_bytes),
            ),
            row(
                "latency min / median / p99 (cycles)",
                lat(h.latency()),
                lat(m.latency(0, usize::MAX)),
            ),
        ]
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
    /// defect, and said to be one.
    pub fn verdict(&self, tree: &FatTree, faults: &crate::fault::Faults) -> Option<String> {
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
        let rmpp_limit = rmpp_left > 0 && faults.loss >= RMPP_LOSS_LIMIT;
        if rmpp_limit {
            v += &format!(
                "; RMPP recovers a lost packet only by restarting its message, and at a flit loss \
                 of {:.4} (at least {:.4}) it does not finish within the drain: a documented \
                 limit of the protocol (docs/protocol.md §12), not a defect",
                f64::from(faults.loss) / 65536.0,
                f64::from(RMPP_LOSS_LIMIT) / 65536.0
            );
        }
        let defect = (idem - idem_cut) + if rmpp_limit { 0 } else { rmpp_left };
        if defect > 0 {
            v += &format!(
                "; {defect} of them between connected nodes below the protocols' limits: a defect"
            );
        }
        Some(v)
    }
}

/// The flit loss (as an injector threshold of 65536) from which RMPP, restarting a whole message
/// on any lost packet, no longer finishes the main job's messages within the drain: measured on
/// the golden model (docs/protocol.md §12, "Where RMPP stops finishing").
pub const RMPP_LOSS_LIMIT: u16 = 655;

/// The golden model of the system alone under [`SystemHosts`]: `cycles` of traffic, then a
/// drain of at most `drain` cycles. The fast way to run large experiments.
#[allow(clippy::too_many_arguments)]
pub fn run_with_hosts(
    tree: FatTree,
    ni: NiConfig,
    rmpp: RmppConfig,
    mut hosts: SystemHosts,
    cycles: u64,
    faults: &crate::fault::Faults,
    drain: u64,
) -> Result<SystemHosts, String> {
    let mut sys = System::new(tree, ni, rmpp)?;
    let lay = sys.layout();
    let mut i = vec![0u64; lay.input_words()];
    let mut o = vec![0u64; lay.output_words()];
    let mut prev = o.clone();
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
    let mut t = 0;
    while t < cycles || (hosts.in_flight() > 0 && t < end) {
        hosts.set_quiet(t >= cycles);
        hosts.step(t, &prev, &mut i);
        sys.step(&i, &mut o);
        hosts.observe(t, &o);
        prev.copy_from_slice(&o);
        t += 1;
    }
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
}
