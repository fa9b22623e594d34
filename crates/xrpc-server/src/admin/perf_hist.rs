//! `CALL xrpc.perf_hist`: the framework's stage histograms as a result set, or a reset.

use xrpc_net::hist::{PerfHistograms, Stage, format_duration};
use xrpc_proto::codes;
use xrpc_proto::value::Value;

use super::row::text;
use crate::result::{ColumnInfo, ExecSummary, ResultSink, SqlError};

/// `CALL xrpc.perf_hist(arg)`.
pub(super) fn perf_hist(
    arg: &str,
    hist: &PerfHistograms,
    sink: &mut dyn ResultSink,
) -> Result<ExecSummary, SqlError> {
    let stage = match arg.trim() {
        a if a.eq_ignore_ascii_case("reset") => {
            hist.reset();
            return Ok(ExecSummary::default());
        }
        a if a.eq_ignore_ascii_case("all") => None,
        a => Some(Stage::from_name(a).ok_or_else(|| {
            let names: Vec<_> = Stage::ALL.iter().map(|s| s.name()).collect();
            SqlError::new(
                &codes::WRONG_ARGUMENTS,
                format!(
                    "Unknown perf_hist stage '{a}'; expected 'all', 'reset' or one of {}",
                    names.join(", ")
                ),
            )
        })?),
    };
    let columns = [
        ColumnInfo::text("stage"),
        ColumnInfo::text("lower"),
        ColumnInfo::text("upper"),
        ColumnInfo::bigint_unsigned("count"),
        ColumnInfo::double("percent"),
        ColumnInfo::double("cumulative_percent"),
    ];
    sink.metadata(&columns)?;
    // Percentages keep three decimals: the buckets are 25% wide, more digits mean nothing.
    let round = |p: f64| (p * 1000.0).round() / 1000.0;
    for row in hist.render_table(stage) {
        sink.row(&[
            text(row.stage),
            text(format_duration(row.lower)),
            text(format_duration(row.upper)),
            Value::Uint(row.count),
            Value::Double(round(row.percent)),
            Value::Double(round(row.cumulative_percent)),
        ])?;
    }
    Ok(ExecSummary {
        has_result_set: true,
        ..ExecSummary::default()
    })
}
