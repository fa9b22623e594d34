//! `--plot FILE.png|svg`: QPS and p99 latency against concurrency, one line per target.
//!
//! Two charts side by side, both with a logarithmic concurrency axis (sweeps double it); the
//! latency axis is logarithmic too, since p99 spans orders of magnitude across a sweep. Text is
//! drawn with plotters' `ab_glyph` backend and DejaVu Sans embedded from the `dejavu` crate, so a
//! PNG renders the same on a machine without any system fonts. The format follows the file's
//! extension: `.svg` for SVG, anything else PNG.

use std::error::Error;
use std::path::Path;
use std::sync::Once;

use plotters::coord::Shift;
use plotters::coord::combinators::LogCoord;
use plotters::coord::ranged1d::{Ranged, ValueFormatter};
use plotters::prelude::*;

/// One line: a target's name and its `(concurrency, qps, p99_us)` points, by concurrency.
#[derive(Debug, Clone)]
pub struct Line {
    /// Legend text.
    pub name: String,
    /// The measurements.
    pub points: Vec<(f64, f64, f64)>,
}

const SIZE: (u32, u32) = (1280, 520);
const FONT: &str = "sans-serif";

/// Draws the charts into `path`.
pub fn plot(path: &Path, title: &str, lines: &[Line]) -> Result<(), String> {
    static FONT_ONCE: Once = Once::new();
    let mut font_error = None;
    FONT_ONCE.call_once(|| {
        if plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular()).is_err()
        {
            font_error = Some("the embedded font did not load".to_owned());
        }
    });
    if let Some(e) = font_error {
        return Err(e);
    }
    let svg = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("svg"));
    let result = if svg {
        draw(
            SVGBackend::new(path, SIZE).into_drawing_area(),
            title,
            lines,
        )
    } else {
        draw(
            BitMapBackend::new(path, SIZE).into_drawing_area(),
            title,
            lines,
        )
    };
    result.map_err(|e| format!("plot {}: {e}", path.display()))
}

fn draw<DB>(root: DrawingArea<DB, Shift>, title: &str, lines: &[Line]) -> Result<(), Box<dyn Error>>
where
    DB: DrawingBackend,
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let root = root.titled(title, (FONT, 22))?;
    let (left, right) = root.split_horizontally(SIZE.0 / 2);
    let all = || lines.iter().flat_map(|l| l.points.iter());
    let (mut xmin, mut xmax) =
        all().fold((f64::MAX, 0f64), |(lo, hi), p| (lo.min(p.0), hi.max(p.0)));
    if xmin > xmax {
        (xmin, xmax) = (1.0, 2.0);
    }
    // A single concurrency still needs a visible axis.
    let (xmin, xmax) = (xmin.max(1.0) / 1.5, xmax.max(1.0) * 1.5);
    let qmax = all().map(|p| p.1).fold(1.0, f64::max) * 1.1;
    let lat = || all().map(|p| p.2).filter(|v| *v > 0.0);
    let lmin = lat().fold(f64::MAX, f64::min).min(1e9) / 1.5;
    let lmax = lat().fold(1.0, f64::max) * 1.5;

    let qps = frame(&left, "throughput").build_cartesian_2d((xmin..xmax).log_scale(), 0.0..qmax)?;
    line_chart(qps, lines, "queries per second", |p| Some(p.1))?;
    // A logarithmic latency axis only when the values span enough to need one; a narrow range
    // would get a single tick label.
    let p99 = |p: &(f64, f64, f64)| (p.2 > 0.0).then_some(p.2);
    if lmax / lmin >= 20.0 {
        let chart = frame(&right, "p99 latency")
            .build_cartesian_2d((xmin..xmax).log_scale(), (lmin..lmax).log_scale())?;
        line_chart(chart, lines, "p99 (µs)", p99)?;
    } else {
        let chart =
            frame(&right, "p99 latency").build_cartesian_2d((xmin..xmax).log_scale(), 0.0..lmax)?;
        line_chart(chart, lines, "p99 (µs)", p99)?;
    }
    root.present()?;
    Ok(())
}

/// A chart frame with the common caption, margins and label areas.
fn frame<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    caption: &str,
) -> ChartBuilder<'a, 'static, DB> {
    let mut builder = ChartBuilder::on(area);
    builder
        .caption(caption, (FONT, 18))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(80);
    builder
}

/// Draws one line per target, `y` picking each point's value (or skipping it), on a chart whose
/// y axis may be linear or logarithmic.
fn line_chart<'a, DB, Y>(
    mut chart: ChartContext<'a, DB, Cartesian2d<LogCoord<f64>, Y>>,
    lines: &[Line],
    y_desc: &str,
    y: impl Fn(&(f64, f64, f64)) -> Option<f64>,
) -> Result<(), Box<dyn Error>>
where
    DB: DrawingBackend + 'a,
    DB::ErrorType: 'static,
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    chart
        .configure_mesh()
        .x_desc("concurrency")
        .y_desc(y_desc)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| human(*y))
        .label_style((FONT, 13))
        .light_line_style(WHITE)
        .draw()?;
    for (i, line) in lines.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let pts: Vec<(f64, f64)> = line
            .points
            .iter()
            .filter_map(|p| y(p).map(|v| (p.0, v)))
            .collect();
        chart
            .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))?
            .label(line.name.clone())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
        chart.draw_series(pts.into_iter().map(|p| Circle::new(p, 3, color.filled())))?;
    }
    chart
        .configure_series_labels()
        .label_font((FONT, 13))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()?;
    Ok(())
}

/// 1234567 → `1.23M`, for axis labels.
fn human(v: f64) -> String {
    match v.abs() {
        a if a >= 1e6 => format!("{:.2}M", v / 1e6),
        a if a >= 1e3 => format!("{:.1}k", v / 1e3),
        a if a >= 10.0 || a == 0.0 => format!("{v:.0}"),
        _ => format!("{v:.1}"),
    }
}
