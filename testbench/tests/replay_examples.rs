//! The project's example traces (`testbench/traces`, docs/replay.md) print their expected
//! output (`testbench/traces/expected`) on both engines; an outside conformance folder of
//! traces, when one sits beside the repository, runs on both engines with the same output.

mod replay_common;

use replay_common::{examples_match_expected, ni_both, outside_traces_run, rmpp_both};

#[test]
fn every_example_trace_prints_its_expected_output_on_both_engines() {
    examples_match_expected("ni-", ni_both);
    examples_match_expected("rmpp-", rmpp_both);
}

#[test]
fn outside_conformance_traces_run_on_both_engines_when_present() {
    outside_traces_run("ni", ni_both);
    outside_traces_run("rmpp", rmpp_both);
}
