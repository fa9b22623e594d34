//! The Prometheus exposition: the one place where metrics become Prometheus text.
//!
//! [`Exposition`] collects metric families (gauges, counters, histograms with buckets) and renders
//! them in the text format 0.0.4 through the `prometheus` crate's `TextEncoder`. The framework's
//! counters ([`NetStats::write_metrics`](crate::NetStats::write_metrics)), its stage histograms
//! ([`PerfHistograms::write_metrics`](crate::PerfHistograms::write_metrics)) and the data node's
//! status variables all go through it, so the format, the escaping and the naming rules live here
//! only.
//!
//! # Why `prometheus` and not `prometheus-client`
//!
//! `prometheus-client` writes only the OpenMetrics text format, in which a counter family `foo`
//! has the sample `foo_total`. `promtool check metrics` (Prometheus 2.42, Debian 12), which the
//! tests run over the endpoint's output, parses the classic format and rejects exactly that
//! (`foo_total metric name should not include type 'counter'`, `foo_total no help text`). The
//! `prometheus` crate writes the classic format, and with its default features off it brings only
//! a plain data model.
//!
//! # Naming
//!
//! Following Prometheus's conventions: a counter's name ends in `_total` ([`Exposition::counter`]
//! appends it when missing), a gauge's does not, a histogram of durations is in seconds and named
//! `…_seconds`. Names are the caller's; [`metric_name`] makes an arbitrary string a valid one.

use prometheus::TextEncoder;
use prometheus::proto::{
    Bucket, Counter, Gauge, Histogram, LabelPair, Metric, MetricFamily, MetricType,
};

/// The HTTP `Content-Type` of [`Exposition::render`]'s output.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// One histogram series: its labels, its cumulative buckets and its totals.
#[derive(Debug, Clone, PartialEq)]
pub struct HistogramSeries {
    /// Label pairs of the series, such as `[("stage", "run")]`.
    pub labels: Vec<(String, String)>,
    /// `(upper bound, cumulative count)` in ascending bound order, without the `+Inf` bucket
    /// (which is `count`).
    pub buckets: Vec<(f64, u64)>,
    /// Sum of the observed values.
    pub sum: f64,
    /// Number of observed values.
    pub count: u64,
}

/// Metric families to render together; see the [module docs](self).
#[derive(Debug, Default)]
pub struct Exposition {
    families: Vec<MetricFamily>,
}

impl Exposition {
    /// An empty exposition.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a gauge: a level that goes up and down.
    pub fn gauge(&mut self, name: &str, help: &str, value: f64) {
        let mut gauge = Gauge::default();
        gauge.set_value(value);
        let mut metric = Metric::default();
        metric.set_gauge(gauge);
        self.push(name.to_owned(), help, MetricType::GAUGE, vec![metric]);
    }

    /// Adds a counter: a total since start, which only grows. `_total` is appended to `name`
    /// unless it already ends with it.
    pub fn counter(&mut self, name: &str, help: &str, value: f64) {
        let name = if name.ends_with("_total") {
            name.to_owned()
        } else {
            format!("{name}_total")
        };
        let mut counter = Counter::default();
        counter.set_value(value);
        let mut metric = Metric::default();
        metric.set_counter(counter);
        self.push(name, help, MetricType::COUNTER, vec![metric]);
    }

    /// Adds a counter family with one series per `(label value, value)` of `series`, each
    /// labelled `label`; `_total` is appended to `name` as for [`Exposition::counter`].
    pub fn labeled_counter(&mut self, name: &str, help: &str, label: &str, series: &[(&str, f64)]) {
        let name = if name.ends_with("_total") {
            name.to_owned()
        } else {
            format!("{name}_total")
        };
        let metrics = series
            .iter()
            .map(|&(label_value, value)| {
                let mut counter = Counter::default();
                counter.set_value(value);
                let mut pair = LabelPair::default();
                pair.set_name(label.to_owned());
                pair.set_value(label_value.to_owned());
                let mut metric = Metric::default();
                metric.set_label(vec![pair]);
                metric.set_counter(counter);
                metric
            })
            .collect();
        self.push(name, help, MetricType::COUNTER, metrics);
    }

    /// Adds a histogram family with one series per element of `series`.
    pub fn histogram(&mut self, name: &str, help: &str, series: Vec<HistogramSeries>) {
        let metrics = series
            .into_iter()
            .map(|s| {
                let mut histogram = Histogram::default();
                histogram.set_sample_count(s.count);
                histogram.set_sample_sum(s.sum);
                histogram.set_bucket(
                    s.buckets
                        .iter()
                        .map(|&(upper, cumulative)| {
                            let mut bucket = Bucket::default();
                            bucket.set_upper_bound(upper);
                            bucket.set_cumulative_count(cumulative);
                            bucket
                        })
                        .collect(),
                );
                let mut metric = Metric::default();
                metric.set_label(
                    s.labels
                        .into_iter()
                        .map(|(name, value)| {
                            let mut pair = LabelPair::default();
                            pair.set_name(name);
                            pair.set_value(value);
                            pair
                        })
                        .collect(),
                );
                metric.set_histogram(histogram);
                metric
            })
            .collect();
        self.push(name.to_owned(), help, MetricType::HISTOGRAM, metrics);
    }

    /// Families added so far.
    pub fn len(&self) -> usize {
        self.families.len()
    }

