//! The rules of docs/protocol.md §8 on the golden model, one test each.

use std::collections::VecDeque;

use super::*;
use crate::stream::{beat_words, Beats};

/// One NI with its flat port buffers. Every cycle's `net_out` is recorded; queued requests are
/// streamed, each beat presented until `req_ready` lets it in; every delivery beat the host
/// takes is recorded.
struct Bench {
    ni: Ni,
    i: Vec<u64>,
    o: Vec<u64>,
    sent: Vec<(u64, u64)>,
    t: u64,
    /// Requests to stream: what the first beat shows (`req_dst`, `req_len`) and the beats.
    requests: VecDeque<(u16, u64, Beats)>,
    /// The cycles in which request beats were taken.
    taken: Vec<u64>,
    /// (cycle shown, `dlv_data`, `dlv_last`) of every delivery beat taken.
    delivered: Vec<(u64, u32, bool)>,
}

impl Bench {
    fn new(cfg: NiConfig) -> Bench {
        let mut i = vec![0; inp::WORDS];
        i[inp::TX_GNT] = 1;
        Bench {
            ni: Ni::new(cfg).unwrap(),
            i,
            o: vec![0; out::WORDS],
            sent: vec![],
            t: 0,
            requests: VecDeque::new(),
            taken: vec![],
            delivered: vec![],
        }
    }
    fn node(node: u16) -> Bench {
        Bench::new(NiConfig {
            node,
            ..NiConfig::default()
        })
    }
    /// Node `node` with `send_slots` send slots.
    fn sending(node: u16, send_slots: usize) -> Bench {
        Bench::new(NiConfig {
            node,
            send_slots,
            ..NiConfig::default()
        })
    }
    /// Presents the front request's beat of this cycle; later beats show other `req_dst` and
    /// `req_len`, which the NI must not read.
    fn present(&mut self) {
        let ready = self.o[out::REQ_READY] == 1;
        let Some((dst, len, beats)) = self.requests.front_mut() else {
            self.i[inp::REQ_VALID] = 0;
            return;
        };
        let (word, last) = beats.beat();
        let first = !beats.started();
        self.i[inp::REQ_VALID] = 1;
        self.i[inp::REQ_DATA] = word as u64;
        self.i[inp::REQ_LAST] = last as u64;
        self.i[inp::REQ_DST] = if first { *dst as u64 } else { 0xBEEF };
        self.i[inp::REQ_LEN] = if first { *len } else { 63 - *len };
        if ready {
            self.taken.push(self.t);
            if beats.taken() {
                self.requests.pop_front();
            }
        }
    }
    fn cycle(&mut self, net_in: u64) {
        self.i[inp::NET_IN] = net_in;
        self.present();
        if self.o[out::DLV_VALID] == 1 && self.i[inp::DLV_READY] == 1 {
            let (data, last) = (self.o[out::DLV_DATA] as u32, self.o[out::DLV_LAST] == 1);
            self.delivered.push((self.t - 1, data, last));
        }
        self.ni.step(&self.i, &mut self.o);
        if self.o[out::NET_OUT] != 0 {
            self.sent.push((self.t, self.o[out::NET_OUT]));
        }
        self.t += 1;
    }
    fn idle(&mut self, n: u64) {
        for _ in 0..n {
            self.cycle(0);
        }
    }
    /// The worm of `p`, one flit per cycle, and the cycle of its action edge (§8.4: an idle
    /// input then), so that what the packet does shows in `o`.
    fn feed(&mut self, p: &Packet) {
        for f in p.flits() {
            self.cycle(f);
        }
        self.cycle(0);
    }
    /// Counter `c` as counted up to the last edge (its port shows it a cycle later, §8.2).
    fn cnt(&self, c: usize) -> u64 {
        self.ni.counters[c] as u64
    }
    /// The packets sent so far, decoded, with the cycle of their head.
    fn packets(&self) -> Vec<(u64, Packet)> {
        let mut v = vec![];
        let mut cur: Vec<u64> = vec![];
        let mut start = 0;
        for &(t, f) in &self.sent {
            if f & HEAD != 0 {
                cur.clear();
                start = t;
            }
            cur.push(f);
            if f & TAIL != 0 {
                v.push((start, Packet::from_flits(&cur).expect("well-formed worm")));
            }
        }
        v
    }
    /// Queues a well-formed request of `data` to `dst`.
    fn request(&mut self, dst: u16, data: &[u8]) {
        self.requests
            .push_back((dst, data.len() as u64, Beats::new(data)));
    }
    /// Queues a request whose first beat says `len` bytes and whose beats carry `words`.
    fn raw_request(&mut self, dst: u16, len: u64, words: &[u32]) {
        self.requests
            .push_back((dst, len, Beats::of_words(words.to_vec())));
    }
    /// Runs until the queued requests are all streamed.
    fn stream(&mut self) {
        while !self.requests.is_empty() {
            self.cycle(0);
        }
    }
    /// The delivered datagrams so far: (cycle of the first beat, words).
    fn datagrams(&self) -> Vec<(u64, Vec<u32>)> {
        let mut v: Vec<(u64, Vec<u32>)> = vec![];
        let mut open = false;
        for &(t, data, last) in &self.delivered {
            if !open {
                v.push((t, vec![]));
            }
            v.last_mut().expect("pushed").1.push(data);
            open = !last;
        }
        v
    }
}

