//! The 16-node system: every node (idempotent NI, RMPP receive path, framer, merge, split) and
//! switch in RTL, in lockstep with the golden model, under host traffic with lost and corrupted
//! flits (and a dead up link); drained; every datagram and every message delivered exactly once
//! to the right node with the right payload, messages of a pair in order.

use idemnet_model::fault::Faults;
use idemnet_model::rmpp::host::Pattern;
use idemnet_testbench::{cosim, Config, CosimOptions, CosimReport};

fn run(seed: u64, dead: Vec<usize>, idem: f64, rmpp: f64, pattern: Pattern) -> CosimReport {
    let cfg = Config::named("system-4x2").unwrap();
    let mut faults = Faults::from_probabilities(0.002, 0.001).unwrap();
    faults.dead = dead;
    let mut opts = CosimOptions {
        faults,
        drain: 400_000,
        ..CosimOptions::new(30_000, seed, idem)
    };
    opts.rmpp.load = rmpp;
    opts.rmpp.pattern = pattern;
    cosim(&cfg, &opts, |_| {}).unwrap()
}

/// A figure of the side-by-side table: (idempotent, RMPP).
fn figure(r: &CosimReport, name: &str) -> (u64, u64) {
    let row = r
        .table
        .iter()
        .find(|row| row[0] == name)
        .unwrap_or_else(|| panic!("no figure {name}"));
    let n = |s: &str| s.parse().unwrap_or(0);
    (n(&row[1]), n(&row[2]))
}

fn extra(r: &CosimReport, name: &str) -> u64 {
    r.extra
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no figure {name}"))
        .1
}

#[test]
fn datagrams_exactly_once_under_faults_and_a_dead_link() {
    let healthy = run(4, vec![], 0.3, 0.0, Pattern::Uniform);
    // Up port 2 of leaf switch 1: both directions dead.
    let wounded = run(4, vec![6], 0.3, 0.0, Pattern::Uniform);
    for r in [&healthy, &wounded] {
        assert!(r.passed(), "{r}");
        let sent = figure(r, "sent (datagrams / messages)").0;
        assert!(sent > 5000, "{r}");
        assert_eq!(figure(r, "delivered").0, sent, "{r}");
        assert_eq!(figure(r, "completed at the sender").0, sent, "{r}");
        assert_eq!(figure(r, "lost").0, 0, "{r}");
        // The faults did happen and were survived.
        assert!(
            extra(r, "idempotent worms discarded by the NIs: crc") > 0,
            "{r}"
        );
        assert!(
            extra(r, "idempotent worms discarded by the NIs: truncated") > 0,
            "{r}"
        );
        assert!(figure(r, "duplicates suppressed").0 > 0, "{r}");
    }
    let retx = |r: &CosimReport| figure(r, "retransmissions (SEND / RTS)").0;
    assert!(
        retx(&wounded) > retx(&healthy),
        "a dead link must cost retransmissions\n{healthy}\n{wounded}"
    );
}

#[test]
fn messages_once_complete_and_in_order_beside_datagrams_uniform_and_many_to_one() {
    // 30,000 cycles: about 80 messages uniformly, 13 from fifteen nodes to one.
    for (rmpp, pattern, at_least) in [(0.05, Pattern::Uniform, 50), (0.01, Pattern::ToOne(5), 8)] {
        let r = run(2, vec![], 0.05, rmpp, pattern);
        assert!(r.passed(), "{r}");
        let (datagrams, messages) = figure(&r, "sent (datagrams / messages)");
        assert!(datagrams > 500 && messages > at_least, "{r}");
        assert_eq!(figure(&r, "delivered"), (datagrams, messages), "{r}");
        assert_eq!(
            figure(&r, "completed at the sender"),
            (datagrams, messages),
            "{r}"
        );
        assert_eq!(figure(&r, "lost"), (0, 0), "{r}");
        assert_eq!(figure(&r, "duplicated").1, 0, "{r}");
        assert_eq!(figure(&r, "out of order (per pair)").1, 0, "{r}");
        // The receive paths saw damaged worms and recovered from losses (a restart, or a
        // resume, which drops the packet after a gap as `sequence`), and survived them.
        assert!(extra(&r, "RMPP receive paths: crc") > 0, "{r}");
        assert!(
            extra(&r, "RMPP receive paths: restart") + extra(&r, "RMPP receive paths: sequence")
                > 0,
            "{r}"
        );
    }
}

/// The FPGA's system (`idemnet_ni_core::system::Links::Plain`: wires for links, no injectors)
/// is the co-simulated one with no faults: in lockstep with the model on a 2-ary 2-tree with
/// both protocols; and with flits lost, which only the model then loses, the lockstep sees
/// the difference (so the first run could have failed).
#[test]
fn the_system_without_injectors_is_the_system_without_faults() {
    use idemnet_ni_core::system::Links;
    let cfg = Config::system(2, 2);
    let (verilog, _) =
        idemnet_ni_core::system_verilog_with_links(cfg.k, cfg.n, &cfg.ni, &cfg.rmpp, Links::Plain)
            .unwrap();
    assert!(!verilog.contains("faults$"), "an injector left");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("plain.v");
    std::fs::write(&file, verilog).unwrap();
    let run = |loss: f64| {
        let mut opts = CosimOptions {
            faults: Faults::from_probabilities(loss, 0.0).unwrap(),
            verilog: Some(file.clone()),
            drain: 100_000,
            ..CosimOptions::new(10_000, 9, 0.3)
        };
        opts.rmpp.load = 0.05;
        cosim(&cfg, &opts, |_| {}).unwrap()
    };
    let clean = run(0.0);
    assert!(clean.passed(), "{clean}");
    assert!(
        figure(&clean, "sent (datagrams / messages)").0 > 500,
        "{clean}"
    );
    assert!(
        figure(&clean, "sent (datagrams / messages)").1 > 0,
        "{clean}"
    );
    let lossy = run(0.01);
    assert!(!lossy.lockstep.passed(), "{lossy}");
}
