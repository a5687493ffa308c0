//! Verilator builds of any Verilog top, driven only by its port list.
//!
//! [`VerilatorBuild::build`] writes the Verilog, runs `verilator --cc`, generates a C++ shim
//! (extern "C" create / destroy / set_inputs / get_outputs / tick / trace functions, generated
//! from the `&[PortSpec]` list), compiles Verilator's C++, its runtime and the shim at `-O2`
//! with `-fPIC` (2 parallel jobs), the model's run-once code (Verilator's `*_SLOW` lists:
//! construction, the initial settle, the first full trace dump) unoptimized as Verilator's own
//! makefile does (`OPT_SLOW` is empty), and links a shared library, which is loaded with
//! `libloading`. Builds are cached in a directory named after a SHA-256 of everything that
//! affects the result; the Verilator runtime objects (`verilated.cpp`, ...) are cached once per
//! flag set and shared by all tops.
//!
//! Names: Verilator keeps the Verilog names (`node_in$3`) in the VCD, and encodes every
//! character that is not `[A-Za-z0-9_]` as `__0XX` (hex code) in C++ member names, so
//! `node_in$3` is the member `node_in__0243` (see [`cpp_name`]). The generated header is parsed
//! to check every port (name, width, direction) before the shim is written.
//!
//! [`Instance::tick`] is one cycle of docs/protocol.md §1: at time `10t` clock = 0 with the
//! inputs of the last [`Instance::set_inputs`], eval, dump; at `10t + 5` clock = 1, eval, dump.
//! The VCD (scope `TOP`, one var per port plus `clock`, ports under their Verilog names,
//! timescale 1 ns) has no `$date`, so the same stimulus gives a byte-identical file.

use std::ffi::{c_char, c_int, c_void, CString};
use std::fmt::Write as _;
use std::fs;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use sha2::{Digest, Sha256};

use idemnet_spec::CYCLE_TIME_NS;

use crate::build_steps::{compiler_style, remove_stale_builds, run_step, StepFailure};
use crate::{check_ports, input_words, output_words, run_tool, tool_version, PortDir, PortSpec};

/// Version of the shim generator and build recipe; part of the cache key, next to the text the
/// generator writes for a sample port list (so a changed shim cannot reuse an old library even
/// if this number was not raised), and checked again when a library is loaded.
pub const SHIM_VERSION: u32 = 4;

/// Where a build tells its stages: nothing by default, so that a library never prints; the
/// command line sets it ([`on_build_stage`]).
static BUILD_STAGE: OnceLock<fn(&str)> = OnceLock::new();

/// Has every later build that is not in the cache tell `report` its stages, a line each
/// (translating, compiling, linking, with the time each took). The first call wins.
pub fn on_build_stage(report: fn(&str)) {
    let _ = BUILD_STAGE.set(report);
}

fn stage(line: impl FnOnce() -> String) {
    if let Some(report) = BUILD_STAGE.get() {
        report(&line());
    }
}

/// Parallel compile jobs: one per core the machine offers (2 if it does not say).
fn jobs() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

/// A Verilator build request. `ports` excludes `clock`; the top must have a 1-bit input named
/// `clock` and exactly the ports of the list (checked against Verilator's generated header).
#[derive(Clone, Debug)]
pub struct VerilatorBuild {
    /// Name of the top module.
    pub top: String,
    /// The full Verilog text (all modules).
    pub verilog: String,
    /// The top's ports, `clock` excluded, in flat-buffer order.
    pub ports: Vec<PortSpec>,
    /// Build with tracing support (`--trace`).
    pub trace: bool,
    /// Trace in FST (`--trace-fst`, Verilator's GTKWave writer) instead of VCD.
    pub fst: bool,
    /// Extra `verilator` arguments (e.g. `-Wall`, `--trace-depth 1`, `-O3`). `-Wno-fatal` is
    /// refused: lint warnings stay fatal, waive them with [`VerilatorBuild::waivers`].
    pub extra_flags: Vec<String>,
    /// Text of a Verilator configuration / waiver file (`lint_off -rule ... -file ...`),
    /// written as `waivers.vlt` and passed to `verilator`.
    pub waivers: Option<String>,
    /// The file the Verilog was read from, if any. A failed build names it, and Verilator's
    /// messages name it in place of the temporary copy that was compiled.
    pub source: Option<PathBuf>,
}

impl VerilatorBuild {
    /// A build of `top` from `verilog` with `ports`, tracing on, no extra flags.
    pub fn new(top: impl Into<String>, verilog: impl Into<String>, ports: Vec<PortSpec>) -> Self {
        VerilatorBuild {
            top: top.into(),
            verilog: verilog.into(),
            ports,
            trace: true,
            fst: false,
            extra_flags: Vec::new(),
            waivers: None,
            source: None,
        }
    }

    fn trace_kind(&self) -> Trace {
        match (self.trace, self.fst) {
            (false, _) => Trace::None,
            (true, false) => Trace::Vcd,
            (true, true) => Trace::Fst,
        }
    }

    /// Sets the waivers from a `.vlt` file on disk.
    pub fn waiver_file(mut self, path: impl AsRef<Path>) -> Result<Self> {
        let p = path.as_ref();
        self.waivers = Some(
            fs::read_to_string(p)
                .with_context(|| format!("reading waiver file {}", p.display()))?,
        );
        Ok(self)
    }

    /// The cache key: SHA-256 (hex) of the Verilog, top, ports, flags, waivers, the
    /// `verilator --version` string, the C++ compiler, the shim generator version and the shim
    /// it generates for a sample port list.
    pub fn cache_key(&self) -> Result<String> {
        self.key_with_shim(&generate_shim(&sample_bindings(), self.trace_kind()))
    }

    fn key_with_shim(&self, shim: &str) -> Result<String> {
        let mut h = Sha256::new();
        let mut field = |tag: &str, data: &[u8]| {
            h.update(tag.as_bytes());
            h.update((data.len() as u64).to_le_bytes());
            h.update(data);
        };
        field("shim", SHIM_VERSION.to_string().as_bytes());
        field("shim text", shim.as_bytes());
        field("verilator", verilator_version()?.as_bytes());
        field("cxx", compiler()?.ident.as_bytes());
        field("top", self.top.as_bytes());
        field("verilog", self.verilog.as_bytes());
        for p in &self.ports {
            let d = match p.dir {
                PortDir::In => "in",
                PortDir::Out => "out",
            };
            field("port", format!("{} {} {}", d, p.width, p.name).as_bytes());
        }
        field("trace", &[self.trace as u8]);
        field("fst", &[self.fst as u8]);
        for f in &self.extra_flags {
            field("flag", f.as_bytes());
        }
        if let Some(w) = &self.waivers {
            field("waivers", w.as_bytes());
        }
        Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
    }