fn pkt(kind: Kind, src: u16, dst: u16, uid: u32, data: &[u8]) -> Packet {
    Packet {
        kind,
        src,
        dst,
        uid,
        data: data.to_vec(),
    }
}

#[test]
fn crc_bitwise_matches_crate_and_worms_round_trip() {
    let words = [0x0002_0005u32, 0x0400_0001, 0xdead_beef];
    let c = words.iter().fold(u32::MAX, |c, &w| crc32_step(c, w));
    assert_eq!(c, crc32(&words));
    let p = pkt(Kind::Send, 2, 5, 0x2_0001, &[0xde, 0xad, 0xbe, 0xef, 1]);
    let f = p.flits();
    // Head, header (type, length, the uid's counter), two payload words, CRC (§8.1).
    assert_eq!(f.len(), 1 + 1 + 2 + 1);
    assert_eq!(f[1] as u32, 0x0500_0001);
    assert_eq!(Packet::from_flits(&f), Some(p));
    // An ACK's uid is its destination's.
    let ack = pkt(Kind::Ack, 5, 2, 0x2_0001, &[]);
    assert_eq!(Packet::from_flits(&ack.flits()), Some(ack));
    let mut bad = f.clone();
    bad[3] ^= 1;
    assert_eq!(Packet::from_flits(&bad), None);
}

#[test]
fn first_send_delivered_once_then_acked_until_forget() {
    let mut b = Bench::node(5);
    let send = pkt(Kind::Send, 2, 5, 0x2_0001, &[0xde, 0xad, 0xbe, 0xef]);
    b.feed(&send);
    // Delivered at the action edge, the cycle after the CRC flit: one beat.
    assert_eq!(b.o[out::DLV_VALID], 1);
    assert_eq!(b.o[out::DLV_SRC], 2);
    assert_eq!(b.o[out::DLV_UID], 0x2_0001);
    assert_eq!(b.o[out::DLV_LEN], 4);
    assert_eq!(b.o[out::DLV_DATA], 0xdeadbeef);
    assert_eq!(b.o[out::DLV_LAST], 1);
    b.i[inp::DLV_READY] = 1;
    b.idle(1);
    assert_eq!(b.o[out::DLV_VALID], 0);
    // The repeated SEND is not delivered again.
    b.feed(&send);
    assert_eq!(b.o[out::DLV_VALID], 0);
    assert_eq!(b.cnt(cnt::DUPLICATE), 1);
    b.idle(300);
    let acks: Vec<u64> = b
        .packets()
        .into_iter()
        .filter(|(_, p)| *p == pkt(Kind::Ack, 5, 2, 0x2_0001, &[]))
        .map(|(t, _)| t)
        .collect();
    // ACK due at once from the action edge (§8.4), picked at the edge after and started the
    // cycle after that (§8.5), then every ack_interval cycles.
    assert_eq!(acks[0], 6);
    let every = u64::from(NiConfig::DEFAULT.ack_interval);
    assert!(acks.windows(2).all(|w| w[1] - w[0] == every), "{acks:?}");
    assert!(acks.len() >= 5);
    b.feed(&pkt(Kind::Forget, 2, 5, 0x2_0001, &[]));
    let n = b.packets().len();
    b.idle(500);
    assert_eq!(b.packets().len(), n, "ACKs stop after FORGET");
    assert_eq!(b.cnt(cnt::UNKNOWN), 0);
    // A second FORGET finds nothing.
    b.feed(&pkt(Kind::Forget, 2, 5, 0x2_0001, &[]));
    assert_eq!(b.cnt(cnt::UNKNOWN), 1);
}

