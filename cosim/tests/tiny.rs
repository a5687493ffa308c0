//! End-to-end tests of the co-simulation crate on a tiny hand-written module: Verilator build
//! and cache, the generated shim for 1/4/8/16/32/35/64/70-bit ports, VCD determinism, Icarus vs
//! Verilator waveforms, wavediff on a mutation, and lockstep against a Rust model.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Instant;

use idemnet_cosim::{
    input_words, output_words, run_icarus, run_lockstep, wavediff, DiffOptions, ModelFn, PortSpec,
    VerilatedLib, VerilatorBuild,
};

const TINY: &str = r#"
module tiny(
  input clock,
  input [34:0] a$0,
  input [34:0] a$1,
  input [69:0] wide_in,
  input [7:0] b,
  input en,
  output reg [34:0] sum = 35'd0,
  output reg [69:0] wide_out = 70'd0,
  output reg [15:0] count = 16'd0,
  output reg [3:0] nib = 4'd0,
  output reg [31:0] w32 = 32'd0,
  output reg [63:0] w64 = 64'd0,
  output reg flag = 1'b0
);
  always @(posedge clock) begin
    sum <= a$0 + a$1;
    wide_out <= wide_in ^ {35'd0, a$0};
    if (en) count <= count + 16'd1;
    nib <= a$0[3:0] & a$1[3:0];
    w32 <= {b, b ^ 8'h5a, count[7:0], b};
    w64 <= {a$1[31:0], wide_in[69:38]};
    flag <= ^a$0;
  end
endmodule
"#;

fn ports() -> Vec<PortSpec> {
    vec![
        PortSpec::input("a$0", 35),
        PortSpec::input("a$1", 35),
        PortSpec::input("wide_in", 70),
        PortSpec::input("b", 8),
        PortSpec::input("en", 1),
        PortSpec::output("sum", 35),
        PortSpec::output("wide_out", 70),
        PortSpec::output("count", 16),
        PortSpec::output("nib", 4),
        PortSpec::output("w32", 32),
        PortSpec::output("w64", 64),
        PortSpec::output("flag", 1),
    ]
}

fn tmp() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("idemnet-cosim-tests")
}

fn cache() -> PathBuf {
    tmp().join("cache")
}

/// The tiny module built once per test binary (tests run in parallel threads).
fn lib() -> &'static VerilatedLib {
    static L: OnceLock<VerilatedLib> = OnceLock::new();
    L.get_or_init(|| {
        let t = Instant::now();
        let l = VerilatorBuild::new("tiny", TINY, ports())
            .build(cache())
            .unwrap_or_else(|e| panic!("{e:#}"));
        eprintln!(
            "tiny build: {:.2} s (from cache: {})",
            t.elapsed().as_secs_f64(),
            l.from_cache()
        );
        l
    })
}

/// Deterministic stimulus (xorshift); `a$1` is zero for cycles < 5.
fn stimulus(cycles: usize) -> Vec<Vec<u64>> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..cycles)
        .map(|t| {
            let a1 = if t < 5 { 0 } else { next() };
            vec![
                next() | (1 << 63), // high garbage bits must be ignored
                a1,
                next(),
                next(),
                next(),
                next() & 1,
            ]
        })
        .collect()
}

/// The Rust model of `tiny` (flat words). `bug_at`: corrupt `w64` in that cycle.
struct TinyModel {
    sum: u64,
    wide: [u64; 2],
    count: u64,
    nib: u64,
    w32: u64,
    w64: u64,
    flag: u64,
    t: u64,
    bug_at: Option<u64>,
}

impl TinyModel {
    fn new(bug_at: Option<u64>) -> Self {
        TinyModel {
            sum: 0,
            wide: [0; 2],
            count: 0,
            nib: 0,
            w32: 0,
            w64: 0,
            flag: 0,
            t: 0,
            bug_at,
        }
    }

