//! Waveforms of any block's ports, following the time contract of docs/protocol.md §1, as VCD
//! ([`PortVcd`]) or FST ([`PortFst`], GTKWave's compressed format).
//!
//! One scope `TOP` holds `clock` (1-bit wire) and one wire per port, named exactly as the port.
//! Timescale 1 ns. In cycle `t`: at `10t` the clock falls and the inputs `I_t` change; at
//! `10t + 5` the clock rises and the outputs `O_t` change. Only changes are written; the first
//! cycle written writes every value (outputs at their power-on value, zero, or, for a window
//! that starts later, those of the cycle before it). The bytes depend only on the port list and
//! the values (no date, no version).
//!
//! Which values changed is decided once ([`PortWave`]); the two formats differ only in how a
//! change is encoded ([`Encoder`]).

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use fst_writer::{
    FstBodyWriter, FstFileType, FstInfo, FstScopeType, FstSignalId, FstSignalType, FstVarDirection,
    FstVarType,
};
use vcd::{IdCode, TimescaleUnit, Value};

use crate::ports::{PortDir, PortSpec};
use idemnet_spec::CYCLE_TIME_NS;

/// How one waveform format writes a header and changes. Signals are numbered as declared:
/// `clock` is 0, then the ports in order.
pub trait Encoder {
    fn timestamp(&mut self, t: u64) -> io::Result<()>;
    /// Signal `id` (`width` bits) now holds `words` (bits above `width` are zero).
    fn change(&mut self, id: usize, width: u32, words: &[u64]) -> io::Result<()>;
    fn flush(&mut self) -> io::Result<()>;
}

#[derive(Clone, Debug)]
struct Slot {
    /// The signal's number for the encoder.
    id: usize,
    width: u32,
    offset: usize,
    words: usize,
}

/// The waveform of one block's ports, in the format of `E`.
pub struct PortWave<E> {
    enc: E,
    ins: Vec<Slot>,
    outs: Vec<Slot>,
    last_in: Vec<u64>,
    last_out: Vec<u64>,
    started: bool,
    /// The outputs the first cycle written shows before its edge: zero at power-on, `O_(t-1)`
    /// when the waveform starts at a later cycle `t` ([`PortWave::outputs_before`]).
    before: Vec<u64>,
    /// The file written, named in every error; `None` for other writers.
    path: Option<PathBuf>,
}

/// A VCD writer for one block's ports.
pub type PortVcd<W = BufWriter<File>> = PortWave<VcdEncoder<W>>;

/// An FST writer for one block's ports.
pub type PortFst = PortWave<FstEncoder>;

/// The slots of `ports`' In and Out ports (signal 0 is `clock`), and the words of each side.
fn slots(ports: &[PortSpec]) -> (Vec<Slot>, Vec<Slot>, usize, usize) {
    let (mut ins, mut outs) = (Vec::new(), Vec::new());
    let (mut oi, mut oo) = (0, 0);
    for (i, p) in ports.iter().enumerate() {
        let words = p.words();
        let (list, off) = match p.dir {
            PortDir::In => (&mut ins, &mut oi),
            PortDir::Out => (&mut outs, &mut oo),
        };
        list.push(Slot {
            id: i + 1,
            width: p.width,
            offset: *off,
            words,
        });
        *off += words;
    }
    (ins, outs, oi, oo)
}

impl<E: Encoder> PortWave<E> {
    fn with(enc: E, ports: &[PortSpec]) -> Self {
        let (ins, outs, oi, oo) = slots(ports);
        PortWave {
            enc,
            ins,
            outs,
            last_in: vec![0; oi],
            last_out: vec![0; oo],
            started: false,
            before: vec![0; oo],
            path: None,
        }
    }

    /// Masks the bits above `width` so unused high bits never show up as a change.
    fn masked(s: &Slot, src: &[u64], dst: &mut [u64]) {
        dst.copy_from_slice(&src[s.offset..s.offset + s.words]);
        let rem = s.width as usize % 64;
        if rem != 0 {
            dst[s.words - 1] &= (1u64 << rem) - 1;
        }
    }

