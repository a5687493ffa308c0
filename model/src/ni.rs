//! The idempotent network interface of docs/protocol.md §8, cycle-accurate at its ports.
//!
//! Block ports (as [`ModelBlock`], `clock` excluded): the table `idemnet_spec::ni::PORTS`
//! (§8.2), re-exported as [`PORTS`], with the flat-buffer words [`inp`] and [`out`] computed
//! from it. The host side is two 32-bit word streams: requests in (`req_*`, §8.5), deliveries
//! out (`dlv_*`, §8.4).
//!
//! Timing: every output is a register. One `step` applies `I_t`, reads the state as it was
//! before edge `t`, and shows `O_t`. All outputs are zero at power-on (`req_ready` rises after
//! the first edge).
//!
//! The packet kinds, payload sizes, port table, counters, parameters and the CRC are the
//! contract's, shared with the RTL: they live in `idemnet_spec` and are re-exported here.

use crate::block::ModelBlock;
use crate::ports::PortSpec;
use crate::stream::{Requests, Taken};
use crate::switch::{HEAD, TAIL, VALID};

pub use idemnet_spec::crc::{crc32, crc32_step};
pub use idemnet_spec::ni::{
    cnt, header_word, inp, out, packet_flits, Kind, NiConfig, COUNTERS, HEADER_RESERVED,
    HEADER_WORDS, MAX_PAYLOAD, PAYLOAD_WORDS, PORTS,
};

/// A packet of §8.1.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Packet {
    pub kind: Kind,
    pub src: u16,
    pub dst: u16,
    pub uid: u32,
    /// Payload bytes (at most [`MAX_PAYLOAD`] for a well-formed packet).
    pub data: Vec<u8>,
}

/// Payload bytes as 32-bit words, byte 0 in bits 31:24 of word 0, the last word zero-padded.
pub fn bytes_to_words(data: &[u8]) -> Vec<u32> {
    data.chunks(4)
        .map(|c| {
            let mut b = [0u8; 4];
            b[..c.len()].copy_from_slice(c);
            u32::from_be_bytes(b)
        })
        .collect()
}

/// The first `len` bytes of `words`.
pub fn words_to_bytes(words: &[u32], len: usize) -> Vec<u8> {
    words
        .iter()
        .flat_map(|w| w.to_be_bytes())
        .take(len)
        .collect()
}

impl Packet {
    /// Whether the uid's owner is the one its route implies (§8.1: SEND and FORGET carry their
    /// source's uids, an ACK its destination's): only such a packet can be put on the wire,
    /// which carries the uid's counter alone.
    pub fn owner_fits(&self) -> bool {
        (self.uid >> 16) as u16 == self.kind.owner(self.src, self.dst)
    }

    /// The data words of the worm before the CRC: route, header (with the uid's counter),
    /// payload.
    pub fn words(&self) -> Vec<u32> {
        debug_assert!(self.owner_fits(), "{self:?}: a uid the wire cannot carry");
        let mut v = vec![
            (self.src as u32) << 16 | self.dst as u32,
            header_word(self.kind, self.data.len(), self.uid as u16),
        ];
        v.extend(bytes_to_words(&self.data));
        v
    }

    /// The worm: head, body flits and the CRC tail (35-bit flits).
    pub fn flits(&self) -> Vec<u64> {
        let w = self.words();
        let crc = crc32(&w);
        let mut f: Vec<u64> = w.iter().map(|&x| VALID | x as u64).collect();
        f[0] |= HEAD;
        f.push(VALID | TAIL | crc as u64);
        f
    }