    /// Builds (or reuses from `cache_dir`) the shared library and loads it. A build that fails
    /// is one line, which names the Verilog's file and a log of the failed tool's whole output
    /// in `failed/` of the cache; the temporary folders of builds killed earlier are removed.
    pub fn build(&self, cache_dir: impl AsRef<Path>) -> Result<VerilatedLib> {
        let cache_dir = cache_dir.as_ref();
        check_ports(&self.ports)?;
        if self.top.is_empty()
            || !self
                .top
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            bail!(
                "verilator build: top name `{}` must be a plain identifier",
                self.top
            );
        }
        if let Some(f) = self
            .extra_flags
            .iter()
            .find(|f| f.starts_with("-Wno-fatal"))
        {
            bail!("verilator build: `{f}` is not allowed; waive lint warnings with a waiver file");
        }
        fs::create_dir_all(cache_dir)
            .with_context(|| format!("creating cache dir {}", cache_dir.display()))?;
        remove_stale_builds(cache_dir);
        let key = self.cache_key()?;
        let dir = cache_dir.join(format!("{}-{}", self.top, &key[..20]));
        let lib = dir.join(LIB_NAME);
        if lib.is_file() {
            return VerilatedLib::load(&lib, &self.ports, self.trace, self.fst, true);
        }
        let tmp = cache_dir.join(format!(
            ".{}-{}.tmp-{}-{}",
            self.top,
            &key[..20],
            std::process::id(),
            TMP_COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&tmp);
        fs::create_dir_all(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
        let res = self.build_in(cache_dir, &tmp);
        if let Err(e) = res {
            let e = self.failure(e, cache_dir, &tmp, &key);
            let _ = fs::remove_dir_all(&tmp);
            return Err(e);
        }
        // Publish atomically; a concurrent builder may have won the race.
        if fs::rename(&tmp, &dir).is_err() {
            let _ = fs::remove_dir_all(&tmp);
            if !lib.is_file() {
                bail!(
                    "could not publish build {} to {}",
                    tmp.display(),
                    dir.display()
                );
            }
        }
        VerilatedLib::load(&lib, &self.ports, self.trace, self.fst, false)
    }

    /// The error of a failed build in `tmp`, as one line. A tool's failure names the Verilog's
    /// source (or a copy of the Verilog kept next to the log when it has none) and keeps the
    /// tool's whole output in `failed/` of the cache, as `tmp` is about to be removed.
    fn failure(&self, e: anyhow::Error, cache_dir: &Path, tmp: &Path, key: &str) -> anyhow::Error {
        let Some(step) = e.downcast_ref::<StepFailure>() else {
            return e.context(format!("Verilator build of `{}` failed", self.top));
        };
        let kept = cache_dir.join("failed");
        let stem = format!("{}-{}", self.top, &key[..20]);
        let copy = tmp.join(format!("{}.v", self.top)).display().to_string();
        let (shown, saved) = match &self.source {
            Some(p) => (p.display().to_string(), None),
            None => {
                let v = kept.join(format!("{stem}.v"));
                (v.display().to_string(), Some(v))
            }
        };
        let log_path = kept.join(format!("{stem}.log"));
        let log = format!(
            "Verilator build of `{}` from {shown}. The tools compiled a copy of it, {copy}, \
             in a build folder that is now removed; below, that copy is named {shown}.\n{}",
            self.top,
            step.log.replace(&copy, &shown)
        );
        let wrote = fs::create_dir_all(&kept).and_then(|_| {
            if let Some(v) = &saved {
                fs::write(v, &self.verilog)?;
            }
            fs::write(&log_path, log)
        });
        let whole = match wrote {
            Ok(()) => format!("{}'s whole output: {}", step.tool, log_path.display()),
            Err(err) => format!(
                "{}'s whole output could not be kept in {}: {err}",
                step.tool,
                log_path.display()
            ),
        };
        let first = compiler_style(&step.first.replace(&copy, &shown), &shown);
        if step.tool == "verilator" {
            anyhow!("{shown}: Verilator rejects it: {first} ({whole})")
        } else {
            anyhow!(
                "the C++ build of `{}` ({shown}) failed: {first} ({whole})",
                self.top
            )
        }
    }

    fn build_in(&self, cache_dir: &Path, tmp: &Path) -> Result<()> {
        let t0 = Instant::now();
        let vfile = tmp.join(format!("{}.v", self.top));
        fs::write(&vfile, &self.verilog).with_context(|| format!("writing {}", vfile.display()))?;
        let obj = tmp.join("obj");
        let mut cmd = Command::new("verilator");
        cmd.arg("--cc")
            .arg("--top-module")
            .arg(&self.top)
            .arg("--prefix")
            .arg(PREFIX)
            .arg("-Mdir")
            .arg(&obj)
            .arg("--timescale-override")
            .arg("1ns/1ns");
        match self.trace_kind() {
            Trace::Vcd => {
                cmd.arg("--trace");
            }
            Trace::Fst => {
                cmd.arg("--trace-fst");
            }
            Trace::None => {}
        }
        cmd.args(&self.extra_flags);
        if let Some(w) = &self.waivers {
            let wf = tmp.join("waivers.vlt");
            fs::write(&wf, w).with_context(|| format!("writing {}", wf.display()))?;
            cmd.arg(&wf);
        }
        cmd.arg(&vfile);
        stage(|| {
            format!(
                "not in the cache: translating {} lines of Verilog{} to C++ ({} tracing) ...",
                self.verilog.lines().count(),
                self.source
                    .as_ref()
                    .map(|s| format!(" from {}", s.display()))
                    .unwrap_or_default(),
                match self.trace_kind() {
                    Trace::Vcd => "VCD",
                    Trace::Fst => "FST",
                    Trace::None => "no",
                }
            )
        });
        run_step(
            "verilator",
            &mut cmd,
            &format!("verilating {}", vfile.display()),
        )?;
        let verilated = t0.elapsed();

        let header = obj.join(format!("{PREFIX}.h"));
        let htext = fs::read_to_string(&header)
            .with_context(|| format!("reading Verilator header {}", header.display()))?;
        let members = parse_header_ports(&htext);
        let bindings = bind_ports(&self.ports, &members)
            .with_context(|| format!("checking the port list against {}", header.display()))?;
        let shim = tmp.join("idemnet_shim.cpp");
        fs::write(&shim, generate_shim(&bindings, self.trace_kind()))
            .with_context(|| format!("writing {}", shim.display()))?;

        let mk = obj.join(format!("{PREFIX}_classes.mk"));
        let mktext =
            fs::read_to_string(&mk).with_context(|| format!("reading {}", mk.display()))?;
        let classes = parse_classes_mk(&mktext);
        let cxx = compiler()?;
        let root = verilator_root()?;
        let mut defines = vec!["-DVM_SC=0".to_string()];
        for v in ["VM_COVERAGE", "VM_TRACE", "VM_TRACE_VCD", "VM_TRACE_FST"] {
            defines.push(format!("-D{}={}", v, classes.var(v).unwrap_or("0")));
        }
        let mut flags: Vec<String> = vec![
            "-std=gnu++17".into(),
            "-O2".into(),
            "-fPIC".into(),
            "-fvisibility=hidden".into(),
            "-faligned-new".into(),
            "-w".into(),
            format!("-I{}", root.join("include").display()),
            format!("-I{}", root.join("include/vltstd").display()),
        ];
        if classes.var("VM_TIMING") == Some("1") {
            flags.push("-fcoroutines".into());
        }
        flags.extend(defines);

        // Verilator runtime objects, shared between tops.
        let mut rt_key = Sha256::new();
        rt_key.update(verilator_version()?.as_bytes());
        rt_key.update(cxx.ident.as_bytes());
        rt_key.update(flags.join(" ").as_bytes());
        rt_key.update(SHIM_VERSION.to_le_bytes());
        let rt_hash: String = rt_key
            .finalize()
            .iter()
            .take(10)
            .map(|b| format!("{b:02x}"))
            .collect();
        let rt_dir = cache_dir.join(format!("verilated-rt-{rt_hash}"));
        fs::create_dir_all(&rt_dir).with_context(|| format!("creating {}", rt_dir.display()))?;

        // (source, object, shared runtime object, run-once code); the model's own files also
        // see `obj/`.
        let mut jobs: Vec<(PathBuf, PathBuf, bool, bool)> = Vec::new();
        let mut objects = Vec::new();
        for g in &classes.global {
            let src = root.join("include").join(format!("{g}.cpp"));
            let o = rt_dir.join(format!("{g}.o"));
            if !o.is_file() {
                jobs.push((src, o.clone(), true, false));
            }
            objects.push(o);
        }
        for c in &classes.local {
            let src = obj.join(format!("{c}.cpp"));
            let o = obj.join(format!("{c}.o"));
            jobs.push((src, o.clone(), false, classes.slow.contains(c)));
            objects.push(o);
        }
        let shim_o = tmp.join("idemnet_shim.o");
        jobs.push((shim.clone(), shim_o.clone(), false, false));
        objects.push(shim_o);
        let obj_inc = format!("-I{}", obj.display());
        stage(|| {
            format!(
                "translated in {:.1} s; compiling {} C++ files on {} cores ...",
                verilated.as_secs_f64(),
                jobs.len(),
                self::jobs().min(jobs.len())
            )
        });
        let compile_start = Instant::now();
        compile_parallel(&cxx, &flags, &obj_inc, &jobs)?;
        stage(|| {
            format!(
                "compiled in {:.1} s; linking ...",
                compile_start.elapsed().as_secs_f64()
            )
        });

        let lib = tmp.join(LIB_NAME);
        let mut link = cxx.command();
        link.arg("-shared")
            .arg("-fPIC")
            .arg("-o")
            .arg(&lib)
            .args(&objects)
            .arg("-pthread")
            .arg("-latomic");
        if self.trace_kind() == Trace::Fst {
            // Verilator's FST writer compresses with zlib.
            link.arg("-lz");
        }
        run_step(&cxx.name, &mut link, &format!("linking {}", lib.display()))?;
        // Objects of the top are not needed any more.
        for (_, o, shared, _) in &jobs {
            if !shared {
                let _ = fs::remove_file(o);
            }
        }
        let log = format!(
            "top {}\nverilator {}\ncompiler {}\nflags {}\nruntime objects {} ({} compiled now)\n\
             run-once files without -O: {}\nbuild time {:.2} s\n",
            self.top,
            verilator_version()?,
            cxx.ident,
            flags.join(" "),
            rt_dir.display(),
            jobs.iter().filter(|j| j.2).count(),
            jobs.iter().filter(|j| j.3).count(),
            t0.elapsed().as_secs_f64()
        );
        fs::write(tmp.join("build.log"), log).context("writing build.log")?;
        stage(|| format!("built in {:.1} s", t0.elapsed().as_secs_f64()));
        Ok(())
    }
}

const PREFIX: &str = "Videmnet_top";
const LIB_NAME: &str = "libidemnet_top.so";
static TMP_COUNTER: AtomicU64 = AtomicU64::new(0);

fn verilator_version() -> Result<String> {
    static V: OnceLock<std::result::Result<String, String>> = OnceLock::new();
    V.get_or_init(|| tool_version("verilator", "--version").map_err(|e| format!("{e:#}")))
        .clone()
        .map_err(|e| anyhow!(e))
}

fn verilator_root() -> Result<PathBuf> {
    let out = run_tool(
        "verilator",
        Command::new("verilator")
            .arg("--getenv")
            .arg("VERILATOR_ROOT"),
        "querying VERILATOR_ROOT",
    )?;
    let root = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    if !root.join("include/verilated.cpp").is_file() {
        bail!(
            "verilator: VERILATOR_ROOT {} has no include/verilated.cpp",
            root.display()
        );
    }
    Ok(root)
}

/// The C++ compiler found by the `cc` crate.
#[derive(Clone, Debug)]
struct Cxx {
    path: PathBuf,
    args: Vec<std::ffi::OsString>,
    env: Vec<(std::ffi::OsString, std::ffi::OsString)>,
    name: String,
    ident: String,
}

impl Cxx {
    fn command(&self) -> Command {
        let mut c = Command::new(&self.path);
        // Only the target-selection arguments of cc's defaults (we pass our own -O / -g).
        for a in &self.args {
            let s = a.to_string_lossy();
            if s.starts_with("-m") || s.starts_with("--target") || s.starts_with("-arch") {
                c.arg(a);
            }
        }
        for (k, v) in &self.env {
            c.env(k, v);
        }
        c
    }
}

fn host_triple() -> String {
    let arch = std::env::consts::ARCH;
    match std::env::consts::OS {
        "macos" => format!("{arch}-apple-darwin"),
        "linux" => format!("{arch}-unknown-linux-gnu"),
        os => format!("{arch}-unknown-{os}"),
    }
}

fn compiler() -> Result<Cxx> {
    static C: OnceLock<std::result::Result<Cxx, String>> = OnceLock::new();
    C.get_or_init(|| {
        let triple = host_triple();
        let tool = cc::Build::new()
            .cpp(true)
            .opt_level(2)
            .debug(false)
            .pic(true)
            .target(&triple)
            .host(&triple)
            .cargo_metadata(false)
            .cargo_warnings(false)
            .warnings(false)
            .try_get_compiler()
            .map_err(|e| format!("cc: no C++ compiler found for {triple}: {e}"))?;
        let path = tool.path().to_path_buf();
        let name = path
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "c++".into());
        let ver = Command::new(&path)
            .arg("--version")
            .output()
            .map_err(|e| format!("C++ compiler {} cannot be run: {e}", path.display()))?;
        let ident = format!(
            "{} {}",
            path.display(),
            String::from_utf8_lossy(&ver.stdout)
                .lines()
                .next()
                .unwrap_or("")
        );
        Ok(Cxx {
            path,
            args: tool.args().to_vec(),
            env: tool
                .get_envs()
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .collect(),
            name,
            ident,
        })
    })
    .clone()
    .map_err(|e| anyhow!(e))
}

