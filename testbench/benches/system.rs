//! The 16-node system (4-ary 2-tree, default NIs and RMPP receive paths), both protocols, in one
//! run:
//!
//! - **zero-load latency** at 2 link hops (node 0 to 3, same leaf switch) and 4 (node 0 to 12):
//!   an idempotent datagram of 0 and of 32 bytes (the request's first beat presented to the
//!   delivery's first beat shown), and an RMPP
//!   message of 0 bytes, one packet (32 bytes) and 16 packets (512 bytes) (host send to
//!   delivery shown), on the golden model and on the Verilated RTL (they must agree);
//! - **goodput** with no faults (golden model, 200,000 cycles after a 20,000-cycle warm-up): 1 KB
//!   messages or 32-byte datagrams as fast as the protocol allows, from node 0 to node 3, and from
//!   the 15 other nodes to node 5: payload bytes per cycle into the receiver, and as a fraction
//!   of its link's raw rate (4 bytes per cycle);
//! - an **idempotent load sweep** on the golden model (uniform traffic, seed 1, 200,000 cycles,
//!   drained): goodput, median and p99 latency;
//!   the latencies also in ns at each board's achieved clock, read from the last `idemnet fpga`
//!   reports in `build/fpga/` (the slowest of the system's blocks on that board);
//! - **system cycles per second**: the golden model alone, the Verilated RTL alone, and the
//!   lockstep job, under both protocols (datagrams at load 0.05, messages at 0.05) with loss
//!   0.001 and corruption 0.0005.
//!
//! Run with `cargo bench -p idemnet-testbench --bench system`; `-- --json FILE` also writes the
//! figures as JSON (`idemnet-bench/1`, docs/results.md).

use std::time::Instant;

use idemnet_cosim::default_cache_dir;
use idemnet_model::fault::Faults;
use idemnet_model::ni::{self, NiConfig};
use idemnet_model::rmpp::host::{MsgHosts, MsgTraffic, Pattern};
use idemnet_model::rmpp::send::SendConfig;
use idemnet_model::rmpp::RmppConfig;
use idemnet_model::stream::Beats;
use idemnet_model::system::{layout, run_with_hosts, Layout, System, SystemHosts};
use idemnet_model::FatTree;
use idemnet_testbench::bench::{refuse, BenchRecord};
use idemnet_testbench::{cosim, verilate, ClockedDut, Config, CosimOptions, ModelDut, Verilated};

/// RMPP traffic of `load` with `pattern`, lengths `min..=max`.
fn msgs(load: f64, pattern: Pattern, min_len: usize, max_len: usize) -> MsgTraffic {
    MsgTraffic {
        load,
        min_len,
        max_len,
        pattern,
        send: SendConfig::DEFAULT,
    }
}

/// Writes node `p`'s request stream inputs: a beat of a request of `len` bytes to `dst`, or
/// nothing.
fn request_beat(i: &mut [u64], lay: &Layout, p: usize, beat: Option<(&Beats, u16, u64)>) {
    let input = |word| lay.ni_input(word, p);
    match beat {
        Some((beats, dst, len)) => {
            let (word, last) = beats.beat();
            i[input(ni::inp::REQ_VALID)] = 1;
            i[input(ni::inp::REQ_DATA)] = word as u64;
            i[input(ni::inp::REQ_LAST)] = last as u64;
            i[input(ni::inp::REQ_DST)] = dst as u64;
            i[input(ni::inp::REQ_LEN)] = len;
        }
        None => i[input(ni::inp::REQ_VALID)] = 0,
    }
}

/// Cycles from the first beat of node `src`'s request to the first beat of the delivery shown
/// at `dst`, one datagram of `len` bytes, on an idle system.
fn datagram_latency(
    dut: &mut dyn ClockedDut,
    lay: Layout,
    src: usize,
    dst: usize,
    len: u64,
) -> u64 {
    let mut i = vec![0u64; lay.input_words()];
    let mut o = vec![0u64; lay.output_words()];
    for p in 0..lay.nodes {
        i[lay.ni_input(ni::inp::DLV_READY, p)] = 1;
    }
    // Let req_ready rise.
    for _ in 0..2 {
        dut.set_inputs(&i);
        dut.tick();
        dut.outputs(&mut o);
    }
    let data: Vec<u8> = (0..len as u8).collect();
    let mut beats = Some(Beats::new(&data));
    for t in 0..1000u64 {
        let ready = o[lay.ni_output(ni::out::REQ_READY, src)] & 1 == 1;
        request_beat(
            &mut i,
            &lay,
            src,
            beats.as_ref().map(|b| (b, dst as u16, len)),
        );
        if ready && beats.as_mut().is_some_and(Beats::taken) {
            beats = None;
        }
        dut.set_inputs(&i);
        dut.tick();
        dut.outputs(&mut o);
        if o[lay.ni_output(ni::out::DLV_VALID, dst)] & 1 == 1 {
            return t;
        }
    }
    panic!("no delivery on an idle system");
}

