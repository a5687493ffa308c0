//! Switch behaviour (protocol.md §4) in rust-hdl's simulator: directed tests and a randomized
//! comparison against the plain-Rust reference in `common`.

mod common;

use common::*;
use idemnet_router::{switch, HdlSim};
use idemnet_rtl::flit;
use idemnet_rtl::lfsr::{lfsr_next, lfsr_seed};

const K: usize = 4;
const N: usize = 2;

/// Leaf switch (0, 1) of the 4-ary 2-tree: covers nodes 4..8, down port = dst & 3; s = 1.
fn leaf() -> HdlSim<idemnet_router::Switch> {
    HdlSim::new(switch(K, N, 0, 1).unwrap()).unwrap()
}

fn inputs(pairs: &[(usize, u64)]) -> Vec<u64> {
    let mut v = vec![0u64; 2 * K];
    for &(i, f) in pairs {
        v[i] = f;
    }
    v
}

#[test]
fn idle_outputs_are_zero_and_invalid_inputs_ignored() {
    let mut sim = leaf();
    // valid = 0 with garbage in the other bits must be ignored.
    let garbage = (1u64 << 34) - 1;
    for _ in 0..4 {
        switch_cycle(&mut sim, &[garbage; 2 * K]);
        assert_eq!(switch_outputs(&sim), vec![0; 2 * K]);
        assert_eq!(switch_drops(&sim), vec![0; 2 * K]);
    }
}

#[test]
fn one_cycle_per_hop_and_bubbles() {
    let mut sim = leaf();
    let h = head(0, 6, false);
    switch_cycle(&mut sim, &inputs(&[(0, h)]));
    // Forwarded in cycle 0 -> on the output register in O_0.
    assert_eq!(switch_outputs(&sim)[2], h);
    switch_cycle(&mut sim, &inputs(&[])); // bubble: output 2 stays held, shows zero
    assert_eq!(switch_outputs(&sim), vec![0; 2 * K]);
    let t = body(7, true);
    switch_cycle(&mut sim, &inputs(&[(0, t)]));
    assert_eq!(switch_outputs(&sim)[2], t);
    assert_eq!(switch_drops(&sim), vec![0; 2 * K]);
}

#[test]
fn blocked_head_discards_whole_worm_and_counts_once() {
    let mut sim = leaf();
    // Inputs 0 and 2 both want down port 1 (node 5) in the same cycle: 0 wins by priority.
    switch_cycle(
        &mut sim,
        &inputs(&[(0, head(4, 5, false)), (2, head(6, 5, false))]),
    );
    let o = switch_outputs(&sim);
    assert_eq!(o[1], head(4, 5, false));
    assert_eq!(switch_drops(&sim), vec![0, 0, 1, 0, 0, 0, 0, 0]);
    // The loser's body and tail are dropped silently; the winner's flow on.
    switch_cycle(
        &mut sim,
        &inputs(&[(0, body(1, false)), (2, body(99, false))]),
    );
    assert_eq!(switch_outputs(&sim), inputs(&[(1, body(1, false))]));
    switch_cycle(
        &mut sim,
        &inputs(&[(0, body(2, false)), (2, body(99, true))]),
    );
    assert_eq!(switch_outputs(&sim), inputs(&[(1, body(2, false))]));
    assert_eq!(switch_drops(&sim), vec![0, 0, 1, 0, 0, 0, 0, 0]);
    // A head from an up input blocked by the worm held since an earlier cycle: discarded.
    switch_cycle(
        &mut sim,
        &inputs(&[(0, body(3, false)), (K, head(9, 5, false))]),
    );
    assert_eq!(switch_outputs(&sim), inputs(&[(1, body(3, false))]));
    switch_cycle(&mut sim, &inputs(&[(0, body(4, true)), (K, body(9, true))]));
    assert_eq!(switch_outputs(&sim), inputs(&[(1, body(4, true))]));
    assert_eq!(switch_drops(&sim), vec![0, 0, 1, 0, 1, 0, 0, 0]);
    // Body or tail on an idle input: counted as one discarded worm.
    switch_cycle(&mut sim, &inputs(&[(3, body(1, false))]));
    switch_cycle(&mut sim, &inputs(&[(3, body(2, false))]));
    switch_cycle(&mut sim, &inputs(&[(3, body(3, true))]));
    assert_eq!(switch_drops(&sim), vec![0, 0, 1, 1, 1, 0, 0, 0]);
    assert_eq!(switch_outputs(&sim), vec![0; 2 * K]);
}

#[test]
fn tail_frees_port_at_end_of_cycle() {
    let mut sim = leaf();
    switch_cycle(&mut sim, &inputs(&[(0, head(4, 7, false))]));
    // Tail on input 0 and a new head on input 1 for the same port in the same cycle: the port
    // is still held in this cycle, the head is discarded.
    switch_cycle(
        &mut sim,
        &inputs(&[(0, body(1, true)), (1, head(5, 7, true))]),
    );
    assert_eq!(switch_outputs(&sim), inputs(&[(3, body(1, true))]));
    assert_eq!(switch_drops(&sim)[1], 1);
    // Next cycle the port is free.
    switch_cycle(&mut sim, &inputs(&[(1, head(5, 7, true))]));
    assert_eq!(switch_outputs(&sim), inputs(&[(3, head(5, 7, true))]));
    assert_eq!(switch_drops(&sim)[1], 1);
    // A head on an input in forward(o) (previous worm lost its tail) releases o first.
    switch_cycle(&mut sim, &inputs(&[(2, head(6, 7, false))]));
    switch_cycle(&mut sim, &inputs(&[(2, head(6, 7, false))]));
    assert_eq!(switch_outputs(&sim), inputs(&[(3, head(6, 7, false))]));
    assert_eq!(switch_drops(&sim)[2], 0);
}