/// Compiles `jobs` with one compiler process per core ([`jobs`]). Objects are written to a temporary
/// name and renamed, so a shared runtime object is never seen half-written.
fn compile_parallel(
    cxx: &Cxx,
    flags: &[String],
    local_flag: &str,
    jobs: &[(PathBuf, PathBuf, bool, bool)],
) -> Result<()> {
    let next = AtomicU64::new(0);
    let errors = std::sync::Mutex::new(Vec::<anyhow::Error>::new());
    std::thread::scope(|s| {
        for _ in 0..self::jobs().min(jobs.len()) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed) as usize;
                if i >= jobs.len() || !errors.lock().unwrap().is_empty() {
                    break;
                }
                let (src, o, shared, run_once) = &jobs[i];
                let tmp_o = o.with_extension(format!(
                    "o.tmp-{}-{}",
                    std::process::id(),
                    TMP_COUNTER.fetch_add(1, Ordering::Relaxed)
                ));
                let mut c = cxx.command();
                // Run-once code unoptimized (Verilator's `OPT_SLOW`): at `-O2` the 16-node
                // system's settle functions took 100 s and more a file, at `-O0` 2 s.
                if *run_once {
                    c.args(flags.iter().filter(|f| !f.starts_with("-O")));
                } else {
                    c.args(flags);
                }
                if !shared {
                    c.arg(local_flag);
                }
                c.arg("-c").arg(src).arg("-o").arg(&tmp_o);
                let r = run_step(&cxx.name, &mut c, &format!("compiling {}", src.display()))
                    .and_then(|_| {
                        fs::rename(&tmp_o, o).with_context(|| {
                            format!("renaming {} to {}", tmp_o.display(), o.display())
                        })
                    });
                if let Err(e) = r {
                    let _ = fs::remove_file(&tmp_o);
                    errors.lock().unwrap().push(e);
                }
            });
        }
    });
    match errors.into_inner().unwrap().into_iter().next() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Source lists and variables of Verilator's `<prefix>_classes.mk`.
