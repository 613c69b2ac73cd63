import type { Output } from '../output/output.js';
import { csvLine } from './csv.js';
import type { CallNumbers, IntentionShare, Share, Spread, Totals } from '../schemas/report-output.js';
import { plural } from '../plural.js';

/** Width of a full bar, in characters. */
const BAR_WIDTH = 20;
const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/** A bar of Unicode blocks for a share from 0 to 1, readable without colour (a light track shows the rest). */
export function bar(share: number | null, width = BAR_WIDTH): string {
  const eighths = Math.round(Math.max(0, Math.min(1, share ?? 0)) * width * 8);
  const full = Math.floor(eighths / 8);
  const part = EIGHTHS[eighths % 8]!;
  return '█'.repeat(full) + part + '░'.repeat(width - full - (part ? 1 : 0));
}

export function percent(share: number | null): string {
  return share === null ? '-' : `${(share * 100).toFixed(1)}%`;
}

/** The totals in the order an operator reads them, with their labels. */
export const TOTAL_LABELS: Array<[keyof Totals, string]> = [
  ['records', 'records'],
  ['called', 'called'],
  ['connected', 'connected'],
  ['noAnswer', 'no answer'],
  ['busy', 'busy'],
  ['finished', 'finished (robot hung up)'],
  ['hungUpByCallee', 'hung up by callee'],
  ['redialed', 'redialed'],
];

/**
 * One long table of every number: section, value, count, share, detail. `--csv` writes it as CSV
 * with a header; piped output is the same rows as tab-separated lines.
 */
export interface ReportRow {
  section: string;
  value: string;
  count: number | null;
  share: number | null;
  detail: string;
}

export function reportRows(
  n: CallNumbers,
  rounds?: Array<{ Rounds: string; TaskID: string; Status: string; totals: Totals; rates: CallNumbers['rates'] }>,
): ReportRow[] {
  const rows: ReportRow[] = [];
  const row = (section: string, value: string, count: number | null, share: number | null = null, detail = '') =>
    rows.push({ section, value, count, share, detail });
  for (const r of rounds ?? []) {
    row('round', r.Rounds, r.totals.records, null, `${r.TaskID} ${r.Status}`);
    for (const [k] of TOTAL_LABELS.slice(1)) row(`round ${r.Rounds}`, k, r.totals[k], r.rates[k]);
  }
  for (const [k] of TOTAL_LABELS) row('totals', k, n.totals[k], n.rates[k]);
  const dist = (section: string, shares: Share[]) => {
    for (const s of shares)
      row(section, s.value, s.count, s.share, (s as IntentionShare).descriptions?.join(' / ') ?? '');
  };
  dist('status', n.statuses);
  dist('intention', n.intentions);
  dist('label', n.labels);
  dist('ring_type', n.ringTypes);
  dist('hangup_type', n.hangupTypes);
  const spread = (section: string, s: Spread) => {
    row(section, 'count', s.count);
    for (const k of ['median', 'p90', 'max'] as const) row(section, k, s[k]);
  };
  spread('talk_rounds', n.talkRounds);
  spread('duration_seconds', n.durations);
  dist('duration_range', n.durationRanges);
  for (const h of n.callsByHour) {
    row('called_by_hour', h.hour, h.called);
    row('connected_by_hour', h.hour, h.connected);
  }
  row('redials', 'calls', n.redials.calls);
  dist('redial_ring_type', n.redials.ringTypes);
  dist('redial_label', n.redials.labels);
  for (const q of n.questions ?? []) {
    row('question', q.question, q.count, null, q.type);
    dist(`answer ${q.question}`, q.answers);
    dist(`verification ${q.question}`, q.verification);
    dist(`whether ${q.question}`, q.whether);
    dist(`status ${q.question}`, q.statuses);
  }
  return rows;
}

export const CSV_HEADER = ['section', 'value', 'count', 'share', 'detail'] as const;

export function reportCsv(rows: readonly ReportRow[]): string {
  return csvLine(CSV_HEADER) + rows.map((r) => csvLine([r.section, r.value, r.count, r.share, r.detail])).join('');
}

/**
 * A report on stdout: on a terminal, the totals with their rates and bars, then each
 * distribution as a table with bars; piped, the long table's rows as tab-separated lines.
 */
