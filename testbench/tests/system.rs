//! The 16-node system: every NI and switch in RTL, in lockstep with the golden model, under host
//! traffic with lost and corrupted flits and a dead up link; drained; every datagram delivered
//! exactly once to the right node with the right payload.

use idemnet_model::fault::Faults;
use idemnet_testbench::{cosim, Config, CosimOptions};

fn run(seed: u64, dead: Vec<usize>) -> idemnet_testbench::CosimReport {
    let cfg = Config::named("system-4x2").unwrap();
    let mut faults = Faults::from_probabilities(0.002, 0.001).unwrap();
    faults.dead = dead;
    let opts = CosimOptions {
        faults,
        ..CosimOptions::new(30_000, seed, 0.3)
    };
    cosim(&cfg, &opts, |_| {}).unwrap()
}

fn figure(r: &idemnet_testbench::CosimReport, name: &str) -> u64 {
    r.extra
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no figure {name}"))
        .1
}

#[test]
fn exactly_once_under_faults_and_a_dead_link() {
    let healthy = run(4, vec![]);
    // Up port 2 of leaf switch 1: both directions dead.
    let wounded = run(4, vec![6]);
    for r in [&healthy, &wounded] {
        assert!(r.passed(), "{r}");
        let sent = figure(r, "datagrams sent");
        assert!(sent > 5000, "{r}");
        assert_eq!(figure(r, "datagrams delivered"), sent, "{r}");
        assert_eq!(figure(r, "datagrams completed"), sent, "{r}");
        assert_eq!(figure(r, "datagrams lost"), 0, "{r}");
        // The faults did happen and were survived.
        assert!(figure(r, "worms discarded by the NIs: crc") > 0, "{r}");
        assert!(
            figure(r, "worms discarded by the NIs: truncated") > 0,
            "{r}"
        );
        assert!(figure(r, "duplicates suppressed") > 0, "{r}");
    }
    assert!(
        figure(&wounded, "retransmissions") > figure(&healthy, "retransmissions"),
        "a dead link must cost retransmissions\n{healthy}\n{wounded}"
    );
}
