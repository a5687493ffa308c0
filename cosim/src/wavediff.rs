//! Signal-by-signal comparison of two VCD files (read with `wellen`).
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
//! and reported in ns (`cycle = time / 10`, docs/protocol.md §1). Malformed files give errors,
//! never panics.

use std::collections::BTreeMap;
use std::fmt;
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
    /// Signals only in A / only in B (not an error by itself).
    pub only_a: Vec<String>,
    pub only_b: Vec<String>,
    /// Comparison ended at this time (ns), the end of the shorter file.
    pub end_time: u64,
}

impl WaveDiff {
    /// No compared signal differs.
    pub fn is_equal(&self) -> bool {
        self.diffs.is_empty()
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
        writeln!(
            f,
            "  {} signals compared up to {} ns (cycle {})",
            self.compared.len(),
            self.end_time,
            self.end_time / 10
        )?;
        if self.diffs.is_empty() {
            writeln!(f, "  no differences")?;
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
            }
        }
        if !self.only_a.is_empty() {
            writeln!(f, "  only in A: {}", self.only_a.join(", "))?;
        }
        if !self.only_b.is_empty() {
            writeln!(f, "  only in B: {}", self.only_b.join(", "))?;
        }
        Ok(())
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

fn load(path: &Path) -> Result<Waveform> {
    if !path.is_file() {
        bail!(
            "wavediff: {} does not exist or is not a file",
            path.display()
        );
    }
    let opts = wellen::LoadOptions {
        multi_thread: false,
        remove_scopes_with_empty_name: false,
    };
    wellen::simple::read_with_options(path, &opts)
        .map_err(|e| anyhow!("{e}"))
        .with_context(|| format!("reading VCD {}", path.display()))
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

/// Compares the VCD files `a` and `b`. Errors if a file cannot be read, a root scope is missing
/// or the two files have no signal in common.
pub fn wavediff(a: &Path, b: &Path, opts: &DiffOptions) -> Result<WaveDiff> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| diff_files(a, b, opts))) {
        Ok(r) => r,
        Err(_) => bail!(
            "wavediff {} vs {}: the VCD reader panicked (malformed file?)",
            a.display(),
            b.display()
        ),
    }
}

fn diff_files(a: &Path, b: &Path, opts: &DiffOptions) -> Result<WaveDiff> {
    let mut sa = side(a, opts.root_a.as_deref(), opts.deep)?;
    let mut sb = side(b, opts.root_b.as_deref(), opts.deep)?;
    let compared: Vec<String> = sa
        .signals
        .keys()
        .filter(|k| sb.signals.contains_key(*k))
        .cloned()
        .collect();
    if compared.is_empty() {
        bail!(
            "wavediff: {} (root {}) and {} (root {}) have no signal in common\n  A: {}\n  B: {}",
            a.display(),
            show_root(&sa.root),
            b.display(),
            show_root(&sb.root),
            sa.signals.keys().cloned().collect::<Vec<_>>().join(", "),
            sb.signals.keys().cloned().collect::<Vec<_>>().join(", ")
        );
    }
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
    sa.wave.load_signals(&ra);
    sb.wave.load_signals(&rb);
    let end = |s: &Side| {
        s.wave
            .time_table()
            .last()
            .map(|&t| u128::from(t) * s.fs_per_unit)
    };
    let end_fs = match (end(&sa), end(&sb)) {
        (Some(x), Some(y)) => x.min(y),
        _ => 0,
    };

    let mut diffs = Vec::new();
    for name in &compared {
        let (ra, wa, _) = sa.signals[name];
        let (rb, wb, _) = sb.signals[name];
        let ca = changes(&sa, ra);
        let cb = changes(&sb, rb);
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
                    cycle: ns / 10,
                    value_a: va.to_string(),
                    value_b: vb.to_string(),
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
        end_time: (end_fs / 1_000_000) as u64,
    })
}
