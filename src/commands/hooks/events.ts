import { Option, type Command, type FlagsOf } from '../commander.js';
import { choosesOutput, positiveInt, type Deps } from '../action.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';
import { storeFileOption, storeOption } from '../flags/store.js';
import { once } from 'node:events';
import { plural } from '../../plural.js';
import type { Context } from '../../context.js';
import { ExitCode, UsageError } from '../../errors.js';
import type { StoredEvent } from '../../store/events.js';
import type { RenderOptions } from '../../hooks/event-view.js';
import { timeText } from '../time-flags.js';
import { readFailed } from './source.js';
import { said } from '../../said.js';
import { printable } from '../../output/printable.js';
import { tsvCell } from '../../output/output.js';

function declare(hooks: Command) {
  return hooks
    .command('events')
    .description('list recorded events from the NDJSON log or the shared store, filtered; --follow for new ones')
    .option('--log <file>', 'an NDJSON log written by serve-hooks --log')
    .addOption(storeOption())
    .addOption(storeFileOption())
    .option(
      '--type <types>',
      'only these types, comma-separated (refused: requests refused before their type was known)',
    )
    .option(
      '--since <when>',
      'received at or after a time (2026-11-22T14:00:00+07:00), a date (00:00 UTC) or a duration ago (15m, 2h, 3d)',
      timeText,
    )
    .option('--until <when>', 'received before a time, a date or a duration ago (after --since)', timeText)
    .option('--plan <name>', 'only events of this plan (PlanName)')
    .option('--task <id>', 'only events of this task')
    .option('--callee <number>', 'only events for this callee number')
    .option('--verdict <verdicts>', 'verified, rejected, unverified, skipped, unsigned, refused; comma-separated')
    .option('--retries', "only the service's retries")
    .option('--no-retries', 'only first arrivals')
    .option('--limit <n>', 'the latest N matching events', positiveInt)
    .option('--follow', 'then show new events as they arrive, until Ctrl-C')
    .option('--show-numbers', 'show callee numbers in full (masked by default)')
    .addOption(
      choosesOutput(
        new Option(
          '--format <format>',
          'csv: the piped columns as CSV with a header; ndjson: the lines of --json (on a terminal too)',
        ),
      ),
    )
    .addHelpText(
      'after',
      `
Output: on a terminal one line per event (time, type, ids, the event's status, verdict, retry, #id, forward);
piped, TSV: id, time, type, plan, task, callee, status (the event's), verdict, retry, httpStatus
(the HTTP status answered), forward.
--format csv: the same columns as CSV (a header, CRLF line ends); a cell starting with =, +, -, @,
a tab or a carriage return gets a leading ' (anyone can send a notification: a spreadsheet must
run none of its text), a number or phone number excepted. --format ndjson: as --json.
Each event is written as it is read (the store in pages, in order): any number of events.
Callee numbers are masked unless --show-numbers.
--follow: PostgreSQL wakes on LISTEN/NOTIFY; an NDJSON log is watched for growth.

Examples:
  CALLCTL_STORE_FILE=/etc/callctl/store-url callctl hooks events --type task.end --since 2h
  callctl hooks events --log events.ndjson --verdict rejected --json
  callctl hooks events --plan P-2026-11 --follow

JSON (--json), one object per line (the ids the body carries; "forward": shared store only):
${JSON_SHAPES.hooksEvents}`,
    );
}

export type EventsOptions = FlagsOf<typeof declare>;

export function register(hooks: Command, { start }: Deps): void {
  declare(hooks).action((flags, command) => start(command, runHooksEvents, flags));
}

const FORMATS = ['csv', 'ndjson'];

/** Whether id `a` comes after id `b` (decimal numbers as text, without leading zeros). */
const later = (a: string, b: string) => a.length > b.length || (a.length === b.length && a > b);

/**
 * Lists recorded events from either store: a line per event on a terminal, TSV when piped,
 * NDJSON with --json; --follow goes on with new ones until Ctrl-C.
 */
