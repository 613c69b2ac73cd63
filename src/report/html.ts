import { createHash } from 'node:crypto';
import { markup, Markup } from '../output/html.js';
import { VERSION } from '../version.js';
import { READINGS } from './reading.js';
import { percent, TOTAL_LABELS } from './render.js';
import type { CallNumbers, RoundReport, Share, Spread } from '../schemas/report-output.js';
import { barChart, columnChart, type Bar } from './svg.js';

/** What a report page is about: its title, the facts under it, and a plan's rounds. */
export interface ReportView {
  title: string;
  about: ReadonlyArray<readonly [string, unknown]>;
  rounds?: RoundReport[];
}

/*
 * A report as one self-contained page: inline CSS, charts as SVG drawn here (src/report/svg.ts),
 * no script at all and nothing fetched (its Content-Security-Policy allows only its own style).
 * Every chart is followed by a table of the same numbers, the ones `--json` gives, for people who
 * cannot see the chart and for copying. Readable on a phone (the charts scale, wide tables scroll
 * in their own box) and printed (no navigation, a chart and its table kept on one page).
 */
const CSS = `
:root{--ink:#1d2330;--soft:#5b6475;--bar:#2f5d9f;--inner:#8cb4e8;--track:#e8ecf2;--line:#d3d9e3;font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink)}
body{margin:0 auto;max-width:60rem;padding:1rem}
header dl,footer dl{display:grid;grid-template-columns:max-content 1fr;gap:.1rem 1rem;margin:.5rem 0}
dt{color:var(--soft)}dd{margin:0;overflow-wrap:anywhere}
.made{color:var(--soft);font-size:.85rem}
nav ul{display:flex;flex-wrap:wrap;gap:.25rem .9rem;padding:0;list-style:none}
a{color:var(--bar)}a:focus-visible,.table:focus-visible{outline:3px solid #f0a500;outline-offset:2px}
section{margin:1.6rem 0;break-inside:avoid}
h2{font-size:1.2rem;border-bottom:1px solid var(--line);padding-bottom:.2rem}
figure{margin:.5rem 0}figcaption{color:var(--soft);font-size:.85rem}
svg{max-width:100%;height:auto}svg text{font:12px system-ui,sans-serif;fill:var(--ink)}svg .value,svg .tick{fill:var(--soft)}
svg .bar{fill:var(--bar)}svg .inner{fill:var(--inner)}svg .track{fill:var(--track)}svg .axis{stroke:var(--line)}
.table{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;margin:.4rem 0;font-variant-numeric:tabular-nums}
th,td{text-align:left;padding:.2rem .7rem .2rem 0;border-bottom:1px solid var(--line);vertical-align:top}
td.n,th.n{text-align:right}
.spread{margin:.3rem 0}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media (max-width:600px){body{padding:.6rem;font-size:14px}}
@media print{nav{display:none}body{max-width:none;padding:0}a{color:inherit;text-decoration:none}section{page-break-inside:avoid}svg .track{fill:#eee}}
`;

const SECTIONS: Array<[id: string, title: string]> = [
  ['outcomes', 'Outcomes'],
  ['rounds', 'Rounds'],
  ['intentions', 'Intentions'],
  ['labels', 'Final labels'],
  ['statuses', 'Call statuses'],
  ['hangup-types', 'Hang-up types'],
  ['ring-types', 'Ring types'],
  ['durations', 'Call durations'],
  ['over-time', 'Calls over time'],
  ['redials', 'Redials'],
  ['questions', 'Questions'],
];

const bars = (shares: readonly Share[]): Bar[] =>
  shares.map((s) => ({ label: s.value, count: s.count, share: s.share }));

/**
 * A table of the page in a box that scrolls on a narrow screen (`data-section` names its --json
 * key): its last `numbers` columns are numbers; a row's first cell heads the row.
 */
