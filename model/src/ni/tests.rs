//! The rules of docs/protocol.md §8 on the golden model, one test each.

use super::*;

/// One NI with its flat port buffers; every cycle's `net_out` is recorded.
struct Bench {
    ni: Ni,
    i: Vec<u64>,
    o: Vec<u64>,
    sent: Vec<(u64, u64)>,
    t: u64,
}

impl Bench {
    fn new(cfg: NiConfig) -> Bench {
        Bench {
            ni: Ni::new(cfg).unwrap(),
            i: {
                let mut i = vec![0; inp::WORDS];
                i[inp::TX_GNT] = 1;
                i
            },
            o: vec![0; out::WORDS],
            sent: vec![],
            t: 0,
        }
    }
    fn node(node: u16) -> Bench {
        Bench::new(NiConfig {
            node,
            ..NiConfig::default()
        })
    }
    fn cycle(&mut self, net_in: u64) {
        self.i[inp::NET_IN] = net_in;
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
    fn feed(&mut self, p: &Packet) {
        for f in p.flits() {
            self.cycle(f);
        }
    }
    fn cnt(&self, c: usize) -> u64 {
        self.o[out::COUNTERS + c]
    }
    /// The packets sent so far, decoded.
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
    fn request(&mut self, dst: u16, data: &[u8]) {
        let mut w = [0u32; PAYLOAD_WORDS];
        for (j, x) in bytes_to_words(data).into_iter().enumerate() {
            w[j] = x;
        }
        self.i[inp::REQ_VALID] = 1;
        self.i[inp::REQ_DST] = dst as u64;
        self.i[inp::REQ_LEN] = data.len() as u64;
        self.i[inp::REQ_DATA..inp::REQ_DATA + 4].copy_from_slice(&bus_from_words(&w));
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
    let words = [0x0002_0005u32, 0x0400_0000, 0x0002_0001, 0xdead_beef];
    let c = words.iter().fold(u32::MAX, |c, &w| crc32_step(c, w));
    assert_eq!(c, crc32(&words));
    let p = pkt(Kind::Send, 2, 5, 0x2_0001, &[0xde, 0xad, 0xbe, 0xef, 1]);
    let f = p.flits();
    assert_eq!(f.len(), 3 + 2 + 1);
    assert_eq!(Packet::from_flits(&f), Some(p));
    let mut bad = f.clone();
    bad[3] ^= 1;
    assert_eq!(Packet::from_flits(&bad), None);
    let w = [1, 2, 3, 4, 5, 6, 7, 0xffff_ffff];
    assert_eq!(words_from_bus(&bus_from_words(&w)), w);
}

#[test]
fn first_send_delivered_once_then_acked_until_forget() {
    let mut b = Bench::node(5);
    let send = pkt(Kind::Send, 2, 5, 0x2_0001, &[0xde, 0xad, 0xbe, 0xef]);
    b.feed(&send);
    // Delivered at the cycle of the CRC flit.
    assert_eq!(b.o[out::DLV_VALID], 1);
    assert_eq!(b.o[out::DLV_SRC], 2);
    assert_eq!(b.o[out::DLV_UID], 0x2_0001);
    assert_eq!(b.o[out::DLV_LEN], 4);
    assert_eq!(
        words_from_bus(&b.o[out::DLV_DATA..out::DLV_DATA + 4])[0],
        0xdeadbeef
    );
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
    // ACK at once (the cycle after delivery), then every ack_interval cycles.
    assert_eq!(acks[0], 5);
    assert!(acks.windows(2).all(|w| w[1] - w[0] == 64), "{acks:?}");
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
    b.feed(&pkt(Kind::Forget, 3, 5, 0x2_0007, &[]));
    assert_eq!(b.cnt(cnt::NOT_SOURCE), 1);
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
    b.cycle(0);
    b.i[inp::REQ_VALID] = 0;
    b.idle(300);
    let sends: Vec<(u64, Packet)> = b.packets();
    assert!(sends.len() >= 3);
    assert!(sends
        .iter()
        .all(|(_, p)| *p == pkt(Kind::Send, 3, 9, 0x3_0000, b"hello")));
    assert_eq!(sends[0].0, 2);
    assert_eq!(sends[1].0 - sends[0].0, 128);
    assert_eq!(b.cnt(cnt::RETRANSMIT) as usize, sends.len() - 1);
    b.feed(&pkt(Kind::Ack, 9, 3, 0x3_0000, &[]));
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

#[test]
fn full_send_table_holds_the_host_back() {
    let mut b = Bench::new(NiConfig {
        node: 2,
        send_slots: 2,
        ..NiConfig::default()
    });
    b.idle(1);
    b.request(7, b"x");
    b.cycle(0);
    b.cycle(0);
    // Two accepted, the table is full: ready falls and stays low while the host keeps asking.
    assert_eq!(b.o[out::REQ_READY], 0);
    b.idle(50);
    assert_eq!(b.o[out::REQ_READY], 0);
    b.i[inp::REQ_VALID] = 0;
    let uids: Vec<u32> = b.packets().iter().map(|(_, p)| p.uid).collect();
    assert_eq!(uids, vec![0x2_0000, 0x2_0001]);
    b.feed(&pkt(Kind::Ack, 7, 2, 0x2_0001, &[]));
    b.idle(2);
    assert_eq!(b.o[out::REQ_READY], 1);
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
    f[3] &= !TAIL;
    f.push(VALID | TAIL);
    for x in &f {
        b.cycle(*x);
    }
    assert_eq!(b.cnt(cnt::MALFORMED), 2);
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
    a.request(2, b"ping");
    let (mut a_out, mut b_out) = (0u64, 0u64);
    let mut delivered = 0;
    let mut done = 0;
    for _ in 0..100 {
        a.cycle(b_out);
        a.i[inp::REQ_VALID] = 0;
        b.cycle(a_out);
        a_out = a.o[out::NET_OUT];
        b_out = b.o[out::NET_OUT];
        delivered += b.o[out::DLV_VALID] * b.i[inp::DLV_READY];
        done += a.o[out::DONE_VALID];
    }
    assert_eq!((delivered, done), (1, 1));
    assert_eq!(a.cnt(cnt::RETRANSMIT), 0);
    assert!(
        b.ni.recv.iter().all(|r| !r.active),
        "FORGET freed the receive slot"
    );
}
