import { delimiterHint } from '../csv/delimiter-hint.js';
import { InputError } from '../errors.js';
import { said } from '../said.js';

/** The columns of a contact CSV with a meaning of their own (README, "How callctl reads the spec's gaps"). */
export const REQUIRED_COLUMNS = ['callee', 'platform'] as const;
export const OPTIONAL_COLUMNS = ['caseid', 'pds_variables'] as const;

/**
 * Columns a rejects file adds (see rejects.ts). They are ignored on reading, so that a rejects
 * file, once fixed, uploads again as it is.
 */
export const REJECT_LINE_COLUMN = 'rejected_line';
export const REJECT_REASON_COLUMN = 'rejected_reason';
const IGNORED = new Set([REJECT_LINE_COLUMN, REJECT_REASON_COLUMN]);

/** Where each part of a list entry comes from, by field index. */
export interface Columns {
  /** The header's names, trimmed. */
  names: string[];
  callee: number;
  platform: number;
  /** -1 when absent. */
  caseid: number;
  /** -1 when absent. */
  pdsVariables: number;
  /** Every other column: a key of `variables`. */
  variables: Array<{ index: number; key: string }>;
}

/**
 * Reads the header row. The four known names match case-insensitively; any other column becomes
 * a key of `variables`. Missing required columns, empty names and repeated names are caught here,
 * before any row is read.
 */
export function readHeader(fields: readonly string[], line: number, file: string, delimiter = ','): Columns {
  const names = fields.map((f) => f.trim());
  const fail = (message: string) => new InputError(said`${file}: line ${line}: ${message}`, { line });
  const seen = new Map<string, number>();
  const known: Record<string, number> = {};
  const variables: Columns['variables'] = [];
  names.forEach((name, index) => {
    if (name === '') throw fail(`column ${index + 1} of the header has no name`);
    const lower = name.toLowerCase();
    const reserved =
      (REQUIRED_COLUMNS as readonly string[]).includes(lower) ||
      (OPTIONAL_COLUMNS as readonly string[]).includes(lower) ||
      IGNORED.has(lower);
    const key = reserved ? lower : name;
    const earlier = seen.get(key);
    if (earlier !== undefined) throw fail(`column "${name}" appears twice (columns ${earlier + 1} and ${index + 1})`);
    seen.set(key, index);
    if (IGNORED.has(lower)) return;
    if (reserved) known[lower] = index;
    else variables.push({ index, key: name });
  });
  const missing = REQUIRED_COLUMNS.filter((c) => known[c] === undefined);
  if (missing.length > 0) {
    const what = missing.length === 1 ? `required column ${missing[0]}` : `required columns ${missing.join(' and ')}`;
    throw fail(`missing ${what} (the header has: ${names.join(', ')})${delimiterHint(names, delimiter)}`);
  }
  return {
    names,
    callee: known.callee!,
    platform: known.platform!,
    caseid: known.caseid ?? -1,
    pdsVariables: known.pds_variables ?? -1,
    variables,
  };
}
