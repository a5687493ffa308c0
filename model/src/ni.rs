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
use crate::view::{Inputs, Outputs, Ports};

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
    for (j, (p, &word)) in payload.iter_mut().zip(words).enumerate() {
        // Word j holds bytes 4j..4j+4, byte 4j in bits 31:24: keep those below `len`.
        let kept = len.saturating_sub(4 * j).min(4);
        *p = match kept {
            0 => 0,
            k => word & (u32::MAX << (8 * (4 - k))),
        };
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
    /// The retry timer, as the step ([`Ni::now`]) from which it reads 0: it reads
    /// `due - now` before that (§8.5).
    due: u64,
    sent: bool,
}

#[derive(Clone, Copy, Debug, Default)]
struct RecvSlot {
    active: bool,
    uid: u32,
    /// The ACK timer, as the step from which it reads 0 (as [`SendSlot::due`]).
    due: u64,
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
    /// One word per beat, the first `beats` of these: `ceil(len / 4)` words, or one word 0 for
    /// no bytes (the packet's words, held in place).
    words: [u32; PAYLOAD_WORDS],
    beats: usize,
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
///
/// A pick names what its worm is made of, not the worm: the send slot it names cannot change
/// its uid, destination or payload before the pick starts (only a request's last beat writes
/// them, into a free slot, and a slot is freed only by its own FORGET's start); a receive slot
/// can be freed and taken again, so an ACK keeps its uid.
#[derive(Clone, Copy, Debug)]
enum Pick {
    /// The late FORGET of `uid` to `dst`.
    Late { uid: u32, dst: u16 },
    /// The FORGET of send slot `.0`.
    Forget(usize),
    /// The ACK of receive slot `slot`, which held `uid`.
    Ack { slot: usize, uid: u32 },
    /// The SEND of send slot `slot`, `sent` before or not.
    Send { slot: usize, sent: bool },
}

/// A packet of this NI as its transmitter sends it: a [`Packet`] from this node whose payload
/// is words, built when its worm starts without allocating (a worm starts every few cycles).
#[derive(Clone, Copy, Debug)]
struct Outgoing {
    kind: Kind,
    dst: u16,
    uid: u32,
    /// Payload bytes; the words past them are zero.
    len: u8,
    data: [u32; PAYLOAD_WORDS],
}

impl Outgoing {
    /// An ACK or FORGET.
    fn control(kind: Kind, dst: u16, uid: u32) -> Outgoing {
        Outgoing {
            kind,
            dst,
            uid,
            len: 0,
            data: [0; PAYLOAD_WORDS],
        }
    }

