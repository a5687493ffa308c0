//! Signal-by-signal comparison of two waveform files (read with `wellen`).
//!
//! Each file has a root scope: given explicitly (`"TOP"`, `"idemnet_tb.dut"`, dotted path) or,
//! by default, the first scope in breadth-first order that directly holds variables (Verilator:
//! `TOP`; the model's `PortVcd`: `TOP`; [`crate::run_icarus`]: `idemnet_tb.dut`). Signals are
//! named relative to their root; by default only the root's own variables (the top-level ports
//! and `clock`) are compared, with [`DiffOptions::deep`] every variable below the root as well.
//!
//! Values are compared as bit strings (`0 1 x z ...` as the file has them, so `x` differs from
//! `0`) at every time either file has a change, up to the end of the shorter file; before its
//! first change a signal is all `x`. Times are normalised to the finer of the two timescales
//! and reported in ns (`cycle = time / 10`, docs/protocol.md §1).
//!
//! Two files are equal only if they hold the same signals under their roots, cover the same
//! time span (from the first time stamp at which a compared signal holds a value, not `x`, to
//! the last time stamp) and no compared signal differs: a file cut at a line boundary is valid
//! VCD, and only its shorter span tells it from the whole one.
//!
//! A file that is not a waveform, or a malformed one, is an error of one line that names the
//! file and, for a VCD, the line and what is wrong there: a VCD is checked before `wellen`
//! reads it (see `vcd_check`), and a panic of the reader (on another format) is caught without
//! its text reaching the user.

use idemnet_spec::flit::{FlitLabel, WormReader, FLIT_BITS};
use idemnet_spec::CYCLE_TIME_NS;
use std::cell::Cell;
use std::collections::BTreeMap;
use std::fmt;
use std::fs::File;
use std::io::{Cursor, Read};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use wellen::simple::Waveform;
use wellen::{Hierarchy, ScopeRef, SignalRef, SignalValueRef, VarRef};

/// Options of [`wavediff`].
#[derive(Clone, Debug, Default)]
pub struct DiffOptions {
    /// Root scope of file A (dotted path); `None` = first scope holding variables.
    pub root_a: Option<String>,
    /// Root scope of file B.
    pub root_b: Option<String>,
    /// Also compare the variables of scopes below the roots (named `sub.var`).
    pub deep: bool,
}

impl DiffOptions {
    /// The root scopes of both files, top-level variables only (for example
    /// `DiffOptions::roots(ICARUS_ROOT, "TOP")`: Icarus's DUT scope against Verilator's top).
    pub fn roots(a: &str, b: &str) -> Self {
        DiffOptions {
            root_a: Some(a.to_string()),
            root_b: Some(b.to_string()),
            deep: false,
        }
    }
}

/// First difference of one signal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignalDiff {
    /// Name relative to the root.
    pub name: String,
    /// Time of the first difference in ns (rounded down).
    pub time: u64,
    /// `time / 10`.
    pub cycle: u64,
    /// Value in A (bit string, MSB first).
    pub value_a: String,
    /// Value in B.
    pub value_b: String,
    /// For a 35-bit flit signal, each side's flit named in its worm (docs/protocol.md §2):
    /// `SEND len=32 counter=0x0005`, `CRC ok`, `-`, ...
    pub flits: Option<(String, String)>,
}

/// The time a file covers, from its first to its last time stamp, in femtoseconds (the finest
/// unit a VCD timescale has), so that files of different timescales compare exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub first_fs: u128,
    pub last_fs: u128,
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} .. {}",
            show_time(self.first_fs),
            show_time(self.last_fs)
        )
    }
}

/// A time in ns, with the decimals it needs.
fn show_time(fs: u128) -> String {
    let ns = fs / 1_000_000;
    let part = fs % 1_000_000;
    if part == 0 {
        format!("{ns} ns")
    } else {
        let decimals = format!("{part:06}");
        format!("{ns}.{} ns", decimals.trim_end_matches('0'))
    }
}

fn show_span(s: &Option<Span>) -> String {
    match s {
        Some(s) => s.to_string(),
        None => "no time at all (no time stamp, no value)".to_string(),
    }
}

