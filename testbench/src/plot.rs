//! The sweep's plots ([`crate::sweep`]), each as SVG and PNG, one panel per traffic pattern and
//! one line per protocol, from the means over seeds:
//!
//! - `goodput-vs-load`: payload flits delivered per node per cycle against offered load;
//! - `latency-vs-load`: median (solid) and 99th-percentile (dashed) latency, log scale;
//! - `goodput-vs-loss`: goodput at the loss study's load against flit loss, log scale.
//!
//! PNG text is drawn with DejaVu Sans from Debian's `fonts-dejavu-core` (`scripts/setup.sh`
//! installs it); SVG text is left to the viewer's fonts.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Result};
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::sweep::{Mean, Protocol, Study, TrafficPattern};

/// Where Debian's `fonts-dejavu-core` puts the font the PNGs use.
pub const FONT: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

/// The minor grid lines: faint, so that the data stands out.
const LIGHT: RGBColor = RGBColor(0xee, 0xee, 0xee);

/// One panel's size in pixels.
const PANEL: (u32, u32) = (480, 400);

fn color(p: Protocol) -> RGBColor {
    match p {
        Protocol::Idempotent => RGBColor(0x1f, 0x77, 0xb4),
        Protocol::Rmpp => RGBColor(0xd6, 0x27, 0x28),
        Protocol::ParaStation => RGBColor(0x2c, 0xa0, 0x2c),
        Protocol::UNet => RGBColor(0x94, 0x67, 0xbd),
    }
}

/// The font for PNG text, registered once per process.
fn register_font() -> Result<()> {
    static REGISTERED: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    REGISTERED
        .get_or_init(|| {
            let bytes = std::fs::read(FONT).map_err(|e| {
                format!("{FONT}: {e} (the PNG plots need fonts-dejavu-core: run scripts/setup.sh)")
            })?;
            plotters::style::register_font("sans-serif", FontStyle::Normal, bytes.leak())
                .map_err(|_| format!("{FONT}: not a font plotters can read"))
        })
        .clone()
        .map_err(|e| anyhow!(e))
}

/// What one figure shows.
#[derive(Clone, Copy)]
enum Figure {
    GoodputLoad,
    LatencyLoad,
    GoodputLoss,
}

impl Figure {
    fn file(self) -> &'static str {
        match self {
            Figure::GoodputLoad => "goodput-vs-load",
            Figure::LatencyLoad => "latency-vs-load",
            Figure::GoodputLoss => "goodput-vs-loss",
        }
    }

    fn study(self) -> Study {
        match self {
            Figure::GoodputLoss => Study::Loss,
            _ => Study::Load,
        }
    }
}

/// Draws every figure the means have data for into `dir`; returns the files written.
pub fn plot_all(means: &[Mean], dir: &Path) -> Result<Vec<PathBuf>> {
    register_font()?;
    let mut files = vec![];
    for fig in [
        Figure::GoodputLoad,
        Figure::LatencyLoad,
        Figure::GoodputLoss,
    ] {
        let ms: Vec<&Mean> = means.iter().filter(|m| m.study == fig.study()).collect();
        if ms.is_empty() {
            continue;
        }
        let mut patterns: Vec<TrafficPattern> = vec![];
        for m in &ms {
            if !patterns.contains(&m.pattern) {
                patterns.push(m.pattern);
            }
        }
        let size = (PANEL.0 * patterns.len() as u32, PANEL.1);
        let svg = dir.join(format!("{}.svg", fig.file()));
        let png = dir.join(format!("{}.png", fig.file()));
        draw(
            &SVGBackend::new(&svg, size).into_drawing_area(),
            fig,
            &ms,
            &patterns,
        )?;
        draw(
            &BitMapBackend::new(&png, size).into_drawing_area(),
            fig,
            &ms,
            &patterns,
        )?;
        files.extend([svg, png]);
    }
    Ok(files)
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    fig: Figure,
    ms: &[&Mean],
    patterns: &[TrafficPattern],
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("plot {}: {e:?}", fig.file());
    root.fill(&WHITE).map_err(e)?;
    for (area, &pattern) in root.split_evenly((1, patterns.len())).iter().zip(patterns) {
        let of: Vec<&Mean> = ms
            .iter()
            .copied()
            .filter(|m| m.pattern == pattern)
            .collect();
        panel(area, fig, pattern, &of).map_err(e)?;
    }
    root.present().map_err(e)?;
    Ok(())
}

type Drawn<E> = std::result::Result<(), DrawingAreaErrorKind<E>>;

