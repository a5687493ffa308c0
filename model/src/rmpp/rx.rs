//! The RMPP receive path of docs/protocol.md §11, cycle-accurate at its ports.
//!
//! Block ports (as [`ModelBlock`], `clock` excluded): the table `idemnet_spec::rmpp::PORTS`
//! (§11.3), re-exported as [`PORTS`], with the flat-buffer words [`inp`] and [`out`] computed
//! from it.
//!
//! One `step` applies `I_t`, reads the state as it was before edge `t`, and shows `O_t`.

use std::collections::VecDeque;

use super::{cnt, Allowance, Packet, RmppConfig, Type, HEADER_WORDS, MARKER, VERSION};
use crate::block::ModelBlock;
use crate::ni::crc32_step;
use crate::ports::PortSpec;
use crate::switch::{HEAD, TAIL, VALID};
use crate::view::{Inputs, Outputs, Ports};
use idemnet_spec::rmpp::SELECTIVE_WINDOW;

pub use idemnet_spec::rmpp::{inp, out, PORTS};

/// Where a message is (§11.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum State {
    #[default]
    Upcall,
    Receiving,
    Complete,
    Ended,
    Dropped,
}

#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    busy: bool,
    src: u16,
    msg_id: u32,
    msg_num: u32,
    len: u32,
    limit: u32,
    state: State,
    next_seq: u32,
    grant: u32,
    cts_n: u16,
    reply_due: bool,
    /// ENDED or DROPPED: cycles left of `gch_timeout` (0: expired).
    timer: u32,
    /// RECEIVING, ENDED or DROPPED: cycles left until the reply is repeated.
    repeat: u32,
    /// Selective acceptance (§11.7): bit `i` set when packet `next_seq + 1 + i` is held.
    held: u16,
}

impl Slot {
    fn done(&self) -> bool {
        matches!(self.state, State::Ended | State::Dropped)
    }

    /// Selective acceptance: packet `seq` lies in the window past `next_seq`, within the
    /// accepted bytes, and is not held yet.
    fn holds(&self, seq: u32, mtu: usize) -> bool {
        let ahead = seq.wrapping_sub(self.next_seq);
        (1..=SELECTIVE_WINDOW).contains(&ahead)
            && self.held & 1 << (ahead - 1) == 0
            && (seq as u64) * (mtu as u64) < self.limit as u64
    }
}

/// What a worm will do, decided when its word 6 is consumed (§11.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    Drop(usize),
    /// Drop, counted as the reason, and send the slot's reply again.
    DropReply(usize, usize),
    New(usize),
    InSeq {
        slot: usize,
        restart: bool,
    },
    /// The packet just past the one the slot expects: dropped (counted `sequence`), and a new
    /// CTS names the missing packet (§11.7, *resume*).
    Resume(usize),
    /// Selective acceptance: a packet past the one the slot expects, kept (§11.7, *held*).
    Held(usize),
    Free(usize),
    AbortNew(usize),
    Abort(usize),
    ToSender,
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
    hdr: [u32; HEADER_WORDS],
    /// Header words or payload words taken so far.
    count: usize,
    /// Payload words the worm must carry.
    words: usize,
    crc: u32,
    verdict: Verdict,
}

/// The header word at whose edge the verdict's view of the slot table is taken (§11.5).
const SEEN_AT_WORD: usize = 5;

/// The CTS / MSGEND / MSGDROP shown on the `snd_*` ports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SndPulse {
    pub ty: u32,
    pub peer: u16,
    pub msg_id: u32,
    pub len: u32,
    pub seq: u32,
    pub info: u32,
    pub msg_num: u32,
}

