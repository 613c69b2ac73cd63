import type { Command, FlagsOf } from '../commander.js';
import { positiveInt, type Deps } from '../action.js';
import type { Context } from '../../context.js';
import { afterShown } from '../../errors.js';
import type { WorkflowInstance } from '../../schemas/workflow.js';
import type { Column } from '../../output/table.js';
import { intervalOption, runWatch, watchOption } from '../flags/watch.js';
import { serviceTime, timeRange, timeText } from '../time-flags.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';
import { said } from '../../said.js';

function declare(workflow: Command) {
  return workflow
    .command('list')
    .description('list workflow instances (GET /service/cloud/workflow/instancelist)')
    .option('--page <n>', 'page number (from 1)', positiveInt)
    .option('--size <n>', 'instances per page', positiveInt)
    .option(
      '--from <time>',
      'created from (start_time): a time (2026-11-01T09:00:00+07:00), a date (00:00 UTC) or a duration ago (2h, 3d)',
      timeText,
    )
    .option('--to <time>', 'created until (end_time): a time, a date or a duration ago; after --from', timeText)
    .option('--all', 'walk every page, using the count the service gives')
    .addOption(watchOption('the list'))
    .addOption(intervalOption())
    .addHelpText(
      'after',
      `
Columns: ID, NAME, TEMPLATE, STATUS, TOTAL, START, END, CREATED.

Examples:
  callctl workflow list --page 2 --size 20
  callctl workflow list --all --from 2026-11-01 --to 2026-11-08 --json | jq '.lists | length'
  callctl workflow list --from 3d
  callctl workflow list --watch --interval 30

Watch: --watch redraws the table every --interval seconds on a terminal; piped, it prints a
timestamped row for each instance that is new or changed since the last refresh.

JSON (--json): the envelope's data; with --all, every page's lists in one:
${JSON_SHAPES.workflowList}`,
    );
}

export type WorkflowListOptions = FlagsOf<typeof declare>;

export function register(workflow: Command, { start }: Deps): void {
  declare(workflow).action((flags, command) => start(command, runWorkflowList, flags));
}

/** Page size used by --all when --size is not given. */
const ALL_PAGE_SIZE = 100;

export async function runWorkflowList(ctx: Context, opts: WorkflowListOptions): Promise<number> {
  const { listWorkflows } = await import('../../api/cloud.js');
  const client = await ctx.client();
  // Sent in the service's format (UTC, whole seconds), whichever form was typed.
  const range = timeRange({ flag: '--from', value: opts.from }, { flag: '--to', value: opts.to }, ctx.io.now());
  const filter = {
    start_time: range.start === undefined ? undefined : serviceTime(range.start),
    end_time: range.end === undefined ? undefined : serviceTime(range.end),
  };
  const walk = async (take: (fresh: WorkflowInstance[]) => void | Promise<void>) => {
    const { walkPages } = await import('../../api/pages.js');
    return walkPages(
      (page) => listWorkflows(client, { ...filter, page, size: opts.size ?? ALL_PAGE_SIZE }),
      take,
      opts.page ?? 1,
    );
  };
  const fetch = async (): Promise<{ lists: WorkflowInstance[]; count: number }> => {
    if (!opts.all) return listWorkflows(client, { ...filter, page: opts.page, size: opts.size });
    const lists: WorkflowInstance[] = [];
    const count = await walk((fresh) => void lists.push(...fresh));
    return { lists, count };
  };
  if (opts.watch) {
    return runWatch(
      ctx,
      {
        title: 'callctl workflow list',
        fetch,
        screen: async (data, out) => {
          await out.list(data.lists, COLUMNS);
          out.info(said`${data.lists.length} shown of ${data.count}`);
        },
        lines: (data) => data.lists.map((w) => COLUMNS.map((c) => String(c.value(w) ?? '')).join('\t')),
        json: (data) => data,
      },
      opts,
    );
  }
  const out = await ctx.output();
  if (opts.all && out.json) {
    // Every page into the output as the walk goes (src/output/json-stream.ts): the bytes of
    // `{ lists, count }` written whole, each page checked as it came.
    const { JsonStream } = await import('../../output/json-stream.js');
    const json = new JsonStream(ctx.io.stdout, 'lists', () => true);
    json.opened({ lists: [] });
    const count = await walk((fresh) => json.records(fresh)).catch((error: unknown) =>
      Promise.reject(afterShown(error, json.shown() ?? 0)),
    );
    await json.finish({ lists: [], count });
    return 0;
  }
  const { lists, count } = await fetch();
  await out.list(lists, COLUMNS, { json: { lists, count } });
  if (out.tty) out.info(said`${lists.length} shown of ${count}`);
  return 0;
}

const COLUMNS: Column<WorkflowInstance>[] = [
  { header: 'ID', value: (w) => w.workflow_id, kind: 'id' },
  { header: 'NAME', value: (w) => w.name, kind: 'text' },
  { header: 'TEMPLATE', value: (w) => w.template_name, kind: 'text', hide: 3 },
  { header: 'STATUS', value: (w) => w.status },
  { header: 'TOTAL', value: (w) => w.total },
  { header: 'START', value: (w) => w.start_time, kind: 'id' },
  { header: 'END', value: (w) => w.end_time, kind: 'id', hide: 2 },
  { header: 'CREATED', value: (w) => w.create_time, kind: 'id', hide: 1 },
];
