//! `idemnet`: the one command for everything a user of idemnet runs.
//!
//! Exit codes: 0 success; 1 the run worked but found a difference (a co-simulation mismatch, a
//! scoreboard error, two waveforms that differ); 2 bad input (arguments, files, configuration) or
//! a missing tool, always with a message naming what was wrong.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};

mod args;
mod cmd;
mod fpga;
mod gtkw;
mod output;
mod progress;
mod results;
mod sweep;

/// The version line: the crate's version and the commit it was built from.
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("IDEMNET_COMMIT"),
    ")"
);

#[derive(Parser)]
#[command(
    name = "idemnet",
    version = VERSION,
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
    #[command(
        after_help = "Example: idemnet verilog --out v && verilator --lint-only -Wall v/switch.v"
    )]
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
    #[command(
        after_help = "Examples:\n  idemnet cosim --block fabric --cycles 100000 --seed 3 --vcd waves\n  idemnet cosim --block system --protocol both --loss 0.001 --cycles 200000 --json run.json"
    )]
    Cosim {
        #[arg(long, value_enum, default_value = "fabric")]
        block: BlockArg,
        #[arg(long, default_value_t = 4)]
        k: usize,
        #[arg(long, default_value_t = 2)]
        n: usize,
        /// Cycles of traffic, 1 to 10^12 (the system then drains: --drain).
        #[arg(long, default_value_t = 100_000, value_parser = args::cycles)]
        cycles: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Offered load, flits per node (or input) per cycle, 0..=1.
        #[arg(long, default_value_t = 0.5, value_parser = args::fraction)]
        load: f64,
        /// Write rtl.vcd (Verilator) and model.vcd (golden model) into this folder (rtl.fst and
        /// model.fst with --wave fst).
        #[arg(long, visible_alias = "waves", value_name = "DIR")]
        vcd: Option<PathBuf>,
        #[command(flatten)]
        shape: args::WaveShape,
        /// Without --vcd, a mismatch re-runs the same seed and writes the waveforms of its last
        /// 500 cycles into this folder (rtl.vcd, model.vcd; open them with `idemnet wave DIR`).
        #[arg(long, value_name = "DIR", default_value = "mismatch-waves")]
        mismatch_waves: PathBuf,
        /// Simulate this Verilog file instead of the freshly emitted design (same top and ports).
        #[arg(long)]
        verilog: Option<PathBuf>,
        /// Do not draw a progress bar.
        #[arg(long)]
        quiet: bool,
        /// Also write every figure of the summary, with the command, version, seed and
        /// configuration, to this JSON file (schema idemnet-run/1, docs/results.md).
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        #[command(flatten)]
        faults: cmd::FaultArgs,
        #[command(flatten)]
        traffic: cmd::TrafficArgs,
        #[command(flatten)]
        ni: cmd::NiArgs,
    },
    /// Run the golden model alone (the fast simulator for large experiments).
    #[command(
        after_help = "Examples:\n  idemnet model --block fabric --load 1.0 --cycles 1000000\n  idemnet model --block system --protocol rmpp --rmpp-load 0.01 --to-one 5 --json run.json"
    )]
    Model {
        /// `fabric` (worms, scoreboard), `ni` (one NI and its peers, which judge what its host
        /// sees) or `system` (NIs, hosts, exactly-once scoreboard).
        #[arg(long, value_enum, default_value = "fabric")]
        block: BlockArg,
        #[arg(long, default_value_t = 4)]
        k: usize,
        #[arg(long, default_value_t = 2)]
        n: usize,
        /// Cycles of traffic, 1 to 10^12 (the system then drains: --drain).
        #[arg(long, default_value_t = 1_000_000, value_parser = args::cycles)]
        cycles: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Offered load, flits per node per cycle, 0..=1.
        #[arg(long, default_value_t = 0.5, value_parser = args::fraction)]
        load: f64,
        /// Also write every figure of the summary, with the command, version, seed and
        /// configuration, to this JSON file (schema idemnet-run/1, docs/results.md).
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        #[command(flatten)]
        faults: cmd::FaultArgs,
        #[command(flatten)]
        traffic: cmd::TrafficArgs,
        #[command(flatten)]
        ni: cmd::NiArgs,
    },
    /// Drive one network-interface block from a packet trace (JSON Lines, format in
    /// docs/replay.md) and print what it does, one JSON line per action.
    #[command(
        after_help = "Example: idemnet replay --block ni --engine rtl testbench/traces/ni-send.jsonl"
    )]
    Replay {
        #[arg(long, value_enum)]
        block: ReplayBlock,
        #[arg(long, value_enum, default_value = "model")]
        engine: Engine,
        trace: PathBuf,
    },
    /// Synthesize, place and route and pack a design for a board, and report its resources and
    /// Fmax (table on stdout, JSON in the build folder).
    #[command(
        after_help = "Examples:\n  idemnet fpga --board ice40-hx8k --design selftest --freq 100\n  idemnet fpga --board ecp5-85k --all"
    )]
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
        /// nextpnr's placement seed, 1 to 2^31 - 1: one netlist's Fmax spreads over seeds by
        /// several MHz, and a seed reproduces its run.
        #[arg(long, default_value_t = idemnet_fpga::flow::DEFAULT_PLACER_SEED, value_parser = args::placer_seed)]
        seed: u32,
        /// Build folder.
        #[arg(long, default_value = "build/fpga")]
        out: PathBuf,
    },
    /// Run a board's self-test image (docs/protocol.md §14) under Verilator, its counters checked
    /// against a software scoreboard every cycle and its UART lines decoded.
    #[command(
        after_help = "Example: idemnet selftest --board ecp5-85k --cycles 2000000 --json selftest.json"
    )]
    Selftest {
        #[arg(long, value_enum, default_value = "ice40-hx8k")]
        board: fpga::BoardArg,
        /// Cycles to run, 1 to 10^12.
        #[arg(long, default_value_t = 2_000_000, value_parser = args::cycles)]
        cycles: u64,
        /// A UART line every this many cycles instead of once a second (changes the image).
        #[arg(long)]
        line_every: Option<u32>,
        /// Simulate this Verilog file instead of the emitted image (same top and ports).
        #[arg(long)]
        verilog: Option<PathBuf>,
        /// Write the image's waveform, selftest.vcd (selftest.fst with --wave fst), and its
        /// GTKWave save file selftest.gtkw into this folder.
        #[arg(long, visible_alias = "waves", value_name = "DIR")]
        vcd: Option<PathBuf>,
        #[command(flatten)]
        shape: args::WaveShape,
        /// Also write the counters, the scoreboard's and the run's figures to this JSON file
        /// (schema idemnet-run/1, docs/results.md).
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
    },
    /// Run the system's golden model over a grid of offered loads, flit losses, traffic
    /// patterns, protocols and seeds on every core; write a CSV row per run, a JSON summary and
    /// plots (docs/results.md).
    #[command(
        after_help = "Examples:\n  idemnet sweep --out sweep\n  idemnet sweep --out s --protocols idempotent --patterns uniform --loads 0.1,0.3 --losses none"
    )]
    Sweep(sweep::SweepArgs),
    /// Compare two waveform files (VCD or FST, in any pair) signal by signal; list the first
    /// difference of each signal.
    #[command(after_help = "Example: idemnet wavediff waves/model.vcd waves/rtl.vcd")]
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
    /// Open a run's waveforms, the golden model's and the RTL's, side by side in GTKWave
    /// (`twinwave DIR/model.vcd + DIR/rtl.vcd`); it returns when GTKWave is closed.
    #[command(after_help = "Example: idemnet wave mismatch-waves")]
    Wave {
        /// A folder with model.vcd and rtl.vcd (`cosim --vcd DIR`, or the waveforms a mismatch
        /// left).
        dir: PathBuf,
        /// Print the command instead of running it.
        #[arg(long)]
        print: bool,
    },
    /// Print a shell completion script to standard output.
    #[command(
        after_help = "Example: idemnet completions bash > ~/.local/share/bash-completion/completions/idemnet"
    )]
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Write the man pages, idemnet.1 and one per subcommand (idemnet-cosim.1, ...), into a
    /// folder.
    #[command(after_help = "Example: idemnet manpages --out man && man -l man/idemnet.1")]
    Manpages {
        /// Output folder (created if missing).
        #[arg(long)]
        out: PathBuf,
    },
}