#[test]
fn forget_from_a_foreign_node_is_ignored() {
    let mut b = Bench::node(5);
    b.i[inp::DLV_READY] = 1;
    b.feed(&pkt(Kind::Send, 2, 5, 0x2_0007, &[]));
    // The same counter from node 3 names node 3's uid (§8.1: the owner is the route's source).
    b.feed(&pkt(Kind::Forget, 3, 5, 0x3_0007, &[]));
    assert_eq!(b.cnt(cnt::UNKNOWN), 1);
    let before = b.packets().len();
    b.idle(200);
    assert!(b.packets().len() > before, "ACKs go on");
}

#[test]
fn full_receive_table_drops_without_ack_or_delivery() {
    let mut b = Bench::new(NiConfig {
        node: 1,
        recv_slots: 2,
        ..NiConfig::default()
    });
    b.i[inp::DLV_READY] = 1;
    for c in 0..3u32 {
        b.feed(&pkt(Kind::Send, 4, 1, 0x4_0000 | c, &[c as u8]));
        b.idle(1);
    }
    assert_eq!(b.cnt(cnt::TABLE_FULL), 1);
    b.idle(200);
    let acked: std::collections::HashSet<u32> = b
        .packets()
        .iter()
        .filter(|(_, p)| p.kind == Kind::Ack)
        .map(|(_, p)| p.uid)
        .collect();
    assert_eq!(acked, [0x4_0000, 0x4_0001].into_iter().collect());
    // The delivery register also refuses while the host does not take it.
    let mut b = Bench::node(1);
    b.feed(&pkt(Kind::Send, 4, 1, 0x4_0000, &[]));
    b.feed(&pkt(Kind::Send, 6, 1, 0x6_0000, &[]));
    assert_eq!(b.cnt(cnt::TABLE_FULL), 1);
    assert_eq!(b.o[out::DLV_UID], 0x4_0000);
}

