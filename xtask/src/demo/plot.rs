//! The loss curve as an SVG, loss on a log scale (plotters' SVG backend: text is written as SVG `<text>`, so no
//! system fonts are needed to make it, and any browser opens it).

use std::path::Path;

use plotters::prelude::*;

/// Per-step training loss (thin line) and per-epoch mean loss (points and thick line) against
/// the epoch, `steps_per_epoch` steps to an epoch.
pub fn loss_curve(
    path: &Path,
    title: &str,
    step_losses: &[f64],
    epoch_losses: &[f64],
    steps_per_epoch: usize,
) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let e = |e: DrawingAreaErrorKind<_>| format!("{}: {e}", path.display());
    let root = SVGBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(e)?;
    let epochs = epoch_losses.len().max(1) as f64;
    // Log scale: the loss falls by orders of magnitude, and the late epochs matter too.
    let positive = || {
        step_losses
            .iter()
            .chain(epoch_losses)
            .copied()
            .filter(|l| l.is_finite() && *l > 0.0)
    };
    let top = positive().fold(1e-6f64, f64::max);
    let bottom = positive().fold(top, f64::min);
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(64)
        .build_cartesian_2d(0f64..epochs, (bottom * 0.8..top * 1.25).log_scale())
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc("epoch")
        .x_label_formatter(&|x| {
            if x.fract() == 0.0 {
                format!("{x:.0}")
            } else {
                format!("{x:.1}")
            }
        })
        .light_line_style(TRANSPARENT)
        .y_desc("cross-entropy loss (log scale)")
        .y_label_formatter(&|y| format!("{y:.3}"))
        .axis_desc_style(("sans-serif", 16))
        .draw()
        .map_err(e)?;
    let per_step = steps_per_epoch.max(1) as f64;
    chart
        .draw_series(LineSeries::new(
            step_losses
                .iter()
                .enumerate()
                .map(|(i, &l)| ((i + 1) as f64 / per_step, l)),
            BLUE.mix(0.35),
        ))
        .map_err(e)?
        .label("per training step")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BLUE.mix(0.35)));
    let epoch_points = || {
        epoch_losses
            .iter()
            .enumerate()
            .map(|(i, &l)| ((i + 1) as f64, l))
    };
    chart
        .draw_series(LineSeries::new(epoch_points(), RED.stroke_width(2)))
        .map_err(e)?
        .label("mean over the epoch")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], RED.stroke_width(2)));
    chart
        .draw_series(epoch_points().map(|p| Circle::new(p, 3, RED.filled())))
        .map_err(e)?;
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK.mix(0.3))
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(e)?;
    root.present().map_err(e)?;
    Ok(())
}
