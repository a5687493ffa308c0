//! `idemnet-flits`: GTKWave's translate filter process for idemnet's flits. GTKWave writes one
//! value per line (hex) and reads one line back; the save files `idemnet cosim --waves` writes
//! attach it to every 35-bit flit signal.

use std::io::{BufRead, Write};

#[path = "../flits.rs"]
mod flits;

fn main() {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { return };
        // GTKWave waits for each answer: a closed pipe ends the filter quietly.
        if writeln!(out, "{}", flits::translate(&line))
            .and_then(|()| out.flush())
            .is_err()
        {
            return;
        }
    }
}
