//! Unit tests of the receive path's rules that a replay trace cannot express: damaged worms, a
//! `srcNID` that is not the route's source, the read port's masking, and the timers.

use super::*;

/// Drives the receive path: `feed` presents flits, one per cycle; the upper layer takes every
/// upcall (accepting everything) and delivery at once.
struct Bench {
    rx: RmppRx,
    i: Vec<u64>,
    o: Vec<u64>,
}

impl Bench {
    fn new(cfg: RmppConfig) -> Bench {
        Bench {
            rx: RmppRx::new(cfg).unwrap(),
            i: vec![0; inp::WORDS],
            o: vec![0; out::WORDS],
        }
    }
    fn tick(&mut self, flit: u64) {
        self.tick_granted(flit, true);
    }
    fn tick_granted(&mut self, flit: u64, gnt: bool) {
        self.i[inp::NET_IN] = flit;
        self.i[inp::TX_GNT] = gnt as u64;
        self.i[inp::UP_READY] = self.o[out::UP_VALID];
        self.i[inp::UP_ACCEPT] = u32::MAX as u64;
        self.i[inp::DLV_READY] = self.o[out::DLV_VALID];
        self.rx.step(&self.i, &mut self.o);
    }
    fn feed(&mut self, flits: &[u64]) {
        for &f in flits {
            self.tick(f);
        }
    }
    fn idle(&mut self, n: usize) {
        for _ in 0..n {
            self.tick(0);
        }
    }
    fn count(&self, c: usize) -> u64 {
        self.o[out::COUNTERS + c]
    }
}

fn rts_last(src: u16, id: u32, num: u32, data: &[u8]) -> Packet {
    let mut p = Packet::new(Type::RtsLast, src, 0, src);
    p.msg_id = id;
    p.msg_num = num;
    p.len = data.len() as u32;
    p.data = data.to_vec();
    p
}

#[test]
fn a_bad_crc_or_a_cut_worm_is_counted_and_changes_nothing() {
    let mut b = Bench::new(RmppConfig::default());
    let mut f = rts_last(1, 1, 1, &[1, 2, 3, 4]).flits();
    *f.last_mut().unwrap() ^= 1;
    b.feed(&f);
    // Counted at the CRC flit's edge, shown a cycle later (§11.3).
    assert_eq!(b.count(cnt::CRC), 0);
    b.idle(1);
    assert_eq!(b.count(cnt::CRC), 1);
    let f = rts_last(1, 1, 1, &[1, 2, 3, 4]).flits();
    b.feed(&f[..5]);
    b.feed(&f);
    assert_eq!(b.count(cnt::TRUNCATED), 1, "the cut worm, once");
    b.idle(20);
    assert_eq!(b.rx.busy_slots(), 1, "the whole worm after it still counts");
    assert_eq!(b.rx.expected[1], 1);
}

#[test]
fn src_nid_must_be_the_route_source() {
    let mut b = Bench::new(RmppConfig::default());
    let mut p = rts_last(1, 1, 1, &[9]);
    p.src_nid = 2;
    b.feed(&p.flits());
    b.idle(10);
    assert_eq!(b.count(cnt::NOT_SOURCE), 1);
    assert_eq!(b.rx.busy_slots(), 0);
    // A CTS for a message of another node is not this node's either.
    let mut c = Packet::new(Type::Cts, 3, 0, 3);
    c.msg_id = 5;
    b.feed(&c.flits());
    b.idle(2);
    assert_eq!(b.count(cnt::NOT_SOURCE), 2);
}

