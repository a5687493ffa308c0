//! Fabric (protocol.md §3, §5) in rust-hdl's simulator: two cycles per hop, ports, and a randomized
//! cycle-by-cycle comparison against the reference fabric in `common`.

mod common;

use common::*;
use idemnet_router::{
    fabric, fabric_verilog, simulate_fabric_rusthdl, HdlSim, PortDir, RouterError,
};
use idemnet_rtl::flit;

fn fabric_cycle(sim: &mut HdlSim<idemnet_router::Fabric>, inp: &[u64]) -> Vec<u64> {
    sim.cycle(|f| {
        for (s, &x) in f.node_in.iter_mut().zip(inp) {
            s.next = flit::to_bits(x);
        }
    })
    .unwrap();
    sim.uut.node_out.iter().map(|s| s.val().to_u64()).collect()
}

/// Highest differing base-k digit, from the document: `2L + 1` traversals.
fn hops(k: usize, n: usize, p: usize, q: usize) -> usize {
    let b = k.trailing_zeros() as usize;
    let l = (1..n)
        .filter(|&j| (p >> (j * b)) & (k - 1) != (q >> (j * b)) & (k - 1))
        .max()
        .unwrap_or(0);
    2 * l + 1
}

fn check_latency(k: usize, n: usize, pairs: &[(usize, usize)]) {
    for &(p, q) in pairs {
        let mut sim = HdlSim::new(fabric(k, n).unwrap()).unwrap();
        let nodes = k.pow(n as u32);
        let h = hops(k, n, p, q);
        let t_send = 3;
        for t in 0..t_send + 2 * h + 2 {
            let mut inp = vec![0u64; nodes];
            if t == t_send {
                inp[p] = head(p, q, false);
            }
            if t == t_send + 1 {
                inp[p] = body(0xBEEF, true);
            }
            let out = fabric_cycle(&mut sim, &inp);
            for (r, &o) in out.iter().enumerate() {
                // Entering in cycle t, leaving in cycle t + 2(2L + 1), i.e. part of
                // O_(t + 4L + 1): two cycles per switch traversal.
                let expect = if r == q && t == t_send + 2 * h - 1 {
                    head(p, q, false)
                } else if r == q && t == t_send + 2 * h {
                    body(0xBEEF, true)
                } else {
                    0
                };
                assert_eq!(
                    o, expect,
                    "{k}-ary {n}-tree {p}->{q}, cycle {t}, node_out {r}"
                );
            }
        }
        assert!(sim.uut.drops.iter().all(|d| d.val().to_u64() == 0));
    }
}

#[test]
fn two_cycles_per_hop_4ary_2tree() {
    check_latency(4, 2, &[(0, 1), (0, 5), (15, 0), (6, 7), (9, 2)]);
}

#[test]
fn two_cycles_per_hop_4ary_3tree() {
    check_latency(4, 3, &[(0, 63), (17, 18), (5, 9)]);
}

#[test]
fn two_cycles_per_hop_2ary_3tree() {
    check_latency(2, 3, &[(0, 7), (3, 2), (1, 4)]);
}

fn random_vs_golden_model(k: usize, n: usize, cycles: usize, seed: u64, q_start: u64) {
    let mut sim = HdlSim::new(fabric(k, n).unwrap()).unwrap();
    let mut rf = idemnet_model::Fabric::new(k, n).unwrap();
    let nodes = k.pow(n as u32);
    let mut rng = Rng(seed);
    // Per node: remaining flits of the worm being sent.
    let mut left = vec![0usize; nodes];
    let mut delivered = 0usize;
    for t in 0..cycles {
        let mut inp = vec![0u64; nodes];
        for p in 0..nodes {
            if left[p] == 0 {
                if rng.below(100) < q_start {
                    let mut dst = rng.below(nodes as u64 - 1) as usize;
                    if dst >= p {
                        dst += 1;
                    }
                    let len = 1 + rng.below(6) as usize;
                    inp[p] = head(p, dst, len == 1);
                    left[p] = len - 1;
                }
            } else if rng.below(8) != 0 {
                // Occasional bubbles inside worms.
                left[p] -= 1;
                inp[p] = body(rng.next() as u32, left[p] == 0);
            }
        }
        let out = fabric_cycle(&mut sim, &inp);
        let mut expect = vec![0u64; nodes];
        rf.step(&inp, &mut expect);
        assert_eq!(out, expect, "node_out, cycle {t}");
        let drops: Vec<u16> = sim
            .uut
            .drops
            .iter()
            .map(|d| d.val().to_u64() as u16)
            .collect();
        assert_eq!(drops, rf.drops(), "drops, cycle {t}");
        delivered += out.iter().filter(|&&f| f != 0).count();
    }
    let dropped = rf.total_drops();
    assert!(delivered > cycles && dropped > 0, "{delivered} {dropped}");
}

#[test]
fn random_vs_golden_model_4ary_2tree() {
    random_vs_golden_model(4, 2, 400, 11, 30);
}

#[test]
fn random_vs_golden_model_2ary_3tree() {
    random_vs_golden_model(2, 3, 300, 12, 40);
}

#[test]
fn random_vs_golden_model_4ary_3tree() {
    random_vs_golden_model(4, 3, 120, 13, 20);
}

#[test]
fn port_list_matches_protocol_and_verilog() {
    let (v, ports) = fabric_verilog(4, 2).unwrap();
    assert_eq!(ports.len(), 16 + 16 + 64);
    let header = v.lines().find(|l| l.starts_with("module top(")).unwrap();
    for (i, p) in ports.iter().enumerate() {
        let (name, width, dir) = if i < 16 {
            (format!("node_in${i}"), 35, PortDir::In)
        } else if i < 32 {
            (format!("node_out${}", i - 16), 35, PortDir::Out)
        } else {
            (format!("drops${}", i - 32), 16, PortDir::Out)
        };
        assert_eq!((p.name.clone(), p.width, p.dir), (name.clone(), width, dir));
        assert!(header.contains(&format!(",{name},")) || header.ends_with(&format!(",{name});")));
    }
    assert!(!ports.iter().any(|p| p.name == "clock"));
}

#[test]
fn bad_parameters_are_errors() {
    assert_eq!(fabric_verilog(3, 2).unwrap_err(), RouterError::BadRadix(3));
    assert!(matches!(
        fabric_verilog(4, 0),
        Err(RouterError::BadLevels { .. })
    ));
    assert!(matches!(
        fabric_verilog(4, 9),
        Err(RouterError::BadLevels { .. })
    ));
    assert!(matches!(
        idemnet_router::switch_verilog(4, 2, 2, 0),
        Err(RouterError::BadSwitch { .. })
    ));
    assert!(matches!(
        idemnet_router::switch_verilog(4, 2, 0, 4),
        Err(RouterError::BadSwitch { .. })
    ));
}

#[test]
fn simulate_helper_runs() {
    let mut seen = 0;
    let r = simulate_fabric_rusthdl(
        4,
        2,
        200,
        |t, inp| {
            if t % 10 == 0 {
                inp[0] = head(0, 9, true);
            }
        },
        |_, out| seen += out.iter().filter(|&&f| f != 0).count(),
    )
    .unwrap();
    assert_eq!(seen, 20);
    assert_eq!(r.cycles, 200);
    eprintln!(
        "rust-hdl simulator, 4-ary 2-tree: {:.0} cycles/s",
        r.cycles_per_second()
    );
}