/// The receive path.
#[derive(Clone, Debug)]
pub struct RmppRx {
    cfg: RmppConfig,
    slots: Vec<Slot>,
    /// `expected - 1` per source (the RAM's contents).
    expected: Vec<u32>,
    outstanding: u32,
    up_fifo: VecDeque<usize>,
    dlv_fifo: VecDeque<usize>,
    answer: Option<(usize, u32)>,
    /// The answer register was full before the edge before: it may act (§11.5).
    answer_ready: bool,
    delivered: Option<usize>,
    buf: Vec<u32>,
    rx: RxRegs,
    tx: Vec<u64>,
    tx_next: usize,
    // Output registers.
    net_out: u64,
    rd_data: u32,
    /// The word read at this edge, shown in `rd_data` after the next (§11.6).
    rd_next: u32,
    snd: Option<SndPulse>,
    /// A CTS, MSGEND or MSGDROP whose CRC flit passed at this edge: pulsed at the next.
    snd_next: Option<SndPulse>,
    /// The counts so far, events of this edge included.
    counted: [u16; 13],
    /// The counters as shown in the last `O_t`: an event counted at edge `t` shows from
    /// `O_(t+1)` on (§11.3).
    shown: [u16; 13],
    /// The counters at the end of the last step, shown at the next: a cut counted before a
    /// step (`cut_worm`) is of that step's edge, so the snapshot is taken after each step.
    settled: [u16; 13],
    /// The slot whose reply an action owed at this edge.
    due_set: Option<usize>,
    /// A CRC flit was consumed at this edge: the next edge is its packet's (§11.5, Actions).
    crc_flit: bool,
    /// The framing was at a CRC position after this edge (state `Crc`): at the next edge
    /// neither the answer nor the delivered register acts (§11.5, Actions). A cut before the
    /// next step does not clear it: the receive path decides from the state before the edge.
    awaiting_crc: bool,
    /// `awaiting_crc` as it was before the edge before: a packet may act at this edge, and no
    /// repeat fires (§11.5).
    after_crc: bool,
    /// The verdict and header of the packet whose CRC flit was consumed at this edge, CRC good
    /// and addressed here: it acts at the next edge.
    pending: Option<(Verdict, [u32; HEADER_WORDS])>,
    /// The slot table as it was before the edge of the header word 5 in reception, which the
    /// verdict reads (§11.5).
    seen: Vec<Slot>,
    /// Scratch: the slot table as it was before this edge (kept from step to step, so that a
    /// step allocates nothing).
    before: Vec<Slot>,
    /// [`RmppRx::at_rest`] after the last step (nothing else changes the state in between but
    /// [`RmppRx::cut_worm`], which clears it).
    resting: bool,
    /// The read port's inputs (`rd_slot`, `rd_word`) at the last step, when it was a resting one
    /// (which changes nothing the read port reads).
    rested_read: Option<(u64, u64)>,
    /// The slot the transmitter's search for a reply due starts at: the one after the slot
    /// picked last (§11.5; slot 0 at power-on).
    reply_turn: usize,
}

/// `word` with the bytes at or past byte `limit` of the slot cleared, word `w` covering bytes
/// `4w .. 4w+3`.
fn mask_word(word: u32, w: u64, limit: u32) -> u32 {
    let bytes = (limit as u64).saturating_sub(4 * w).min(4);
    match bytes {
        4 => word,
        0 => 0,
        b => word & !(u32::MAX >> (8 * b)),
    }
}

impl RmppRx {
    /// A receive path at power-on.
    pub fn new(cfg: RmppConfig) -> Result<RmppRx, String> {
        cfg.validate()?;
        Ok(RmppRx {
            cfg,
            slots: vec![Slot::default(); cfg.rx_slots],
            expected: vec![0; cfg.nodes],
            outstanding: 0,
            up_fifo: VecDeque::new(),
            dlv_fifo: VecDeque::new(),
            answer: None,
            answer_ready: false,
            delivered: None,
            buf: vec![0; cfg.rx_slots * cfg.slot_words()],
            rx: RxRegs {
                state: Rx::Idle,
                src: 0,
                dst: 0,
                hdr: [0; HEADER_WORDS],
                count: 0,
                words: 0,
                crc: 0,
                verdict: Verdict::Drop(cnt::MALFORMED),
            },
            seen: Vec::new(),
            before: Vec::new(),
            resting: false,
            rested_read: None,
            reply_turn: 0,
            tx: Vec::new(),
            tx_next: 0,
            net_out: 0,
            rd_data: 0,
            rd_next: 0,
            snd: None,
            snd_next: None,
            counted: [0; 13],
            shown: [0; 13],
            settled: [0; 13],
            due_set: None,
            crc_flit: false,
            awaiting_crc: false,
            after_crc: false,
            pending: None,
        })
    }

    pub fn config(&self) -> RmppConfig {
        self.cfg
    }

    /// The counters of [`COUNTERS`](super::COUNTERS) as shown in the last `O_t`.
    pub fn counters(&self) -> &[u16; 13] {
        &self.shown
    }

