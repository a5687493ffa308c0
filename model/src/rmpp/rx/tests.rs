//! Unit tests of the receive path's rules that a replay trace cannot express: damaged worms, a
//! `srcNID` that is not the route's source, the read port's masking, and the clean-up timer.

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
        self.i[inp::NET_IN] = flit;
        self.i[inp::TX_GNT] = 1;
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

#[test]
fn the_clean_up_timer_frees_a_done_slot_after_gch_timeout_cycles() {
    let cfg = RmppConfig {
        gch_timeout: 50,
        ..RmppConfig::default()
    };
    let mut b = Bench::new(cfg);
    b.feed(&rts_last(1, 1, 1, &[1]).flits());
    let mut t = 0;
    while b.o[out::NET_OUT] & HEAD == 0 {
        b.idle(1);
        t += 1;
        assert!(t < 100, "MSGEND comes");
    }
    // Loaded at the pick, counted down over 50 edges, freed at the next.
    b.idle(50);
    assert_eq!(b.rx.busy_slots(), 1);
    b.idle(1);
    assert_eq!(b.rx.busy_slots(), 0);
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
