import type { Writable } from 'node:stream';
import type { RecordSink } from '../api/stream.js';
import { csvCell, csvLine, type CsvMode } from './csv.js';

const NEWLINE = Buffer.from('\n');
const JSON_SEP = Buffer.from(',\n');

export const EXPORT_FORMATS = ['csv', 'ndjson', 'json'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The named fields of a calling task's record, in the spec's order: the CSV header. */
export const TASK_RECORD_COLUMNS = [
  'id',
  'RobotID',
  'CalleeName',
  'CalleeGender',
  'CalleeNumber',
  'CallStartTime',
  'CallEndTime',
  'Status',
  'Intention',
  'intention_description',
  'CallID',
  'CallTimes',
  'Comments',
  'BorrowedDate',
  'DueDate',
  'BorrowedAmount',
  'TotalOwingAmount',
  'CurrencyUnit',
  'PlatformName',
  'RingType',
  'HangupType',
  'ExtraA',
  'ExtraB',
  'ExtraC',
  'AsrResult',
  'EventLabel',
  'RingTime',
  'TalkRound',
  'RedailCall',
  'NerSlots',
  'call_notes',
  'caller_number',
] as const;

/** The named fields of a workflow call-task's `details` entry, in the spec's order. */
export const WORKFLOW_CALL_COLUMNS = [
  'id',
  'callee',
  'result',
  'result_label',
  'duration',
  'hangup_type',
  'ring_type',
  'question_answer',
  'NerSlots',
  'robot_hash',
  'call_id',
  'call_times',
  'call_start_time',
  'call_end_time',
  'ring_time',
  'talk_round',
  'redail_call',
  'intention_description',
  'EventLabel',
  'caller_number',
  'case_id',
] as const;

/**
 * The last CSV column: the fields a record has beyond the named ones (the spec declares 34 fields
 * of a task's record and names 32), as a JSON object's text, empty when there are none. The
 * header is written before the first record arrives, so it cannot list them one by one.
 */
export const EXTRA_COLUMN = 'extra';

export interface ExportOptions {
  format: ExportFormat;
  columns: readonly string[];
  /** CSV only. */
  csvMode: CsvMode;
  /** A UTF-8 byte order mark first (Excel reads UTF-8 CSV correctly only with it). */
  bom: boolean;
}

/**
 * Writes records as they stream in, keeping only a buffer of text: CSV with a header, NDJSON
 * (one record a line), or JSON (an array, one record a line). Honours the stream's back-pressure.
 */
export class RecordWriter<T extends object> implements RecordSink<T> {
  private written = 0;
  private started = false;
  private headWritten = false;
  private readonly named: Set<string>;
  private readonly cells: string[];

  /**
   * @param target where the text goes, and whether a retried request can start over (a file can
   * be emptied; stdout cannot)
   */
  constructor(
    private readonly options: ExportOptions,
    private readonly target: { stream(): Writable; restart?(): Promise<void>; failed?(error: Error): Error },
  ) {
    this.named = new Set(options.columns);
    this.cells = new Array<string>(options.columns.length + 1).fill('');
  }

  get count(): number {
    return this.written;
  }

  /** Records out where they cannot be taken back, once a retried request could not start over. */
  shown(): number | undefined {
    return this.started && this.headWritten && !this.target.restart ? this.written : undefined;
  }

  /** Before each attempt: a retried request starts over (retried only while `shown` allows it). */
  async start(): Promise<void> {
    if (this.started && this.headWritten) await this.target.restart?.();
    this.started = true;
    this.written = 0;
    this.headWritten = false;
  }

  /** The BOM, header or bracket: written with the first record or at the end, so that a refused request writes nothing. */
  private head(): string {
    if (this.headWritten) return '';
    this.headWritten = true;
    let head = this.options.bom ? '\uFEFF' : '';
    if (this.options.format === 'csv') head += csvLine([...this.options.columns, EXTRA_COLUMN]);
    if (this.options.format === 'json') head += '[';
    return head;
  }

  /** A group of records, each with its bytes as the service sent them (`raws`). */
  async records(items: T[], raws: Buffer[]): Promise<void> {
    if (items.length === 0) return;
    const head = this.head();
    const { format } = this.options;
    const first = this.written === 0;
    this.written += items.length;
    if (format === 'csv') {
      const lines = items.map((item) => this.csv(item));
      return this.write(`${head}${lines.join('\r\n')}\r\n`);
    }
    // NDJSON and JSON: each record's own bytes, as the service sent them (numbers keep their
    // exact text). One with a line break inside (pretty-printed JSON: breaks can only be
    // whitespace there) is serialized on one line instead.
    const parts: Buffer[] = [Buffer.from(head + (format === 'json' ? (first ? '\n' : ',\n') : ''))];
    const sep = format === 'json' ? JSON_SEP : NEWLINE;
    for (let i = 0; i < raws.length; i++) {
      if (i > 0) parts.push(sep);
      const raw = raws[i]!;
      parts.push(raw.includes(0x0a) || raw.includes(0x0d) ? Buffer.from(JSON.stringify(items[i])) : raw);
    }
    if (format === 'ndjson') parts.push(NEWLINE);
    await this.write(Buffer.concat(parts));
  }

  /** Ends the document (the JSON array's bracket); the stream itself is the caller's to close. */
  async finish(): Promise<void> {
    if (!this.started) await this.start();
    const end = this.options.format === 'json' ? (this.written ? '\n]\n' : ']\n') : '';
    const text = this.head() + end;
    if (text) await this.write(text);
  }

  private csv(item: T): string {
    const record = item as Record<string, unknown>;
    const { columns, csvMode } = this.options;
    // Cells joined once (a flat string) rather than appended one by one (a rope per record that
    // the garbage collector walks, then flattens).
    const cells = this.cells;
    let present = 0;
    for (let i = 0; i < columns.length; i++) {
      const value = record[columns[i]!];
      if (value !== undefined) present++;
      cells[i] = csvCell(value, csvMode);
    }
    let extra: Record<string, unknown> | undefined;
    // Only a record with more keys than the named ones it has holds others.
    if (Object.keys(record).length > present) {
      for (const key in record) {
        if (!this.named.has(key)) (extra ??= {})[key] = record[key];
      }
    }
    cells[columns.length] = csvCell(extra, csvMode);
    return cells.join(',');
  }

  private async write(text: string | Buffer): Promise<void> {
    const stream = this.target.stream();
    if (stream.write(text)) return;
    // A stream that already failed (a file that could not be opened) never drains; one that
    // fails while waiting closes. Both listeners go once either came: a listener left per wait
    // added up, and Node warned of a leak on stderr.
    if (!stream.errored && !stream.destroyed)
      await new Promise<void>((resolve) => {
        const done = () => {
          stream.off('drain', done);
          stream.off('close', done);
          resolve();
        };
        stream.on('drain', done);
        stream.on('close', done);
      });
    if (stream.errored) throw this.target.failed?.(stream.errored) ?? stream.errored;
  }
}