    /// Figure 8's `outstanding` now.
    pub fn outstanding(&self) -> u32 {
        self.outstanding
    }

    /// The busy slots, for debugging: (slot, src, msg_id, state, next_seq, grant, timer).
    pub fn slot_states(&self) -> Vec<String> {
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, s)| s.busy)
            .map(|(k, s)| format!("{k}: {s:?}"))
            .collect()
    }

    /// Busy slots now.
    pub fn busy_slots(&self) -> usize {
        self.slots.iter().filter(|s| s.busy).count()
    }

    fn count(&mut self, c: usize) {
        self.counted[c] = self.counted[c].wrapping_add(1);
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

    /// Whether a step with `net_in` and the read port's inputs `read` changes nothing and
    /// shows what the last showed: a resting step after one with the same read address, which
    /// would read the word it read then and show the one it shows.
    #[inline]
    pub(crate) fn unchanged_by(&self, net_in: u64, read: (u64, u64)) -> bool {
        let resting = self.resting && net_in & VALID == 0;
        resting && self.rested_read == Some(read) && self.rd_data == self.rd_next
    }

    /// Slot `k` owes its reply (set at this edge).
    fn owe(&mut self, k: usize) {
        self.slots[k].reply_due = true;
        self.due_set = Some(k);
    }

    /// The well-formedness checks of §11.1 on a complete header: the failing reason, or the
    /// payload words the worm carries.
    fn check_header(&self, h: &[u32; HEADER_WORDS]) -> Result<usize, usize> {
        let cfg = self.cfg;
        let ty = Type::from_code((h[0] >> 16) & 0x3FFF);
        let ty = match ty {
            Some(t) if h[0] >> 30 == MARKER && h[1] >> 16 == 0 => t,
            _ => return Err(cnt::MALFORMED),
        };
        if h[1] as usize >= cfg.nodes {
            return Err(cnt::MALFORMED);
        }
        if h[0] & 0xFFFF != VERSION as u32 {
            return Err(cnt::VERSION);
        }
        let (len, seq) = (h[3] as u64, h[4] as u64);
        let mtu = cfg.mtu as u64;
        let ok = match ty {
            Type::Rts => len > mtu && seq == 0,
            Type::RtsLast => len <= mtu && seq == 0,
            Type::Data | Type::StopData => seq >= 1 && (seq + 1) * mtu < len,
            Type::LastData => seq >= 1 && seq * mtu < len,
            _ => true,
        };
        if !ok {
            return Err(cnt::MALFORMED);
        }
        let bytes = match ty {
            Type::Rts | Type::RtsLast => len.min(mtu),
            t if t.is_data() => (len - seq * mtu).min(mtu),
            _ => 0,
        };
        Ok(bytes.div_ceil(4) as usize)
    }

    /// The verdict of a well-formed header (§11.5), from the slot table `slots` as it was
    /// before the edge of header word 5 and `expected` now (written only at actions, never
    /// inside a header).
    fn verdict(&self, slots: &[Slot], route_src: u16, h: &[u32; HEADER_WORDS]) -> Verdict {
        use State::*;
        let ty = Type::from_code((h[0] >> 16) & 0x3FFF).expect("checked");
        let (nid, msg_id, seq, num) = (h[1] as u16, h[2], h[4], h[6]);
        if ty.to_sender() {
            return if nid == self.cfg.node {
                Verdict::ToSender
            } else {
                Verdict::Drop(cnt::NOT_SOURCE)
            };
        }
        if nid != route_src {
            return Verdict::Drop(cnt::NOT_SOURCE);
        }
        let m = slots
            .iter()
            .position(|s| s.busy && s.src == nid && s.msg_id == msg_id);
        let free = slots.iter().position(|s| !s.busy);
        let in_order = num == self.expected[nid as usize].wrapping_add(1);
        let dup = cnt::DUPLICATE;
        match (ty, m) {
            (Type::Rts | Type::RtsLast | Type::Null, None) => match free {
                _ if !in_order => Verdict::Drop(cnt::ORDER),
                None => Verdict::Drop(cnt::TABLE_FULL),
                Some(f) if ty == Type::Null => Verdict::AbortNew(f),
                Some(f) => Verdict::New(f),
            },
            (Type::Rts | Type::RtsLast, Some(m)) => match slots[m].state {
                Upcall | Complete => Verdict::Drop(dup),
                Receiving | Ended | Dropped => Verdict::DropReply(dup, m),
            },
            (Type::Null, Some(m)) => match slots[m].state {
                Upcall | Complete => Verdict::Drop(cnt::BUSY),
                Receiving => Verdict::Abort(m),
                Ended | Dropped => Verdict::DropReply(dup, m),
            },
            (Type::Gch, None) => Verdict::Drop(cnt::UNKNOWN),
            (Type::Gch, Some(m)) if slots[m].done() => Verdict::Free(m),
            (Type::Gch, Some(_)) => Verdict::Drop(cnt::SEQUENCE),
            (_, None) => Verdict::Drop(cnt::UNKNOWN),
            (_, Some(m)) => {
                let s = &slots[m];
                match s.state {
                    Receiving if seq == s.next_seq => Verdict::InSeq {
                        slot: m,
                        restart: false,
                    },
                    Receiving if seq == 1 => Verdict::InSeq {
                        slot: m,
                        restart: true,
                    },
                    Receiving if self.cfg.selective && s.holds(seq, self.cfg.mtu) => {
                        Verdict::Held(m)
                    }
                    Receiving if !self.cfg.selective && seq == s.next_seq + 1 => Verdict::Resume(m),
                    Receiving | Upcall => Verdict::Drop(cnt::SEQUENCE),
                    Complete => Verdict::Drop(dup),
                    Ended | Dropped => Verdict::DropReply(dup, m),
                }
            }
        }
    }

    /// Payload word `i` of the worm in progress, written where its verdict says (§11.5).
    fn write_payload(&mut self, i: usize, d: u32) {
        let sw = self.cfg.slot_words();
        match self.rx.verdict {
            Verdict::New(f) => self.buf[f * sw + i] = d,
            Verdict::InSeq {
                slot,
                restart: false,
            }
            | Verdict::Held(slot) => {
                let limit = self.slots[slot].limit;
                let w = self.rx.hdr[4] as u64 * self.cfg.mtu as u64 / 4 + i as u64;
                if 4 * w < limit as u64 {
                    self.buf[slot * sw + w as usize] = mask_word(d, w, limit);
                }
            }
            _ => {}
        }
    }

    /// The receive FSM for one flit (§8.3 with a seven-word header); a worm whose CRC flit
    /// passed is left in `pending` to act at the next edge, or in `snd_next` to pulse
    /// `snd_valid` at the next edge.
    fn receive(&mut self, f: u64) {
        if f & VALID == 0 {
            return;
        }
        let head = f & HEAD != 0;
        let tail = f & TAIL != 0;
        let d = f as u32;
        if head {
            let cut = matches!(self.rx.state, Rx::Header | Rx::Payload | Rx::Crc);
            let r = &mut self.rx;
            r.src = (d >> 16) as u16;
            r.dst = d as u16;
            r.crc = crc32_step(u32::MAX, d);
            r.count = 0;
            r.state = if tail { Rx::Idle } else { Rx::Header };
            if cut {
                self.count(cnt::TRUNCATED);
            }
            if tail {
                self.count(cnt::TRUNCATED);
            }
            return;
        }
        match self.rx.state {
            Rx::Idle => {
                self.rx.state = if tail { Rx::Idle } else { Rx::Discard };
                self.count(cnt::TRUNCATED);
            }
            Rx::Discard => {
                if tail {
                    self.rx.state = Rx::Idle;
                }
            }
            Rx::Header | Rx::Payload if tail => {
                self.rx.state = Rx::Idle;
                self.count(cnt::TRUNCATED);
            }
            Rx::Header => {
                if self.rx.count == SEEN_AT_WORD {
                    self.seen.clone_from(&self.slots);
                }
                let r = &mut self.rx;
                r.hdr[r.count] = d;
                r.count += 1;
                r.crc = crc32_step(r.crc, d);
                if r.count == HEADER_WORDS {
                    let hdr = r.hdr;
                    match self.check_header(&hdr) {
                        Err(reason) => {
                            self.rx.state = Rx::Discard;
                            self.count(reason);
                        }
                        Ok(words) => {
                            let v = self.verdict(&self.seen, self.rx.src, &hdr);
                            let r = &mut self.rx;
                            r.verdict = v;
                            r.words = words;
                            r.count = 0;
                            r.state = if words == 0 { Rx::Crc } else { Rx::Payload };
                        }
                    }
                }
            }
            Rx::Payload => {
                let i = self.rx.count;
                self.write_payload(i, d);
                let r = &mut self.rx;
                r.count += 1;
                r.crc = crc32_step(r.crc, d);
                if r.count == r.words {
                    r.state = Rx::Crc;
                }
            }
            Rx::Crc => {
                if !tail {
                    self.rx.state = Rx::Discard;
                    self.count(cnt::MALFORMED);
                } else {
                    self.rx.state = Rx::Idle;
                    // A CRC flit takes the next edge's action, whether the packet acts or not.
                    self.crc_flit = true;
                    if d != self.rx.crc {
                        self.count(cnt::CRC);
                    } else if self.rx.dst != self.cfg.node {
                        self.count(cnt::MISROUTED);
                    } else if self.rx.verdict == Verdict::ToSender {
                        self.pass_to_sender();
                    } else {
                        self.pending = Some((self.rx.verdict, self.rx.hdr));
                    }
                }
            }
        }
    }

    /// A CTS, MSGEND or MSGDROP for the send side: `snd_valid` at the edge after its CRC
    /// flit's, as every packet acts (§11.5).
    fn pass_to_sender(&mut self) {
        let h = self.rx.hdr;
        self.snd_next = Some(SndPulse {
            ty: (h[0] >> 16) & 0xF,
            peer: self.rx.src,
            msg_id: h[2],
            len: h[3],
            seq: h[4],
            info: h[5],
            msg_num: h[6],
        });
    }

    /// Figure 8 on slot `m`: its grant goes back to the pool and a fresh one is taken.
    fn new_cts(&mut self, m: usize) {
        self.outstanding -= self.slots[m].grant;
        let n = self
            .cfg
            .allowance(self.outstanding.min(u16::MAX as u32) as u16);
        let s = &mut self.slots[m];
        s.grant = n as u32;
        s.cts_n = n;
        self.outstanding += n as u32;
        self.owe(m);
    }

    fn return_grant(&mut self, m: usize) {
        self.outstanding -= self.slots[m].grant;
        self.slots[m].grant = 0;
    }

    /// A packet's action at the edge after its CRC flit, with its header `h`.
    fn act(&mut self, v: Verdict, h: &[u32; HEADER_WORDS]) {
        let (src, msg_id, len, seq, num) = (h[1] as u16, h[2], h[3], h[4], h[6]);
        let ty = Type::from_code((h[0] >> 16) & 0x3FFF);
        match v {
            Verdict::Drop(r) => {
                self.count(r);
            }
            Verdict::DropReply(r, m) => {
                if self.slots[m].busy {
                    self.count(r);
                    self.owe(m);
                } else {
                    self.count(cnt::UNKNOWN);
                }
            }
            Verdict::New(f) | Verdict::AbortNew(f) => {
                let abort = matches!(v, Verdict::AbortNew(_));
                self.slots[f] = Slot {
                    busy: true,
                    src,
                    msg_id,
                    msg_num: num,
                    len,
                    limit: if abort {
                        0
                    } else {
                        len.min(self.cfg.mtu as u32)
                    },
                    state: if abort { State::Dropped } else { State::Upcall },
                    ..Slot::default()
                };
                if abort {
                    self.owe(f);
                }
                self.expected[src as usize] = num;
                if !abort {
                    self.up_fifo.push_back(f);
                }
            }
            Verdict::Abort(m) => {
                self.return_grant(m);
                self.slots[m].state = State::Dropped;
                self.owe(m);
            }
            Verdict::Free(m) => {
                self.slots[m].busy = false;
                self.slots[m].limit = 0;
                self.slots[m].reply_due = false;
            }
            Verdict::Resume(m) => {
                self.count(cnt::SEQUENCE);
                self.return_grant(m);
                self.new_cts(m);
            }
            Verdict::Held(m) => {
                let s = &mut self.slots[m];
                // Only the clean-up timer and the answer and delivered registers move a slot
                // between the verdict and the action, and none of them makes a RECEIVING slot
                // hold a packet: the view still stands.
                let ahead = seq.wrapping_sub(s.next_seq);
                s.held |= 1 << (ahead - 1);
                if s.grant > 0 {
                    s.grant -= 1;
                    self.outstanding -= 1;
                }
                // The packet before this one is missing (packets of a pair arrive in the
                // order sent, §3): ask for it, with what is held.
                if ahead == 1 || s.held & 1 << (ahead - 2) == 0 {
                    self.owe(m);
                }
            }
            Verdict::InSeq { slot: m, restart } => {
                if restart {
                    // What is held stays: the CTS tells the sender where to go on.
                    self.return_grant(m);
                    self.count(cnt::RESTART);
                    self.new_cts(m);
                    return;
                }
                let selective = self.cfg.selective;
                let s = &mut self.slots[m];
                // The packets held right behind this one come in with it.
                let run = s.held.trailing_ones();
                s.next_seq = seq.wrapping_add(1 + run);
                s.held = s.held.checked_shr(run + 1).unwrap_or(0);
                if s.grant > 0 {
                    s.grant -= 1;
                    self.outstanding -= 1;
                }
                let end = (seq as u64 + 1 + run as u64) * self.cfg.mtu as u64;
                let block_in = if selective {
                    s.grant == 0
                } else {
                    matches!(ty, Some(Type::StopData | Type::LastData))
                };
                if end >= self.slots[m].limit as u64 {
                    self.return_grant(m);
                    // A CTS still owed is moot: the message is in.
                    self.slots[m].state = State::Complete;
                    self.slots[m].reply_due = false;
                    self.dlv_fifo.push_back(m);
                } else if block_in {
                    self.new_cts(m);
                }
            }
            // Pulsed through `snd_next`, never left pending.
            Verdict::ToSender => {}
        }
    }

    /// The upper layer's answer for slot `a` (§11.5).
    fn answer(&mut self, a: usize, x: u32) {
        let accepted = x.min(self.slots[a].len).min(self.cfg.max_msg as u32);
        let s = &mut self.slots[a];
        s.limit = accepted;
        if x == 0 {
            s.state = State::Dropped;
            self.owe(a);
        } else if accepted as usize <= self.cfg.mtu {
            s.state = State::Complete;
            self.dlv_fifo.push_back(a);
        } else {
            s.state = State::Receiving;
            s.next_seq = 1;
            self.new_cts(a);
        }
    }
}

