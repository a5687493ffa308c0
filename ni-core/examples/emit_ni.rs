//! Writes the NI's Verilog for the default parameters: `cargo run --example emit_ni OUT.v`.
fn main() {
    let out = std::env::args().nth(1).unwrap_or_else(|| "ni.v".into());
    let (v, ports) = idemnet_ni_core::ni_verilog(&Default::default()).expect("default NI");
    std::fs::write(&out, v).expect("write");
    eprintln!("{out}: {} ports", ports.len() + 1);
}
