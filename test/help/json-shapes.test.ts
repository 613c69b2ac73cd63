/**
 * The `--json` shapes in help pages come from the zod schemas (src/help/json-shapes.ts is generated
 * from them: `UPDATE_JSON_SHAPES=1 npx vitest run test/help/json-shapes.test.ts` rewrites it), and
 * each command's --json output, from the sandbox, matches its schema.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { jsonShape, wrapShape } from '../../src/help/json-shape.js';
import { JSON_SHAPES } from '../../src/help/json-shapes.js';
import { verifyPushDataSchema } from '../../src/schemas/api-push.js';
import { planDetailDataSchema, planStatusDataSchema } from '../../src/schemas/plan.js';
import { pushResponseSchema } from '../../src/schemas/push.js';
import { robotListSchema } from '../../src/schemas/robot.js';
import { callingTaskSchema } from '../../src/schemas/task.js';
import { templateResponseSchema } from '../../src/schemas/template.js';
import { workflowListDataSchema, workflowTaskDetailSchema } from '../../src/schemas/workflow.js';
import { SEED } from '../../src/sandbox/server.js';
import { runCli } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';

/** Each command whose --json is a schema's JSON: the schema, and a command line against the sandbox. */
const COMMANDS: Record<keyof typeof JSON_SHAPES, { schema: z.ZodType; argv: string[] }> = {
  robots: { schema: robotListSchema, argv: ['robots'] },
  taskDetail: { schema: callingTaskSchema, argv: ['task', 'detail', SEED.debtTaskId] },
  planStatus: { schema: planStatusDataSchema, argv: ['plan', 'status', SEED.planName] },
  planDetail: { schema: planDetailDataSchema, argv: ['plan', 'detail', SEED.planName] },
  workflowList: { schema: workflowListDataSchema, argv: ['workflow', 'list'] },
  workflowTaskDetail: { schema: workflowTaskDetailSchema, argv: ['workflow', 'task-detail', SEED.workflowTaskId] },
  verifyPush: {
    schema: verifyPushDataSchema,
    argv: [
      'workflow',
      'verify-push',
      '--workflow-id',
      SEED.verifyPush.workflowId,
      '--node-id',
      SEED.verifyPush.nodeId,
      '--callee',
      SEED.verifyPush.callee,
    ],
  },
  push: { schema: pushResponseSchema, argv: ['push', '--caller-id', '+6281234567091', '--yes'] },
  templateSend: {
    schema: templateResponseSchema,
    argv: [
      'template',
      'send',
      '--template-id',
      '7',
      '--channel',
      'whatsapp',
      '--channel-id',
      'C1',
      '--var',
      'date=2026-11-01',
      '--var',
      'name=Ann',
      '--reply-url',
      'https://example.com/r',
      '--yes',
    ],
  },
};

const FILE = new URL('../../src/help/json-shapes.ts', import.meta.url);

function generated(): string {
  const entries = Object.entries(COMMANDS).map(
    ([name, { schema }]) => `  ${name}: \`${wrapShape(jsonShape(schema))}\`,`,
  );
  return `// Generated from the zod schemas by test/help/json-shapes.test.ts; do not edit (UPDATE_JSON_SHAPES=1 rewrites it).

/** The JSON shape of each command whose --json is a schema's JSON, for its help page (src/help/json-shape.ts). */
export const JSON_SHAPES = {
${entries.join('\n')}
} as const;
`;
}

describe('--json shapes', () => {
  it('the help pages show the shapes generated from the zod schemas', () => {
    if (process.env.UPDATE_JSON_SHAPES) writeFileSync(FILE, generated());
    expect(readFileSync(FILE, 'utf8')).toBe(generated());
  });

  describe('each command prints JSON its schema accepts', () => {
    const fixture = useSandbox();
    it.each(Object.entries(COMMANDS))('%s', async (_name, { schema, argv }) => {
      const sb = fixture.sandbox;
      const env = {
        ...fixture.env,
        CALLCTL_FLEX_URL: sb.flexUrl,
        CALLCTL_PUSH_TOKEN: sb.pushToken,
        CALLCTL_SIGN_KEY: sb.signKey,
        CALLCTL_SIGN_SECRET: sb.signSecret,
      };
      const r = await runCli([...argv, '--json'], { env });
      expect(r.code, r.err).toBe(0);
      const parsed = schema.safeParse(JSON.parse(r.out));
      expect(parsed.success, JSON.stringify(parsed.error?.issues.slice(0, 3))).toBe(true);
    });
  });
});