/// The reply a slot owes, as a packet (§11.5, the transmitter).
fn reply(cfg: &RmppConfig, s: &Slot) -> Packet {
    let ty = match s.state {
        State::Receiving => Type::Cts,
        State::Ended => Type::MsgEnd,
        _ => Type::MsgDrop,
    };
    let mut p = Packet::new(ty, cfg.node, s.src, s.src);
    p.msg_id = s.msg_id;
    p.len = s.limit;
    p.msg_num = s.msg_num;
    if ty == Type::Cts {
        p.seq = s.next_seq;
        p.info1 = s.cts_n;
        p.info2 = s.held;
    }
    p
}

impl ModelBlock for RmppRx {
    fn ports(&self) -> Vec<PortSpec> {
        PORTS.specs()
    }

    fn step(&mut self, i: &[u64], o: &mut [u64]) {
        self.step_ports(i, o);
    }
}

impl Ports for RmppRx {
    /// [`ModelBlock::step`] on any port buffers: a slice alone, or the system's (§10, [`crate::view`]).
    fn step_ports<I: Inputs + ?Sized, O: Outputs + ?Sized>(&mut self, i: &I, o: &mut O) {
        let cfg = self.cfg;
        let read = (i[inp::RD_SLOT], i[inp::RD_WORD]);
        if o.kept() && self.unchanged_by(i[inp::NET_IN], read) {
            return;
        }
        let resting = self.resting && i[inp::NET_IN] & VALID == 0;
        self.rested_read = resting.then_some(read);
        self.read_port(i);
        if resting {
            // Nothing held, owed or counting, and no flit: the edge changes only the read
            // port, which `read_port` took (docs/protocol.md §11.6).
            if o.kept() {
                o[out::RD_DATA] = self.rd_data as u64;
            } else {
                self.show(o);
            }
            return;
        }
        let mut before = std::mem::take(&mut self.before);
        before.clone_from(&self.slots);
        // An answer acts at the second edge after it is taken at the earliest.
        let answer_before = self.answer.filter(|_| self.answer_ready);
        self.answer_ready = self.answer.is_some();
        let delivered_before = self.delivered;
        let tx_idle = self.tx_next >= self.tx.len();
        let up_shown = self.up_fifo.front().is_some() && self.answer.is_none();
        let dlv_shown = self.dlv_fifo.front().is_some() && self.delivered.is_none();

        // Handshakes fill the one-entry registers at this edge.
        if up_shown && i[inp::UP_READY] & 1 == 1 {
            let a = self.up_fifo.pop_front().expect("shown");
            self.answer = Some((a, i[inp::UP_ACCEPT] as u32));
        }
        if dlv_shown && i[inp::DLV_READY] & 1 == 1 {
            self.delivered = Some(self.dlv_fifo.pop_front().expect("shown"));
        }

        // One action per edge: the packet whose CRC flit passed at the edge before, else the
        // answer, else the delivery taken. Neither register acts at an edge before which the
        // framing awaited a CRC flit, whether one comes or not: the packet owns its CRC flit's
        // edge too. The flit of this edge is received first, so that a payload word is written
        // by the limits before the edge.
        let packet_edge = std::mem::take(&mut self.crc_flit);
        let awaited_crc = self.awaiting_crc;
        let after_crc = std::mem::replace(&mut self.after_crc, awaited_crc);
        let packet = self.pending.take();
        self.snd = self.snd_next.take();
        self.due_set = None;
        self.receive(i[inp::NET_IN]);
        self.awaiting_crc = self.rx.state == Rx::Crc;
        // A data packet of a RECEIVING slot, whatever its verdict, shows that its sender is
        // sending: the slot's CTS timer starts again.
        let alive = packet.and_then(|(_, h)| {
            let ty = Type::from_code((h[0] >> 16) & 0x3FFF)?;
            if !ty.is_data() {
                return None;
            }
            self.slots.iter().position(|s| {
                s.busy && s.state == State::Receiving && s.src == h[1] as u16 && s.msg_id == h[2]
            })
        });
        match packet {
            Some((v, h)) => self.act(v, &h),
            None if packet_edge || awaited_crc => {}
            None => {
                if let Some((a, x)) = answer_before {
                    self.answer = None;
                    self.answer_ready = false;
                    self.answer(a, x);
                } else if let Some(d) = delivered_before {
                    self.delivered = None;
                    self.slots[d].state = State::Ended;
                    self.owe(d);
                }
            }
        }

        // The transmitter.
        let mut picked = None;
        if tx_idle {
            self.tx.clear();
            self.tx_next = 0;
            if i[inp::TX_GNT] & 1 == 1 {
                // Round robin from the slot after the one picked last (§11.7: lowest first
                // starved the high slots when the low ones repeated their replies faster than
                // the link took them).
                let n = before.len();
                let turn = self.reply_turn;
                let due = (0..n)
                    .map(|j| (turn + j) % n)
                    .find(|&k| before[k].reply_due);
                if let Some(k) = due {
                    self.tx = reply(&cfg, &before[k]).flits();
                    picked = Some(k);
                    self.reply_turn = (k + 1) % n;
                }
            }
        }
        self.net_out = match self.tx.get(self.tx_next) {
            Some(&f) => {
                self.tx_next += 1;
                f
            }
            None => 0,
        };

        // Reply flags and the two timers of §11.5: the repeat of a reply, and `gch_timeout`.
        // Both count at every edge from their load; a repeat that has run out fires at the
        // first edge at which its slot has no reply due and no packet may act (an edge after
        // one at which the receiver awaited a CRC flit, and at which it no longer does).
        let packet_may_act = after_crc && !awaited_crc;
        for (k, b) in before.iter().enumerate() {
            let s = &mut self.slots[k];
            let was_done = b.busy && b.done();
            let timed = was_done || (b.busy && b.state == State::Receiving);
            if s.busy && s.done() && !was_done {
                s.timer = cfg.gch_timeout;
            } else if was_done && b.timer > 0 {
                s.timer = b.timer - 1;
            }
            if picked == Some(k) {
                if self.due_set != Some(k) {
                    s.reply_due = false;
                }
                s.repeat = cfg.reply_timeout;
            } else if alive == Some(k) {
                s.repeat = cfg.reply_timeout;
            } else if b.repeat > 0 {
                s.repeat = b.repeat - 1;
            } else if timed && !b.reply_due && !packet_may_act {
                if was_done && b.timer == 0 {
                    s.busy = false;
                    s.limit = 0;
                } else {
                    s.reply_due = true;
                }
            }
        }

        self.before = before;
        self.show(o);
        self.resting = self.at_rest();
    }
}

