/**
 * Every `--json` shape a help page shows: its zod schema, and the command whose help page shows it.
 * src/help/json-shapes.ts is generated from this table (test/help/json-shapes.test.ts); the
 * tests beside it run each command and parse what it prints with the schema.
 */
import type { z } from 'zod';
import { wrapShape, jsonShape } from './json-shape.js';
import { verifyPushDataSchema } from '../../src/schemas/api-push.js';
import {
  hooksEventsLineSchema,
  hooksReplayLineSchema,
  hooksShowJsonSchema,
  hooksTriggerJsonSchema,
  serveHooksLineSchema,
} from '../helpers/output-schemas/hooks.js';
import {
  authLoginJsonSchema,
  authLogoutJsonSchema,
  authStatusJsonSchema,
  authTokenJsonSchema,
  configGetJsonSchema,
  configListJsonSchema,
  configProfilesJsonSchema,
  configSetJsonSchema,
  configUnsetJsonSchema,
  configUseJsonSchema,
  sandboxJsonSchema,
  storeMigrateJsonSchema,
  storeStatusJsonSchema,
  storeListJsonSchema,
  taskWatchJsonSchema,
} from '../helpers/output-schemas/local.js';
import { planDetailDataSchema, planStatusDataSchema } from '../../src/schemas/plan.js';
import { pushResponseSchema } from '../../src/schemas/push.js';
import {
  planReportJsonSchema,
  taskReportJsonSchema,
  workflowReportJsonSchema,
} from '../helpers/output-schemas/report.js';
import { robotListSchema } from '../../src/schemas/robot.js';
import {
  csvSendJsonSchema,
  sendDryRunJsonSchema,
  sendSkippedJsonSchema,
  workflowUpdateJsonSchema,
} from '../helpers/output-schemas/run.js';
import { callingTaskSchema } from '../../src/schemas/task.js';
import { templateResponseSchema } from '../../src/schemas/template.js';
import { workflowListDataSchema, workflowTaskDetailSchema } from '../../src/schemas/workflow.js';

interface Shape {
  schema: z.ZodType;
  /** The command (words before --help) whose help page shows the shape. */
  help: string;
}

export const SHAPES = {
  robots: { schema: robotListSchema, help: 'robots' },
  taskDetail: { schema: callingTaskSchema, help: 'task detail' },
  planStatus: { schema: planStatusDataSchema, help: 'plan status' },
  planDetail: { schema: planDetailDataSchema, help: 'plan detail' },
  workflowList: { schema: workflowListDataSchema, help: 'workflow list' },
  workflowTaskDetail: { schema: workflowTaskDetailSchema, help: 'workflow task-detail' },
  verifyPush: { schema: verifyPushDataSchema, help: 'workflow verify-push' },
  push: { schema: pushResponseSchema, help: 'push' },
  templateSend: { schema: templateResponseSchema, help: 'template send' },
  configGet: { schema: configGetJsonSchema, help: 'config get' },
  configSet: { schema: configSetJsonSchema, help: 'config set' },
  configUnset: { schema: configUnsetJsonSchema, help: 'config unset' },
  configList: { schema: configListJsonSchema, help: 'config list' },
  configProfiles: { schema: configProfilesJsonSchema, help: 'config profiles' },
  configUse: { schema: configUseJsonSchema, help: 'config use' },
  authLogin: { schema: authLoginJsonSchema, help: 'auth login' },
  authStatus: { schema: authStatusJsonSchema, help: 'auth status' },
  authLogout: { schema: authLogoutJsonSchema, help: 'auth logout' },
  authToken: { schema: authTokenJsonSchema, help: 'auth token' },
  taskWatch: { schema: taskWatchJsonSchema, help: 'task detail' },
  taskReport: { schema: taskReportJsonSchema, help: 'task report' },
  planReport: { schema: planReportJsonSchema, help: 'plan report' },
  workflowReport: { schema: workflowReportJsonSchema, help: 'workflow report' },
  workflowUpdate: { schema: workflowUpdateJsonSchema, help: 'workflow update' },
  csvSend: { schema: csvSendJsonSchema, help: 'push' },
  sendDryRun: { schema: sendDryRunJsonSchema, help: 'template send' },
  storeMigrate: { schema: storeMigrateJsonSchema, help: 'store migrate' },
  storeStatus: { schema: storeStatusJsonSchema, help: 'store status' },
  serveHooks: { schema: serveHooksLineSchema, help: 'serve-hooks' },
  hooksTrigger: { schema: hooksTriggerJsonSchema, help: 'hooks trigger' },
  hooksEvents: { schema: hooksEventsLineSchema, help: 'hooks events' },
  hooksShow: { schema: hooksShowJsonSchema, help: 'hooks show' },
  hooksReplay: { schema: hooksReplayLineSchema, help: 'hooks replay' },
  sandbox: { schema: sandboxJsonSchema, help: 'sandbox' },
  storeList: { schema: storeListJsonSchema, help: 'store list' },
  sendSkipped: { schema: sendSkippedJsonSchema, help: 'push' },
} satisfies Record<string, Shape>;

export type ShapeName = keyof typeof SHAPES;

/** The text of src/help/json-shapes.ts for the table above. */
export function generatedShapes(): string {
  const entries = Object.entries(SHAPES).map(([name, s]) => `  ${name}: \`${wrapShape(jsonShape(s.schema))}\`,`);
  return `// Generated from the zod schemas by test/help/json-shapes.test.ts; do not edit (UPDATE_JSON_SHAPES=1 rewrites it).

/** The JSON shape of each command whose --json is a schema's JSON, for its help page (drawn by test/help/json-shape.ts). */
export const JSON_SHAPES = {
${entries.join('\n')}
} as const;
`;
}

/**
 * Parses a command's stdout with a schema: one JSON document, or with `lines` one per line (NDJSON);
 * returns the first problems found (none: it matches) and the documents.
 */
export function parseWith(
  schema: z.ZodType,
  out: string,
  lines = false,
): { problems: string | undefined; docs: unknown[] } {
  const docs = lines
    ? out
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as unknown)
    : [JSON.parse(out) as unknown];
  for (const doc of docs) {
    const parsed = schema.safeParse(doc);
    if (!parsed.success) return { problems: JSON.stringify(parsed.error.issues.slice(0, 3)), docs };
  }
  return { problems: undefined, docs };
}
