import { Option, type Command } from './commander.js';
import { delimiter } from './delimiter.js';
import { RATE, rate, recallWindow } from './flag-values.js';
import { JSON_SHAPES } from '../help/json-shapes.js';
import { claimOldStateOption, ignoreOldStateOption, storeFileOption, storeOption } from './store-option.js';

/** The words that differ between push and template send in the flags they share. */
export interface CsvSendWords {
  /** `--dry-run`'s help. */
  dryRun: string;
  /** `--csv`'s help. */
  csv: string;
  /** What is sent per second: `pushes`, `messages`. */
  unit: string;
  /** What reaching a person is: `call` (may call twice), `message`. */
  reach: string;
  /** The same in the past: `called`, `messaged`. */
  reached: string;
}

/**
 * The flags of a command that sends one request per CSV row (push, template send), declared
 * once: confirmation, quiet, dry run, the file and how it is read, the rate, the results file,
 * and what an earlier run of the same file or the never-twice ledger left.
 */
export function csvSendFlags(command: Command, words: CsvSendWords): Command {
  return command
    .option('-y, --yes', 'do not ask for confirmation (required without a terminal)')
    .option(
      '-q, --quiet',
      'print errors only (no progress, warnings or summary; --json still prints the answer or summary)',
    )
    .option('--dry-run', words.dryRun)
    .option('--delimiter <char>', 'with --csv: field delimiter, one character; "tab" for a tab', delimiter)
    .option('--csv <file>', words.csv)
    .addOption(
      new Option('--rate <n>', `with --csv: ${words.unit} per second, one at a time (${RATE.min} to ${RATE.max})`)
        .default(5)
        .argParser(rate()),
    )
    .option(
      '--results <file>',
      'with --csv: results file (default: beside the input, its .csv replaced: calls.csv gives calls.results.csv)',
    )
    .option(
      '--resend-uncertain',
      `with --csv: send again rows an earlier run sent without getting an answer (may ${words.reach} twice)`,
    )
    .option('--retry-failed', 'with --csv: send again rows the service refused in an earlier run')
    .option(
      '--call-again',
      `send also to people already ${words.reached} through the same destination within --recall-window`,
    )
    .option(
      '--recall-window <duration>',
      'how long a person reached through a destination is not reached again (default 24h; e.g. 90m, 2d; 0: no ledger check)',
      recallWindow,
    )
    .option(
      '--region <code>',
      "region of phone numbers written without + and a country code (ISO 3166, e.g. US; else the profile's region): such a number is refused without one, never guessed",
    )
    .option('--e164', 'send phone numbers in E.164 form (+ and digits) rather than as written')
    .addOption(claimOldStateOption())
    .addOption(ignoreOldStateOption())
    .addOption(storeOption())
    .addOption(storeFileOption());
}

/** The end of push's and template send's `--json` help: a dry run, and the summary of a --csv run. */
export const CSV_SEND_JSON_HELP = `one person already reached within --recall-window (nothing sent, exit 0),
${JSON_SHAPES.sendSkipped};
--dry-run ("skipped": the people the ledger would skip),
${JSON_SHAPES.sendDryRun};
--csv: one line ("stopped": null, or why the run stopped),
${JSON_SHAPES.csvSend}`;
