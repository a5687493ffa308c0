//! `idemnet`: the one command for everything a user of idemnet runs.
//!
//! Exit codes: 0 success; 1 the run worked but found a difference (a co-simulation mismatch, a
//! scoreboard error, two waveforms that differ); 2 bad input (arguments, files, configuration) or
//! a missing tool, always with a message naming what was wrong.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand, ValueEnum};

mod cmd;
mod fpga;

#[derive(Parser)]
#[command(
    name = "idemnet",
    version,
    about = "idemnet: RTL, golden model and co-simulation of an idempotent network interface and its discard-on-congestion fat tree"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum BlockArg {
    /// One switch (leaf switch 0 of the k-ary n-tree), random worms on all of its inputs.
    Router,
    /// The whole k-ary n-tree fabric, random worms from every node.
    Fabric,
    /// One idempotent network interface (node 5 of 16, default parameters), driven by reactive
    /// fake peers and a host.
    Ni,
    /// One node (idempotent NI and RMPP receive path, docs/protocol.md §13) per node of the
    /// k-ary n-tree, a link-fault injector on every link, random host traffic of one or both
    /// protocols and their scoreboards; drained at the end.
    System,
    /// One RMPP receive path (node 5 of 16, default parameters), driven by model senders at the
    /// other nodes over a lossy wire and a random upper layer.
    RmppRx,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ReplayBlock {
    /// The idempotent network interface (docs/protocol.md §8).
    Ni,
    /// The RMPP receive path (docs/protocol.md §11).
    RmppRx,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Engine {
    /// The golden model.
    Model,
    /// The Verilated RTL.
    Rtl,
}

#[derive(Subcommand)]
enum Command {
    /// Emit the Verilog of every block (switch and fabric for the given tree).
    Verilog {
        /// Output folder (created if missing).
        #[arg(long)]
        out: PathBuf,
        #[arg(long, default_value_t = 4)]
        k: usize,
        #[arg(long, default_value_t = 2)]
        n: usize,
    },
    /// Co-simulate the Verilated RTL in lockstep with the golden model under seeded random traffic.
    Cosim {
        #[arg(long, value_enum, default_value = "fabric")]
        block: BlockArg,
        #[arg(long, default_value_t = 4)]
        k: usize,
        #[arg(long, default_value_t = 2)]
        n: usize,
        #[arg(long, default_value_t = 100_000)]
        cycles: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Offered load, flits per node (or input) per cycle, 0..=1.
        #[arg(long, default_value_t = 0.5)]
        load: f64,
        /// Write rtl.vcd (Verilator) and model.vcd (golden model) into this folder.
        #[arg(long)]
        vcd: Option<PathBuf>,
        /// Simulate this Verilog file instead of the freshly emitted design (same top and ports).
        #[arg(long)]
        verilog: Option<PathBuf>,
        /// Do not draw a progress bar.
        #[arg(long)]
        quiet: bool,
        #[command(flatten)]
        faults: cmd::FaultArgs,
        #[command(flatten)]
        traffic: cmd::TrafficArgs,
    },
    /// Run the golden model alone (the fast simulator for large experiments).
    Model {
        /// `fabric` (worms, scoreboard) or `system` (NIs, hosts, exactly-once scoreboard).
        #[arg(long, value_enum, default_value = "fabric")]
        block: BlockArg,
        #[arg(long, default_value_t = 4)]
        k: usize,
        #[arg(long, default_value_t = 2)]
        n: usize,
        #[arg(long, default_value_t = 1_000_000)]
        cycles: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long, default_value_t = 0.5)]
        load: f64,
        #[command(flatten)]
        faults: cmd::FaultArgs,
        #[command(flatten)]
        traffic: cmd::TrafficArgs,
    },
    /// Drive one network-interface block from a packet trace (JSON Lines, format in
    /// docs/replay.md) and print what it does, one JSON line per action.
    Replay {
        #[arg(long, value_enum)]
        block: ReplayBlock,
        #[arg(long, value_enum, default_value = "model")]
        engine: Engine,
        trace: PathBuf,
    },
    /// Synthesize, place and route and pack a design for a board, and report its resources and
    /// Fmax (table on stdout, JSON in the build folder).
    Fpga {
        #[arg(long, value_enum)]
        board: Option<fpga::BoardArg>,
        #[arg(long, value_enum)]
        design: Option<fpga::DesignArg>,
        /// Every design (for --board, or for both boards).
        #[arg(long)]
        all: bool,
        /// Clock constraint in MHz (default: the board's oscillator); a design that misses it
        /// makes the exit code 1.
        #[arg(long)]
        freq: Option<f64>,
        /// Stop after synthesis (cell counts only).
        #[arg(long)]
        synth_only: bool,
        /// Build folder.
        #[arg(long, default_value = "build/fpga")]
        out: PathBuf,
    },
    /// Run a board's self-test image (docs/protocol.md §14) under Verilator, its counters checked
    /// against a software scoreboard every cycle and its UART lines decoded.
    Selftest {
        #[arg(long, value_enum, default_value = "ice40-hx8k")]
        board: fpga::BoardArg,
        #[arg(long, default_value_t = 2_000_000)]
        cycles: u64,
        /// A UART line every this many cycles instead of once a second (changes the image).
        #[arg(long)]
        line_every: Option<u32>,
        /// Simulate this Verilog file instead of the emitted image (same top and ports).
        #[arg(long)]
        verilog: Option<PathBuf>,
        /// Write the waveform to this VCD file.
        #[arg(long)]
        vcd: Option<PathBuf>,
    },
    /// Compare two VCD files signal by signal; list the first difference of each signal.
    Wavediff {
        a: PathBuf,
        b: PathBuf,
        /// Scope of A whose signals are compared (default: the scope holding the top's ports).
        #[arg(long)]
        root_a: Option<String>,
        /// Scope of B whose signals are compared.
        #[arg(long)]
        root_b: Option<String>,
    },
}