    /// Decodes a complete worm (as [`Packet::flits`] makes it); `None` if it is not one.
    pub fn from_flits(flits: &[u64]) -> Option<Packet> {
        if flits.len() < packet_flits(0) || flits.iter().any(|f| f & VALID == 0) {
            return None;
        }
        let w: Vec<u32> = flits.iter().map(|&f| f as u32).collect();
        let n = w.len();
        if crc32(&w[..n - 1]) != w[n - 1] {
            return None;
        }
        let kind = Kind::from_code(w[1] >> 30)?;
        let len = ((w[1] >> 24) & 0x3F) as usize;
        if packet_flits(len.div_ceil(4)) != n {
            return None;
        }
        let (src, dst) = ((w[0] >> 16) as u16, w[0] as u16);
        Some(Packet {
            kind,
            src,
            dst,
            uid: (kind.owner(src, dst) as u32) << 16 | (w[1] & 0xFFFF),
            data: words_to_bytes(&w[1 + HEADER_WORDS..n - 1], len),
        })
    }
}

/// The first `len` bytes of `words` as a slot's payload: the bytes past `len` cleared, which
/// is how a SEND carries them (§8.1, §8.5).
fn slot_payload(words: &[u32], len: usize) -> [u32; PAYLOAD_WORDS] {
    let mut payload = [0u32; PAYLOAD_WORDS];
    for (j, word) in bytes_to_words(&words_to_bytes(words, len))
        .into_iter()
        .enumerate()
    {
        payload[j] = word;
    }
    payload
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SendState {
    Free,
    Wait,
    ForgetPending,
}

#[derive(Clone, Copy, Debug)]
struct SendSlot {
    state: SendState,
    counter: u16,
    dst: u16,
    len: u8,
    data: [u32; PAYLOAD_WORDS],
    timer: u16,
    sent: bool,
}

#[derive(Clone, Copy, Debug, Default)]
struct RecvSlot {
    active: bool,
    uid: u32,
    timer: u16,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rx {
    Idle,
    Header,
    Payload,
    Crc,
    Discard,
}

#[derive(Clone, Copy, Debug)]
struct RxRegs {
    state: Rx,
    src: u16,
    dst: u16,
    kind: Kind,
    len: u8,
    uid: u32,
    words: usize,
    data: [u32; PAYLOAD_WORDS],
    crc: u32,
}

/// A datagram being delivered (§8.4): its fields and words, and the beat shown.
#[derive(Clone, Debug)]
struct Delivery {
    src: u16,
    uid: u32,
    len: u8,
    /// One word per beat: `ceil(len / 4)` words, or one word 0 for no bytes.
    words: Vec<u32>,
    beat: usize,
}

/// What a request's first beat decides (§8.5): the slot its words go to, and the request's
/// destination and payload bytes.
#[derive(Clone, Copy, Debug)]
struct RequestHeader {
    slot: usize,
    dst: u16,
    len: u8,
}

/// The NI's next packet, registered a cycle ahead of the worm that carries it (§8.5): the slot
/// it acts on when it starts and the worm it is.
#[derive(Clone, Debug)]
enum Pick {
    /// The late FORGET.
    Late(Packet),
    /// The FORGET of send slot `.0`.
    Forget(usize, Packet),
    /// The ACK of receive slot `.0`.
    Ack(usize, Packet),
    /// The SEND of send slot `slot`, `sent` before or not.
    Send {
        slot: usize,
        sent: bool,
        packet: Packet,
    },
}

/// A packet the receive path completed: it acts at the next edge (§8.4).
#[derive(Clone, Debug)]
struct Arrived {
    kind: Kind,
    src: u16,
    uid: u32,
    len: u8,
    data: [u32; PAYLOAD_WORDS],
}

/// The one NI.
#[derive(Clone, Debug)]
pub struct Ni {
    cfg: NiConfig,
    /// The retry spread's LFSR (§8.5): it steps once at every SEND's start, never otherwise,
    /// so that an idle NI keeps its state (the replay skips idle cycles: docs/replay.md).
    lfsr: u16,
    send: Vec<SendSlot>,
    recv: Vec<RecvSlot>,
    counter: u16,
    late_forget: Option<(u32, u16)>,
    /// The next packet (§8.5), `None` when none was due.
    pick: Option<Pick>,
    /// The packet whose CRC flit was consumed at the last edge: it acts at this one (§8.4).
    arrived: Option<Arrived>,
    rx: RxRegs,
    /// The worm being sent and the index of its next flit.
    tx: Vec<u64>,
    tx_next: usize,
    /// The request stream: where the request in progress stands.
    requests: Requests<RequestHeader>,
    /// The delivery stream: the datagram being delivered, if any.
    delivery: Option<Delivery>,
    /// Scratch copies of the slot tables as they were before the edge.
    send_before: Vec<SendSlot>,
    recv_before: Vec<RecvSlot>,
    // Output registers.
    net_out: u64,
    req_ready: bool,
    done: Option<u32>,
    counters: [u16; COUNTERS.len()],
    /// The counters as shown in the last `O_t`: an event counted at edge `t` shows from
    /// `O_(t+1)` (§8.2).
    shown: [u16; COUNTERS.len()],
    /// The counters at the end of the last step, shown at the next: a cut counted before a
    /// step (`cut_worm`) is of that step's edge, so the snapshot is taken after each step.
    settled: [u16; COUNTERS.len()],
}

impl Ni {
    /// An NI at power-on.
    pub fn new(cfg: NiConfig) -> Result<Ni, String> {
        cfg.validate()?;
        let free = SendSlot {
            state: SendState::Free,
            counter: 0,
            dst: 0,
            len: 0,
            data: [0; PAYLOAD_WORDS],
            timer: 0,
            sent: false,
        };
        Ok(Ni {
            lfsr: crate::lfsr::ni_seed(cfg.node as usize),
            cfg,
            send: vec![free; cfg.send_slots],
            recv: vec![RecvSlot::default(); cfg.recv_slots],
            counter: 0,
            late_forget: None,
            pick: None,
            arrived: None,
            rx: RxRegs {
                state: Rx::Idle,
                src: 0,
                dst: 0,
                kind: Kind::Send,
                len: 0,
                uid: 0,
                words: 0,
                data: [0; PAYLOAD_WORDS],
                crc: 0,
            },
            tx: Vec::new(),
            tx_next: 0,
            requests: Requests::default(),
            delivery: None,
            send_before: Vec::new(),
            recv_before: Vec::new(),
            net_out: 0,
            req_ready: false,
            done: None,
            counters: [0; COUNTERS.len()],
            shown: [0; COUNTERS.len()],
            settled: [0; COUNTERS.len()],
        })
    }

    pub fn config(&self) -> NiConfig {
        self.cfg
    }

    /// The counters of [`COUNTERS`] as shown in the last `O_t`.
    pub fn counters(&self) -> &[u16; COUNTERS.len()] {
        &self.shown
    }

    fn count(&mut self, c: usize) {
        self.counters[c] = self.counters[c].wrapping_add(1);
    }

    /// The node's one receiver (§13.3) saw a head go to the other block: a worm of this block
    /// in progress ends `truncated` at this edge, as a head of its own would cut it. Called
    /// before this cycle's step.
    pub fn cut_worm(&mut self) {
        if matches!(self.rx.state, Rx::Header | Rx::Payload | Rx::Crc) {
            self.rx.state = Rx::Idle;
            self.count(cnt::TRUNCATED);
        }
    }

    /// The last beat of a well-formed request was taken: its slot becomes busy with the next
    /// uid and its SEND is due at once (§8.5).
    fn commit(&mut self, request: RequestHeader, words: &[u32]) {
        debug_assert_eq!(self.send[request.slot].state, SendState::Free);
        self.send[request.slot] = SendSlot {
            state: SendState::Wait,
            counter: self.counter,
            dst: request.dst,
            len: request.len,
            data: slot_payload(words, request.len as usize),
            timer: 0,
            sent: false,
        };
        self.counter = self.counter.wrapping_add(1);
    }

    /// The first due packet in priority over the state `send`, `recv`, `late` (§8.5).
    fn pick_of(
        &self,
        send: &[SendSlot],
        recv: &[RecvSlot],
        late: Option<(u32, u16)>,
    ) -> Option<Pick> {
        let me = self.cfg.node;
        let packet = |kind, dst, uid, data: Vec<u8>| Packet {
            kind,
            src: me,
            dst,
            uid,
            data,
        };
        let own_uid = |counter: u16| (me as u32) << 16 | counter as u32;
        if let Some((uid, dst)) = late {
            return Some(Pick::Late(packet(Kind::Forget, dst, uid, vec![])));
        }
        if let Some(s) = send
            .iter()
            .position(|s| s.state == SendState::ForgetPending)
        {
            let uid = own_uid(send[s].counter);
            return Some(Pick::Forget(
                s,
                packet(Kind::Forget, send[s].dst, uid, vec![]),
            ));
        }
        if let Some(r) = recv.iter().position(|r| r.active && r.timer == 0) {
            let uid = recv[r].uid;
            return Some(Pick::Ack(
                r,
                packet(Kind::Ack, (uid >> 16) as u16, uid, vec![]),
            ));
        }
        let s = send
            .iter()
            .position(|s| s.state == SendState::Wait && s.timer == 0)?;
        let slot = send[s];
        let data = words_to_bytes(&slot.data, slot.len as usize);
        Some(Pick::Send {
            slot: s,
            sent: slot.sent,
            packet: packet(Kind::Send, slot.dst, own_uid(slot.counter), data),
        })
    }

    /// The receive path (§8.3) for one flit; returns the packet that completed, if any.
    fn receive(&mut self, f: u64) -> Option<Arrived> {
        if f & VALID == 0 {
            return None;
        }
        let head = f & HEAD != 0;
        let tail = f & TAIL != 0;
        let d = f as u32;
        let crc_next = |c: u32| crc32_step(c, d);
        let r = &mut self.rx;
        if head {
            let cut = matches!(r.state, Rx::Header | Rx::Payload | Rx::Crc);
            r.src = (d >> 16) as u16;
            r.dst = d as u16;
            r.crc = crc32_step(u32::MAX, d);
            r.data = [0; PAYLOAD_WORDS];
            r.words = 0;
            r.state = if tail { Rx::Idle } else { Rx::Header };
            if cut {
                self.count(cnt::TRUNCATED);
            }
            if tail {
                self.count(cnt::TRUNCATED);
            }
            return None;
        }
        match r.state {
            Rx::Idle => {
                r.state = if tail { Rx::Idle } else { Rx::Discard };
                self.count(cnt::TRUNCATED);
            }
            Rx::Discard => {
                if tail {
                    r.state = Rx::Idle;
                }
            }
            Rx::Header | Rx::Payload if tail => {
                r.state = Rx::Idle;
                self.count(cnt::TRUNCATED);
            }
            Rx::Header => {
                let kind = Kind::from_code(d >> 30);
                let len = (d >> 24) & 0x3F;
                let ok = match kind {
                    None => false,
                    Some(Kind::Send) => len as usize <= MAX_PAYLOAD,
                    Some(_) => len == 0,
                } && d & HEADER_RESERVED == 0;
                if ok {
                    r.kind = kind.unwrap_or(Kind::Send);
                    r.len = len as u8;
                    r.crc = crc_next(r.crc);
                    r.uid = (r.kind.owner(r.src, r.dst) as u32) << 16 | (d & 0xFFFF);
                    r.state = if r.len == 0 { Rx::Crc } else { Rx::Payload };
                } else {
                    r.state = Rx::Discard;
                    self.count(cnt::MALFORMED);
                }
            }
            Rx::Payload => {
                r.data[r.words] = d;
                r.words += 1;
                r.crc = crc_next(r.crc);
                if r.words == (r.len as usize).div_ceil(4) {
                    r.state = Rx::Crc;
                }
            }
            Rx::Crc => {
                if !tail {
                    r.state = Rx::Discard;
                    self.count(cnt::MALFORMED);
                } else {
                    r.state = Rx::Idle;
                    if d != r.crc {
                        self.count(cnt::CRC);
                    } else if r.dst != self.cfg.node {
                        self.count(cnt::MISROUTED);
                    } else {
                        return Some(Arrived {
                            kind: r.kind,
                            src: r.src,
                            uid: r.uid,
                            len: r.len,
                            data: r.data,
                        });
                    }
                }
            }
        }
        None
    }
}

impl ModelBlock for Ni {
    fn ports(&self) -> Vec<PortSpec> {
        PORTS.specs()
    }

    fn step(&mut self, i: &[u64], o: &mut [u64]) {
        let cfg = self.cfg;
        // Decisions below read the state before the edge; the copies keep them from seeing
        // this cycle's own updates.
        // The state before the edge, in buffers kept from step to step (no allocation).
        let (mut send_before, mut recv_before) = (
            std::mem::take(&mut self.send_before),
            std::mem::take(&mut self.recv_before),
        );
        send_before.clone_from(&self.send);
        recv_before.clone_from(&self.recv);
        let late_before = self.late_forget;
        let delivering_before = self.delivery.is_some();
        let tx_idle = self.tx_next >= self.tx.len();
        let mut reloaded_send = usize::MAX;
        let mut reloaded_recv = usize::MAX;

        // The delivery stream (§8.4): the beat shown in O_(t-1) is taken, the next one shows.
        if let Some(d) = self.delivery.as_mut() {
            if i[inp::DLV_READY] & 1 == 1 {
                d.beat += 1;
                if d.beat == d.words.len() {
                    self.delivery = None;
                }
            }
        }
        // The request stream (§8.5): a beat is taken while req_ready showed in O_(t-1).
        if self.req_ready && i[inp::REQ_VALID] & 1 == 1 {
            let first = || {
                // req_ready said a slot was free before this edge; the request keeps the
                // lowest one until its last beat.
                let slot = send_before
                    .iter()
                    .position(|s| s.state == SendState::Free)
                    .unwrap_or(0);
                let len = (i[inp::REQ_LEN] & 0x3F) as u8;
                let header = RequestHeader {
                    slot,
                    dst: i[inp::REQ_DST] as u16,
                    len,
                };
                (header, len as usize)
            };
            let data = i[inp::REQ_DATA] as u32;
            match self.requests.take(first, data, i[inp::REQ_LAST] & 1 == 1) {
                Taken::Complete { header, words } => self.commit(header, &words),
                Taken::Refused => self.count(cnt::HOST_ERROR),
                Taken::Pending | Taken::Ignored => {}
            }
        }
        // What the packet whose CRC flit came at the last edge does (§8.4), then the receive
        // path, whose packet acts at the next edge.
        if let Some(p) = self.arrived.take() {
            match p.kind {
                Kind::Send => {
                    let dup = recv_before.iter().any(|r| r.active && r.uid == p.uid);
                    let free = recv_before.iter().position(|r| !r.active);
                    match (dup, free) {
                        (true, _) => self.count(cnt::DUPLICATE),
                        (false, Some(r)) if !delivering_before => {
                            self.recv[r] = RecvSlot {
                                active: true,
                                uid: p.uid,
                                timer: 0,
                            };
                            let words = if p.len == 0 {
                                vec![0]
                            } else {
                                p.data[..(p.len as usize).div_ceil(4)].to_vec()
                            };
                            self.delivery = Some(Delivery {
                                src: p.src,
                                uid: p.uid,
                                len: p.len,
                                words,
                                beat: 0,
                            });
                        }
                        _ => self.count(cnt::TABLE_FULL),
                    }
                }
                Kind::Ack => {
                    let held = send_before
                        .iter()
                        .position(|s| s.state != SendState::Free && s.counter == p.uid as u16);
                    match held {
                        Some(s) => {
                            if send_before[s].state == SendState::Wait {
                                self.send[s].state = SendState::ForgetPending;
                            }
                        }
                        None if late_before.is_none() => {
                            self.late_forget = Some((p.uid, p.src));
                        }
                        None => self.count(cnt::BUSY),
                    }
                }
                Kind::Forget => match recv_before.iter().position(|r| r.active && r.uid == p.uid) {
                    Some(r) => self.recv[r].active = false,
                    None => self.count(cnt::UNKNOWN),
                },
            }
        }
        self.arrived = self.receive(i[inp::NET_IN]);
        // Transmitter (§8.5).
        self.done = None;
        if tx_idle {
            self.tx.clear();
            self.tx_next = 0;
        }
        let mut started = false;
        if tx_idle && i[inp::TX_GNT] & 1 == 1 {
            // The pick is spent: it is registered again at the worm's last flit (§8.5).
            if let Some(pick) = self.pick.take() {
                started = true;
                let packet = match pick {
                    Pick::Late(packet) => {
                        self.late_forget = None;
                        packet
                    }
                    Pick::Forget(s, packet) => {
                        self.send[s].state = SendState::Free;
                        self.done = Some(packet.uid);
                        packet
                    }
                    Pick::Ack(r, packet) => {
                        // A FORGET at the pick's edge may have freed the slot: no reload then.
                        if recv_before[r].active {
                            self.recv[r].timer = cfg.ack_interval.saturating_sub(2);
                            reloaded_recv = r;
                        }
                        packet
                    }
                    Pick::Send { slot, sent, packet } => {
                        // The repeat comes `retry_interval - retry_spread / 2 + r` cycles
                        // after this start, `r` the LFSR's low bits (§8.5); the timer runs two
                        // cycles short of that, which the pick and the start take.
                        let spread = cfg.retry_spread;
                        let r = self.lfsr & spread.saturating_sub(1);
                        self.lfsr = crate::lfsr::step(self.lfsr);
                        self.send[slot].timer =
                            (cfg.retry_interval - spread / 2).saturating_sub(2) + r;
                        reloaded_send = slot;
                        if sent {
                            self.count(cnt::RETRANSMIT);
                        }
                        self.send[slot].sent = true;
                        packet
                    }
                };
                self.tx = packet.flits();
                self.tx_next = 0;
            }
        }
        // The pick for the next worm: between worms, and at the edge of a worm's last flit.
        let finishing = !tx_idle && self.tx_next + 1 == self.tx.len();
        if (tx_idle && !started) || finishing {
            self.pick = self.pick_of(&send_before, &recv_before, late_before);
        }
        self.net_out = match self.tx.get(self.tx_next) {
            Some(&f) => {
                self.tx_next += 1;
                f
            }
            None => 0,
        };
        // Timers count down except where just reloaded.
        for (s, slot) in self.send.iter_mut().enumerate() {
            if s != reloaded_send && slot.timer > 0 {
                slot.timer -= 1;
            }
        }
        for (r, slot) in self.recv.iter_mut().enumerate() {
            if r != reloaded_recv && slot.timer > 0 {
                slot.timer -= 1;
            }
        }
        self.req_ready = self.send.iter().any(|s| s.state == SendState::Free);
        self.send_before = send_before;
        self.recv_before = recv_before;

        // Outputs.
        o[out::NET_OUT] = self.net_out;
        o[out::REQ_READY] = self.req_ready as u64;
        let shown = self.delivery.as_ref().map(|d| {
            let last = d.beat + 1 == d.words.len();
            (d.words[d.beat], last, d.src, d.uid, d.len)
        });
        let (data, last, src, uid, len) = shown.unwrap_or_default();
        o[out::DLV_VALID] = shown.is_some() as u64;
        o[out::DLV_DATA] = data as u64;
        o[out::DLV_LAST] = last as u64;
        o[out::DLV_SRC] = src as u64;
        o[out::DLV_UID] = uid as u64;
        o[out::DLV_LEN] = len as u64;
        o[out::DONE_VALID] = self.done.is_some() as u64;
        o[out::DONE_UID] = self.done.unwrap_or(0) as u64;
        o[out::TX_REQ] = (self.tx_next >= self.tx.len() && self.pick.is_some()) as u64;
        // The counters show the events of the edges before this one (§8.2).
        self.shown = self.settled;
        self.settled = self.counters;
        for (k, &c) in self.shown.iter().enumerate() {
            o[out::COUNTERS + k] = c as u64;
        }
    }
}

pub mod peers;

#[cfg(test)]
mod tests;