#[test]
fn the_read_port_masks_bytes_past_the_limit() {
    let cfg = RmppConfig::default();
    let mut rx = RmppRx::new(cfg).unwrap();
    let mut i = vec![0; inp::WORDS];
    let mut o = vec![0; out::WORDS];
    for f in rts_last(1, 1, 1, &[1, 2, 3, 4, 5, 6]).flits() {
        i[inp::NET_IN] = f;
        rx.step(&i, &mut o);
    }
    i[inp::NET_IN] = 0;
    // The packet acts at the edge after its CRC flit.
    assert_eq!(o[out::UP_VALID], 0);
    rx.step(&i, &mut o);
    assert_eq!(o[out::UP_VALID], 1);
    // A word addressed in cycle `t` shows after edge `t + 1` (§11.6).
    i[inp::RD_SLOT] = 0;
    i[inp::RD_WORD] = 0;
    rx.step(&i, &mut o);
    i[inp::RD_WORD] = 1;
    rx.step(&i, &mut o);
    assert_eq!(
        o[out::RD_DATA],
        0x0102_0304,
        "word 0, addressed a cycle earlier"
    );
    i[inp::RD_WORD] = 2;
    rx.step(&i, &mut o);
    assert_eq!(o[out::RD_DATA], 0x0506_0000, "bytes 6 and 7 are past len 6");
    i[inp::RD_SLOT] = 3;
    i[inp::RD_WORD] = 0;
    rx.step(&i, &mut o);
    assert_eq!(o[out::RD_DATA], 0);
    rx.step(&i, &mut o);
    assert_eq!(o[out::RD_DATA], 0, "a free slot reads zero");
}

/// Ticks idle for `n` cycles; returns the cycles (from 0) at which a reply's head went out.
fn heads(b: &mut Bench, n: usize) -> Vec<usize> {
    let mut at = Vec::new();
    for t in 0..n {
        b.idle(1);
        if b.o[out::NET_OUT] & HEAD != 0 {
            at.push(t);
        }
    }
    at
}

#[test]
fn a_done_slot_repeats_its_reply_until_gch_timeout_then_frees_itself() {
    let cfg = RmppConfig {
        gch_timeout: 100,
        reply_timeout: 20,
        ..RmppConfig::default()
    };
    let mut b = Bench::new(cfg);
    b.feed(&rts_last(1, 1, 1, &[1]).flits());
    let mut freed = None;
    let mut at = Vec::new();
    for t in 0..400 {
        b.idle(1);
        if b.o[out::NET_OUT] & HEAD != 0 {
            at.push(t);
        }
        if freed.is_none() && b.rx.busy_slots() == 0 {
            freed = Some(t);
        }
    }
    // Each pick loads the repeat, which runs out `reply_timeout + 1` edges later and is picked
    // at the edge after: heads `reply_timeout + 2` apart.
    assert!(at.len() >= 4, "{at:?}");
    assert!(at.windows(2).all(|w| w[1] - w[0] == 22), "{at:?}");
    // ENDED at the delivery's edge, a cycle or two before the first head; expired 101 edges
    // later; freed at the first repeat after that, silently.
    let freed = freed.expect("freed");
    let last = *at.last().unwrap();
    assert_eq!(freed, last + 21, "{at:?}, freed at {freed}");
    assert!(
        freed >= at[0] + 100 && freed < at[0] + 100 + 22,
        "{at:?}, freed at {freed}"
    );
}

#[test]
fn a_gch_stops_the_repeats() {
    let cfg = RmppConfig {
        reply_timeout: 20,
        ..RmppConfig::default()
    };
    let mut b = Bench::new(cfg);
    b.feed(&rts_last(1, 1, 1, &[1]).flits());
    assert_eq!(heads(&mut b, 60).len(), 3);
    let mut g = Packet::new(Type::Gch, 1, 0, 1);
    g.msg_id = 1;
    g.msg_num = 1;
    b.feed(&g.flits());
    b.idle(12);
    assert_eq!(b.rx.busy_slots(), 0);
    assert!(heads(&mut b, 200).is_empty(), "no reply once freed");
}

