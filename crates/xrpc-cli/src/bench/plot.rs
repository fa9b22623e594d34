//! `--plot FILE.png|svg`: QPS and p99 latency against concurrency, one line per target.
//!
//! Two charts side by side, both with a logarithmic concurrency axis (sweeps double it) labelled
//! at every measured concurrency ([`concurrency_ticks`]); the latency axis is logarithmic too,
//! since p99 spans orders of magnitude across a sweep. Numbers are formatted as the tables format
//! them, with Rust's locale-free formatting (`250k`, `2.5k`, [`human`]).
//!
//! Text in a PNG is drawn by [`BaselineText`] with DejaVu Sans embedded from the `dejavu` crate,
//! so a PNG renders the same on a machine without any system fonts. plotters' own `ab_glyph`
//! text places each glyph by truncating its offset from the baseline toward zero, which lifts
//! glyphs that sit low (`.`, `,`, `_`) a pixel or more above the digits: at label sizes a decimal
//! point reads as a middle dot (`250·0k`, `127·0·0·1`). `BaselineText` lays the whole string out
//! on one baseline instead. An SVG carries its text as `<text>` elements, which the viewer lays
//! out. The format follows the file's extension: `.svg` for SVG, anything else PNG.

use std::error::Error;
use std::path::Path;
use std::sync::Once;