fn main() -> ExitCode {
    // A panic is a bug of ours, never the user's input: say so in one line, without a backtrace.
    std::panic::set_hook(Box::new(|info| {
        eprintln!("idemnet: internal error (please report): {info}");
    }));
    let command = match parse(std::env::args_os()) {
        Ok(command) => command,
        Err(Parsed::Shown) => return ExitCode::SUCCESS,
        Err(Parsed::Bad(line)) => {
            eprintln!("idemnet: error: {line}");
            return ExitCode::from(2);
        }
    };
    idemnet_cosim::verilator::on_build_stage(progress::verilator_stage);
    match dispatch(command) {
        Ok(code) => code,
        Err(e) => match output::stdout_failure(&e) {
            Some(std::io::ErrorKind::BrokenPipe) => ExitCode::from(output::CLOSED_PIPE_EXIT),
            _ => {
                eprintln!("idemnet: error: {e:#}");
                ExitCode::from(2)
            }
        },
    }
}

/// Why [`parse`] gave no command: help or version shown (exit 0), or a bad command line (one
/// line for the user, exit 2).
#[derive(Debug)]
enum Parsed {
    Shown,
    Bad(String),
}

/// The command of a command line, every option checked: its value (ranges, numbers) and that
/// the chosen block uses it. Nothing runs here, so any input may be thrown at it.
fn parse<I, T>(argv: I) -> std::result::Result<Command, Parsed>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let clap_error = |e: clap::Error| match args::one_line(&e) {
        None => {
            let _ = e.print();
            Parsed::Shown
        }
        Some(line) => Parsed::Bad(line),
    };
    let mut root = args::negative_values_reach_parsers(Cli::command());
    let matches = root.try_get_matches_from_mut(argv).map_err(clap_error)?;
    let cli = Cli::from_arg_matches(&matches).map_err(clap_error)?;
    if let Some((name, sub)) = matches.subcommand() {
        let spec = root
            .find_subcommand(name)
            .ok_or_else(|| Parsed::Bad(format!("no subcommand {name}")))?;
        check_applicable(&cli.command, spec, sub).map_err(|e| Parsed::Bad(format!("{e:#}")))?;
    }
    cmd::validate(&cli.command).map_err(|e| Parsed::Bad(format!("{e:#}")))?;
    Ok(cli.command)
}

