//! Feedback on long work, on standard error so that it never mixes with the results: a bar on a
//! terminal, and in a log (standard error not a terminal) a plain line every
//! [`PLAIN_LINE_EVERY`] with the rate and the time left; nothing with `--quiet`. Verilator builds
//! tell their stages through [`verilator_stage`].

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{HumanCount, HumanDuration, ProgressBar, ProgressStyle};

/// How often a log gets a line about a run in progress.
pub const PLAIN_LINE_EVERY: Duration = Duration::from_secs(10);

/// Progress through the cycles of one run.
pub struct Progress {
    what: String,
    total: u64,
    /// The first report of the run and the cycles it gave: rates count from there, so that a
    /// Verilator build or a set-up before the first cycle is not taken for slow simulation.
    first: Option<(Instant, u64)>,
    bar: Option<ProgressBar>,
    /// In a log: whether lines are written (not when quiet), and when the next one is due.
    log: bool,
    next_line: Option<Instant>,
}

impl Progress {
    /// `what` (`cosim`, `model`, `selftest`) through `total` cycles.
    pub fn cycles(what: &str, total: u64, quiet: bool) -> Progress {
        let terminal = std::io::stderr().is_terminal();
        let bar = (!quiet && terminal).then(|| {
            let pb = ProgressBar::new(total);
            pb.set_style(
                ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:40}] {human_pos}/{human_len} cycles, {per_sec}, {eta} left",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            pb
        });
        Progress {
            what: what.to_string(),
            total,
            first: None,
            bar,
            log: !quiet && !terminal,
            next_line: None,
        }
    }

    /// `done` cycles are done.
    pub fn set(&mut self, done: u64) {
        if let Some(pb) = &self.bar {
            if self.first.is_none() {
                // The bar's own clock starts with the simulation, not with the build.
                pb.reset();
                self.first = Some((Instant::now(), done));
            }
            pb.set_position(done);
            return;
        }
        if !self.log {
            return;
        }
        let now = Instant::now();
        let &mut (start, start_done) = self.first.get_or_insert((now, done));
        let due = *self.next_line.get_or_insert(now + PLAIN_LINE_EVERY);
        if now < due || done <= start_done {
            return;
        }
        let rate = (done - start_done) as f64 / (now - start).as_secs_f64();
        // The run may go on past `total` (a system's drain), for as long as it takes.
        let at = match self.total.checked_sub(done) {
            Some(rest) if rest > 0 => format!(
                "{}/{} cycles ({:.0} %), about {} left",
                HumanCount(done),
                HumanCount(self.total),
                100.0 * done as f64 / self.total as f64,
                HumanDuration(Duration::from_secs_f64(rest as f64 / rate))
            ),
            _ => format!(
                "{} cycles, draining after {}",
                HumanCount(done),
                HumanCount(self.total)
            ),
        };
        eprintln!(
            "idemnet {}: {at}, {} cycles/s",
            self.what,
            HumanCount(rate as u64)
        );
        self.next_line = Some(now + PLAIN_LINE_EVERY);
    }

    pub fn finish(self) {
        if let Some(pb) = self.bar {
            pb.finish_and_clear();
        }
    }
}

/// A stage of a Verilator build (the library's hook, `idemnet_cosim::on_build_stage`): one line
/// each, also in a log, since a build of the system takes minutes.
pub fn verilator_stage(line: &str) {
    eprintln!("idemnet: Verilator build: {line}");
}