/// Result of [`wavediff`].
#[derive(Clone, Debug, Default)]
pub struct WaveDiff {
    pub file_a: PathBuf,
    pub file_b: PathBuf,
    /// Root scopes used (dotted paths).
    pub root_a: String,
    pub root_b: String,
    /// Signals present in both files, sorted.
    pub compared: Vec<String>,
    /// First difference of every differing signal, sorted by time, then by declaration order in
    /// A (for waveforms of a block's ports: port order, as the lockstep runner compares them).
    pub diffs: Vec<SignalDiff>,
    /// Signals only in A / only in B: the files differ.
    pub only_a: Vec<String>,
    pub only_b: Vec<String>,
    /// The time each file covers; the files differ if these do.
    pub span_a: Option<Span>,
    pub span_b: Option<Span>,
    /// Comparison ended at this time (ns), the end of the shorter file.
    pub end_time: u64,
}

impl WaveDiff {
    /// The same signals over the same time span, and no compared signal differs.
    pub fn is_equal(&self) -> bool {
        self.diffs.is_empty()
            && self.only_a.is_empty()
            && self.only_b.is_empty()
            && self.span_a == self.span_b
    }

    /// The earliest difference.
    pub fn first(&self) -> Option<&SignalDiff> {
        self.diffs.first()
    }
}

impl fmt::Display for WaveDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "wavediff A={} (root {}) B={} (root {})",
            self.file_a.display(),
            show_root(&self.root_a),
            self.file_b.display(),
            show_root(&self.root_b)
        )?;
        if self.span_a == self.span_b {
            writeln!(f, "  both cover {}", show_span(&self.span_a))?;
        } else {
            writeln!(
                f,
                "  the time spans differ: A covers {}, B covers {}",
                show_span(&self.span_a),
                show_span(&self.span_b)
            )?;
        }
        writeln!(
            f,
            "  {} signals compared up to {} ns (cycle {})",
            self.compared.len(),
            self.end_time,
            self.end_time / CYCLE_TIME_NS
        )?;
        if self.is_equal() {
            return writeln!(f, "  no differences");
        }
        if self.diffs.is_empty() {
            writeln!(f, "  no compared signal differs")?;
        } else {
            writeln!(f, "  {} signals differ:", self.diffs.len())?;
            for d in &self.diffs {
                writeln!(
                    f,
                    "    {} first differs at {} ns (cycle {}): A={} B={}",
                    d.name,
                    d.time,
                    d.cycle,
                    show_bits(&d.value_a),
                    show_bits(&d.value_b)
                )?;
                if let Some((a, b)) = &d.flits {
                    writeln!(f, "      the flits: A {a}; B {b}")?;
                }
            }
        }
        if !self.only_a.is_empty() {
            writeln!(
                f,
                "  {} signals only in A: {}",
                self.only_a.len(),
                self.only_a.join(", ")
            )?;
        }
        if !self.only_b.is_empty() {
            writeln!(
                f,
                "  {} signals only in B: {}",
                self.only_b.len(),
                self.only_b.join(", ")
            )?;
        }
        writeln!(f, "  the files differ")
    }
}

fn show_root(r: &str) -> &str {
    if r.is_empty() {
        "<top level>"
    } else {
        r
    }
}

/// Bit string plus hex when it is all 0/1 and longer than 4 bits.
fn show_bits(b: &str) -> String {
    if b.len() > 4 && b.bytes().all(|c| c == b'0' || c == b'1') {
        let mut words = vec![0u64; b.len().div_ceil(64)];
        for (i, c) in b.bytes().rev().enumerate() {
            if c == b'1' {
                words[i / 64] |= 1 << (i % 64);
            }
        }
        format!("b{} ({})", b, crate::hex_value(b.len() as u32, &words))
    } else {
        format!("b{b}")
    }
}

/// One loaded side.
struct Side {
    wave: Waveform,
    root: String,
    /// name -> (signal, width)
    signals: BTreeMap<String, (SignalRef, u32, usize)>,
    /// Multiplier from file time units to the common unit, set later.
    fs_per_unit: u128,
}

/// Opens `path` if it is a regular file with something in it, else says what it is.
fn open(path: &Path) -> Result<File> {
    use std::os::unix::fs::FileTypeExt;
    let name = path.display();
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!("{name}: no such file"),
        Err(e) => bail!("{name}: cannot be read: {e}"),
    };
    let t = meta.file_type();
    let what = if t.is_dir() {
        "a folder"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if meta.len() == 0 {
        bail!("{name}: the file is empty");
    } else {
        return File::open(path).map_err(|e| anyhow!("{name}: cannot be read: {e}"));
    };
    bail!("{name} is {what}, not a waveform file")
}

