import { Option, type Command } from './commander.js';
import type { Context } from '../context.js';
import { choosesOutput } from './action.js';
import { UsageError } from '../errors.js';
import type { CallNumbers } from '../report/stats.js';
import type { ReportView } from '../report/html.js';
import { renderReport, reportCsv, reportRows } from '../report/render.js';

/** The flags of the report commands (task, plan and workflow report). */
export interface ReportOptions {
  /** `--format csv`: the numbers as one CSV table; `html`: a page with charts. */
  format?: 'csv' | 'html';
  /** `-o FILE`: write the CSV or the page there (atomically) instead of stdout. */
  output?: string;
  /** The old spelling of `--format csv`, hidden (`--csv` names an input file everywhere else). */
  csv?: boolean;
}

/**
 * Declares `--format csv|html` and `-o FILE` on a report command, and `--csv`, the old spelling of
 * `--format csv`, hidden; either with `--json` is a usage error.
 */
export function reportOptions(command: Command): Command {
  return command
    .addOption(
      choosesOutput(
        new Option(
          '--format <format>',
          'csv: the numbers as one CSV table (section,value,count,share,detail); html: one self-contained page with charts',
        ).choices(['csv', 'html']),
      ),
    )
    .option('-o, --output <file>', 'with --format: write to this file (atomically) instead of stdout')
    .addOption(choosesOutput(new Option('--csv', 'deprecated: --format csv').hideHelp()));
}

/** The export format a report run asked for; the old `--csv` says on stderr what to type instead. */
async function reportFormat(ctx: Context, opts: ReportOptions): Promise<'csv' | 'html' | undefined> {
  if (opts.csv) {
    (await ctx.output()).warn(
      '--csv is deprecated for reports (--csv names an input file elsewhere): type --format csv',
    );
    return 'csv';
  }
  if (opts.output !== undefined && opts.format === undefined)
    throw new UsageError('-o/--output goes with --format csv or --format html');
  return opts.format;
}

/**
 * A report run: checks the flags, computes the numbers (`compute`), then writes them as asked:
 * `--json`, `--format csv`, `--format html` (to stdout or `-o FILE`), or the terminal report.
 */
export async function emitReport<R extends CallNumbers>(
  ctx: Context,
  opts: ReportOptions,
  compute: () => Promise<R>,
  view: (report: R) => ReportView,
): Promise<number> {
  const format = await reportFormat(ctx, opts);
  const report = await compute();
  const out = await ctx.output();
  if (out.json) {
    out.writeJson(report);
    return 0;
  }
  const v = view(report);
  if (format === undefined) {
    await renderReport(out, v.title, v.about, report, v.rounds);
    return 0;
  }
  const text =
    format === 'csv'
      ? reportCsv(reportRows(report, v.rounds))
      : (await import('../report/html.js')).reportHtml(v, report, new Date(ctx.io.now()));
  if (opts.output === undefined || opts.output === '-') {
    ctx.io.stdout.write(text);
    return 0;
  }
  const { AtomicFile } = await import('../report/output-file.js');
  const file = new AtomicFile(opts.output);
  try {
    file.stream().write(text);
    await file.commit();
  } catch (error) {
    await file.discard();
    throw error;
  }
  out.info(`wrote ${opts.output}`);
  return 0;
}
