import { Option } from '../commander.js';
import { choosesOutput } from '../action.js';

/*
 * The export flags of the commands that list a task's call records (task detail, workflow
 * task-detail); src/report/run-export.ts reads them (ExportFlags).
 */

export const exportFormatOption = () =>
  choosesOutput(new Option('--format <format>', 'export every call record: csv, ndjson or json (an array)'));

export const exportOutputOption = () =>
  choosesOutput(
    new Option(
      '-o, --output <file>',
      'write the export to this file, atomically (temp file, then rename); the format may come from its extension',
    ),
  );

export const bomOption = () => new Option('--bom', 'CSV: start with a UTF-8 byte order mark (for Excel)');

export const excelOption = () =>
  new Option(
    '--excel',
    'CSV for spreadsheets: BOM, and text a spreadsheet would read as a number or formula (phone numbers, =, +, -, @) written as ="..."',
  );
