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

/// What one cycle decided: the outputs and drop counters the switch shows one cycle later.
#[derive(Clone, Debug, PartialEq)]
struct Decided {
    outputs: Vec<u64>,
    drops: Vec<u16>,
}

/// Runs one cycle per entry of `script`, then one idle cycle, and returns what each cycle `t`
/// decided, read from `O_(t+1)` (two cycles per hop, §4). Checks that `O_0` is all zero.
fn run(sim: &mut HdlSim<idemnet_router::Switch>, script: &[Vec<u64>]) -> Vec<Decided> {
    let mut shown = vec![];
    for inp in script.iter().chain(std::iter::once(&inputs(&[]))) {
        let first = sim.cycles() == 0;
        switch_cycle(sim, inp);
        let now = Decided {
            outputs: switch_outputs(sim),
            drops: switch_drops(sim),
        };
        if first {
            assert_eq!(now.outputs, vec![0; 2 * K], "O_0");
        } else {
            shown.push(now);
        }
    }
    shown
}

#[test]
fn idle_outputs_are_zero_and_invalid_inputs_ignored() {
    let mut sim = leaf();
    // valid = 0 with garbage in the other bits must be ignored.
    let garbage = (1u64 << 34) - 1;
    for d in run(&mut sim, &vec![vec![garbage; 2 * K]; 4]) {
        assert_eq!(d.outputs, vec![0; 2 * K]);
        assert_eq!(d.drops, vec![0; 2 * K]);
    }
}

#[test]
fn two_cycles_per_hop_and_bubbles() {
    let mut sim = leaf();
    let h = head(0, 6, false);
    let t = body(7, true);
    let mut shown = vec![];
    for inp in [
        inputs(&[(0, h)]),
        inputs(&[]),
        inputs(&[(0, t)]),
        inputs(&[]),
    ] {
        switch_cycle(&mut sim, &inp);
        shown.push(switch_outputs(&sim));
    }
    // Forwarded in cycle 0 -> on the output register in O_1, not in O_0.
    assert_eq!(shown[0], vec![0; 2 * K]);
    assert_eq!(shown[1], inputs(&[(2, h)]));
    // Bubble in cycle 1: output 2 stays held and shows zero in O_2.
    assert_eq!(shown[2], vec![0; 2 * K]);
    assert_eq!(shown[3], inputs(&[(2, t)]));
    assert_eq!(switch_drops(&sim), vec![0; 2 * K]);
}

#[test]
fn blocked_head_discards_whole_worm_and_counts_once() {
    let mut sim = leaf();
    let d = run(
        &mut sim,
        &[
            // Inputs 0 and 2 both want down port 1 (node 5) in the same cycle: 0 wins by
            // priority.
            inputs(&[(0, head(4, 5, false)), (2, head(6, 5, false))]),
            // The loser's body and tail are dropped silently; the winner's flow on.
            inputs(&[(0, body(1, false)), (2, body(99, false))]),
            inputs(&[(0, body(2, false)), (2, body(99, true))]),
            // A head from an up input blocked by the worm held since an earlier cycle:
            // discarded.
            inputs(&[(0, body(3, false)), (K, head(9, 5, false))]),
            inputs(&[(0, body(4, true)), (K, body(9, true))]),
            // Body or tail on an idle input: counted as one discarded worm.
            inputs(&[(3, body(1, false))]),
            inputs(&[(3, body(2, false))]),
            inputs(&[(3, body(3, true))]),
        ],
    );
    assert_eq!(d[0].outputs, inputs(&[(1, head(4, 5, false))]));
    assert_eq!(d[0].drops, vec![0, 0, 1, 0, 0, 0, 0, 0]);
    assert_eq!(d[1].outputs, inputs(&[(1, body(1, false))]));
    assert_eq!(d[2].outputs, inputs(&[(1, body(2, false))]));
    assert_eq!(d[2].drops, vec![0, 0, 1, 0, 0, 0, 0, 0]);
    assert_eq!(d[3].outputs, inputs(&[(1, body(3, false))]));
    assert_eq!(d[4].outputs, inputs(&[(1, body(4, true))]));
    assert_eq!(d[4].drops, vec![0, 0, 1, 0, 1, 0, 0, 0]);
    assert_eq!(d[7].drops, vec![0, 0, 1, 1, 1, 0, 0, 0]);
    assert_eq!(d[7].outputs, vec![0; 2 * K]);
}