#[test]
fn replies_repeat_while_a_worm_waits_for_its_crc_flit() {
    // A worm whose CRC flit never comes leaves the receiver at the CRC position until the next
    // head; the repeats must go on meanwhile (holding them, a slot past `gch_timeout` freed
    // itself at the head of its sender's restart, and the message never completed).
    let cfg = RmppConfig {
        reply_timeout: 20,
        ..RmppConfig::default()
    };
    let mut b = Bench::new(cfg);
    b.feed(&rts_last(1, 1, 1, &[1]).flits());
    assert_eq!(heads(&mut b, 10).len(), 1);
    let f = rts_last(2, 2, 1, &[2]).flits();
    b.feed(&f[..f.len() - 1]);
    let at = heads(&mut b, 200);
    assert!(at.len() >= 8, "the MSGEND goes on: {at:?}");
}

/// A message of `len` bytes from node 1, its RTS fed and answered: the slot is RECEIVING.
fn receiving(b: &mut Bench, len: u32) -> Packet {
    let mut p = Packet::new(Type::Rts, 1, 0, 1);
    p.msg_id = 7;
    p.msg_num = 1;
    p.len = len;
    p.data = vec![3; 32];
    b.feed(&p.flits());
    p
}

fn data(p: &Packet, ty: Type, seq: u32) -> Packet {
    let mut d = Packet::new(ty, 1, 0, 1);
    d.msg_id = p.msg_id;
    d.msg_num = p.msg_num;
    d.len = p.len;
    d.seq = seq;
    d.data = vec![seq as u8; (p.len - 32 * seq).min(32) as usize];
    d
}

/// The CTSs the block sends in the next `n` cycles, as (cycle, seq).
fn ctss(b: &mut Bench, n: usize) -> Vec<(usize, u32)> {
    let mut flits = Vec::new();
    let mut out = Vec::new();
    for t in 0..n {
        b.idle(1);
        let f = b.o[out::NET_OUT];
        if f & HEAD != 0 {
            flits = vec![(t, f)];
        } else if f & VALID != 0 {
            flits.push((t, f));
            if f & TAIL != 0 {
                let p = Packet::from_flits(&flits.iter().map(|x| x.1).collect::<Vec<_>>());
                let p = p.expect("a reply");
                assert_eq!(p.kind(), Some(Type::Cts));
                out.push((flits[0].0, p.seq));
            }
        }
    }
    out
}

#[test]
fn a_receiving_slot_repeats_its_cts_while_no_data_comes() {
    // The in-order receiver (§11.7): a packet past a gap is dropped.
    let cfg = RmppConfig {
        reply_timeout: 30,
        selective: false,
        ..RmppConfig::default()
    };
    let mut b = Bench::new(cfg);
    let p = receiving(&mut b, 300);
    let c = ctss(&mut b, 100);
    assert_eq!(c.len(), 3, "{c:?}");
    assert!(
        c.windows(2).all(|w| w[1].0 - w[0].0 == 32 && w[1].1 == 1),
        "{c:?}"
    );
    // Data of the message starts the timer again, even a packet dropped out of sequence.
    b.feed(&data(&p, Type::Data, 1).flits());
    b.feed(&data(&p, Type::Data, 5).flits());
    assert_eq!(b.count(cnt::SEQUENCE), 0);
    let c = ctss(&mut b, 60);
    assert_eq!(c.len(), 1, "{c:?}");
    assert_eq!(c[0].1, 2, "the next packet expected");
    assert!(c[0].0 >= 30, "{c:?}: not before the timer runs out");
    assert_eq!(b.count(cnt::SEQUENCE), 1);
}