    fn group(
        enc: &mut E,
        slots: &[Slot],
        last: &mut [u64],
        now: &[u64],
        all: bool,
    ) -> io::Result<()> {
        let mut tmp = [0u64; 4];
        let mut big = Vec::new();
        for s in slots {
            let cur: &mut [u64] = if s.words <= 4 {
                &mut tmp[..s.words]
            } else {
                big.resize(s.words, 0);
                &mut big[..]
            };
            Self::masked(s, now, cur);
            let prev = &mut last[s.offset..s.offset + s.words];
            if all || prev != cur {
                prev.copy_from_slice(cur);
                enc.change(s.id, s.width, cur)?;
            }
        }
        Ok(())
    }

    fn named(&self, e: io::Error) -> io::Error {
        match &self.path {
            Some(p) => name_error(p, e),
            None => e,
        }
    }

    /// Records cycle `t`: `inputs` is `I_t` and `outputs` is `O_t`, as flat word buffers of the
    /// In and Out ports in port order (as [`crate::block::ModelBlock::step`] uses them).
    pub fn cycle(&mut self, t: u64, inputs: &[u64], outputs: &[u64]) -> io::Result<()> {
        self.write_cycle(t, inputs, outputs)
            .map_err(|e| self.named(e))
    }

    fn write_cycle(&mut self, t: u64, inputs: &[u64], outputs: &[u64]) -> io::Result<()> {
        let all = !self.started;
        self.enc.timestamp(CYCLE_TIME_NS * t)?;
        self.enc.change(0, 1, &[0])?;
        Self::group(&mut self.enc, &self.ins, &mut self.last_in, inputs, all)?;
        if all {
            // The outputs before the first edge written: power-on zeros, or those of the cycle
            // before a window.
            Self::group(
                &mut self.enc,
                &self.outs,
                &mut self.last_out,
                &self.before,
                true,
            )?;
            self.started = true;
        }
        self.enc.timestamp(CYCLE_TIME_NS * t + CYCLE_TIME_NS / 2)?;
        self.enc.change(0, 1, &[1])?;
        Self::group(
            &mut self.enc,
            &self.outs,
            &mut self.last_out,
            outputs,
            false,
        )
    }

    /// For a waveform that starts at cycle `t > 0` (a window): `outputs` is `O_(t-1)`, what the
    /// outputs show before the first edge written. Ignored once a cycle has been written.
    pub fn outputs_before(&mut self, outputs: &[u64]) {
        if !self.started {
            let n = self.before.len();
            self.before.copy_from_slice(&outputs[..n]);
        }
    }

    /// Writes out what is buffered and ends the file.
    pub fn finish(mut self) -> io::Result<()> {
        let r = self.enc.flush();
        r.map_err(|e| self.named(e))
    }
}

/// VCD through the `vcd` crate.
pub struct VcdEncoder<W: Write> {
    w: vcd::Writer<W>,
    ids: Vec<IdCode>,
    bits: Vec<Value>,
}

impl<W: Write> Encoder for VcdEncoder<W> {
    fn timestamp(&mut self, t: u64) -> io::Result<()> {
        self.w.timestamp(t)
    }
    fn change(&mut self, id: usize, width: u32, v: &[u64]) -> io::Result<()> {
        if width == 1 {
            let bit = if v[0] & 1 != 0 { Value::V1 } else { Value::V0 };
            return self.w.change_scalar(self.ids[id], bit);
        }
        self.bits.clear();
        for i in (0..width as usize).rev() {
            self.bits.push(if (v[i / 64] >> (i % 64)) & 1 != 0 {
                Value::V1
            } else {
                Value::V0
            });
        }
        self.w
            .change_vector(self.ids[id], self.bits.iter().copied())
    }
    fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }
}

impl PortWave<VcdEncoder<BufWriter<File>>> {
    /// Creates the file at `path` and writes the header for `ports` (`clock` excluded). Every
    /// error, of this call and of the later writes, names the file.
    pub fn create(path: impl AsRef<Path>, ports: &[PortSpec]) -> io::Result<Self> {
        let path = path.as_ref();
        let file = create_file(path).map_err(|e| name_error(path, e))?;
        let mut v = Self::new(BufWriter::new(file), ports).map_err(|e| name_error(path, e))?;
        v.path = Some(path.to_path_buf());
        Ok(v)
    }
}