#[test]
fn tail_frees_port_at_end_of_cycle() {
    let mut sim = leaf();
    let d = run(
        &mut sim,
        &[
            inputs(&[(0, head(4, 7, false))]),
            // Tail on input 0 and a new head on input 1 for the same port in the same cycle:
            // the port is still held in this cycle, the head is discarded.
            inputs(&[(0, body(1, true)), (1, head(5, 7, true))]),
            // Next cycle the port is free.
            inputs(&[(1, head(5, 7, true))]),
            // A head on an input in forward(o) (previous worm lost its tail) releases o first.
            inputs(&[(2, head(6, 7, false))]),
            inputs(&[(2, head(6, 7, false))]),
        ],
    );
    assert_eq!(d[1].outputs, inputs(&[(3, body(1, true))]));
    assert_eq!(d[1].drops[1], 1);
    assert_eq!(d[2].outputs, inputs(&[(3, head(5, 7, true))]));
    assert_eq!(d[2].drops[1], 1);
    assert_eq!(d[4].outputs, inputs(&[(3, head(6, 7, false))]));
    assert_eq!(d[4].drops[2], 0);
}

#[test]
fn up_port_follows_lfsr_and_takes_first_free() {
    let mut sim = leaf();
    let mut lfsr = lfsr_seed(1);
    // Cycle 0: all four down inputs go up (destinations outside 4..8); they get the up ports
    // start, start+1, ... in priority order.
    let start = lfsr as usize & 3;
    let heads: Vec<u64> = (0..K).map(|i| head(4 + i, 12 + i, false)).collect();
    let mut script = vec![
        inputs(&[(0, heads[0]), (1, heads[1]), (2, heads[2]), (3, heads[3])]),
        // Cycle 1: inputs 1..4 end their worms; input 0 keeps up port `start`.
        inputs(&[(1, body(1, true)), (2, body(1, true)), (3, body(1, true))]),
    ];
    lfsr = lfsr_next(lfsr_next(lfsr));
    // Cycles 2..10: a new head on input 1 must skip the held port if the LFSR points at it.
    let mut expect = vec![];
    for _ in 0..8 {
        let st = lfsr as usize & 3;
        expect.push(if st == start { (st + 1) % K } else { st });
        script.push(inputs(&[(1, head(5, 0, true))]));
        lfsr = lfsr_next(lfsr);
    }
    // Up inputs never go up: a head from above for a node not covered is discarded.
    script.push(inputs(&[(K + 1, head(0, 1, true))]));
    let d = run(&mut sim, &script);
    for (i, &h) in heads.iter().enumerate() {
        assert_eq!(d[0].outputs[K + (start + i) % K], h, "input {i}");
    }
    for (j, &port) in expect.iter().enumerate() {
        assert_eq!(d[2 + j].outputs, inputs(&[(K + port, head(5, 0, true))]));
        assert_eq!(d[2 + j].drops, vec![0; 2 * K]);
    }
    assert_eq!(d[10].outputs, vec![0; 2 * K]);
    assert_eq!(d[10].drops[K + 1], 1);
}

#[test]
fn top_switch_discards_unroutable() {
    // Top switch (1, 0) of the 4-ary 2-tree covers all 16 nodes; destination 16 is beyond it.
    let mut sim = HdlSim::new(switch(K, N, 1, 0).unwrap()).unwrap();
    let mut v = vec![0u64; 2 * K];
    v[0] = head(0, 16, true);
    v[1] = head(1, 13, true); // down port (13 >> 2) & 3 = 3
    let d = run(&mut sim, &[v]);
    let mut expect = vec![0u64; 2 * K];
    expect[3] = head(1, 13, true);
    assert_eq!(d[0].outputs, expect);
    assert_eq!(d[0].drops[0], 1);
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