#[test]
fn send_repeats_until_ack_then_forget_and_done() {
    let mut b = Bench::node(3);
    b.idle(1);
    assert_eq!(b.o[out::REQ_READY], 1);
    b.request(9, b"hello");
    b.idle(300);
    let sends: Vec<(u64, Packet)> = b.packets();
    assert!(sends.len() >= 3);
    assert!(sends
        .iter()
        .all(|(_, p)| *p == pkt(Kind::Send, 3, 9, 0x3_0000, b"hello")));
    // Two beats, taken in cycles 1 and 2; the SEND is due from edge 2, picked at edge 3 and
    // starts in cycle 4 (§8.5).
    assert_eq!(b.taken, [1, 2]);
    assert_eq!(sends[0].0, 4);
    assert_eq!(sends[1].0 - sends[0].0, 128);
    assert_eq!(b.cnt(cnt::RETRANSMIT) as usize, sends.len() - 1);
    b.feed(&pkt(Kind::Ack, 9, 3, 0x3_0000, &[]));
    // The FORGET is due after the ACK's CRC edge, picked at the next edge and started at the
    // one after (§8.5), which raises done.
    b.cycle(0);
    assert_eq!(b.o[out::DONE_VALID], 0);
    b.cycle(0);
    assert_eq!(b.o[out::DONE_VALID], 1);
    assert_eq!(b.o[out::DONE_UID], 0x3_0000);
    b.idle(400);
    let after: Vec<Packet> = b.packets()[sends.len()..]
        .iter()
        .map(|x| x.1.clone())
        .collect();
    assert_eq!(after, vec![pkt(Kind::Forget, 3, 9, 0x3_0000, &[])]);
    // A late ACK is answered with FORGET.
    b.feed(&pkt(Kind::Ack, 9, 3, 0x3_0000, &[]));
    b.idle(20);
    assert_eq!(
        b.packets().last().unwrap().1,
        pkt(Kind::Forget, 3, 9, 0x3_0000, &[])
    );
    assert_eq!(b.packets().len(), sends.len() + 2);
}

/// The gaps between the starts of one datagram's SENDs, in order.
fn send_gaps(b: &Bench) -> Vec<u64> {
    let starts: Vec<u64> = b
        .packets()
        .iter()
        .filter(|(_, p)| p.kind == Kind::Send)
        .map(|&(t, _)| t)
        .collect();
    starts.windows(2).map(|w| w[1] - w[0]).collect()
}

#[test]
fn repeats_are_spread_by_an_lfsr_that_steps_only_when_a_send_starts() {
    // §8.5: a SEND repeats `retry_interval - retry_spread / 2 + r` cycles after it started,
    // `r` the low bits of the NI's LFSR, which steps at each SEND's start and holds otherwise.
    let mut b = Bench::node(3);
    b.idle(1);
    b.request(9, b"hello");
    b.idle(3000);
    let gaps = send_gaps(&b);
    let mut v = crate::lfsr::ni_seed(3);
    let mut want = vec![];
    for _ in &gaps {
        want.push(128 - 8 + u64::from(v & 15));
        v = crate::lfsr::step(v);
    }
    assert_eq!(gaps, want);
    assert!(gaps.iter().any(|&g| g != gaps[0]), "{gaps:?}");
    // Acknowledged and forgotten, then a long idle: the next datagram's first repeat takes the
    // value after the last one drawn (one more for the last SEND's own draw).
    let sends = gaps.len() as u64 + 1;
    b.feed(&pkt(Kind::Ack, 9, 3, 0x3_0000, &[]));
    b.idle(5000);
    let before = b.packets().len();
    b.request(9, b"again");
    b.idle(300);
    let next: Vec<u64> = b.packets()[before..]
        .iter()
        .filter(|(_, p)| p.kind == Kind::Send)
        .map(|&(t, _)| t)
        .collect();
    let mut v = crate::lfsr::ni_seed(3);
    for _ in 0..sends {
        v = crate::lfsr::step(v);
    }
    assert_eq!(next[1] - next[0], 120 + u64::from(v & 15));
    // Without a spread, every repeat comes `retry_interval` cycles after the last.
    let mut fixed = Bench::new(NiConfig {
        node: 3,
        retry_spread: 0,
        ..NiConfig::default()
    });
    fixed.idle(1);
    fixed.request(9, b"hello");
    fixed.idle(1000);
    let gaps = send_gaps(&fixed);
    assert!(
        gaps.len() >= 6 && gaps.iter().all(|&g| g == 128),
        "{gaps:?}"
    );
}