impl RmppRx {
    /// The read port at an edge (§11.6): it sees the buffer and the limits before the edge,
    /// and shows the word after the next.
    fn read_port<I: Inputs + ?Sized>(&mut self, i: &I) {
        let sw = self.cfg.slot_words();
        let (rs, rw) = (i[inp::RD_SLOT] as usize & 0xF, i[inp::RD_WORD] & 0x3FF);
        self.rd_data = self.rd_next;
        self.rd_next = match self.slots.get(rs) {
            Some(s) if (rw as usize) < sw => {
                mask_word(self.buf[rs * sw + rw as usize], rw, s.limit)
            }
            _ => 0,
        };
    }

    /// Whether an edge with no valid flit in leaves every register but the read port's as it
    /// is: no slot busy or counting down, nothing queued, registered, framed or sent, and the
    /// counters shown as counted. The model's fast path; the step's full rules give the same.
    fn at_rest(&self) -> bool {
        self.rx.state == Rx::Idle
            && self.tx_next >= self.tx.len()
            && self.net_out == 0
            && !self.crc_flit
            && !self.awaiting_crc
            && !self.after_crc
            && !self.answer_ready
            && self.answer.is_none()
            && self.delivered.is_none()
            && self.pending.is_none()
            && self.snd.is_none()
            && self.snd_next.is_none()
            && self.up_fifo.is_empty()
            && self.dlv_fifo.is_empty()
            && self.shown == self.counted
            && self.settled == self.counted
            && self
                .slots
                .iter()
                .all(|s| !s.busy && !s.reply_due && s.repeat == 0)
    }

