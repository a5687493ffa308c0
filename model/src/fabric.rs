//! The fabric top of docs/protocol.md §5: a k-ary n-tree of [`crate::switch`] switches.
//!
//! Block ports (as [`ModelBlock`], `clock` excluded), in this order:
//! `node_in$0..N` (in, 35), `node_out$0..N` (out, 35), `drops$0..S*2k` (out, 16), where
//! `drops$(s*2k + i)` is switch `s`'s drop counter for input `i` (down `0..k`, up `k..2k`).
//!
//! Timing: one `step` applies `I_t` and takes edge `t`. Links are wires: in cycle `t` a leaf
//! switch sees `node_in` of `I_t`, and every other switch input sees its neighbour's output
//! register `O_(t-1)`. A switch's output registers show in `O_t` what it decided in cycle `t-1`
//! (§4: two cycles per hop). `node_out` in `O_t` is the leaf switches' down output registers
//! after edge `t`, so a flit entering at `node_in[p]` in cycle `t` is in `node_out[q]` of
//! `O_(t+4L+1)`, and a drop counted in cycle `t` shows in `O_(t+1)`. Up inputs of top-level
//! switches are tied to zero.
//!
//! Implementation: flat arrays, no allocation per cycle, and switches whose inputs are all
//! invalid only step their LFSR. The flits are kept by where they go, not where they come from:
//! a switch writes the flit it decides for an output at the word of the input (or node) that
//! output drives, so that the flits a switch reads in a cycle lie together (its `2k` words) and
//! need no gathering. Three such buffers rotate: the inputs of this cycle (the output registers
//! of `O_(t-1)`, and the node inputs), the registers of `O_t` (decided in cycle `t-1`), and the
//! decisions of this cycle.

use crate::block::ModelBlock;
use crate::fault::InjectorSet;
use crate::lfsr;
use crate::ports::PortSpec;
use crate::switch::{decide, masks, masks_of, Counters, Geom, Outs, DROP_BITS, FLIT_BITS, IDLE};
use crate::topology::{ConfigError, FatTree, Peer};

/// The whole fabric.
#[derive(Clone, Debug)]
pub struct Fabric {
    tree: FatTree,
    k2: usize,
    nsw: usize,
    nodes: usize,
    geom: Vec<Geom>,
    /// For switch output `s*2k + o`: the word of the buffers it drives (`..S*2k` the switch
    /// inputs `s'*2k + j`, `S*2k + p` node `p`, `S*2k + N` for an output that drives nothing).
    dest: Vec<u32>,
    /// For node `p`: the switch input it drives.
    node_input: Vec<u32>,
    /// The flits at the switch inputs in this cycle, by input: the output registers of
    /// `O_(t-1)` and this cycle's node inputs.
    ins: Vec<u64>,
    /// The output registers of `O_t` (what the last cycle decided), by the word each drives.
    regs: Vec<u64>,
    /// The flits this cycle decides, by the word each output drives; zero where none.
    decided: Vec<u64>,
    state: Vec<u8>,
    held: Vec<u16>,
    lfsr: Vec<u16>,
    /// The counters after the last cycle's decisions, and what the outputs show (one cycle
    /// behind).
    decided_drops: Vec<u16>,
    drops: Vec<u16>,
    /// The last cycle's decisions counted a drop: `decided_drops` differs from `drops`.
    decided_drops_moved: bool,
    /// The last step changed `drops`.
    drops_moved: bool,
    counters: Counters,
    cycles: u64,
    /// The injectors of the inter-switch links (§9), when the fabric has them.
    faults: Option<Box<FabricFaults>>,
}

/// The inter-switch injectors of a fabric with faults.
#[derive(Clone, Debug)]
struct FabricFaults {
    /// Per switch input `s*2k + j`: its injector (an index into `inj`), or `NO_INJ`.
    inj_of: Vec<u32>,
    /// Injector `2N + i` of §9 is `inj.inj[i]`.
    inj: InjectorSet,
    /// Whether any of `dead` is set.
    any_dead: bool,
    /// Dead inter-switch links `j` (both directions).
    dead: Vec<bool>,
    loss: u16,
    corrupt: u16,
    /// This cycle's switch inputs, after the injectors.
    ins: Vec<u64>,
}

const NO_INJ: u32 = u32::MAX;

impl Fabric {
    /// A fabric at power-on for `k`, `n` (checked as in [`FatTree::new`]).
    pub fn new(k: usize, n: usize) -> Result<Self, ConfigError> {
        Ok(Self::from_tree(FatTree::new(k, n)?))
    }

