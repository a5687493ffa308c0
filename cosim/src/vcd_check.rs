//! A strict check of a VCD file before `wellen` reads it: `wellen` panics on some malformed
//! files (a value wider than its variable, an undeclared id code, a real value for a bit vector,
//! a second `$timescale`), warns on stdout when time goes back, and names no line in its errors.
//! The `vcd` crate's strict parser reads the file first; the checks here reject, with the line
//! and what is wrong there, what that parser lets through but `wellen` cannot read as meant.
//!
//! A file that does not end with a line end was cut in the middle of a line (every simulator
//! ends its last line), so it is rejected as truncated; a file cut at a line boundary is valid
//! VCD, and only the time span it covers tells it apart from the whole one.

use std::collections::HashMap;
use std::fmt::{self, Display};
use std::path::Path;

use anyhow::{anyhow, Result};
use vcd::Command::*;
use vcd::{IdCode, ParseError, Parser, VarType};

/// The widest variable accepted. `wellen` expands every short vector value to the declared
/// width, so a width a damaged header makes huge would exhaust the memory.
pub(crate) const MAX_WIDTH: u32 = 1 << 16;

/// What the values of a variable look like.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bits(u32),
    Event,
    Real,
    Text,
}

struct Var {
    kind: Kind,
    name: String,
    line: u64,
}

/// Text of the file for a message that must stay one line: trimmed, shortened, control
/// characters escaped, and written out only if the message is.
fn show(text: &str) -> impl Display + '_ {
    fmt::from_fn(move |f| {
        let mut chars = text.trim_ascii().chars().take(40);
        chars.try_for_each(|c| match c.is_control() {
            true => write!(f, "{}", c.escape_debug()),
            false => write!(f, "{c}"),
        })
    })
}