use ab_glyph::{Font, FontRef, PxScale, ScaleFont, point};
use plotters::coord::Shift;
use plotters::coord::combinators::{BindKeyPoints, LogCoord, WithKeyPoints};
use plotters::coord::ranged1d::{Ranged, ValueFormatter};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};
// `BackendStyle` stays qualified: in scope, its `stroke_width` would clash with `Color`'s.
use plotters_backend::{BackendColor, BackendCoord, BackendTextStyle, DrawingErrorKind};

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
/// The advance of a digit in the axis labels' font (DejaVu Sans at 13 px), rounded up, in pixels.
const DIGIT_WIDTH: f64 = 7.5;
/// The blank kept between two axis labels, in pixels.
const LABEL_PAD: f64 = 8.0;
/// The width of a chart's plotting area, in pixels: half the image, less the margins and the
/// y-axis label area set in [`frame`].
const PLOT_WIDTH: f64 = (SIZE.0 / 2 - 2 * 12 - 80) as f64;

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
        BaselineText::new(BitMapBackend::new(path, SIZE))
            .map_err(|e| e.to_string())
            .and_then(|backend| {
                draw(backend.into_drawing_area(), title, lines).map_err(|e| e.to_string())
            })
            .map_err(Into::into)
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

    let measured: Vec<f64> = all().map(|p| p.0).collect();
    let ticks = concurrency_ticks(&measured, xmin, xmax, PLOT_WIDTH);
    let x_axis = || (xmin..xmax).log_scale().with_key_points(ticks.clone());
    let qps = frame(&left, "throughput").build_cartesian_2d(x_axis(), 0.0..qmax)?;
    line_chart(qps, lines, "queries per second", |p| Some(p.1))?;
    // A logarithmic latency axis only when the values span enough to need one; a narrow range
    // would get a single tick label.
    let p99 = |p: &(f64, f64, f64)| (p.2 > 0.0).then_some(p.2);
    if lmax / lmin >= 20.0 {
        let chart =
            frame(&right, "p99 latency").build_cartesian_2d(x_axis(), (lmin..lmax).log_scale())?;
        line_chart(chart, lines, "p99 (µs)", p99)?;
    } else {
        let chart = frame(&right, "p99 latency").build_cartesian_2d(x_axis(), 0.0..lmax)?;
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
    mut chart: ChartContext<'a, DB, Cartesian2d<WithKeyPoints<LogCoord<f64>>, Y>>,
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

/// A number for axis labels, as short as its magnitude allows: `1.23M`, `250k`, `2.5k`, `12`,
/// `0.5`; a trailing `.0` is dropped. Rust's formatting knows no locale: the point is always `.`.
pub fn human(v: f64) -> String {
    let text = match v.abs() {
        a if a >= 1e6 => format!("{:.2}M", v / 1e6),
        a if a >= 1e3 => format!("{:.1}k", v / 1e3),
        a if a >= 10.0 || a == 0.0 => format!("{v:.0}"),
        _ => format!("{v:.1}"),
    };
    match text.split_once('.') {
        Some((int, frac)) => {
            let digits = frac.trim_end_matches(|c: char| !c.is_ascii_digit());
            let unit = &frac[digits.len()..];
            let kept = digits.trim_end_matches('0');
            if kept.is_empty() {
                format!("{int}{unit}")
            } else {
                format!("{int}.{kept}{unit}")
            }
        }
        None => text,
    }
}

/// How far apart the centres of the labels of `a` and `b` must be not to touch, in pixels.
fn label_gap(a: f64, b: f64) -> f64 {
    let digits = |v: f64| format!("{v:.0}").len() as f64;
    (digits(a) + digits(b)) / 2.0 * DIGIT_WIDTH + LABEL_PAD
}

/// The concurrencies to label on a logarithmic axis from `lo` to `hi` drawn `width` pixels wide:
/// every measured one, in order, except that a label that would touch the one before it
/// (`label_gap`) is left out (the smallest and the largest are always kept).
pub fn concurrency_ticks(measured: &[f64], lo: f64, hi: f64, width: f64) -> Vec<f64> {
    let mut values: Vec<f64> = measured.iter().copied().filter(|v| *v > 0.0).collect();
    values.sort_by(f64::total_cmp);
    values.dedup();
    let span = (hi.ln() - lo.ln()).max(f64::MIN_POSITIVE);
    let at = |v: f64| (v.ln() - lo.ln()) / span * width;
    let mut kept: Vec<f64> = Vec::with_capacity(values.len());
    for (i, &v) in values.iter().enumerate() {
        let last = i + 1 == values.len();
        match kept.last() {
            Some(&prev) if at(v) - at(prev) < label_gap(prev, v) => {
                // The largest wins over a crowded neighbour, unless that is the smallest.
                if last && kept.len() > 1 {
                    kept.pop();
                    kept.push(v);
                }
            }
            _ => kept.push(v),
        }
    }
    kept
}

/// A drawing backend that draws its text with every glyph on one baseline (see the
/// [module docs](self)), at subpixel positions, and everything else through `B`.
///
/// All text is set in the embedded DejaVu Sans, whatever family the style names (the charts use
/// one family). Text layout follows plotters': the box of a text is its advance width by the
/// font's ascent plus descent, anchored as the style says, then rotated.
pub struct BaselineText<B> {
    inner: B,
    font: FontRef<'static>,
}

impl<B> std::fmt::Debug for BaselineText<B> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BaselineText").finish_non_exhaustive()
    }
}

impl<B> BaselineText<B> {
    /// Wraps `inner`.
    pub fn new(inner: B) -> Result<Self, ab_glyph::InvalidFont> {
        Ok(Self {
            inner,
            font: FontRef::try_from_slice(dejavu::sans::regular())?,
        })
    }

    /// Each glyph of `text` at `size` pixels, placed on a baseline at the font's ascent (whole
    /// pixels) below the top of the text's box, and the box's width and height.
    fn layout(&self, text: &str, size: f64) -> (Vec<ab_glyph::Glyph>, f32, f32) {
        let scaled = self.font.as_scaled(PxScale::from(size as f32));
        // On a pixel boundary, so that every glyph's bottom edge on it is equally sharp.
        let baseline = scaled.ascent().round();
        let mut x = 0.0f32;
        let mut prev = None;
        let mut glyphs = Vec::with_capacity(text.len());
        for c in text.chars() {
            let id = scaled.glyph_id(c);
            if let Some(p) = prev {
                x += scaled.kern(p, id);
            }
            glyphs.push(id.with_scale_and_position(scaled.scale(), point(x, baseline)));
            x += scaled.h_advance(id);
            prev = Some(id);
        }
        (glyphs, x, scaled.ascent() - scaled.descent())
    }
}

