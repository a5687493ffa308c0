//! The RMPP send side (docs/protocol.md §12; the paper's §3.2-§3.8, Figures 2 and 3): one
//! [`Sender`] per node, plain and deterministic (no randomness, no clock of its own).
//!
//! # Model
//!
//! The host calls [`Sender::send`]; the message gets its `msgID` (`node << 16 | counter`,
//! counter from 0, wrapping at 16 bits) and its `msgNum` (per destination, from 1, in call
//! order) at once, and waits in the **host queue** (in call order) until fewer than
//! `max_active` messages are active. Its first packet (RTS with the first `mtu` bytes, or
//! RTS_LAST with all of them when `len <= mtu`, a 0-byte message being an RTS_LAST without
//! payload) makes it active, in **send_pending**. A CTS moves it to **sending**; a MSGEND or
//! MSGDROP completes it from either queue. An aborted message is in send_pending as a NULL.
//!
//! Every packet has route `src` = `srcNID` = `node`, version 1, the message's `msgID`,
//! `msgNum` and whole length `len` (GCH and NULL too; a GCH answering a stale reply carries the
//! reply's `len`). RTS, RTS_LAST, NULL and GCH have `seq = 0`, `info1 = info2 = 0`. Packet `s`
//! carries bytes `s * mtu .. min((s+1) * mtu, len)`.
//!
//! # Time
//!
//! The sender has no clock: every call carries the cycle `now` (which must not decrease) and
//! first brings the timers up to `now` (so a timer expiring at `now` fires before a reply
//! handed in at `now`). The result does not depend on how often it is called in between.
//!
//! - **Sent** means handed out by [`Sender::next_packet`] at `now`; every timer starts then.
//! - **RTS timer**: each RTS / RTS_LAST / NULL sent arms `deadline = now + rts_timeout`. At
//!   the deadline, if no CTS / MSGEND / MSGDROP came, the packet becomes *due* for repetition
//!   (due since the deadline); the repeat is sent by the priority order below and re-arms the
//!   timer.
//! - **Periodic check** (§3.5) at every cycle `t = k * resend_period`, `k >= 1`: for each
//!   destination, its *oldest* message in send_pending (lowest `msgNum`, i.e. earliest call,
//!   NULLs included) is made due at `t` when its first packet was sent at least `rts_timeout`
//!   cycles before `t` (unanswered ever since) and it is not due already and its RTS timer
//!   does not expire at or before `t` (then the timer makes it due). Younger messages to the
//!   same destination are left to their own timers. So a stalled head of a destination's
//!   message chain is repeated every `resend_period` (its `msgNum` unblocks the others at the
//!   receiver, which drops out-of-order RTSs).
//! - **Data timer**: armed when the last packet of a granted block (STOP_DATA, LAST_DATA, or
//!   the single restart packet) is sent: `deadline = now + data_timeout`; disarmed by a CTS
//!   that grants a new block; no timer runs while granted packets wait to be sent. At the
//!   deadline the whole message **restarts** (at the deadline cycle): try count + 1, a block
//!   of one packet `seq = 1` (STOP_DATA, or LAST_DATA when packet 1 is the last one accepted,
//!   `info1 = 1`), and the next CTS is taken from its `seq` on. The restart keeps the
//!   message's place in the order of grants (priority 2 below): sent behind every later grant,
//!   a restart packet waited thousands of cycles on a busy node while its receiver's slot ran
//!   out of `gch_timeout`, and the message never completed (measured on the golden model).
//! - **CTS** (`seq`, `info1 = n`, `len = accepted`): with `last = ceil(accepted / mtu) - 1`
//!   (at most the message's last packet), it grants `seq ..= min(seq + n - 1, last)` if
//!   `n >= 1`, `1 <= seq <= last` and either `seq` is above every packet already granted since
//!   the last (re)start (the RTS counts as packet 0, a restart as a grant of packet 1), or the
//!   message is sending and `seq` is a packet already sent: a **resume** (docs/protocol.md
//!   §12): the receiver misses packet `seq`, so the sender goes back to it, with the CTS's
//!   grant in place of the one it had, keeping its place in the order of grants; counted in
//!   `resumes`. Otherwise it grants nothing new (a repeat, as a CTS naming a packet granted and
//!   not yet sent: counted in `repeat_cts`, no effect, timers untouched). Each block packet has
//!   `info1 = n`, `info2` = try count; the block's last is STOP_DATA, or LAST_DATA if it is
//!   packet `last`. A CTS for a NULL is ignored.
//! - **MSGEND / MSGDROP** for a held message: it completes at `now` ([`Outcome::End`] with the
//!   reply's `len`, [`Outcome::Drop`], or [`Outcome::Aborted`] for a MSGDROP answering a NULL;
//!   a MSGEND answering a NULL is an `End`: the message got there first), one GCH is queued,
//!   its state is dropped and the next host-queued message may start. A MSGEND or MSGDROP
//!   for a message of this node no longer held (already completed) queues a GCH again.
//! - A reply is matched by `msgID`, and must then have the message's destination as `peer`
//!   and its `msgNum`; else it is ignored (counted in `ignored`), as is a CTS for a NULL.
//! - **Abort** ([`Sender::abort`]): a message in the host queue or in send_pending (no CTS
//!   yet) becomes a NULL: in send_pending it is due at once (in place of its next RTS
//!   repeat); in the host queue its first packet will be the NULL. It completes on MSGDROP
//!   or MSGEND like any message.
//!
//! **Priority** of [`Sender::next_packet`], one packet per call:
//! 1. GCH, oldest first;
//! 2. the next data packet of the message whose outstanding grant (CTS or restart) came
//!    earliest (ties: the earlier event first);
//! 3. RTS / RTS_LAST / NULL repeats, due earliest first (ties: earliest call);
//! 4. the first packet of the first message in the host queue whose destination has no RTS
//!    unanswered (in send_pending), if fewer than `max_active` are active. The receiver takes
//!    a pair's messages in `msgNum` order only, so a second RTS before the first is answered
//!    could only be dropped (`order`); sending it anyway made an RTS storm that filled the
//!    receiver's link when many nodes send to one.