thread_local! {
    /// Set while this thread runs the waveform reader under [`contained`].
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f`, turning a panic into an error naming `path`. The process's panic hook (which
/// prints, in `idemnet`, an "internal error" line) is wrapped once so that it stays silent for
/// a panic inside `f` on this thread: a malformed input is the user's, not idemnet's bug.
fn contained<T>(path: &Path, f: impl FnOnce() -> Result<T>) -> Result<T> {
    static WRAP: std::sync::Once = std::sync::Once::new();
    WRAP.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(Cell::get) {
                previous(info)
            }
        }));
    });
    QUIET.with(|q| q.set(true));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    QUIET.with(|q| q.set(false));
    r.unwrap_or_else(|payload| {
        let text = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        bail!(
            "{}: the waveform reader gave up on it ({}); the file is malformed",
            path.display(),
            one_line(&text)
        )
    })
}

/// A library's message on one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Reads the waveform at `path`. The file is read into memory once: the check and the reader
/// see the same bytes, and a file truncated while it is read cannot take a mapped page away
/// from the reader (which ends the process with SIGBUS).
fn load(path: &Path) -> Result<Waveform> {
    let mut bytes = Vec::new();
    open(path)?
        .read_to_end(&mut bytes)
        .map_err(|e| anyhow!("{}: cannot be read: {e}", path.display()))?;
    match bytes
        .iter()
        .find(|c| !matches!(c, b' ' | b'\n' | b'\r' | b'\t'))
    {
        None => bail!("{}: holds only white space", path.display()),
        Some(b'$') => crate::vcd_check::check_vcd(path, &bytes[..])?,
        Some(_) => {
            let format = contained(path, || {
                Ok(wellen::viewers::detect_file_format(&mut Cursor::new(
                    &bytes,
                )))
            })?;
            if !matches!(format, wellen::FileFormat::Fst | wellen::FileFormat::Ghw) {
                bail!(
                    "{}: not a waveform file (a VCD starts with a `$` keyword, and it is no FST \
                     either)",
                    path.display()
                );
            }
        }
    }
    // From a reader, wellen parses on this thread only, so `contained` sees all its panics.
    contained(path, || {
        wellen::simple::read_from_reader(Cursor::new(bytes))
            .map_err(|e| anyhow!("{}: {}", path.display(), one_line(&e.to_string())))
    })
}

fn scope_path(h: &Hierarchy, s: ScopeRef) -> String {
    h[s].full_name(h)
}

fn find_root(h: &Hierarchy, root: Option<&str>) -> Result<Option<ScopeRef>> {
    if let Some(r) = root {
        if r.is_empty() {
            return Ok(None);
        }
        let parts: Vec<&str> = r.split('.').collect();
        return h
            .lookup_scope(&parts)
            .map(Some)
            .ok_or_else(|| anyhow!("root scope `{r}` not found"));
    }
    if h.vars().next().is_some() {
        return Ok(None);
    }
    let mut queue: std::collections::VecDeque<ScopeRef> = h.scopes().collect();
    while let Some(s) = queue.pop_front() {
        if h[s].vars(h).next().is_some() {
            return Ok(Some(s));
        }
        queue.extend(h[s].scopes(h));
    }
    bail!("no scope holds any variable")
}

/// A VCD name without Verilog escaping: Icarus writes `\a$0` for the port `a$0`.
fn unescape(name: &str) -> &str {
    name.strip_prefix('\\').unwrap_or(name).trim_end()
}

fn collect(
    h: &Hierarchy,
    vars: Vec<VarRef>,
    prefix: &str,
    out: &mut BTreeMap<String, (SignalRef, u32, usize)>,
) {
    // Disambiguate bit-blasted vars (`a [0]`, `a [1]`) by their index.
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for &v in &vars {
        *count.entry(unescape(h[v].name(h))).or_default() += 1;
    }
    for &v in &vars {
        let var = &h[v];
        let base = unescape(var.name(h));
        let name = match (count[base] > 1, var.index()) {
            (true, Some(i)) if i.msb() == i.lsb() => format!("{prefix}{base}[{}]", i.msb()),
            (true, Some(i)) => format!("{prefix}{base}[{}:{}]", i.msb(), i.lsb()),
            _ => format!("{prefix}{base}"),
        };
        let width = var.length(h).unwrap_or(0);
        // The third field is the declaration order, which breaks ties between diffs.
        let order = out.len();
        out.entry(name).or_insert((var.signal_ref(), width, order));
    }
}

fn collect_deep(
    h: &Hierarchy,
    s: ScopeRef,
    prefix: &str,
    out: &mut BTreeMap<String, (SignalRef, u32, usize)>,
) {
    collect(h, h[s].vars(h).collect(), prefix, out);
    for c in h[s].scopes(h) {
        let p = format!("{prefix}{}.", unescape(h[c].name(h)));
        collect_deep(h, c, &p, out);
    }
}

fn side(path: &Path, root: Option<&str>, deep: bool) -> Result<Side> {
    let wave = load(path)?;
    let h = wave.hierarchy();
    let r = find_root(h, root).with_context(|| format!("VCD {}", path.display()))?;
    let mut signals = BTreeMap::new();
    let root_name = match r {
        Some(s) => {
            if deep {
                collect_deep(h, s, "", &mut signals);
            } else {
                collect(h, h[s].vars(h).collect(), "", &mut signals);
            }
            scope_path(h, s)
        }
        None => {
            collect(h, h.vars().collect(), "", &mut signals);
            if deep {
                for s in h.scopes() {
                    let p = format!("{}.", unescape(h[s].name(h)));
                    collect_deep(h, s, &p, &mut signals);
                }
            }
            String::new()
        }
    };
    let fs_per_unit = match h.timescale() {
        None => 1_000_000, // no $timescale: 1 ns, the contract's unit
        Some(ts) => {
            let e = ts
                .unit
                .to_exponent()
                .ok_or_else(|| anyhow!("VCD {}: unknown timescale unit", path.display()))?;
            let e = i32::from(e) + 15;
            if e < 0 {
                bail!(
                    "VCD {}: timescale finer than 1 fs is not supported",
                    path.display()
                );
            }
            u128::from(ts.factor.max(1)) * 10u128.pow(e as u32)
        }
    };
    Ok(Side {
        wave,
        root: root_name,
        signals,
        fs_per_unit,
    })
}

/// The time (fs) of the first change of `sig` to a value that is not wholly unknown.
fn first_known(s: &Side, sig: SignalRef) -> Option<u128> {
    let signal = s.wave.get_signal(sig)?;
    let tt = s.wave.time_table();
    signal.iter_changes().find_map(|(idx, val)| {
        let known = match val {
            SignalValueRef::BitVec(b) => b.bit_string().chars().any(|c| c == '0' || c == '1'),
            _ => true,
        };
        known
            .then(|| tt.get(idx as usize).map(|&t| u128::from(t) * s.fs_per_unit))
            .flatten()
    })
}

/// Changes of a signal as (time in fs, bit string), last value per time.
fn changes(s: &Side, sig: SignalRef) -> Vec<(u128, String)> {
    let Some(signal) = s.wave.get_signal(sig) else {
        return Vec::new();
    };
    let tt = s.wave.time_table();
    let mut v: Vec<(u128, String)> = Vec::new();
    for (idx, val) in signal.iter_changes() {
        let Some(&t) = tt.get(idx as usize) else {
            continue;
        };
        let t = u128::from(t) * s.fs_per_unit;
        let text = match val {
            SignalValueRef::BitVec(b) => b.bit_string(),
            SignalValueRef::Event => "event".to_string(),
            SignalValueRef::String(x) => x.to_string(),
            SignalValueRef::Real(r) => format!("{r}"),
        };
        match v.last_mut() {
            Some(last) if last.0 == t => last.1 = text,
            _ => v.push((t, text)),
        }
    }
    v
}

/// The flit a signal holds at `t` (fs), named in its worm: the signal is read once a cycle, at
/// `t`'s phase, from its first change, so the worm's earlier flits give the context.
fn flit_at(changes: &[(u128, String)], t: u128) -> String {
    let period = u128::from(CYCLE_TIME_NS) * 1_000_000;
    let Some(&(first, _)) = changes.first() else {
        return "-".into();
    };
    let mut sample = t - (t.saturating_sub(first) / period) * period;
    let mut reader = WormReader::new();
    let (mut next, mut value, mut label) = (0, "", None);
    while sample <= t {
        while changes.get(next).is_some_and(|c| c.0 <= sample) {
            value = &changes[next].1;
            next += 1;
        }
        label = reader.push(u64::from_str_radix(value, 2).unwrap_or(0));
        sample += period;
    }
    match label {
        None => "-".into(),
        Some(FlitLabel {
            field,
            worm: Some(worm),
            ..
        }) => format!("{field}, ending {worm}"),
        Some(l) => l.field,
    }
}

/// Compares the waveform files `a` and `b`. Errors (one line each) if a file cannot be read,
/// is not a waveform, is malformed or has no variable, or if a root scope is missing.
pub fn wavediff(a: &Path, b: &Path, opts: &DiffOptions) -> Result<WaveDiff> {
    let mut sa = side(a, opts.root_a.as_deref(), opts.deep)?;
    let mut sb = side(b, opts.root_b.as_deref(), opts.deep)?;
    let compared: Vec<String> = sa
        .signals
        .keys()
        .filter(|k| sb.signals.contains_key(*k))
        .cloned()
        .collect();
    let only_a = sa
        .signals
        .keys()
        .filter(|k| !sb.signals.contains_key(*k))
        .cloned()
        .collect();
    let only_b = sb
        .signals
        .keys()
        .filter(|k| !sa.signals.contains_key(*k))
        .cloned()
        .collect();
    let ra: Vec<SignalRef> = compared.iter().map(|k| sa.signals[k].0).collect();
    let rb: Vec<SignalRef> = compared.iter().map(|k| sb.signals[k].0).collect();
    contained(a, || {
        sa.wave.load_signals(&ra);
        Ok(())
    })?;
    contained(b, || {
        sb.wave.load_signals(&rb);
        Ok(())
    })?;
    // A file's span starts where its compared signals first hold a value: an FST writer may
    // open its first block at time 0 with every signal unknown (`x`) when the data starts later
    // (a window), and those unknowns are no data, not a longer file.
    let span = |s: &Side, refs: &[SignalRef]| {
        let t = s.wave.time_table();
        let first = refs
            .iter()
            .filter_map(|&r| first_known(s, r))
            .min()
            .unwrap_or(u128::from(*t.first()?) * s.fs_per_unit);
        Some(Span {
            first_fs: first.max(u128::from(*t.first()?) * s.fs_per_unit),
            last_fs: u128::from(*t.last()?) * s.fs_per_unit,
        })
    };
    let span_a = contained(a, || Ok(span(&sa, &ra)))?;
    let span_b = contained(b, || Ok(span(&sb, &rb)))?;
    let end_fs = match (span_a, span_b) {
        (Some(x), Some(y)) => x.last_fs.min(y.last_fs),
        _ => 0,
    };

    let mut diffs = Vec::new();
    for name in &compared {
        let (ra, wa, _) = sa.signals[name];
        let (rb, wb, _) = sb.signals[name];
        let ca = contained(a, || Ok(changes(&sa, ra)))?;
        let cb = contained(b, || Ok(changes(&sb, rb)))?;
        let xa = "x".repeat(wa as usize);
        let xb = "x".repeat(wb as usize);
        let (mut i, mut j) = (0, 0);
        let (mut va, mut vb): (&str, &str) = (&xa, &xb);
        loop {
            let t = match (ca.get(i), cb.get(j)) {
                (None, None) => break,
                (Some(x), None) => x.0,
                (None, Some(y)) => y.0,
                (Some(x), Some(y)) => x.0.min(y.0),
            };
            if t > end_fs {
                break;
            }
            if ca.get(i).is_some_and(|x| x.0 == t) {
                va = &ca[i].1;
                i += 1;
            }
            if cb.get(j).is_some_and(|y| y.0 == t) {
                vb = &cb[j].1;
                j += 1;
            }
            if va != vb {
                let ns = (t / 1_000_000) as u64;
                diffs.push(SignalDiff {
                    name: name.clone(),
                    time: ns,
                    cycle: ns / CYCLE_TIME_NS,
                    value_a: va.to_string(),
                    value_b: vb.to_string(),
                    flits: (wa == FLIT_BITS && wb == FLIT_BITS)
                        .then(|| (flit_at(&ca, t), flit_at(&cb, t))),
                });
                break;
            }
        }
    }
    diffs.sort_by_key(|d| (d.time, sa.signals[&d.name].2));
    Ok(WaveDiff {
        file_a: a.to_path_buf(),
        file_b: b.to_path_buf(),
        root_a: sa.root,
        root_b: sb.root,
        compared,
        diffs,
        only_a,
        only_b,
        span_a,
        span_b,
        end_time: (end_fs / 1_000_000) as u64,
    })
}
