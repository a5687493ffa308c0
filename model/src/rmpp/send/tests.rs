//! Tests of the send side against a small scripted receiver that follows §11.5 loosely
//! (the upcall is answered at once, one reply per packet, no clean-up timer).

use std::collections::{BTreeMap, HashMap, VecDeque};

use super::*;
use crate::rmpp::VERSION;

// ---------------------------------------------------------------------------------------------
// The scripted receiver.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum St {
    Receiving,
    Ended,
    Dropped,
}

#[derive(Clone, Debug)]
struct Slot {
    src: u16,
    msg_id: u32,
    msg_num: u32,
    len: u32,
    limit: u32,
    st: St,
    next_seq: u32,
    cts_n: u16,
    buf: Vec<u8>,
}

/// One node's receive side.
struct ToyRx {
    node: u16,
    mtu: usize,
    /// The allowance of every CTS.
    n: u16,
    /// Bytes the upper layer accepts at most (None: all).
    accept: Option<u32>,
    expected: HashMap<u16, u32>,
    slots: Vec<Slot>,
    /// Completed messages in completion order: (src, msg_id, msg_num, accepted data).
    delivered: Vec<(u16, u32, u32, Vec<u8>)>,
    /// RTS / RTS_LAST / NULL taken as new, in order: (src, msg_num).
    arrivals: Vec<(u16, u32)>,
    gch_seen: HashMap<u32, u32>,
    restarts: u32,
    drops: u32,
}

impl ToyRx {
    fn new(node: u16, mtu: usize, n: u16) -> ToyRx {
        ToyRx {
            node,
            mtu,
            n,
            accept: None,
            expected: HashMap::new(),
            slots: Vec::new(),
            delivered: Vec::new(),
            arrivals: Vec::new(),
            gch_seen: HashMap::new(),
            restarts: 0,
            drops: 0,
        }
    }

    /// Asserts the packet is well-formed (§11.1); a violation is a sender bug.
    fn check(&self, p: &Packet) {
        let mtu = self.mtu as u64;
        let (len, seq) = (p.len as u64, p.seq as u64);
        let ty = p.kind().expect("type");
        assert_eq!(p.version, VERSION);
        assert_eq!(p.src_nid, p.src as u32, "{p:?}");
        assert_eq!(p.dst, self.node);
        match ty {
            Type::Rts => assert!(len > mtu && seq == 0, "{p:?}"),
            Type::RtsLast => assert!(len <= mtu && seq == 0, "{p:?}"),
            Type::Data | Type::StopData => assert!(seq >= 1 && (seq + 1) * mtu < len, "{p:?}"),
            Type::LastData => assert!(seq >= 1 && seq * mtu < len, "{p:?}"),
            Type::Gch | Type::Null => assert!(p.data.is_empty()),
            _ => panic!("{p:?} towards a receiver"),
        }
        if matches!(ty, Type::Rts | Type::RtsLast) || ty.is_data() {
            let start = (seq * mtu).min(len);
            let stop = (start + mtu).min(len);
            assert_eq!(p.data.len() as u64, stop - start, "{p:?}");
        }
    }

    fn reply(&self, i: usize) -> Packet {
        let s = &self.slots[i];
        let ty = match s.st {
            St::Receiving => Type::Cts,
            St::Ended => Type::MsgEnd,
            St::Dropped => Type::MsgDrop,
        };
        let mut r = Packet::new(ty, self.node, s.src, s.src);
        r.msg_id = s.msg_id;
        r.len = s.limit;
        r.msg_num = s.msg_num;
        if ty == Type::Cts {
            r.seq = s.next_seq;
            r.info1 = s.cts_n;
        }
        r
    }

    fn complete(&mut self, i: usize) {
        let s = &mut self.slots[i];
        s.st = St::Ended;
        self.delivered.push((
            s.src,
            s.msg_id,
            s.msg_num,
            s.buf[..s.limit as usize].to_vec(),
        ));
    }

    fn write(&mut self, i: usize, seq: u32, data: &[u8]) {
        let s = &mut self.slots[i];
        let at = seq as usize * self.mtu;
        for (k, &b) in data.iter().enumerate() {
            if at + k < s.limit as usize {
                s.buf[at + k] = b;
            }
        }
    }