use std::collections::{BTreeMap, HashMap, VecDeque};

use super::{Packet, RmppConfig, Type};

/// The send side's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SendConfig {
    pub node: u16,
    pub nodes: usize,
    /// Payload bytes per packet (4, 8, 16 or 32), as the receivers' `mtu`.
    pub mtu: usize,
    /// Cycles after an RTS / RTS_LAST / NULL before it is repeated.
    pub rts_timeout: u64,
    /// Cycles after the last packet of a block without a reply before the message restarts. The
    /// receiver repeats its reply every `reply_timeout` (docs/protocol.md §11.5), so this is the
    /// backstop, several of those long.
    pub data_timeout: u64,
    /// Period of the check for stalled messages (§3.5).
    pub resend_period: u64,
    /// Messages in send_pending and sending at once; more wait in the host queue.
    pub max_active: usize,
    /// The receivers accept selectively (docs/protocol.md §11.7): a resume sends again only
    /// the packets its CTS does not say are held, then goes on where it was.
    pub selective: bool,
}

impl Default for SendConfig {
    fn default() -> Self {
        SendConfig::DEFAULT
    }
}

impl SendConfig {
    pub const DEFAULT: SendConfig = SendConfig {
        node: 0,
        nodes: 16,
        mtu: 32,
        rts_timeout: 600,
        data_timeout: 1200,
        resend_period: 300,
        max_active: 16,
        selective: true,
    };

    /// The defaults with the receive path's `node`, `nodes` and `mtu`.
    pub fn from_rmpp(c: &RmppConfig) -> SendConfig {
        SendConfig {
            node: c.node,
            nodes: c.nodes,
            mtu: c.mtu,
            ..SendConfig::DEFAULT
        }
    }

