/**
 * The `--json` shapes in help pages come from the zod schemas (src/help/json-shapes.ts is generated
 * from them: `UPDATE_JSON_SHAPES=1 npx vitest run test/help/json-shapes.test.ts` rewrites it), each
 * help page shows its shape, and each command's --json output, from the sandbox, matches its schema.
 * serve-hooks, the hooks commands, the store and the sandbox command: test/help/json-shapes-more.test.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { JSON_SHAPES } from '../../src/help/json-shapes.js';
import { planStatusDataSchema } from '../../src/schemas/plan.js';
import { SEED, type Sandbox } from '../../src/sandbox/server.js';
import { authStatusJsonSchema, errorJsonSchema } from '../helpers/output-schemas/local.js';
import { runCli } from '../helpers/cli.js';
import { SEEDED_VERIFY_PUSH, useSandbox } from '../helpers/sandbox.js';
import { TEMPLATE_CSV_FLAGS, templateMessage, templateSend } from '../helpers/template-send.js';
import { tempDir, writeIn } from '../helpers/temp.js';
import { generatedShapes, parseWith, SHAPES, type ShapeName } from './shape-table.js';

interface Case {
  /** The shape it checks (its schema from the table); no shape: `schema` (another case's shape covers it). */
  shape?: ShapeName;
  schema?: z.ZodType;
  /** The command line; `dir` is a fresh folder holding `files`. */
  argv: (sb: Sandbox, dir: string) => string[];
  /** Command lines run first, in the same folders. */
  before?: (sb: Sandbox) => string[][];
  stdin?: (sb: Sandbox) => string;
  /** Files written in `dir` first: name -> text. */
  files?: Record<string, string>;
  /** NDJSON: each line one document. */
  lines?: boolean;
}

const login = (sb: Sandbox) => ['auth', 'login', '--base-url', sb.url, '--app-key', sb.appKey, '--app-secret-stdin'];
/** workflow update of the case's contacts.csv to the seeded workflow. */
const update = (dir: string) => [
  'workflow',
  'update',
  '--workflow-id',
  SEED.workflowId,
  '--csv',
  `${dir}/contacts.csv`,
];
const setFlex = ['config', 'set', 'flex-url', 'https://flex.example'];

/** Each command whose --json is a schema's JSON: the schema, and a command line against the sandbox. */
const CASES: Case[] = [
  { shape: 'robots', argv: () => ['robots'] },
  { shape: 'taskDetail', argv: () => ['task', 'detail', SEED.debtTaskId] },
  { shape: 'planStatus', argv: () => ['plan', 'status', SEED.planName] },
  { shape: 'planDetail', argv: () => ['plan', 'detail', SEED.planName] },
  { shape: 'workflowList', argv: () => ['workflow', 'list'] },
  {
    shape: 'workflowTaskDetail',
    argv: () => ['workflow', 'task-detail', SEED.workflowTaskId],
  },
  {
    shape: 'verifyPush',
    argv: () => SEEDED_VERIFY_PUSH,
  },
  { shape: 'push', argv: () => ['push', '--caller-id', '+6281234567091', '--yes'] },
  {
    // The same person again: the never-twice ledger keeps the push back.
    shape: 'sendSkipped',
    before: () => [['push', '--caller-id', '+6281234567092', '--yes']],
    argv: () => ['push', '--caller-id', '+62 812 3456 7092', '--yes'],
  },
  {
    shape: 'storeList',
    before: () => [['push', '--caller-id', '+6281234567093', '--yes']],
    argv: () => ['store', 'list'],
  },
  {
    shape: 'templateSend',
    argv: () => templateSend('C1'),
  },
  {
    shape: 'configGet',
    before: () => [setFlex],
    argv: () => ['config', 'get', 'flex-url'],
  },
  { shape: 'configSet', argv: () => setFlex },
  {
    shape: 'configUnset',
    before: () => [setFlex],
    argv: () => ['config', 'unset', 'flex-url'],
  },
  { shape: 'configList', before: () => [setFlex], argv: () => ['config', 'list'] },
  {
    shape: 'configProfiles',
    before: (sb) => [login(sb)],
    argv: () => ['config', 'profiles'],
  },
  {
    shape: 'configUse',
    before: () => [['-p', 'prod', ...setFlex]],
    argv: () => ['config', 'use', 'prod'],
  },
  { shape: 'authLogin', argv: login, stdin: (sb) => sb.appSecret },
  { shape: 'authStatus', argv: () => ['auth', 'status'] },
  { schema: z.array(authStatusJsonSchema), before: (sb) => [login(sb)], argv: () => ['auth', 'status', '--all'] },
  { shape: 'authLogout', before: (sb) => [login(sb)], argv: () => ['auth', 'logout'] },
  { shape: 'authToken', argv: () => ['auth', 'token'] },
  { shape: 'taskWatch', argv: () => ['task', 'detail', SEED.debtTaskId, '--exit-status'] },
  { schema: planStatusDataSchema, argv: () => ['plan', 'status', SEED.planName, '--exit-status'] },
  { shape: 'taskReport', argv: () => ['task', 'report', SEED.debtTaskId] },
  { shape: 'planReport', argv: () => ['plan', 'report', SEED.planName] },
  { shape: 'workflowReport', argv: () => ['workflow', 'report', SEED.workflowTaskId] },
  {
    shape: 'workflowUpdate',
    files: { 'contacts.csv': 'callee,platform,caseid\n+6281234567001,BankX,C-1\n+6281234567002,BankX,C-2\n' },
    argv: (_sb, dir) => [...update(dir), '--yes'],
  },
  {
    shape: 'workflowUpdate',
    files: { 'contacts.csv': 'callee,platform\n+6281234567003,BankX\n' },
    argv: (_sb, dir) => [...update(dir), '--dry-run'],
  },
  {
    shape: 'csvSend',
    files: { 'callers.csv': 'caller_id,client_name,debt_amount\n+6281234567101,Ann,1500\n+6281234567102,Budi,2500\n' },
    argv: (_sb, dir) => ['push', '--csv', `${dir}/callers.csv`, '--rate', '1000', '--yes'],
  },
  {
    shape: 'csvSend',
    files: { 'recipients.csv': 'channel_id,name\nC-201,Ann\nC-202,Budi\n' },
    argv: (_sb, dir) => [
      'template',
      'send',
      ...TEMPLATE_CSV_FLAGS,
      '--csv',
      `${dir}/recipients.csv`,
      '--rate',
      '1000',
      '--yes',
    ],
  },
  { shape: 'sendDryRun', argv: () => ['push', '--caller-id', '+6281234567103', '--dry-run'] },
  {
    shape: 'sendDryRun',
    files: { 'callers.csv': 'caller_id\n+6281234567104\n+6281234567105\n' },
    argv: (_sb, dir) => ['push', '--csv', `${dir}/callers.csv`, '--dry-run'],
  },
  {
    shape: 'sendDryRun',
    argv: () => ['template', 'send', ...templateMessage('C-203'), '--dry-run'],
  },
];

