import { Option, type Command } from './commander.js';
import type { Context } from '../context.js';
import { choosesOutput } from './action.js';

/** The flags of the report commands (task, plan and workflow report). */
export interface ReportOptions {
  /** `--format csv`: the numbers as one CSV table. */
  format?: 'csv';
  /** The old spelling of `--format csv`, hidden (`--csv` names an input file everywhere else). */
  csv?: boolean;
}

/**
 * Declares `--format csv` on a report command, and `--csv`, its old spelling, hidden; either
 * with `--json` is a usage error.
 */
export function reportOptions(command: Command): Command {
  return command
    .addOption(
      choosesOutput(
        new Option('--format <format>', 'csv: the numbers as one CSV table (section,value,count,share,detail)').choices(
          ['csv'],
        ),
      ),
    )
    .addOption(choosesOutput(new Option('--csv', 'deprecated: --format csv').hideHelp()));
}

/** The export format a report run asked for; the old `--csv` says on stderr what to type instead. */
export async function reportFormat(ctx: Context, opts: ReportOptions): Promise<'csv' | undefined> {
  if (opts.csv) {
    (await ctx.output()).warn(
      '--csv is deprecated for reports (--csv names an input file elsewhere): type --format csv',
    );
    return 'csv';
  }
  return opts.format;
}