    /// Checks the ranges; the error names the bad field.
    pub fn validate(&self) -> Result<(), String> {
        if !(1..=256).contains(&self.nodes) {
            return Err(format!("nodes = {}: must be in 1..=256", self.nodes));
        }
        if self.node as usize >= self.nodes {
            return Err(format!(
                "node = {}: must be below nodes = {}",
                self.node, self.nodes
            ));
        }
        if ![4, 8, 16, 32].contains(&self.mtu) {
            return Err(format!("mtu = {}: must be 4, 8, 16 or 32", self.mtu));
        }
        if self.rts_timeout == 0 {
            return Err("rts_timeout = 0: must be at least 1".into());
        }
        if self.data_timeout == 0 {
            return Err("data_timeout = 0: must be at least 1".into());
        }
        if self.resend_period == 0 {
            return Err("resend_period = 0: must be at least 1".into());
        }
        if !(1..=1 << 16).contains(&self.max_active) {
            return Err(format!(
                "max_active = {}: must be in 1..=65536",
                self.max_active
            ));
        }
        Ok(())
    }
}

/// How a message finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// MSGEND: the receiver took `accepted` bytes (the reply's `len`).
    End { accepted: u32 },
    /// MSGDROP: the receiver did not want it.
    Drop,
    /// Aborted by the host, confirmed by MSGDROP.
    Aborted,
}

/// A finished message, from [`Sender::take_completions`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Completion {
    pub msg_id: u32,
    pub dst: u16,
    pub msg_num: u32,
    /// The cycle the MSGEND / MSGDROP was handed in.
    pub at: u64,
    pub outcome: Outcome,
}

/// Counters (not wrapping).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SendStats {
    /// [`Sender::send`] calls.
    pub messages: u64,
    /// Messages completed (any outcome).
    pub completed: u64,
    /// [`Sender::abort`] calls that succeeded.
    pub aborts: u64,
    /// Packets sent, by type: index `code - 1` (see [`SendStats::sent`]).
    pub packets: [u64; 10],
    /// RTS / RTS_LAST / NULL repeats (timer or periodic check).
    pub rts_resends: u64,
    /// Of `rts_resends`, those made due by the periodic check.
    pub periodic_resends: u64,
    /// Whole-message restarts after a data timeout.
    pub restarts: u64,
    /// Resumes: a CTS naming a packet already sent, which is sent again from there.
    pub resumes: u64,
    /// CTSs that granted nothing new.
    pub repeat_cts: u64,
    /// Replies matching no held message (and CTSs for a NULL).
    pub ignored: u64,
    /// GCHs queued again for a MSGEND / MSGDROP of a message already completed.
    pub gch_again: u64,
}

impl SendStats {
    /// Packets of type `ty` sent.
    pub fn sent(&self, ty: Type) -> u64 {
        self.packets[ty.code() as usize - 1]
    }

    /// All packets sent.
    pub fn total_sent(&self) -> u64 {
        self.packets.iter().sum()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// In the host queue, nothing sent.
    Queued,
    /// RTS / RTS_LAST sent, no CTS yet (send_pending).
    Pending,
    /// Aborted: NULL sent (send_pending).
    Nulling,
    /// A CTS came (sending).
    Sending,
}

#[derive(Clone, Debug)]
struct Msg {
    msg_id: u32,
    dst: u16,
    msg_num: u32,
    data: Vec<u8>,
    state: State,
    /// Aborted while queued: the first packet is a NULL.
    aborted: bool,
    /// Cycle of the first packet.
    first_sent: u64,
    /// RTS timer (Pending, Nulling) or data timer (Sending).
    deadline: Option<u64>,
    /// Pending / Nulling: repeat due since this cycle.
    due: Option<u64>,
    due_periodic: bool,
    /// Sending: next packet to send, last of the grant (inclusive), the grant's `n`, last
    /// packet accepted, highest packet granted since the last (re)start, grant order.
    next: u32,
    end: u32,
    n: u16,
    last: u32,
    granted_hi: u32,
    stamp: (u64, u64),
    tries: u16,
    /// Selective: packets to send again, before `next` goes on.
    again: VecDeque<u32>,
}

impl Msg {
    fn len(&self) -> u32 {
        self.data.len() as u32
    }
}

#[derive(Clone, Copy, Debug)]
struct Gch {
    dst: u16,
    msg_id: u32,
    msg_num: u32,
    len: u32,
}

/// The send side of one node.
#[derive(Clone, Debug)]
pub struct Sender {
    cfg: SendConfig,
    now: u64,
    /// Next msgID counter.
    counter: u16,
    /// The counter has wrapped (every counter value was issued).
    wrapped: bool,
    /// Next msgNum per destination.
    next_num: Vec<u32>,
    /// Every held message (queued or active), by call order.
    msgs: BTreeMap<u64, Msg>,
    /// msgID -> call order (lookups only: never iterated).
    ids: HashMap<u32, u64>,
    calls: u64,
    /// The host queue: call orders.
    queue: VecDeque<u64>,
    active: usize,
    gch: VecDeque<Gch>,
    /// First periodic check instant not yet processed.
    next_check: u64,
    /// Grant order counter.
    grants: u64,
    completions: Vec<Completion>,
    stats: SendStats,
}

impl Sender {
    pub fn new(cfg: SendConfig) -> Result<Sender, String> {
        cfg.validate()?;
        Ok(Sender {
            cfg,
            now: 0,
            counter: 0,
            wrapped: false,
            next_num: vec![1; cfg.nodes],
            msgs: BTreeMap::new(),
            ids: HashMap::new(),
            calls: 0,
            queue: VecDeque::new(),
            active: 0,
            gch: VecDeque::new(),
            next_check: cfg.resend_period,
            grants: 0,
            completions: Vec::new(),
            stats: SendStats::default(),
        })
    }

