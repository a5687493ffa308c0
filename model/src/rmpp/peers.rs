//! Reactive stimulus for one RMPP receive path alone (`idemnet cosim --block rmpp-rx`).
//!
//! Every other node runs a [`Sender`] (§12) that sends messages of random length to the block's
//! node. Their packets reach `net_in` one worm at a time, in random order and with random gaps;
//! the block's replies (`net_out`) go back to the senders. Both ways a packet is lost with
//! probability `loss`, and a forward worm is damaged with probability `damage` (a flipped data
//! bit or a cut tail), so that restarts, duplicates and every drop reason happen. Now and then a
//! reply for the node's own send side (a CTS with `srcNID` = the node) arrives. The upper layer
//! answers each upcall, after a random delay, with everything, nothing or a random prefix, and
//! takes each delivery after reading it through the read port (itself sometimes delayed).
//!
//! The scoreboard checks that every delivery is a message some sender sent, delivered once, with
//! the bytes it sent up to the accepted length.

use std::collections::{HashMap, VecDeque};

use rand::{Rng, SeedableRng};

use super::rx::{inp, out};
use super::send::{SendConfig, Sender};
use super::{Packet, RmppConfig, Type};
use crate::switch::{TAIL, VALID};

/// How the peers behave.
#[derive(Clone, Copy, Debug)]
pub struct RxPeerParams {
    /// Probability per cycle that some peer starts a message.
    pub msg_rate: f64,
    pub max_len: usize,
    pub loss: f64,
    pub damage: f64,
    /// Probability that the upper layer answers "none", and a random prefix.
    pub refuse: f64,
    pub partial: f64,
    /// Probability per cycle that the upper layer is ready.
    pub ready: f64,
}

impl Default for RxPeerParams {
    fn default() -> Self {
        RxPeerParams {
            msg_rate: 0.004,
            max_len: 400,
            loss: 0.02,
            damage: 0.01,
            refuse: 0.05,
            partial: 0.1,
            ready: 0.7,
        }
    }
}

/// The peers, the upper layer and the scoreboard.
pub struct RxPeers {
    rng: rand_chacha::ChaCha8Rng,
    cfg: RmppConfig,
    p: RxPeerParams,
    senders: Vec<Sender>,
    wire: VecDeque<u64>,
    /// Flits of the worm the block is sending.
    worm: Vec<u64>,
    /// (src, msg_id) -> data
    sent: HashMap<(u16, u32), Vec<u8>>,
    /// (src, msg_id) -> accepted bytes (from the answer)
    accepted: HashMap<(u16, u32), u32>,
    /// slot -> (src, msg_id) of the last upcall taken for it: a delivery names only its slot
    /// (docs/protocol.md §11.3).
    slot_messages: HashMap<u64, (u16, u32)>,
    reading: Option<(u64, u16, u32, usize, u64, Vec<u32>)>,
    read_issued: bool,
    /// A word addressed in the cycle before shows in this cycle's outputs.
    read_shown: bool,
    pub messages: u64,
    pub upcalls: u64,
    pub delivered: u64,
    pub errors: u64,
    pub first_error: Option<String>,
}