#[test]
fn full_send_table_holds_the_host_back() {
    let mut b = Bench::sending(2, 2);
    b.idle(1);
    for _ in 0..3 {
        b.request(7, b"x");
    }
    b.cycle(0);
    b.cycle(0);
    // Two taken, the table is full: ready falls and stays low while the host keeps asking.
    assert_eq!(b.o[out::REQ_READY], 0);
    b.idle(50);
    assert_eq!(b.o[out::REQ_READY], 0);
    assert_eq!(
        b.taken,
        [1, 2],
        "the third request's beat is held, not taken"
    );
    let uids: Vec<u32> = b.packets().iter().map(|(_, p)| p.uid).collect();
    assert_eq!(uids, vec![0x2_0000, 0x2_0001]);
    b.feed(&pkt(Kind::Ack, 7, 2, 0x2_0001, &[]));
    b.idle(20);
    assert_eq!(b.requests.len(), 0, "taken once a slot is free");
    let uids: Vec<u32> = b.packets().iter().map(|(_, p)| p.uid).collect();
    assert!(uids.contains(&0x2_0002), "{uids:x?}");
}

#[test]
fn bad_crc_truncated_malformed_and_misrouted_are_counted_never_delivered() {
    let mut b = Bench::node(5);
    let good = pkt(Kind::Send, 2, 5, 0x2_0001, &[1, 2, 3, 4]);
    let mut f = good.flits();
    f[3] ^= 0x10;
    for x in &f {
        b.cycle(*x);
    }
    assert_eq!(b.cnt(cnt::CRC), 1);
    // Counted at the CRC flit's edge, shown a cycle later (§8.2).
    assert_eq!(b.o[out::COUNTERS + cnt::CRC], 0);
    b.cycle(0);
    assert_eq!(b.o[out::COUNTERS + cnt::CRC], 1);
    // Truncated: the tail bit early, a head cutting a worm, a lone body flit.
    let f = good.flits();
    b.cycle(f[0]);
    b.cycle(f[1] | TAIL);
    assert_eq!(b.cnt(cnt::TRUNCATED), 1);
    b.cycle(f[0]);
    b.cycle(f[1]);
    b.feed(&good);
    assert_eq!(b.cnt(cnt::TRUNCATED), 2);
    assert_eq!(b.o[out::DLV_VALID], 1, "the worm after the cut one is fine");
    b.i[inp::DLV_READY] = 1;
    b.cycle(VALID | 5);
    b.cycle(VALID | TAIL | 6);
    assert_eq!(b.cnt(cnt::TRUNCATED), 3);
    // Malformed: type 3, and a too long worm.
    let mut f = pkt(Kind::Ack, 2, 5, 0x5_0000, &[]).flits();
    f[1] |= 3 << 30;
    for x in &f {
        b.cycle(*x);
    }
    assert_eq!(b.cnt(cnt::MALFORMED), 1);
    let mut f = pkt(Kind::Forget, 2, 5, 0x2_0001, &[]).flits();
    f[2] &= !TAIL;
    f.push(VALID | TAIL);
    for x in &f {
        b.cycle(*x);
    }
    assert_eq!(b.cnt(cnt::MALFORMED), 2);
    // A reserved header bit (23:16) set; the counter's bits (15:0) are not reserved.
    let mut f = pkt(Kind::Forget, 2, 5, 0x2_FFFF, &[]).flits();
    f[1] |= 1 << 16;
    for x in &f {
        b.cycle(*x);
    }
    assert_eq!(b.cnt(cnt::MALFORMED), 3);
    // Misrouted.
    b.feed(&pkt(Kind::Send, 2, 6, 0x2_0009, &[]));
    assert_eq!(b.cnt(cnt::MISROUTED), 1);
    b.idle(2);
    assert_eq!(b.o[out::DLV_VALID], 0);
    // Only the one good SEND is remembered: its FORGET is the only one honoured.
    b.feed(&pkt(Kind::Forget, 2, 5, 0x2_0001, &[]));
    assert_eq!(b.cnt(cnt::UNKNOWN), 0);
}

