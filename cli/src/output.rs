//! Everything `idemnet` prints as its result goes through [`print`], so that a closed pipe or a
//! full device is an error the command returns instead of the panic of `print!`.
//!
//! What the errors become (in `main`): a closed pipe (`idemnet model ... | head -1`) ends the
//! program at once and quietly with exit code 141, the code a shell reports for a tool that
//! SIGPIPE stopped, so that no run whose verdict nobody read claims success; any other write
//! error (a full disk: `> /dev/full`) is bad input, exit 2, one line.

use std::fmt;
use std::io::{self, Write};

/// The exit code of a run whose standard output was closed (128 + SIGPIPE).
pub const CLOSED_PIPE_EXIT: u8 = 141;

/// The error of a write to standard output, kept apart so `main` can tell it from the others.
#[derive(Debug)]
pub struct StdoutError(pub io::Error);

impl fmt::Display for StdoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot write to standard output: {}", self.0)
    }
}

impl std::error::Error for StdoutError {}

/// Writes `args` to standard output and flushes it, so that a failure shows here and not in a
/// destructor after the verdict.
pub fn print(args: fmt::Arguments<'_>) -> Result<(), StdoutError> {
    let mut out = io::stdout().lock();
    out.write_fmt(args)
        .and_then(|()| out.flush())
        .map_err(StdoutError)
}

/// `print!` that returns an error instead of panicking.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::output::print(format_args!($($arg)*))
    };
}

/// `println!` that returns an error instead of panicking.
#[macro_export]
macro_rules! outln {
    () => {
        $crate::output::print(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::output::print(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// A standard-output writer for code that streams through `io::Write` (replay's lines): the
/// same errors as [`print`].
pub struct Stdout;

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        io::stdout().lock().write(buf).map_err(named)
    }
    fn flush(&mut self) -> io::Result<()> {
        io::stdout().lock().flush().map_err(named)
    }
}

/// The same kind of error, its message naming standard output.
fn named(e: io::Error) -> io::Error {
    io::Error::new(e.kind(), StdoutError(e))
}

/// Whether an error chain comes from a write to standard output, and of which kind.
pub fn stdout_failure(e: &anyhow::Error) -> Option<io::ErrorKind> {
    e.chain().find_map(|c| {
        c.downcast_ref::<StdoutError>()
            .map(|s| s.0.kind())
            .or_else(|| {
                c.downcast_ref::<io::Error>()
                    .filter(|io| io.get_ref().is_some_and(|i| i.is::<StdoutError>()))
                    .map(io::Error::kind)
            })
    })
}

/// Writes `bytes` to `path` whole or not at all: into a temporary file beside it, then renamed
/// over it, so that an interrupted or failed run never leaves a partial file under the name.
pub fn write_whole(path: &std::path::Path, bytes: &[u8]) -> anyhow::Result<()> {
    use anyhow::Context;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot write {}", path.display()))?;
    tmp.write_all(bytes)
        .and_then(|()| tmp.as_file().sync_all())
        .with_context(|| format!("cannot write {}", path.display()))?;
    tmp.persist(path)
        .map_err(|e| e.error)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// Creates the folder an option names (with its parents), or says in one line why not: a path
/// that exists and is not a folder names itself as such, not as the system's "File exists".
pub fn create_folder(option: &str, path: &std::path::Path) -> anyhow::Result<()> {
    if path.exists() && !path.is_dir() {
        anyhow::bail!("{option} {}: exists and is not a folder", path.display());
    }
    std::fs::create_dir_all(path)
        .map_err(|e| anyhow::anyhow!("{option} {}: cannot create the folder: {e}", path.display()))
}