impl RxPeers {
    pub fn new(cfg: RmppConfig, p: RxPeerParams, seed: u64) -> Result<RxPeers, String> {
        cfg.validate()?;
        let senders = (0..cfg.nodes)
            .map(|n| {
                Sender::new(SendConfig {
                    node: n as u16,
                    nodes: cfg.nodes,
                    mtu: cfg.mtu,
                    rts_timeout: 1500,
                    data_timeout: 1500,
                    resend_period: 700,
                    max_active: 4,
                    selective: cfg.selective,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(RxPeers {
            rng: rand_chacha::ChaCha8Rng::seed_from_u64(seed),
            cfg,
            p,
            senders,
            wire: VecDeque::new(),
            worm: vec![],
            sent: HashMap::new(),
            accepted: HashMap::new(),
            slot_messages: HashMap::new(),
            reading: None,
            read_issued: false,
            read_shown: false,
            messages: 0,
            upcalls: 0,
            delivered: 0,
            errors: 0,
            first_error: None,
        })
    }

    fn error(&mut self, e: String) {
        self.errors += 1;
        self.first_error.get_or_insert(e);
    }

    fn answer(&mut self, len: u32) -> u32 {
        let r: f64 = self.rng.gen();
        if r < self.p.refuse {
            0
        } else if r < self.p.refuse + self.p.partial && len > 1 {
            self.rng.gen_range(1..len)
        } else {
            u32::MAX
        }
    }

    /// A worm onto the wire: maybe lost, maybe damaged.
    fn forward(&mut self, mut flits: Vec<u64>) {
        if self.rng.gen_bool(self.p.loss) {
            return;
        }
        if self.rng.gen_bool(self.p.damage) {
            let k = self.rng.gen_range(0..flits.len());
            if self.rng.gen_bool(0.5) {
                flits[k] ^= 1 << self.rng.gen_range(0..32);
            } else {
                flits.truncate(k.max(1));
            }
        }
        self.wire.extend(flits);
        // A gap between worms, sometimes.
        for _ in 0..self.rng.gen_range(0..3) {
            self.wire.push_back(0);
        }
    }

    /// Cycle `t`: `prev` is `O_(t-1)`; writes `I_t`.
    pub fn step(&mut self, t: u64, prev: &[u64], i: &mut [u64]) {
        let me = self.cfg.node;
        // A new message from a random peer.
        if self.rng.gen_bool(self.p.msg_rate) {
            let mut src = self.rng.gen_range(0..self.cfg.nodes - 1) as u16;
            if src >= me {
                src += 1;
            }
            let len = self.rng.gen_range(0..=self.p.max_len);
            let data: Vec<u8> = (0..len).map(|_| self.rng.gen()).collect();
            let id = self.senders[src as usize].send(t, me, data.clone());
            self.sent.insert((src, id), data);
            self.messages += 1;
        }
        // A reply for this node's own send side, now and then.
        if self.rng.gen_bool(0.0005) {
            let peer = self.rng.gen_range(0..self.cfg.nodes) as u16;
            let mut c = Packet::new(Type::Cts, peer, me, me);
            c.msg_id = self.rng.gen();
            c.seq = 1;
            c.info1 = 3;
            self.forward(c.flits());
        }
        // The block's replies go back to the senders.
        let f = prev[out::NET_OUT];
        if f & VALID != 0 {
            self.worm.push(f);
            if f & TAIL != 0 {
                let w = std::mem::take(&mut self.worm);
                if let Some(p) = Packet::from_flits(&w) {
                    if !self.rng.gen_bool(self.p.loss) && (p.dst as usize) < self.cfg.nodes {
                        self.senders[p.dst as usize].on_reply_packet(t, &p);
                    }
                }
            }
        }
        // Senders hand over packets while the wire is short.
        if self.wire.len() < 4 {
            let k = self.rng.gen_range(0..self.cfg.nodes);
            if k != me as usize {
                if let Some(p) = self.senders[k].next_packet(t) {
                    let flits = p.flits();
                    self.forward(flits);
                }
            }
        }
        i[inp::NET_IN] = self.wire.pop_front().unwrap_or(0);
        i[inp::TX_GNT] = self.rng.gen_bool(0.8) as u64;
        // The upper layer.
        i[inp::UP_READY] = 0;
        i[inp::UP_ACCEPT] = 0;
        if prev[out::UP_VALID] & 1 == 1 && self.rng.gen_bool(self.p.ready) {
            let (src, id, len) = (
                prev[out::UP_SRC] as u16,
                prev[out::UP_MSG_ID] as u32,
                prev[out::UP_LEN] as u32,
            );
            let a = self.answer(len);
            i[inp::UP_READY] = 1;
            i[inp::UP_ACCEPT] = a as u64;
            self.upcalls += 1;
            let acc = if a == 0 {
                0
            } else {
                a.min(len).min(self.cfg.max_msg as u32)
            };
            self.accepted.insert((src, id), acc);
            self.slot_messages.insert(prev[out::UP_SLOT], (src, id));
        }
        i[inp::DLV_READY] = 0;
        // The word addressed in the cycle before shows in this cycle's outputs (§11.6).
        self.read_shown = self.read_issued;
        self.read_issued = false;
        if self.reading.is_none() && prev[out::DLV_VALID] & 1 == 1 {
            let slot = prev[out::DLV_SLOT];
            match self.slot_messages.get(&slot) {
                Some(&(src, id)) => {
                    self.reading = Some((slot, src, id, prev[out::DLV_LEN] as usize, 0, vec![]))
                }
                None => self.error(format!(
                    "cycle {t}: slot {slot} delivered, which no upcall taken named"
                )),
            }
        }
        let mut done = None;
        if let Some(r) = self.reading.as_mut() {
            i[inp::RD_SLOT] = r.0;
            if (r.4 as usize) < r.3.div_ceil(4) {
                if self.rng.gen_bool(self.p.ready) {
                    i[inp::RD_WORD] = r.4;
                    r.4 += 1;
                    self.read_issued = true;
                } else {
                    i[inp::RD_WORD] = self.rng.gen_range(0..1024);
                }
            } else if !self.read_shown && self.rng.gen_bool(self.p.ready) {
                // Taken once every word is in: the last shows the cycle after it was addressed.
                i[inp::DLV_READY] = 1;
                done = self.reading.take();
            }
        } else {
            // Idle reads anywhere: the masking is compared too.
            i[inp::RD_SLOT] = self.rng.gen_range(0..16);
            i[inp::RD_WORD] = self.rng.gen_range(0..1024);
        }
        if let Some((_, src, id, len, _, words)) = done {
            self.delivered += 1;
            let got = crate::ni::words_to_bytes(&words, len);
            match (self.sent.remove(&(src, id)), self.accepted.get(&(src, id))) {
                (Some(d), Some(&acc)) if got.len() == acc as usize && d[..acc as usize] == got[..] => {}
                (Some(_), acc) => self.error(format!(
                    "cycle {t}: message {id:#x} from {src} delivered with {len} bytes, accepted {acc:?}, wrong bytes"
                )),
                (None, _) => self.error(format!(
                    "cycle {t}: message {id:#x} from {src} delivered but not outstanding (twice?)"
                )),
            }
        }
    }

    /// Collects the word addressed in cycle `t - 1`, shown in `O_t` (§11.6).
    pub fn observe(&mut self, o: &[u64]) {
        if self.read_shown {
            if let Some(r) = self.reading.as_mut() {
                r.5.push(o[out::RD_DATA] as u32);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::ModelBlock;
    use crate::rmpp::rx::RmppRx;
    use crate::rmpp::{cnt, COUNTERS};

    #[test]
    fn peers_drive_every_rule_and_the_scoreboard_holds() {
        let cfg = RmppConfig {
            node: 5,
            gch_timeout: 5000,
            rx_slots: 4,
            ..RmppConfig::DEFAULT
        };
        let mut rx = RmppRx::new(cfg).unwrap();
        let mut peers = RxPeers::new(cfg, RxPeerParams::default(), 3).unwrap();
        let mut i = vec![0; inp::WORDS];
        let mut o = vec![0; out::WORDS];
        for t in 0..300_000 {
            let prev = o.clone();
            peers.step(t, &prev, &mut i);
            rx.step(&i, &mut o);
            peers.observe(&o);
        }
        assert_eq!(peers.errors, 0, "{:?}", peers.first_error);
        assert!(peers.delivered > 500, "{} delivered", peers.delivered);
        let c = rx.counters();
        for k in [
            cnt::CRC,
            cnt::TRUNCATED,
            cnt::SEQUENCE,
            cnt::DUPLICATE,
            cnt::RESTART,
            cnt::TABLE_FULL,
        ] {
            assert!(c[k] > 0, "{} never moved: {c:?}", COUNTERS[k]);
        }
        let _ = rx.ports();
    }
}
