//! Writes the self-test's Verilog for a 100 MHz board:
//! `cargo run --example emit_selftest OUT.v [K N SEND_SLOTS RECV_SLOTS TWO_WORDS [FAULTS]]`,
//! FAULTS 1 injection links, 2 node links, 3 every link.
fn main() {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "selftest.v".into());
    let a: Vec<usize> = std::env::args()
        .skip(2)
        .map(|x| x.parse().unwrap())
        .collect();
    let mut cfg = idemnet_ni_core::selftest::SelfTestConfig::board(100_000_000);
    if a.len() >= 5 {
        (cfg.k, cfg.n) = (a[0], a[1]);
        cfg.ni.send_slots = a[2];
        cfg.ni.recv_slots = a[3];
        cfg.two_words = a[4] == 1;
    }
    if a.len() == 6 {
        use idemnet_ni_core::selftest::FaultLinks;
        cfg.fault_links = [FaultLinks::Injection, FaultLinks::Node, FaultLinks::All][a[5] - 1];
    }
    let (v, ports) = idemnet_ni_core::selftest_verilog(&cfg).expect("self-test");
    std::fs::write(&out, v).expect("write");
    eprintln!("{out}: {} ports", ports.len() + 1);
}
