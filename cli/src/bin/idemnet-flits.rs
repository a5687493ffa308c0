//! `idemnet-flits`: GTKWave's translate filter process and transaction filter process for
//! idemnet's flits (see `flits.rs`). The save files `idemnet cosim --waves` writes attach it to
//! every 35-bit flit signal. GTKWave waits for each answer, so every answer is flushed; a
//! closed pipe ends the filter quietly.

use std::io::{BufRead, Write};

#[path = "../flits.rs"]
mod flits;

fn main() {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    let mut request: Option<String> = None;
    for line in stdin.lock().lines() {
        let Ok(line) = line else { return };
        let answer = match request.as_mut() {
            None if line.starts_with(flits::REQUEST_START) => {
                request = Some(line + "\n");
                continue;
            }
            None => flits::translate(&line) + "\n",
            Some(r) => {
                r.push_str(&line);
                r.push('\n');
                if !line.starts_with(flits::REQUEST_END) {
                    continue;
                }
                let answer = flits::transactions(r);
                request = None;
                answer
            }
        };
        if out
            .write_all(answer.as_bytes())
            .and_then(|()| out.flush())
            .is_err()
        {
            return;
        }
    }
}
