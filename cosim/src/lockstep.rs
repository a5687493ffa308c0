//! Lockstep comparison of a model and an RTL simulation, cycle by cycle.
//!
//! [`run_lockstep`] asks a stimulus for the flat input words of every cycle `t`, steps the
//! model ([`StepModel`], any `FnMut(&[u64], &mut [u64])` or a boxed one) and the RTL ([`Dut`],
//! implemented by [`crate::Instance`]) with the same words, and compares every Out port (masked
//! to its width) after every cycle: `O_t` of docs/protocol.md §1. It stops at the first
//! difference and reports the cycle, the port and both values in hex; a failure of the RTL side
//! that is not a difference (a waveform it cannot write) ends the run with an error.

use std::fmt;
use std::time::{Duration, Instant};

use anyhow::Result;

use crate::{hex_value, input_words, output_words, word_mask, Instance, PortDir, PortSpec};

/// One cycle of a model: apply `inputs` (`I_t`), take the edge, write `outputs` (`O_t`).
/// The model crate's `ModelBlock::step` has this shape; closures implement it.
pub trait StepModel {
    fn step(&mut self, inputs: &[u64], outputs: &mut [u64]);
}

impl<F: FnMut(&[u64], &mut [u64])> StepModel for F {
    fn step(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        self(inputs, outputs)
    }
}

/// A boxed model step (implements [`StepModel`]).
pub type ModelFn = Box<dyn FnMut(&[u64], &mut [u64])>;

/// A simulated RTL top: set inputs, tick one cycle, read outputs.
pub trait Dut {
    fn set_inputs(&mut self, words: &[u64]);
    fn tick(&mut self);
    fn outputs(&mut self, words: &mut [u64]);
    /// An error that must end the run, such as a waveform that cannot be written. Asked after
    /// every tick, so it must be cheap.
    fn check(&self) -> Result<()> {
        Ok(())
    }
}

impl Dut for Instance {
    fn set_inputs(&mut self, words: &[u64]) {
        Instance::set_inputs(self, words)
    }
    fn tick(&mut self) {
        Instance::tick(self)
    }
    fn outputs(&mut self, words: &mut [u64]) {
        Instance::outputs(self, words)
    }
    fn check(&self) -> Result<()> {
        self.check_vcd()
    }
}

/// The first output difference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// Cycle `t` whose `O_t` differs.
    pub cycle: u64,
    /// Port name (as in the Verilog).
    pub port: String,
    /// Model value, hex (`0x…`, one digit per 4 bits of the width).
    pub expected: String,
    /// RTL value, hex.
    pub actual: String,
    /// The flat input words of that cycle.
    pub inputs: Vec<u64>,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cycle {}: output `{}` differs: model {} rtl {}",
            self.cycle, self.port, self.expected, self.actual
        )
    }
}

/// Result of [`run_lockstep`].
#[derive(Clone, Debug)]
pub struct LockstepReport {
    /// Cycles run (including the mismatching one).
    pub cycles: u64,
    /// Output ports compared (ports x cycles).
    pub comparisons: u64,
    pub mismatch: Option<Mismatch>,
    /// Wall time of the whole run, and the part spent in the model and in the RTL.
    pub elapsed: Duration,
    pub model_time: Duration,
    pub rtl_time: Duration,
}

impl LockstepReport {
    pub fn passed(&self) -> bool {
        self.mismatch.is_none()
    }
}

impl fmt::Display for LockstepReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.mismatch {
            None => write!(f, "lockstep passed: ")?,
            Some(m) => write!(f, "lockstep FAILED: {m}; ")?,
        }
        let secs = self.elapsed.as_secs_f64();
        write!(
            f,
            "{} cycles, {} port comparisons in {:.3} s ({:.0} cycles/s; model {:.3} s, rtl {:.3} s)",
            self.cycles,
            self.comparisons,
            secs,
            if secs > 0.0 { self.cycles as f64 / secs } else { 0.0 },
            self.model_time.as_secs_f64(),
            self.rtl_time.as_secs_f64()
        )
    }
}

