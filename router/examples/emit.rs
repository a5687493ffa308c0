//! Emit Verilog: `emit fabric K N OUT.v` or `emit switch K N LEVEL W OUT.v`.
use std::time::Instant;

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize| a[i].parse::<usize>().expect("number");
    let t0 = Instant::now();
    let (v, ports, out) = match a.first().map(String::as_str) {
        Some("fabric") => {
            let (v, p) = idemnet_router::fabric_verilog(num(1), num(2)).unwrap();
            (v, p, &a[3])
        }
        Some("switch") => {
            let (v, p) = idemnet_router::switch_verilog(num(1), num(2), num(3), num(4)).unwrap();
            (v, p, &a[5])
        }
        _ => panic!("usage: emit fabric K N OUT.v | emit switch K N LEVEL W OUT.v"),
    };
    let dt = t0.elapsed();
    std::fs::write(out, &v).unwrap();
    eprintln!(
        "{} bytes, {} ports, {:.3} s",
        v.len(),
        ports.len(),
        dt.as_secs_f64()
    );
}