#[test]
fn two_nis_back_to_back_complete_a_datagram() {
    let mut a = Bench::node(1);
    let mut b = Bench::node(2);
    b.i[inp::DLV_READY] = 1;
    a.idle(1);
    a.request(2, b"ping, pong");
    let (mut a_out, mut b_out) = (0u64, 0u64);
    let mut done = 0;
    for _ in 0..100 {
        a.cycle(b_out);
        b.cycle(a_out);
        a_out = a.o[out::NET_OUT];
        b_out = b.o[out::NET_OUT];
        done += a.o[out::DONE_VALID];
    }
    let words = beat_words(b"ping, pong");
    assert_eq!(
        b.datagrams().into_iter().map(|d| d.1).collect::<Vec<_>>(),
        [words]
    );
    assert_eq!(done, 1);
    assert_eq!(a.cnt(cnt::RETRANSMIT), 0);
    assert!(
        b.ni.recv.iter().all(|r| !r.active),
        "FORGET freed the receive slot"
    );
}

/// A datagram of `len` bytes 1, 2, 3, ... .
fn counting(len: usize) -> Vec<u8> {
    (1..=len as u8).collect()
}

#[test]
fn request_beats_are_taken_one_per_cycle_and_the_slot_commits_at_the_last() {
    let mut b = Bench::sending(4, 1);
    b.idle(1);
    b.request(6, &counting(32));
    for beat in 0..8 {
        b.cycle(0);
        assert_eq!(
            b.o[out::REQ_READY],
            (beat < 7) as u64,
            "beat {beat}: ready until the last"
        );
    }
    assert_eq!(b.taken, (1..=8).collect::<Vec<u64>>());
    assert_eq!(b.ni.counter, 1, "the uid is used at the last beat");
    b.idle(20);
    let sends = b.packets();
    assert_eq!(sends.len(), 1);
    assert_eq!(
        sends[0].0, 10,
        "the SEND is picked the cycle after the last beat and starts the cycle after that"
    );
    assert_eq!(
        sends[0].1,
        pkt(Kind::Send, 4, 6, 0x4_0000, &counting(32)),
        "dst and len as the first beat said"
    );
}

#[test]
fn the_bytes_past_the_length_are_sent_as_zero_and_a_zero_length_request_is_one_beat() {
    let mut b = Bench::node(1);
    b.idle(1);
    b.raw_request(3, 5, &[0x0102_0304, 0x05FF_FFFF]);
    b.raw_request(3, 0, &[0xFFFF_FFFF]);
    b.idle(60);
    let sent: Vec<Packet> = b.packets().into_iter().map(|x| x.1).collect();
    assert_eq!(
        sent,
        [
            pkt(Kind::Send, 1, 3, 0x1_0000, &[1, 2, 3, 4, 5]),
            pkt(Kind::Send, 1, 3, 0x1_0001, &[]),
        ]
    );
    assert_eq!(sent[0].words()[3], 0x0500_0000);
    assert_eq!(b.taken, [1, 2, 3]);
}

#[test]
fn bad_requests_are_refused_once_at_the_beat_that_shows_it_and_touch_nothing() {
    // (req_len, beats given, the beat (from 1) at which it is refused)
    let cases: [(u64, usize, usize); 6] = [
        (33, 1, 1),
        (63, 9, 1),
        (8, 1, 1),
        (32, 7, 7),
        (4, 3, 1),
        (0, 2, 1),
    ];
    for (len, beats, refused_at) in cases {
        let mut b = Bench::sending(2, 1);
        b.idle(1);
        let words: Vec<u32> = (1..=beats as u32).collect();
        b.raw_request(5, len, &words);
        let mut counted = vec![];
        for _ in 0..beats {
            b.cycle(0);
            counted.push(b.cnt(cnt::HOST_ERROR));
            assert_eq!(b.o[out::REQ_READY], 1, "len {len}: the slot stays free");
        }
        let want: Vec<u64> = (1..=beats).map(|k| (k >= refused_at) as u64).collect();
        assert_eq!(
            counted, want,
            "len {len}, {beats} beats: counted once, there"
        );
        assert_eq!(b.taken.len(), beats, "every beat is taken");
        assert!(b.ni.requests.between(), "the next beat starts a request");
        assert_eq!(b.ni.counter, 0, "no uid used");
        assert!(b.ni.send.iter().all(|s| s.state == SendState::Free));
        b.idle(300);
        assert!(b.sent.is_empty(), "len {len}: nothing sent");
        assert_eq!((b.o[out::DONE_VALID], b.cnt(cnt::HOST_ERROR)), (0, 1));
        // The next request is read as its own, with the first uid.
        b.request(5, b"next");
        b.idle(20);
        let sent: Vec<Packet> = b.packets().into_iter().map(|x| x.1).collect();
        assert_eq!(
            sent,
            [pkt(Kind::Send, 2, 5, 0x2_0000, b"next")],
            "len {len}"
        );
    }
}

