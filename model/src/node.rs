//! One node of the system (docs/protocol.md §13): the idempotent NI and the RMPP receive path
//! behind the protocol split, and the RMPP framer, all three sharing the node's link through the
//! transmit merge.
//!
//! [`Framer`], [`Merge`] and [`Demux`] are the small blocks of §13.1-§13.3; [`Node`] wires them
//! with an [`Ni`] and an [`RmppRx`]. Every block steps once per cycle: apply `I_t`, take edge
//! `t`, show `O_t`.

use crate::ni::{self, Ni, NiConfig};
use crate::rmpp::rx::{self, RmppRx};
use crate::rmpp::{Packet, RmppConfig, Type};
use crate::switch::{HEAD, TAIL, VALID};

/// The framer (§13.1): one packet held, sent as a worm when granted.
#[derive(Clone, Debug, Default)]
pub struct Framer {
    held: bool,
    worm: Vec<u64>,
    next: usize,
    /// `tx_ready` as shown in the last `O_t`.
    pub ready: bool,
    /// `net_out` as shown in the last `O_t`.
    pub net_out: u64,
}

impl Framer {
    /// `tx_req` as shown in the last `O_t`: holding a packet, transmitter idle.
    pub fn req(&self) -> bool {
        self.held && self.next >= self.worm.len()
    }

    /// One cycle: `packet` is `tx_valid` with its fields (`I_t`), `gnt` the merge's grant.
    pub fn step(&mut self, packet: Option<&Packet>, gnt: bool) {
        let idle = self.next >= self.worm.len();
        let req = self.req();
        if let (Some(p), true) = (packet, self.ready) {
            self.held = true;
            self.worm = p.flits();
            self.next = self.worm.len();
        }
        if idle && req && gnt {
            self.next = 0;
        }
        self.net_out = match self.worm.get(self.next) {
            Some(&f) => {
                self.next += 1;
                if f & TAIL != 0 {
                    self.held = false;
                }
                f
            }
            None => 0,
        };
        self.ready = !self.held;
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
        let f = flits.iter().fold(0, |a, &b| a | b);
        let free = f & VALID == 0 || f & TAIL != 0;
        let mut gnt = [false; 3];
        if free {
            if let Some(j) = (0..3).map(|k| (self.turn + k) % 3).find(|&j| reqs[j]) {
                gnt[j] = true;
                self.turn = (j + 1) % 3;
            }
        }
        gnt
    }
}

/// The protocol split (§13.3): a one-flit delay that sends each worm to the NI or to the RMPP
/// receive path by its first header word.
#[derive(Clone, Copy, Debug, Default)]
pub struct Demux {
    held: u64,
    rmpp: bool,
}

impl Demux {
    /// Cycle `t` with `net_in` = `f`: returns (to the NI, to the RMPP receive path).
    pub fn step(&mut self, f: u64) -> (u64, u64) {
        let h = self.held;
        let rmpp = if h & VALID != 0 && h & HEAD != 0 {
            f & VALID != 0 && f & HEAD == 0 && (f as u32) >> 30 == crate::rmpp::MARKER
        } else {
            self.rmpp
        };
        self.held = f;
        self.rmpp = rmpp;
        if rmpp {
            (0, h)
        } else {
            (h, 0)
        }
    }
}

/// What a node's host presents in one cycle.
#[derive(Clone, Debug, Default)]
pub struct NodeInputs<'a> {
    /// The NI's host inputs (`ni::inp`, `NET_IN` and `TX_GNT` ignored).
    pub ni: &'a [u64],
    /// The receive path's host inputs (`rx::inp`, `NET_IN` and `TX_GNT` ignored).
    pub rx: &'a [u64],
    /// The framer's packet, if `tx_valid`.
    pub tx: Option<&'a Packet>,
}

/// One node: NI, RMPP receive path, framer, merge and split.
#[derive(Clone, Debug)]
pub struct Node {
    pub ni: Ni,
    pub rx: RmppRx,
    pub framer: Framer,
    merge: Merge,
    demux: Demux,
    ni_in: Vec<u64>,
    rx_in: Vec<u64>,
    /// The NI's outputs (`ni::out`) as shown in the last `O_t`.
    pub ni_out: Vec<u64>,
    /// The receive path's outputs (`rx::out`) as shown in the last `O_t`.
    pub rx_out: Vec<u64>,
}

