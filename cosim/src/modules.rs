//! Module names of emitted Verilog. rust-hdl names a design's top `top` and every module below
//! it after its instance path (`top$switches$0$lfsr`), so two emitted designs cannot be compiled
//! together. [`rename_top`] gives a design's modules a name of their own (`idemnet_fabric`,
//! `idemnet_fabric$switches$0$lfsr`) for the files users take; the co-simulation builds keep
//! `top`, and a user's file renamed so is renamed back before it is built (the renaming is a
//! bijection on module names and keeps every line where it was).

use std::collections::HashSet;

use anyhow::{bail, Result};

/// The names of the modules `verilog` declares (`module NAME(` or `module NAME (`), in order.
pub fn declared_modules(verilog: &str) -> Vec<&str> {
    verilog
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("module "))
        .filter_map(|rest| {
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
                .unwrap_or(rest.len());
            (end > 0).then(|| &rest[..end])
        })
        .collect()
}

/// `verilog` with the module `from` and every module named `from$...` renamed to `to` and
/// `to$...`: every identifier equal to such a module name, in declarations, instantiations and
/// comments alike (rust-hdl never names a port or a signal after a module path: its signals are
/// `instance$port`). Refused when `from` is not declared, or when `to` or a `to$...` name is
/// already taken.
pub fn rename_top(verilog: &str, from: &str, to: &str) -> Result<String> {
    let declared = declared_modules(verilog);
    if !declared.contains(&from) {
        bail!("no module `{from}` is declared");
    }
    let own = |m: &str, top: &str| m == top || m.starts_with(&format!("{top}$"));
    let renamed: HashSet<&str> = declared.iter().copied().filter(|m| own(m, from)).collect();
    if let Some(taken) = declared
        .iter()
        .find(|m| own(m, to) && !renamed.contains(*m))
    {
        bail!("module `{taken}` already exists: `{from}` cannot become `{to}`");
    }
    let mut out = String::with_capacity(verilog.len() + renamed.len() * (to.len() + 1));
    let mut rest = verilog;
    while let Some(start) = rest.find(|c: char| c.is_ascii_alphabetic() || c == '_') {
        // An identifier cannot start inside another one or after a `$` (Verilog system tasks
        // and rust-hdl's path separator) or a digit (a number's base or digits).
        let before = verilog.len() - rest.len() + start;
        let prev = verilog[..before].chars().next_back();
        let end = rest[start..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
            .map_or(rest.len(), |e| start + e);
        let word = &rest[start..end];
        out.push_str(&rest[..start]);
        let inside = prev.is_some_and(|c| c.is_ascii_alphanumeric() || c == '$' || c == '_');
        if !inside && renamed.contains(word) {
            out.push_str(to);
            out.push_str(&word[from.len()..]);
        } else {
            out.push_str(word);
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const V: &str = "module top(clock, q);\n    top$lfsr lfsr(.clock(clock));\n    \
                     wire [3:0] stop$x = 4'hf;\nendmodule // top\nmodule top$lfsr(clock);\n\
                     endmodule // top$lfsr\n";

    #[test]
    fn modules_are_renamed_and_nothing_else() {
        let r = rename_top(V, "top", "idemnet_switch").unwrap();
        assert_eq!(
            declared_modules(&r),
            ["idemnet_switch", "idemnet_switch$lfsr"]
        );
        assert!(r.contains("    idemnet_switch$lfsr lfsr(.clock(clock));"));
        assert!(r.contains("stop$x = 4'hf"), "{r}");
        assert!(r.contains("endmodule // idemnet_switch$lfsr"));
        assert_eq!(r.lines().count(), V.lines().count());
        assert_eq!(rename_top(&r, "idemnet_switch", "top").unwrap(), V);
    }

    #[test]
    fn a_missing_or_taken_name_is_refused() {
        let e = rename_top(V, "nope", "x").unwrap_err().to_string();
        assert!(e.contains("no module `nope`"), "{e}");
        let e = rename_top(V, "top$lfsr", "top").unwrap_err().to_string();
        assert!(e.contains("`top` already exists"), "{e}");
    }
}