export async function renderReport(
  out: Output,
  title: string,
  about: ReadonlyArray<readonly [string, unknown]>,
  n: CallNumbers,
  rounds?: Parameters<typeof reportRows>[1],
): Promise<void> {
  if (!out.tty) {
    await out.list(reportRows(n, rounds), [
      { header: 'SECTION', value: (r) => r.section },
      { header: 'VALUE', value: (r) => r.value },
      { header: 'COUNT', value: (r) => r.count },
      { header: 'SHARE', value: (r) => r.share },
      { header: 'DETAIL', value: (r) => r.detail },
    ]);
    return;
  }
  out.record(about, title);
  if (rounds?.length) {
    out.heading('Rounds');
    await out.list(rounds, [
      { header: 'ROUND', value: (r) => r.Rounds },
      { header: 'TASK ID', value: (r) => r.TaskID },
      { header: 'STATUS', value: (r) => r.Status },
      { header: 'RECORDS', value: (r) => r.totals.records },
      { header: 'CALLED', value: (r) => r.totals.called },
      { header: 'CONNECTED', value: (r) => `${r.totals.connected} ${percent(r.rates.connected)}` },
    ]);
  }
  out.heading(rounds ? 'Calls, all rounds' : 'Calls');
  const countWidth = String(n.totals.records).length;
  out.record(
    TOTAL_LABELS.map(([k, label]) => {
      const count = String(n.totals[k]).padStart(countWidth);
      return [
        label,
        k === 'records' ? count : `${count}  ${percent(n.rates[k]).padStart(6)}  ${bar(n.rates[k])}`,
      ] as const;
    }),
  );
  const v = (x: number | null, unit: string) => (x === null ? '-' : `${x}${unit}`);
  out.heading('Connected calls');
  out.record(
    (
      [
        ['talk rounds', n.talkRounds, ''],
        ['call duration', n.durations, ' s'],
      ] as const
    ).map(([label, s, unit]) => [
      label,
      `median ${v(s.median, unit)}, p90 ${v(s.p90, unit)}, max ${v(s.max, unit)}  (${plural(s.count, 'call')})`,
    ]),
  );
  await distribution(out, 'Call durations', n.durationRanges);
  if (n.callsByHour.length) {
    out.heading('Calls by hour (UTC)');
    const most = Math.max(...n.callsByHour.map((h) => h.called));
    await out.list(n.callsByHour, [
      { header: 'HOUR', value: (h) => h.hour },
      { header: 'CALLED', value: (h) => h.called },
      { header: 'CONNECTED', value: (h) => h.connected },
      { header: '', value: (h) => bar(h.called / most) },
    ]);
  }
  await distribution(
    out,
    'Intentions',
    n.intentions,
    n.intentions.some((i) => i.descriptions.length > 0),
  );
  await distribution(out, 'Final labels', n.labels);
  await distribution(out, 'Call statuses', n.statuses);
  await distribution(out, 'Ring types', n.ringTypes);
  await distribution(out, 'Hangup types', n.hangupTypes);
  out.heading(`Redials: ${plural(n.redials.calls, 'call')} on ${plural(n.totals.redialed, 'record')}`);
  // The same two distributions --json, TSV and --csv give (redial_ring_type, redial_label).
  if (n.redials.calls) {
    await distribution(out, undefined, n.redials.ringTypes, false, 'RING TYPE');
    await distribution(out, undefined, n.redials.labels, false, 'LABEL');
  }
  for (const q of n.questions ?? []) {
    out.heading(`Question ${q.question} (${q.type}, ${plural(q.count, 'call')})`);
    await distribution(out, undefined, q.answers, false, 'ANSWER');
    await distribution(out, undefined, q.verification, false, 'VERIFICATION');
    await distribution(out, undefined, q.whether, false, 'WHETHER');
  }
}

async function distribution(
  out: Output,
  heading: string | undefined,
  shares: Share[],
  descriptions = false,
  header = 'VALUE',
): Promise<void> {
  if (heading) out.heading(heading);
  await out.list(shares, [
    { header, value: (s) => s.value },
    ...(descriptions
      ? [{ header: 'DESCRIPTION', value: (s: Share) => (s as IntentionShare).descriptions.join(' / ') }]
      : []),
    { header: 'COUNT', value: (s) => s.count },
    { header: 'SHARE', value: (s) => percent(s.share) },
    { header: '', value: (s) => bar(s.share) },
  ]);
}