    fn step(&mut self, i: &[u64], o: &mut [u64]) {
        let m35 = (1u64 << 35) - 1;
        let (a0, a1) = (i[0] & m35, i[1] & m35);
        let wide = [i[2], i[3] & 0x3f];
        let b = i[4] & 0xff;
        let en = i[5] & 1;
        let old_count = self.count;
        self.sum = (a0 + a1) & m35;
        self.wide = [wide[0] ^ a0, wide[1]];
        if en == 1 {
            self.count = (self.count + 1) & 0xffff;
        }
        self.nib = a0 & a1 & 0xf;
        self.w32 = (b << 24) | ((b ^ 0x5a) << 16) | ((old_count & 0xff) << 8) | b;
        // wide_in[69:38] is 32 bits: word0 bits 63:38 (26 bits) and word1 bits 5:0.
        let hi32 = (wide[0] >> 38) | (wide[1] << 26);
        self.w64 = ((a1 & 0xffff_ffff) << 32) | (hi32 & 0xffff_ffff);
        if self.bug_at == Some(self.t) {
            self.w64 ^= 1 << 3;
        }
        self.flag = (a0.count_ones() & 1) as u64;
        self.t += 1;
        o.copy_from_slice(&[
            self.sum,
            self.wide[0],
            self.wide[1],
            self.count,
            self.nib,
            self.w32,
            self.w64,
            self.flag,
        ]);
    }
}

fn verilator_vcd(lib: &VerilatedLib, path: &Path, stim: &[Vec<u64>]) -> Vec<Vec<u64>> {
    let mut inst = lib.instance();
    inst.open_vcd(path).unwrap();
    let mut outs = Vec::new();
    let mut o = vec![0u64; output_words(lib.ports())];
    for s in stim {
        inst.set_inputs(s);
        inst.tick();
        inst.outputs(&mut o);
        outs.push(o.clone());
    }
    inst.close_vcd().unwrap();
    outs
}

#[test]
fn build_cache_and_shim() {
    let l = lib();
    assert_eq!(input_words(l.ports()), 6);
    assert_eq!(output_words(l.ports()), 8);
    // A second build of the same request is served from the cache.
    let t = Instant::now();
    let again = VerilatorBuild::new("tiny", TINY, ports())
        .build(cache())
        .unwrap();
    assert!(again.from_cache());
    assert_eq!(again.path(), l.path());
    eprintln!("cached build: {:.3} s", t.elapsed().as_secs_f64());

    // Power-on values, then one known cycle.
    let mut inst = l.instance();
    let mut o = vec![0u64; 8];
    inst.outputs(&mut o);
    assert_eq!(o, vec![0; 8]);
    let a0 = 0x7_0000_0001u64;
    inst.set_inputs(&[
        a0 | (0xff << 40),
        0x1_0000_0002,
        0xffff_ffff_ffff_ffff,
        0x3f,
        0xab,
        1,
    ]);
    inst.tick();
    assert_eq!(inst.cycle(), 1);
    inst.outputs(&mut o);
    assert_eq!(o[0], 0x0_0000_0003); // sum wraps at 35 bits; garbage above bit 34 ignored
    assert_eq!(o[1], !a0); // wide_out word 0
    assert_eq!(o[2], 0x3f); // wide_out bits 69:64
    assert_eq!(o[3], 1); // count counted edge 0 ...
    assert_eq!(o[5], 0xab_f1_00_ab); // w32
    assert_eq!(o[6], 0x0000_0002_ffff_ffff); // w64
    assert_eq!(o[7], 0); // parity of a0 (four bits set)
    inst.set_inputs(&[0; 6]);
    inst.tick();
    inst.outputs(&mut o);
    assert_eq!(o[3], 1); // ... not edge 1 (en = 0)
    assert_eq!(o[5], 0x00_5a_01_00); // w32 with b = 0, old count 1
    assert!(!inst.finished() && !inst.had_error());
}

