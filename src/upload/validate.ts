import { CALLEE_RE, PLATFORM_MAX_LENGTH } from '../limits.js';
import { person } from '../person.js';
import { listEntrySchema, type ListEntry } from '../schemas/workflow.js';
import type { Columns } from './columns.js';
import type { Problem } from '../csv/problems.js';
import { plural } from '../plural.js';

export interface RowOptions {
  /** Keep empty cells as empty strings in `variables` (default: left out). */
  keepEmpty: boolean;
}

// The rules come from the list-entry schema (one source of truth). Only `platform` is checked
// with it field by field: the row mapping below makes `caseid` and every variable a string and
// `pds_variables` an object or a string by construction, and a full object parse per row costs
// about 1 µs, a third of what csv-parse itself spends on a row. Even the field parse costs more
// than the length check it comes down to, which goes first. A callee already in E.164 passes the
// schema's regex; any other spelling is read as push reads a caller (src/person.ts).
const platformSchema = listEntrySchema.shape.platform;

/** What a checked row carries besides its fields: its `pds_variables`, parsed. */
export type PdsValue = ListEntry['pds_variables'];

/** `callee`: the row's callee in E.164, the form it is sent and compared in. */
export type FieldsResult =
  { ok: true; callee: string; pds: PdsValue; problems?: undefined } | { ok: false; problems: Problem[] };

/**
 * Checks one CSV row's fields for a list entry, without building the entry (toEntry builds it
 * when it is spooled). Every problem names the row's line and the column. A row is valid when it
 * has no problem; duplicates are found by the caller (dedup.ts).
 */
export function checkFields(
  columns: Columns,
  fields: readonly string[],
  line: number,
  region: string | undefined,
): FieldsResult {
  const problems: Problem[] = [];
  const names = columns.names;
  if (fields.length !== names.length) {
    const where = fields.length > names.length ? names.length + 1 : fields.length + 1;
    problems.push({
      line,
      column: names[where - 1] ?? `#${where}`,
      message: `the row has ${plural(fields.length, 'field')}, the header ${names.length} (a missing or extra delimiter, or an unquoted delimiter inside a value?)`,
    });
    return { ok: false, problems };
  }
  const written = fields[columns.callee]!;
  const platform = fields[columns.platform]!;
  let callee = written;
  if (!CALLEE_RE.test(written)) {
    const who = person(written, { phone: true, national: true, region });
    if (who.ok) callee = who.key;
    else problems.push({ line, column: names[columns.callee]!, message: `${quote(written)} ${who.problem}` });
  }
  const p =
    platform.length >= 1 && platform.length <= PLATFORM_MAX_LENGTH ? undefined : platformSchema.safeParse(platform);
  if (p && !p.success) {
    const got = platform.length > 0 ? `, got ${platform.length} characters` : '';
    problems.push({ line, column: names[columns.platform]!, message: `${p.error.issues[0]!.message}${got}` });
  }
  let pds: PdsValue;
  if (columns.pdsVariables >= 0) {
    const raw = fields[columns.pdsVariables]!;
    if (raw !== '') {
      const parsed = parsePdsVariables(raw);
      if (parsed.ok) pds = parsed.value;
      else problems.push({ line, column: names[columns.pdsVariables]!, message: parsed.problem });
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, callee, pds };
}

/**
 * The list entry of a checked row: `callee` (in E.164), `platform`, `variables` (every other
 * column, as strings; empty cells left out unless keepEmpty), then `caseid` and `pds_variables` when given.
 */
export function toEntry(
  columns: Columns,
  fields: readonly string[],
  checked: { callee: string; pds: PdsValue },
  options: RowOptions,
): ListEntry {
  const { callee, pds } = checked;
  const variables: Record<string, string> = {};
  for (const { index, key } of columns.variables) {
    const value = fields[index]!;
    if (value === '' && !options.keepEmpty) continue;
    // A column named __proto__ is data like any other, not the object's prototype.
    if (key === '__proto__')
      Object.defineProperty(variables, key, { value, enumerable: true, writable: true, configurable: true });
    else variables[key] = value;
  }
  const entry: ListEntry = { callee, platform: fields[columns.platform]!, variables };
  if (columns.caseid >= 0 && fields[columns.caseid] !== '') entry.caseid = fields[columns.caseid];
  if (pds !== undefined) entry.pds_variables = pds;
  return entry;
}

/**
 * `pds_variables` is a JSON object's text or a plain string (README, "How callctl reads the spec's gaps"). A value that looks like
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
    return {
      ok: false,
      problem: 'is JSON but not an object; give a JSON object, or a plain string that does not start with { or [',
    };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

function quote(value: string): string {
  const shown = value.length > 40 ? `${value.slice(0, 40)}...` : value;
  return JSON.stringify(shown);
}
