//! A strict check of a VCD file before `wellen` reads it.
//!
//! `wellen` is lenient where it can be and panics where it cannot (a value wider than its
//! variable, an undeclared id code, a real value for a bit vector), it prints a warning on
//! stdout when time goes back, and its errors carry no line number. This check accepts the part
//! of IEEE 1364 §18 that simulators write (Verilator, Icarus, the `vcd` crate) and rejects the
//! rest with the line and what is wrong, so that every file it passes is one that `wellen` reads
//! without a panic and as the file means it. It splits tokens and finds `$end` exactly as
//! `wellen` 0.25 does, so both see the same commands.
//!
//! A file that does not end with a line end was cut in the middle of a line (every simulator
//! ends its last line), so it is rejected as truncated; a file cut at a line boundary is valid
//! VCD, and only the time span it covers tells it apart from the whole one.

use std::collections::HashMap;
use std::io::BufRead;
use std::path::Path;

use anyhow::{anyhow, Result};

/// The widest variable accepted. `wellen` expands every short vector value to the declared
/// width, so a width a damaged header makes huge would exhaust the memory.
pub(crate) const MAX_WIDTH: u32 = 1 << 16;

/// What the values of a variable look like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

/// The characters of a 9-state bit, as `wellen` decodes them.
fn is_bit(c: u8) -> bool {
    b"01xXzZhHuUwWlL-".contains(&c)
}

/// The characters a short vector may start with: `wellen` extends only these to the width.
fn extends(c: u8) -> bool {
    b"01xXzZ".contains(&c)
}

/// White space between header commands (`wellen`'s `skip_whitespace`).
fn header_space(c: u8) -> bool {
    matches!(c, b' ' | b'\n' | b'\r' | b'\t')
}

/// White space between the tokens of a header command's body (`wellen`'s `find_tokens`).
fn body_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n')
}

/// A token as a message shows it: printable ASCII kept, other bytes as `\xNN`, at most 40
/// characters, so that the message stays one line.
fn show(token: &[u8]) -> String {
    let mut s = String::new();
    for (i, &c) in token.iter().enumerate() {
        if i == 40 {
            s.push('…');
            break;
        }
        if (0x20..0x7f).contains(&c) {
            s.push(c as char);
        } else {
            s.push_str(&format!("\\x{c:02x}"));
        }
    }
    s
}

const SCOPE_TYPES: &[&str] = &[
    "module",
    "task",
    "function",
    "begin",
    "fork",
    "generate",
    "struct",
    "union",
    "class",
    "interface",
    "package",
    "program",
    "vhdl_architecture",
    "vhdl_procedure",
    "vhdl_function",
    "vhdl_record",
    "vhdl_process",
    "vhdl_block",
    "vhdl_for_generate",
    "vhdl_if_generate",
    "vhdl_generate",
    "vhdl_package",
    "unknown",
    "clocking",
    "sv_array",
];

fn var_kind(tpe: &str, width: u32) -> Option<Kind> {
    Some(match tpe {
        "event" => Kind::Event,
        "real" | "realtime" | "shortreal" | "real_parameter" => Kind::Real,
        "string" => Kind::Text,
        "wire" | "reg" | "parameter" | "integer" | "supply0" | "supply1" | "time" | "tri"
        | "triand" | "trior" | "trireg" | "tri0" | "tri1" | "wand" | "wor" | "logic" | "port"
        | "sparray" | "bit" | "int" | "shortint" | "longint" | "byte" | "enum" => Kind::Bits(width),
        _ => return None,
    })
}

struct Checker<'a, R> {
    path: &'a Path,
    input: R,
    /// Line of the next byte (1-based).
    line: u64,
    vars: HashMap<Vec<u8>, Var>,
}

