//! The NI alone in lockstep with its golden model under the reactive peers: no mismatch, and
//! every rule of docs/protocol.md §8 exercised (every counter moves, datagrams are delivered
//! and sends complete), so a pass means something.

use idemnet_testbench::{cosim, Config, CosimOptions};

#[test]
fn ni_lockstep_with_every_rule_exercised() {
    let cfg = Config::named("ni").unwrap();
    for (seed, load) in [(1, 1.0), (2, 0.6)] {
        let opts = CosimOptions {
            vcd_dir: None,
            ..CosimOptions::new(150_000, seed, load)
        };
        let r = cosim(&cfg, &opts, |_| {}).unwrap();
        assert!(r.passed(), "{r}");
        let get = |name: &str| {
            r.extra
                .iter()
                .find(|(n, _)| n == name)
                .unwrap_or_else(|| panic!("no figure {name}"))
                .1
        };
        for name in [
            "requests accepted",
            "datagrams delivered to the host",
            "sends completed",
            "cnt_crc",
            "cnt_truncated",
            "cnt_malformed",
            "cnt_misrouted",
            "cnt_not_source",
            "cnt_table_full",
            "cnt_unknown",
            "cnt_duplicate",
            "cnt_retransmit",
        ] {
            assert!(get(name) > 0, "seed {seed}: {name} never happened\n{r}");
        }
        if load == 1.0 {
            assert!(get("cnt_busy") > 0, "{r}");
        }
    }
}