    /// A fabric at power-on for a validated tree.
    pub fn from_tree(tree: FatTree) -> Self {
        let k = tree.k;
        let k2 = 2 * k;
        let nsw = tree.switches();
        let nodes = tree.nodes();
        let so = nsw * k2;
        let nowhere = (so + nodes) as u32;
        let mut dest = vec![nowhere; so];
        let mut node_input = vec![0; nodes];
        let mut geom = Vec::with_capacity(nsw);
        for s in 0..nsw {
            let (l, w) = tree.switch_lw(s);
            geom.push(Geom::new(&tree, l, w));
            for j in 0..k2 {
                // Input j of switch s is driven by the output at the other end of port j, and
                // output j drives that end.
                let x = (s * k2 + j) as u32;
                match tree.peer(s, j) {
                    Peer::Node(p) => {
                        node_input[p] = x;
                        dest[s * k2 + j] = (so + p) as u32;
                    }
                    // Reached from below (j < k): the peer's up port; from above: its down port.
                    Peer::Switch { switch, port } => {
                        let out = if j < k { k + port } else { port };
                        dest[switch * k2 + out] = x;
                    }
                    // Tied to zero: no output writes its word.
                    Peer::None => {}
                }
            }
        }
        Fabric {
            tree,
            k2,
            nsw,
            nodes,
            geom,
            dest,
            node_input,
            ins: vec![0; so + nodes + 1],
            regs: vec![0; so + nodes + 1],
            decided: vec![0; so + nodes + 1],
            state: vec![IDLE; so],
            held: vec![0; nsw],
            lfsr: (0..nsw).map(lfsr::seed).collect(),
            decided_drops: vec![0; so],
            drops: vec![0; so],
            decided_drops_moved: false,
            drops_moved: false,
            counters: Counters::default(),
            cycles: 0,
            faults: None,
        }
    }

    /// The fabric with an injector on every inter-switch link (§9), all passing for now (see
    /// [`Fabric::set_faults`]); the injectors of the node links belong to whoever drives them.
    pub fn with_faults(tree: FatTree) -> Self {
        let mut f = Self::from_tree(tree);
        let k = tree.k;
        let k2 = 2 * k;
        let links = (tree.n - 1) * tree.per_level() * k;
        let mut inj_of = vec![NO_INJ; f.nsw * k2];
        for s in 0..f.nsw {
            for j in 0..k2 {
                if let Peer::Switch { switch, port } = tree.peer(s, j) {
                    // From below: the child's up link, upward; from above: our up link, downward.
                    inj_of[s * k2 + j] = if j < k {
                        (2 * (switch * k + port)) as u32
                    } else {
                        (2 * (s * k + j - k) + 1) as u32
                    };
                }
            }
        }
        let base = 2 * tree.nodes();
        f.faults = Some(Box::new(FabricFaults {
            inj_of,
            inj: InjectorSet::new(base, 2 * links),
            any_dead: false,
            dead: vec![false; links],
            loss: 0,
            corrupt: 0,
            ins: vec![0; f.nsw * k2],
        }));
        f
    }

    /// Sets the thresholds and the dead links of a fabric made [`Fabric::with_faults`].
    pub fn set_faults(&mut self, loss: u16, corrupt: u16, dead: &[bool]) {
        if let Some(ff) = self.faults.as_mut() {
            ff.loss = loss;
            ff.corrupt = corrupt;
            for (d, &x) in ff.dead.iter_mut().zip(dead) {
                *d = x;
            }
            ff.any_dead = ff.dead.iter().any(|&d| d);
        }
    }

    pub fn tree(&self) -> FatTree {
        self.tree
    }
    /// Number of nodes `N`.
    pub fn nodes(&self) -> usize {
        self.nodes
    }
    /// Number of switches `S`.
    pub fn switches(&self) -> usize {
        self.nsw
    }
    /// Cycles stepped since power-on.
    pub fn cycles(&self) -> u64 {
        self.cycles
    }