fn panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    fig: Figure,
    pattern: TrafficPattern,
    ms: &[&Mean],
) -> Drawn<DB::ErrorType> {
    let x = |m: &Mean| match fig {
        Figure::GoodputLoss => m.loss,
        _ => m.load,
    };
    let xs: Vec<f64> = ms.iter().map(|m| x(m)).collect();
    let (x_lo, x_hi) = bounds(&xs);
    let title = match pattern {
        TrafficPattern::Uniform => "uniform",
        TrafficPattern::ToOne => "all to node 0",
        TrafficPattern::Complement => "bit complement",
    };
    let mut b = ChartBuilder::on(area);
    b.caption(title, ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(60);
    let protocols = Protocol::ALL.iter().copied();
    let series = |p: Protocol, y: &dyn Fn(&Mean) -> Option<f64>| -> Vec<(f64, f64)> {
        let mut v: Vec<(f64, f64)> = ms
            .iter()
            .filter(|m| m.protocol == p)
            .filter_map(|m| y(m).map(|y| (x(m), y)))
            .collect();
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
        v
    };
    match fig {
        Figure::GoodputLoad | Figure::GoodputLoss => {
            let y_hi = ms.iter().map(|m| m.goodput_flits).fold(0.0, f64::max) * 1.1 + 1e-3;
            // Goodput rises with load and falls with loss: the legend goes where the lines
            // are not.
            let (x_desc, legend) = match fig {
                Figure::GoodputLoss => ("flit loss per link", SeriesLabelPosition::LowerLeft),
                _ => (
                    "offered load (flits/node/cycle)",
                    SeriesLabelPosition::UpperLeft,
                ),
            };
            macro_rules! lines {
                ($chart:expr) => {{
                    let mut c = $chart;
                    c.configure_mesh()
                        .light_line_style(LIGHT)
                        .x_desc(x_desc)
                        .y_desc("goodput (payload flits/node/cycle)")
                        .draw()?;
                    for p in protocols.clone() {
                        let s = series(p, &|m| Some(m.goodput_flits));
                        if s.is_empty() {
                            continue;
                        }
                        c.draw_series(LineSeries::new(s.clone(), color(p).stroke_width(2)))?
                            .label(p.name())
                            .legend(move |(x, y)| {
                                PathElement::new([(x, y), (x + 20, y)], color(p).stroke_width(2))
                            });
                        c.draw_series(s.iter().map(|&xy| Circle::new(xy, 3, color(p).filled())))?;
                    }
                    c.configure_series_labels()
                        .position(legend)
                        .background_style(WHITE.mix(0.8))
                        .border_style(BLACK)
                        .draw()?;
                }};
            }
            match fig {
                Figure::GoodputLoss => {
                    lines!(b.build_cartesian_2d((x_lo..x_hi).log_scale(), 0.0..y_hi)?)
                }
                _ => lines!(b.build_cartesian_2d(0.0..x_hi * 1.05, 0.0..y_hi)?),
            }
        }
        Figure::LatencyLoad => {
            let ys: Vec<f64> = ms
                .iter()
                .flat_map(|m| [m.latency_p50, m.latency_p99])
                .flatten()
                .collect();
            let (y_lo, y_hi) = bounds(&ys);
            let mut c =
                b.build_cartesian_2d(0.0..x_hi * 1.05, (y_lo * 0.8..y_hi * 1.25).log_scale())?;
            c.configure_mesh()
                .light_line_style(LIGHT)
                .y_label_formatter(&|v| format!("{v:.0}"))
                .x_desc("offered load (flits/node/cycle)")
                .y_desc("latency (cycles): p50 solid, p99 dashed")
                .draw()?;
            for p in protocols.clone() {
                let p50 = series(p, &|m| m.latency_p50);
                let p99 = series(p, &|m| m.latency_p99);
                if p50.is_empty() {
                    continue;
                }
                c.draw_series(LineSeries::new(p50, color(p).stroke_width(2)))?
                    .label(p.name())
                    .legend(move |(x, y)| {
                        PathElement::new([(x, y), (x + 20, y)], color(p).stroke_width(2))
                    });
                c.draw_series(DashedLineSeries::new(p99, 6, 4, color(p).stroke_width(2)))?;
            }
            c.configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .draw()?;
        }
    }
    Ok(())
}

/// The smallest and largest of `xs`, widened when they are equal (or there are none) so that
/// an axis has a range; for the log axes, kept above zero.
fn bounds(xs: &[f64]) -> (f64, f64) {
    let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !lo.is_finite() || !hi.is_finite() {
        return (1e-3, 1.0);
    }
    let lo = lo.max(1e-9);
    if hi <= lo {
        (lo / 2.0, lo * 2.0)
    } else {
        (lo, hi)
    }
}
