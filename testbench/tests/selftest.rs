//! The FPGA self-test image under Verilator (issue 5): with faults on every link, its counters
//! agree with the software scoreboard every cycle, its UART lines carry them, and every
//! datagram arrives exactly once. A mutated image (the NIs' duplicate filter removed) must
//! make the image's own counters report duplicates.

use idemnet_fpga::{Board, Design};
use idemnet_testbench::run_selftest;

fn cache() -> std::path::PathBuf {
    idemnet_cosim::default_cache_dir()
}

#[test]
fn selftest_image_counts_every_datagram_once() {
    let mut cfg = Design::selftest_config(Board::Ice40Hx8k);
    // Lines every 600,000 cycles (the image sends one a second), so that three are decoded.
    cfg.period = 600_000;
    let rep = run_selftest(&cfg, 2_000_000, None, None, &cache()).unwrap();
    println!("{rep}");
    assert!(rep.passed(), "{rep}");
    assert!(rep.chip[0] > 10_000, "{rep}");
    assert_eq!(rep.chip, rep.scoreboard);
    assert_eq!(rep.lines.len(), 3, "{rep}");
    assert!(
        rep.crc_drops > 0 && rep.retransmits > 0,
        "faults must be seen: {rep}"
    );
    assert_eq!(rep.led & 3, 1, "pass LED on, fail LED off: {rep}");
}

#[test]
fn selftest_catches_an_ni_that_delivers_duplicates() {
    let mut cfg = Design::selftest_config(Board::Ice40Hx8k);
    cfg.period = 600_000;
    let (v, _) = idemnet_ni_core::selftest_verilog(&cfg).unwrap();
    // §8.4: a SEND whose uid a receive slot holds is a duplicate. The mutant never sees a
    // holding slot, so a repeated SEND (its ACK lost) is delivered again.
    let needle = "else if (|r_match) begin\n                    c_duplicate$d";
    assert_eq!(v.matches(needle).count(), 4, "one duplicate check per NI");
    let mutant = v.replace(
        needle,
        "else if (1'b0) begin\n                    c_duplicate$d",
    );
    let dir = std::env::temp_dir().join(format!("idemnet-selftest-mut-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("mutant.v");
    std::fs::write(&f, mutant).unwrap();
    let rep = run_selftest(&cfg, 2_000_000, Some(&f), None, &cache()).unwrap();
    println!("{rep}");
    assert!(!rep.passed());
    assert!(rep.chip[2] > 0, "the image must count duplicates: {rep}");
    assert_eq!(
        rep.chip, rep.scoreboard,
        "image and scoreboard still agree: {rep}"
    );
    let _ = std::fs::remove_dir_all(dir);
}