    /// One cycle: `node_in` holds `I_t` (`N` flits), `node_out` receives `O_t` (`N` flits).
    pub fn step(&mut self, node_in: &[u64], node_out: &mut [u64]) {
        let so = self.nsw * self.k2;
        let n = self.nodes;
        let k2 = self.k2;
        // Edge t shows what cycle t - 1 decided: those flits become the output registers, the
        // registers of O_(t-1) this cycle's inputs, and the buffer of cycle t - 2, read by
        // nobody now, takes this cycle's decisions.
        std::mem::swap(&mut self.ins, &mut self.regs);
        std::mem::swap(&mut self.regs, &mut self.decided);
        self.decided.fill(0);
        for (&x, &f) in self.node_input.iter().zip(&node_in[..n]) {
            self.ins[x as usize] = f;
        }
        // The counters change only where the last cycle counted a drop.
        if self.decided_drops_moved {
            self.drops.copy_from_slice(&self.decided_drops);
        }
        // In a calm cycle the injectors pass every valid flit as it is and make an invalid one
        // zero (`LinkFault::pass_calm`); what they carry here, a switch's output register, is
        // a valid flit or zero (`decide` writes only valid flits), so a calm cycle's switch
        // inputs are the buffer's words, as in a fabric without injectors.
        let mut faulted = None;
        if let Some(ff) = self.faults.as_mut() {
            if !ff.inj.calm(ff.loss, ff.corrupt, ff.any_dead) {
                for (x, (&f, &i)) in self.ins[..so].iter().zip(ff.inj_of.iter()).enumerate() {
                    ff.ins[x] = if i == NO_INJ {
                        f
                    } else {
                        let dead = ff.dead[i as usize / 2];
                        ff.inj.inj[i as usize].pass(f, ff.loss, ff.corrupt, dead)
                    };
                }
                faulted = Some(&ff.ins[..]);
            }
        }
        let ins = faulted.unwrap_or(&self.ins[..so]);
        let drops_before = self.counters.drops;
        for s in 0..self.nsw {
            let base = s * k2;
            let ins = &ins[base..base + k2];
            let (valid, heads) = match k2 {
                // The usual 4-ary tree's switches, unrolled.
                8 => masks::<8>(ins),
                _ => masks_of(ins),
            };
            if valid == 0 {
                self.lfsr[s] = lfsr::step(self.lfsr[s]);
                continue;
            }
            decide(
                &self.geom[s],
                ins,
                valid,
                heads,
                &mut self.state[base..base + k2],
                &mut self.held[s],
                &mut self.lfsr[s],
                &mut self.decided_drops[base..base + k2],
                &mut Scatter {
                    words: &mut self.decided,
                    dest: &self.dest[base..base + k2],
                },
                &mut self.counters,
            );
        }
        self.drops_moved = std::mem::replace(
            &mut self.decided_drops_moved,
            self.counters.drops != drops_before,
        );
        // The leaf switches' down output registers, by the node each drives.
        node_out[..n].copy_from_slice(&self.regs[so..so + n]);
        self.cycles += 1;
    }

    /// The drop counters, `drops[s*2k + i]` (16 bits, wrapping) as shown in the last `O_t`.
    pub fn drops(&self) -> &[u16] {
        &self.drops
    }
    /// Whether the last step changed [`Fabric::drops`].
    pub fn drops_moved(&self) -> bool {
        self.drops_moved
    }
    /// Worms discarded since power-on (not wrapping; one cycle ahead of [`Fabric::drops`]).
    pub fn total_drops(&self) -> u64 {
        self.counters.drops
    }
    /// Valid flits dropped by a switch since power-on.
    pub fn discarded_flits(&self) -> u64 {
        self.counters.discarded_flits
    }
    /// Valid flits currently in the switches, decided or in output registers (in flight, or at
    /// `node_out`).
    pub fn flits_in_registers(&self) -> usize {
        // After step, the latest outputs are in regs; no output drives the last word.
        let words = self.nsw * self.k2 + self.nodes;
        self.regs[..words]
            .iter()
            .chain(&self.decided[..words])
            .filter(|&&f| f & crate::switch::VALID != 0)
            .count()
    }
}

/// A switch's outputs in the fabric: output `o`'s flit goes to the word `dest[o]` of the
/// buffer of this cycle's decisions, the input (or node) it drives.
struct Scatter<'a> {
    words: &'a mut [u64],
    dest: &'a [u32],
}

impl Outs for Scatter<'_> {
    #[inline(always)]
    fn put(&mut self, o: usize, f: u64) {
        self.words[self.dest[o] as usize] = f;
    }
}