    pub fn config(&self) -> SendConfig {
        self.cfg
    }

    /// The host asks to send `data` to `dst` at cycle `now`; returns the msgID
    /// (`node << 16 | counter`, counter from 0, wrapping). `msgNum` per destination counts
    /// from 1 in call order. Panics if `dst >= nodes`, if `data` is 2^32 bytes or more, or if
    /// the msgID would still be held (65536 messages held).
    pub fn send(&mut self, now: u64, dst: u16, data: Vec<u8>) -> u32 {
        assert!(
            (dst as usize) < self.cfg.nodes,
            "dst = {dst}: must be below nodes = {}",
            self.cfg.nodes
        );
        assert!(data.len() <= u32::MAX as usize, "message too long");
        self.advance(now);
        let msg_id = (self.cfg.node as u32) << 16 | self.counter as u32;
        assert!(
            !self.ids.contains_key(&msg_id),
            "msgID {msg_id:#x} still held (65536 messages held)"
        );
        self.counter = self.counter.wrapping_add(1);
        if self.counter == 0 {
            self.wrapped = true;
        }
        let msg_num = self.next_num[dst as usize];
        self.next_num[dst as usize] = msg_num.wrapping_add(1);
        let key = self.calls;
        self.calls += 1;
        self.msgs.insert(
            key,
            Msg {
                msg_id,
                dst,
                msg_num,
                data,
                state: State::Queued,
                aborted: false,
                first_sent: 0,
                deadline: None,
                due: None,
                due_periodic: false,
                next: 0,
                end: 0,
                n: 0,
                last: 0,
                granted_hi: 0,
                stamp: (0, 0),
                tries: 0,
                again: VecDeque::new(),
            },
        );
        self.ids.insert(msg_id, key);
        self.queue.push_back(key);
        self.stats.messages += 1;
        msg_id
    }

    /// Aborts a message not yet answered by a CTS (it is replaced by NULL); false if it
    /// cannot be (unknown, completed, already aborted, or a CTS came).
    pub fn abort(&mut self, now: u64, msg_id: u32) -> bool {
        self.advance(now);
        let Some(&key) = self.ids.get(&msg_id) else {
            return false;
        };
        let m = self.msgs.get_mut(&key).expect("indexed message");
        match m.state {
            State::Queued if !m.aborted => m.aborted = true,
            State::Pending => {
                m.state = State::Nulling;
                m.aborted = true;
                m.due = Some(now);
                m.due_periodic = false;
            }
            _ => return false,
        }
        self.stats.aborts += 1;
        true
    }