function numbersTable(
  key: string,
  label: string,
  headers: readonly string[],
  numbers: number,
  rows: ReadonlyArray<{ cells: readonly unknown[]; key?: string }>,
  caption = false,
): Markup {
  const n = (i: number) => (i >= headers.length - numbers ? markup` class="n"` : '');
  return markup`<div class="table" tabindex="0" role="region" aria-label="${label}, as numbers">
    <table data-section="${key}">
      ${caption ? markup`<caption class="sr">${label}</caption>` : ''}
      <thead>
        <tr>
          ${headers.map((header, i) => markup`<th scope="col"${n(i)}>${header}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          (row) =>
            markup`<tr${row.key === undefined ? '' : markup` data-key="${row.key}"`}>
              ${row.cells.map((cell, i) => (i ? markup`<td${n(i)}>${cell}</td>` : markup`<th scope="row">${cell}</th>`))}
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

function shareTable(key: string, caption: string, shares: readonly Share[], header = 'Value', details = false): Markup {
  return numbersTable(
    key,
    caption,
    [header, ...(details ? ['Descriptions'] : []), 'Count', 'Share'],
    2,
    shares.map((s) => ({
      cells: [
        s.value,
        ...(details ? [((s as { descriptions?: string[] }).descriptions ?? []).join(' / ')] : []),
        s.count,
        percent(s.share),
      ],
    })),
    true,
  );
}

function distributionSection(
  id: string,
  title: string,
  key: string,
  shares: readonly Share[],
  details = false,
): Markup {
  return markup`<section id="${id}" aria-labelledby="${id}-h">
    <h2 id="${id}-h">${title}</h2>
    ${
      shares.length
        ? markup`<figure>
              ${barChart(`${id}-chart`, title, bars(shares))}
              <figcaption>${title}: count and share of calls, the table below gives the same numbers.</figcaption>
            </figure>
            ${shareTable(key, title, shares, 'Value', details)}`
        : markup`<p>None.</p>`
    }
  </section>`;
}

const spreadText = (label: string, s: Spread, unit: string) =>
  markup`<p class="spread" data-spread="${label}">
    ${label}: median ${s.median ?? '-'}${unit}, p90 ${s.p90 ?? '-'}${unit}, max ${s.max ?? '-'}${unit} (${s.count}
    calls)
  </p>`;

export function reportHtml(view: ReportView, n: CallNumbers, made: Date): string {
  const style = CSS.trim();
  const hash = createHash('sha256').update(style).digest('base64');
  const present = SECTIONS.filter(
    ([id]) => (id !== 'rounds' || view.rounds?.length) && (id !== 'questions' || n.questions?.length),
  );
  const outcomes = TOTAL_LABELS.slice(1).map(([k, label]) => ({ label, count: n.totals[k], share: n.rates[k] }));
  const page = markup`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta
          http-equiv="Content-Security-Policy"
          content="default-src 'none'; style-src 'sha256-${hash}'; base-uri 'none'; form-action 'none'"
        />
        <title>${view.title}</title>
        <style>${new Markup(style)}</style>
      </head>
      <body>
        <header>
          <h1>${view.title}</h1>
          <dl>
            ${view.about.map(
              ([k, v]) =>
                markup`<dt>${k}</dt>
                  <dd>${v}</dd>`,
            )}
          </dl>
          <p class="made">
            Numbers computed on ${made.toISOString()} by callctl ${VERSION}, a command-line tool for robot
            outbound-calling campaigns, from the call records the service gave (<a href="#how">how</a>).
          </p>
        </header>
        <nav aria-label="Sections">
          <ul>
            ${present.map(([id, title]) => markup`<li><a href="#${id}">${title}</a></li>`)}
          </ul>
        </nav>
        <main>
          <section id="outcomes" aria-labelledby="outcomes-h">
            <h2 id="outcomes-h">Outcomes</h2>
            <p>
              ${n.totals.records} records, ${n.totals.called} called (${percent(n.rates.called)}); the shares below are
              of calls made.
            </p>
            <figure>
              ${barChart('outcomes-chart', 'Outcomes of the calls made', outcomes)}
              <figcaption>What happened to the calls made; the table below gives the same numbers.</figcaption>
            </figure>
            ${numbersTable(
              'totals',
              'Outcomes',
              ['Total', 'Count', 'Share'],
              2,
              TOTAL_LABELS.map(([k, label]) => ({ key: k, cells: [label, n.totals[k], percent(n.rates[k])] })),
            )}
          </section>
          ${view.rounds?.length ? roundsSection(view.rounds) : ''}
          ${distributionSection(
            'intentions',
            'Intentions',
            'intentions',
            n.intentions,
            n.intentions.some((i) => i.descriptions.length > 0),
          )}
          ${distributionSection('labels', 'Final labels', 'labels', n.labels)}
          ${distributionSection('statuses', 'Call statuses', 'statuses', n.statuses)}
          ${distributionSection('hangup-types', 'Hang-up types', 'hangupTypes', n.hangupTypes)}
          ${distributionSection('ring-types', 'Ring types', 'ringTypes', n.ringTypes)}
          <section id="durations" aria-labelledby="durations-h">
            <h2 id="durations-h">Call durations</h2>
            ${spreadText('call duration', n.durations, ' s')}${spreadText('talk rounds', n.talkRounds, '')}
            <figure>
              ${columnChart('durations-chart', 'Connected calls by duration', bars(n.durationRanges))}
              <figcaption>Connected calls by how long they lasted.</figcaption>
            </figure>
            ${shareTable('durationRanges', 'Call durations', n.durationRanges, 'Duration')}
          </section>
          <section id="over-time" aria-labelledby="over-time-h">
            <h2 id="over-time-h">Calls over time</h2>
            ${
              n.callsByHour.length
                ? markup`<figure>
                      ${columnChart(
                        'over-time-chart',
                        'Calls by hour, UTC',
                        n.callsByHour.map((h) => ({
                          label: h.hour.slice(5, 13).replace('T', ' '),
                          count: h.called,
                          share: null,
                          inner: h.connected,
                        })),
                        ['called', 'connected'],
                      )}
                      <figcaption>Calls made each hour (UTC), and of them connected.</figcaption>
                    </figure>
                    ${numbersTable(
                      'callsByHour',
                      'Calls over time',
                      ['Hour (UTC)', 'Called', 'Connected'],
                      2,
                      n.callsByHour.map((h) => ({ cells: [h.hour, h.called, h.connected] })),
                    )}`
                : markup`<p>No call start times.</p>`
            }
          </section>
          <section id="redials" aria-labelledby="redials-h">
            <h2 id="redials-h">Redials</h2>
            <p data-spread="redials">${n.redials.calls} redial calls on ${n.totals.redialed} records.</p>
            ${
              n.redials.calls
                ? markup`<figure>
                      ${barChart('redials-chart', 'Redial ring types', bars(n.redials.ringTypes))}
                      <figcaption>Ring types of the redial calls.</figcaption>
                    </figure>
                    ${shareTable('redials.ringTypes', 'Redial ring types', n.redials.ringTypes, 'Ring type')}${shareTable('redials.labels', 'Redial labels', n.redials.labels, 'Label')}`
                : ''
            }
          </section>
          ${n.questions?.length ? questionsSection(n) : ''}
        </main>
        <footer>
          <section id="how" aria-labelledby="how-h">
            <h2 id="how-h">How these numbers are computed</h2>
            <p>
              The service gives these fields but not what most of their values mean; this is callctl's reading of
              them, as its documentation gives it (docs/reports.md, "How report numbers are computed").
            </p>
            <dl>
              ${READINGS.map(
                ([term, reading]) =>
                  markup`<dt>${term}</dt>
                    <dd>${reading}</dd>`,
              )}
            </dl>
          </section>
        </footer>
      </body>
    </html> `;
  return page.text;
}

function roundsSection(rounds: RoundReport[]): Markup {
  return markup`<section id="rounds" aria-labelledby="rounds-h">
    <h2 id="rounds-h">Rounds</h2>
    <figure>
      ${barChart(
        'rounds-chart',
        'Connected calls by round',
        rounds.map((r) => ({ label: `${r.Rounds} ${r.TaskID}`, count: r.totals.connected, share: r.rates.connected })),
      )}
      <figcaption>Connected calls in each round, and their share of the round's calls.</figcaption>
    </figure>
    ${numbersTable(
      'rounds',
      'Rounds',
      ['Round', 'Task', 'Status', 'Records', 'Called', 'Connected', 'Share'],
      4,
      rounds.map((r) => ({
        cells: [
          r.Rounds,
          r.TaskID,
          r.Status,
          r.totals.records,
          r.totals.called,
          r.totals.connected,
          percent(r.rates.connected),
        ],
      })),
    )}
  </section>`;
}

function questionsSection(n: CallNumbers): Markup {
  return markup`<section id="questions" aria-labelledby="questions-h">
    <h2 id="questions-h">Questions</h2>
    ${(n.questions ?? []).map(
      (q, i) =>
        markup`<h3>${q.question} (${q.type}, ${q.count} calls)</h3>
          <figure>${barChart(`question-${i}-chart`, `Answers to ${q.question}`, bars(q.answers))}</figure>
          ${shareTable(`questions.${i}.answers`, `Answers to ${q.question}`, q.answers, 'Answer')}${shareTable(`questions.${i}.verification`, `Verification of ${q.question}`, q.verification, 'Verification')}`,
    )}
  </section>`;
}
