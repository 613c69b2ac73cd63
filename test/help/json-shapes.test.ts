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
import { SEED, type Sandbox } from '../../src/sandbox/server.js';
import {
  authLoginJsonSchema,
  authLogoutJsonSchema,
  authStatusAllJsonSchema,
  authStatusJsonSchema,
  authTokenJsonSchema,
  configGetJsonSchema,
  configListJsonSchema,
  configProfilesJsonSchema,
  configSetJsonSchema,
  configUnsetJsonSchema,
  configUseJsonSchema,
} from '../../src/schemas/local-output.js';
import { runCli } from '../helpers/cli.js';
import { useSandbox } from '../helpers/sandbox.js';

interface Case {
  /** Its key in JSON_SHAPES; no key: checked only (another case's shape covers it). */
  shape?: keyof typeof JSON_SHAPES;
  schema: z.ZodType;
  argv: (sb: Sandbox) => string[];
  /** Command lines run first, in the same folders. */
  before?: (sb: Sandbox) => string[][];
  stdin?: (sb: Sandbox) => string;
}

const login = (sb: Sandbox) => ['auth', 'login', '--base-url', sb.url, '--app-key', sb.appKey, '--app-secret-stdin'];
const setFlex = ['config', 'set', 'flex-url', 'https://flex.example'];

/** Each command whose --json is a schema's JSON: the schema, and a command line against the sandbox. */
const CASES: Case[] = [
  { shape: 'robots', schema: robotListSchema, argv: () => ['robots'] },
  { shape: 'taskDetail', schema: callingTaskSchema, argv: () => ['task', 'detail', SEED.debtTaskId] },
  { shape: 'planStatus', schema: planStatusDataSchema, argv: () => ['plan', 'status', SEED.planName] },
  { shape: 'planDetail', schema: planDetailDataSchema, argv: () => ['plan', 'detail', SEED.planName] },
  { shape: 'workflowList', schema: workflowListDataSchema, argv: () => ['workflow', 'list'] },
  {
    shape: 'workflowTaskDetail',
    schema: workflowTaskDetailSchema,
    argv: () => ['workflow', 'task-detail', SEED.workflowTaskId],
  },
  {
    shape: 'verifyPush',
    schema: verifyPushDataSchema,
    argv: () => [
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
  { shape: 'push', schema: pushResponseSchema, argv: () => ['push', '--caller-id', '+6281234567091', '--yes'] },
  {
    shape: 'templateSend',
    schema: templateResponseSchema,
    argv: () => [
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
  {
    shape: 'configGet',
    schema: configGetJsonSchema,
    before: () => [setFlex],
    argv: () => ['config', 'get', 'flex-url'],
  },
  { shape: 'configSet', schema: configSetJsonSchema, argv: () => setFlex },
  {
    shape: 'configUnset',
    schema: configUnsetJsonSchema,
    before: () => [setFlex],
    argv: () => ['config', 'unset', 'flex-url'],
  },
  { shape: 'configList', schema: configListJsonSchema, before: () => [setFlex], argv: () => ['config', 'list'] },
  {
    shape: 'configProfiles',
    schema: configProfilesJsonSchema,
    before: (sb) => [login(sb)],
    argv: () => ['config', 'profiles'],
  },
  {
    shape: 'configUse',
    schema: configUseJsonSchema,
    before: () => [['-p', 'prod', ...setFlex]],
    argv: () => ['config', 'use', 'prod'],
  },
  { shape: 'authLogin', schema: authLoginJsonSchema, argv: login, stdin: (sb) => sb.appSecret },
  { shape: 'authStatus', schema: authStatusJsonSchema, argv: () => ['auth', 'status'] },
  { schema: authStatusAllJsonSchema, before: (sb) => [login(sb)], argv: () => ['auth', 'status', '--all'] },
  { shape: 'authLogout', schema: authLogoutJsonSchema, before: (sb) => [login(sb)], argv: () => ['auth', 'logout'] },
  { shape: 'authToken', schema: authTokenJsonSchema, argv: () => ['auth', 'token'] },
];

const FILE = new URL('../../src/help/json-shapes.ts', import.meta.url);

function generated(): string {
  const entries = CASES.flatMap((c) => (c.shape ? [`  ${c.shape}: \`${wrapShape(jsonShape(c.schema))}\`,`] : []));
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
    // Test names from the command lines (a stand-in sandbox: names only).
    const named = CASES.map(
      (c) =>
        [
          c
            .argv({ url: '', appKey: '' } as Sandbox)
            .slice(0, 3)
            .join(' '),
          c,
        ] as const,
    );
    it.each(named)('%s', async (_name, c) => {
      const sb = fixture.sandbox;
      const env = {
        ...fixture.env,
        CALLCTL_FLEX_URL: sb.flexUrl,
        CALLCTL_PUSH_TOKEN: sb.pushToken,
        CALLCTL_SIGN_KEY: sb.signKey,
        CALLCTL_SIGN_SECRET: sb.signSecret,
      };
      for (const argv of c.before?.(sb) ?? []) {
        const r = await runCli(argv, { env, stdin: sb.appSecret });
        expect(r.code, `${argv.join(' ')}: ${r.err}`).toBe(0);
      }
      const r = await runCli([...c.argv(sb), '--json'], { env, ...(c.stdin ? { stdin: c.stdin(sb) } : {}) });
      expect(r.code, r.err).toBe(0);
      const parsed = c.schema.safeParse(JSON.parse(r.out));
      expect(parsed.success, JSON.stringify(parsed.error?.issues.slice(0, 3))).toBe(true);
    });
  });
});
