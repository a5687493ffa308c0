//! Where the datagrams' worms are discarded, and which ones (docs/protocol.md §8.7): the
//! system's golden model under uniform traffic of 32-byte datagrams, its switches' drop counters
//! summed by hop, and the SEND, ACK and FORGET worms counted where they enter the fabric and
//! where they leave it.
//!
//! `cargo run --release -p idemnet-model --example discards -- LOAD CYCLES SEED [SEND_SLOTS
//! RETRY_INTERVAL]` (the 4-ary 2-tree, default NIs unless given, drained as `idemnet model`).

use idemnet_model::ni::{NiConfig, COUNTERS};
use idemnet_model::rmpp::host::{MsgTraffic, Pattern};
use idemnet_model::rmpp::send::SendConfig;
use idemnet_model::rmpp::RmppConfig;
use idemnet_model::system::{System, SystemHosts};
use idemnet_model::topology::FatTree;
use idemnet_spec::flit::{HEAD, VALID};

const DRAIN: u64 = 200_000;

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: discards LOAD CYCLES SEED [SEND_SLOTS RETRY_INTERVAL]";
    let arg = |i: usize| args.get(i).ok_or(usage);
    let load: f64 = arg(0)?.parse().map_err(|_| usage)?;
    let cycles: u64 = arg(1)?.parse().map_err(|_| usage)?;
    let seed: u64 = arg(2)?.parse().map_err(|_| usage)?;
    let mut ni = NiConfig::DEFAULT;
    if args.len() == 5 {
        ni.send_slots = arg(3)?.parse().map_err(|_| usage)?;
        ni.retry_interval = arg(4)?.parse().map_err(|_| usage)?;
        ni.retry_spread = NiConfig::spread_for(ni.retry_interval);
    }
    ni.validate()?;
    let tree = FatTree::new(4, 2).map_err(|e| e.0)?;
    let quiet = MsgTraffic {
        load: 0.0,
        min_len: 0,
        max_len: 1024,
        pattern: Pattern::Uniform,
        send: SendConfig::DEFAULT,
    };
    let mut hosts = SystemHosts::new(&tree, load, quiet, seed)?
        .with_dgram_len(Some(32))?
        .with_inputs_kept();
    let mut sys = System::new(tree, ni, RmppConfig::DEFAULT)?;
    let lay = sys.layout();
    let mut i = vec![0u64; lay.input_words()];
    let counters = tree.switches() * 2 * tree.k;
    let (mut last, mut drops) = (vec![0u16; counters], vec![0u64; counters]);
    // Per direction (into the fabric, out of it) and node: a head was seen, its header is next.
    let mut header_next = [vec![false; tree.nodes()], vec![false; tree.nodes()]];
    let mut worms = [[0u64; 3]; 2];
    let mut t = 0;
    while t < cycles || (hosts.in_flight() > 0 && t < cycles + DRAIN) {
        hosts.set_quiet(t >= cycles);
        hosts.step(t, sys.outputs(), &mut i);
        sys.step_in_place(&i);
        hosts.observe(t, sys.outputs());
        let (into, out_of) = sys.links();
        for (d, flits) in [into, out_of].into_iter().enumerate() {
            for (p, &f) in flits.iter().enumerate() {
                if f & VALID == 0 {
                    continue;
                }
                if f & HEAD != 0 {
                    header_next[d][p] = true;
                } else if header_next[d][p] {
                    header_next[d][p] = false;
                    // §8.1: the header word's type, 3 malformed (never sent).
                    worms[d][((f >> 30) & 3).min(2) as usize] += 1;
                }
            }
        }
        for (j, (l, d)) in last.iter_mut().zip(drops.iter_mut()).enumerate() {
            let v = sys.outputs()[lay.drop(j)] as u16;
            *d += u64::from(v.wrapping_sub(*l));
            *l = v;
        }
        t += 1;
    }
    // Switch s's counters 0..k are its down inputs, k..2k its up inputs; leaves come first.
    let (k, leaves) = (tree.k, tree.per_level());
    let (mut first, mut middle, mut final_hop) = (0, 0, 0);
    for (j, d) in drops.iter().enumerate() {
        let (s, input) = (j / (2 * k), j % (2 * k));
        match (s < leaves, input < k) {
            (true, true) => first += d,
            (true, false) => final_hop += d,
            (false, true) => middle += d,
            (false, false) => {}
        }
    }
    println!(
        "load {load}, {cycles} cycles, seed {seed}, {} send slots, retry {}: worms discarded by the \
         switches {} (at the leaf from the node {first}, at the top switches {middle}, at the \
         leaf from above {final_hop})",
        ni.send_slots,
        ni.retry_interval,
        first + middle + final_hop
    );
    for (w, name) in ["SEND", "ACK", "FORGET"].iter().enumerate() {
        let (sent, arrived) = (worms[0][w], worms[1][w]);
        println!(
            "  {name:<6} worms into the fabric {sent}, out of it {arrived} ({:.1} % discarded)",
            100.0 * (sent - arrived) as f64 / sent.max(1) as f64
        );
    }
    let totals = hosts.ni_totals();
    let named: Vec<String> = COUNTERS
        .iter()
        .zip(totals)
        .map(|(c, v)| format!("{c} {v}"))
        .collect();
    println!("  NI counters: {}", named.join(", "));
    for [name, value, _] in hosts.figures(cycles) {
        println!("  {name:<40}  {value}");
    }
    Ok(())
}