    /// A CTS / MSGEND / MSGDROP for this node arrived (fields as on the wire: `peer` = the
    /// receiver, i.e. the route `src` of the reply; `info` its word 5, `info2 << 16 | info1`).
    /// Other types are ignored (counted).
    #[allow(clippy::too_many_arguments)]
    pub fn on_reply(
        &mut self,
        now: u64,
        peer: u16,
        ty: Type,
        msg_id: u32,
        len: u32,
        seq: u32,
        info: u32,
        msg_num: u32,
    ) {
        let (info1, held) = (info as u16, (info >> 16) as u16);
        self.advance(now);
        let key = self.ids.get(&msg_id).copied().filter(|k| {
            let m = &self.msgs[k];
            m.state != State::Queued && m.dst == peer && m.msg_num == msg_num
        });
        let Some(key) = key else {
            if matches!(ty, Type::MsgEnd | Type::MsgDrop)
                && !self.ids.contains_key(&msg_id)
                && self.issued(msg_id)
            {
                self.gch.push_back(Gch {
                    dst: peer,
                    msg_id,
                    msg_num,
                    len,
                });
                self.stats.gch_again += 1;
            } else {
                self.stats.ignored += 1;
            }
            return;
        };
        match ty {
            Type::MsgEnd | Type::MsgDrop => {
                let m = self.msgs.remove(&key).expect("held message");
                self.ids.remove(&msg_id);
                self.active -= 1;
                let outcome = match (ty, m.aborted) {
                    (Type::MsgEnd, _) => Outcome::End { accepted: len },
                    (_, true) => Outcome::Aborted,
                    _ => Outcome::Drop,
                };
                self.gch.push_back(Gch {
                    dst: m.dst,
                    msg_id,
                    msg_num: m.msg_num,
                    len: m.len(),
                });
                self.completions.push(Completion {
                    msg_id,
                    dst: m.dst,
                    msg_num: m.msg_num,
                    at: now,
                    outcome,
                });
                self.stats.completed += 1;
            }
            Type::Cts => {
                let mtu = self.cfg.mtu as u64;
                let m = self.msgs.get_mut(&key).expect("held message");
                if m.state == State::Nulling {
                    self.stats.ignored += 1;
                    return;
                }
                let whole_last = (m.len() as u64).div_ceil(mtu).max(1) - 1;
                let last = ((len as u64).div_ceil(mtu).max(1) - 1).min(whole_last) as u32;
                let hi = if m.state == State::Sending {
                    m.granted_hi
                } else {
                    0
                };
                // A CTS at or below what was granted names the packet the receiver misses
                // when the sender has sent it already: a resume (§12); else it is a repeat.
                let resume = m.state == State::Sending && seq <= hi && seq < m.next;
                if info1 == 0 || seq == 0 || seq > last || (seq <= hi && !resume) {
                    self.stats.repeat_cts += 1;
                    return;
                }
                if resume {
                    self.stats.resumes += 1;
                }
                if resume && self.cfg.selective {
                    // Send again the named packet and every one below the highest held that
                    // is not held (packets of a pair arrive in the order sent, so those are
                    // lost); with nothing held, every packet sent past the named one. Then go
                    // on where the message was: the grant stands.
                    let top = match held {
                        0 => m.next - 1,
                        // Bit `i` is packet `seq + 1 + i`; the highest set bit is `BITS - 1 - lz`.
                        h => (seq + u16::BITS - h.leading_zeros()).min(m.next - 1),
                    };
                    for p in seq..=top {
                        let ahead = p - seq;
                        let is_held = ahead >= 1 && held & 1 << (ahead - 1) != 0;
                        if !is_held && !m.again.contains(&p) {
                            m.again.push_back(p);
                        }
                    }
                    m.deadline = None;
                    return;
                }
                let end = (seq as u64 + info1 as u64 - 1).min(last as u64) as u32;
                m.state = State::Sending;
                m.next = seq;
                m.end = end;
                m.n = info1;
                m.last = last;
                m.granted_hi = end;
                if !resume {
                    m.stamp = (now, self.grants);
                    self.grants += 1;
                }
                m.deadline = None;
                m.due = None;
                m.due_periodic = false;
            }
            _ => self.stats.ignored += 1,
        }
    }

