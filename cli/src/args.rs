//! The checks every numeric option and every subcommand share, made where the command line is
//! parsed, so that no count reaches a run unbounded and no option is silently ignored.
//!
//! - Cycle counts (`--cycles`, `--drain`) are whole numbers up to [`MAX_CYCLES`]: `--cycles` at
//!   least 1 (a run of no cycles checks nothing), `--drain` from 0. Their sum, the longest a
//!   system run can take, is then far from overflowing a 64-bit cycle counter.
//! - Probabilities and loads (`--load`, `--rmpp-load`, `--loss`, `--corrupt`) are numbers in
//!   0..=1; negative numbers reach these checks (and get their message) instead of being taken
//!   for options.
//! - An option given on the command line that the chosen block does not use is an error
//!   naming it ([`reject_inapplicable`]).

use clap::parser::ValueSource;
use clap::ArgMatches;

/// The longest run a command takes, in cycles: 10^12, about 5 days of the fastest engine (the
/// fabric model at 2.4 million cycles/s).
pub const MAX_CYCLES: u64 = 1_000_000_000_000;

/// `--cycles`: a whole number in `1..=MAX_CYCLES`.
pub fn cycles(s: &str) -> Result<u64, String> {
    bounded(s, 1, MAX_CYCLES)
}

/// `--drain`: a whole number in `0..=MAX_CYCLES`.
pub fn drain(s: &str) -> Result<u64, String> {
    bounded(s, 0, MAX_CYCLES)
}

/// `idemnet fpga --seed`: nextpnr's placement seed, a whole number in `1..=2^31 - 1` (nextpnr
/// reads it as a signed 32-bit integer).
pub fn placer_seed(s: &str) -> Result<u32, String> {
    bounded(s, 1, i32::MAX as u64).map(|v| v as u32)
}

fn bounded(s: &str, low: u64, high: u64) -> Result<u64, String> {
    let range = || format!("must be a whole number from {low} to {high}");
    let v: u64 = s.trim().parse().map_err(|_| range())?;
    if !(low..=high).contains(&v) {
        return Err(range());
    }
    Ok(v)
}

/// A load or a probability: a number in `0..=1`.
pub fn fraction(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err("must be a number from 0 to 1".into()),
    }
}

/// Every option that takes a value accepts one that starts with `-`, so that `--load -0.1` or
/// `--seed -1` reaches the option's own check and its message instead of clap's "unexpected
/// argument '-0'".
pub fn negative_values_reach_parsers(root: clap::Command) -> clap::Command {
    let names: Vec<String> = root
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    names.iter().fold(root, |root, name| {
        root.mut_subcommand(name, |sub| {
            let ids: Vec<clap::Id> = sub
                .get_arguments()
                .filter(|a| a.get_long().is_some() && a.get_action().takes_values())
                .map(|a| a.get_id().clone())
                .collect();
            ids.into_iter().fold(sub, |sub, id| {
                sub.mut_arg(id, |a| a.allow_negative_numbers(true))
            })
        })
    })
}

/// One line for a command-line error of clap's: its first line, without clap's `error: `, and
/// where to read more. `None` for `--help` and `--version`, which are not errors.
pub fn one_line(e: &clap::Error) -> Option<String> {
    if !e.use_stderr() {
        return None;
    }
    let text = e.render().to_string();
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or("bad arguments");
    let first = first.strip_prefix("error: ").unwrap_or(first);
    // "the following required arguments were not provided:" names them on the next line.
    let named = match (first.ends_with(':'), lines.next()) {
        (true, Some(next)) => format!("{first} {next}"),
        _ => first.to_string(),
    };
    Some(format!("{named} (see idemnet --help)"))
}

/// The options of `sub` (the matches of one subcommand) that were given on the command line
/// but that `applies` says the run does not use: an error naming the first, with `why`.
pub fn reject_inapplicable(
    command: &clap::Command,
    sub: &ArgMatches,
    applies: impl Fn(&str) -> bool,
    why: &str,
) -> anyhow::Result<()> {
    for arg in command.get_arguments() {
        let id = arg.get_id().as_str();
        if sub.value_source(id) == Some(ValueSource::CommandLine) && !applies(id) {
            let name = arg
                .get_long()
                .map(|l| format!("--{l}"))
                .unwrap_or_else(|| id.to_string());
            anyhow::bail!("{name} does not apply here: {why}");
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_are_named_and_hold() {
        assert_eq!(cycles("1"), Ok(1));
        assert_eq!(cycles("1000000000000"), Ok(MAX_CYCLES));
        for bad in [
            "0",
            "1000000000001",
            "18446744073709551615",
            "-1",
            "1e6",
            "",
            "x",
        ] {
            let e = cycles(bad).unwrap_err();
            assert!(e.contains("1 to 1000000000000"), "{bad}: {e}");
        }
        assert_eq!(drain("0"), Ok(0));
        assert!(drain("18446744073709551615").is_err());
        assert_eq!(fraction("0.25"), Ok(0.25));
        for bad in ["-0.1", "1.5", "NaN", "inf", "-inf", ""] {
            assert!(fraction(bad).is_err(), "{bad}");
        }
        assert!(MAX_CYCLES.checked_add(MAX_CYCLES).is_some());
    }
}

/// How a run's waveforms are written: format and window (`cosim`, `selftest`; each has its own
/// `--vcd DIR`).
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct WaveShape {
    /// The waveforms' format: vcd, or fst (GTKWave's compressed format, several times smaller;
    /// Verilator's FST writer for the RTL, a separate cached build).
    #[arg(long, value_enum, default_value = "vcd")]
    pub wave: crate::cmd::WaveFormat,
    /// Waveforms from this cycle on (the run is the same; only the waveform is cut).
    #[arg(long, requires = "vcd", value_name = "CYCLE")]
    pub trace_from: Option<u64>,
    /// Waveforms up to this cycle, included.
    #[arg(long, requires = "vcd", value_name = "CYCLE")]
    pub trace_to: Option<u64>,
}

impl WaveShape {
    /// The waveforms into `dir` (none without it), no re-run on a mismatch.
    pub fn waves(&self, dir: Option<std::path::PathBuf>) -> anyhow::Result<crate::cmd::Waves> {
        Ok(crate::cmd::Waves {
            dir,
            window: crate::cmd::window(self.trace_from, self.trace_to)?,
            on_mismatch: None,
            fst: self.wave == crate::cmd::WaveFormat::Fst,
        })
    }
}