impl Node {
    pub fn new(ni: NiConfig, rmpp: RmppConfig) -> Result<Node, String> {
        if ni.node != rmpp.node {
            return Err(format!(
                "the NI is node {} but the RMPP receive path node {}",
                ni.node, rmpp.node
            ));
        }
        Ok(Node {
            ni: Ni::new(ni)?,
            rx: RmppRx::new(rmpp)?,
            framer: Framer::default(),
            merge: Merge::default(),
            demux: Demux::default(),
            ni_in: vec![0; ni::inp::WORDS],
            rx_in: vec![0; rx::inp::WORDS],
            ni_out: vec![0; ni::out::WORDS],
            rx_out: vec![0; rx::out::WORDS],
        })
    }

    /// One cycle with the fabric's flit `net_in`; returns the node's `net_out` of `O_t`.
    pub fn step(&mut self, net_in: u64, host: &NodeInputs) -> u64 {
        use crate::block::ModelBlock;
        let flits = [
            self.ni_out[ni::out::NET_OUT],
            self.rx_out[rx::out::NET_OUT],
            self.framer.net_out,
        ];
        let reqs = [
            self.ni_out[ni::out::TX_REQ] & 1 == 1,
            self.rx_out[rx::out::TX_REQ] & 1 == 1,
            self.framer.req(),
        ];
        let gnt = self.merge.step(flits, reqs);
        let (to_ni, to_rx) = self.demux.step(net_in);
        self.ni_in.copy_from_slice(host.ni);
        self.ni_in[ni::inp::NET_IN] = to_ni;
        self.ni_in[ni::inp::TX_GNT] = gnt[0] as u64;
        self.ni.step(&self.ni_in, &mut self.ni_out);
        self.rx_in.copy_from_slice(host.rx);
        self.rx_in[rx::inp::NET_IN] = to_rx;
        self.rx_in[rx::inp::TX_GNT] = gnt[1] as u64;
        self.rx.step(&self.rx_in, &mut self.rx_out);
        self.framer.step(host.tx, gnt[2]);
        self.ni_out[ni::out::NET_OUT] | self.rx_out[rx::out::NET_OUT] | self.framer.net_out
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

#[cfg(test)]
mod tests {
    use super::*;

    fn flit(head: bool, tail: bool, d: u32) -> u64 {
        VALID | if head { HEAD } else { 0 } | if tail { TAIL } else { 0 } | d as u64
    }

    #[test]
    fn the_demux_delays_by_one_and_splits_by_the_first_header_word() {
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
            .chain([0, flit(true, false, 1), flit(false, true, 2), 0])
        {
            out.push(d.step(f));
        }
        assert_eq!(out[0], (0, 0));
        assert_eq!(out[1], (0, worm[0]), "the head goes with its header");
        assert_eq!(out[2], (0, worm[1]));
        assert_eq!(out[3], (0, worm[2]));
        assert_eq!(out[5], (flit(true, false, 1), 0), "an NI worm");
        assert_eq!(out[6], (flit(false, true, 2), 0));
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

    #[test]
    fn the_framer_holds_one_packet_and_sends_it_when_granted() {
        let mut f = Framer::default();
        let p = framer_packet(2, 5, 1, 9, 100, 0, 0, 1, vec![1; 32]);
        f.step(None, false);
        assert!(f.ready);
        f.step(Some(&p), false);
        assert!(!f.ready && f.req());
        f.step(None, true);
        let mut got = vec![f.net_out];
        while got.last().unwrap() & TAIL == 0 {
            assert!(!f.ready);
            f.step(None, true);
            got.push(f.net_out);
        }
        assert!(f.ready, "ready again with the tail");
        assert_eq!(got, p.flits());
        assert_eq!(Packet::from_flits(&got).unwrap(), p);
    }
}