/// Cycles from the host's send at node `src` to the delivery shown at `dst`, one message of
/// `len` bytes, on an idle system.
fn message_latency(
    dut: &mut dyn ClockedDut,
    lay: Layout,
    src: usize,
    dst: usize,
    len: usize,
) -> u64 {
    let mut hosts = MsgHosts::new(lay, msgs(0.0, Pattern::Uniform, 0, 0), 1).unwrap();
    let mut i = vec![0u64; lay.input_words()];
    let mut o = vec![0u64; lay.output_words()];
    for t in 0..20_000u64 {
        if t == 2 {
            hosts.send(t, src, dst as u16, (0..len).map(|b| b as u8).collect());
        }
        let prev = o.clone();
        hosts.step(t, &prev, &mut i);
        dut.set_inputs(&i);
        dut.tick();
        dut.outputs(&mut o);
        hosts.observe(t, &o);
        if let Some(l) = hosts.latencies.first() {
            assert_eq!(hosts.errors, 0);
            return l;
        }
    }
    panic!("no message delivered on an idle system");
}

/// Model-only: payload bytes per cycle delivered at the receivers after a warm-up, no faults.
fn goodput(tree: FatTree, idem: Option<Pattern>, rmpp: Option<Pattern>) -> f64 {
    let lay = layout(&tree);
    let mut sys = System::new(tree, NiConfig::DEFAULT, RmppConfig::DEFAULT).unwrap();
    let mut asking: Vec<Beats> = vec![Beats::new(&[0; 32]); lay.nodes];
    let traffic = msgs(
        if rmpp.is_some() { 1.0 } else { 0.0 },
        rmpp.unwrap_or(Pattern::Uniform),
        1024,
        1024,
    );
    let mut hosts = MsgHosts::new(lay, traffic, 1).unwrap();
    let mut i = vec![0u64; lay.input_words()];
    let mut o = vec![0u64; lay.output_words()];
    let (warm, run) = (20_000u64, 200_000u64);
    let (mut bytes, mut at_warm) = (0u64, 0u64);
    use idemnet_model::ModelBlock;
    for t in 0..warm + run {
        if t == warm {
            at_warm = hosts.payload_bytes + bytes;
        }
        let prev = o.clone();
        hosts.step(t, &prev, &mut i);
        if let Some(pat) = idem {
            // Every sending host always asks: 32-byte datagrams to its destination, streamed.
            for (p, beats) in asking.iter_mut().enumerate() {
                let dst = match pat {
                    Pattern::Pair(s, d) if s as usize == p => Some(d),
                    Pattern::ToOne(d) if d as usize != p => Some(d),
                    _ => None,
                };
                let ready = prev[lay.ni_output(ni::out::REQ_READY, p)] & 1 == 1;
                request_beat(&mut i, &lay, p, dst.map(|d| (&*beats, d, 32)));
                if dst.is_some() && ready && beats.taken() {
                    *beats = Beats::new(&[0; 32]);
                }
                i[lay.ni_input(ni::inp::DLV_READY, p)] = 1;
            }
        }
        sys.step(&i, &mut o);
        hosts.observe(t, &o);
        for p in 0..lay.nodes {
            let shown = |word| o[lay.ni_output(word, p)] & 1;
            let last = shown(ni::out::DLV_VALID) & shown(ni::out::DLV_LAST);
            bytes += 32 * last * idem.is_some() as u64;
        }
    }
    assert_eq!(hosts.errors, 0);
    (hosts.payload_bytes + bytes - at_warm) as f64 / run as f64
}

/// Model-only run: (goodput payload flits/node/cycle, median, p99, lost).
fn sweep_point(tree: FatTree, load: f64, cycles: u64) -> (f64, u64, u64, usize) {
    sweep_point_drained(tree, load, cycles, 200_000)
}

/// [`sweep_point`] with a drain of at most `drain` cycles.
fn sweep_point_drained(
    tree: FatTree,
    load: f64,
    cycles: u64,
    drain: u64,
) -> (f64, u64, u64, usize) {
    let hosts = SystemHosts::new(&tree, load, msgs(0.0, Pattern::Uniform, 0, 0), 1).unwrap();
    let (ni, rmpp) = (NiConfig::DEFAULT, RmppConfig::DEFAULT);
    let h = run_with_hosts(tree, ni, rmpp, hosts, cycles, &Faults::default(), drain)
        .unwrap()
        .idem;
    let (med, p99) = h.latencies.summary().map_or((0, 0), |l| (l.p50, l.p99));
    // In flits of payload: the bytes the hosts asked to send, 4 to a flit (no padding counted).
    let goodput = h.payload_bytes as f64 / 4.0 / (cycles as f64 * tree.nodes() as f64);
    (goodput, med, p99, h.lost())
}