#[test]
fn a_refused_request_never_waits_and_never_lends_its_beats_to_the_next() {
    let mut b = Bench::node(2);
    b.idle(1);
    // Too long: the 2nd beat lacks req_last; the 3rd to 5th are swallowed up to req_last,
    // though the 4th looks like a header.
    b.raw_request(5, 8, &[1, 2, 3, 0x0000_0004, 5]);
    b.request(6, b"abcdefgh");
    b.stream();
    b.idle(20);
    assert_eq!(b.cnt(cnt::HOST_ERROR), 1);
    let sent: Vec<Packet> = b.packets().into_iter().map(|x| x.1).collect();
    assert_eq!(sent, [pkt(Kind::Send, 2, 6, 0x2_0000, b"abcdefgh")]);
    assert_eq!(b.taken, (1..=7).collect::<Vec<u64>>(), "no cycle lost");
}

#[test]
fn the_slot_is_chosen_at_the_first_beat_and_stays_while_a_lower_one_frees() {
    let mut b = Bench::sending(3, 2);
    b.idle(1);
    b.request(9, b"one");
    b.idle(10);
    assert_eq!(b.ni.send[0].state, SendState::Wait);
    // Its ACK comes while the next request streams into slot 1; the FORGET frees slot 0 mid-way.
    b.request(9, &counting(32));
    let ack = pkt(Kind::Ack, 9, 3, 0x3_0000, &[]);
    for f in ack.flits() {
        b.cycle(f);
    }
    assert!(!b.requests.is_empty(), "still streaming");
    b.stream();
    assert_eq!(
        b.o[out::DONE_VALID] + b.ni.send[0].state as u64,
        0,
        "slot 0 freed"
    );
    assert_eq!(
        b.ni.send[1].state,
        SendState::Wait,
        "the request went where it started"
    );
    assert_eq!(b.ni.send[1].counter, 1);
}

#[test]
fn a_zero_length_datagram_is_delivered_as_one_beat_of_zero() {
    let mut b = Bench::node(5);
    b.i[inp::DLV_READY] = 1;
    b.feed(&pkt(Kind::Send, 2, 5, 0x2_0003, &[]));
    assert_eq!(b.o[out::DLV_VALID], 1);
    assert_eq!(
        (b.o[out::DLV_DATA], b.o[out::DLV_LAST], b.o[out::DLV_LEN]),
        (0, 1, 0)
    );
    b.idle(1);
    assert_eq!(b.o[out::DLV_VALID], 0);
    assert_eq!(b.datagrams(), [(b.t - 2, vec![0])]);
}