#[derive(Debug, Default)]
struct Classes {
    vars: Vec<(String, String)>,
    /// Generated files of the model (`VM_CLASSES_*`, `VM_SUPPORT_*`), without `.cpp`.
    local: Vec<String>,
    /// Those of them in a `*_SLOW` list: code run once, compiled without optimization.
    slow: Vec<String>,
    /// Runtime files from `include/` (`VM_GLOBAL_*`), without `.cpp`.
    global: Vec<String>,
}

impl Classes {
    fn var(&self, name: &str) -> Option<&str> {
        self.vars
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

fn parse_classes_mk(text: &str) -> Classes {
    let mut c = Classes::default();
    let mut list: Option<bool> = None; // Some(true) = global list
    let mut slow_list = false;
    for line in text.lines() {
        let l = line.trim();
        if l.starts_with('#') {
            continue;
        }
        if let Some(is_global) = list {
            let item = l.trim_end_matches('\\').trim();
            if !item.is_empty() {
                if is_global {
                    c.global.push(item.to_string());
                } else {
                    c.local.push(item.to_string());
                    if slow_list {
                        c.slow.push(item.to_string());
                    }
                }
            }
            if !l.ends_with('\\') {
                list = None;
            }
            continue;
        }
        if let Some((k, _)) = l.split_once("+=") {
            let k = k.trim();
            let is_global = k.starts_with("VM_GLOBAL_");
            if (is_global || k.starts_with("VM_CLASSES_") || k.starts_with("VM_SUPPORT_"))
                && l.ends_with('\\')
            {
                list = Some(is_global);
                slow_list = k.ends_with("_SLOW");
            }
        } else if let Some((k, v)) = l.split_once('=') {
            c.vars.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    c
}

/// Verilator's encoding of a Verilog identifier as a C++ identifier (`AstNode::encodeName`):
/// letters, digits (not leading) and single `_` are kept; `__` becomes `___05F`; every other
/// byte becomes `__0XX` (two upper-case hex digits). `node_in$3` -> `node_in__0243`.
pub fn cpp_name(verilog_name: &str) -> String {
    let b = verilog_name.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let keep = if i == 0 {
            c.is_ascii_alphabetic()
        } else {
            c.is_ascii_alphanumeric()
        };
        if keep {
            out.push(c as char);
        } else if c == b'_' {
            if b.get(i + 1) == Some(&b'_') {
                out.push_str("___05F");
                i += 1;
            } else {
                out.push('_');
            }
        } else {
            let _ = write!(out, "__0{c:02X}");
        }
        i += 1;
    }
    out
}

/// A port member of the generated model class.
#[derive(Clone, Debug, PartialEq)]
struct Member {
    name: String,
    input: bool,
    width: u32,
}

/// Parses `VL_IN64(&a__0240,34,0);` / `VL_OUTW(&w,69,0,3);` lines of the model header.
fn parse_header_ports(text: &str) -> Vec<Member> {
    let mut v = Vec::new();
    for line in text.lines() {
        let l = line.trim();
        let input = if l.starts_with("VL_IN") {
            true
        } else if l.starts_with("VL_OUT") {
            false
        } else {
            continue;
        };
        let (Some(a), Some(b)) = (l.find("(&"), l.rfind(')')) else {
            continue;
        };
        if b <= a + 2 {
            continue;
        }
        let parts: Vec<&str> = l[a + 2..b].split(',').map(str::trim).collect();
        if parts.len() < 3 {
            continue;
        }
        let (Ok(msb), Ok(lsb)) = (parts[1].parse::<i64>(), parts[2].parse::<i64>()) else {
            continue;
        };
        v.push(Member {
            name: parts[0].to_string(),
            input,
            width: (msb - lsb).unsigned_abs() as u32 + 1,
        });
    }
    v
}

/// One port of the shim: Verilog name, C++ member, width, direction, offset in its buffer.
#[derive(Clone, Debug)]
struct Binding {
    member: String,
    width: u32,
    input: bool,
    offset: usize,
}

fn bind_ports(ports: &[PortSpec], members: &[Member]) -> Result<Vec<Binding>> {
    let clock = members.iter().find(|m| m.name == "clock");
    match clock {
        Some(m) if m.input && m.width == 1 => {}
        _ => bail!("the top has no 1-bit input `clock`"),
    }
    let mut out = Vec::new();
    let (mut oi, mut oo) = (0, 0);
    let mut problems = Vec::new();
    for p in ports {
        let cn = cpp_name(&p.name);
        let input = p.dir == PortDir::In;
        match members.iter().find(|m| m.name == cn) {
            None => problems.push(format!(
                "port `{}` (C++ `{}`) is not a port of the top",
                p.name, cn
            )),
            Some(m) if m.input != input || m.width != p.width => problems.push(format!(
                "port `{}`: list says {} {} bits, the top has {} {} bits",
                p.name,
                if input { "input" } else { "output" },
                p.width,
                if m.input { "input" } else { "output" },
                m.width
            )),
            Some(_) => {}
        }
        let off = if input { &mut oi } else { &mut oo };
        out.push(Binding {
            member: cn,
            width: p.width,
            input,
            offset: *off,
        });
        *off += p.words();
    }
    for m in members {
        if m.name != "clock" && !out.iter().any(|b| b.member == m.name) {
            problems.push(format!(
                "top port `{}` ({} bits) is missing from the port list",
                m.name, m.width
            ));
        }
    }
    if !problems.is_empty() {
        bail!("port list does not match the top: {}", problems.join("; "));
    }
    Ok(out)
}

/// Ports of every width class the shim converts differently (8, 16, 32, 64 bits and wider), in
/// both directions: the shim generated for them stands for the generator in the cache key.
fn sample_bindings() -> Vec<Binding> {
    let widths = [1u32, 9, 17, 33, 65, 130];
    let mut out = Vec::new();
    for input in [true, false] {
        let mut offset = 0;
        for (i, &width) in widths.iter().enumerate() {
            out.push(Binding {
                member: format!("p{i}"),
                width,
                input,
                offset,
            });
            offset += (width as usize).div_ceil(64);
        }
    }
    out
}

/// What a build traces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Trace {
    None,
    Vcd,
    Fst,
}

/// Generates the C++ shim for `bindings`.
fn generate_shim(bindings: &[Binding], kind: Trace) -> String {
    let trace = kind != Trace::None;
    let fst = kind == Trace::Fst;
    let nin: usize = bindings
        .iter()
        .filter(|b| b.input)
        .map(|b| (b.width as usize).div_ceil(64))
        .sum();
    let nout: usize = bindings
        .iter()
        .filter(|b| !b.input)
        .map(|b| (b.width as usize).div_ceil(64))
        .sum();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// Generated by idemnet-cosim (shim version {SHIM_VERSION}). Do not edit."
    );
    let _ = writeln!(
        s,
        "#include <cstdint>\n#include <string>\n#include \"verilated.h\""
    );
    if trace {
        let _ = writeln!(
            s,
            "#include <atomic>\n#include <cerrno>\n#include <fcntl.h>\n#include <unistd.h>\n\
             #include \"{}\"",
            if fst {
                "verilated_fst_c.h"
            } else {
                "verilated_vcd_c.h"
            }
        );
    }
    let _ = writeln!(s, "#include \"{PREFIX}.h\"\n");
    let _ = writeln!(
        s,
        "#define IDN_EXPORT extern \"C\" __attribute__((visibility(\"default\")))\n"
    );
    if trace && !fst {
        s.push_str(VCD_FILE_CLASS);
    }
    let _ = writeln!(
        s,
        "struct IdnInst {{\n  VerilatedContext* ctx;\n  {PREFIX}* top;\n  uint64_t cycle;"
    );
    if fst {
        let _ = writeln!(s, "  VerilatedFstC* tfp;");
    } else if trace {
        let _ = writeln!(s, "  VerilatedVcdC* tfp;\n  IdnVcdFile* vcdfile;");
    }
    let _ = writeln!(s, "}};\n");
    if fst {
        s.push_str(TRACE_END_FST);
    } else if trace {
        s.push_str(TRACE_END);
    }
    let _ = writeln!(
        s,
        "IDN_EXPORT uint32_t idn_shim_version() {{ return {SHIM_VERSION}; }}"
    );
    let _ = writeln!(
        s,
        "IDN_EXPORT uint64_t idn_input_words() {{ return {nin}; }}"
    );
    let _ = writeln!(
        s,
        "IDN_EXPORT uint64_t idn_output_words() {{ return {nout}; }}"
    );
    let _ = writeln!(
        s,
        "IDN_EXPORT int idn_has_trace() {{ return {}; }}\n",
        trace as i32 + fst as i32
    );

    let _ = writeln!(s, "IDN_EXPORT void* idn_create() {{");
    let _ = writeln!(
        s,
        "  IdnInst* h = new IdnInst();\n  h->ctx = new VerilatedContext();"
    );
    let _ = writeln!(
        s,
        "  h->ctx->debug(0);\n  h->ctx->randReset(0);\n  h->ctx->fatalOnError(false);"
    );
    if fst {
        let _ = writeln!(s, "  h->ctx->traceEverOn(true);\n  h->tfp = nullptr;");
    } else if trace {
        let _ = writeln!(
            s,
            "  h->ctx->traceEverOn(true);\n  h->tfp = nullptr;\n  h->vcdfile = nullptr;"
        );
    }
    let _ = writeln!(
        s,
        "  h->top = new {PREFIX}(h->ctx, \"TOP\");\n  h->cycle = 0;\n  h->top->clock = 0;\n  return h;\n}}\n"
    );

    let _ = writeln!(
        s,
        "IDN_EXPORT void idn_destroy(void* p) {{\n  IdnInst* h = (IdnInst*)p;"
    );
    if trace {
        let _ = writeln!(s, "  idn_trace_end(h);");
    }
    let _ = writeln!(
        s,
        "  h->top->final();\n  delete h->top;\n  delete h->ctx;\n  delete h;\n}}\n"
    );

    let _ = writeln!(
        s,
        "IDN_EXPORT void idn_set_inputs(void* p, const uint64_t* w) {{\n  {PREFIX}* t = ((IdnInst*)p)->top;"
    );
    for b in bindings.iter().filter(|b| b.input) {
        let o = b.offset;
        let m = &b.member;
        match b.width {
            1..=8 => {
                let _ = writeln!(s, "  t->{m} = (CData)(w[{o}] & {:#x}ULL);", mask64(b.width));
            }
            9..=16 => {
                let _ = writeln!(s, "  t->{m} = (SData)(w[{o}] & {:#x}ULL);", mask64(b.width));
            }
            17..=32 => {
                let _ = writeln!(s, "  t->{m} = (IData)(w[{o}] & {:#x}ULL);", mask64(b.width));
            }
            33..=64 => {
                let _ = writeln!(s, "  t->{m} = (QData)(w[{o}] & {:#x}ULL);", mask64(b.width));
            }
            _ => {
                let n32 = (b.width as usize).div_ceil(32);
                for i in 0..n32 {
                    let sh = 32 * (i % 2);
                    let rem = b.width as usize - 32 * i;
                    let mask = if rem >= 32 {
                        0xffff_ffffu64
                    } else {
                        (1u64 << rem) - 1
                    };
                    let _ = writeln!(
                        s,
                        "  t->{m}[{i}] = (EData)((w[{}] >> {sh}) & {mask:#x}ULL);",
                        o + i / 2
                    );
                }
            }
        }
    }
    let _ = writeln!(s, "}}\n");

    let _ = writeln!(
        s,
        "IDN_EXPORT void idn_get_outputs(void* p, uint64_t* w) {{\n  const {PREFIX}* t = ((IdnInst*)p)->top;"
    );
    for b in bindings.iter().filter(|b| !b.input) {
        let o = b.offset;
        let m = &b.member;
        if b.width <= 64 {
            let _ = writeln!(
                s,
                "  w[{o}] = (uint64_t)t->{m} & {:#x}ULL;",
                mask64(b.width)
            );
        } else {
            let n32 = (b.width as usize).div_ceil(32);
            let n64 = (b.width as usize).div_ceil(64);
            for j in 0..n64 {
                let lo = 2 * j;
                let mut e = format!("(uint64_t)t->{m}[{lo}]");
                if lo + 1 < n32 {
                    e = format!("{e} | ((uint64_t)t->{m}[{}] << 32)", lo + 1);
                }
                let rem = b.width as usize - 64 * j;
                let mask = if rem >= 64 {
                    u64::MAX
                } else {
                    (1u64 << rem) - 1
                };
                let _ = writeln!(s, "  w[{}] = ({e}) & {mask:#x}ULL;", o + j);
            }
        }
    }
    let _ = writeln!(s, "}}\n");

    // One cycle of the time contract (docs/protocol.md §1).
    let _ = writeln!(
        s,
        "IDN_EXPORT int idn_tick(void* p) {{\n  IdnInst* h = (IdnInst*)p;"
    );
    let _ = writeln!(s, "  const uint64_t t0 = {CYCLE_TIME_NS} * h->cycle;");
    let _ = writeln!(
        s,
        "  h->ctx->time(t0);\n  h->top->clock = 0;\n  h->top->eval();"
    );
    if trace {
        let _ = writeln!(s, "  if (h->tfp) h->tfp->dump(t0);");
    }
    // The rising edge half a cycle in (§1).
    let rise = CYCLE_TIME_NS / 2;
    let _ = writeln!(
        s,
        "  h->ctx->time(t0 + {rise});\n  h->top->clock = 1;\n  h->top->eval();"
    );
    if trace {
        let _ = writeln!(s, "  if (h->tfp) h->tfp->dump(t0 + {rise});");
    }
    let _ = writeln!(s, "  h->cycle++;");
    if trace && !fst {
        let _ = writeln!(
            s,
            "  return h->vcdfile ? h->vcdfile->error.load(std::memory_order_relaxed) : 0;\n}}\n"
        );
    } else {
        let _ = writeln!(s, "  return 0;\n}}\n");
    }
    let _ = writeln!(
        s,
        "IDN_EXPORT uint64_t idn_cycle(void* p) {{ return ((IdnInst*)p)->cycle; }}\n\
         IDN_EXPORT int idn_status(void* p) {{\n  \
           IdnInst* h = (IdnInst*)p;\n  \
           return (h->ctx->gotFinish() ? 1 : 0) | (h->ctx->gotError() ? 2 : 0);\n}}\n"
    );

    if fst {
        s.push_str(TRACE_FUNCTIONS_FST);
    } else if trace {
        s.push_str(TRACE_FUNCTIONS);
    } else {
        let _ = writeln!(
            s,
            "IDN_EXPORT int idn_trace_open(void*, const char*) {{ return -1; }}\n\
             IDN_EXPORT int idn_trace_close(void*) {{ return 0; }}\n\
             IDN_EXPORT int idn_trace_flush(void*) {{ return 0; }}"
        );
    }
    s
}

/// The shim's VCD file. Verilator's own `VerilatedVcdFile` ends the process with `VL_FATAL_MT`
/// on a write error, and the fatal handler flushes the trace under the mutex the failing writer
/// holds: the run deadlocks. This one keeps the first `errno` for [`Instance::check_vcd`] and
/// reports every write as done, so Verilator never sees the error.
const VCD_FILE_CLASS: &str = r#"class IdnVcdFile final : public VerilatedVcdFile {
  int m_fd = -1;
public:
  std::atomic<int> error{0};
  void fail(int e) {
    int none = 0;
    error.compare_exchange_strong(none, e ? e : EIO);
  }
  bool open(const std::string& name) override {
    // Non-blocking only while opening: a FIFO nobody reads fails instead of blocking forever.
    m_fd = ::open(name.c_str(), O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC | O_NONBLOCK, 0666);
    if (m_fd < 0) { fail(errno); return false; }
    const int flags = ::fcntl(m_fd, F_GETFL);
    if (flags < 0 || ::fcntl(m_fd, F_SETFL, flags & ~O_NONBLOCK) < 0) fail(errno);
    return true;
  }
  void close() override {
    if (m_fd >= 0 && ::close(m_fd) != 0) fail(errno);
    m_fd = -1;
  }
  ssize_t write(const char* bufp, ssize_t len) override {
    ssize_t done = 0;
    // After the first error the rest is dropped: the run is about to end with that error.
    while (done < len && error.load(std::memory_order_relaxed) == 0) {
      const ssize_t got = ::write(m_fd, bufp + done, len - done);
      if (got > 0) done += got;
      else if (got < 0 && errno == EINTR) continue;
      else fail(got < 0 ? errno : EIO);
    }
    return len;
  }
};

