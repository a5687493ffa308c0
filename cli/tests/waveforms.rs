//! Waveforms that cannot be written, run as a user would: the `idemnet` binary must end with
//! exit code 2 and one line naming the file, within seconds. A deadlock must fail these tests,
//! not hang them, so every run that writes a waveform has a time limit.

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `idemnet args`, killing it and failing the test if it is still running after `limit`.
fn idemnet_within(args: &[&str], limit: Duration) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_idemnet"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the idemnet binary runs");
    // Read both pipes while waiting, so a chatty child never blocks on a full pipe.
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = pipe.read_to_string(&mut s);
            s
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "idemnet {} still running after {limit:?}: it hangs",
                args.join(" ")
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Run {
        code: status.code(),
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}

/// Without a waveform nothing can hang on one; this run builds (or loads) the Verilator library,
/// so that the timed runs measure the run and not the build. A run this short may find a
/// difference (a self-test of one cycle delivers nothing), but it must run.
fn warm(args: &[&str]) {
    let r = idemnet_within(args, Duration::from_secs(1800));
    assert!(matches!(r.code, Some(0 | 1)), "{}{}", r.stdout, r.stderr);
}

fn work(name: &str) -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Exit code 2 and exactly one error line, which contains every one of `needles`, and nothing
/// from a panic or from Verilator's fatal-error path.
fn assert_one_error_line(r: &Run, needles: &[&str]) {
    let all = format!("{}{}", r.stdout, r.stderr);
    assert_eq!(r.code, Some(2), "{all}");
    let errors: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("idemnet: error:"))
        .collect();
    assert_eq!(errors.len(), 1, "{all}");
    for n in needles {
        assert!(errors[0].contains(n), "`{n}` missing: {all}");
    }
    for bad in ["panicked", "internal error", "%Error", "backtrace"] {
        assert!(!all.contains(bad), "`{bad}`: {all}");
    }
}

const LIMIT: Duration = Duration::from_secs(60);

fn cosim_router(vcd: &str) -> Run {
    cosim_router_with(vcd, &[], LIMIT)
}

/// A 2,000-cycle co-simulation of one switch with waveforms in `vcd` and `extra` options,
/// killed (a hang) after `limit`.
fn cosim_router_with(vcd: &str, extra: &[&str], limit: Duration) -> Run {
    let mut a = vec![
        "cosim", "--block", "router", "--cycles", "2000", "--quiet", "--vcd", vcd,
    ];
    a.extend_from_slice(extra);
    idemnet_within(&a, limit)
}

#[test]
fn cosim_waveform_on_a_full_disk_is_bad_input() {
    warm(&["cosim", "--block", "router", "--cycles", "1", "--quiet"]);
    for file in ["rtl.vcd", "model.vcd"] {
        let d = work(&format!("full-disk-{file}"));
        std::os::unix::fs::symlink("/dev/full", d.join(file)).unwrap();
        let r = cosim_router(d.to_str().unwrap());
        assert_one_error_line(
            &r,
            &[
                &d.join(file).display().to_string(),
                "No space left on device",
            ],
        );
    }
}

#[test]
fn cosim_waveform_folder_that_cannot_be_created_is_bad_input() {
    let d = work("folder-over-a-file");
    let file = d.join("plain-file");
    std::fs::write(&file, "not a folder").unwrap();
    let target = file.join("waves");
    let r = cosim_router(target.to_str().unwrap());
    assert_one_error_line(&r, &[&target.display().to_string(), "Not a directory"]);
}

#[test]
fn selftest_waveform_on_a_full_disk_is_bad_input() {
    warm(&["selftest", "--cycles", "1"]);
    let d = work("selftest-full-disk");
    let wave = d.join("selftest.vcd");
    std::os::unix::fs::symlink("/dev/full", &wave).unwrap();
    let r = idemnet_within(&["selftest", "--vcd", d.to_str().unwrap()], LIMIT);
    assert_one_error_line(
        &r,
        &[
            &format!("cannot write the waveform {}", wave.display()),
            "No space left on device",
        ],
    );
}

/// How many signals the save file `save` shows; each must be declared in the VCD `wave` (under
/// its last name: the save file's path goes through the scopes).
fn save_file_signals(save: &str, wave: &str) -> usize {
    let signals: Vec<&str> = save.lines().filter(|l| l.starts_with("TOP.")).collect();
    for s in &signals {
        let name = s.rsplit('.').next().unwrap().split('[').next().unwrap();
        assert!(
            wave.contains(&format!(" {name} ")),
            "{name} is not in the waveform"
        );
    }
    signals.len()
}

