import { writeFileAtomic } from '../files/atomic-write.js';
import type { RowResult } from './rows.js';
import { redact } from '../redact.js';

/** `people.csv` -> `people.results.csv`, beside the input. */
export function defaultResultsPath(csvPath: string): string {
  return csvPath.replace(/(\.csv)?$/i, '.results.csv');
}

/** A CSV cell, quoted when it holds a comma, quote or line break (RFC 4180). */
export function csvCell(value: string | number | undefined): string {
  const text = value === undefined ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * Writes the results file, one line per input row: row, line, who, outcome, the id (trace_id or
 * task_id) and the error. Written atomically (src/files/atomic-write.ts), so a reader never
 * sees half of it.
 */
export function writeResults(path: string, results: readonly RowResult[], columns: { who: string; id: string }): void {
  const lines = [['row', 'line', columns.who, 'outcome', columns.id, 'error'].join(',')];
  for (const r of results) lines.push([r.row, r.line, r.who, r.outcome, r.id, r.error].map(csvCell).join(','));
  // Errors quote the service, which may echo a secret (a push token in a path, say).
  writeFileAtomic(path, `${redact(lines.join('\n'))}\n`);
}