fn drive(dut: &mut dyn ClockedDut, tree: FatTree, cycles: u64) -> f64 {
    let lay = layout(&tree);
    let mut hosts =
        SystemHosts::new(&tree, 0.05, msgs(0.05, Pattern::Uniform, 0, 1024), 1).unwrap();
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

/// The clock each board achieves for the system's blocks: the lowest Fmax nextpnr reported in
/// `build/fpga/<board>/<design>/idemnet-report.json` over the switch, the NI, the RMPP receive
/// path, the node (those three with the framer and the shared link, in system16's
/// configuration) and the whole system (those that have a report), with the designs it came
/// from. The
/// figures are read from the last `idemnet fpga` run, never written here.
fn achieved_clocks() -> Vec<(&'static str, Option<(f64, String)>)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../build/fpga");
    ["ice40-hx8k", "ecp5-85k"]
        .into_iter()
        .map(|board| {
            let mut found: Vec<(f64, &str)> = ["switch", "ni", "rmpp-rx", "node", "system16"]
                .into_iter()
                .filter_map(|design| {
                    let path = root.join(board).join(design).join("idemnet-report.json");
                    let text = std::fs::read_to_string(path).ok()?;
                    let report: serde_json::Value = serde_json::from_str(&text).ok()?;
                    Some((report.get("fmax_mhz")?.as_f64()?, design))
                })
                .collect();
            found.sort_by(|a, b| a.0.total_cmp(&b.0));
            let clock = found.first().map(|&(mhz, _)| {
                let named: Vec<String> = found.iter().map(|(f, d)| format!("{d} {f:.1}")).collect();
                (mhz, format!("the slowest of {}", named.join(", ")))
            });
            (board, clock)
        })
        .collect()
}

fn main() {
    let mut record = BenchRecord::from_args("system").unwrap_or_else(|e| refuse("system", &e));
    let tree = FatTree::new(4, 2).unwrap();
    let cfg = Config::named("system-4x2").unwrap();
    record.config("configuration", cfg.to_string());
    let lay = layout(&tree);
    println!(
        "idemnet bench: {cfg}, default NIs (4 send slots, 8 receive slots, retry 128 spread 16, ack 64) and \
         RMPP receive paths (8 slots, mtu 32, 1 KB per message, Figure 8: 64 / 16 / 16)"
    );
    let lib = verilate(&cfg, None, &default_cache_dir()).unwrap();
    let rtl = || Verilated {
        ports: lib.ports().to_vec(),
        instance: lib.instance(),
    };
    let model =
        || ModelDut::new(System::new(tree, NiConfig::DEFAULT, RmppConfig::DEFAULT).unwrap());

    println!("zero-load latency in cycles (model and RTL agree):");
    let mut latencies = vec![];
    for (hops, src, dst) in [(2, 0, 3), (4, 0, 12)] {
        let mut row = vec![];
        for len in [0u64, 32] {
            let m = datagram_latency(&mut model(), lay, src, dst, len);
            let r = datagram_latency(&mut rtl(), lay, src, dst, len);
            assert_eq!(m, r, "model and RTL disagree");
            row.push((format!("datagram {len} B"), m));
        }
        for len in [0usize, 32, 512] {
            let m = message_latency(&mut model(), lay, src, dst, len);
            let r = message_latency(&mut rtl(), lay, src, dst, len);
            assert_eq!(m, r, "model and RTL disagree");
            row.push((format!("message {len} B"), m));
        }
        let cells: Vec<String> = row.iter().map(|(n, c)| format!("{n}: {c}")).collect();
        println!(
            "  {hops} link hops (node {src} to {dst}): {}",
            cells.join(", ")
        );
        record.figure(
            &format!("zero_load_latency_cycles_{hops}_hops"),
            serde_json::json!(row
                .iter()
                .map(|(n, c)| (n.clone(), serde_json::json!(c)))
                .collect::<serde_json::Map<_, _>>()),
        );
        latencies.push((hops, src, dst, row));
    }
    for (board, clock) in achieved_clocks() {
        match clock {
            Some((mhz, source)) => {
                record.figure(&format!("clock_mhz_{board}"), mhz);
                println!("zero-load latency in ns on {board} at {mhz:.1} MHz ({source}):");
                for (hops, src, dst, row) in &latencies {
                    let cells: Vec<String> = row
                        .iter()
                        .map(|(n, c)| format!("{n}: {:.0}", *c as f64 * 1000.0 / mhz))
                        .collect();
                    println!(
                        "  {hops} link hops (node {src} to {dst}): {}",
                        cells.join(", ")
                    );
                }
            }
            None => println!(
                "zero-load latency in ns on {board}: no place-and-route report in build/fpga/{board}/ \
                 (run `idemnet fpga --board {board} --all` first)"
            ),
        }
    }

    println!("goodput, payload bytes per cycle into the receiver (fraction of the link's 4 B/cycle), no faults:");
    for (name, idem, rmpp) in [
        (
            "1 -> 1   idempotent, 32 B datagrams",
            Some(Pattern::Pair(0, 3)),
            None,
        ),
        (
            "1 -> 1   RMPP, 1 KB messages       ",
            None,
            Some(Pattern::Pair(0, 3)),
        ),
        (
            "15 -> 1  idempotent, 32 B datagrams",
            Some(Pattern::ToOne(5)),
            None,
        ),
        (
            "15 -> 1  RMPP, 1 KB messages       ",
            None,
            Some(Pattern::ToOne(5)),
        ),
    ] {
        let g = goodput(tree, idem, rmpp);
        println!("  {name}  {g:>7.3} B/cycle ({:>5.1} %)", 100.0 * g / 4.0);
        let key = name.split_whitespace().collect::<Vec<_>>().join(" ");
        record.figure(&format!("goodput_bytes_per_cycle {key}"), g);
    }

    println!("idempotent load sweep (golden model, uniform, seed 1, 200000 cycles, drained):");
    println!(
        "  {:>6} {:>22} {:>8} {:>8} {:>6}",
        "load", "goodput flits/node/cyc", "median", "p99", "lost"
    );
    let mut sweep = Vec::new();
    for load in [0.05, 0.1, 0.2, 0.3, 0.5, 1.0] {
        let (g, med, p99, lost) = sweep_point(tree, load, 200_000);
        println!("  {load:>6} {g:>22.4} {med:>8} {p99:>8} {lost:>6}");
        sweep.push(serde_json::json!({
            "load": load, "goodput_flits_per_node_cycle": g, "median": med, "p99": p99, "lost": lost,
        }));
    }
    record.figure("idempotent_load_sweep", sweep);

    // Issue 17's measure: the system's golden model beside the fabric's, both at load 0.3
    // (uniform, seed 1) with their traffic and scoreboards, no faults.
    let cycles = 300_000;
    let t0 = Instant::now();
    sweep_point_drained(tree, 0.3, cycles, 0);
    let system_rate = cycles as f64 / t0.elapsed().as_secs_f64();
    let t0 = Instant::now();
    let s = idemnet_model::run_model_only(tree.k, tree.n, 0.3, 1, cycles).unwrap();
    let fabric_rate = cycles as f64 / t0.elapsed().as_secs_f64();
    assert_eq!(s.errors, 0);
    println!(
        "golden models at load 0.3 (uniform, seed 1, {cycles} cycles, traffic and scoreboard):"
    );
    println!("  system (datagrams)      {system_rate:>10.0}");
    println!("  fabric alone            {fabric_rate:>10.0}");
    println!("  fabric / system: {:.1}x", fabric_rate / system_rate);
    record.figure("system_model_load_0_3_cycles_per_second", system_rate);
    record.figure("fabric_model_load_0_3_cycles_per_second", fabric_rate);

    let n = 100_000;
    let model_rate = drive(&mut model(), tree, n);
    let rtl_rate = drive(&mut rtl(), tree, n);
    let mut opts = CosimOptions {
        faults: Faults::from_probabilities(0.001, 0.0005).unwrap(),
        drain: 0,
        ..CosimOptions::new(n, 1, 0.05)
    };
    opts.rmpp.load = 0.05;
    let r = cosim(&cfg, &opts, |_| {}).unwrap();
    assert!(r.lockstep.passed(), "{r}");
    let lock_rate = r.lockstep.cycles as f64 / r.lockstep.elapsed.as_secs_f64();
    println!(
        "system cycles/s (both protocols at 0.05, loss 0.001, corruption 0.0005, {n} cycles):"
    );
    println!("  golden model alone      {model_rate:>10.0}");
    println!("  Verilated RTL alone     {rtl_rate:>10.0}");
    println!("  lockstep RTL + model    {lock_rate:>10.0}");
    println!(
        "  model / RTL: {:.1}x; lockstep / RTL: {:.2}x",
        model_rate / rtl_rate,
        lock_rate / rtl_rate
    );
    record.config("speed_cycles", n);
    record.figure("model_cycles_per_second", model_rate);
    record.figure("rtl_cycles_per_second", rtl_rate);
    record.figure("lockstep_cycles_per_second", lock_rate);
    record.finish().unwrap_or_else(|e| refuse("system", &e));
}