/// A window of the self-test image's waveform, with its save file: every signal the save file
/// names is in the waveform, each node's links read by the filter; a window past the run is
/// refused.
#[test]
fn selftest_windows_have_their_save_file() {
    let d = work("selftest-window");
    // A 3,000-cycle self-test run traced into `d` with the window options `window`.
    let run = |window: &[&str]| {
        let mut a = vec![
            "selftest",
            "--cycles",
            "3000",
            "--waves",
            d.to_str().unwrap(),
        ];
        a.extend_from_slice(window);
        idemnet_within(&a, LIMIT)
    };
    let r = run(&["--trace-from", "2000", "--trace-to", "2499"]);
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
    let save = std::fs::read_to_string(d.join("selftest.gtkw")).unwrap();
    let wave = std::fs::read_to_string(d.join("selftest.vcd")).unwrap();
    assert!(save.contains("[timestart] 20000"), "{save}");
    assert!(wave.contains("#20000\n") && !wave.contains("#19990\n") && wave.contains("#24995\n"));
    assert!(save_file_signals(&save, &wave) > 100, "{save}");
    assert!(
        save.contains("TOP.top.nodes$3$net_out[34:0]\n@200\n-\n"),
        "{save}"
    );
    let r = run(&["--trace-from", "3000"]);
    assert_one_error_line(&r, &["--trace-from 3000", "3000 cycles"]);
}

/// A 3,000-cycle fabric co-simulation at load 0.7 with its waveforms in `d`, and `extra`
/// options; it must pass. The first run of an FST build builds it, hence the long limit.
fn fabric_waves(d: &std::path::Path, extra: &[&str]) {
    let mut a = vec![
        "cosim", "--cycles", "3000", "--load", "0.7", "--quiet", "--waves",
    ];
    a.push(d.to_str().unwrap());
    a.extend_from_slice(extra);
    let r = idemnet_within(&a, Duration::from_secs(1800));
    assert_eq!(r.code, Some(0), "{}{}", r.stdout, r.stderr);
}