export async function runHooksEvents(ctx: Context, opts: EventsOptions): Promise<number> {
  if (opts.format !== undefined && !FORMATS.includes(opts.format))
    throw new UsageError(said`--format must be one of ${FORMATS.join(', ')} (got "${opts.format}")`);
  // What the run needs beyond its flags is loaded when it runs: declaring `hooks` stays light.
  const [{ eventFilter, exportLine, cells, CSV_HEAD }, { eventLine, forwardText }, { shownFacts }, { flatHeap }] =
    await Promise.all([
      import('./event-lines.js'),
      import('../../hooks/event-view.js'),
      import('../../store/facts.js'),
      import('../../heap.js'),
    ]);
  const filter = eventFilter(opts, ctx.io.now());
  const csv = opts.format === 'csv';
  const store = await (await ctx.store(opts)).events({});
  const out = await ctx.output();
  const json = out.json || opts.format === 'ndjson';
  const render: RenderOptions = { json, showNumbers: !!opts.showNumbers, skipVerify: false };
  const exported = json || csv ? exportLine(json ? 'ndjson' : 'csv', !!opts.showNumbers) : undefined;
  const lineOf = (e: StoredEvent): string => {
    if (exported) return exported(e);
    const summary = shownFacts(e.record);
    if (out.tty) {
      const fwd = forwardText(e);
      const shown = e.record.warnings
        ? { ...e.record, warnings: e.record.warnings.map((w) => printable(w)) }
        : e.record;
      return `${eventLine(Number(e.id), shown, summary, render, out.out)}${fwd ? `  ${out.out.dim(fwd)}` : ''}\n`;
    }
    return `${cells(e, summary, !!opts.showNumbers).map(tsvCell).join('\t')}\n`;
  };
  let shown = 0;
  // Ids already shown, so that a re-read overlapping the last one never shows an event twice.
  const seen = new Set<string>();
  let last: string | undefined;
  // Written as read, at the pace stdout takes them, in writes of about 64 KB (one per event cost
  // more than the event): memory stays flat over any number of events. Only the last ids are kept
  // (a re-read looks back 500 at most).
  flatHeap();
  let pending = csv ? CSV_HEAD : '';
  const flush = async () => {
    if (!pending) return;
    const text = pending;
    pending = '';
    if (!ctx.io.stdout.write(text)) await once(ctx.io.stdout, 'drain');
  };
  const take = async (e: StoredEvent) => {
    // Only a --follow re-read can give an id twice (a read gives each once).
    if (opts.follow) {
      if (seen.has(e.id)) return;
      seen.add(e.id);
      if (seen.size > 20_000) for (const id of [...seen].slice(0, 10_000)) seen.delete(id);
    }
    if (last === undefined || later(e.id, last)) last = e.id;
    shown += 1;
    pending += lineOf(e);
    if (pending.length >= 65_536) await flush();
  };
  // Ctrl-C ends a follow from its start: one that comes during the first read (a loaded machine
  // may still be reading when the user or a script has seen enough) is not a kill by signal.
  const stop = new AbortController();
  const off = opts.follow ? ctx.io.onSignal(() => stop.abort()) : () => undefined;
  try {
    try {
      for await (const e of store.read(filter)) await take(e);
      await flush();
      if (store.skipped)
        out.warn(
          said`${plural(store.skipped, 'line')} of ${store.where} could not be read (corrupt or cut short): skipped`,
        );
      if (!opts.follow) {
        if (shown === 0 && out.tty && !opts.format) out.info(said`(no events)`);
        return 0;
      }
      const { limit: _limit, ...follow } = filter;
      void _limit;
      while (await store.waitForMore(stop.signal)) {
        // Rows of PostgreSQL transactions may commit out of id order: look back a little.
        const after = last === undefined ? undefined : String(BigInt(last) > 500n ? BigInt(last) - 500n : 0n);
        for await (const e of store.read(follow, after)) await take(e);
        await flush();
      }
      // Ended by Ctrl-C (or SIGTERM), the way to end a follow: 130, as every command that is
      // interrupted, and silent.
      return ExitCode.INTERRUPTED;
    } catch (error) {
      // What was read before the failure is shown, as each event was written when read.
      await flush();
      return await readFailed(store, error);
    }
  } finally {
    off();
    await store.close();
  }
}