"#;

/// Ends the trace of an instance; the `errno` of its first failed write (or open, or close) is
/// returned, because the file object that holds it is gone afterwards.
const TRACE_END: &str = r#"static int idn_trace_end(IdnInst* h) {
  int e = 0;
  if (h->tfp) { h->tfp->close(); delete h->tfp; h->tfp = nullptr; }
  if (h->vcdfile) { e = h->vcdfile->error.load(); delete h->vcdfile; h->vcdfile = nullptr; }
  return e;
}

"#;

/// Ends the FST trace of an instance. fstapi reports no write errors; [`Instance::close_vcd`]
/// reads the file's header back instead.
const TRACE_END_FST: &str = r#"static int idn_trace_end(IdnInst* h) {
  if (h->tfp) { h->tfp->close(); delete h->tfp; h->tfp = nullptr; }
  return 0;
}
"#;

/// The trace functions of an FST shim: the file is first opened here, non-blocking, so that a
/// folder that is not there, a read-only place or a FIFO nobody reads is an `errno` at once
/// (fstapi would block on the FIFO or say nothing).
const TRACE_FUNCTIONS_FST: &str = r#"IDN_EXPORT int idn_trace_open(void* p, const char* path) {
  IdnInst* h = (IdnInst*)p;
  idn_trace_end(h);
  const int fd = ::open(path, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC | O_NONBLOCK, 0666);
  if (fd < 0) return errno ? errno : EIO;
  ::close(fd);
  h->tfp = new VerilatedFstC();
  h->top->trace(h->tfp, 99);
  h->tfp->open(path);
  if (!h->tfp->isOpen()) { idn_trace_end(h); return EIO; }
  return 0;
}
IDN_EXPORT int idn_trace_close(void* p) { return idn_trace_end((IdnInst*)p); }
IDN_EXPORT int idn_trace_flush(void* p) {
  IdnInst* h = (IdnInst*)p;
  if (h->tfp) h->tfp->flush();
  return 0;
}
"#;