#[test]
fn the_packet_after_a_missing_one_asks_for_it_at_once() {
    // The in-order receiver's *resume* (§11.5).
    let mut b = Bench::new(RmppConfig {
        selective: false,
        ..RmppConfig::default()
    });
    let p = receiving(&mut b, 300);
    let c = ctss(&mut b, 30);
    assert_eq!(c.len(), 1);
    let grant = b.rx.outstanding();
    b.feed(&data(&p, Type::Data, 1).flits());
    // Packet 2 is lost; 3 is the one after it: dropped, and a CTS names 2 at once.
    b.feed(&data(&p, Type::Data, 3).flits());
    let c = ctss(&mut b, 30);
    assert_eq!(c.iter().map(|x| x.1).collect::<Vec<_>>(), vec![2], "{c:?}");
    assert!(c[0].0 < 5, "{c:?}: sent at once");
    // Only the packet just after the missing one asks: 4 is dropped without a reply.
    b.feed(&data(&p, Type::Data, 4).flits());
    assert!(ctss(&mut b, 25).is_empty());
    assert_eq!(b.count(cnt::SEQUENCE), 2, "3 and 4");
    assert_eq!(b.count(cnt::RESTART), 0, "a resume is not a restart");
    // The grant was returned and given again from packet 2.
    assert_eq!(b.rx.outstanding(), grant);
    // Packet 2 then goes on in sequence; the last packet completes the message.
    for s in 2..9 {
        b.feed(&data(&p, Type::Data, s).flits());
    }
    b.feed(&data(&p, Type::LastData, 9).flits());
    b.idle(20);
    assert_eq!(b.count(cnt::SEQUENCE), 2);
    let states: Vec<_> =
        b.rx.slots
            .iter()
            .filter(|s| s.busy)
            .map(|s| (s.state, s.next_seq))
            .collect();
    assert_eq!(states, vec![(State::Ended, 10)]);
}

#[test]
fn outstanding_is_the_sum_of_the_grants() {
    let mut b = Bench::new(RmppConfig::default());
    for k in 0..3u16 {
        let mut p = Packet::new(Type::Rts, k + 1, 0, k + 1);
        p.msg_id = k as u32;
        p.msg_num = 1;
        p.len = 500;
        p.data = vec![0; 32];
        b.feed(&p.flits());
        b.idle(12);
    }
    let sum: u32 = b.rx.slots.iter().map(|s| s.grant).sum();
    assert_eq!(b.rx.outstanding(), sum);
    assert_eq!(sum, 16 + 16 + 16, "pool 48: 16 each");
}

/// Feeds `flits` and `n` idle cycles; returns every reply that went out meanwhile.
fn replies(b: &mut Bench, flits: &[u64], n: usize) -> Vec<Packet> {
    replies_granted(b, flits, n, |_| true)
}

/// [`replies`] with the link granted in the cycles `granted` says (counted from 0); a reply
/// already under way when it starts is not counted.
fn replies_granted(
    b: &mut Bench,
    flits: &[u64],
    n: usize,
    granted: impl Fn(usize) -> bool,
) -> Vec<Packet> {
    let mut out = Vec::new();
    let mut worm = Vec::new();
    for (t, &f) in flits.iter().chain(std::iter::repeat_n(&0, n)).enumerate() {
        b.tick_granted(f, granted(t));
        let o = b.o[out::NET_OUT];
        if o & HEAD != 0 {
            worm.clear();
        }
        if o & VALID != 0 {
            worm.push(o);
            if o & TAIL != 0 && worm[0] & HEAD != 0 {
                out.push(Packet::from_flits(&std::mem::take(&mut worm)).expect("a whole reply"));
            }
        }
    }
    out
}

/// Packet `seq` of a 160-byte message (packets 1 to 4 after the RTS) from node 1.
fn packet_of(seq: u32, bytes: &[u8]) -> Vec<u64> {
    let ty = if seq == 4 { Type::LastData } else { Type::Data };
    let mut p = Packet::new(ty, 1, 0, 1);
    p.msg_id = 7;
    p.msg_num = 1;
    p.len = bytes.len() as u32;
    p.seq = seq;
    p.info1 = 4;
    p.data = bytes[seq as usize * 32..(seq as usize + 1) * 32].to_vec();
    p.flits()
}