impl<W: Write> PortWave<VcdEncoder<W>> {
    /// Writes the header for `ports` (`clock` excluded) to `writer`.
    pub fn new(writer: W, ports: &[PortSpec]) -> io::Result<Self> {
        let mut w = vcd::Writer::new(writer);
        w.timescale(1, TimescaleUnit::NS)?;
        w.add_module("TOP")?;
        let mut ids = vec![w.add_wire(1, "clock")?];
        for p in ports {
            ids.push(w.add_wire(p.width, &p.name)?);
        }
        w.upscope()?;
        w.enddefinitions()?;
        let enc = VcdEncoder {
            w,
            ids,
            bits: Vec::with_capacity(64),
        };
        Ok(Self::with(enc, ports))
    }

    /// The underlying writer (for in-memory use).
    pub fn writer(&mut self) -> &mut W {
        self.enc.w.writer()
    }
}

/// FST through the `fst-writer` crate. Changes are buffered and written as a compressed
/// value-change block whenever [`FST_BLOCK_BYTES`] of them have gathered, so memory stays
/// bounded however long the window.
pub struct FstEncoder {
    body: Option<FstBodyWriter<BufWriter<File>>>,
    ids: Vec<FstSignalId>,
    text: Vec<u8>,
}

/// The buffered changes after which an FST value-change block is written.
pub const FST_BLOCK_BYTES: usize = 8 << 20;

fn fst_error(e: fst_writer::FstWriteError) -> io::Error {
    match e {
        fst_writer::FstWriteError::Io(e) => e,
        e => io::Error::other(e.to_string()),
    }
}

impl Encoder for FstEncoder {
    fn timestamp(&mut self, t: u64) -> io::Result<()> {
        let body = self
            .body
            .as_mut()
            .ok_or_else(|| io::Error::other("FST already finished"))?;
        if body.size() > FST_BLOCK_BYTES {
            body.flush().map_err(fst_error)?;
        }
        body.time_change(t).map_err(fst_error)
    }
    fn change(&mut self, id: usize, width: u32, v: &[u64]) -> io::Result<()> {
        self.text.clear();
        for i in (0..width as usize).rev() {
            self.text.push(if (v[i / 64] >> (i % 64)) & 1 != 0 {
                b'1'
            } else {
                b'0'
            });
        }
        let body = self
            .body
            .as_mut()
            .ok_or_else(|| io::Error::other("FST already finished"))?;
        body.signal_change(self.ids[id], &self.text)
            .map_err(fst_error)
    }
    fn flush(&mut self) -> io::Result<()> {
        match self.body.take() {
            Some(body) => {
                let mut out = body.finish().map_err(fst_error)?;
                out.flush()?;
                out.get_ref().sync_data().or(Ok(()))
            }
            None => Ok(()),
        }
    }
}

impl PortWave<FstEncoder> {
    /// Creates the FST file at `path` with the header for `ports` (`clock` excluded). Every
    /// error, of this call and of the later writes, names the file.
    pub fn create(path: impl AsRef<Path>, ports: &[PortSpec]) -> io::Result<Self> {
        Self::create_from(path, ports, 0)
    }

    /// As [`PortWave::create`], for a waveform whose first cycle is `first` (a window): an FST
    /// header names the time its data starts at.
    pub fn create_from(path: impl AsRef<Path>, ports: &[PortSpec], first: u64) -> io::Result<Self> {
        let path = path.as_ref();
        let named = |e| name_error(path, e);
        let file = create_file(path).map_err(named)?;
        let info = FstInfo {
            start_time: CYCLE_TIME_NS * first,
            timescale_exponent: -9,
            version: "idemnet golden model".into(),
            date: String::new(),
            file_type: FstFileType::Verilog,
        };
        let mut h = fst_writer::FstHeaderWriter::new(BufWriter::new(file), &info)
            .map_err(|e| named(fst_error(e)))?;
        let var = |h: &mut fst_writer::FstHeaderWriter<_>, name: &str, width: u32| {
            h.var(
                name,
                FstSignalType::bit_vec(width),
                FstVarType::Wire,
                FstVarDirection::Implicit,
                None,
            )
            .map_err(|e| named(fst_error(e)))
        };
        h.scope("TOP", "", FstScopeType::Module)
            .map_err(|e| named(fst_error(e)))?;
        let mut ids = vec![var(&mut h, "clock", 1)?];
        for p in ports {
            ids.push(var(&mut h, &p.name, p.width)?);
        }
        h.up_scope().map_err(|e| named(fst_error(e)))?;
        let body = h.finish().map_err(|e| named(fst_error(e)))?;
        let enc = FstEncoder {
            body: Some(body),
            ids,
            text: Vec::with_capacity(64),
        };
        let mut w = Self::with(enc, ports);
        w.path = Some(path.to_path_buf());
        Ok(w)
    }
}