fn main() -> ExitCode {
    // A panic is a bug of ours, never the user's input: say so in one line, without a backtrace.
    std::panic::set_hook(Box::new(|info| {
        eprintln!("idemnet: internal error (please report): {info}");
    }));
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match dispatch(cli.command) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("idemnet: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn dispatch(command: Command) -> Result<ExitCode> {
    match command {
        Command::Verilog { out, k, n } => cmd::verilog(&out, k, n),
        Command::Cosim {
            block,
            k,
            n,
            cycles,
            seed,
            load,
            vcd,
            verilog,
            quiet,
            faults,
            traffic,
        } => cmd::cosim(
            block,
            k,
            n,
            idemnet_testbench::CosimOptions {
                vcd_dir: vcd,
                verilog,
                drain: faults.drain,
                ..idemnet_testbench::CosimOptions::new(cycles, seed, load)
            },
            faults,
            traffic,
            quiet,
        ),
        Command::Model {
            block,
            k,
            n,
            cycles,
            seed,
            load,
            faults,
            traffic,
        } => match block {
            BlockArg::System => cmd::model_system(k, n, cycles, seed, load, faults, traffic),
            BlockArg::Fabric => cmd::model(k, n, cycles, seed, load),
            other => Err(anyhow::anyhow!(
                "--block {}: `idemnet model` runs the fabric or the system",
                format!("{other:?}").to_lowercase()
            )),
        },
        Command::Replay {
            block,
            engine,
            trace,
        } => cmd::replay(block, engine, &trace),
        Command::Fpga {
            board,
            design,
            all,
            freq,
            synth_only,
            out,
        } => fpga::fpga(board, design, all, freq, synth_only, &out),
        Command::Selftest {
            board,
            cycles,
            line_every,
            verilog,
            vcd,
        } => fpga::selftest(
            board,
            cycles,
            line_every,
            verilog.as_deref(),
            vcd.as_deref(),
        ),
        Command::Wavediff {
            a,
            b,
            root_a,
            root_b,
        } => cmd::wavediff(&a, &b, root_a.as_deref(), root_b.as_deref()),
    }
}
