//! The 16-node system (4-ary 2-tree, default NIs), in one run:
//!
//! - zero-load latency of one datagram of 8 payload flits (32 bytes), from the cycle the host
//!   asks (and its idle NI accepts) to the cycle the destination NI shows the delivery, between
//!   nodes 2 link hops apart (same leaf switch) and 4 apart (through a top switch), on the golden
//!   model and on the Verilated RTL (they must agree);
//! - a load sweep on the golden model (seed 1, no faults, 200,000 cycles each, drained):
//!   delivered goodput in payload flits per node per cycle, median and p99 latency; the highest
//!   load whose p99 stays within 10 retry intervals (1,280 cycles) is reported;
//! - system cycles per second: the golden model alone, the Verilated RTL alone (both driven by
//!   the hosts at load 0.3 with loss 0.001 and corruption 0.0005), and the lockstep job.
//!
//! Run with `cargo bench -p idemnet-testbench --bench system`.

use std::time::Instant;

use idemnet_cosim::default_cache_dir;
use idemnet_model::fault::Faults;
use idemnet_model::ni::{self, NiConfig};
use idemnet_model::rmpp::host::{MsgTraffic, Pattern};
use idemnet_model::rmpp::send::SendConfig;
use idemnet_model::rmpp::RmppConfig;
use idemnet_model::system::{run_with_hosts, Layout, System, SystemHosts};

/// No RMPP traffic.
fn no_rmpp() -> MsgTraffic {
    MsgTraffic {
        load: 0.0,
        max_len: 1024,
        pattern: Pattern::Uniform,
        send: SendConfig::DEFAULT,
    }
}
use idemnet_model::FatTree;
use idemnet_testbench::{cosim, verilate, ClockedDut, Config, CosimOptions, ModelDut, Verilated};

/// Cycles from the request of node `src` to the delivery at `dst`, on an idle system.
fn zero_load_latency(dut: &mut dyn ClockedDut, lay: Layout, src: usize, dst: usize) -> u64 {
    let mut i = vec![0u64; lay.input_words()];
    let mut o = vec![0u64; lay.output_words()];
    for p in 0..lay.nodes {
        i[lay.dlv_ready(p)] = 1;
    }
    // Let req_ready rise.
    for _ in 0..2 {
        dut.set_inputs(&i);
        dut.tick();
        dut.outputs(&mut o);
    }
    let words: [u32; ni::PAYLOAD_WORDS] = std::array::from_fn(|j| 0x0101_0101 * j as u32);
    i[lay.req_valid(src)] = 1;
    i[lay.req_dst(src)] = dst as u64;
    i[lay.req_len(src)] = 32;
    i[lay.req_data(src)..lay.req_data(src) + 4].copy_from_slice(&ni::bus_from_words(&words));
    for t in 0..1000u64 {
        dut.set_inputs(&i);
        dut.tick();
        dut.outputs(&mut o);
        i[lay.req_valid(src)] = 0;
        if o[lay.dlv_valid(dst)] & 1 == 1 {
            return t;
        }
    }
    panic!("no delivery on an idle system");
}

/// Model-only run: (goodput payload flits/node/cycle, median, p99, lost).
fn sweep_point(tree: FatTree, load: f64, cycles: u64) -> (f64, u64, u64, usize) {
    let hosts = SystemHosts::new(&tree, load, no_rmpp(), 1).unwrap();
    let (ni, rmpp) = (NiConfig::DEFAULT, RmppConfig::DEFAULT);
    let h = run_with_hosts(tree, ni, rmpp, hosts, cycles, &Faults::default(), 200_000)
        .unwrap()
        .idem;
    let (_, med, p99) = h.latency().unwrap_or((0, 0, 0));
    let goodput = h.payload_words as f64 / (cycles as f64 * tree.nodes() as f64);
    (goodput, med, p99, h.lost())
}

