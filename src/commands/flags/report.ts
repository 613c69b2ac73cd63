import { Option, type Command, type OptionValues } from '../commander.js';
import type { Context } from '../../context.js';
import { choosesOutput } from '../action.js';
import { UsageError } from '../../errors.js';
import type { CallNumbers } from '../../schemas/report-output.js';
import type { ReportView } from '../../report/html.js';
import { said } from '../../said.js';

/*
 * The flags of the report commands (task, plan and workflow report): `--format csv|html` and
 * `-o FILE`; `--format` with `--json` is a usage error. Then emitReport writes the report as they ask.
 */

/**
 * Adds the report flags: `--format csv` (the numbers as one CSV table) or `html` (a page with
 * charts) and `-o FILE` (written atomically instead of stdout).
 */
export function reportFlags<A extends unknown[], O extends OptionValues, G extends OptionValues>(
  command: Command<A, O, G>,
) {
  return command
    .addOption(
      choosesOutput(
        new Option(
          '--format <format>',
          'csv: the numbers as one CSV table (section,value,count,share,detail); html: one self-contained page with charts',
        ).choices(['csv', 'html']),
      ),
    )
    .addOption(new Option('-o, --output <file>', 'with --format: write to this file (atomically) instead of stdout'));
}

interface ReportFlags {
  format?: 'csv' | 'html';
  output?: string;
}

/** How a report reads the fields, for every report's --help (docs/reports.md says more). */
export const REPORT_HELP = `Reads the records as they stream in (any size). called: a call start time or CallTimes > 0;
connected: ring type "normal" or at least one talk round; no answer: called, not connected;
busy: ring type "busy"; finished: connected and hung up by the robot (ByRobot). Rates are of
calls made ("called" is of records). Talk rounds and durations (end - start, seconds) are of
connected calls: median, p90 (nearest rank) and max. Unknown values count as themselves,
empty ones as (empty), missing ones as (none). On a terminal: tables with bars; piped: lines of
section<TAB>value<TAB>count<TAB>share<TAB>detail.`;

/** The export format a report run asked for. */
function reportFormat(opts: ReportFlags): 'csv' | 'html' | undefined {
  if (opts.output !== undefined && opts.format === undefined)
    throw new UsageError(said`-o/--output goes with --format csv or --format html`);
  return opts.format;
}

/**
 * A report run: checks the flags, computes the numbers (`compute`), then writes them as asked:
 * `--json`, `--format csv`, `--format html` (to stdout or `-o FILE`), or the terminal report.
 */
export async function emitReport<R extends CallNumbers>(
  ctx: Context,
  opts: ReportFlags,
  compute: () => Promise<R>,
  view: (report: R) => ReportView,
): Promise<number> {
  const format = reportFormat(opts);
  const report = await compute();
  const out = await ctx.output();
  if (out.json) {
    out.writeJson(report);
    return 0;
  }
  const v = view(report);
  const { renderReport, reportCsv, reportRows } = await import('../../report/render.js');
  if (format === undefined) {
    await renderReport(out, v.title, v.about, report, v.rounds);
    return 0;
  }
  const text =
    format === 'csv'
      ? reportCsv(reportRows(report, v.rounds))
      : (await import('../../report/html.js')).reportHtml(v, report, new Date(ctx.io.now()));
  if (opts.output === undefined || opts.output === '-') {
    ctx.io.stdout.write(text);
    return 0;
  }
  const { AtomicFile } = await import('../../report/output-file.js');
  const file = new AtomicFile(opts.output);
  try {
    file.stream().write(text);
    await file.commit();
  } catch (error) {
    await file.discard();
    throw error;
  }
  out.info(said`wrote ${opts.output}`);
  return 0;
}