#[test]
fn up_port_follows_lfsr_and_takes_first_free() {
    let mut sim = leaf();
    let mut lfsr = lfsr_seed(1);
    // Cycle 0: all four down inputs go up (destinations outside 4..8); they get the up ports
    // start, start+1, ... in priority order.
    let start = lfsr as usize & 3;
    let heads: Vec<u64> = (0..K).map(|i| head(4 + i, 12 + i, false)).collect();
    switch_cycle(
        &mut sim,
        &inputs(&[(0, heads[0]), (1, heads[1]), (2, heads[2]), (3, heads[3])]),
    );
    let o = switch_outputs(&sim);
    for i in 0..K {
        assert_eq!(o[K + (start + i) % K], heads[i], "input {i}");
    }
    lfsr = lfsr_next(lfsr);
    // Cycle 1: inputs 1..4 end their worms; input 0 keeps up port `start`.
    switch_cycle(
        &mut sim,
        &inputs(&[(1, body(1, true)), (2, body(1, true)), (3, body(1, true))]),
    );
    lfsr = lfsr_next(lfsr);
    // Cycle 2: a new head on input 1 must skip the held port if the LFSR points at it.
    for _ in 0..8 {
        let st = lfsr as usize & 3;
        let expect = if st == start { (st + 1) % K } else { st };
        switch_cycle(&mut sim, &inputs(&[(1, head(5, 0, true))]));
        assert_eq!(
            switch_outputs(&sim),
            inputs(&[(K + expect, head(5, 0, true))])
        );
        lfsr = lfsr_next(lfsr);
    }
    assert_eq!(switch_drops(&sim), vec![0; 2 * K]);
    // Up inputs never go up: a head from above for a node not covered is discarded.
    switch_cycle(&mut sim, &inputs(&[(K + 1, head(0, 1, true))]));
    assert_eq!(switch_outputs(&sim), vec![0; 2 * K]);
    assert_eq!(switch_drops(&sim)[K + 1], 1);
}

#[test]
fn top_switch_discards_unroutable() {
    // Top switch (1, 0) of the 4-ary 2-tree covers all 16 nodes; destination 16 is beyond it.
    let mut sim = HdlSim::new(switch(K, N, 1, 0).unwrap()).unwrap();
    let mut v = vec![0u64; 2 * K];
    v[0] = head(0, 16, true);
    v[1] = head(1, 13, true); // down port (13 >> 2) & 3 = 3
    switch_cycle(&mut sim, &v);
    let mut expect = vec![0u64; 2 * K];
    expect[3] = head(1, 13, true);
    assert_eq!(switch_outputs(&sim), expect);
    assert_eq!(switch_drops(&sim)[0], 1);
}

/// Random flits (well-formed worms or not, garbage in invalid flits): rust-hdl's simulation of
/// the switch against the golden model's switch.
fn random_vs_golden_model(k: usize, n: usize, l: usize, w: usize, cycles: usize, seed: u64) {
    let mut sim = HdlSim::new(switch(k, n, l, w).unwrap()).unwrap();
    let tree = idemnet_model::FatTree::new(k, n).unwrap();
    let mut rf = idemnet_model::Switch::new(tree, l, w).unwrap();
    let mut rng = Rng(seed);
    let nodes = k.pow(n as u32) as u64;
    let b = k.trailing_zeros() as u64;
    // Destinations mostly near this switch's subtree, sometimes anywhere or out of range.
    let mut forwarded = 0usize;
    let base = ((w as u64) >> (l as u64 * b)) << ((l as u64 + 1) * b);
    for t in 0..cycles {
        let inp: Vec<u64> = (0..2 * k)
            .map(|_| {
                let r = rng.next();
                let valid = !r.is_multiple_of(4);
                let headf = r >> 8 & 3 == 0;
                let tail = r >> 12 & 3 == 0;
                let dst = match r >> 16 & 3 {
                    0 => rng.below(nodes + 3),
                    _ => (base + rng.below(k as u64 * 2)) & 0xFFFF,
                };
                let data = if headf {
                    (rng.next() as u32 & 0xFFFF_0000) | dst as u32
                } else {
                    rng.next() as u32
                };
                if valid {
                    flit::make(headf, tail, data)
                } else {
                    rng.next() & ((1 << 34) - 1)
                }
            })
            .collect();
        switch_cycle(&mut sim, &inp);
        rf.step(&inp);
        assert_eq!(
            switch_outputs(&sim),
            rf.outputs(),
            "outputs, cycle {t}, switch ({l},{w}) k={k} n={n}"
        );
        assert_eq!(switch_drops(&sim), rf.drops(), "drops, cycle {t}");
        forwarded += rf.outputs().iter().filter(|&&f| f != 0).count();
    }
    // The stimulus must exercise both forwarding and discarding.
    let dropped: u32 = rf.drops().iter().map(|&d| d as u32).sum();
    assert!(
        forwarded > cycles / 2 && dropped > cycles as u32 / 4,
        "{forwarded} {dropped}"
    );
}

#[test]
fn random_vs_golden_model_k4() {
    random_vs_golden_model(4, 2, 0, 1, 400, 1);
    random_vs_golden_model(4, 2, 1, 3, 300, 2);
    random_vs_golden_model(4, 3, 1, 6, 300, 3);
}

#[test]
fn random_vs_golden_model_k2_k8() {
    random_vs_golden_model(2, 3, 1, 2, 300, 4);
    random_vs_golden_model(2, 3, 2, 3, 200, 5);
    random_vs_golden_model(8, 2, 0, 5, 200, 6);
    random_vs_golden_model(8, 2, 1, 7, 150, 7);
}