    /// Whether nothing was added.
    pub fn is_empty(&self) -> bool {
        self.families.is_empty()
    }

    /// The families as Prometheus text (format 0.0.4), in the order they were added.
    pub fn render(&self) -> String {
        let mut out = String::new();
        // The encoder fails only on a family without samples or name, which `push` never keeps.
        if let Err(err) = TextEncoder::new().encode_utf8(&self.families, &mut out) {
            unreachable!("a well-formed exposition failed to encode: {err}");
        }
        out
    }

    fn push(&mut self, name: String, help: &str, kind: MetricType, metrics: Vec<Metric>) {
        if metrics.is_empty() || name.is_empty() {
            return;
        }
        let mut family = MetricFamily::default();
        family.set_name(name);
        family.set_help(help.to_owned());
        family.set_field_type(kind);
        family.set_metric(metrics);
        self.families.push(family);
    }
}

/// `name` with every character outside `[a-zA-Z0-9_:]` replaced by `_`, and a leading digit
/// prefixed with `_`, as Prometheus requires of metric names.
pub fn metric_name(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == ':' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_render_with_help_type_and_conventional_names() {
        let mut exp = Exposition::new();
        exp.gauge("x_open", "Open things.", 3.0);
        exp.counter("x_accepted", "Things accepted.", 9.0);
        exp.counter("x_sent_total", "Things sent.", 1.0);
        exp.histogram(
            "x_duration_seconds",
            "Time per thing.",
            vec![HistogramSeries {
                labels: vec![("stage".into(), "run\"x".into())],
                buckets: vec![(0.5, 1), (1.0, 2)],
                sum: 1.25,
                count: 3,
            }],
        );
        exp.labeled_counter(
            "x_done",
            "Things done.",
            "kind",
            &[("a", 2.0), ("b\"", 0.0)],
        );
        assert_eq!(exp.len(), 5);
        let text = exp.render();
        assert!(text.contains(
            "# TYPE x_done_total counter\nx_done_total{kind=\"a\"} 2\nx_done_total{kind=\"b\\\"\"} 0\n"
        ));
        assert!(text.contains("# HELP x_open Open things.\n# TYPE x_open gauge\nx_open 3\n"));
        assert!(text.contains("# TYPE x_accepted_total counter\nx_accepted_total 9\n"));
        assert!(text.contains("# TYPE x_sent_total counter\nx_sent_total 1\n"));
        assert!(text.contains("# TYPE x_duration_seconds histogram\n"));
        assert!(text.contains("x_duration_seconds_bucket{stage=\"run\\\"x\",le=\"0.5\"} 1\n"));
        assert!(text.contains("x_duration_seconds_bucket{stage=\"run\\\"x\",le=\"+Inf\"} 3\n"));
        assert!(text.contains("x_duration_seconds_sum{stage=\"run\\\"x\"} 1.25\n"));
        assert!(text.contains("x_duration_seconds_count{stage=\"run\\\"x\"} 3\n"));
    }

    #[test]
    fn an_empty_histogram_family_is_left_out() {
        let mut exp = Exposition::new();
        exp.histogram("x_seconds", "Nothing.", Vec::new());
        assert!(exp.is_empty());
        assert_eq!(exp.render(), "");
    }

    /// Runs `promtool check metrics` over `text` and fails with its findings. promtool comes
    /// with Debian's `prometheus` package, which `scripts/test.sh` installs.
    fn promtool_check(text: &str) {
        use std::io::Write as _;
        use std::process::{Command, Stdio};
        let mut child = Command::new("promtool")
            .args(["check", "metrics"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("promtool runs (apt-get install prometheus; scripts/test.sh does)");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "promtool check metrics failed:\n{}{}\n--- the text:\n{text}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    #[test]
    fn promtool_accepts_the_framework_exposition() {
        let counters = crate::NetCounters::new();
        counters
            .connections
            .store(2, std::sync::atomic::Ordering::Relaxed);
        counters
            .bytes_sent
            .store(1 << 40, std::sync::atomic::Ordering::Relaxed);
        let hist = crate::PerfHistograms::new(true);
        hist.record(crate::Stage::Run, std::time::Duration::from_micros(7));
        hist.record(crate::Stage::Run, std::time::Duration::from_secs(1000));
        let mut exp = Exposition::new();
        counters.snapshot().write_metrics(&mut exp, "xrpc_net");
        hist.write_metrics(&mut exp, "xrpc");
        exp.labeled_counter(
            "xrpc_things",
            "Things, by kind.",
            "kind",
            &[("a", 1.0), ("b", 0.0)],
        );
        promtool_check(&exp.render());
    }

    #[test]
    fn promtool_rejects_what_it_should() {
        // The check itself can fail: a counter without `_total` is a lint error.
        let text = "# HELP x_sent Things.\n# TYPE x_sent counter\nx_sent 1\n";
        let result = std::panic::catch_unwind(|| promtool_check(text));
        assert!(
            result.is_err(),
            "promtool accepted a counter without _total"
        );
    }

    #[test]
    fn metric_names_are_sanitised() {
        assert_eq!(metric_name("xrpc_sql_hit"), "xrpc_sql_hit");
        assert_eq!(metric_name("a.b-c"), "a_b_c");
        assert_eq!(metric_name("9lives"), "_9lives");
        assert_eq!(metric_name(""), "_");
    }
}
