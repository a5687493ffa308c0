//! The RMPP receive path on flit sequences that neither a replay trace (whole worms only) nor,
//! but rarely, the co-simulation's peers produce: the golden model and the Verilated RTL in
//! lockstep on a scripted `net_in`, every output compared every cycle, and the rule under test
//! asserted on the outputs.
//!
//! docs/protocol.md §11.5 (Actions): the answer and delivered registers do not act at an edge
//! before which the framing awaits a CRC flit, whether one comes or not. Here an answer is
//! ready just as a worm reaches its CRC position and the CRC flit is late or never comes.

use idemnet_cosim::default_cache_dir;
use idemnet_cosim::lockstep::run_lockstep_observed;
use idemnet_model::rmpp::rx::{inp, out, RmppRx};
use idemnet_model::rmpp::{Packet, RmppConfig, Type};
use idemnet_testbench::config::Config;

/// An RTS_LAST of four bytes from `src`, its first message to node 0.
fn rts_last(src: u16, id: u32) -> Vec<u64> {
    let mut p = Packet::new(Type::RtsLast, src, 0, src);
    p.msg_id = id;
    p.msg_num = 1;
    p.len = 4;
    p.data = vec![1, 2, 3, 4];
    p.flits()
}

/// One cycle of stimulus: the flit, and whether the upper layer takes the upcall shown.
#[derive(Clone, Copy, Default)]
struct Cycle {
    flit: u64,
    up_ready: bool,
}

/// Runs `script` on both engines (`dlv_ready` low throughout, so a delivery stays shown) and
/// returns `dlv_valid` of every cycle, after checking that the two agree on every output.
fn dlv_valid_of(script: &[Cycle]) -> Vec<bool> {
    let cfg = RmppConfig::DEFAULT;
    let lib = idemnet_testbench::verilate(&Config::rmpp_rx(cfg), None, &default_cache_dir())
        .expect("the receive path verilates");
    let mut rtl = lib.instance();
    let mut model = RmppRx::new(cfg).expect("the default configuration");
    let mut shown = Vec::new();
    let report = run_lockstep_observed(
        lib.ports(),
        |t, _, i| {
            let c = script[t as usize];
            i[inp::NET_IN] = c.flit;
            i[inp::UP_READY] = c.up_ready as u64;
            i[inp::UP_ACCEPT] = u32::MAX as u64;
            i[inp::TX_GNT] = 1;
        },
        &mut |i: &[u64], o: &mut [u64]| idemnet_model::block::ModelBlock::step(&mut model, i, o),
        &mut rtl,
        script.len() as u64,
        |v| {
            shown.push(v.model[out::DLV_VALID] & 1 == 1);
            true
        },
    )
    .expect("the lockstep runs");
    assert!(report.passed(), "model and RTL differ: {report}");
    shown
}

/// Message 1 from node 1 arrives whole and is shown as an upcall; worm `b` from node 2 follows,
/// and the upper layer takes the upcall at the edge before `b`'s last word before its CRC, so
/// that the answer could act first (§11.5: two edges after it is taken) at the edge after that
/// word: where the CRC flit is awaited.
/// Returns the script up to and including that word, and the index of its cycle.
fn answer_ready_at_the_crc_position(b: &[u64]) -> (Vec<Cycle>, usize) {
    let mut script: Vec<Cycle> = rts_last(1, 1)
        .into_iter()
        .map(|flit| Cycle {
            flit,
            up_ready: false,
        })
        .collect();
    script.extend([Cycle::default(); 4]);
    let last_word = b.len() - 2;
    for (k, &flit) in b[..=last_word].iter().enumerate() {
        script.push(Cycle {
            flit,
            up_ready: k + 1 == last_word,
        });
    }
    let at = script.len() - 1;
    (script, at)
}

/// Six idle cycles, `flits` with the upcall not taken, and eight idle cycles.
fn then_after_a_gap(script: &mut Vec<Cycle>, flits: &[u64]) {
    script.extend([Cycle::default(); 6]);
    script.extend(flits.iter().map(|&flit| Cycle {
        flit,
        up_ready: false,
    }));
    script.extend([Cycle::default(); 8]);
}

#[test]
fn a_late_crc_flit_holds_the_answer_back_until_it_comes() {
    let b = rts_last(2, 2);
    let (mut script, last_word) = answer_ready_at_the_crc_position(&b);
    let crc = script.len() + 6;
    then_after_a_gap(&mut script, &b[b.len() - 1..]);
    let shown = dlv_valid_of(&script);
    // Message 1, all of it in its first packet, joins the delivery FIFO when the answer acts,
    // and shows in that edge's outputs: the answer acts at the edge after `b`'s packet acts,
    // which is the edge after its CRC flit.
    assert!(
        !shown[..=crc + 1].iter().any(|&v| v),
        "the answer waits through the gap (last word at {last_word}, CRC flit at {crc}): {shown:?}"
    );
    assert!(shown[crc + 2], "then it acts: {shown:?}");
}

#[test]
fn a_lost_crc_flit_holds_the_answer_back_until_a_head_cuts_the_worm() {
    let (mut script, _) = answer_ready_at_the_crc_position(&rts_last(2, 2));
    let head = script.len() + 6;
    then_after_a_gap(&mut script, &rts_last(3, 3));
    let shown = dlv_valid_of(&script);
    assert!(
        !shown[..=head].iter().any(|&v| v),
        "the answer waits while the tail is missing: {shown:?}"
    );
    // The head's edge still finds the framing at the CRC position; the answer acts at the
    // next.
    assert!(shown[head + 1], "the head ends the wait: {shown:?}");
}