    /// Replaces `tx` with the worm from node `src`: what [`Packet::flits`] makes of the packet.
    fn flits_into(&self, src: u16, tx: &mut Vec<u64>) {
        let route = (src as u32) << 16 | self.dst as u32;
        let header = header_word(self.kind, self.len as usize, self.uid as u16);
        let payload = &self.data[..(self.len as usize).div_ceil(4)];
        tx.clear();
        tx.push(VALID | HEAD | route as u64);
        let mut crc = crc32_step(idemnet_spec::crc::INITIAL, route);
        for &word in std::iter::once(&header).chain(payload) {
            tx.push(VALID | word as u64);
            crc = crc32_step(crc, word);
        }
        tx.push(VALID | TAIL | crc as u64);
    }
}

/// Which of the outputs that are zero at rest the last step showed otherwise.
#[derive(Clone, Copy, Debug, Default)]
struct Showed {
    delivery: bool,
    done: bool,
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
    /// Bit `s` set where send slot `s` is in that state, and bit `r` of `active` where receive
    /// slot `r` is: the slot tables' states as masks (`set_send_state`, `set_active` keep them),
    /// so that a search over the slots in index order walks the set bits upward.
    free: u32,
    waiting: u32,
    forgetting: u32,
    active: u32,
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
    /// [`Ni::at_rest`] after the last step, kept up to date by the fast path (nothing else
    /// changes the state in between but [`Ni::cut_worm`], which clears it).
    resting: bool,
    /// Steps taken since power-on: the clock the timers' ends are read against.
    now: u64,
    /// What the last outputs showed besides zeros, for a buffer that keeps them.
    showed: Showed,
    /// [`Ni::wake`] as of the last full step that found the NI at rest (no timer is reloaded in
    /// a fast one, which reads it only then).
    wake: u64,
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
    /// Steps whose `show` still moves a counter from `counters` through `settled` to `shown`:
    /// 2 when one was counted since the last step, 0 once all three agree (most steps, which
    /// then neither copy nor compare them).
    unsettled: u8,
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
            due: 0,
            sent: false,
        };
        Ok(Ni {
            lfsr: crate::lfsr::ni_seed(cfg.node as usize),
            cfg,
            send: vec![free; cfg.send_slots],
            recv: vec![RecvSlot::default(); cfg.recv_slots],
            free: (1 << cfg.send_slots) - 1,
            waiting: 0,
            forgetting: 0,
            active: 0,
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
            resting: false,
            now: 0,
            showed: Showed::default(),
            wake: u64::MAX,
            net_out: 0,
            req_ready: false,
            done: None,
            counters: [0; COUNTERS.len()],
            shown: [0; COUNTERS.len()],
            settled: [0; COUNTERS.len()],
            unsettled: 0,
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
        self.unsettled = 2;
    }

    /// The node's one receiver (§13.3) saw a head go to the other block: a worm of this block
    /// in progress ends `truncated` at this edge, as a head of its own would cut it. Called
    /// before this cycle's step.
    pub fn cut_worm(&mut self) {
        if matches!(self.rx.state, Rx::Header | Rx::Payload | Rx::Crc) {
            self.rx.state = Rx::Idle;
            self.count(cnt::TRUNCATED);
            self.resting = false;
        }
    }

    /// The last beat of a well-formed request was taken: its slot becomes busy with the next
    /// uid and its SEND is due at once (§8.5).
    fn commit(&mut self, request: RequestHeader, words: &[u32]) {
        debug_assert_eq!(self.send[request.slot].state, SendState::Free);
        self.set_send_state(request.slot, SendState::Wait);
        self.send[request.slot] = SendSlot {
            state: SendState::Wait,
            counter: self.counter,
            dst: request.dst,
            len: request.len,
            data: slot_payload(words, request.len as usize),
            due: 0,
            sent: false,
        };
        self.counter = self.counter.wrapping_add(1);
    }

    /// The first due packet in priority over the slot tables and `late` as they are (§8.5).
    fn pick_of(&self, late: Option<(u32, u16)>) -> Option<Pick> {
        if let Some((uid, dst)) = late {
            return Some(Pick::Late { uid, dst });
        }
        let send = &self.send;
        if let Some(s) = bits(self.forgetting).next() {
            return Some(Pick::Forget(s));
        }
        let now = self.now;
        if let Some(r) = bits(self.active).find(|&r| self.recv[r].due <= now) {
            let uid = self.recv[r].uid;
            return Some(Pick::Ack { slot: r, uid });
        }
        let s = bits(self.waiting).find(|&s| send[s].due <= now)?;
        Some(Pick::Send {
            slot: s,
            sent: send[s].sent,
        })
    }

    /// Send slot `s`'s SEND or FORGET.
    fn own_packet(&self, kind: Kind, s: usize) -> Outgoing {
        let slot = &self.send[s];
        let uid = (self.cfg.node as u32) << 16 | slot.counter as u32;
        match kind {
            // The slot's words past its bytes are zero (`slot_payload`), as a SEND carries them.
            Kind::Send => Outgoing {
                kind,
                dst: slot.dst,
                uid,
                len: slot.len,
                data: slot.data,
            },
            _ => Outgoing::control(kind, slot.dst, uid),
        }
    }

    /// The receive path (§8.3) for one flit; the packet that completed, if any, goes to
    /// `arrived` (which its caller has emptied).
    #[inline]
    fn receive(&mut self, f: u64) {
        if f & VALID != 0 {
            self.receive_valid(f);
        }
    }

    /// [`Ni::receive`] for a valid flit.
    fn receive_valid(&mut self, f: u64) {
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
            return;
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
                        self.arrived = Some(Arrived {
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
    }
}

impl ModelBlock for Ni {
    fn ports(&self) -> Vec<PortSpec> {
        PORTS.specs()
    }

    fn step(&mut self, i: &[u64], o: &mut [u64]) {
        self.step_ports(i, o);
    }
}

impl Ports for Ni {
    /// [`ModelBlock::step`] on any port buffers: a slice alone, or the system's (§10, [`crate::view`]).
    fn step_ports<I: Inputs + ?Sized, O: Outputs + ?Sized>(&mut self, i: &I, o: &mut O) {
        // No flit in and no request beat taken: the cycles the two fast paths below take.
        let nothing_in =
            i[inp::NET_IN] & VALID == 0 && !(self.req_ready && i[inp::REQ_VALID] & 1 == 1);
        if self.resting && nothing_in {
            // Nothing to send, deliver or take, and no flit: the edge only counts the timers
            // down (the full rules below give the same), and the NI rests until one of them
            // runs out.
            self.rest();
            if !o.kept() {
                self.show(o);
            }
            return;
        }
        if nothing_in && self.streams() {
            // A worm going out and nothing else to do: the edge sends its next flit, which is
            // not its last (so no pick is made), and counts the timers down; what the full
            // rules below do then. Of the outputs only `net_out` changes (`tx_req` stays low
            // while a worm is out; no delivery, completion or counter shows).
            self.net_out = self.tx[self.tx_next];
            self.tx_next += 1;
            self.now += 1;
            if o.kept() {
                o[out::NET_OUT] = self.net_out;
            } else {
                self.show(o);
            }
            return;
        }
        self.step_full(i, o);
    }
}

impl Ni {
    /// [`Ports::step_ports`] by the full rules, apart from its fast paths so that these need
    /// not set up what it does (its registers and stack).
    #[inline(never)]
    fn step_full<I: Inputs + ?Sized, O: Outputs + ?Sized>(&mut self, i: &I, o: &mut O) {
        // Decisions below read the state before the edge. Each reads the slot tables before
        // anything at this edge writes what it reads, but for these, taken first: the pick
        // for the next worm, the receive slots in use, and (below) the send slot a request
        // takes at this edge.
        let late_before = self.late_forget;
        let delivering_before = self.delivery.is_some();
        let tx_idle = self.tx_next >= self.tx.len();
        let started = tx_idle && i[inp::TX_GNT] & 1 == 1 && self.pick.is_some();
        // The pick for the next worm: between worms, and at the edge of a worm's last flit.
        let finishing = !tx_idle && self.tx_next + 1 == self.tx.len();
        let next_pick = if (tx_idle && !started) || finishing {
            Some(self.pick_of(late_before))
        } else {
            None
        };
        // Whether the receive slot of an ACK that starts at this edge was in use before it.
        let acked_slot_active = match self.pick {
            Some(Pick::Ack { slot, .. }) if started => self.recv[slot].active,
            _ => false,
        };
        let mut committed = None;

        // The delivery stream (§8.4): the beat shown in O_(t-1) is taken, the next one shows.
        if let Some(d) = self.delivery.as_mut() {
            if i[inp::DLV_READY] & 1 == 1 {
                d.beat += 1;
                if d.beat == d.beats {
                    self.delivery = None;
                }
            }
        }
        // The request stream (§8.5): a beat is taken while req_ready showed in O_(t-1).
        if self.req_ready && i[inp::REQ_VALID] & 1 == 1 {
            let first = || {
                // req_ready said a slot was free before this edge; the request keeps the
                // lowest one until its last beat.
                let slot = bits(self.free).next().unwrap_or(0);
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
                Taken::Complete { header, words } => {
                    self.commit(header, &words);
                    committed = Some(header.slot);
                }
                Taken::Refused => self.count(cnt::HOST_ERROR),
                Taken::Pending | Taken::Ignored => {}
            }
        }
        // What the packet whose CRC flit came at the last edge does (§8.4), then the receive
        // path, whose packet acts at the next edge.
        if let Some(p) = self.arrived.take() {
            match p.kind {
                Kind::Send => {
                    // No receive slot has changed at this edge yet.
                    let recv = &self.recv;
                    let dup = bits(self.active).any(|r| recv[r].uid == p.uid);
                    let all = (1u32 << recv.len()) - 1;
                    let free = bits(!self.active & all).next();
                    match (dup, free) {
                        (true, _) => self.count(cnt::DUPLICATE),
                        (false, Some(r)) if !delivering_before => {
                            self.recv[r] = RecvSlot {
                                active: true,
                                uid: p.uid,
                                due: 0,
                            };
                            self.active |= 1 << r;
                            // No bytes: one beat, its word 0 (the receive path zeroes a
                            // packet's words at its head).
                            debug_assert!(p.len > 0 || p.data[0] == 0);
                            self.delivery = Some(Delivery {
                                src: p.src,
                                uid: p.uid,
                                len: p.len,
                                words: p.data,
                                beats: crate::stream::beats(p.len as usize),
                                beat: 0,
                            });
                        }
                        _ => self.count(cnt::TABLE_FULL),
                    }
                }
                Kind::Ack => {
                    // A slot a request took at this edge was free before it.
                    let all = (1u32 << self.send.len()) - 1;
                    let held = bits(!self.free & all)
                        .find(|&k| Some(k) != committed && self.send[k].counter == p.uid as u16);
                    match held {
                        Some(s) => {
                            if self.send[s].state == SendState::Wait {
                                self.set_send_state(s, SendState::ForgetPending);
                            }
                        }
                        None if late_before.is_none() => {
                            self.late_forget = Some((p.uid, p.src));
                        }
                        None => self.count(cnt::BUSY),
                    }
                }
                Kind::Forget => match bits(self.active).find(|&r| self.recv[r].uid == p.uid) {
                    Some(r) => {
                        self.recv[r].active = false;
                        self.active &= !(1 << r);
                    }
                    None => self.count(cnt::UNKNOWN),
                },
            }
        }
        // `arrived` was emptied above.
        self.receive(i[inp::NET_IN]);
        // Transmitter (§8.5).
        self.done = None;
        if tx_idle {
            self.tx.clear();
            self.tx_next = 0;
        }
        if started {
            // The pick is spent: it is registered again at the worm's last flit (§8.5).
            if let Some(pick) = self.pick.take() {
                let worm = match pick {
                    Pick::Late { uid, dst } => {
                        self.late_forget = None;
                        Outgoing::control(Kind::Forget, dst, uid)
                    }
                    Pick::Forget(s) => {
                        let worm = self.own_packet(Kind::Forget, s);
                        self.set_send_state(s, SendState::Free);
                        self.done = Some(worm.uid);
                        worm
                    }
                    Pick::Ack { slot: r, uid } => {
                        // A FORGET at the pick's edge may have freed the slot: no reload then.
                        if acked_slot_active {
                            let timer = self.cfg.ack_interval.saturating_sub(2);
                            self.recv[r].due = self.now + 1 + timer as u64;
                        }
                        Outgoing::control(Kind::Ack, (uid >> 16) as u16, uid)
                    }
                    Pick::Send { slot, sent } => {
                        let worm = self.own_packet(Kind::Send, slot);
                        // The repeat comes `retry_interval - retry_spread / 2 + r` cycles
                        // after this start, `r` the LFSR's low bits (§8.5); the timer runs two
                        // cycles short of that, which the pick and the start take.
                        let spread = self.cfg.retry_spread;
                        let r = self.lfsr & spread.saturating_sub(1);
                        self.lfsr = crate::lfsr::step(self.lfsr);
                        let timer = (self.cfg.retry_interval - spread / 2).saturating_sub(2) + r;
                        self.send[slot].due = self.now + 1 + timer as u64;
                        if sent {
                            self.count(cnt::RETRANSMIT);
                        }
                        self.send[slot].sent = true;
                        worm
                    }
                };
                worm.flits_into(self.cfg.node, &mut self.tx);
                self.tx_next = 0;
            }
        }
        if let Some(pick) = next_pick {
            self.pick = pick;
        }
        self.net_out = match self.tx.get(self.tx_next) {
            Some(&f) => {
                self.tx_next += 1;
                f
            }
            None => 0,
        };
        // Timers count down except where just reloaded: a reload above put its value after
        // this edge, which every other timer comes one step nearer to its end at.
        self.now += 1;
        self.req_ready = self.free != 0;
        self.show(o);
        self.resting = self.at_rest();
        debug_assert!(self.masks_agree(), "the slot masks follow the slot tables");
    }
}

/// The set bits of `mask`, lowest first.
fn bits(mut mask: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let bit = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            bit
        })
    })
}

