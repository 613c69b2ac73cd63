import type { Columns } from './columns.js';
import { notFitting, writeBytes, writeString, writeValue, type JsonSource } from './json-bytes.js';
import { toEntry, type PdsValue, type RowOptions } from './validate.js';

const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));
const CALLEE = bytes('{"callee":');
const PLATFORM = bytes(',"platform":');
const VARIABLES = bytes(',"variables":{');
const CASEID = bytes('},"caseid":');
const PDS = bytes(',"pds_variables":');
const COMMA = bytes(',');
const CLOSE = bytes('}');

/** Keys JSON.stringify puts first, in ascending order: array indices (0 to 2^32 - 2). */
const arrayIndex = (key: string) => /^(0|[1-9]\d*)$/.test(key) && Number(key) < 2 ** 32 - 1;

/**
 * The list entry of a checked row, as JSON written straight from its CSV fields: byte for byte
 * `JSON.stringify(toEntry(...))`, without building the entry and its `variables` object (at a
 * million rows, the objects and their garbage cost more than csv-parse's own work). One instance
 * serves every row of a file: `set` it to a row, then hand it to the BatchWriter.
 */
export class RowEntry implements JsonSource {
  /** The variable columns in the order JSON.stringify writes their keys, with the keys' bytes. */
  private readonly variables: Array<{ index: number; key: Uint8Array }>;
  private fields: readonly string[] = [];
  private callee = '';
  private pds: PdsValue;

  constructor(
    private readonly columns: Columns,
    private readonly options: RowOptions,
  ) {
    const indices = columns.variables.filter((v) => arrayIndex(v.key)).sort((a, b) => Number(a.key) - Number(b.key));
    const others = columns.variables.filter((v) => !arrayIndex(v.key));
    this.variables = [...indices, ...others].map(({ index, key }) => ({
      index,
      key: bytes(`${JSON.stringify(key)}:`),
    }));
  }

  /** The row's fields, its callee in E.164 and its parsed pds_variables (what checkFields gave). */
  set(fields: readonly string[], checked: { callee: string; pds: PdsValue }): this {
    this.fields = fields;
    this.callee = checked.callee;
    this.pds = checked.pds;
    return this;
  }

  writeTo(buffer: Buffer, at: number): number {
    try {
      return this.write(buffer, at);
    } catch (error) {
      return notFitting(error);
    }
  }

  toJson(): string {
    return JSON.stringify(toEntry(this.columns, this.fields, { callee: this.callee, pds: this.pds }, this.options));
  }

  private write(buffer: Buffer, at: number): number {
    const { fields, columns } = this;
    at = writeBytes(CALLEE, buffer, at);
    at = writeString(this.callee, buffer, at);
    at = writeBytes(PLATFORM, buffer, at);
    at = writeString(fields[columns.platform]!, buffer, at);
    at = writeBytes(VARIABLES, buffer, at);
    let first = true;
    for (const { index, key } of this.variables) {
      const value = fields[index]!;
      if (value === '' && !this.options.keepEmpty) continue;
      if (!first) at = writeBytes(COMMA, buffer, at);
      first = false;
      at = writeBytes(key, buffer, at);
      at = writeString(value, buffer, at);
    }
    const caseid = columns.caseid >= 0 ? fields[columns.caseid]! : '';
    if (caseid !== '') {
      at = writeBytes(CASEID, buffer, at);
      at = writeString(caseid, buffer, at);
    } else at = writeBytes(CLOSE, buffer, at);
    if (this.pds !== undefined) {
      at = writeBytes(PDS, buffer, at);
      at = writeValue(this.pds, buffer, at);
    }
    return writeBytes(CLOSE, buffer, at);
  }
}
