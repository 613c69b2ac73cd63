import type { Writable } from 'node:stream';
import type { RecordSink } from '../api/stream.js';
import { stdoutFailed, UsageError } from '../errors.js';
import { EXPORT_FORMATS, RecordWriter, type ExportFormat } from './export.js';
import { AtomicFile } from './output-file.js';
import { said } from '../said.js';

export interface ExportFlags {
  format?: string;
  output?: string;
  bom?: boolean;
  excel?: boolean;
}

const EXTENSIONS: Record<string, ExportFormat> = {
  '.csv': 'csv',
  '.ndjson': 'ndjson',
  '.jsonl': 'ndjson',
  '.json': 'json',
};

/** The format asked for: `--format`, else `--output`'s extension; undefined when not an export. */
export function exportFormat(flags: ExportFlags): ExportFormat | undefined {
  if (flags.format !== undefined) {
    if (!(EXPORT_FORMATS as readonly string[]).includes(flags.format)) {
      throw new UsageError(said`--format must be one of ${EXPORT_FORMATS.join(', ')} (got "${flags.format}")`);
    }
    return flags.format as ExportFormat;
  }
  if (flags.output === undefined) {
    if (flags.bom || flags.excel) throw new UsageError(said`--bom and --excel go with --format csv`);
    return undefined;
  }
  const ext = /\.[^./\\]+$/.exec(flags.output)?.[0]?.toLowerCase() ?? '';
  const format = EXTENSIONS[ext];
  if (!format)
    throw new UsageError(
      said`--output ${flags.output}: say --format ${EXPORT_FORMATS.join('|')} (the file name does not tell)`,
    );
  return format;
}

/**
 * Streams every record of one answer into stdout or, with `--output`, into a file written
 * atomically (renamed into place once the answer was read and checked). Returns how many records.
 */
export async function exportRecords<T extends object>(
  format: ExportFormat,
  flags: ExportFlags,
  columns: readonly string[],
  stdout: Writable,
  fetch: (sink: RecordSink<T>) => Promise<unknown>,
): Promise<number> {
  if ((flags.bom || flags.excel) && format !== 'csv')
    throw new UsageError(said`--bom and --excel go with --format csv`);
  const options = {
    format,
    columns,
    csvMode: flags.excel ? 'excel' : 'exact',
    bom: Boolean(flags.bom || flags.excel),
  } as const;
  if (flags.output === undefined || flags.output === '-') {
    const writer = new RecordWriter<T>(options, { stream: () => stdout, failed: stdoutFailed });
    await fetch(writer);
    await writer.finish();
    return writer.count;
  }
  const file = new AtomicFile(flags.output);
  const writer = new RecordWriter<T>(options, file);
  try {
    await fetch(writer);
    await writer.finish();
    await file.commit();
  } catch (error) {
    await file.discard();
    throw error;
  }
  return writer.count;
}