impl Ni {
    /// Whether the state masks are the slot tables'.
    fn masks_agree(&self) -> bool {
        let mask = |f: &dyn Fn(usize) -> bool, n: usize| {
            (0..n).filter(|&k| f(k)).fold(0, |m, k| m | 1 << k)
        };
        let send = |state| mask(&|s| self.send[s].state == state, self.send.len());
        (self.free, self.waiting, self.forgetting, self.active)
            == (
                send(SendState::Free),
                send(SendState::Wait),
                send(SendState::ForgetPending),
                mask(&|r| self.recv[r].active, self.recv.len()),
            )
    }

    /// Sets send slot `s`'s state, and its bit in the state masks.
    fn set_send_state(&mut self, s: usize, state: SendState) {
        self.send[s].state = state;
        let bit = 1 << s;
        self.free &= !bit;
        self.waiting &= !bit;
        self.forgetting &= !bit;
        *match state {
            SendState::Free => &mut self.free,
            SendState::Wait => &mut self.waiting,
            SendState::ForgetPending => &mut self.forgetting,
        } |= bit;
    }

    /// The step from which the first timer that can make a packet due reads 0: a waiting
    /// SEND's retry timer or an active receive slot's ACK timer ([`Ni::pick_of`]).
    fn wake(&self) -> u64 {
        let send = bits(self.waiting).map(|s| self.send[s].due).min();
        let ack = bits(self.active).map(|r| self.recv[r].due).min();
        ack.unwrap_or(u64::MAX).min(send.unwrap_or(u64::MAX))
    }

