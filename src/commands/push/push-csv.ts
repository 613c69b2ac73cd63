import { resolve } from 'node:path';
import { delimiterHint } from '../../csv/delimiter-hint.js';
import type { Context } from '../../context.js';
import type { PushRequest } from '../../schemas/push.js';
import type { SendRow } from '../../reach/rows.js';
import { readCsv } from '../../csv/table.js';
import { deliver } from '../../api/deliver.js';
import type { Problem } from '../../csv/problems.js';
import { buildPush, oldPushNames, preparePush, pushAnswer, pushEndpoint } from '../../reach/push.js';
import { pushDestination } from '../../store/destination.js';
import { withCredentialHint } from '../../reach/refused.js';
import { oldJournalName } from '../../store/row-journal.js';
import { collectVariables } from '../shared/variables.js';
import { runCsvSend } from '../shared/csv-send.js';
import { callerReading, rekeyCaller, resolvePushTarget, type PushOptions } from './target.js';
import { invalidInput } from '../shared/send-ui.js';

const FIELD_COLUMNS = new Set(['caller_id', 'client_name']);

/**
 * `push --csv`: one push per row. `caller_id` is required (see buildPush), `client_name`
 * optional; every other column is a variable (empty cells are left out, so `--var` defaults apply).
 */
export async function runPushCsv(ctx: Context, opts: PushOptions): Promise<number> {
  const target = await resolvePushTarget(ctx, opts);
  const reading = await callerReading(ctx, opts);
  const common = collectVariables(opts.var, opts.varsFile);
  const file = await readCsv(opts.csv!, opts.delimiter);
  const problems: Problem[] = [...file.problems];
  if (!file.header.includes('caller_id'))
    problems.unshift({
      line: 1,
      message: `the header has no caller_id column${delimiterHint(file.header, opts.delimiter ?? ',')}`,
    });
  const rows: SendRow<PushRequest>[] = [];
  const seen = new Map<string, { line: number; written: string }>();
  // With a sound header, every row is checked, so that one run lists every problem.
  if (!problems.some((p) => p.line === 1)) {
    for (const r of file.rows) {
      const variables = { ...common };
      for (const [k, v] of Object.entries(r.fields)) if (!FIELD_COLUMNS.has(k) && v !== '') variables[k] = v;
      const built = buildPush(
        { caller_id: r.fields.caller_id, client_name: r.fields.client_name || opts.clientName, variables },
        reading,
        r.line,
      );
      if (!built.ok) {
        problems.push(...built.problems);
        continue;
      }
      const written = r.fields.caller_id!.trim();
      const earlier = seen.get(built.person);
      if (earlier !== undefined && !opts.allowDuplicates) {
        problems.push({
          line: r.line,
          message: `caller_id ${written} is ${earlier.written === written ? '' : `${built.person}, `}also on line ${earlier.line} (--allow-duplicates to call it twice)`,
        });
      }
      seen.set(built.person, { line: r.line, written });
      rows.push({ row: r.row, line: r.line, who: written, person: built.person, body: built.body });
    }
  }
  if (problems.length > 0) throw invalidInput(ctx, `${opts.csv}`, problems);
  const transport = await ctx.transport();
  const endpoint = pushEndpoint(target);
  const destination = pushDestination(target.flexUrl, target.environment);
  const old = oldPushNames(target);
  return runCsvSend(
    ctx,
    {
      key: { command: 'push', destination, sha256: file.sha256 },
      old: { journal: oldJournalName('push', old.target, file.sha256), ledger: old.ledger },
      rekey: rekeyCaller(reading),
      file: resolve(ctx.io.cwd, opts.csv!),
      shownFile: opts.csv!,
      meta: { environment: target.environment, endpoint },
      rows,
      sender: {
        prepare: async (row) => preparePush(target, row.body),
        deliver: async (req) => withCredentialHint(await deliver(transport, req, pushAnswer), [target.tokenSource]),
      },
      preview: async (row) => preparePush(target, row.body),
      words: { one: 'call', many: 'calls', verb: 'Place' },
      columns: { who: 'caller_id', id: 'trace_id' },
      about: [`About to place calls${target.environment === 'test' ? ' (TEST environment)' : ''}: ${endpoint}`],
    },
    opts,
  );
}