#[test]
fn lockstep_model_agrees_and_detects_bug() {
    let l = lib();
    let stim = stimulus(2000);
    let ports = ports();

    let mut good = TinyModel::new(None);
    let mut model = |i: &[u64], o: &mut [u64]| good.step(i, o);
    let mut inst = l.instance();
    let r = run_lockstep(
        &ports,
        |t, w| w.copy_from_slice(&stim[t as usize]),
        &mut model,
        &mut inst,
        2000,
    )
    .unwrap();
    eprintln!("{r}");
    assert!(r.passed(), "{r}");
    assert_eq!(r.cycles, 2000);
    assert_eq!(r.comparisons, 2000 * 7);

    let mut bad = TinyModel::new(Some(17));
    let mut boxed: ModelFn = Box::new(move |i, o| bad.step(i, o));
    let mut inst = l.instance();
    let r = run_lockstep(
        &ports,
        |t, w| w.copy_from_slice(&stim[t as usize]),
        &mut boxed,
        &mut inst,
        2000,
    )
    .unwrap();
    eprintln!("{r}");
    let m = r.mismatch.expect("the buggy model must be caught");
    assert_eq!((m.cycle, m.port.as_str()), (17, "w64"));
    assert_eq!(r.cycles, 18);
    assert_eq!(m.expected.len(), 2 + 16);
    let e = u64::from_str_radix(&m.expected[2..], 16).unwrap();
    let a = u64::from_str_radix(&m.actual[2..], 16).unwrap();
    assert_eq!(e ^ a, 1 << 3);
    assert!(m.to_string().contains("cycle 17: output `w64` differs"));
}

#[test]
fn vcd_deterministic_and_named() {
    let l = lib();
    let dir = tmp().join("det");
    std::fs::create_dir_all(&dir).unwrap();
    let stim = stimulus(50);
    let (p1, p2) = (dir.join("a.vcd"), dir.join("b.vcd"));
    verilator_vcd(l, &p1, &stim);
    std::thread::sleep(std::time::Duration::from_millis(1100)); // a $date would now differ
    verilator_vcd(l, &p2, &stim);
    let (a, b) = (std::fs::read(&p1).unwrap(), std::fs::read(&p2).unwrap());
    assert_eq!(a, b, "two runs must give byte-identical VCDs");
    let text = String::from_utf8(a).unwrap();
    assert!(!text.contains("$date"));
    assert!(text.contains("$scope module TOP $end"));
    assert!(text.contains("$timescale 1ns $end"), "{}", &text[..300]);
    assert!(text.contains(" a$0 [34:0] $end"), "{}", &text[..600]);
    assert!(text.contains(" wide_out [69:0] $end"));
}

#[test]
fn icarus_matches_verilator_and_model_vcd() {
    let l = lib();
    let dir = tmp().join("icarus");
    std::fs::create_dir_all(&dir).unwrap();
    let stim = stimulus(60);
    let (pv, pi, pm) = (
        dir.join("verilator.vcd"),
        dir.join("icarus.vcd"),
        dir.join("model.vcd"),
    );
    let outs = verilator_vcd(l, &pv, &stim);
    let t = Instant::now();
    run_icarus("tiny", TINY, &ports(), &stim, &pi).unwrap_or_else(|e| panic!("{e:#}"));
    eprintln!("icarus run: {:.2} s", t.elapsed().as_secs_f64());

    let d = wavediff(&pv, &pi, &DiffOptions::default()).unwrap();
    eprintln!("{d}");
    assert_eq!(d.root_a, "TOP");
    assert_eq!(d.root_b, "idemnet_tb.dut");
    assert!(d.is_equal(), "{d}");
    assert_eq!(d.compared.len(), ports().len() + 1); // + clock
    assert!(d.only_a.is_empty() && d.only_b.is_empty(), "{d}");
    assert!(d.end_time >= 595);

    // The model crate's waveform writer, fed with the RTL outputs, gives the same waveform.
    let mut w = idemnet_model::PortVcd::create(&pm, &ports()).unwrap();
    for (t, (i, o)) in stim.iter().zip(&outs).enumerate() {
        w.cycle(t as u64, i, o).unwrap();
    }
    w.finish().unwrap();
    let d = wavediff(&pm, &pv, &DiffOptions::default()).unwrap();
    assert!(
        d.is_equal() && d.only_a.is_empty() && d.only_b.is_empty(),
        "{d}"
    );
}