    /// Whether an edge with no flit in and no request beat taken only counts the timers down:
    /// no worm in or out, no packet picked or due (a FORGET, or a timer that reads 0), no
    /// delivery or completion shown, and the counters shown as counted. Leaves `wake` up to
    /// date when it says yes, which the fast path ([`Ports::step_ports`]) then reads alone.
    fn at_rest(&mut self) -> bool {
        // All of them read at once (`&`, not `&&`): each is a field, and a branch per test
        // would guess wrong as often as the traffic changes its answer.
        let quiet = (self.rx.state == Rx::Idle)
            & self.arrived.is_none()
            & self.delivery.is_none()
            & (self.tx_next >= self.tx.len())
            & (self.net_out == 0)
            & self.pick.is_none()
            & self.late_forget.is_none()
            & self.done.is_none()
            & (self.unsettled == 0)
            & (self.forgetting == 0);
        if !quiet {
            return false;
        }
        self.wake = self.wake();
        self.now < self.wake
    }

    /// Whether a step with no flit in and request-valid input `req_valid` would only count
    /// the timers down ([`Ports::step_ports`]'s first fast path).
    pub(crate) fn rests_without(&self, req_valid: u64) -> bool {
        self.resting && !(self.req_ready && req_valid & 1 == 1)
    }