/// Opens `path` for writing. A FIFO nobody reads makes a plain open wait forever; opened
/// non-blocking it fails at once, and the file is made blocking again for the writes.
#[cfg(unix)]
fn create_file(path: &Path) -> io::Result<File> {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::OpenOptionsExt;
    let f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let fd = f.as_raw_fd();
    // SAFETY: fcntl on a descriptor this function owns, with plain integer arguments.
    let cleared = unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        flags >= 0 && libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) >= 0
    };
    if !cleared {
        return Err(io::Error::last_os_error());
    }
    Ok(f)
}

#[cfg(not(unix))]
fn create_file(path: &Path) -> io::Result<File> {
    File::create(path)
}

fn name_error(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(
        e.kind(),
        format!("cannot write the waveform {}: {e}", path.display()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::ModelBlock;

    #[test]
    fn small_waveform() {
        let ports = vec![
            PortSpec::input("a$0", 1),
            PortSpec::input("b", 35),
            PortSpec::output("y", 3),
            PortSpec::output("wide", 70),
        ];
        let mut v = PortVcd::new(Vec::new(), &ports).unwrap();
        v.cycle(0, &[1, 0b101], &[0b11, 1, 0]).unwrap();
        v.cycle(1, &[1, 0b101 | (1 << 40)], &[0b11, 1, 1 << 5])
            .unwrap();
        v.cycle(2, &[0, 0b100], &[0b11, 1, 1 << 5]).unwrap();
        let text = String::from_utf8(v.writer().clone()).unwrap();
        let expect = "$timescale 1 ns $end
$scope module TOP $end
$var wire 1 ! clock $end
$var wire 1 \" a$0 $end
$var wire 35 # b $end
$var wire 3 $ y $end
$var wire 70 % wide $end
$upscope $end
$enddefinitions $end
#0
0!
1\"
b00000000000000000000000000000000101 #
b000 $
b0000000000000000000000000000000000000000000000000000000000000000000000 %
#5
1!
b011 $
b0000000000000000000000000000000000000000000000000000000000000000000001 %
#10
0!
#15
1!
b1000000000000000000000000000000000000000000000000000000000000000000001 %
#20
0!
0\"
b00000000000000000000000000000000100 #
#25
1!
";
        assert_eq!(text, expect);
    }

    #[test]
    fn write_errors_name_the_file() {
        let ports = vec![PortSpec::input("a", 64), PortSpec::output("y", 64)];
        let mut v = PortVcd::create("/dev/full", &ports).unwrap();
        // The buffer holds the first cycles; the error shows when it is written out.
        let e = (0..10_000u64)
            .find_map(|t| v.cycle(t, &[t.wrapping_mul(0x9E37_79B9)], &[!t]).err())
            .expect("a full disk must fail a write");
        let text = e.to_string();
        assert!(
            text.contains("cannot write the waveform /dev/full") && text.contains("No space"),
            "{text}"
        );
        let e = PortVcd::create("/nonexistent-folder/x.vcd", &ports)
            .err()
            .unwrap();
        assert!(e.to_string().contains("/nonexistent-folder/x.vcd"), "{e}");
    }

    #[test]
    fn fabric_waveform_file() {
        let mut f = crate::Fabric::new(2, 1).unwrap();
        let ports = f.ports();
        let path =
            std::env::temp_dir().join(format!("idemnet-model-wave-{}.vcd", std::process::id()));
        let mut v = PortVcd::create(&path, &ports).unwrap();
        let mut out = vec![0u64; 2 + 4];
        let inp = [crate::switch::head_flit(0, 1, true), 0];
        ModelBlock::step(&mut f, &inp, &mut out);
        v.cycle(0, &inp, &out).unwrap();
        // The switch shows the flit one cycle later (§4), in O_1.
        ModelBlock::step(&mut f, &[0, 0], &mut out);
        v.cycle(1, &[0, 0], &out).unwrap();
        v.finish().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert!(text.contains("$var wire 35 \" node_in$0 $end"));
        assert!(text.contains("$var wire 16 & drops$0 $end"));
        assert!(
            text.contains("#15\n1!\nb11100000000000000000000000000000001 %\n"),
            "{text}"
        );
    }
}