impl<B: DrawingBackend> DrawingBackend for BaselineText<B> {
    type ErrorType = B::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.present()
    }

    fn draw_pixel(
        &mut self,
        point: BackendCoord,
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_pixel(point, color)
    }

    fn draw_line<S: plotters_backend::BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_line(from, to, style)
    }

    fn draw_rect<S: plotters_backend::BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: plotters_backend::BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_path(path, style)
    }

    fn draw_circle<S: plotters_backend::BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: plotters_backend::BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.fill_polygon(vert, style)
    }

    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        size: (u32, u32),
        src: &[u8],
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.blit_bitmap(pos, size, src)
    }

    fn estimate_text_size<TStyle: BackendTextStyle>(
        &self,
        text: &str,
        style: &TStyle,
    ) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        let (_, width, height) = self.layout(text, style.size());
        Ok((width.ceil() as u32, height.ceil() as u32))
    }

    fn draw_text<TStyle: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &TStyle,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let (glyphs, width, height) = self.layout(text, style.size());
        let anchor = style.anchor();
        let dx = match anchor.h_pos {
            HPos::Left => 0.0,
            HPos::Right => -width,
            HPos::Center => -width / 2.0,
        };
        let dy = match anchor.v_pos {
            VPos::Top => 0.0,
            VPos::Center => -height / 2.0,
            VPos::Bottom => -height,
        };
        let transform = style.transform();
        let (w, h) = self.inner.get_size();
        let mut pixels = Vec::new();
        for glyph in glyphs {
            let Some(outline) = self.font.outline_glyph(glyph) else {
                continue;
            };
            let bounds = outline.px_bounds();
            outline.draw(|x, y, coverage| {
                // Integral already: px_bounds are whole pixels.
                let x = (bounds.min.x + x as f32 + dx).round() as i32;
                let y = (bounds.min.y + y as f32 + dy).round() as i32;
                pixels.push((transform.transform(x, y), coverage));
            });
        }
        for ((x, y), coverage) in pixels {
            let (x, y) = (pos.0 + x, pos.1 + y);
            if coverage > 0.0 && x >= 0 && y >= 0 && (x as u32) < w && (y as u32) < h {
                let alpha = color.alpha * f64::from(coverage.min(1.0));
                self.inner
                    .draw_pixel((x, y), BackendColor { alpha, ..color })?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_use_a_point_and_drop_a_trailing_zero() {
        assert_eq!(human(250_000.0), "250k");
        assert_eq!(human(2_500.0), "2.5k");
        assert_eq!(human(35_000.0), "35k");
        assert_eq!(human(1_234_567.0), "1.23M");
        assert_eq!(human(2_000_000.0), "2M");
        assert_eq!(human(1_500_000.0), "1.5M");
        assert_eq!(human(12.0), "12");
        assert_eq!(human(0.5), "0.5");
        assert_eq!(human(0.0), "0");
    }

    #[test]
    fn every_measured_concurrency_gets_a_label() {
        let (lo, hi) = (1.0 / 1.5, 64.0 * 1.5);
        for sweep in [&[1.0, 10.0, 64.0][..], &[1.0, 2.0, 3.0, 4.0, 10.0, 64.0]] {
            assert_eq!(concurrency_ticks(sweep, lo, hi, PLOT_WIDTH), sweep);
        }
        let doubling: Vec<f64> = (0..=10).map(|i| f64::from(1u32 << i)).collect();
        assert_eq!(
            concurrency_ticks(&doubling, 1.0 / 1.5, 1024.0 * 1.5, PLOT_WIDTH),
            doubling
        );
    }

    #[test]
    fn crowded_labels_are_thinned_keeping_both_ends() {
        let dense: Vec<f64> = (1..=64).map(f64::from).collect();
        let (lo, hi) = (1.0 / 1.5, 64.0 * 1.5);
        let ticks = concurrency_ticks(&dense, lo, hi, PLOT_WIDTH);
        assert_eq!(ticks.first(), Some(&1.0));
        assert_eq!(ticks.last(), Some(&64.0));
        let span = hi.ln() - lo.ln();
        for pair in ticks.windows(2) {
            let gap = (pair[1].ln() - pair[0].ln()) / span * PLOT_WIDTH;
            assert!(
                gap >= label_gap(pair[0], pair[1]),
                "{pair:?} {gap} px apart in {ticks:?}"
            );
        }
        assert!(ticks.len() >= 8, "{ticks:?}");
    }

    /// Renders `text` in black on white and returns, per column of the image, the lowest row
    /// holding ink (None for a blank column).
    fn lowest_ink(text: &str, size: u32) -> Vec<Option<u32>> {
        let (w, h) = (200u32, 40u32);
        let mut buf = vec![255u8; (w * h * 3) as usize];
        {
            let backend = BaselineText::new(BitMapBackend::with_buffer(&mut buf, (w, h))).unwrap();
            let root = backend.into_drawing_area();
            root.draw(&Text::new(
                text.to_owned(),
                (2, 4),
                (FONT, size).into_font().color(&BLACK),
            ))
            .unwrap();
            root.present().unwrap();
        }
        (0..w)
            .map(|x| (0..h).rev().find(|y| buf[((y * w + x) * 3) as usize] < 128))
            .collect()
    }

    #[test]
    fn a_decimal_point_sits_on_the_baseline_of_the_digits() {
        for size in [12, 13, 18, 22] {
            let columns = lowest_ink("1.0", size);
            // Three runs of inked columns: the 1, the point, the 0.
            let mut runs: Vec<Vec<u32>> = Vec::new();
            let mut in_run = false;
            for bottom in columns {
                match (bottom, in_run) {
                    (Some(b), true) => runs.last_mut().unwrap().push(b),
                    (Some(b), false) => runs.push(vec![b]),
                    (None, _) => {}
                }
                in_run = bottom.is_some();
            }
            assert_eq!(runs.len(), 3, "size {size}: {runs:?}");
            let bottom = |run: &Vec<u32>| *run.iter().max().unwrap();
            assert_eq!(
                bottom(&runs[1]),
                bottom(&runs[0]),
                "size {size}: the point's lowest row is the digit's"
            );
            assert_eq!(bottom(&runs[2]), bottom(&runs[0]), "size {size}");
        }
    }

    #[test]
    fn an_svg_plot_labels_every_concurrency_and_writes_points_as_points() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("plot.svg");
        let line = |name: &str, scale: f64| Line {
            name: name.to_owned(),
            points: [1.0, 10.0, 64.0]
                .iter()
                .map(|&c| (c, 250_000.0 * scale * c / 64.0, 120.5 * c))
                .collect(),
        };
        plot(
            &path,
            "xrpc bench select1",
            &[
                line("xrpc://127.0.0.1:33660", 1.0),
                line("mysql://root@127.0.0.1:3306/sbtest", 0.5),
            ],
        )
        .unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        let texts: Vec<&str> = svg
            .split("<text")
            .skip(1)
            .filter_map(|t| {
                t.split_once('>')
                    .and_then(|(_, rest)| rest.split_once("</text>"))
            })
            .map(|(text, _)| text.trim())
            .collect();
        for label in ["1", "10", "64", "250k", "xrpc://127.0.0.1:33660"] {
            assert!(texts.contains(&label), "{label} in {texts:?}");
        }
        assert!(!svg.contains('·'), "no middle dots");
    }
}
