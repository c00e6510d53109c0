// The live chart: one line per name given to plot(value, name), x = the point's number in its
// series, redrawn at most once per animation frame while a run adds points. uPlot draws it.

import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

const COLORS = ['#2f6fdb', '#d9480f', '#2b8a3e', '#7048e8', '#c2255c'];

export class LiveChart {
  constructor(element) {
    this.element = element;
    this.series = new Map();
    this.plot = null;
    this.pending = false;
    // Redraws made while points were coming (one per animation frame at most).
    this.frames = 0;
  }

  reset() {
    this.frames = 0;
    this.series.clear();
    this.plot?.destroy();
    this.plot = null;
  }

  points() {
    let n = 0;
    for (const values of this.series.values()) n += values.length;
    return n;
  }

  add(value, name) {
    if (typeof value !== 'number' || !Number.isFinite(value)) throw new TypeError(`plot(): value must be a finite number, not ${value}`);
    if (!this.series.has(name)) {
      this.series.set(name, []);
      this.plot?.destroy();
      this.plot = null;
    }
    this.series.get(name).push(value);
    if (!this.pending) {
      this.pending = true;
      requestAnimationFrame(() => {
        this.frames++;
        this.draw();
      });
    }
  }

  draw() {
    this.pending = false;
    if (this.series.size === 0) return;
    const names = [...this.series.keys()];
    const columns = [...this.series.values()];
    const length = Math.max(...columns.map((c) => c.length));
    const x = Array.from({ length }, (_, i) => i);
    const data = [x, ...columns.map((c) => Array.from({ length }, (_, i) => c[i] ?? null))];
    const positive = columns.every((c) => c.every((v) => v > 0));
    if (this.plot === null || this.plot.positive !== positive) {
      this.plot?.destroy();
      this.plot = new uPlot(
        {
          width: this.element.clientWidth || 600,
          height: 260,
          scales: { x: { time: false }, y: positive ? { distr: 3 } : {} },
          axes: [{ label: 'plot() call' }, { label: positive ? 'value (log scale)' : 'value', size: 60 }],
          series: [{ label: 'call' }, ...names.map((label, i) => ({ label, stroke: COLORS[i % COLORS.length], width: 2, spanGaps: true }))],
        },
        data,
        this.element,
      );
      this.plot.positive = positive;
    } else {
      this.plot.setData(data);
    }
  }

  resize() {
    this.plot?.setSize({ width: this.element.clientWidth || 600, height: 260 });
  }
}