#[test]
fn a_selective_receiver_holds_packets_past_a_gap_and_says_so_in_its_cts() {
    let cfg = RmppConfig {
        selective: true,
        ..RmppConfig::default()
    };
    let mut b = Bench::new(cfg);
    let bytes: Vec<u8> = (0..160).map(|i| i as u8 ^ 0x5A).collect();
    let mut rts = Packet::new(Type::Rts, 1, 0, 1);
    rts.msg_id = 7;
    rts.msg_num = 1;
    rts.len = 160;
    rts.data = bytes[..32].to_vec();
    let cts = replies(&mut b, &rts.flits(), 40);
    assert_eq!(cts.len(), 1);
    assert_eq!(
        (cts[0].kind(), cts[0].seq, cts[0].info2),
        (Some(Type::Cts), 1, 0)
    );
    // Packet 1 lost: packet 2 is held, and its CTS names 1 and says 2 is held.
    let cts = replies(&mut b, &packet_of(2, &bytes), 40);
    assert_eq!(cts.len(), 1, "the packet after a missing one asks at once");
    assert_eq!((cts[0].seq, cts[0].info2), (1, 0b1));
    assert_eq!(b.count(cnt::SEQUENCE), 0, "held, not dropped");
    // Packet 3 follows one held: no new question. A second copy of 2 is a duplicate.
    assert!(replies(&mut b, &packet_of(3, &bytes), 20).is_empty());
    assert!(replies(&mut b, &packet_of(2, &bytes), 20).is_empty());
    assert_eq!(b.count(cnt::SEQUENCE), 1);
    // Packet 1 comes: 2 and 3 come in with it, the block's grant is spent, and 4 completes.
    assert!(replies(&mut b, &packet_of(1, &bytes), 20).is_empty());
    let end = replies(&mut b, &packet_of(4, &bytes), 20);
    assert_eq!(end.len(), 1);
    assert_eq!((end[0].kind(), end[0].len), (Some(Type::MsgEnd), 160));
    assert_eq!(b.rx.slots[0].state, State::Ended, "delivered whole");
    for w in 0..40 {
        let want = u32::from_be_bytes(bytes[4 * w..4 * w + 4].try_into().unwrap());
        assert_eq!(b.rx.buf[w], want, "word {w}");
    }
    assert_eq!(b.rx.outstanding(), 0);
}

#[test]
fn without_selective_acceptance_the_packet_past_a_gap_is_dropped() {
    let mut b = Bench::new(RmppConfig {
        selective: false,
        ..RmppConfig::default()
    });
    let bytes: Vec<u8> = (0..160).map(|i| i as u8).collect();
    let mut rts = Packet::new(Type::Rts, 1, 0, 1);
    rts.msg_id = 7;
    rts.msg_num = 1;
    rts.len = 160;
    rts.data = bytes[..32].to_vec();
    replies(&mut b, &rts.flits(), 40);
    let cts = replies(&mut b, &packet_of(2, &bytes), 40);
    assert_eq!((cts.len(), cts[0].seq, cts[0].info2), (1, 1, 0));
    assert_eq!(b.count(cnt::SEQUENCE), 1);
}

#[test]
fn the_replies_are_taken_round_robin() {
    // Three RECEIVING slots whose CTSs repeat every 6 cycles, and a link that takes a reply
    // only every 40 cycles: round robin serves all three (lowest first, slots 0 and 1 took
    // every reply, §11.7).
    let picks = |selective: bool| {
        let cfg = RmppConfig {
            selective,
            reply_timeout: 4,
            ..RmppConfig::default()
        };
        let mut b = Bench::new(cfg);
        for src in 1..=3u16 {
            let mut rts = Packet::new(Type::Rts, src, 0, src);
            rts.msg_id = src as u32;
            rts.msg_num = 1;
            rts.len = 200;
            rts.data = vec![src as u8; 32];
            b.feed(&rts.flits());
            b.idle(12);
        }
        replies_granted(&mut b, &[], 1200, |t| t % 40 == 0)
            .iter()
            .map(|p| p.dst)
            .collect::<Vec<_>>()
    };
    for selective in [false, true] {
        let round = picks(selective);
        assert!(round.len() >= 25, "{round:?}");
        for w in round.windows(3) {
            let mut w = w.to_vec();
            w.sort();
            assert_eq!(
                w,
                [1, 2, 3],
                "every slot once in any three replies: {round:?}"
            );
        }
    }
}