impl ModelBlock for Fabric {
    fn ports(&self) -> Vec<PortSpec> {
        let mut v = Vec::with_capacity(2 * self.nodes + self.nsw * self.k2);
        for p in 0..self.nodes {
            v.push(PortSpec::input(format!("node_in${p}"), FLIT_BITS));
        }
        for p in 0..self.nodes {
            v.push(PortSpec::output(format!("node_out${p}"), FLIT_BITS));
        }
        for x in 0..self.nsw * self.k2 {
            v.push(PortSpec::output(format!("drops${x}"), DROP_BITS));
        }
        v
    }

    fn step(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        let n = self.nodes;
        Fabric::step(self, &inputs[..n], &mut outputs[..n]);
        for (o, &d) in outputs[n..n + self.drops.len()].iter_mut().zip(&self.drops) {
            *o = d as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::switch::{body_flit, head_flit, VALID};
    use crate::traffic::{Scoreboard, TrafficGen};

    #[test]
    fn zero_load_latency() {
        for (k, n) in [(4, 2), (2, 3), (4, 3), (8, 2), (2, 1)] {
            let t = FatTree::new(k, n).unwrap();
            let nn = t.nodes();
            let pairs = [
                (0, 1),
                (0, nn - 1),
                (nn - 1, 0),
                (1, k % nn),
                (3 % nn, (3 + k * k) % nn),
                (5 % nn, 5 % nn),
            ];
            for &(p, q) in &pairs {
                let mut f = Fabric::new(k, n).unwrap();
                let mut inp = vec![0u64; nn];
                let mut out = vec![0u64; nn];
                let t0 = 3usize;
                let worm = [
                    head_flit(p as u16, q as u16, false),
                    body_flit(0x101, false),
                    body_flit(0x102, true),
                ];
                let mut seen = vec![];
                for c in 0..t0 + 20 {
                    inp.fill(0);
                    if c >= t0 && c < t0 + 3 {
                        inp[p] = worm[c - t0];
                    }
                    f.step(&inp, &mut out);
                    for (x, &o) in out.iter().enumerate() {
                        if o & VALID != 0 {
                            seen.push((c, x, o));
                        }
                    }
                }
                // Two cycles per switch traversal: in cycle t0 + j + 2h - 1 the flit is in
                // node_out of O_(t0 + j + 2h - 1) (§3).
                let h = t.hops(p, q);
                let expect: Vec<_> = (0..3).map(|j| (t0 + j + 2 * h - 1, q, worm[j])).collect();
                assert_eq!(seen, expect, "k{k} n{n} {p}->{q}");
                assert_eq!(f.total_drops(), 0);
            }
        }
    }

    #[test]
    fn ports_order() {
        let f = Fabric::new(4, 2).unwrap();
        let p = f.ports();
        assert_eq!(p.len(), 16 + 16 + 64);
        assert_eq!(p[0].name, "node_in$0");
        assert_eq!(p[16].name, "node_out$0");
        assert_eq!(p[32].name, "drops$0");
        assert_eq!(p[95].name, "drops$63");
        assert_eq!(crate::block::output_words(&p), 80);
    }

    fn random_run(k: usize, n: usize, load: f64, seed: u64, cycles: u64) {
        let mut f = Fabric::new(k, n).unwrap();
        let nn = f.nodes();
        let mut gen = TrafficGen::new(nn, load, seed).unwrap();
        let mut sb = Scoreboard::new(nn);
        let mut inp = vec![0u64; nn];
        let mut out = vec![0u64; nn];
        for c in 0..cycles + 4 * n as u64 + 2 {
            if c < cycles {
                gen.step(&mut inp);
            } else {
                inp.fill(0);
            }
            f.step(&inp, &mut out);
            sb.check(c, &out);
        }
        assert_eq!(sb.errors(), 0, "{:?}", sb.first_error());
        assert!(f.total_drops() > 0);
        assert!(sb.worms() > 1000);
        assert_eq!(f.flits_in_registers(), 0);
        // Conservation: flits in = flits delivered + flits discarded.
        assert_eq!(gen.flits_sent(), sb.flits() + f.discarded_flits());
        // Sum of the drop counters matches the total (no wrap in this short run).
        let sum: u64 = f.drops().iter().map(|&d| d as u64).sum();
        assert_eq!(sum, f.total_drops());
    }

    #[test]
    fn random_load_order_and_conservation() {
        random_run(4, 2, 0.5, 1, 20_000);
        random_run(4, 3, 0.5, 2, 5_000);
        random_run(2, 3, 0.9, 3, 5_000);
        random_run(8, 2, 0.3, 4, 5_000);
    }

    #[test]
    fn block_step_matches_fast_step() {
        let mut a = Fabric::new(4, 2).unwrap();
        let mut b = a.clone();
        let mut gen = TrafficGen::new(16, 0.7, 9).unwrap();
        let mut inp = vec![0u64; 16];
        let mut out = vec![0u64; 16];
        let mut outb = vec![0u64; 80];
        for _ in 0..2000 {
            gen.step(&mut inp);
            a.step(&inp, &mut out);
            ModelBlock::step(&mut b, &inp, &mut outb);
            assert_eq!(&out[..], &outb[..16]);
            let d: Vec<u64> = a.drops().iter().map(|&x| x as u64).collect();
            assert_eq!(&d[..], &outb[16..]);
        }
    }

    /// Cross-check the flat fabric against independent standalone switches wired by the link map.
    #[test]
    fn matches_standalone_switches() {
        for (k, n) in [(4, 2), (2, 3)] {
            let t = FatTree::new(k, n).unwrap();
            let mut f = Fabric::from_tree(t);
            let mut sws: Vec<_> = (0..t.switches())
                .map(|s| {
                    let (l, w) = t.switch_lw(s);
                    crate::switch::Switch::new(t, l, w).unwrap()
                })
                .collect();
            let nn = t.nodes();
            let mut gen = TrafficGen::new(nn, 0.8, 5).unwrap();
            let mut inp = vec![0u64; nn];
            let mut out = vec![0u64; nn];
            let mut prev: Vec<Vec<u64>> = vec![vec![0; 2 * k]; t.switches()];
            for _ in 0..3000 {
                gen.step(&mut inp);
                f.step(&inp, &mut out);
                for (s, sw) in sws.iter_mut().enumerate() {
                    let ins: Vec<u64> = (0..2 * k)
                        .map(|j| match t.peer(s, j) {
                            Peer::Node(p) => inp[p],
                            Peer::Switch { switch, port } => {
                                prev[switch][if j < k { k + port } else { port }]
                            }
                            Peer::None => 0,
                        })
                        .collect();
                    sw.step(&ins);
                }
                for (s, sw) in sws.iter().enumerate() {
                    prev[s] = sw.outputs().to_vec();
                }
                for (p, &o) in out.iter().enumerate() {
                    let (s, d) = t.node_attach(p);
                    assert_eq!(o, prev[s][d]);
                }
                let d: Vec<u16> = sws.iter().flat_map(|s| s.drops().to_vec()).collect();
                assert_eq!(&d[..], f.drops());
            }
        }
    }

    /// Throughput of the model-only simulator (run with `--ignored --nocapture` in release).
    #[test]
    #[ignore]
    fn bench_cycles_per_second() {
        for (k, n) in [(4, 2), (4, 3)] {
            let cycles = 5_000_000 / (k * n) as u64;
            let t0 = std::time::Instant::now();
            let s = crate::run_model_only(k, n, 0.5, 1, cycles).unwrap();
            let dt = t0.elapsed().as_secs_f64();
            println!("k={k} n={n}: {:.0} cycles/s ({s:?})", cycles as f64 / dt);
            // Fabric alone, with pre-generated stimulus.
            let mut f = Fabric::new(k, n).unwrap();
            let nn = f.nodes();
            let mut gen = TrafficGen::new(nn, 0.5, 1).unwrap();
            let frames = 4096;
            let mut stim = vec![0u64; nn * frames];
            for c in stim.chunks_mut(nn) {
                gen.step(c);
            }
            let mut out = vec![0u64; nn];
            let t0 = std::time::Instant::now();
            let mut acc = 0u64;
            for c in 0..cycles as usize {
                f.step(&stim[(c % frames) * nn..(c % frames + 1) * nn], &mut out);
                acc = acc.wrapping_add(out[c % nn]);
            }
            let dt = t0.elapsed().as_secs_f64();
            println!("  fabric only: {:.0} cycles/s ({acc})", cycles as f64 / dt);
            // Stimulus and scoreboard alone (scoreboard fed the stimulus: errors expected).
            let mut sb = Scoreboard::new(nn);
            let mut v = vec![0u64; nn];
            let t0 = std::time::Instant::now();
            for c in 0..cycles {
                gen.step(&mut v);
                sb.check(c, &v);
            }
            let dt = t0.elapsed().as_secs_f64();
            println!(
                "  traffic + scoreboard only: {:.0} cycles/s",
                cycles as f64 / dt
            );
        }
    }
}