#[test]
fn wavediff_finds_mutation() {
    let l = lib();
    let dir = tmp().join("mutation");
    std::fs::create_dir_all(&dir).unwrap();
    let stim = stimulus(40);
    let (pv, pi) = (dir.join("verilator.vcd"), dir.join("icarus-mutant.vcd"));
    verilator_vcd(l, &pv, &stim);
    let mutant = TINY.replace("sum <= a$0 + a$1;", "sum <= a$0 - a$1;");
    assert_ne!(mutant, TINY);
    run_icarus("tiny", &mutant, &ports(), &stim, &pi).unwrap();
    let d = wavediff(&pv, &pi, &DiffOptions::default()).unwrap();
    eprintln!("{d}");
    assert_eq!(d.diffs.len(), 1, "{d}");
    let f = d.first().unwrap();
    // a$1 is zero before cycle 5; the sum of cycle 5 shows at 55 ns.
    assert_eq!((f.name.as_str(), f.time, f.cycle), ("sum", 55, 5));
    assert_ne!(f.value_a, f.value_b);
    assert_eq!(f.value_a.len(), 35);
    assert!(d
        .to_string()
        .contains("sum first differs at 55 ns (cycle 5)"));

    // Explicit roots, and a root that does not exist.
    let o = DiffOptions {
        root_a: Some("TOP".into()),
        root_b: Some("idemnet_tb.dut".into()),
        deep: false,
    };
    assert_eq!(wavediff(&pv, &pi, &o).unwrap().diffs, d.diffs);
    let o = DiffOptions {
        root_a: Some("NOPE".into()),
        ..Default::default()
    };
    assert!(wavediff(&pv, &pi, &o).is_err());

    // Truncated and corrupted copies: errors or results, never an escaping panic.
    let bytes = std::fs::read(&pv).unwrap();
    let cut = dir.join("cut.vcd");
    for n in [10, 100, 700, bytes.len() / 2, bytes.len() - 3] {
        std::fs::write(&cut, &bytes[..n]).unwrap();
        let r = wavediff(&cut, &pi, &DiffOptions::default());
        eprintln!(
            "truncated at {n}: {}",
            r.map(|d| d.diffs.len().to_string())
                .unwrap_or_else(|e| format!("error {e:#}"))
        );
        let mut bad = bytes.clone();
        for i in (n..bad.len()).step_by(97) {
            bad[i] = b"#zb$\n\0"[i % 6];
        }
        std::fs::write(&cut, &bad).unwrap();
        let r = wavediff(&cut, &pi, &DiffOptions::default());
        eprintln!(
            "corrupted from {n}: {}",
            r.map(|d| d.diffs.len().to_string())
                .unwrap_or_else(|e| format!("error {e:#}"))
        );
    }
}

#[test]
fn wavediff_bad_inputs_are_errors() {
    let dir = tmp().join("bad");
    std::fs::create_dir_all(&dir).unwrap();
    let garbage = dir.join("garbage.vcd");
    std::fs::write(
        &garbage,
        b"$scope module x $end\n$var wire 3 ! q $end\n#zz\nb1x1 !\n\x00\xff",
    )
    .unwrap();
    let empty = dir.join("empty.vcd");
    std::fs::write(&empty, b"").unwrap();
    let other = dir.join("other.vcd");
    std::fs::write(
        &other,
        b"$timescale 1ns $end\n$scope module TOP $end\n$var wire 1 ! zzz $end\n$upscope $end\n$enddefinitions $end\n#0\n0!\n",
    )
    .unwrap();
    let missing = dir.join("missing.vcd");
    let o = DiffOptions::default();
    assert!(wavediff(&missing, &other, &o).is_err());
    assert!(wavediff(&empty, &other, &o).is_err());
    // Error or not, but no panic escapes.
    eprintln!(
        "garbage: {:?}",
        wavediff(&garbage, &other, &o).map(|d| d.to_string())
    );
    let dir2 = tmp().join("bad2");
    std::fs::create_dir_all(&dir2).unwrap();
    let one = dir2.join("one.vcd");
    std::fs::write(
        &one,
        b"$timescale 1ns $end\n$scope module TOP $end\n$var wire 1 ! yyy $end\n$upscope $end\n$enddefinitions $end\n#0\n1!\n",
    )
    .unwrap();
    // No signal in common: the files differ, each signal is only in one of them.
    let d = wavediff(&one, &other, &o).unwrap();
    assert!(!d.is_equal() && d.compared.is_empty(), "{d}");
    assert_eq!(
        (d.only_a, d.only_b),
        (vec!["yyy".into()], vec!["zzz".into()])
    );
}

