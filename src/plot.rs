//! The benchmark's bar chart: GB/s per kernel, Rust beside CUDA C++ (and
//! CUB), drawn with plotters into a PNG.

use crate::results::Row;
use plotters::prelude::*;
use std::path::Path;

/// Fonts tried for the chart's text, after `CG_PLOT_FONT`.
const FONTS: [&str; 2] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
];

fn register_font() -> Result<(), String> {
    let candidates = std::env::var("CG_PLOT_FONT")
        .into_iter()
        .chain(FONTS.iter().map(|s| s.to_string()));
    for path in candidates {
        if let Ok(bytes) = std::fs::read(&path) {
            let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
            return plotters::style::register_font("sans-serif", FontStyle::Normal, bytes)
                .map_err(|_| format!("{path} is not a usable font"));
        }
    }
    Err("no font for the chart: install Debian's fonts-dejavu-core or set CG_PLOT_FONT to a .ttf file".into())
}

/// One bar series: legend name, colour, offset within a category, value.
type Series<'a> = (&'a str, RGBColor, f64, &'a dyn Fn(&Row) -> Option<f64>);

/// Draws the GB/s of every row that moves bytes into a PNG at `path`.
pub fn bar_chart(device: &str, rows: &[Row], path: &Path) -> Result<(), String> {
    register_font()?;
    let rows: Vec<&Row> = rows.iter().filter(|r| r.gbps().is_some()).collect();
    let gbps = |r: &Row, t: Option<f64>| t.zip(r.bytes).map(|(t, b)| b / (t * 1e-6) / 1e9);
    let ymax = rows
        .iter()
        .flat_map(|r| [r.gbps(), gbps(r, r.cuda), gbps(r, r.library)])
        .flatten()
        .fold(1.0f64, f64::max)
        * 1.1;
    let labels: Vec<String> = rows
        .iter()
        .map(|r| format!("{} {}", r.name, r.size))
        .collect();
    let draw = || -> Result<(), Box<dyn std::error::Error>> {
        let height = 160 + 44 * rows.len() as u32;
        let root = BitMapBackend::new(path, (1500, height)).into_drawing_area();
        root.fill(&WHITE)?;
        let n = rows.len().max(1);
        // Category i is centred on y = n - 1 - i (first row on top).
        let y_of = |i: usize| (n - 1 - i) as f64;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("GB/s per kernel (higher is better) - {device}"),
                ("sans-serif", 26),
            )
            .margin(20)
            .x_label_area_size(50)
            .y_label_area_size(430)
            .build_cartesian_2d(0f64..ymax, -0.5f64..n as f64 - 0.5)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(n)
            .y_label_formatter(&|y| {
                let i = n as f64 - 1.0 - y.round();
                if (y - y.round()).abs() < 1e-6 && i >= 0.0 {
                    labels.get(i as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .y_label_style(("sans-serif", 15))
            .x_desc("GB/s")
            .axis_desc_style(("sans-serif", 18))
            .draw()?;
        let series: [Series; 3] = [
            ("Rust", RGBColor(0xb7, 0x41, 0x0e), 0.13, &|r| r.gbps()),
            ("CUDA C++ (nvcc)", RGBColor(0x76, 0xb9, 0x00), -0.13, &|r| {
                gbps(r, r.cuda)
            }),
            ("CUB", RGBColor(0x40, 0x60, 0xc0), -0.39, &|r| {
                gbps(r, r.library)
            }),
        ];
        for (name, color, offset, value) in series {
            let bars: Vec<_> = rows
                .iter()
                .enumerate()
                .filter_map(|(i, r)| value(r).map(|v| (y_of(i) + offset, v)))
                .map(|(y, v)| Rectangle::new([(0.0, y - 0.12), (v, y + 0.12)], color.filled()))
                .collect();
            chart.draw_series(bars)?.label(name).legend(move |(x, y)| {
                Rectangle::new([(x, y - 6), (x + 14, y + 6)], color.filled())
            });
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .label_font(("sans-serif", 16))
            .position(SeriesLabelPosition::LowerRight)
            .draw()?;
        root.present()?;
        Ok(())
    };
    draw().map_err(|e| format!("drawing {}: {e}", path.display()))
}
