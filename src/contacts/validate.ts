import { CALLEE_RE, PLATFORM_MAX_LENGTH } from '../limits.js';
import { listEntrySchema, type ListEntry } from '../schemas/workflow.js';
import type { Columns } from './columns.js';
import type { Problem } from './problems.js';

export interface RowOptions {
  /** Keep empty cells as empty strings in `variables` (default: left out). */
  keepEmpty: boolean;
}

export type RowResult = { entry: ListEntry; problems?: undefined } | { entry?: undefined; problems: Problem[] };

// The rules come from the list-entry schema (one source of truth). Only `callee` and `platform`
// are checked with it field by field: the row mapping below makes `caseid` and every variable a
// string and `pds_variables` an object or a string by construction, and a full object parse per
// row costs about 1 µs, a third of what csv-parse itself spends on a row. Even the two field
// parses cost more than the regex and length checks they come down to, which go first.
const calleeSchema = listEntrySchema.shape.callee;
const platformSchema = listEntrySchema.shape.platform;

/**
 * Maps one CSV row to a list entry and checks it. Every problem names the row's line and the
 * column. A row is valid when it has no problem; duplicates are found by the caller (dedup.ts).
 */
export function checkRow(columns: Columns, fields: readonly string[], line: number, options: RowOptions): RowResult {
  const problems: Problem[] = [];
  const names = columns.names;
  if (fields.length !== names.length) {
    const where = fields.length > names.length ? names.length + 1 : fields.length + 1;
    problems.push({
      line,
      column: names[where - 1] ?? `#${where}`,
      message: `the row has ${fields.length} fields, the header ${names.length} (a missing or extra delimiter, or an unquoted delimiter inside a value?)`,
    });
    return { problems };
  }
  const callee = fields[columns.callee]!;
  const platform = fields[columns.platform]!;
  // The quick checks only accept what the schema accepts; the schema decides (and words) the rest.
  const c = CALLEE_RE.test(callee) ? undefined : calleeSchema.safeParse(callee);
  if (c && !c.success) problems.push({ line, column: names[columns.callee]!, message: `${c.error.issues[0]!.message}, got ${quote(callee)}` });
  const p = platform.length >= 1 && platform.length <= PLATFORM_MAX_LENGTH ? undefined : platformSchema.safeParse(platform);
  if (p && !p.success) {
    const got = platform.length > 0 ? `, got ${platform.length} characters` : '';
    problems.push({ line, column: names[columns.platform]!, message: `${p.error.issues[0]!.message}${got}` });
  }
  let pds: ListEntry['pds_variables'];
  if (columns.pdsVariables >= 0) {
    const raw = fields[columns.pdsVariables]!;
    if (raw !== '') {
      const parsed = parsePdsVariables(raw);
      if (parsed.ok) pds = parsed.value;
      else problems.push({ line, column: names[columns.pdsVariables]!, message: parsed.problem });
    }
  }
  if (problems.length > 0) return { problems };

  const variables: Record<string, string> = {};
  for (const { index, key } of columns.variables) {
    const value = fields[index]!;
    if (value !== '' || options.keepEmpty) variables[key] = value;
  }
  const entry: ListEntry = { callee, platform, variables };
  if (columns.caseid >= 0 && fields[columns.caseid] !== '') entry.caseid = fields[columns.caseid];
  if (pds !== undefined) entry.pds_variables = pds;
  return { entry };
}

/**
 * `pds_variables` is a JSON object's text or a plain string (design.md). A value that looks like
 * JSON (it starts with `{` or `[`) must be a valid JSON object; anything else is a plain string.
 */
export function parsePdsVariables(
  raw: string,
): { ok: true; value: Record<string, unknown> | string } | { ok: false; problem: string } {
  const text = raw.trimStart();
  if (!text.startsWith('{') && !text.startsWith('[')) return { ok: true, value: raw };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, problem: `looks like JSON but is not valid JSON (${(e as Error).message})` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, problem: 'is JSON but not an object; give a JSON object, or a plain string that does not start with { or [' };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

function quote(value: string): string {
  const shown = value.length > 40 ? `${value.slice(0, 40)}...` : value;
  return JSON.stringify(shown);
}