const FILE = new URL('../../src/help/json-shapes.ts', import.meta.url);

describe('--json shapes', () => {
  it('src/help/json-shapes.ts is generated from the zod schemas', () => {
    if (process.env.UPDATE_JSON_SHAPES) writeFileSync(FILE, generatedShapes());
    expect(readFileSync(FILE, 'utf8')).toBe(generatedShapes());
  });

  it.each(Object.entries(SHAPES))('the help page of %s shows its shape', async (name, { help }) => {
    const r = await runCli([...help.split(' '), '--help']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(JSON_SHAPES[name as ShapeName]);
  });

  it('every shape is checked against a command line', () => {
    const checked = new Set(CASES.map((c) => c.shape));
    const elsewhere: ShapeName[] = [
      'storeMigrate',
      'storeStatus',
      'serveHooks',
      'hooksTrigger',
      'hooksEvents',
      'hooksShow',
      'hooksReplay',
      'sandbox',
    ];
    expect(
      Object.keys(SHAPES).filter((s) => !checked.has(s as ShapeName) && !elsewhere.includes(s as ShapeName)),
    ).toEqual([]);
  });

  describe('each command prints JSON its schema accepts', () => {
    const fixture = useSandbox();
    // Test names from the command lines (a stand-in sandbox: names only).
    const named = CASES.map(
      (c) =>
        [
          c
            .argv({ url: '', appKey: '' } as Sandbox, '')
            .slice(0, 4)
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
      const dir = tempDir();
      for (const [name, text] of Object.entries(c.files ?? {})) writeIn(dir, name, text);
      for (const argv of c.before?.(sb) ?? []) {
        const r = await runCli(argv, { env, stdin: sb.appSecret });
        expect(r.code, `${argv.join(' ')}: ${r.err}`).toBe(0);
      }
      const r = await runCli([...c.argv(sb, dir), '--json'], { env, ...(c.stdin ? { stdin: c.stdin(sb) } : {}) });
      expect(r.code, r.err).toBe(0);
      const { problems, docs } = parseWith(c.schema ?? SHAPES[c.shape!].schema, r.out, c.lines);
      expect(docs.length).toBeGreaterThan(0);
      expect(problems).toBeUndefined();
    });

    // A failing command prints nothing on stdout and one error line on stderr (the README's shape).
    it.each([
      ['usage', 2, ['robots', '--no-such-flag'], {}],
      ['service', 1, ['task', 'detail', 'T-NO-SUCH-TASK'], {}],
      // A template message without its `name` variable: invalid, nothing sent.
      [
        'input',
        3,
        ['template', 'send', ...templateMessage().map((f) => (f === 'name=Budi' ? 'nickname=Budi' : f)), '--yes'],
        {},
      ],
      ['auth', 4, ['robots'], { CALLCTL_TOKEN: 'tok-the-service-never-issued' }],
    ] as const)('an error of kind %s: exit %i, its line on stderr', async (kind, code, argv, more) => {
      const sb = fixture.sandbox;
      const env = { ...fixture.env, CALLCTL_SIGN_KEY: sb.signKey, CALLCTL_SIGN_SECRET: sb.signSecret, ...more };
      const r = await runCli([...argv, '--json'], { env });
      expect(r.code, r.err).toBe(code);
      expect(r.out).toBe('');
      const line = r.err.split('\n').find((l) => l.startsWith('{'));
      const { problems, docs } = parseWith(errorJsonSchema, line ?? 'null');
      expect(problems).toBeUndefined();
      expect(docs[0]).toMatchObject({ error: { kind, exitCode: code } });
    });
  });
});