    /// Takes one packet; returns the reply, if any.
    fn on_packet(&mut self, p: &Packet) -> Option<Packet> {
        self.check(p);
        let ty = p.kind().unwrap();
        let src = p.src;
        let e = *self.expected.get(&src).unwrap_or(&1);
        let found = self
            .slots
            .iter()
            .position(|s| s.src == src && s.msg_id == p.msg_id);
        if ty == Type::Gch {
            *self.gch_seen.entry(p.msg_id).or_default() += 1;
        }
        let mtu = self.mtu as u64;
        match (ty, found) {
            (Type::Rts | Type::RtsLast | Type::Null, None) => {
                if p.msg_num != e {
                    self.drops += 1;
                    return None;
                }
                self.expected.insert(src, e + 1);
                self.arrivals.push((src, p.msg_num));
                let limit = if ty == Type::Null {
                    0
                } else {
                    p.len.min(self.accept.unwrap_or(u32::MAX))
                };
                self.slots.push(Slot {
                    src,
                    msg_id: p.msg_id,
                    msg_num: p.msg_num,
                    len: p.len,
                    limit,
                    st: St::Dropped,
                    next_seq: 1,
                    cts_n: 0,
                    buf: vec![0; limit as usize],
                });
                let i = self.slots.len() - 1;
                if limit > 0 {
                    self.write(i, 0, &p.data);
                    if limit as u64 <= mtu {
                        self.complete(i);
                    } else {
                        self.slots[i].st = St::Receiving;
                        self.slots[i].cts_n = self.n;
                    }
                }
                Some(self.reply(i))
            }
            (_, Some(i)) if self.slots[i].st != St::Receiving => {
                if ty == Type::Gch {
                    self.slots.remove(i);
                    None
                } else {
                    Some(self.reply(i))
                }
            }
            (Type::Rts | Type::RtsLast, Some(i)) => Some(self.reply(i)),
            (Type::Null, Some(i)) => {
                self.slots[i].st = St::Dropped;
                Some(self.reply(i))
            }
            (Type::Data | Type::StopData | Type::LastData, Some(i)) => {
                let s = &mut self.slots[i];
                assert_eq!(s.len, p.len);
                let mut restart = false;
                if p.seq != s.next_seq {
                    if p.seq != 1 {
                        self.drops += 1;
                        return None;
                    }
                    restart = true;
                    s.next_seq = 1;
                    self.restarts += 1;
                }
                self.write(i, p.seq, &p.data);
                let s = &mut self.slots[i];
                s.next_seq += 1;
                if (p.seq as u64 + 1) * mtu >= s.limit as u64 {
                    self.complete(i);
                    Some(self.reply(i))
                } else if restart || ty != Type::Data {
                    s.cts_n = self.n;
                    Some(self.reply(i))
                } else {
                    None
                }
            }
            _ => {
                self.drops += 1;
                None
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The harness: one sender, receivers, fixed latency, a framer busy for the worm's flits.

type Loss = Box<dyn FnMut(&Packet) -> bool>;

struct Net {
    s: Sender,
    rx: BTreeMap<u16, ToyRx>,
    lat: u64,
    t: u64,
    busy_until: u64,
    fwd: VecDeque<(u64, Packet)>,
    back: VecDeque<(u64, Packet)>,
    /// Every packet the sender sent: (cycle, packet).
    log: Vec<(u64, Packet)>,
    /// Every reply a receiver sent (lost or not).
    replies: Vec<(u64, Packet)>,
    lose_fwd: Loss,
    lose_back: Loss,
    done: Vec<Completion>,
    max_active_seen: usize,
}

fn keep() -> Loss {
    Box::new(|_| false)
}

/// Loses the `k`-th (from 0) packet of type `ty` on its way.
fn lose_nth(ty: Type, k: usize) -> Loss {
    let mut seen = 0;
    Box::new(move |p| {
        if p.kind() == Some(ty) {
            seen += 1;
            return seen == k + 1;
        }
        false
    })
}

impl Net {
    fn new(cfg: SendConfig, n: u16) -> Net {
        let rx = (0..cfg.nodes as u16)
            .filter(|&d| d != cfg.node)
            .map(|d| (d, ToyRx::new(d, cfg.mtu, n)))
            .collect();
        Net {
            s: Sender::new(cfg).unwrap(),
            rx,
            lat: 10,
            t: 0,
            busy_until: 0,
            fwd: VecDeque::new(),
            back: VecDeque::new(),
            log: Vec::new(),
            replies: Vec::new(),
            lose_fwd: keep(),
            lose_back: keep(),
            done: Vec::new(),
            max_active_seen: 0,
        }
    }

    fn step(&mut self) {
        let t = self.t;
        while self.fwd.front().is_some_and(|f| f.0 <= t) {
            let (_, p) = self.fwd.pop_front().unwrap();
            if let Some(r) = self.rx.get_mut(&p.dst).unwrap().on_packet(&p) {
                self.replies.push((t, r.clone()));
                if !(self.lose_back)(&r) {
                    let arrive = t + self.lat + r.flits().len() as u64;
                    self.back.push_back((arrive, r));
                }
            }
        }
        while self.back.front().is_some_and(|b| b.0 <= t) {
            let (_, r) = self.back.pop_front().unwrap();
            assert!(self.s.on_reply_packet(t, &r));
        }
        if t >= self.busy_until {
            if let Some(p) = self.s.next_packet(t) {
                // The worm decodes to the same packet.
                let flits = p.flits();
                let mut d = Packet::from_flits(&flits).unwrap();
                assert!(d.data[p.data.len()..].iter().all(|&b| b == 0));
                d.data.truncate(p.data.len());
                assert_eq!(d, p);
                self.busy_until = t + flits.len() as u64;
                self.log.push((t, p.clone()));
                if !(self.lose_fwd)(&p) {
                    self.fwd.push_back((t + self.lat + flits.len() as u64, p));
                }
            }
        }
        self.max_active_seen = self.max_active_seen.max(self.s.active());
        self.done.extend(self.s.take_completions());
        self.t += 1;
    }

    /// Runs until the sender is idle and nothing is on the wire; false at `limit` cycles.
    fn run(&mut self, limit: u64) -> bool {
        while self.t < limit {
            self.step();
            if self.s.idle() && self.fwd.is_empty() && self.back.is_empty() {
                return true;
            }
        }
        false
    }

    /// (type, seq) of every packet sent.
    fn trace(&self) -> Vec<(Type, u32)> {
        self.log
            .iter()
            .map(|(_, p)| (p.kind().unwrap(), p.seq))
            .collect()
    }
}

/// The timings these tests were written for (the defaults are shorter).
fn cfg() -> SendConfig {
    SendConfig {
        node: 0,
        nodes: 4,
        rts_timeout: 2000,
        data_timeout: 2000,
        resend_period: 1000,
        ..SendConfig::DEFAULT
    }
}

fn bytes(len: usize, salt: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(7).wrapping_add(salt))
        .collect()
}

/// The data packets of blocks `(first, last, stop_type)`.
fn blocks(b: &[(u32, u32, Type)]) -> Vec<(Type, u32)> {
    let mut v = Vec::new();
    for &(a, z, end) in b {
        v.extend((a..z).map(|s| (Type::Data, s)));
        v.push((end, z));
    }
    v
}

/// One message of `len` bytes to node 1; returns the net after the run.
fn one(len: usize, n: u16, accept: Option<u32>, fwd: Loss, back: Loss) -> (Net, u32) {
    let mut net = Net::new(cfg(), n);
    net.rx.get_mut(&1).unwrap().accept = accept;
    net.lose_fwd = fwd;
    net.lose_back = back;
    let id = net.s.send(0, 1, bytes(len, 3));
    assert!(net.run(1_000_000), "did not finish");
    (net, id)
}

fn check_delivered(net: &Net, id: u32, data: &[u8]) {
    let d = &net.rx[&1].delivered;
    assert_eq!(d.len(), 1);
    assert_eq!((d[0].0, d[0].1), (0, id));
    assert_eq!(d[0].3, data);
    assert_eq!(net.rx[&1].gch_seen.get(&id), Some(&1));
}

// ---------------------------------------------------------------------------------------------
// Tests.

#[test]
fn config_validation() {
    assert!(SendConfig::DEFAULT.validate().is_ok());
    let bad = |f: fn(&mut SendConfig), name: &str| {
        let mut c = SendConfig::DEFAULT;
        f(&mut c);
        let e = c.validate().unwrap_err();
        assert!(e.starts_with(name), "{e}");
        assert!(Sender::new(c).is_err());
    };
    bad(|c| c.nodes = 0, "nodes");
    bad(|c| c.node = 16, "node");
    bad(|c| c.mtu = 12, "mtu");
    bad(|c| c.rts_timeout = 0, "rts_timeout");
    bad(|c| c.data_timeout = 0, "data_timeout");
    bad(|c| c.resend_period = 0, "resend_period");
    bad(|c| c.max_active = 0, "max_active");
    let r = RmppConfig {
        node: 3,
        mtu: 8,
        ..RmppConfig::DEFAULT
    };
    let c = SendConfig::from_rmpp(&r);
    assert_eq!((c.node, c.nodes, c.mtu), (3, 16, 8));
}

#[test]
fn zero_byte_message() {
    let (net, id) = one(0, 16, None, keep(), keep());
    assert_eq!(net.trace(), vec![(Type::RtsLast, 0), (Type::Gch, 0)]);
    let p = &net.log[0].1;
    assert_eq!((p.len, p.data.len(), p.msg_num, p.msg_id), (0, 0, 1, id));
    // §11.5: `accepted = 0` means "not wanted", so a 0-byte message is answered by MSGDROP.
    assert_eq!(
        net.done,
        vec![Completion {
            msg_id: id,
            dst: 1,
            msg_num: 1,
            at: net.done[0].at,
            outcome: Outcome::Drop
        }]
    );
    assert!(net.rx[&1].delivered.is_empty() && net.rx[&1].slots.is_empty());
    assert_eq!(net.rx[&1].gch_seen.get(&id), Some(&1));
    assert!(net.s.idle());
}

#[test]
fn one_packet_messages() {
    for len in [1, 20, 32] {
        let (net, id) = one(len, 16, None, keep(), keep());
        assert_eq!(net.trace(), vec![(Type::RtsLast, 0), (Type::Gch, 0)]);
        assert_eq!(net.log[0].1.data, bytes(len, 3));
        assert_eq!(
            net.done[0].outcome,
            Outcome::End {
                accepted: len as u32
            }
        );
        check_delivered(&net, id, &bytes(len, 3));
    }
    // One byte more: RTS + LAST_DATA of one byte.
    let (net, id) = one(33, 16, None, keep(), keep());
    assert_eq!(
        net.trace(),
        vec![(Type::Rts, 0), (Type::LastData, 1), (Type::Gch, 0)]
    );
    assert_eq!(net.log[1].1.data, vec![bytes(33, 3)[32]]);
    check_delivered(&net, id, &bytes(33, 3));
}

#[test]
fn long_message() {
    let (net, id) = one(1000, 16, None, keep(), keep());
    let mut want = vec![(Type::Rts, 0)];
    want.extend(blocks(&[(1, 16, Type::StopData), (17, 31, Type::LastData)]));
    want.push((Type::Gch, 0));
    assert_eq!(net.trace(), want);
    for (_, p) in &net.log[1..32] {
        assert_eq!((p.len, p.info1, p.info2, p.msg_num), (1000, 16, 0, 1));
        let a = p.seq as usize * 32;
        assert_eq!(p.data, bytes(1000, 3)[a..(a + 32).min(1000)]);
    }
    assert_eq!(net.log[31].1.data.len(), 1000 - 31 * 32);
    check_delivered(&net, id, &bytes(1000, 3));
    assert_eq!(net.done[0].outcome, Outcome::End { accepted: 1000 });
    let st = net.s.stats();
    assert_eq!(
        (st.rts_resends, st.restarts, st.repeat_cts, st.ignored),
        (0, 0, 0, 0)
    );
    assert_eq!(st.total_sent(), 33);

    // A smaller allowance: blocks of 5.
    let (net, _) = one(300, 5, None, keep(), keep());
    let mut want = vec![(Type::Rts, 0)];
    want.extend(blocks(&[(1, 5, Type::StopData), (6, 9, Type::LastData)]));
    want.push((Type::Gch, 0));
    assert_eq!(net.trace(), want);
    assert!(net.log[1..10].iter().all(|(_, p)| p.info1 == 5));
}

#[test]
fn partial_accept_and_drop() {
    // 100 of 1000 bytes: packets 0..=3, the last one LAST_DATA.
    let (net, id) = one(1000, 16, Some(100), keep(), keep());
    let mut want = vec![(Type::Rts, 0)];
    want.extend(blocks(&[(1, 3, Type::LastData)]));
    want.push((Type::Gch, 0));
    assert_eq!(net.trace(), want);
    assert!(net.log.iter().all(|(_, p)| p.len == 1000));
    assert_eq!(net.done[0].outcome, Outcome::End { accepted: 100 });
    check_delivered(&net, id, &bytes(100, 3));

    // All accepted bytes in the RTS: no CTS.
    let (net, _) = one(1000, 16, Some(20), keep(), keep());
    assert_eq!(net.trace(), vec![(Type::Rts, 0), (Type::Gch, 0)]);
    assert_eq!(net.done[0].outcome, Outcome::End { accepted: 20 });

    // Not wanted.
    let (net, _) = one(1000, 16, Some(0), keep(), keep());
    assert_eq!(net.trace(), vec![(Type::Rts, 0), (Type::Gch, 0)]);
    assert_eq!(net.done[0].outcome, Outcome::Drop);
}

#[test]
fn lost_first_cts_repeats_the_rts() {
    let (net, id) = one(1000, 16, None, keep(), lose_nth(Type::Cts, 0));
    let mut want = vec![(Type::Rts, 0), (Type::Rts, 0)];
    want.extend(blocks(&[(1, 16, Type::StopData), (17, 31, Type::LastData)]));
    want.push((Type::Gch, 0));
    assert_eq!(net.trace(), want);
    assert_eq!(net.log[1].0, net.log[0].0 + 2000);
    let st = net.s.stats();
    assert_eq!((st.rts_resends, st.restarts), (1, 0));
    check_delivered(&net, id, &bytes(1000, 3));
}

#[test]
fn lost_second_cts_restarts() {
    let (net, id) = one(1000, 16, None, keep(), lose_nth(Type::Cts, 1));
    let mut want = vec![(Type::Rts, 0)];
    want.extend(blocks(&[(1, 16, Type::StopData)]));
    // The restart: packet 1 alone, then the fresh CTS from seq 2 on.
    want.extend(blocks(&[
        (1, 1, Type::StopData),
        (2, 17, Type::StopData),
        (18, 31, Type::LastData),
    ]));
    want.push((Type::Gch, 0));
    assert_eq!(net.trace(), want);
    // The restart leaves data_timeout after the STOP_DATA; info2 counts the try from there.
    assert_eq!(net.log[17].0, net.log[16].0 + 2000);
    assert_eq!(net.log[17].1.info1, 1);
    assert!(net.log[1..17].iter().all(|(_, p)| p.info2 == 0));
    assert!(net.log[17..48].iter().all(|(_, p)| p.info2 == 1));
    assert_eq!(net.s.stats().restarts, 1);
    assert_eq!(net.rx[&1].restarts, 1);
    check_delivered(&net, id, &bytes(1000, 3));
}

#[test]
fn lost_data_packet_restarts() {
    let mut k = 0;
    let lose: Loss = Box::new(move |p| {
        k += 1;
        p.seq == 5 && k < 10
    });
    let (net, id) = one(1000, 16, None, lose, keep());
    let mut want = vec![(Type::Rts, 0)];
    want.extend(blocks(&[
        (1, 16, Type::StopData),
        (1, 1, Type::StopData),
        (2, 17, Type::StopData),
        (18, 31, Type::LastData),
    ]));
    want.push((Type::Gch, 0));
    assert_eq!(net.trace(), want);
    assert_eq!(net.rx[&1].drops, 11); // 6..=16 out of sequence
    assert_eq!(net.s.stats().restarts, 1);
    check_delivered(&net, id, &bytes(1000, 3));
}

#[test]
fn lost_msgend_is_answered_again() {
    // Long message: the restart packet meets an ENDED slot, which answers again.
    let (net, id) = one(1000, 16, None, keep(), lose_nth(Type::MsgEnd, 0));
    let mut want = vec![(Type::Rts, 0)];
    want.extend(blocks(&[
        (1, 16, Type::StopData),
        (17, 31, Type::LastData),
        (1, 1, Type::StopData),
    ]));
    want.push((Type::Gch, 0));
    assert_eq!(net.trace(), want);
    assert_eq!(net.s.stats().restarts, 1);
    assert_eq!(net.done.len(), 1);
    check_delivered(&net, id, &bytes(1000, 3));

    // One-packet message: the RTS_LAST is repeated.
    let (net, id) = one(10, 16, None, keep(), lose_nth(Type::MsgEnd, 0));
    assert_eq!(
        net.trace(),
        vec![(Type::RtsLast, 0), (Type::RtsLast, 0), (Type::Gch, 0)]
    );
    assert_eq!(net.s.stats().rts_resends, 1);
    check_delivered(&net, id, &bytes(10, 3));

    // Two-packet message: LAST_DATA is packet 1, so the restart packet is LAST_DATA.
    let (net, _) = one(40, 16, None, keep(), lose_nth(Type::MsgEnd, 0));
    assert_eq!(
        net.trace(),
        vec![
            (Type::Rts, 0),
            (Type::LastData, 1),
            (Type::LastData, 1),
            (Type::Gch, 0)
        ]
    );
    assert_eq!(net.log[2].1.info2, 1);
}

#[test]
fn gch_once_per_completion_and_msg_num_order() {
    let mut net = Net::new(cfg(), 4);
    let mut ids = Vec::new();
    for i in 0..12 {
        let dst = 1 + (i % 3) as u16;
        ids.push(net.s.send(0, dst, bytes(17 * i + 1, i as u8)));
    }
    assert!(net.run(1_000_000));
    assert_eq!(net.done.len(), 12);
    let st = net.s.stats();
    assert_eq!((st.messages, st.completed), (12, 12));
    assert_eq!(st.sent(Type::Gch), 12);
    for (i, &id) in ids.iter().enumerate() {
        let dst = 1 + (i % 3) as u16;
        assert_eq!(id, i as u32);
        assert_eq!(net.rx[&dst].gch_seen.get(&id), Some(&1));
        let d = net.rx[&dst].delivered.iter().find(|d| d.1 == id).unwrap();
        assert_eq!(
            (d.2, &d.3),
            ((i / 3 + 1) as u32, &bytes(17 * i + 1, i as u8))
        );
    }
    for d in 1..4 {
        let a: Vec<u32> = net.rx[&d].arrivals.iter().map(|x| x.1).collect();
        assert_eq!(a, vec![1, 2, 3, 4]);
        assert!(net.rx[&d].slots.is_empty());
    }
}

#[test]
fn msg_id_and_msg_num_per_destination() {
    let mut s = Sender::new(SendConfig {
        node: 5,
        ..SendConfig::DEFAULT
    })
    .unwrap();
    let dsts = [1u16, 2, 1, 3, 1, 2];
    let ids: Vec<u32> = dsts.iter().map(|&d| s.send(0, d, vec![1, 2, 3])).collect();
    assert_eq!(ids, (0..6).map(|c| 5 << 16 | c).collect::<Vec<u32>>());
    let mut nums = Vec::new();
    while let Some(p) = s.next_packet(0) {
        assert_eq!((p.src, p.src_nid, p.version), (5, 5, VERSION));
        nums.push((p.dst, p.msg_num, p.msg_id));
    }
    // One unanswered RTS per destination: the others wait for it.
    assert_eq!(nums, vec![(1, 1, ids[0]), (2, 1, ids[1]), (3, 1, ids[3])]);
    s.on_reply(1, 1, Type::MsgEnd, ids[0], 3, 0, 0, 1);
    s.on_reply(1, 2, Type::MsgEnd, ids[1], 3, 0, 0, 1);
    let mut next = Vec::new();
    while let Some(p) = s.next_packet(1) {
        if p.kind() != Some(Type::Gch) {
            next.push((p.dst, p.msg_num, p.msg_id));
        }
    }
    assert_eq!(next, vec![(1, 2, ids[2]), (2, 2, ids[5])]);
    s.on_reply(2, 1, Type::MsgEnd, ids[2], 3, 0, 0, 2);
    let p = std::iter::from_fn(|| s.next_packet(2)).find(|p| p.kind() != Some(Type::Gch));
    assert_eq!(
        p.map(|p| (p.dst, p.msg_num, p.msg_id)),
        Some((1, 3, ids[4]))
    );
}

#[test]
fn abort_sends_null() {
    // The RTS is lost; the abort sends NULL at once; the receiver drops the message.
    let mut net = Net::new(cfg(), 16);
    net.lose_fwd = lose_nth(Type::Rts, 0);
    let a = net.s.send(0, 1, bytes(100, 1));
    let b = net.s.send(0, 1, bytes(10, 2));
    while net.t < 100 {
        net.step();
    }
    assert!(net.s.abort(100, a));
    assert!(!net.s.abort(100, a), "aborted twice");
    assert!(!net.s.abort(100, 0x1234));
    assert!(net.run(1_000_000));
    let null_at = net
        .log
        .iter()
        .find(|x| x.1.kind() == Some(Type::Null))
        .unwrap();
    assert!(null_at.0 <= 120 && null_at.1.msg_id == a && null_at.1.msg_num == 1);
    assert_eq!(net.done.len(), 2);
    let oa = net.done.iter().find(|c| c.msg_id == a).unwrap().outcome;
    let ob = net.done.iter().find(|c| c.msg_id == b).unwrap().outcome;
    assert_eq!((oa, ob), (Outcome::Aborted, Outcome::End { accepted: 10 }));
    assert_eq!(net.rx[&1].delivered.len(), 1);
    assert_eq!(net.s.stats().sent(Type::Null), 1);
    assert_eq!(net.s.stats().aborts, 1);
    assert_eq!(net.rx[&1].gch_seen.get(&a), Some(&1));

    // The NULL lost too: it is repeated after rts_timeout, like an RTS (no periodic check
    // here: it would repeat it already at 2000, 2000 cycles after the RTS).
    let mut net = Net::new(
        SendConfig {
            resend_period: 1 << 40,
            ..cfg()
        },
        16,
    );
    let mut lost = 0;
    net.lose_fwd = Box::new(move |p| {
        let l = matches!(p.kind(), Some(Type::Rts | Type::Null)) && lost < 2;
        lost += l as u32;
        l
    });
    let a = net.s.send(0, 1, bytes(100, 1));
    while net.t < 100 {
        net.step();
    }
    assert!(net.s.abort(100, a));
    assert!(net.run(1_000_000));
    let nulls: Vec<u64> = net
        .log
        .iter()
        .filter(|x| x.1.kind() == Some(Type::Null))
        .map(|x| x.0)
        .collect();
    assert_eq!(nulls.len(), 2);
    assert_eq!(nulls[1], nulls[0] + 2000);
    assert_eq!(net.done[0].outcome, Outcome::Aborted);

    // The CTS is lost: the receiver is RECEIVING when the NULL comes, and aborts.
    let mut net = Net::new(cfg(), 16);
    net.lose_back = lose_nth(Type::Cts, 0);
    let a = net.s.send(0, 1, bytes(100, 1));
    while net.t < 200 {
        net.step();
    }
    assert!(net.s.abort(200, a));
    assert!(net.run(1_000_000));
    assert_eq!(
        net.trace(),
        vec![(Type::Rts, 0), (Type::Null, 0), (Type::Gch, 0)]
    );
    assert_eq!(net.done[0].outcome, Outcome::Aborted);
    assert!(net.rx[&1].delivered.is_empty() && net.rx[&1].slots.is_empty());

    // After a CTS: no abort.
    let mut net = Net::new(cfg(), 16);
    let a = net.s.send(0, 1, bytes(1000, 1));
    while net.t < 200 {
        net.step();
    }
    assert!(!net.s.abort(200, a));
    assert!(net.run(1_000_000));
    assert_eq!(net.done[0].outcome, Outcome::End { accepted: 1000 });

    // Aborted in the host queue: its first packet is the NULL.
    let mut net = Net::new(
        SendConfig {
            max_active: 1,
            ..cfg()
        },
        16,
    );
    let a = net.s.send(0, 1, bytes(1000, 1));
    let b = net.s.send(0, 1, bytes(1000, 2));
    assert_eq!(net.s.queued(), 2);
    assert!(net.s.abort(0, b));
    assert!(net.run(1_000_000));
    let firsts: Vec<(Type, u32)> = net
        .log
        .iter()
        .filter(|x| matches!(x.1.kind(), Some(Type::Rts | Type::Null)))
        .map(|x| (x.1.kind().unwrap(), x.1.msg_id))
        .collect();
    assert_eq!(firsts, vec![(Type::Rts, a), (Type::Null, b)]);
    assert_eq!(net.done[1].outcome, Outcome::Aborted);
}

/// Drives a sender with no receiver: every `next_packet` at `times`, all packets drained.
fn drive_silent(s: &mut Sender, times: impl Iterator<Item = u64>) -> Vec<(u64, u32, Type)> {
    let mut log = Vec::new();
    for t in times {
        while let Some(p) = s.next_packet(t) {
            log.push((t, p.msg_id, p.kind().unwrap()));
        }
    }
    log
}

#[test]
fn periodic_resend_picks_the_oldest_per_destination() {
    let c = SendConfig {
        rts_timeout: 1000,
        resend_period: 300,
        ..cfg()
    };
    let mut s = Sender::new(c).unwrap();
    let a = s.send(0, 1, bytes(100, 0));
    let b = s.send(0, 1, bytes(10, 0));
    let cc = s.send(0, 2, bytes(100, 0));
    let d = s.send(0, 2, bytes(10, 0));
    // One packet per cycle from 0 on.
    let mut log = Vec::new();
    for t in 0..2050 {
        if let Some(p) = s.next_packet(t) {
            log.push((t, p.msg_id));
        }
    }
    let times = |id: u32| -> Vec<u64> { log.iter().filter(|x| x.1 == id).map(|x| x.0).collect() };
    // Timers at +1000 from each send; the check at 1200 (the first at which the oldest has been
    // unanswered for 1000 cycles and its timer is not due) repeats the oldest of each
    // destination, then every 300 cycles.
    // b and d wait while a and cc, to the same destinations, are unanswered.
    assert_eq!(times(a), vec![0, 1000, 1200, 1500, 1800]);
    assert_eq!(times(b), Vec::<u64>::new());
    assert_eq!(times(cc), vec![1, 1001, 1201, 1501, 1801]);
    assert_eq!(times(d), Vec::<u64>::new());
    let st = s.stats();
    assert_eq!((st.rts_resends, st.periodic_resends), (8, 6));
    // a completes: b becomes the oldest of destination 1.
    s.on_reply(2050, 1, Type::MsgEnd, a, 100, 0, 0, 1);
    let mut log2 = Vec::new();
    for t in 2050..2500 {
        if let Some(p) = s.next_packet(t) {
            log2.push((t, p.msg_id, p.kind().unwrap()));
        }
    }
    assert_eq!(
        log2,
        vec![
            (2050, a, Type::Gch),
            (2051, b, Type::RtsLast),
            (2100, cc, Type::Rts),
            (2400, cc, Type::Rts)
        ]
    );
}

#[test]
fn lazy_calls_give_the_same_packets() {
    // Calling only at the sender's own deadlines gives what calling every cycle gives.
    let c = SendConfig {
        rts_timeout: 700,
        resend_period: 300,
        ..cfg()
    };
    let mk = || {
        let mut s = Sender::new(c).unwrap();
        for i in 0..6 {
            s.send(0, 1 + i % 3, bytes(10 * i as usize, 0));
        }
        s
    };
    let mut s1 = mk();
    let every = drive_silent(&mut s1, 0..10_000);
    let mut s2 = mk();
    let mut sparse = drive_silent(&mut s2, 0..1);
    while let Some(t) = s2.next_deadline().filter(|&t| t < 10_000) {
        sparse.extend(drive_silent(&mut s2, t..t + 1));
    }
    assert_eq!(every, sparse);
    assert_eq!(s1.stats(), s2.stats());
    assert!(s1.stats().periodic_resends > 0);
}

#[test]
fn priority_order() {
    let c = SendConfig {
        rts_timeout: 100,
        ..cfg()
    };
    let mut s = Sender::new(c).unwrap();
    let l1 = s.send(0, 1, bytes(200, 1)); // packets 0..=6
    let l2 = s.send(0, 2, bytes(200, 2));
    let sh = s.send(0, 3, bytes(5, 3));
    let kinds = |s: &mut Sender, t: u64| {
        s.next_packet(t)
            .map(|p| (p.msg_id, p.kind().unwrap(), p.seq))
    };
    assert_eq!(kinds(&mut s, 0), Some((l1, Type::Rts, 0)));
    assert_eq!(kinds(&mut s, 1), Some((l2, Type::Rts, 0)));
    assert_eq!(kinds(&mut s, 2), Some((sh, Type::RtsLast, 0)));
    assert_eq!(kinds(&mut s, 3), None);
    // l2 granted before l1; then sh ends; a new message arrives; l1's RTS timer is due.
    s.on_reply(10, 2, Type::Cts, l2, 200, 1, 2, 1);
    s.on_reply(11, 1, Type::Cts, l1, 200, 1, 3, 1);
    s.on_reply(12, 3, Type::MsgEnd, sh, 5, 0, 0, 1);
    let n = s.send(12, 1, bytes(3, 4));
    // sh's RTS timer would have been due at 102: it completed. l1 and l2 have CTSs.
    let got: Vec<_> = (13..20).map(|t| kinds(&mut s, t)).collect();
    assert_eq!(
        got,
        vec![
            Some((sh, Type::Gch, 0)),
            Some((l2, Type::Data, 1)),
            Some((l2, Type::StopData, 2)),
            Some((l1, Type::Data, 1)),
            Some((l1, Type::Data, 2)),
            Some((l1, Type::StopData, 3)),
            Some((n, Type::RtsLast, 0)),
        ]
    );
    // Repeats before new messages: n's repeat is due at 119; a new message at 119.
    let m = s.send(119, 2, vec![]);
    assert_eq!(kinds(&mut s, 119), Some((n, Type::RtsLast, 0)));
    assert_eq!(kinds(&mut s, 119), Some((m, Type::RtsLast, 0)));
}

#[test]
fn a_cts_naming_a_packet_already_sent_resumes_there() {
    // Towards an in-order receiver (§12): everything from the packet named is sent again.
    let mut s = Sender::new(SendConfig {
        selective: false,
        ..cfg()
    })
    .unwrap();
    let id = s.send(0, 1, bytes(300, 1)); // packets 0..=9
    let pk = |s: &mut Sender, t: u64| {
        s.next_packet(t)
            .map(|p| (p.kind().unwrap(), p.seq, p.info1))
    };
    assert_eq!(pk(&mut s, 0), Some((Type::Rts, 0, 0)));
    s.on_reply(5, 1, Type::Cts, id, 300, 1, 4, 1);
    assert_eq!(pk(&mut s, 6), Some((Type::Data, 1, 4)));
    // The same CTS again: packet 1 went out, so the receiver misses it: a resume from 1.
    s.on_reply(7, 1, Type::Cts, id, 300, 1, 4, 1);
    assert_eq!(pk(&mut s, 8), Some((Type::Data, 1, 4)));
    assert_eq!(pk(&mut s, 9), Some((Type::Data, 2, 4)));
    assert_eq!(pk(&mut s, 10), Some((Type::Data, 3, 4)));
    // A CTS naming a packet granted and not yet sent is a repeat.
    s.on_reply(11, 1, Type::Cts, id, 300, 4, 4, 1);
    assert_eq!(pk(&mut s, 12), Some((Type::StopData, 4, 4)));
    assert_eq!(pk(&mut s, 13), None);
    // A resume from the middle of the block, granting past it.
    s.on_reply(14, 1, Type::Cts, id, 300, 3, 4, 1);
    let resumed: Vec<_> = (15..20).map(|t| pk(&mut s, t)).collect();
    assert_eq!(
        resumed,
        vec![
            Some((Type::Data, 3, 4)),
            Some((Type::Data, 4, 4)),
            Some((Type::Data, 5, 4)),
            Some((Type::StopData, 6, 4)),
            None
        ]
    );
    s.on_reply(21, 1, Type::Cts, id, 300, 7, 16, 1);
    let rest: Vec<_> = (22..26).map(|t| pk(&mut s, t)).collect();
    assert_eq!(
        rest,
        vec![
            Some((Type::Data, 7, 16)),
            Some((Type::Data, 8, 16)),
            Some((Type::LastData, 9, 16)),
            None
        ]
    );
    let st = s.stats();
    assert_eq!((st.resumes, st.repeat_cts, st.ignored), (2, 1, 0));
    // The data timer runs from the LAST_DATA: a restart 2000 cycles later, not before.
    assert_eq!(pk(&mut s, 24 + 1999), None);
    assert_eq!(pk(&mut s, 24 + 2000), Some((Type::StopData, 1, 1)));
    assert_eq!((s.stats().restarts, s.stats().resumes), (1, 2));
}

#[test]
fn ignored_and_stale_replies() {
    let mut s = Sender::new(cfg()).unwrap();
    let a = s.send(0, 1, bytes(10, 1));
    let q = s.send(0, 2, bytes(10, 1)); // still queued below
    s.next_packet(0).unwrap();
    s.on_reply(1, 1, Type::MsgEnd, 1 << 16 | 7, 10, 0, 0, 1); // another node's message
    s.on_reply(1, 2, Type::MsgEnd, a, 10, 0, 0, 1); // wrong peer
    s.on_reply(1, 1, Type::MsgEnd, a, 10, 0, 0, 2); // wrong msgNum
    s.on_reply(1, 2, Type::Cts, q, 10, 1, 4, 1); // not sent yet
    assert_eq!(s.stats().ignored, 4);
    assert!(s.take_completions().is_empty());
    s.on_reply(2, 1, Type::MsgEnd, a, 10, 0, 0, 1);
    assert_eq!(s.take_completions().len(), 1);
    // A stale MSGEND after completion: GCH again.
    s.on_reply(3, 1, Type::MsgEnd, a, 10, 0, 0, 1);
    let st = s.stats();
    assert_eq!((st.ignored, st.gch_again, st.completed), (4, 1, 1));
    let g: Vec<_> = std::iter::from_fn(|| s.next_packet(4))
        .map(|p| (p.kind().unwrap(), p.msg_id, p.dst))
        .collect();
    assert_eq!(
        g,
        vec![(Type::Gch, a, 1), (Type::Gch, a, 1), (Type::RtsLast, q, 2)]
    );
}

#[test]
fn max_active_queues_in_order() {
    let mut net = Net::new(
        SendConfig {
            max_active: 2,
            ..cfg()
        },
        4,
    );
    let ids: Vec<u32> = (0..7)
        .map(|i| net.s.send(0, 1 + i % 3, bytes(50 + 40 * i as usize, 9)))
        .collect();
    assert_eq!((net.s.active(), net.s.queued()), (0, 7));
    assert!(net.run(1_000_000));
    assert_eq!(net.max_active_seen, 2);
    let firsts: Vec<u32> = net
        .log
        .iter()
        .filter(|x| matches!(x.1.kind(), Some(Type::Rts | Type::RtsLast)))
        .map(|x| x.1.msg_id)
        .collect();
    assert_eq!(firsts, ids);
    assert_eq!(net.done.len(), 7);
    // Each first packet leaves only after an earlier message completed (beyond the first two).
    for (k, &id) in ids.iter().enumerate().skip(2) {
        let sent = net.log.iter().find(|x| x.1.msg_id == id).unwrap().0;
        let ended = net.done.iter().filter(|c| c.at <= sent).count();
        assert!(ended >= k - 1, "message {k} started with {ended} done");
    }
}

#[test]
fn random_loss_soak() {
    // A deterministic LCG loses about 1 packet in 12 in both directions.
    fn lcg(seed: u64) -> Loss {
        let mut x = seed;
        Box::new(move |_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33).is_multiple_of(12)
        })
    }
    for seed in 1..6u64 {
        let c = SendConfig {
            mtu: [4, 8, 16, 32][seed as usize % 4],
            rts_timeout: 600,
            data_timeout: 900,
            resend_period: 250,
            max_active: 5,
            ..cfg()
        };
        let mut net = Net::new(c, [1, 3, 16][seed as usize % 3]);
        net.rx.get_mut(&2).unwrap().accept = Some(70);
        net.lose_fwd = lcg(seed);
        net.lose_back = lcg(seed * 77);
        let mut sent = Vec::new();
        for i in 0..40u64 {
            let dst = 1 + ((i * seed) % 3) as u16;
            let len = ((i * 37 + seed * 11) % 260) as usize;
            let data = bytes(len, (i + seed) as u8);
            let id = net.s.send(i * 30, dst, data.clone());
            sent.push((id, dst, data));
            // Abort a few; they may or may not make it.
            if i % 13 == 5 {
                net.s.abort(i * 30, id);
            }
            while net.t < (i + 1) * 30 {
                net.step();
            }
        }
        assert!(net.run(50_000_000), "seed {seed}: did not finish");
        assert_eq!(net.done.len(), 40, "seed {seed}");
        let st = net.s.stats();
        assert!(st.sent(Type::Gch) >= 40 && st.restarts + st.rts_resends > 0);
        for (id, dst, data) in &sent {
            let c = net.done.iter().find(|c| c.msg_id == *id).unwrap();
            let rx = &net.rx[dst];
            let got = rx.delivered.iter().find(|d| d.1 == *id);
            match c.outcome {
                Outcome::End { accepted } => {
                    let want = &data[..data.len().min(rx.accept.unwrap_or(u32::MAX) as usize)];
                    assert_eq!(accepted as usize, want.len());
                    assert_eq!(got.unwrap().3, want, "seed {seed} msg {id}");
                }
                Outcome::Aborted => assert!(got.is_none()),
                Outcome::Drop => panic!("nothing refuses whole messages here"),
            }
        }
        // Per-pair arrival order is msgNum order, every number once (NULLs included).
        for d in 1..4u16 {
            let a: Vec<u32> = net.rx[&d].arrivals.iter().map(|x| x.1).collect();
            assert_eq!(a, (1..=a.len() as u32).collect::<Vec<_>>());
        }
    }
}

#[test]
fn a_selective_resume_sends_again_only_what_is_not_held_then_goes_on() {
    let sender = |selective| {
        let mut s = Sender::new(SendConfig {
            node: 5,
            selective,
            ..SendConfig::DEFAULT
        })
        .unwrap();
        // 260 bytes: the RTS and packets 1 to 8.
        let id = s.send(0, 1, vec![7; 260]);
        assert_eq!(s.next_packet(0).map(|p| p.kind()), Some(Some(Type::Rts)));
        s.on_reply(1, 1, Type::Cts, id, 260, 1, 8, 1);
        let first: Vec<u32> = (0..5).map(|_| s.next_packet(2).unwrap().seq).collect();
        assert_eq!(first, vec![1, 2, 3, 4, 5]);
        // Packet 2 is missing; the receiver holds 4 and 5 (bits 1 and 2: packets 2 + 1 + i).
        s.on_reply(3, 1, Type::Cts, id, 260, 2, 0b110 << 16 | 8, 1);
        let rest: Vec<u32> = std::iter::from_fn(|| s.next_packet(4).map(|p| p.seq)).collect();
        (rest, s.stats().resumes)
    };
    assert_eq!(
        sender(true),
        (vec![2, 3, 6, 7, 8], 1),
        "2 and 3 again, then on"
    );
    assert_eq!(
        sender(false),
        (vec![2, 3, 4, 5, 6, 7, 8], 1),
        "without it, back to 2"
    );
}