/// The trace functions of a shim with trace support: 0 for success, else an `errno`.
const TRACE_FUNCTIONS: &str = r#"IDN_EXPORT int idn_trace_open(void* p, const char* path) {
  IdnInst* h = (IdnInst*)p;
  idn_trace_end(h);
  h->vcdfile = new IdnVcdFile();
  h->tfp = new VerilatedVcdC(h->vcdfile);
  h->top->trace(h->tfp, 99);
  h->tfp->open(path);
  const int e = h->vcdfile->error.load();
  if (!h->tfp->isOpen() || e) { idn_trace_end(h); return e ? e : EIO; }
  return 0;
}
IDN_EXPORT int idn_trace_close(void* p) { return idn_trace_end((IdnInst*)p); }
IDN_EXPORT int idn_trace_flush(void* p) {
  IdnInst* h = (IdnInst*)p;
  if (!h->tfp) return 0;
  h->tfp->flush();
  return h->vcdfile->error.load();
}
"#;

fn mask64(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

type FnCreate = unsafe extern "C" fn() -> *mut c_void;
type FnPtr = unsafe extern "C" fn(*mut c_void);
type FnErrno = unsafe extern "C" fn(*mut c_void) -> c_int;
type FnSet = unsafe extern "C" fn(*mut c_void, *const u64);
type FnGet = unsafe extern "C" fn(*mut c_void, *mut u64);
type FnOpen = unsafe extern "C" fn(*mut c_void, *const c_char) -> c_int;
type FnCycle = unsafe extern "C" fn(*mut c_void) -> u64;
type FnStatus = unsafe extern "C" fn(*mut c_void) -> c_int;
type FnU64 = unsafe extern "C" fn() -> u64;
type FnU32 = unsafe extern "C" fn() -> u32;

struct Api {
    create: FnCreate,
    destroy: FnPtr,
    set_inputs: FnSet,
    get_outputs: FnGet,
    tick: FnErrno,
    cycle: FnCycle,
    status: FnStatus,
    trace_open: FnOpen,
    trace_close: FnErrno,
    trace_flush: FnErrno,
    // Keeps the function pointers valid.
    _lib: libloading::Library,
}

/// A loaded Verilator shared library of one top. Cheap to clone; every [`Instance`] keeps it
/// loaded.
#[derive(Clone)]
pub struct VerilatedLib {
    api: Arc<Api>,
    ports: Arc<Vec<PortSpec>>,
    path: PathBuf,
    trace: bool,
    /// Its traces are FST, not VCD.
    fst: bool,
    cached: bool,
}

impl std::fmt::Debug for VerilatedLib {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VerilatedLib")
            .field("path", &self.path)
            .field("trace", &self.trace)
            .field("fst", &self.fst)
            .field("cached", &self.cached)
            .finish()
    }
}