#[test]
fn back_pressure_holds_each_beat_and_the_next_send_waits_for_the_last() {
    let mut b = Bench::node(5);
    let first = pkt(Kind::Send, 2, 5, 0x2_0001, &counting(12));
    b.feed(&first);
    assert_eq!(
        b.o[out::DLV_VALID],
        1,
        "the first beat shows at the action edge"
    );
    let fields = |b: &Bench| (b.o[out::DLV_SRC], b.o[out::DLV_UID], b.o[out::DLV_LEN]);
    // dlv_ready per cycle: each beat stays until taken, the fields held throughout.
    let mut seen = vec![];
    for ready in [0, 1, 0, 0, 1] {
        b.i[inp::DLV_READY] = ready;
        b.cycle(0);
        assert_eq!(b.o[out::DLV_VALID], 1);
        assert_eq!(fields(&b), (2, 0x2_0001, 12));
        seen.push((b.o[out::DLV_DATA] as u32, b.o[out::DLV_LAST]));
    }
    let w = beat_words(&counting(12));
    let want = [(w[0], 0), (w[1], 0), (w[1], 0), (w[1], 0), (w[2], 1)];
    assert_eq!(seen, want);
    // A SEND whose action edge (§8.4) is the cycle the last beat is taken is refused: the
    // stream was busy in O_(t-1). One a cycle later is delivered.
    let second = pkt(Kind::Send, 4, 5, 0x4_0001, b"late");
    let flits = second.flits();
    b.i[inp::DLV_READY] = 0;
    for &f in &flits {
        b.cycle(f);
    }
    b.i[inp::DLV_READY] = 1;
    b.cycle(0);
    assert_eq!((b.o[out::DLV_VALID], b.cnt(cnt::TABLE_FULL)), (0, 1));
    b.feed(&second);
    assert_eq!(
        b.o[out::DLV_VALID],
        1,
        "delivered when the stream was idle before"
    );
    b.idle(1);
    let got = b.datagrams();
    assert_eq!(got[0].1, w);
    assert_eq!(got[1].1, beat_words(b"late"));
}

#[test]
fn a_request_streams_in_while_a_delivery_streams_out() {
    let mut b = Bench::node(7);
    b.idle(1);
    b.i[inp::DLV_READY] = 1;
    let incoming = pkt(Kind::Send, 1, 7, 0x1_0005, &counting(32));
    b.request(1, &counting(20));
    let flits = incoming.flits();
    for &f in &flits {
        b.cycle(f);
    }
    b.idle(40);
    assert_eq!(
        b.taken,
        (1..=5).collect::<Vec<u64>>(),
        "beats one per cycle meanwhile"
    );
    assert_eq!(
        b.datagrams(),
        [(flits.len() as u64 + 1, beat_words(&counting(32)))],
        "eight beats from the action edge's cycle on"
    );
    let sent: Vec<Packet> = b.packets().into_iter().map(|x| x.1).collect();
    assert_eq!(sent[0], pkt(Kind::Send, 7, 1, 0x7_0000, &counting(20)));
    assert!(sent.contains(&pkt(Kind::Ack, 7, 1, 0x1_0005, &[])));
}

/// The transmitter's worms, built from words without a [`Packet`], are [`Packet::flits`]'s: every
/// kind, every payload length, uids and routes all over their range.
#[test]
fn an_outgoing_worm_is_its_packets_flits() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(17);
    let mut tx = vec![7; 3];
    for _ in 0..2_000 {
        let kind = [Kind::Send, Kind::Ack, Kind::Forget][rng.gen_range(0..3)];
        let len = if kind == Kind::Send {
            rng.gen_range(0..=MAX_PAYLOAD)
        } else {
            0
        };
        let (src, dst) = (rng.gen::<u16>(), rng.gen::<u16>());
        let counter = rng.gen::<u16>();
        let bytes: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        let mut data = [0u32; PAYLOAD_WORDS];
        for (w, word) in bytes_to_words(&bytes).into_iter().enumerate() {
            data[w] = word;
        }
        let uid = (kind.owner(src, dst) as u32) << 16 | counter as u32;
        let worm = Outgoing {
            kind,
            dst,
            uid,
            len: len as u8,
            data,
        };
        worm.flits_into(src, &mut tx);
        let packet = Packet {
            kind,
            src,
            dst,
            uid,
            data: bytes,
        };
        assert_eq!(tx, packet.flits(), "{packet:?}");
    }
}