    /// [`Sender::on_reply`] from a decoded packet: true if it was a CTS / MSGEND / MSGDROP
    /// with `srcNID` = this node (handed in), false if not for the send side (not counted).
    pub fn on_reply_packet(&mut self, now: u64, p: &Packet) -> bool {
        match p.kind() {
            Some(ty) if ty.to_sender() && p.src_nid == self.cfg.node as u32 => {
                let info = (p.info2 as u32) << 16 | p.info1 as u32;
                self.on_reply(now, p.src, ty, p.msg_id, p.len, p.seq, info, p.msg_num);
                true
            }
            _ => false,
        }
    }

    /// The packet the sender puts on the wire now, if any. Called only when the node's framer
    /// can take one; calling it commits (the packet counts as sent at `now`).
    pub fn next_packet(&mut self, now: u64) -> Option<Packet> {
        self.advance(now);
        let p = self.pick(now)?;
        self.stats.packets[p.ty as usize - 1] += 1;
        Some(p)
    }

    fn pick(&mut self, now: u64) -> Option<Packet> {
        let cfg = self.cfg;
        // 1. GCH.
        if let Some(g) = self.gch.pop_front() {
            let mut p = Packet::new(Type::Gch, cfg.node, g.dst, cfg.node);
            p.msg_id = g.msg_id;
            p.len = g.len;
            p.msg_num = g.msg_num;
            return Some(p);
        }
        // 2. Data of the earliest grant.
        let data = self
            .msgs
            .iter()
            .filter(|(_, m)| m.state == State::Sending && (m.next <= m.end || !m.again.is_empty()))
            .min_by_key(|(_, m)| m.stamp)
            .map(|(&k, _)| k);
        if let Some(k) = data {
            let m = &self.msgs[&k];
            let again = m.again.front().copied();
            let s = again.unwrap_or(m.next);
            let ty = if s == m.last {
                Type::LastData
            } else if s == m.end {
                Type::StopData
            } else {
                Type::Data
            };
            let mut p = self.packet(m, ty, s);
            let m = self.msgs.get_mut(&k).expect("held message");
            p.info1 = m.n;
            p.info2 = m.tries;
            if again.is_some() {
                m.again.pop_front();
            } else {
                m.next += 1;
            }
            if m.next > m.end && m.again.is_empty() {
                m.deadline = Some(now + cfg.data_timeout);
            }
            return Some(p);
        }
        // 3. Repeats.
        let rep = self
            .msgs
            .iter()
            .filter_map(|(&k, m)| m.due.map(|d| (d, k)))
            .min();
        if let Some((_, k)) = rep {
            let p = self.first_packet(&self.msgs[&k]);
            let m = self.msgs.get_mut(&k).expect("held message");
            m.due = None;
            m.deadline = Some(now + cfg.rts_timeout);
            self.stats.rts_resends += 1;
            if std::mem::take(&mut m.due_periodic) {
                self.stats.periodic_resends += 1;
            }
            return Some(p);
        }
        // 4. A new message: the first queued one whose destination has no RTS unanswered (the
        // receiver takes a pair's messages in msgNum order only, so a second RTS before the
        // first is answered could only be dropped; later messages to a waiting destination
        // wait behind it, so each pair still starts in call order).
        if self.active < cfg.max_active && !self.queue.is_empty() {
            let mut waiting = vec![false; cfg.nodes];
            for m in self.msgs.values() {
                if matches!(m.state, State::Pending | State::Nulling) {
                    waiting[m.dst as usize] = true;
                }
            }
            let pos = self
                .queue
                .iter()
                .position(|k| !waiting[self.msgs[k].dst as usize]);
            if let Some(k) = pos.and_then(|i| self.queue.remove(i)) {
                let m = self.msgs.get_mut(&k).expect("held message");
                m.state = if m.aborted {
                    State::Nulling
                } else {
                    State::Pending
                };
                m.first_sent = now;
                m.deadline = Some(now + cfg.rts_timeout);
                self.active += 1;
                return Some(self.first_packet(&self.msgs[&k]));
            }
        }
        None
    }