impl VerilatedLib {
    fn load(path: &Path, ports: &[PortSpec], trace: bool, fst: bool, cached: bool) -> Result<Self> {
        // SAFETY: the library was generated by this module; its initialisers are Verilator's.
        let lib = unsafe { libloading::Library::new(path) }
            .with_context(|| format!("loading Verilator library {}", path.display()))?;
        macro_rules! sym {
            ($name:literal, $t:ty) => {{
                // SAFETY: the symbol types match the generated shim.
                let s: libloading::Symbol<$t> = unsafe { lib.get($name) }.with_context(|| {
                    format!(
                        "symbol {} missing in {}",
                        String::from_utf8_lossy(&$name[..$name.len() - 1]),
                        path.display()
                    )
                })?;
                *s
            }};
        }
        let version = sym!(b"idn_shim_version\0", FnU32);
        let in_words = sym!(b"idn_input_words\0", FnU64);
        let out_words = sym!(b"idn_output_words\0", FnU64);
        // SAFETY: plain functions without arguments.
        let (v, ni, no) = unsafe { (version(), in_words(), out_words()) };
        if v != SHIM_VERSION
            || ni as usize != input_words(ports)
            || no as usize != output_words(ports)
        {
            bail!(
                "{}: shim version {v} / {ni} input words / {no} output words do not match \
                 version {SHIM_VERSION} / {} / {}",
                path.display(),
                input_words(ports),
                output_words(ports)
            );
        }
        let api = Api {
            create: sym!(b"idn_create\0", FnCreate),
            destroy: sym!(b"idn_destroy\0", FnPtr),
            set_inputs: sym!(b"idn_set_inputs\0", FnSet),
            get_outputs: sym!(b"idn_get_outputs\0", FnGet),
            tick: sym!(b"idn_tick\0", FnErrno),
            cycle: sym!(b"idn_cycle\0", FnCycle),
            status: sym!(b"idn_status\0", FnStatus),
            trace_open: sym!(b"idn_trace_open\0", FnOpen),
            trace_close: sym!(b"idn_trace_close\0", FnErrno),
            trace_flush: sym!(b"idn_trace_flush\0", FnErrno),
            _lib: lib,
        };
        Ok(VerilatedLib {
            api: Arc::new(api),
            ports: Arc::new(ports.to_vec()),
            path: path.to_path_buf(),
            trace,
            fst,
            cached,
        })
    }

    /// A new instance of the top at power-on, cycle 0, all inputs zero.
    pub fn instance(&self) -> Instance {
        // SAFETY: generated constructor.
        let h = unsafe { (self.api.create)() };
        Instance {
            api: self.api.clone(),
            h,
            in_words: input_words(&self.ports),
            out_words: output_words(&self.ports),
            vcd: None,
            vcd_errno: 0,
            fst: self.fst,
        }
    }

    /// The port list the library was built for.
    pub fn ports(&self) -> &[PortSpec] {
        &self.ports
    }

    /// Path of the shared library.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the library was found in the cache (not built by this call).
    pub fn from_cache(&self) -> bool {
        self.cached
    }

    /// Whether the library supports VCD tracing.
    pub fn has_trace(&self) -> bool {
        self.trace
    }
}

/// One simulation of a [`VerilatedLib`] top.
pub struct Instance {
    api: Arc<Api>,
    h: *mut c_void,
    in_words: usize,
    out_words: usize,
    vcd: Option<PathBuf>,
    /// The first write error of the open VCD (`errno`), as the last tick saw it.
    vcd_errno: c_int,
    /// The library traces in FST.
    fst: bool,
}

// SAFETY: the Verilator model (one VerilatedContext per instance) has no thread affinity; the
// instance is only used through &mut self.
unsafe impl Send for Instance {}

impl Instance {
    /// Sets the inputs of the next cycle (flat In-port words). Panics if the length is wrong.
    pub fn set_inputs(&mut self, words: &[u64]) {
        assert_eq!(
            words.len(),
            self.in_words,
            "set_inputs: wrong number of input words"
        );
        // SAFETY: length checked against the generated shim.
        unsafe { (self.api.set_inputs)(self.h, words.as_ptr()) }
    }

    /// Runs one cycle `t` of the time contract: at `10t` clock 0 with the inputs set, eval,
    /// dump; at `10t + 5` clock 1, eval, dump. A failed VCD write is kept for
    /// [`Instance::check_vcd`].
    pub fn tick(&mut self) {
        // SAFETY: valid handle.
        let errno = unsafe { (self.api.tick)(self.h) };
        if errno != 0 {
            self.vcd_errno = errno;
        }
    }

    /// Reads the outputs after the last tick (flat Out-port words). Panics if the length is
    /// wrong.
    pub fn outputs(&mut self, words: &mut [u64]) {
        assert_eq!(
            words.len(),
            self.out_words,
            "outputs: wrong number of output words"
        );
        // SAFETY: length checked against the generated shim.
        unsafe { (self.api.get_outputs)(self.h, words.as_mut_ptr()) }
    }

    /// Number of ticks so far.
    pub fn cycle(&self) -> u64 {
        // SAFETY: valid handle.
        unsafe { (self.api.cycle)(self.h) }
    }

    /// Whether the design executed `$finish` (the model keeps running if ticked further).
    pub fn finished(&self) -> bool {
        // SAFETY: valid handle.
        unsafe { (self.api.status)(self.h) & 1 != 0 }
    }