/// Runs `cycles` cycles. `stimulus(t, inputs)` fills the flat input words of cycle `t`;
/// `model` and `rtl` get the same words. Stops at the first output difference, or with an error
/// at the first [`Dut::check`] that fails.
pub fn run_lockstep(
    ports: &[PortSpec],
    mut stimulus: impl FnMut(u64, &mut [u64]),
    model: &mut dyn StepModel,
    rtl: &mut dyn Dut,
    cycles: u64,
) -> Result<LockstepReport> {
    run_lockstep_observed(
        ports,
        |t, _, inputs| stimulus(t, inputs),
        model,
        rtl,
        cycles,
        |_| true,
    )
}

/// What [`run_lockstep_observed`] shows its observer after every compared cycle.
pub struct CycleView<'a> {
    /// The cycle `t`.
    pub cycle: u64,
    /// `I_t`, flat In-port words.
    pub inputs: &'a [u64],
    /// `O_t` of the model, flat Out-port words.
    pub model: &'a [u64],
    /// `O_t` of the RTL, flat Out-port words.
    pub rtl: &'a [u64],
}

/// [`run_lockstep`] with a reactive stimulus and an observer. `stimulus(t, outputs, inputs)`
/// also sees `O_(t-1)` (all zero for `t = 0`), the outputs both sides agreed on, so a testbench
/// can follow handshakes and answer packets. The observer is called after every cycle run
/// (scoreboards, the model's waveform, progress), the mismatching one included, so that both
/// waveforms end with it; it returns whether to go on (a drained system ends the run early).
pub fn run_lockstep_observed(
    ports: &[PortSpec],
    mut stimulus: impl FnMut(u64, &[u64], &mut [u64]),
    model: &mut dyn StepModel,
    rtl: &mut dyn Dut,
    cycles: u64,
    mut observe: impl FnMut(CycleView<'_>) -> bool,
) -> Result<LockstepReport> {
    let t0 = Instant::now();
    let mut inputs = vec![0u64; input_words(ports)];
    let mut exp = vec![0u64; output_words(ports)];
    let mut act = vec![0u64; output_words(ports)];
    // (name, width, offset) of the Out ports.
    let mut outs = Vec::new();
    let mut off = 0;
    for p in ports.iter().filter(|p| p.dir == PortDir::Out) {
        outs.push((p.name.as_str(), p.width, off));
        off += p.words();
    }
    let (mut model_time, mut rtl_time) = (Duration::ZERO, Duration::ZERO);
    let mut comparisons = 0u64;
    let mut mismatch = None;
    let mut ran = 0;
    for t in 0..cycles {
        inputs.iter_mut().for_each(|w| *w = 0);
        stimulus(t, &exp, &mut inputs);
        let a = Instant::now();
        model.step(&inputs, &mut exp);
        let b = Instant::now();
        rtl.set_inputs(&inputs);
        rtl.tick();
        rtl.check()?;
        rtl.outputs(&mut act);
        let c = Instant::now();
        model_time += b - a;
        rtl_time += c - b;
        ran = t + 1;
        for &(name, width, o) in &outs {
            comparisons += 1;
            let n = (width as usize).div_ceil(64);
            let differs = (0..n).any(|i| (exp[o + i] ^ act[o + i]) & word_mask(width, i) != 0);
            if differs {
                mismatch = Some(Mismatch {
                    cycle: t,
                    port: name.to_string(),
                    expected: hex_value(width, &exp[o..o + n]),
                    actual: hex_value(width, &act[o..o + n]),
                    inputs: inputs.clone(),
                });
                break;
            }
        }
        let go_on = observe(CycleView {
            cycle: t,
            inputs: &inputs,
            model: &exp,
            rtl: &act,
        });
        if mismatch.is_some() || !go_on {
            break;
        }
    }
    Ok(LockstepReport {
        cycles: ran,
        comparisons,
        mismatch,
        elapsed: t0.elapsed(),
        model_time,
        rtl_time,
    })
}