fn drive(dut: &mut dyn ClockedDut, tree: FatTree, cycles: u64) -> f64 {
    let lay = Layout::new(&tree);
    let mut hosts = SystemHosts::new(&tree, 0.3, no_rmpp(), 1).unwrap();
    let f = Faults::from_probabilities(0.001, 0.0005).unwrap();
    let mut i = vec![0u64; lay.input_words()];
    let mut o = vec![0u64; lay.output_words()];
    i[Layout::LOSS] = f.loss as u64;
    i[Layout::CORRUPT] = f.corrupt as u64;
    let t0 = Instant::now();
    for t in 0..cycles {
        let prev = o.clone();
        hosts.step(t, &prev, &mut i);
        dut.set_inputs(&i);
        dut.tick();
        dut.outputs(&mut o);
        hosts.observe(t, &o);
    }
    assert_eq!(hosts.errors(), 0);
    cycles as f64 / t0.elapsed().as_secs_f64()
}

fn main() {
    let tree = FatTree::new(4, 2).unwrap();
    let cfg = Config::named("system-4x2").unwrap();
    let lay = Layout::new(&tree);
    println!(
        "idemnet bench: {cfg}, default NIs (4 send slots, 8 receive slots, retry 128, ack 64)"
    );

    let lib = verilate(&cfg, None, &default_cache_dir()).unwrap();
    let rtl = || Verilated {
        ports: lib.ports().to_vec(),
        instance: lib.instance(),
    };
    let model =
        || ModelDut::new(System::new(tree, NiConfig::DEFAULT, RmppConfig::DEFAULT).unwrap());
    println!("zero-load latency, one datagram of 8 payload flits, request to delivery:");
    for (hops, src, dst) in [(2, 0, 3), (4, 0, 12)] {
        let m = zero_load_latency(&mut model(), lay, src, dst);
        let r = zero_load_latency(&mut rtl(), lay, src, dst);
        assert_eq!(m, r, "model and RTL disagree");
        println!("  {hops} link hops (node {src} to {dst}): {m} cycles (model and RTL)");
    }

    println!("load sweep (golden model, seed 1, 200000 cycles, drained):");
    println!(
        "  {:>6} {:>22} {:>8} {:>8} {:>6}",
        "load", "goodput flits/node/cyc", "median", "p99", "lost"
    );
    let mut best = None;
    for load in [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0] {
        let (g, med, p99, lost) = sweep_point(tree, load, 200_000);
        println!("  {load:>6} {g:>22.4} {med:>8} {p99:>8} {lost:>6}");
        if p99 <= 1280 && lost == 0 {
            best = Some((load, g, p99));
        }
    }
    if let Some((load, g, p99)) = best {
        println!(
            "  highest load with p99 <= 1280 cycles: {load} -> goodput {g:.4} payload flits/node/cycle (p99 {p99})"
        );
    }

    let n = 200_000;
    let model_rate = drive(&mut model(), tree, n);
    let rtl_rate = drive(&mut rtl(), tree, n);
    let opts = CosimOptions {
        faults: Faults::from_probabilities(0.001, 0.0005).unwrap(),
        ..CosimOptions::new(n, 1, 0.3)
    };
    let r = cosim(&cfg, &opts, |_| {}).unwrap();
    assert!(r.passed(), "{r}");
    let lock_rate = r.lockstep.cycles as f64 / r.lockstep.elapsed.as_secs_f64();
    println!("system cycles/s (load 0.3, loss 0.001, corruption 0.0005, {n} cycles):");
    println!("  golden model alone      {model_rate:>10.0}");
    println!("  Verilated RTL alone     {rtl_rate:>10.0}");
    println!("  lockstep RTL + model    {lock_rate:>10.0}");
    println!(
        "  model / RTL: {:.1}x; lockstep / RTL: {:.2}x",
        model_rate / rtl_rate,
        lock_rate / rtl_rate
    );
}