    /// Whether the design hit `$error` / `$fatal` / `$stop` or a Verilator runtime error
    /// (errors do not abort the process: `fatalOnError(false)`).
    pub fn had_error(&self) -> bool {
        // SAFETY: valid handle.
        unsafe { (self.api.status)(self.h) & 2 != 0 }
    }

    /// Number of input / output words.
    pub fn words(&self) -> (usize, usize) {
        (self.in_words, self.out_words)
    }

    /// Starts a VCD at `path` (closing an open one). The next tick dumps every value.
    pub fn open_vcd(&mut self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        self.close_vcd()?;
        let c = CString::new(path.as_os_str().as_bytes())
            .map_err(|_| anyhow!("VCD path {} contains a NUL byte", path.display()))?;
        // SAFETY: valid handle and C string.
        match unsafe { (self.api.trace_open)(self.h, c.as_ptr()) } {
            0 => {
                self.vcd = Some(path.to_path_buf());
                Ok(())
            }
            -1 => bail!(
                "VCD {}: the library was built without trace support",
                path.display()
            ),
            errno => Err(vcd_write_error(path, errno)),
        }
    }

    /// The first write error of the open VCD, if any. Writes after a failed one are dropped,
    /// so a run should check this now and then (it is a field read) and end on an error.
    pub fn check_vcd(&self) -> Result<()> {
        match (&self.vcd, self.vcd_errno) {
            (Some(path), errno) if errno != 0 => Err(vcd_write_error(path, errno)),
            _ => Ok(()),
        }
    }

    /// Writes out what the open VCD has buffered, if any.
    pub fn flush_vcd(&mut self) -> Result<()> {
        // SAFETY: valid handle.
        let errno = unsafe { (self.api.trace_flush)(self.h) };
        if errno != 0 {
            self.vcd_errno = errno;
        }
        self.check_vcd()
    }

    /// Closes the open VCD (if any) and makes it deterministic (blanks a `$date` section).
    /// Fails if any write to it failed, the last ones of the close included.
    pub fn close_vcd(&mut self) -> Result<()> {
        // SAFETY: valid handle.
        let errno = unsafe { (self.api.trace_close)(self.h) };
        let errno = if errno != 0 { errno } else { self.vcd_errno };
        self.vcd_errno = 0;
        match self.vcd.take() {
            Some(p) if errno != 0 => Err(vcd_write_error(&p, errno)),
            Some(p) if self.fst => check_fst(&p),
            Some(p) => blank_vcd_date(&p),
            None => Ok(()),
        }
    }
}

/// An FST whose header cannot be read back was not written whole (fstapi reports no write
/// errors: a full disk shows here).
fn check_fst(path: &Path) -> Result<()> {
    let opts = wellen::LoadOptions::default();
    wellen::viewers::read_header_from_file(path, &opts)
        .map(|_| ())
        .map_err(|e| {
            anyhow!(
                "cannot write the waveform {}: the FST written is unreadable ({e})",
                path.display()
            )
        })
}

fn vcd_write_error(path: &Path, errno: c_int) -> anyhow::Error {
    anyhow!(
        "cannot write the waveform {}: {}",
        path.display(),
        std::io::Error::from_raw_os_error(errno)
    )
}

impl Drop for Instance {
    fn drop(&mut self) {
        let _ = self.close_vcd();
        // SAFETY: handle created by idn_create, destroyed once.
        unsafe { (self.api.destroy)(self.h) }
    }
}

/// Overwrites the contents of a `$date ... $end` header section with spaces (same length, in
/// place), so two runs give identical bytes. Verilator 5.006 writes no `$date`; older and newer
/// versions may.
pub fn blank_vcd_date(path: &Path) -> Result<()> {
    // A device or a FIFO cannot be rewritten in place, and reading one may never end.
    if fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return Ok(());
    }
    let mut f = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .with_context(|| format!("opening VCD {}", path.display()))?;
    let mut head = Vec::new();
    (&mut f)
        .take(1 << 16)
        .read_to_end(&mut head)
        .with_context(|| format!("reading VCD {}", path.display()))?;
    let end_defs = find(&head, b"$enddefinitions").unwrap_or(head.len());
    if let Some(d) = find(&head[..end_defs], b"$date") {
        let start = d + 5;
        if let Some(e) = find(&head[start..end_defs], b"$end") {
            let blank = vec![b' '; e];
            f.seek(SeekFrom::Start(start as u64))?;
            f.write_all(&blank)
                .with_context(|| format!("rewriting $date of {}", path.display()))?;
        }
    }
    Ok(())
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(cpp_name("node_in$3"), "node_in__0243");
        assert_eq!(cpp_name("a$0"), "a__0240");
        assert_eq!(cpp_name("a__b"), "a___05Fb");
        assert_eq!(cpp_name("plain_1"), "plain_1");
    }

    #[test]
    fn the_generated_shim_is_part_of_the_cache_key() {
        let b = VerilatorBuild::new("t", "module t(input clock); endmodule", vec![]);
        let shim = generate_shim(&sample_bindings(), Trace::Vcd);
        assert!(shim.contains("idn_trace_end") && shim.contains("(h->vcdfile);"));
        assert_eq!(b.cache_key().unwrap(), b.key_with_shim(&shim).unwrap());
        let changed = shim.replace("return len;", "return got;");
        assert_ne!(changed, shim);
        assert_ne!(b.key_with_shim(&changed).unwrap(), b.cache_key().unwrap());
        let mut untraced = b.clone();
        untraced.trace = false;
        assert_ne!(untraced.cache_key().unwrap(), b.cache_key().unwrap());
        let mut fst = b.clone();
        fst.fst = true;
        assert_ne!(fst.cache_key().unwrap(), b.cache_key().unwrap());
        let shim = generate_shim(&sample_bindings(), Trace::Fst);
        assert!(shim.contains("VerilatedFstC") && !shim.contains("vcdfile"));
    }

    #[test]
    fn header_and_mk() {
        let h = "    VL_IN8(&clock,0,0);\n    VL_IN64(&a__0240,34,0);\n    VL_OUTW(&w,69,0,3);\n";
        let m = parse_header_ports(h);
        assert_eq!(m.len(), 3);
        assert_eq!(
            m[1],
            Member {
                name: "a__0240".into(),
                input: true,
                width: 35
            }
        );
        assert_eq!(m[2].width, 70);
        let mk = "VM_TRACE = 1\nVM_CLASSES_FAST += \\\n\tVx \\\n\tVy \\\n\nVM_CLASSES_SLOW += \\\n\tVx__Slow \\\n\nVM_GLOBAL_FAST += \\\n\tverilated \\\n\tverilated_vcd_c \\\n\nVM_GLOBAL_SLOW += \\\n\n";
        let c = parse_classes_mk(mk);
        assert_eq!(c.var("VM_TRACE"), Some("1"));
        assert_eq!(c.local, vec!["Vx", "Vy", "Vx__Slow"]);
        assert_eq!(c.slow, vec!["Vx__Slow"]);
        assert_eq!(c.global, vec!["verilated", "verilated_vcd_c"]);
    }
}
