import { Option, type Command } from './commander.js';
import { choosesOutput } from './action.js';

/** Declares the export flags of the commands that list a task's call records (task detail, workflow task-detail). */
export function exportOptions(command: Command): Command {
  return command
    .addOption(
      choosesOutput(new Option('--format <format>', 'export every call record: csv, ndjson or json (an array)')),
    )
    .addOption(
      choosesOutput(
        new Option(
          '-o, --output <file>',
          'write the export to this file, atomically (temp file, then rename); the format may come from its extension',
        ),
      ),
    )
    .option('--bom', 'CSV: start with a UTF-8 byte order mark (for Excel)')
    .option(
      '--excel',
      'CSV for spreadsheets: BOM, and text a spreadsheet would read as a number or formula (phone numbers, =, +, -, @) written as ="..."',
    );
}