#[test]
fn verilator_errors_are_clear() {
    let dir = cache();
    let vcd = tmp().join("errors.vcd");
    // Lint error (width mismatch) is fatal: no -Wno-fatal.
    let bad = "module bad(input clock, input [3:0] a, output reg [1:0] y = 0);\n  always @(posedge clock) y <= a;\nendmodule\n";
    let e = VerilatorBuild::new(
        "bad",
        bad,
        vec![PortSpec::input("a", 4), PortSpec::output("y", 2)],
    )
    .build(&dir)
    .unwrap_err();
    let s = format!("{e:#}");
    assert!(
        s.contains("Verilator rejects it") && s.contains("WIDTH"),
        "{s}"
    );
    // The same design with a waiver builds.
    let mut b = VerilatorBuild::new(
        "bad",
        bad,
        vec![PortSpec::input("a", 4), PortSpec::output("y", 2)],
    );
    b.trace = false;
    b.waivers = Some("`verilator_config\nlint_off -rule WIDTH\n".into());
    let l = b.build(&dir).unwrap_or_else(|e| panic!("{e:#}"));
    let mut i = l.instance();
    i.set_inputs(&[0xf]);
    i.tick();
    let mut o = [0u64];
    i.outputs(&mut o);
    assert_eq!(o[0], 3);
    assert!(i.open_vcd(&vcd).is_err()); // built without trace
                                        // A port list that does not match the top.
    let mut b = VerilatorBuild::new(
        "bad",
        bad,
        vec![PortSpec::input("a", 5), PortSpec::output("y", 2)],
    );
    b.waivers = Some("`verilator_config\nlint_off -rule WIDTH\n".into());
    let e = b.build(&dir).unwrap_err();
    assert!(format!("{e:#}").contains("port `a`"), "{e:#}");
    // -Wno-fatal is refused.
    let mut b = VerilatorBuild::new("bad", bad, vec![]);
    b.extra_flags.push("-Wno-fatal".into());
    assert!(b.build(&dir).is_err());
}

/// Runs `f` on another thread and fails if it has not returned after `limit`: a deadlocked
/// waveform writer must fail the test, not hang it.
fn within<T: Send + 'static>(
    limit: std::time::Duration,
    f: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(limit)
        .unwrap_or_else(|_| panic!("no answer after {limit:?}: the run hangs"))
}

#[test]
fn vcd_on_a_full_disk_is_an_error_naming_the_file() {
    let r = within(std::time::Duration::from_secs(60), || {
        let mut inst = lib().instance();
        inst.open_vcd("/dev/full").unwrap();
        for s in stimulus(5000) {
            inst.set_inputs(&s);
            inst.tick();
        }
        inst.close_vcd().map_err(|e| format!("{e:#}"))
    });
    let e = r.expect_err("a waveform on a full disk must not pass");
    assert!(
        e.contains("/dev/full") && e.contains("No space left on device"),
        "{e}"
    );
    assert!(!e.contains('\n'), "{e}");

    // The lockstep runner learns it while it runs and stops, long before the last cycle.
    let (cycles, r) = within(std::time::Duration::from_secs(60), || {
        let stim = stimulus(20_000);
        let mut model = TinyModel::new(None);
        let mut step = |i: &[u64], o: &mut [u64]| model.step(i, o);
        let mut inst = lib().instance();
        inst.open_vcd("/dev/full").unwrap();
        let r = run_lockstep(
            &ports(),
            |t, w| w.copy_from_slice(&stim[t as usize]),
            &mut step,
            &mut inst,
            20_000,
        );
        (
            inst.cycle(),
            r.map(|r| r.to_string()).map_err(|e| format!("{e:#}")),
        )
    });
    let e = r.expect_err("the lockstep run must end with the write error");
    assert!(e.contains("cannot write the waveform /dev/full"), "{e}");
    assert!(
        cycles < 20_000,
        "{cycles} cycles run after the disk was full"
    );
}

