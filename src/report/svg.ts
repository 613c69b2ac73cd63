import { markup, type Markup } from '../output/html.js';

/*
 * The report page's charts: plain SVG written here, not a chart library. A report has a dozen
 * small bar charts of counts; SVG drawn on the machine that writes the file needs no script in
 * the page (so its Content-Security-Policy forbids scripts altogether), prints sharp at any size,
 * scales to a phone through its viewBox, and costs no dependency. Chart.js and uPlot draw on a
 * canvas from a script (about 200 and 50 KB) and would still need the same tables for people who
 * cannot see the chart.
 */

/** One bar: its label, its count, and its share (0 to 1) of the chart's whole. */
export interface Bar {
  label: string;
  count: number;
  share: number | null;
  /** A second count drawn over the first (connected of called), when the chart has one. */
  inner?: number;
}

const LABEL_CHARS = 26;
const ROW = 26;

const cut = (s: string) => (s.length > LABEL_CHARS ? `${s.slice(0, LABEL_CHARS - 1)}…` : s);
const pct = (share: number | null) => (share === null ? '-' : `${(share * 100).toFixed(1)}%`);

/** Horizontal bars, one per value, longest first as given; the full labels are in the table below. */
export function barChart(id: string, title: string, bars: readonly Bar[]): Markup {
  const width = 640;
  const left = 200;
  const right = 110;
  const height = Math.max(1, bars.length) * ROW + 8;
  const most = Math.max(1, ...bars.map((b) => b.count));
  return markup`<svg
    id="${id}"
    role="img"
    aria-labelledby="${id}-title"
    viewBox="0 0 ${width} ${height}"
    width="${width}"
    height="${height}"
  >
    <title id="${id}-title">${title}</title>
    ${bars.map((b, i) => {
      const y = i * ROW + 4;
      const w = ((width - left - right) * b.count) / most;
      return markup`<g
        ><text x="${left - 8}" y="${y + 16}" text-anchor="end" class="label">${cut(b.label)}</text
        ><rect x="${left}" y="${y + 3}" width="${width - left - right}" height="${ROW - 8}" class="track" /><rect
          x="${left}"
          y="${y + 3}"
          width="${w.toFixed(1)}"
          height="${ROW - 8}"
          class="bar"
        /><text x="${left + w + 6}" y="${y + 16}" class="value">${b.count} · ${pct(b.share)}</text></g
      >`;
    })}
  </svg>`;
}

/** Columns over an ordered axis (duration ranges, hours): `count` as the column, `inner` drawn inside it. */
export function columnChart(id: string, title: string, bars: readonly Bar[], legend?: [string, string]): Markup {
  const n = Math.max(1, bars.length);
  const width = Math.max(320, Math.min(1200, n * 36 + 60));
  const top = legend ? 28 : 10;
  const plot = 160;
  const height = top + plot + 60;
  const col = (width - 50) / n;
  const most = Math.max(1, ...bars.map((b) => b.count));
  const every = Math.ceil(n / 24);
  return markup`<svg
    id="${id}"
    role="img"
    aria-labelledby="${id}-title"
    viewBox="0 0 ${width} ${height}"
    width="${width}"
    height="${height}"
  >
    <title id="${id}-title">${title}</title>
    ${legend ? markup`<rect x="40" y="6" width="12" height="12" class="bar" /><text x="58" y="17" class="label">${legend[0]}</text><rect x="200" y="6" width="12" height="12" class="inner" /><text x="218" y="17" class="label">${legend[1]}</text>` : ''}
    <line x1="40" y1="${top + plot}" x2="${width - 10}" y2="${top + plot}" class="axis" />
    <text x="34" y="${top + 10}" text-anchor="end" class="value">${most}</text>
    ${bars.map((b, i) => {
      const x = 40 + i * col + col * 0.15;
      const w = col * 0.7;
      const h = (plot * b.count) / most;
      const ih = (plot * (b.inner ?? 0)) / most;
      return markup`<g
        ><rect
          x="${x.toFixed(1)}"
          y="${(top + plot - h).toFixed(1)}"
          width="${w.toFixed(1)}"
          height="${h.toFixed(1)}"
          class="bar"
        />${b.inner !== undefined ? markup`<rect x="${x.toFixed(1)}" y="${(top + plot - ih).toFixed(1)}" width="${w.toFixed(1)}" height="${ih.toFixed(1)}" class="inner" />` : ''}${i % every === 0 ? markup`<text x="${(x + w / 2).toFixed(1)}" y="${top + plot + 14}" text-anchor="end" transform="rotate(-35 ${(x + w / 2).toFixed(1)} ${top + plot + 14})" class="tick">${b.label}</text>` : ''}</g
      >`;
    })}
  </svg>`;
}