/// Checks the VCD `bytes` (read from `path`, which messages name). The error is one line: the
/// file, the line number and what is wrong there.
pub(crate) fn check_vcd(path: &Path, bytes: &[u8]) -> Result<()> {
    macro_rules! fail {
        ($line:expr, $($what:tt)+) => {
            return Err(anyhow!("{}: line {}: {}", path.display(), $line, format_args!($($what)+)))
        };
    }
    macro_rules! ensure {
        ($ok:expr, $($failure:tt)+) => { if !$ok { fail!($($failure)+) } };
    }
    let last_line = bytes.iter().filter(|&&c| c == b'\n').count() as u64;
    let cut = "the file ends in the middle of this line (truncated?)";
    ensure!(bytes.ends_with(b"\n"), last_line + 1, "{cut}");
    let mut parser = Parser::new(bytes);
    let (mut vars, mut once) = (HashMap::<IdCode, Var>::new(), HashMap::<String, u64>::new());
    let (mut depth, mut in_header, mut time, mut words) = (0u32, true, 0u64, Vec::new());
    loop {
        let start = bytes.len() - parser.reader().len();
        let command = match parser.next().transpose() {
            Ok(Some(command)) => command,
            Ok(None) if in_header => fail!(last_line, "the file ends in its header (truncated?)"),
            Ok(None) => return Ok(()),
            Err(error) => {
                let parse = error.get_ref().and_then(|e| e.downcast_ref::<ParseError>());
                let Some(error) = parse else {
                    fail!(last_line, "the file ends inside a command (truncated?)")
                };
                let (file, line) = (String::from_utf8_lossy(bytes), error.line());
                let text = file.lines().nth(line as usize - 1).unwrap_or_default();
                fail!(line, "`{}`: {}", show(text), error.kind())
            }
        };
        let end = bytes.len() - parser.reader().len();
        let Ok(raw) = std::str::from_utf8(&bytes[start..end]) else {
            fail!(parser.line(), "text that is not UTF-8")
        };
        words.clear();
        words.extend(raw.split_ascii_whitespace());
        let shown = show(raw);
        // The parser counts lines up to the command's last byte; messages name its first line.
        let line = parser.line() - raw.trim_ascii().matches('\n').count() as u64;
        // `wellen` splits every command into words at white space, where the parser also takes
        // `1 !`, `b 10 !`, `# 5` and `$ var`, and ends a `$comment` at `x$end`.
        let (expected, header) = match &command {
            Comment(text) => (text.split_ascii_whitespace().count() + 2, in_header),
            Date(text) | Version(text) => (text.split_ascii_whitespace().count() + 2, true),
            Timescale(..) => (3 + usize::from(words[1].ends_with(char::is_numeric)), true),
            ScopeDef(..) => (4, true),
            VarDef(.., index) => (6 + usize::from(index.is_some()), true),
            Upscope | Enddefinitions => (2, true),
            ChangeVector(..) | ChangeReal(..) | ChangeString(..) => (2, false),
            _ => (1, false),
        };
        let split = format_args!("`{shown}` is not split into words as in VCD (`1!`, `b10 !`)");
        let apart = bytes[end - 1..].iter().take(2).any(u8::is_ascii_whitespace);
        ensure!(words.len() == expected && apart, line, "{split}");
        // `wellen` splits these into words at space, tab and line feed only.
        let stray = matches!(command, VarDef(..) | ScopeDef(..)) && raw.trim_ascii().contains('\r');
        ensure!(!stray, line, "`{shown}`: a carriage return inside");
        let place = if in_header { "after" } else { "before" };
        let placed = format_args!("`{shown}` belongs {place} `$enddefinitions $end`");
        ensure!(header == in_header, line, "{placed}");
        match &command {
            // The standard's factors; larger ones could overflow `wavediff`'s femtosecond count.
            Timescale(factor, _) if ![1, 10, 100].contains(factor) => {
                fail!(line, "`{shown}`: the factor must be 1, 10 or 100")
            }
            Date(_) | Version(_) | Timescale(..) => {
                let keyword = words[0];
                if let Some(first) = once.insert(keyword.to_string(), line) {
                    fail!(line, "a second `{keyword}` (the first is on line {first})")
                }
            }
            ScopeDef(..) => depth += 1,
            Upscope if depth == 0 => fail!(line, "`$upscope` without an open `$scope`"),
            Upscope => depth -= 1,
            VarDef(var_type, width, id, name, _) => {
                let kind = match var_type {
                    VarType::Event => Kind::Event,
                    VarType::Real => Kind::Real,
                    VarType::String => Kind::Text,
                    _ => Kind::Bits(*width),
                };
                let fits = (1..=MAX_WIDTH).contains(width) && (kind != Kind::Event || *width == 1);
                let widths = format_args!("`{shown}`: the width must be from 1 to {MAX_WIDTH}");
                ensure!(fits, line, "{widths}, and 1 for an event");
                // `wellen` reads a bracket at the end of a name as an index.
                let opens = name.matches('[').count();
                let paired = opens == name.matches(']').count() && !name.starts_with('[');
                ensure!(paired, line, "`{shown}`: unpaired brackets in the name");
                let name = name.clone();
                let var = vars.entry(*id).or_insert(Var { kind, name, line });
                let (same, first, earlier) = (var.kind == kind, var.line, &var.name);
                let again = format_args!("id code `{id}` is already `{earlier}` (line {first})");
                ensure!(same, line, "{again}, of another type or width");
            }
            Enddefinitions => {
                ensure!(depth == 0, line, "a `$scope` without its `$upscope`");
                // `wellen` skips the rest of this line.
                let mut rest = bytes[end..].iter().take_while(|&&c| c != b'\n');
                let alone = raw.ends_with('\n') || rest.all(u8::is_ascii_whitespace);
                ensure!(alone, line, "text after `$enddefinitions $end` on its line");
                in_header = false;
            }
            Timestamp(stamp) => {
                ensure!(*stamp >= time, line, "time #{stamp} goes back from #{time}");
                time = *stamp;
            }
            ChangeScalar(id, _) | ChangeVector(id, _) | ChangeReal(id, _) | ChangeString(id, _) => {
                // A scalar change is one word: the value, then the id code.
                let value = show(&words[0][..if words.len() == 1 { 1 } else { words[0].len() }]);
                let unknown =
                    format_args!("value `{value}` for id code `{id}`, which no `$var` declares");
                let Some(var) = vars.get(id) else {
                    fail!(line, "{unknown}")
                };
                let takes = "the variable takes";
                let problem = match (&command, var.kind) {
                    (ChangeVector(_, bits), Kind::Bits(width)) if bits.len() > width as usize => {
                        format!("{} bits, but the variable has {width}", bits.len())
                    }
                    (ChangeVector(..), Kind::Bits(_))
                    | (ChangeScalar(..), Kind::Bits(1) | Kind::Event)
                    | (ChangeReal(..), Kind::Real)
                    | (ChangeString(..), Kind::Text) => continue,
                    (_, Kind::Bits(1) | Kind::Event) => format!("{takes} a bit such as `1!`"),
                    (_, Kind::Bits(width)) => format!("{takes} a `b` vector of up to {width} bits"),
                    (_, Kind::Real) => format!("{takes} an `r` real value"),
                    (_, Kind::Text) => format!("{takes} an `s` string value"),
                };
                let (name, declared) = (&var.name, var.line);
                let about = format_args!("`{name}` (id code `{id}`, declared on line {declared})");
                fail!(line, "value `{value}` for {about}: {problem}")
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "$timescale 1ns $end\n$scope module TOP $end\n\
        $var wire 1 ! clock $end\n$var wire 4 \" q [3:0] $end\n$var real 64 # r $end\n\
        $upscope $end\n$enddefinitions $end\n#0\n$dumpvars\n0!\nb0 \"\nr0.5 #\n$end\n\
        #5\n1!\nb1010 \"\n#10\n0!\n";

    fn check(text: &str) -> std::result::Result<(), String> {
        check_vcd(Path::new("w.vcd"), text.as_bytes()).map_err(|e| format!("{e:#}"))
    }

    #[test]
    fn accepts_what_simulators_write() {
        check(GOOD).unwrap();
        check(&GOOD.replace('\n', "\r\n")).unwrap();
        check(&GOOD.replace("$timescale 1ns $end", "$timescale\r\n 1 ns\r\n$end")).unwrap();
    }

    #[test]
    fn names_the_line_and_the_problem() {
        let cases = [
            ("b1010 \"", "b10100 \"", 16, "5 bits, but the variable"),
            ("1!\nb1010", "1%\nb1010", 15, "which no `$var` declares"),
            ("#10", "#3", 17, "goes back"),
            ("#10\n0!\n", "#10\n0!", 18, "middle of this line"),
            ("wire 4", "wire 0", 4, "width must be"),
            ("wire 1 ! clock", "event 2 ! clock", 3, "1 for an event"),
            ("real 64 #", "wire 2 !", 5, "of another type or width"),
            ("r0.5", "b1", 12, "takes an `r` real value"),
            ("b1010 \"", "1\"", 16, "takes a `b` vector"),
            ("b0 \"", "bh \"", 11, "invalid VCD logic value"),
            ("#5", "$bogus", 14, "unknown command"),
            ("1!\nb1010", "1 !\nb1010", 15, "split into words"),
            ("#5\n", "$comment a$end\n#5\n", 14, "split into words"),
            ("1 ! clock", "1 !\r clock", 3, "carriage return"),
            ("q [3:0]", "q] [3:0]", 4, "brackets"),
            ("1ns", "3 ns", 1, "1, 10 or 100"),
            ("$scope", "$timescale 1ns $end\n$scope", 2, "a second"),
            ("$upscope $end\n", "", 6, "without its `$upscope`"),
            ("$upscope", "$upscope $end\n$upscope", 7, "without an open"),
            ("$upscope", "#5\n$upscope", 6, "belongs after"),
            ("#10\n", "#10\n$var wire 1 % x $end\n", 18, "belongs before"),
            ("$end\n#0", "$end #0", 7, "text after `$enddefinitions"),
        ];
        let cuts = [(68, 3, "in its header"), (62, 3, "inside a command")];
        let cuts = cuts.map(|(at, line, what)| (format!("{}\n", &GOOD[..at - 1]), line, what));
        let cases = cases.map(|(from, to, line, what)| (GOOD.replacen(from, to, 1), line, what));
        for (text, line, what) in cases.into_iter().chain(cuts) {
            let e = check(&text).expect_err(what);
            assert!(e.starts_with(&format!("w.vcd: line {line}: ")), "{e}");
            assert!(e.contains(what), "{e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }
}