    /// That step ([`Ni::rests_without`]) on a buffer that keeps the outputs, which it leaves as
    /// they are.
    pub(crate) fn rest(&mut self) {
        debug_assert!(self.resting);
        self.now += 1;
        self.resting = self.now < self.wake;
    }

    /// Whether the NI is in the middle of sending a worm, before its last flit, with nothing
    /// else under way: no packet arrived to act on, no delivery or completion shown, the
    /// counters settled. An edge with no flit in and no request beat taken then only sends
    /// the next flit ([`Ports::step_ports`]).
    fn streams(&self) -> bool {
        self.tx_next + 1 < self.tx.len()
            && self.arrived.is_none()
            && self.delivery.is_none()
            && self.done.is_none()
            && self.unsettled == 0
    }

    /// Writes `O_t` from the registers after the edge.
    /// A buffer that kept the last outputs ([`Outputs::kept`]) is written only where they
    /// may differ.
    fn show<O: Outputs + ?Sized>(&mut self, o: &mut O) {
        let kept = o.kept();
        o[out::NET_OUT] = self.net_out;
        o[out::REQ_READY] = self.req_ready as u64;
        let shown = self.delivery.as_ref().map(|d| {
            let last = d.beat + 1 == d.beats;
            (d.words[d.beat], last, d.src, d.uid, d.len)
        });
        if !kept || shown.is_some() || self.showed.delivery {
            let (data, last, src, uid, len) = shown.unwrap_or_default();
            o[out::DLV_VALID] = shown.is_some() as u64;
            o[out::DLV_DATA] = data as u64;
            o[out::DLV_LAST] = last as u64;
            o[out::DLV_SRC] = src as u64;
            o[out::DLV_UID] = uid as u64;
            o[out::DLV_LEN] = len as u64;
        }
        if !kept || self.done.is_some() || self.showed.done {
            o[out::DONE_VALID] = self.done.is_some() as u64;
            o[out::DONE_UID] = self.done.unwrap_or(0) as u64;
        }
        o[out::TX_REQ] = (self.tx_next >= self.tx.len() && self.pick.is_some()) as u64;
        // The counters show the events of the edges before this one (§8.2). Two steps after
        // the last count the three copies agree, and a kept buffer shows them already.
        debug_assert_eq!(
            self.unsettled == 0,
            self.shown == self.counters && self.settled == self.counters
        );
        let mut moved = false;
        if self.unsettled > 0 {
            self.unsettled -= 1;
            let before = self.shown;
            self.shown = self.settled;
            self.settled = self.counters;
            moved = self.shown != before;
        }
        if !kept || moved {
            for (k, &c) in self.shown.iter().enumerate() {
                o[out::COUNTERS + k] = c as u64;
            }
        }
        self.showed = Showed {
            delivery: shown.is_some(),
            done: self.done.is_some(),
        };
    }
}

pub mod peers;

#[cfg(test)]
mod tests;