/// The options only the system uses: faults, the drain and the traffic of both protocols.
const SYSTEM_ONLY: &[&str] = &[
    "loss",
    "corrupt",
    "dead_link",
    "drain",
    "protocol",
    "rmpp_load",
    "max_len",
    "dgram_len",
    "to_one",
    "rmpp_in_order",
];

/// The idempotent NI's parameters: the system's NIs and `--block ni` take them.
const NI_OPTIONS: &[&str] = &[
    "send_slots",
    "recv_slots",
    "retry_interval",
    "retry_spread",
    "ack_interval",
];

/// An option given for a block that does not use it is an error naming it, never ignored.
fn check_applicable(command: &Command, spec: &clap::Command, sub: &ArgMatches) -> Result<()> {
    let Some(run) = command.run_settings() else {
        return Ok(());
    };
    let (block, model) = (run.block, !run.rtl);
    let system_only = |id: &str| !SYSTEM_ONLY.contains(&id);
    let not_ni = |id: &str| !NI_OPTIONS.contains(&id);
    match block {
        BlockArg::System => Ok(()),
        BlockArg::Router | BlockArg::Fabric => args::reject_inapplicable(
            spec,
            sub,
            |id| system_only(id) && not_ni(id),
            "the fault, drain and traffic options apply to --block system, the NI's options \
             to --block system and --block ni",
        ),
        BlockArg::RmppRx if model => args::reject_inapplicable(
            spec,
            sub,
            not_ni,
            "the NI's options apply to --block system and --block ni",
        ),
        // The receive path alone's senders are the model's, and accept selectively with it.
        BlockArg::RmppRx => args::reject_inapplicable(
            spec,
            sub,
            |id| (system_only(id) || id == "rmpp_in_order") && not_ni(id) && id != "k" && id != "n",
            "--block rmpp-rx runs one block of the 16-node machine (no --k, --n), the fault, \
             drain and traffic options but --rmpp-in-order apply to --block system, and the \
             NI's options to --block system and --block ni",
        ),
        BlockArg::Ni => args::reject_inapplicable(
            spec,
            sub,
            |id| system_only(id) && id != "k" && id != "n",
            "--block ni and --block rmpp-rx run one block of the 16-node machine (no --k, --n), \
             and the fault, drain and traffic options apply to --block system",
        ),
    }
}

