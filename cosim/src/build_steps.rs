//! The tools of a Verilator build, and what a failed or killed build leaves behind.
//!
//! A tool that fails (Verilator, the C++ compiler, the linker) becomes a [`StepFailure`]: its
//! first error line for the message and its whole output for a log file that outlives the
//! temporary build folder, which the message names. A build that was killed leaves its
//! temporary folder (and a shared runtime object being written) in the cache; names carry the
//! builder's process id, and [`remove_stale`] removes the ones whose process is gone.

use std::fmt;
use std::fs;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, SystemTime};

use anyhow::Result;

use crate::tool_output;

/// A build tool that ran and failed.
#[derive(Debug)]
pub(crate) struct StepFailure {
    pub tool: String,
    /// The tool's first error line (Verilator: `%Error...` or `%Warning...`; a compiler:
    /// `...: error: ...`), else its first line of output.
    pub first: String,
    /// The command, its exit status and everything it printed.
    pub log: String,
}

impl fmt::Display for StepFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} failed: {}", self.tool, self.first)
    }
}

impl std::error::Error for StepFailure {}

/// Runs `cmd` (`tool`, doing `what`); a failure is a [`StepFailure`].
pub(crate) fn run_step(tool: &str, cmd: &mut Command, what: &str) -> Result<Output> {
    let out = tool_output(tool, cmd, what)?;
    if out.status.success() {
        return Ok(out);
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let first = first_error(&stderr)
        .or_else(|| first_error(&stdout))
        .unwrap_or_else(|| format!("{what}: {}", out.status));
    let log = format!(
        "{what}\n$ {cmd:?}\n{}\n--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}",
        out.status
    );
    Err(StepFailure {
        tool: tool.to_string(),
        first,
        log,
    }
    .into())
}

/// The line that says what went wrong first: Verilator's first `%Error` or `%Warning` (its
/// closing "Exiting due to" summary is not one), a compiler's first `error:`, else the first
/// line with text.
fn first_error(output: &str) -> Option<String> {
    let lines = || output.lines().map(str::trim).filter(|l| !l.is_empty());
    lines()
        .find(|l| {
            (l.starts_with("%Error") || l.starts_with("%Warning"))
                && !l.starts_with("%Error: Exiting due to")
        })
        .or_else(|| lines().find(|l| l.contains("error:")))
        .or_else(|| lines().next())
        .map(str::to_string)
}

/// Verilator's `%Error: FILE:LINE:COL: text` (or `%Warning-TAG: ...`) as
/// `FILE:LINE:COL: Error: text`, the way compilers write it, when `FILE` is `file`.
pub(crate) fn compiler_style(line: &str, file: &str) -> String {
    let Some((severity, rest)) = line.strip_prefix('%').and_then(|l| l.split_once(": ")) else {
        return line.to_string();
    };
    let Some(after) = rest.strip_prefix(file).and_then(|r| r.strip_prefix(':')) else {
        return format!("{severity}: {rest}");
    };
    // LINE:COL: or LINE: follows the file name.
    let mut at = file.len() + 1;
    let mut numbers = 0;
    for part in after.split_inclusive(':') {
        let digits = part.trim_end_matches(':');
        if numbers == 2 || !part.ends_with(':') || digits.is_empty() {
            break;
        }
        if !digits.bytes().all(|c| c.is_ascii_digit()) {
            break;
        }
        at += part.len();
        numbers += 1;
    }
    if numbers == 0 {
        return format!("{severity}: {rest}");
    }
    format!(
        "{}: {severity}: {}",
        &rest[..at - 1],
        rest[at..].trim_start()
    )
}

/// Whether process `pid` runs (on this machine). A process of another user counts as running.
fn alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 only asks whether the process exists.
    if unsafe { libc::kill(pid, 0) } == 0 {
        return true;
    }
    std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// The process id in a temporary name `….tmp-PID-N`, if the name is one.
fn builder_pid(name: &str) -> Option<u32> {
    let (_, tail) = name.rsplit_once(".tmp-")?;
    let (pid, n) = tail.split_once('-')?;
    if n.is_empty() || !n.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok()
}

/// How long a temporary entry of a running process may stay: a process id can be reused, and
/// no build takes a day.
const STALE_AGE: Duration = Duration::from_secs(24 * 3600);

/// Removes what killed builds left in the Verilator cache `cache`: its temporary build folders
/// and the runtime objects being written in its `verilated-rt-*` folders.
pub(crate) fn remove_stale_builds(cache: &Path) {
    remove_stale(cache);
    let Ok(entries) = fs::read_dir(cache) else {
        return;
    };
    for e in entries.flatten() {
        if e.file_name().to_string_lossy().starts_with("verilated-rt-") && e.path().is_dir() {
            remove_stale(&e.path());
        }
    }
}

/// Removes the temporary entries (`….tmp-PID-N`) in `dir` whose builder is gone, or that are
/// older than a day; files and folders alike. Anything that cannot be removed stays.
fn remove_stale(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(builder_pid) else {
            continue;
        };
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| SystemTime::now().duration_since(t).ok())
            .is_some_and(|age| age > STALE_AGE);
        if old || !alive(pid) {
            let p = e.path();
            let _ = if p.is_dir() {
                fs::remove_dir_all(&p)
            } else {
                fs::remove_file(&p)
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verilator_lines_in_compiler_style() {
        let f = "/u/bad.v";
        assert_eq!(
            compiler_style("%Error: /u/bad.v:3:14: syntax error, unexpected ';'", f),
            "/u/bad.v:3:14: Error: syntax error, unexpected ';'"
        );
        assert_eq!(
            compiler_style(
                "%Warning-WIDTH: /u/bad.v:2:29: Operator ASSIGNDLY expects 2 bits",
                f
            ),
            "/u/bad.v:2:29: Warning-WIDTH: Operator ASSIGNDLY expects 2 bits"
        );
        assert_eq!(
            compiler_style("%Error: Cannot find file containing module: 'x'", f),
            "Error: Cannot find file containing module: 'x'"
        );
        assert_eq!(compiler_style("plain text", f), "plain text");
    }

    #[test]
    fn first_error_skips_the_summary() {
        let out = "%Warning-WIDTH: a.v:1:2: w\n%Error: Exiting due to 1 warning(s)\n";
        assert_eq!(first_error(out).unwrap(), "%Warning-WIDTH: a.v:1:2: w");
        let out = "In file included from x.h:1,\nshim.cpp:9:3: error: 'y' was not declared\n";
        assert_eq!(
            first_error(out).unwrap(),
            "shim.cpp:9:3: error: 'y' was not declared"
        );
        assert_eq!(first_error(" \n"), None);
    }

    #[test]
    fn temporary_names() {
        assert_eq!(builder_pid(".top-0123.tmp-671-0"), Some(671));
        assert_eq!(builder_pid("verilated.o.tmp-42-7"), Some(42));
        assert_eq!(builder_pid("top-0123"), None);
        assert_eq!(builder_pid(".top-failed"), None);
        assert!(alive(std::process::id()));
        let mut child = Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        assert!(!alive(pid));
    }
}