impl<R: BufRead> Checker<'_, R> {
    fn error(&self, line: u64, what: impl std::fmt::Display) -> anyhow::Error {
        anyhow!("{}: line {line}: {what}", self.path.display())
    }

    fn read_error(&self, e: std::io::Error) -> anyhow::Error {
        anyhow!("{}: cannot be read: {e}", self.path.display())
    }

    fn byte(&mut self) -> Result<Option<u8>> {
        let b = match self.input.fill_buf() {
            Ok([]) => return Ok(None),
            Ok(buf) => buf[0],
            Err(e) => return Err(self.read_error(e)),
        };
        self.input.consume(1);
        if b == b'\n' {
            self.line += 1;
        }
        Ok(Some(b))
    }

    fn truncated_in_header(&self) -> anyhow::Error {
        self.error(
            self.line,
            "the file ends in its header, before `$enddefinitions` (truncated?)",
        )
    }

    /// The next header command: its line, its name and its body up to `$end`, or `None` after
    /// `$enddefinitions $end`.
    fn command(&mut self) -> Result<(u64, Vec<u8>, Vec<u8>)> {
        let first = loop {
            match self.byte()? {
                None => return Err(self.truncated_in_header()),
                Some(c) if header_space(c) => {}
                Some(c) => break c,
            }
        };
        let line = self.line;
        if first != b'$' {
            let mut token = vec![first];
            while let Some(c) = self.byte()? {
                if header_space(c) {
                    break;
                }
                token.push(c);
            }
            return Err(self.error(
                line,
                format!(
                    "`{}` where the header expects a `$` keyword (is this a VCD file?)",
                    show(&token)
                ),
            ));
        }
        let mut name = Vec::new();
        loop {
            match self.byte()? {
                None => return Err(self.truncated_in_header()),
                Some(c) if header_space(c) => break,
                Some(c) => name.push(c),
            }
        }
        // `wellen`'s scan for `$end`: a mismatch starts over without looking at the byte again,
        // so `$$end` does not end a command for it, and must not for this check either.
        let mut body = Vec::new();
        let mut matched = 0;
        let mut leading = true;
        loop {
            let Some(c) = self.byte()? else {
                return Err(self.error(
                    line,
                    format!(
                        "`${}` has no `$end` before the file ends (truncated?)",
                        show(&name)
                    ),
                ));
            };
            if leading && header_space(c) {
                continue;
            }
            leading = false;
            body.push(c);
            matched = match (matched, c) {
                (0, b'$') => 1,
                (1, b'e') => 2,
                (2, b'n') => 3,
                (3, b'd') => break,
                _ => 0,
            };
        }
        body.truncate(body.len() - 4);
        while body.last().is_some_and(|&c| header_space(c)) {
            body.pop();
        }
        Ok((line, name, body))
    }

    /// The tokens of a structured command's body, all printable ASCII.
    fn tokens<'b>(&self, line: u64, name: &str, body: &'b [u8]) -> Result<Vec<&'b [u8]>> {
        if let Some(&c) = body
            .iter()
            .find(|&&c| !body_space(c) && !(0x21..0x7f).contains(&c))
        {
            return Err(self.error(
                line,
                format!("byte 0x{c:02x} in `${name}`, which holds printable ASCII only"),
            ));
        }
        Ok(body
            .split(|&c| body_space(c))
            .filter(|t| !t.is_empty())
            .collect())
    }

    fn header(&mut self) -> Result<()> {
        let mut depth = 0usize;
        // `wellen` asserts that these come once.
        let mut once: HashMap<String, u64> = HashMap::new();
        loop {
            let (line, name, body) = self.command()?;
            let name = String::from_utf8_lossy(&name).into_owned();
            if matches!(name.as_str(), "date" | "version" | "timescale") {
                if let Some(first) = once.insert(name.clone(), line) {
                    return Err(self.error(
                        line,
                        format!("a second `${name}` (the first is on line {first})"),
                    ));
                }
            }
            match name.as_str() {
                "date" | "version" | "comment" => {}
                "timescale" => {
                    let t = self.tokens(line, &name, &body)?;
                    let (factor, unit): (&[u8], &[u8]) = match t.as_slice() {
                        [one] => {
                            let digits = one.iter().take_while(|c| c.is_ascii_digit()).count();
                            one.split_at(digits)
                        }
                        [factor, unit] => (factor, unit),
                        _ => (&[], &[]),
                    };
                    let factor_ok = matches!(factor, b"1" | b"10" | b"100");
                    let unit_ok = matches!(unit, b"s" | b"ms" | b"us" | b"ns" | b"ps" | b"fs");
                    if !(factor_ok && unit_ok) {
                        return Err(self.error(
                            line,
                            format!(
                                "`$timescale {}`: expected 1, 10 or 100 and a unit (s, ms, us, \
                                 ns, ps or fs)",
                                show(&body)
                            ),
                        ));
                    }
                }
                "scope" => {
                    let t = self.tokens(line, &name, &body)?;
                    let known = |tpe: &[u8]| SCOPE_TYPES.iter().any(|s| s.as_bytes() == tpe);
                    match t.as_slice() {
                        [tpe, _] if known(tpe) => depth += 1,
                        _ => {
                            return Err(self.error(
                                line,
                                format!(
                                    "`$scope {}`: expected a scope type (module, task, function, \
                                     begin, fork, ...) and a name",
                                    show(&body)
                                ),
                            ))
                        }
                    }
                }
                "upscope" => {
                    if !self.tokens(line, &name, &body)?.is_empty() || depth == 0 {
                        return Err(self.error(
                            line,
                            "`$upscope` without an open `$scope`, or with text before its `$end`",
                        ));
                    }
                    depth -= 1;
                }
                "var" => self.var(line, &body)?,
                "enddefinitions" => {
                    if !self.tokens(line, &name, &body)?.is_empty() {
                        return Err(self.error(line, "text inside `$enddefinitions $end`"));
                    }
                    if depth != 0 {
                        return Err(self.error(
                            line,
                            format!(
                                "{depth} `$scope` not closed by `$upscope` at `$enddefinitions`"
                            ),
                        ));
                    }
                    return self.end_of_definitions_line(line);
                }
                other => {
                    return Err(self.error(
                        line,
                        format!(
                            "unknown header keyword `${}` (expected $date, $version, $comment, \
                             $timescale, $scope, $upscope, $var or $enddefinitions)",
                            show(other.as_bytes())
                        ),
                    ))
                }
            }
        }
    }

    fn var(&mut self, line: u64, body: &[u8]) -> Result<()> {
        let t = self.tokens(line, "var", body)?;
        let bad = |what: String| self.error(line, format!("`$var {}`: {what}", show(body)));
        let [tpe, width, id, name @ ..] = t.as_slice() else {
            return Err(bad("expected a type, a width, an id code and a name".into()));
        };
        if name.is_empty() {
            return Err(bad("expected a type, a width, an id code and a name".into()));
        }
        let width = std::str::from_utf8(width)
            .ok()
            .filter(|w| w.bytes().all(|c| c.is_ascii_digit()))
            .and_then(|w| w.parse::<u32>().ok())
            .filter(|w| (1..=MAX_WIDTH).contains(w))
            .ok_or_else(|| bad(format!("the width must be a number from 1 to {MAX_WIDTH}")))?;
        let tpe = String::from_utf8_lossy(tpe);
        let kind = var_kind(&tpe, width)
            .ok_or_else(|| bad(format!("unknown variable type `{}`", show(tpe.as_bytes()))))?;
        if kind == Kind::Event && width != 1 {
            return Err(bad("an event has width 1".into()));
        }
        let joined = name
            .iter()
            .map(|n| String::from_utf8_lossy(n))
            .collect::<Vec<_>>()
            .join(" ");
        let opens = joined.matches('[').count();
        if joined.starts_with('[') || opens != joined.matches(']').count() {
            return Err(bad("the name's brackets do not pair".into()));
        }
        match self.vars.get(*id) {
            Some(v) if v.kind != kind => Err(bad(format!(
                "id code `{}` was declared on line {} as `{}` with another type or width",
                show(id),
                v.line,
                v.name
            ))),
            Some(_) => Ok(()),
            None => {
                self.vars.insert(
                    id.to_vec(),
                    Var {
                        kind,
                        name: joined,
                        line,
                    },
                );
                Ok(())
            }
        }
    }

    /// `wellen` skips the rest of the line that ends the definitions; nothing may hide there.
    fn end_of_definitions_line(&mut self, line: u64) -> Result<()> {
        loop {
            match self.byte()? {
                None => {
                    return Err(self.error(
                        line,
                        "the file ends right after `$enddefinitions $end`, without a line end \
                         (truncated?)",
                    ))
                }
                Some(b'\n') => return Ok(()),
                Some(b' ' | b'\t' | b'\r') => {}
                Some(_) => {
                    return Err(self.error(line, "text after `$enddefinitions $end` on its line"))
                }
            }
        }
    }

    fn value(&self, line: u64, value: &[u8], id: Option<&[u8]>) -> Result<()> {
        let Some(id) = id.filter(|i| !i.is_empty()) else {
            return Err(self.error(
                line,
                format!("value `{}` has no id code on its line", show(value)),
            ));
        };
        let Some(var) = self.vars.get(id) else {
            return Err(self.error(
                line,
                format!(
                    "value `{}` for id code `{}`, which no `$var` declares",
                    show(value),
                    show(id)
                ),
            ));
        };
        let wrong = |what: String| {
            self.error(
                line,
                format!(
                    "value `{}` for `{}` (id code `{}`, declared on line {}): {what}",
                    show(value),
                    var.name,
                    show(id),
                    var.line
                ),
            )
        };
        let digits = &value[1..];
        match (value[0], var.kind) {
            (b'b' | b'B', Kind::Bits(width)) => {
                if digits.is_empty() || !digits.iter().all(|&c| is_bit(c)) {
                    return Err(wrong(
                        "a vector value is `b` and the bits 0, 1, x, z, ...".into(),
                    ));
                }
                let n = digits.len() as u64;
                if n > u64::from(width) {
                    return Err(wrong(format!("{n} bits, but the variable has {width}")));
                }
                if n < u64::from(width) && !extends(digits[0]) {
                    return Err(wrong(format!(
                        "{n} bits of {width}, and a short value must start with 0, 1, x or z"
                    )));
                }
                Ok(())
            }
            (b'r' | b'R', Kind::Real) => std::str::from_utf8(digits)
                .ok()
                .and_then(|s| s.parse::<f64>().ok())
                .map(|_| ())
                .ok_or_else(|| wrong("not a real number".into())),
            (b's' | b'S', Kind::Text) => Ok(()),
            (c, Kind::Bits(1) | Kind::Event) if is_bit(c) => Ok(()),
            (c, kind) => {
                let expected = match kind {
                    Kind::Bits(1) | Kind::Event => "a one-bit value such as `1!`".to_string(),
                    Kind::Bits(w) => format!("a `b` vector value of up to {w} bits"),
                    Kind::Real => "an `r` real value".to_string(),
                    Kind::Text => "an `s` string value".to_string(),
                };
                Err(wrong(format!(
                    "a value starting with `{}`, but the variable takes {expected}",
                    show(&[c])
                )))
            }
        }
    }

    fn body(&mut self) -> Result<()> {
        let mut buf = Vec::new();
        let mut time: Option<u64> = None;
        let mut comment_from: Option<u64> = None;
        loop {
            buf.clear();
            let n = self
                .input
                .read_until(b'\n', &mut buf)
                .map_err(|e| self.read_error(e))?;
            if n == 0 {
                break;
            }
            let line = self.line;
            if buf.last() != Some(&b'\n') {
                return Err(self.error(
                    line,
                    "the file ends in the middle of this line (truncated?)",
                ));
            }
            self.line += 1;
            let mut tokens = buf
                .split(|c| c.is_ascii_whitespace())
                .filter(|t| !t.is_empty());
            while let Some(token) = tokens.next() {
                if comment_from.is_some() {
                    if token == b"$end" {
                        comment_from = None;
                    }
                    continue;
                }
                match token[0] {
                    b'#' => {
                        let t = std::str::from_utf8(&token[1..])
                            .ok()
                            .filter(|d| !d.is_empty() && d.bytes().all(|c| c.is_ascii_digit()))
                            .and_then(|d| d.parse::<u64>().ok())
                            .ok_or_else(|| {
                                self.error(
                                    line,
                                    format!("time `{}` is not a whole number", show(token)),
                                )
                            })?;
                        if let Some(before) = time.filter(|&b| t < b) {
                            return Err(self.error(
                                line,
                                format!("time #{t} goes back (the time before was #{before})"),
                            ));
                        }
                        time = Some(t);
                    }
                    b'b' | b'B' | b'r' | b'R' | b's' | b'S' => {
                        self.value(line, token, tokens.next())?
                    }
                    c if is_bit(c) => self.value(line, &token[..1], Some(&token[1..]))?,
                    _ => match token {
                        b"$comment" => comment_from = Some(line),
                        b"$dumpvars" | b"$dumpall" | b"$dumpon" | b"$dumpoff" | b"$end" => {}
                        _ => {
                            return Err(self.error(
                                line,
                                format!(
                                    "`{}` is neither a time (#...), a value change nor a \
                                     $dump keyword",
                                    show(token)
                                ),
                            ))
                        }
                    },
                }
            }
        }
        match comment_from {
            Some(line) => Err(self.error(
                line,
                "`$comment` has no `$end` before the file ends (truncated?)",
            )),
            None => Ok(()),
        }
    }
}