fn dispatch(command: Command) -> Result<ExitCode> {
    match &command {
        Command::Verilog { out, k, n } => cmd::verilog(out, *k, *n),
        Command::Cosim {
            ref vcd,
            shape,
            ref mismatch_waves,
            ref verilog,
            quiet,
            ref json,
            ..
        } => {
            let run = command.run_settings().expect("cosim has run settings");
            let waves = cmd::Waves {
                on_mismatch: Some(mismatch_waves.clone()),
                ..shape.waves(vcd.clone())?
            };
            cmd::cosim(run, waves, verilog.clone(), *quiet, json.as_deref())
        }
        Command::Model {
            block, ref json, ..
        } => {
            let run = command.run_settings().expect("model has run settings");
            let json = json.as_deref();
            match block {
                BlockArg::System => cmd::model_system(run, json),
                BlockArg::Ni => cmd::model_ni(run, json),
                _ => cmd::model(run, json),
            }
        }
        Command::Replay {
            block,
            engine,
            trace,
        } => cmd::replay(*block, *engine, trace),
        Command::Fpga {
            board,
            design,
            all,
            freq,
            synth_only,
            seed,
            out,
        } => fpga::fpga(*board, *design, *all, *freq, *synth_only, *seed, out),
        Command::Selftest {
            board,
            cycles,
            line_every,
            verilog,
            vcd,
            shape,
            json,
        } => {
            let waves = shape.waves(vcd.clone())?;
            fpga::selftest(
                *board,
                *cycles,
                *line_every,
                verilog.as_deref(),
                waves,
                json.as_deref(),
            )
        }
        Command::Sweep(a) => sweep::sweep(a),
        Command::Completions { shell } => {
            let mut cli = Cli::command();
            let mut text = Vec::new();
            clap_complete::generate(*shell, &mut cli, "idemnet", &mut text);
            out!("{}", String::from_utf8_lossy(&text))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Manpages { out } => manpages(out),
        Command::Wave { dir, print } => cmd::wave(dir, *print),
        Command::Wavediff {
            a,
            b,
            root_a,
            root_b,
        } => cmd::wavediff(a, b, root_a.as_deref(), root_b.as_deref()),
    }
}

/// `idemnet manpages`: the root page and one per subcommand, named as `man` looks them up.
fn manpages(out: &std::path::Path) -> Result<ExitCode> {
    use anyhow::Context;
    output::create_folder("--out", out)?;
    let root = Cli::command();
    let mut pages = vec![("idemnet".to_string(), root.clone())];
    for sub in root.get_subcommands() {
        let name = format!("idemnet-{}", sub.get_name());
        // clap names commands by `&'static str` (without its `string` feature); these few
        // strings live as long as the process anyway.
        let page_name: &'static str = Box::leak(name.clone().into_boxed_str());
        pages.push((name, sub.clone().name(page_name)));
    }
    for (name, command) in pages {
        let mut page = Vec::new();
        clap_mangen::Man::new(command).render(&mut page)?;
        let f = out.join(format!("{name}.1"));
        std::fs::write(&f, page).with_context(|| f.display().to_string())?;
        outln!("{}", f.display())?;
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every option of the runs that takes a number, with its subcommand.
    const NUMERIC: &[(&str, &str)] = &[
        ("cosim", "--cycles"),
        ("cosim", "--seed"),
        ("cosim", "--load"),
        ("cosim", "--k"),
        ("cosim", "--n"),
        ("model", "--cycles"),
        ("model", "--load"),
        ("model", "--k"),
        ("model", "--n"),
        ("verilog", "--k"),
        ("verilog", "--n"),
        ("selftest", "--cycles"),
        ("selftest", "--line-every"),
        ("fpga", "--freq"),
        ("sweep", "--cycles"),
        ("sweep", "--drain"),
        ("sweep", "--seeds"),
        ("sweep", "--loads"),
        ("sweep", "--losses"),
        ("sweep", "--loss-load"),
        ("sweep", "--max-len"),
        ("sweep", "--jobs"),
        ("sweep", "--k"),
    ];
    /// The system's numeric options, given with `--block system`.
    const SYSTEM_NUMERIC: &[&str] = &[
        "--loss",
        "--corrupt",
        "--drain",
        "--rmpp-load",
        "--max-len",
        "--to-one",
        "--dead-link",
    ];

    fn value() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<i128>().prop_map(|v| v.to_string()),
            any::<u64>().prop_map(|v| v.to_string()),
            any::<f64>().prop_map(|v| v.to_string()),
            (0.0..1.0f64).prop_map(|v| v.to_string()),
            (0u64..20).prop_map(|v| v.to_string()),
            "[-+0-9.eE:x_ ]{0,24}",
            ".{0,12}",
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

        /// Parsing and checking any numeric value never panics, and what passes is in range.
        #[test]
        fn numeric_arguments_are_checked_without_panic(
            which in 0..NUMERIC.len() + SYSTEM_NUMERIC.len(),
            v in value(),
            second in value(),
        ) {
            let mut argv = vec!["idemnet".to_string()];
            if which < NUMERIC.len() {
                let (sub, opt) = NUMERIC[which];
                argv.extend([sub.to_string(), opt.to_string(), v]);
                if sub == "verilog" {
                    argv.extend(["--out".into(), "unused".into()]);
                }
                if sub == "fpga" {
                    argv.extend(["--board".into(), "ice40-hx8k".into(), "--design".into(), "switch".into()]);
                }
            } else {
                let opt = SYSTEM_NUMERIC[which - NUMERIC.len()];
                argv.extend(["model", "--block", "system", opt].map(String::from));
                argv.extend([v, "--cycles".into(), second]);
            }
            if let Ok(command) = parse(argv.clone()) {
                match command {
                    Command::Cosim { cycles, load, .. } | Command::Model { cycles, load, .. } => {
                        prop_assert!((1..=args::MAX_CYCLES).contains(&cycles), "{argv:?}");
                        prop_assert!((0.0..=1.0).contains(&load), "{argv:?}");
                    }
                    Command::Selftest { cycles, .. } => {
                        prop_assert!((1..=args::MAX_CYCLES).contains(&cycles), "{argv:?}");
                    }
                    Command::Sweep(a) => {
                        prop_assert!((1..=args::MAX_CYCLES).contains(&a.cycles), "{argv:?}");
                        for l in a.loads.iter().chain(&a.losses).chain([&a.loss_load]) {
                            prop_assert!((0.0..=1.0).contains(l), "{argv:?}");
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    #[test]
    fn bad_command_lines_get_one_line_naming_the_option() {
        let bad =
            |argv: &[&str]| match parse(std::iter::once("idemnet").chain(argv.iter().copied())) {
                Err(Parsed::Bad(line)) => line,
                Err(Parsed::Shown) => panic!("{argv:?}: help shown"),
                Ok(_) => panic!("{argv:?}: accepted"),
            };
        for (argv, needle) in [
            (&["cosim", "--load", "-0.1"][..], "--load"),
            (&["cosim", "--seed", "-1"], "--seed"),
            (&["cosim", "--cycles", "0"], "1 to 1000000000000"),
            (
                &[
                    "cosim",
                    "--block",
                    "system",
                    "--drain",
                    "18446744073709551615",
                ],
                "--drain",
            ),
            (
                &["cosim", "--block", "ni", "--k", "3", "--n", "0"],
                "--k does not apply",
            ),
            (
                &["model", "--block", "fabric", "--loss", "0.1"],
                "--loss does not apply",
            ),
            (
                &["cosim", "--block", "router", "--protocol", "both"],
                "--protocol does not apply",
            ),
            (
                &["verilog", "--out", "x", "--k", "2", "--n", "16"],
                "MB of Verilog",
            ),
            (
                &["model", "--block", "system", "--k", "2", "--n", "16"],
                "at most 256",
            ),
            (
                &["model", "--block", "rmpp-rx"],
                "runs the fabric, the NI or the system",
            ),
            (
                &["model", "--block", "ni", "--k", "2"],
                "--k does not apply",
            ),
        ] {
            let line = bad(argv);
            assert!(line.contains(needle), "{argv:?}: {line}");
            assert!(!line.contains('\n'), "{argv:?}: more than one line: {line}");
        }
        // What the documentation allows is taken: 64 nodes for every engine.
        for argv in [
            &["verilog", "--out", "x", "--k", "4", "--n", "3"][..],
            &["cosim", "--block", "system", "--k", "8", "--n", "2"],
            &[
                "model",
                "--block",
                "system",
                "--k",
                "4",
                "--n",
                "3",
                "--dead-link",
                "0:1",
            ],
        ] {
            assert!(
                parse(std::iter::once("idemnet").chain(argv.iter().copied())).is_ok(),
                "{argv:?}"
            );
        }
    }
}