    /// Writes `O_t` from the registers after the edge.
    fn show<O: Outputs + ?Sized>(&mut self, o: &mut O) {
        let tx_idle_next = self.tx_next >= self.tx.len();
        o[out::NET_OUT] = self.net_out;
        o[out::TX_REQ] = (tx_idle_next && self.slots.iter().any(|s| s.reply_due)) as u64;
        // The upcall shows the message's length, the delivery the accepted bytes.
        let up = self
            .up_fifo
            .front()
            .copied()
            .filter(|_| self.answer.is_none());
        let dlv = self
            .dlv_fifo
            .front()
            .copied()
            .filter(|_| self.delivered.is_none());
        let shown = up.map(|k| self.slots[k]).unwrap_or_default();
        o[out::UP_VALID] = up.is_some() as u64;
        o[out::UP_SLOT] = up.unwrap_or(0) as u64;
        o[out::UP_SRC] = shown.src as u64;
        o[out::UP_MSG_ID] = shown.msg_id as u64;
        o[out::UP_MSG_NUM] = shown.msg_num as u64;
        o[out::UP_LEN] = shown.len as u64;
        // The delivery names the slot (the upper layer took its upcall) and the accepted bytes.
        o[out::DLV_VALID] = dlv.is_some() as u64;
        o[out::DLV_SLOT] = dlv.unwrap_or(0) as u64;
        o[out::DLV_LEN] = dlv.map(|k| self.slots[k].limit).unwrap_or(0) as u64;
        o[out::RD_DATA] = self.rd_data as u64;
        let s = self.snd.unwrap_or_default();
        o[out::SND_VALID] = self.snd.is_some() as u64;
        o[out::SND_TYPE] = s.ty as u64;
        o[out::SND_PEER] = s.peer as u64;
        o[out::SND_MSG_ID] = s.msg_id as u64;
        o[out::SND_LEN] = s.len as u64;
        o[out::SND_SEQ] = s.seq as u64;
        o[out::SND_INFO] = s.info as u64;
        o[out::SND_MSG_NUM] = s.msg_num as u64;
        // The counters show the events of the edges before this one (§11.3).
        self.shown = self.settled;
        self.settled = self.counted;
        for (k, &c) in self.shown.iter().enumerate() {
            o[out::COUNTERS + k] = c as u64;
        }
    }
}

#[cfg(test)]
mod tests;