/// `--trace-from` and `--trace-to`: the window, not the run, sets the waveforms' size. The RTL's
/// and the model's windows cover the same cycles and agree (the model's starts from the
/// outputs of the cycle before it, as the RTL's does), and the full run's waveform is the
/// window's many times over. A full disk in a window is still exit 2 naming the file.
#[test]
fn a_window_writes_only_its_cycles() {
    let (full, win) = (work("window-full"), work("window-cut"));
    fabric_waves(&full, &[]);
    fabric_waves(&win, &["--trace-from", "1000", "--trace-to", "1199"]);
    let diff = idemnet_within(
        &[
            "wavediff",
            win.join("model.vcd").to_str().unwrap(),
            win.join("rtl.vcd").to_str().unwrap(),
        ],
        LIMIT,
    );
    assert_eq!(diff.code, Some(0), "{}", diff.stdout);
    assert!(
        diff.stdout.contains("both cover 10000 ns .. 11995 ns"),
        "{}",
        diff.stdout
    );
    for f in ["rtl.vcd", "model.vcd"] {
        let size = |d: &PathBuf| std::fs::metadata(d.join(f)).unwrap().len();
        assert!(
            size(&full) > 8 * size(&win),
            "{f}: {} vs {}",
            size(&full),
            size(&win)
        );
    }
    // Each waveform has its GTKWave save file; every signal it names is in the waveform's top
    // scope, and the flits go through the filter, which is there.
    for side in ["rtl", "model"] {
        let save = std::fs::read_to_string(win.join(format!("{side}.gtkw"))).unwrap();
        let wave = std::fs::read_to_string(win.join(format!("{side}.vcd"))).unwrap();
        assert!(save.contains("[timestart] 10000"), "{save}");
        // The fabric's 96 ports (clock is not shown).
        assert_eq!(save_file_signals(&save, &wave), 96, "{side}");
        // The fabric's links carry worms, not packets; the filter answers a value at a time
        // (a translate filter) and a whole link (a transaction filter) on one pipe.
        assert!(
            save.contains("[transaction_args] \"10 worms\"\n^<1 "),
            "{save}"
        );
        let filter = save.lines().find_map(|l| l.strip_prefix("^<1 ")).unwrap();
        let request = format!(
            "600030005\n$comment data_start 0x1 $end\n$comment name TOP.node_in$0[34:0] $end\n\
             $comment max_time 40 $end\n$comment args \"10 worms\" $end\n#0\nb{:b} 1\n\
             #10\nb{:b} 1\n#20\nb0 1\n$comment data_end 0x1 $end\n0\n",
            0x6_0003_0005u64, 0x5_0000_0001u64
        );
        let out = std::process::Command::new(filter)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .and_then(|mut c| {
                use std::io::Write;
                c.stdin.take().unwrap().write_all(request.as_bytes())?;
                c.wait_with_output()
            })
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "HEAD 3->5\n$name TOP.node_in$0[34:0] worms\n#0\n#0 ?darkorange3?3->5, 2 flits\n#20\n\
             $next\n$name TOP.node_in$0[34:0] fields\n#0\n#0 ?gray24?HEAD 3->5\n\
             #10 ?darkorange3?TAIL 0x00000001\n#20\n$finish\n-\n"
        );
    }
    let bad = |extra: &[&str], needle: &str| {
        let mut a = vec!["cosim", "--cycles", "100", "--quiet"];
        a.extend_from_slice(extra);
        let r = idemnet_within(&a, LIMIT);
        assert_eq!(r.code, Some(2), "{extra:?}: {}", r.stderr);
        assert!(r.stderr.contains(needle), "{extra:?}: {}", r.stderr);
    };
    bad(&["--trace-from", "10"], "--vcd");
    bad(
        &["--vcd", "w", "--trace-from", "20", "--trace-to", "10"],
        "the window is empty",
    );
    bad(
        &["--vcd", "w", "--trace-from", "100"],
        "the run has 100 cycles",
    );
    let d = work("window-full-disk");
    std::os::unix::fs::symlink("/dev/full", d.join("rtl.vcd")).unwrap();
    let r = cosim_router_with(d.to_str().unwrap(), &["--trace-from", "500"], LIMIT);
    assert_one_error_line(
        &r,
        &[
            &d.join("rtl.vcd").display().to_string(),
            "No space left on device",
        ],
    );
}

/// `--wave fst`: the same window as FST, the golden model's through `fst-writer` and the RTL's
/// through Verilator's FST writer, is several times smaller than VCD; `wavediff` takes an FST
/// pair and a mixed VCD/FST pair; an FST that cannot be created is still exit 2 naming the
/// file. (A `/dev/full` link is no test for FST: fstapi replaces the link by the file it wrote.)
#[test]
fn fst_windows_are_smaller_and_compare_with_vcd() {
    let (vcd, fst) = (work("fst-vcd"), work("fst-fst"));
    let window = ["--trace-from", "1000", "--trace-to", "1199"];
    fabric_waves(&vcd, &window);
    fabric_waves(&fst, &[&window[..], &["--wave", "fst"]].concat());
    for side in ["rtl", "model"] {
        let size = |p: PathBuf| std::fs::metadata(p).unwrap().len();
        let (v, f) = (
            size(vcd.join(format!("{side}.vcd"))),
            size(fst.join(format!("{side}.fst"))),
        );
        assert!(v >= 5 * f, "{side}: VCD {v} bytes, FST {f}");
    }
    for (a, b) in [
        (fst.join("model.fst"), fst.join("rtl.fst")),
        (vcd.join("model.vcd"), fst.join("rtl.fst")),
        (fst.join("model.fst"), vcd.join("rtl.vcd")),
    ] {
        let r = idemnet_within(
            &["wavediff", a.to_str().unwrap(), b.to_str().unwrap()],
            LIMIT,
        );
        assert_eq!(r.code, Some(0), "{}", r.stdout);
        assert!(
            r.stdout.contains("both cover 10000 ns .. 11995 ns"),
            "{}",
            r.stdout
        );
    }
    let d = work("fst-not-a-file");
    std::fs::create_dir(d.join("rtl.fst")).unwrap();
    let r = cosim_router_with(
        d.to_str().unwrap(),
        &["--wave", "fst"],
        // The first FST run of the switch builds its FST library.
        Duration::from_secs(1800),
    );
    assert_one_error_line(
        &r,
        &[&d.join("rtl.fst").display().to_string(), "Is a directory"],
    );
}