/// Checks the VCD `input` (read from `path`, which messages name). The error is one line: the
/// file, the line number and what is wrong there.
pub(crate) fn check_vcd(path: &Path, input: impl BufRead) -> Result<()> {
    let mut c = Checker {
        path,
        input,
        line: 1,
        vars: HashMap::new(),
    };
    c.header()?;
    c.body()
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
    }

    #[test]
    fn names_the_line_and_the_problem() {
        let cases = [
            (
                GOOD.replace("b1010 \"", "b10100 \""),
                "line 16",
                "5 bits, but the variable has 4",
            ),
            (
                GOOD.replace("1!\nb1010", "1%\nb1010"),
                "line 15",
                "which no `$var` declares",
            ),
            (GOOD.replace("#10", "#3"), "line 17", "goes back"),
            (
                GOOD[..GOOD.len() - 1].to_string(),
                "line 18",
                "middle of this line",
            ),
            (GOOD[..68].to_string(), "line 4", "before `$enddefinitions`"),
            (GOOD[..60].to_string(), "line 3", "`$var` has no `$end`"),
            (GOOD.replace("wire 4", "wire 0"), "line 4", "width must be"),
            (
                GOOD.replace("r0.5", "b1"),
                "line 12",
                "takes an `r` real value",
            ),
            (GOOD.replace("b1010 \"", "b1010"), "line 16", "no id code"),
            (
                GOOD.replace("b0 \"", "bh \""),
                "line 11",
                "must start with 0, 1, x or z",
            ),
            (GOOD.replace("#5", "$bogus"), "line 14", "neither a time"),
            (
                GOOD.replace("1ns", "3 ns"),
                "line 1",
                "expected 1, 10 or 100",
            ),
            (GOOD.replace("$upscope $end\n", ""), "line 6", "not closed"),
            (
                format!("$timescale 1ns $end\n{GOOD}"),
                "line 2",
                "a second `$timescale`",
            ),
        ];
        for (text, line, what) in cases {
            let e = check(&text).expect_err(what);
            assert!(e.starts_with(&format!("w.vcd: {line}: ")), "{e}");
            assert!(e.contains(what), "{e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }
}