#[test]
fn vcd_that_cannot_be_opened_names_the_reason() {
    let dir = tmp().join("unopenable");
    std::fs::create_dir_all(&dir).unwrap();
    let mut inst = lib().instance();
    let missing = dir.join("no-such-folder/rtl.vcd");
    let e = format!("{:#}", inst.open_vcd(&missing).unwrap_err());
    assert!(
        e.contains(&missing.display().to_string()) && e.contains("No such file or directory"),
        "{e}"
    );
    let e = format!("{:#}", inst.open_vcd(&dir).unwrap_err());
    assert!(e.contains("Is a directory"), "{e}");
    // The instance still runs, and a later waveform works.
    let ok = dir.join("ok.vcd");
    inst.open_vcd(&ok).unwrap();
    inst.tick();
    inst.flush_vcd().unwrap();
    inst.check_vcd().unwrap();
    inst.close_vcd().unwrap();
    assert!(std::fs::read_to_string(&ok).unwrap().contains("#5"));
}

#[test]
fn verilator_rejection_is_one_line_naming_the_source() {
    let dir = tmp().join("rejected");
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("user-design.v");
    let text = "module rejected(input clock, output y);\n  wire a;\n  assign a = ;\n  assign y = a;\nendmodule\n";
    std::fs::write(&source, text).unwrap();
    let mut b = VerilatorBuild::new("rejected", text, vec![PortSpec::output("y", 1)]);
    b.source = Some(source.clone());
    let e = format!("{:#}", b.build(cache()).unwrap_err());
    let shown = source.display().to_string();
    let key = b.cache_key().unwrap();
    let log = cache().join(format!("failed/rejected-{}.log", &key[..20]));
    assert_eq!(
        e,
        format!(
            "{shown}: Verilator rejects it: {shown}:3:14: Error: syntax error, unexpected ';', \
             expecting TYPE-IDENTIFIER (verilator's whole output: {})",
            log.display()
        )
    );
    let log = std::fs::read_to_string(log).unwrap();
    assert!(
        log.contains("  assign a = ;") && log.contains("Exiting due to"),
        "{log}"
    );
    let left = std::fs::read_dir(cache())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".rejected-"))
        .count();
    assert_eq!(left, 0, "the temporary build folder must be removed");
}

#[test]
fn what_killed_builds_left_is_removed_by_the_next_build() {
    let c = cache();
    lib();
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let gone = child.id();
    child.wait().unwrap();
    let me = std::process::id();
    let killed = c.join(format!(".tiny-0123456789abcdef0123.tmp-{gone}-0"));
    std::fs::create_dir_all(killed.join("obj")).unwrap();
    let running = c.join(format!(".tiny-0123456789abcdef0123.tmp-{me}-999999"));
    std::fs::create_dir_all(&running).unwrap();
    let forgotten = c.join(format!(".tiny-0123456789abcdef0123.tmp-{me}-999998"));
    std::fs::create_dir_all(&forgotten).unwrap();
    let two_days = std::time::Duration::from_secs(2 * 24 * 3600);
    std::fs::File::open(&forgotten)
        .unwrap()
        .set_modified(std::time::SystemTime::now() - two_days)
        .unwrap();
    let runtime = std::fs::read_dir(&c)
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().starts_with("verilated-rt-"))
        .expect("the runtime objects of the tiny build")
        .path();
    let half_written = runtime.join(format!("verilated.o.tmp-{gone}-0"));
    std::fs::write(&half_written, b"half an object").unwrap();

    let again = VerilatorBuild::new("tiny", TINY, ports())
        .build(&c)
        .unwrap();
    assert!(again.from_cache());
    assert!(!killed.exists(), "the folder of a dead builder must go");
    assert!(
        !half_written.exists(),
        "the object of a dead builder must go"
    );
    assert!(!forgotten.exists(), "a folder older than a day must go");
    assert!(
        running.exists(),
        "the folder of a running builder must stay"
    );
    std::fs::remove_dir_all(&running).unwrap();
}