    /// A packet of `m` of type `ty`, number `seq`, with its payload (none for control types).
    fn packet(&self, m: &Msg, ty: Type, seq: u32) -> Packet {
        let mut p = Packet::new(ty, self.cfg.node, m.dst, self.cfg.node);
        p.msg_id = m.msg_id;
        p.len = m.len();
        p.seq = seq;
        p.msg_num = m.msg_num;
        if matches!(ty, Type::Rts | Type::RtsLast) || ty.is_data() {
            let mtu = self.cfg.mtu;
            let start = (seq as usize * mtu).min(m.data.len());
            let stop = (start + mtu).min(m.data.len());
            p.data = m.data[start..stop].to_vec();
        }
        p
    }

    /// The RTS, RTS_LAST or NULL of `m`.
    fn first_packet(&self, m: &Msg) -> Packet {
        let ty = if m.state == State::Nulling {
            Type::Null
        } else if m.data.len() <= self.cfg.mtu {
            Type::RtsLast
        } else {
            Type::Rts
        };
        self.packet(m, ty, 0)
    }

    /// A message of this node that has been issued (held or not).
    fn issued(&self, msg_id: u32) -> bool {
        msg_id >> 16 == self.cfg.node as u32
            && (self.wrapped || (msg_id & 0xFFFF) < self.counter as u32)
    }

    /// Brings the timers and the periodic check up to `now`.
    fn advance(&mut self, now: u64) {
        assert!(now >= self.now, "time went back: {now} after {}", self.now);
        self.now = now;
        let cfg = self.cfg;
        // The periodic check: the first instant in (previous calls, now] at which each
        // destination's oldest pending message qualifies (nothing else changes in between).
        if now >= self.next_check {
            let p = cfg.resend_period;
            let first = self.next_check;
            let mut seen = vec![false; cfg.nodes];
            for m in self.msgs.values_mut() {
                if !matches!(m.state, State::Pending | State::Nulling) || seen[m.dst as usize] {
                    continue;
                }
                seen[m.dst as usize] = true;
                if m.due.is_some() {
                    continue;
                }
                let t = (m.first_sent + cfg.rts_timeout).div_ceil(p) * p;
                let t = t.max(first);
                if t <= now && m.deadline.is_none_or(|d| t < d) {
                    m.due = Some(t);
                    m.due_periodic = true;
                }
            }
            self.next_check = (now / p + 1) * p;
        }
        // Timers.
        for m in self.msgs.values_mut() {
            let Some(d) = m.deadline.filter(|&d| d <= now) else {
                continue;
            };
            m.deadline = None;
            match m.state {
                State::Pending | State::Nulling => {
                    if m.due.is_none() {
                        m.due = Some(d);
                    }
                }
                State::Sending => {
                    m.tries = m.tries.wrapping_add(1);
                    m.next = 1;
                    m.end = 1;
                    m.n = 1;
                    m.granted_hi = 1;
                    m.again.clear();
                    self.stats.restarts += 1;
                }
                State::Queued => unreachable!("a queued message has no timer"),
            }
        }
    }

    /// Messages finished since the last call, in completion order.
    pub fn take_completions(&mut self) -> Vec<Completion> {
        std::mem::take(&mut self.completions)
    }

    pub fn stats(&self) -> SendStats {
        self.stats
    }

    /// Completions not yet taken ([`Sender::take_completions`]).
    pub fn has_completions(&self) -> bool {
        !self.completions.is_empty()
    }

    /// Nothing in flight or queued (GCHs included; completions not yet taken do not count).
    pub fn idle(&self) -> bool {
        self.msgs.is_empty() && self.gch.is_empty()
    }

    /// Messages in send_pending or sending.
    pub fn active(&self) -> usize {
        self.active
    }

    /// Messages in the host queue.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// The earliest cycle after the last call at which a timer or the periodic check may
    /// change the state by itself (packets already available are not considered).
    pub fn next_deadline(&self) -> Option<u64> {
        let timers = self.msgs.values().filter_map(|m| m.deadline).min();
        let check = self
            .msgs
            .values()
            .any(|m| matches!(m.state, State::Pending | State::Nulling) && m.due.is_none())
            .then_some(self.next_check);
        match (timers, check) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

#[cfg(test)]
mod tests;
