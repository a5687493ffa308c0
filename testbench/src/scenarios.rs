//! Scenarios for the [`crate::harness`]: drivers, monitors and scoreboards as coroutines, on
//! any [`ClockedDut`]: the Verilated RTL ([`Verilated`]) or the golden model ([`ModelDut`]).
//!
//! [`fabric_traffic`] is the router's scenario: one driver task plays the §6 traffic generator
//! into every `node_in$p`, one monitor task per node samples `node_out$p` after every edge and
//! queues the valid flits, and one scoreboard task checks them (destination, body numbering,
//! per-pair order) as they come.

use std::cell::RefCell;
use std::rc::Rc;

use anyhow::{bail, Result};
use idemnet_cosim::Instance;
use idemnet_model::block::ModelBlock;
use idemnet_model::ports::{PortDir, PortSpec};
use idemnet_model::switch::VALID;
use idemnet_model::Scoreboard;

use crate::config::{Block, Config, Model};
use crate::harness::{run, ClockedDut};

/// A Verilated instance and the port list it was built for.
pub struct Verilated {
    pub instance: Instance,
    pub ports: Vec<PortSpec>,
}

impl ClockedDut for Verilated {
    fn ports(&self) -> Vec<PortSpec> {
        self.ports.clone()
    }
    fn set_inputs(&mut self, words: &[u64]) {
        self.instance.set_inputs(words)
    }
    fn tick(&mut self) {
        self.instance.tick()
    }
    fn outputs(&mut self, words: &mut [u64]) {
        self.instance.outputs(words)
    }
}

/// A golden-model block as a [`ClockedDut`]: inputs are held until the tick, outputs kept from it.
pub struct ModelDut<M: ModelBlock = Model> {
    pub model: M,
    inputs: Vec<u64>,
    outputs: Vec<u64>,
}

impl<M: ModelBlock> ModelDut<M> {
    pub fn new(model: M) -> Self {
        let ports = ModelBlock::ports(&model);
        ModelDut {
            inputs: vec![0; idemnet_model::block::input_words(&ports)],
            outputs: vec![0; idemnet_model::block::output_words(&ports)],
            model,
        }
    }
}

impl<M: ModelBlock> ClockedDut for ModelDut<M> {
    fn ports(&self) -> Vec<PortSpec> {
        ModelBlock::ports(&self.model)
    }
    fn set_inputs(&mut self, words: &[u64]) {
        self.inputs.copy_from_slice(words);
    }
    fn tick(&mut self) {
        self.model.step(&self.inputs, &mut self.outputs);
    }
    fn outputs(&mut self, words: &mut [u64]) {
        words.copy_from_slice(&self.outputs);
    }
}

/// What the scoreboard of [`fabric_traffic`] saw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrafficReport {
    pub flits_sent: u64,
    pub worms_sent: u64,
    pub flits_delivered: u64,
    pub worms_delivered: u64,
    pub errors: u64,
    pub first_error: Option<String>,
}

/// Runs the fabric of `cfg` on `dut` for `cycles` edges under §6 traffic at `load` with `seed`.
pub fn fabric_traffic<D: ClockedDut + 'static>(
    dut: D,
    cfg: &Config,
    load: f64,
    seed: u64,
    cycles: u64,
) -> Result<(D, TrafficReport)> {
    if cfg.block != Block::Fabric {
        bail!("fabric_traffic drives a fabric, not the {cfg}");
    }
    let nodes = cfg.sources()?;
    let gen = Rc::new(RefCell::new(cfg.traffic(load, seed)?));
    let sb = Rc::new(RefCell::new(Scoreboard::new(nodes)));
    let mut setup_error = None;
    let (g, s) = (gen.clone(), sb.clone());
    let dut = run(dut, cycles, |tb| {
        let mut ins = Vec::with_capacity(nodes);
        let mut outs = Vec::with_capacity(nodes);
        for p in 0..nodes {
            match (
                tb.port(&format!("node_in${p}"), PortDir::In),
                tb.port(&format!("node_out${p}"), PortDir::Out),
            ) {
                (Ok(i), Ok(o)) => {
                    ins.push(i);
                    outs.push(o);
                }
                (Err(e), _) | (_, Err(e)) => {
                    setup_error = Some(e);
                    return;
                }
            }
        }
        // Driver: one traffic step per cycle into every node_in.
        let d = tb.clone();
        tb.spawn(async move {
            let mut flits = vec![0u64; ins.len()];
            loop {
                g.borrow_mut().step(&mut flits);
                for (&port, &f) in ins.iter().zip(&flits) {
                    d.set(port, f);
                }
                d.edge().await;
            }
        });
        // Monitors, one per node, into the scoreboard's queue.
        let q = tb.queue::<(u64, usize, u64)>();
        for (p, port) in outs.into_iter().enumerate() {
            let (m, mq) = (tb.clone(), q.clone());
            tb.spawn(async move {
                loop {
                    m.edge().await;
                    let f = m.get(port);
                    if f & VALID != 0 {
                        mq.push((m.cycle() - 1, p, f));
                    }
                }
            });
        }
        // Scoreboard.
        tb.spawn(async move {
            while let Some((t, p, f)) = q.recv().await {
                s.borrow_mut().check_flit(t, p, f);
            }
        });
    })?;
    if let Some(e) = setup_error {
        return Err(e);
    }
    let (g, s) = (gen.borrow(), sb.borrow());
    Ok((
        dut,
        TrafficReport {
            flits_sent: g.flits_sent(),
            worms_sent: g.worms_sent(),
            flits_delivered: s.flits(),
            worms_delivered: s.worms(),
            errors: s.errors(),
            first_error: s.first_error().map(str::to_owned),
        },
    ))
}
