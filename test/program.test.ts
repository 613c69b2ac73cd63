/**
 * The argv table: every command of the real commander tree, parsed from a command line, hands its
 * run function exactly this options object (flags and positional arguments by name). Each row's
 * object is typed by that run function's options type, so tsc checks the expected objects against
 * the types and this test checks the parsed flags against the expected objects. The run functions
 * are intercepted through makeDeps' invoke (no context is made, nothing runs).
 */
import type { CommandUnknownOpts as Command } from '../src/commands/commander.js';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../src/program.js';
import { commandNamed } from '../src/commands/declarations.js';
import { testIO } from './helpers/io.js';
import { makeDeps, type Run, type RunState } from '../src/commands/action.js';
import { runApi } from '../src/commands/api/run.js';
import { runAuthStatus } from '../src/commands/auth/status.js';
import { runAuthToken } from '../src/commands/auth/token.js';
import { runCompletion } from '../src/commands/completion/print.js';
import { runConfigGet } from '../src/commands/config/get.js';
import { runConfigList } from '../src/commands/config/list.js';
import { runConfigProfiles } from '../src/commands/config/profiles.js';
import { runConfigSet } from '../src/commands/config/set.js';
import { runConfigUnset } from '../src/commands/config/unset.js';
import { runConfigUse } from '../src/commands/config/use.js';
import { runHooksEvents } from '../src/commands/hooks/events.js';
import { runHooksReplay } from '../src/commands/hooks/replay.js';
import { runHooksShow } from '../src/commands/hooks/show.js';
import { runHooksUi } from '../src/commands/hooks/ui.js';
import { runHooksTrigger } from '../src/commands/hooks/trigger.js';
import { runLogin } from '../src/commands/auth/login.js';
import { runLogout } from '../src/commands/auth/logout.js';
import { runPlanDetail } from '../src/commands/plan/detail.js';
import { runPlanReport } from '../src/commands/plan/report.js';
import { runPlanStatus } from '../src/commands/plan/status.js';
import { runPush } from '../src/commands/push/push.js';
import { runRobots } from '../src/commands/robots/list.js';
import { runSandbox } from '../src/commands/sandbox/run.js';
import { runServeHooks } from '../src/commands/serve-hooks/serve.js';
import { runStoreList } from '../src/commands/store/list.js';
import { runStoreMigrate } from '../src/commands/store/migrate.js';
import { runStoreStatus } from '../src/commands/store/status.js';
import { runTaskDetail } from '../src/commands/task/detail.js';
import { runTaskReport } from '../src/commands/task/report.js';
import { runTemplateSend } from '../src/commands/template/send.js';
import { runVerifyPush } from '../src/commands/workflow/verify-push.js';
import { runWorkflowList } from '../src/commands/workflow/list.js';
import { runWorkflowReport } from '../src/commands/workflow/report.js';
import { runWorkflowTaskDetail } from '../src/commands/workflow/task-detail.js';
import { runWorkflowUpdate } from '../src/commands/workflow/update.js';

interface Seen {
  command: string;
  opts: unknown;
  run: unknown;
  globals: Record<string, unknown>;
}

/**
 * Parses argv with the real tree and records what the command's run function would receive;
 * also with the tree main() builds for that argv (only the command it names, see commandNamed),
 * which must give the same.
 */
async function parse(argv: string[]): Promise<Seen> {
  const whole = await parseWith(argv, false);
  expect(await parseWith(argv, true), `the tree declared for ${argv.join(' ')}`).toEqual(whole);
  return whole;
}

async function parseWith(argv: string[], named: boolean): Promise<Seen> {
  const io = testIO();
  const state: RunState = { exitCode: 0 };
  let seen: Seen | undefined;
  const deps = makeDeps(io, state, async (command: Command, opts, run) => {
    seen = { command: commandName(command), opts, run, globals: command.optsWithGlobals() };
    return 0;
  });
  await (await buildProgram(io, state, deps, named ? argv : undefined)).parseAsync(argv, { from: 'user' });
  if (!seen) throw new Error(`no command ran for ${argv.join(' ')}`);
  return seen;
}

function commandName(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

interface Row {
  command: string;
  argv: string[];
  run: unknown;
  opts: unknown;
}

/** A row: the expected options are typed by the run function's options (NoInfer: O comes from run). */
function row<O>(command: string, argv: string[], run: Run<O>, opts: NoInfer<O>): Row {
  return { command, argv, run, opts };
}

const table: Row[] = [
  row('auth login', ['auth', 'login', '--app-key', 'K', '--app-secret-stdin'], runLogin, {
    appKey: 'K',
    appSecretStdin: true,
  }),
  row('auth login', ['auth'], runLogin, {}),
  row('auth status', ['auth', 'status', '--offline', '--all'], runAuthStatus, { offline: true, all: true }),
  row('auth logout', ['auth', 'logout'], runLogout, {}),
  row('auth token', ['auth', 'token'], runAuthToken, {}),
  row('config get', ['config', 'get', 'base-url', '--reveal'], runConfigGet, { reveal: true, key: 'base-url' }),
  row('config set', ['config', 'set', 'base-url', 'http://x'], runConfigSet, { key: 'base-url', value: 'http://x' }),
  row('config set', ['config', 'set', 'app-secret', '--stdin'], runConfigSet, { stdin: true, key: 'app-secret' }),
  row('config unset', ['config', 'unset', 'token'], runConfigUnset, { key: 'token' }),
  row('config list', ['config', 'list'], runConfigList, {}),
  row('config profiles', ['config', 'profiles'], runConfigProfiles, {}),
  row('config use', ['config', 'use', 'prod'], runConfigUse, { name: 'prod' }),
  row('robots', ['robots'], runRobots, {}),
  row(
    'task detail',
    ['task', 'detail', 'T-1', '--format', 'csv', '--output', 'out.csv', '--bom', '--excel'],
    runTaskDetail,
    { interval: 5, format: 'csv', output: 'out.csv', bom: true, excel: true, taskId: 'T-1' },
  ),
  row('task detail', ['task', 'detail', 'T-1', '--watch', '--interval', '2', '--exit-status'], runTaskDetail, {
    interval: 2,
    watch: true,
    exitStatus: true,
    taskId: 'T-1',
  }),
  row('task report', ['task', 'report', 'T-1', '--format', 'csv'], runTaskReport, { format: 'csv', taskId: 'T-1' }),
  row('plan status', ['plan', 'status', 'P', '--watch', '--interval', '10', '--exit-status'], runPlanStatus, {
    interval: 10,
    watch: true,
    exitStatus: true,
    planName: 'P',
  }),
  row('plan detail', ['plan', 'detail', 'P'], runPlanDetail, { planName: 'P' }),
  row('plan report', ['plan', 'report', 'P', '--format', 'csv'], runPlanReport, { format: 'csv', planName: 'P' }),
  row('plan report', ['plan', 'report', 'P', '--format', 'html', '-o', 'p.html'], runPlanReport, {
    format: 'html',
    output: 'p.html',
    planName: 'P',
  }),
  row(
    'workflow list',
    [
      'workflow',
      'list',
      '--page',
      '2',
      '--size',
      '5',
      '--from',
      '2026-11-01T00:00:00Z',
      '--to',
      '2026-11-02T00:00:00Z',
      '--all',
    ],
    runWorkflowList,
    { interval: 5, page: 2, size: 5, from: '2026-11-01T00:00:00Z', to: '2026-11-02T00:00:00Z', all: true },
  ),
  row('workflow list', ['workflow', 'list', '--watch', '--interval', '30'], runWorkflowList, {
    interval: 30,
    watch: true,
  }),
  row(
    'workflow update',
    [
      'workflow',
      'update',
      '--workflow-id',
      'W',
      '--csv',
      'c.csv',
      '--delimiter',
      'tab',
      '--keep-empty',
      '--max-invalid',
      '3',
      '--rejects',
      'r.csv',
      '--batch-size',
      '500',
      '--dry-run',
      '--restart',
      '-q',
      '--resend-uncertain',
      '--region',
      'ID',
      '-y',
    ],
    runWorkflowUpdate,
    {
      region: 'ID',
      delimiter: '\t',
      maxInvalid: 3,
      batchSize: 500,
      workflowId: 'W',
      csv: 'c.csv',
      keepEmpty: true,
      rejects: 'r.csv',
      dryRun: true,
      restart: true,
      quiet: true,
      resendUncertain: true,
      yes: true,
    },
  ),
  row('workflow update', ['workflow', 'update', '--workflow-id', 'W', '--csv', 'c.csv'], runWorkflowUpdate, {
    delimiter: ',',
    maxInvalid: 0,
    batchSize: 10000,
    workflowId: 'W',
    csv: 'c.csv',
  }),
  row(
    'workflow verify-push',
    ['workflow', 'verify-push', '--workflow-id', 'W', '--node-id', 'N', '--callee', '+6281200000001', '--case-id', 'C'],
    runVerifyPush,
    { workflowId: 'W', nodeId: 'N', callee: '+6281200000001', caseId: 'C' },
  ),
  row(
    'workflow task-detail',
    ['workflow', 'task-detail', 'WT-1', '--format', 'ndjson', '--output', 'o.ndjson'],
    runWorkflowTaskDetail,
    { format: 'ndjson', output: 'o.ndjson', taskId: 'WT-1' },
  ),
  row('workflow report', ['workflow', 'report', 'WT-1', '--format', 'csv'], runWorkflowReport, {
    taskId: 'WT-1',
    format: 'csv',
  }),
  row(
    'push',
    [
      'push',
      '--caller-id',
      '+6281200000001',
      '--client-name',
      'Ann',
      '--var',
      'a=1',
      '--var',
      'b=2',
      '--test',
      '--flex-url',
      'http://f',
      '--push-token-stdin',
      '--phone-only',
      '--yes',
      '--dry-run',
    ],
    runPush,
    {
      phoneOnly: true,
      rate: 5,
      callerId: '+6281200000001',
      clientName: 'Ann',
      var: ['a=1', 'b=2'],
      test: true,
      flexUrl: 'http://f',
      pushTokenStdin: true,
      yes: true,
      dryRun: true,
    },
  ),
  row(
    'push',
    [
      'push',
      '--csv',
      'p.csv',
      '--delimiter',
      ';',
      '--vars-file',
      'v.json',
      '--rate',
      '2.5',
      '--results',
      'res.csv',
      '--resend-uncertain',
      '--retry-failed',
      '--call-again',
      '--recall-window',
      '2h',
      '--allow-duplicates',
      '-q',
    ],
    runPush,
    {
      rate: 2.5,
      csv: 'p.csv',
      delimiter: ';',
      varsFile: 'v.json',
      results: 'res.csv',
      resendUncertain: true,
      retryFailed: true,
      callAgain: true,
      recallWindow: 7200000,
      allowDuplicates: true,
      quiet: true,
    },
  ),
  row(
    'template send',
    [
      'template',
      'send',
      '--template-id',
      '7',
      '--channel',
      'wa',
      '--channel-id',
      'C1',
      '--user-id',
      'U1',
      '--var',
      'date=2026-11-01',
      '--var',
      'name=Ann',
      '--reply-url',
      'http://r',
      '--timestamp',
      '1700000000',
      '--signature',
      'S',
      '--yes',
      '--dry-run',
    ],
    runTemplateSend,
    {
      userId: 'U1',
      rate: 5,
      templateId: 7,
      channel: 'wa',
      channelId: 'C1',
      var: ['date=2026-11-01', 'name=Ann'],
      replyUrl: 'http://r',
      timestamp: 1700000000,
      signature: 'S',
      yes: true,
      dryRun: true,
    },
  ),
  row(
    'template send',
    [
      'template',
      'send',
      '--template-id',
      '7',
      '--csv',
      't.csv',
      '--sign-command',
      'sign.sh',
      '--sign-secret-file',
      's.txt',
      '--rate',
      '1',
      '--results',
      'out.csv',
      '--call-again',
      '--allow-duplicates',
      '--quiet',
    ],
    runTemplateSend,
    {
      userId: '',
      rate: 1,
      templateId: 7,
      csv: 't.csv',
      signCommand: 'sign.sh',
      signSecretFile: 's.txt',
      results: 'out.csv',
      callAgain: true,
      allowDuplicates: true,
      quiet: true,
    },
  ),
  row(
    'serve-hooks',
    [
      'serve-hooks',
      '--host',
      '0.0.0.0',
      '--port',
      '9000',
      '--path',
      '/hooks',
      '--key',
      'k',
      '--on-bad-sign',
      'ack',
      '--strict',
      '--max-age',
      '5',
      '--log',
      'h.ndjson',
      '--fsync',
      '--events',
      'task-end,plan-end',
      '--show-numbers',
      '--forward-to',
      'http://fw',
      '--header-timeout',
      '5',
      '--request-timeout',
      '20',
      '--max-connections',
      '100',
      '--max-connections-per-peer',
      '10',
      '--refused-log-rate',
      '2',
      '--max-body-kib',
      '64',
      '--max-header-kib',
      '8',
      '--keep-alive-timeout',
      '2.5',
      '--sign-timeout',
      '3',
      '--sign-concurrency',
      '4',
      '--drain-timeout',
      '4',
      '--trust-proxy',
      '10.0.0.1',
      '--tls-cert',
      'c.pem',
      '--tls-key',
      'k.pem',
      '--metrics-port',
      '9100',
      '--metrics-path',
      '/metrics',
    ],
    runServeHooks,
    {
      host: '0.0.0.0',
      port: 9000,
      onBadSign: 'ack',
      maxAge: 5,
      forwardLease: 120,
      forwardQueue: 1000,
      forwardQueueMib: 64,
      headerTimeout: 5,
      requestTimeout: 20,
      maxConnections: 100,
      maxConnectionsPerPeer: 10,
      refusedLogRate: 2,
      maxBodyKib: 64,
      maxHeaderKib: 8,
      keepAliveTimeout: 2.5,
      signTimeout: 3,
      signConcurrency: 4,
      drainTimeout: 4,
      trustProxy: '10.0.0.1',
      tlsCert: 'c.pem',
      tlsKey: 'k.pem',
      metricsPort: 9100,
      metricsHost: '127.0.0.1',
      metricsPath: '/metrics',
      path: '/hooks',
      key: ['k'],
      strict: true,
      log: 'h.ndjson',
      fsync: true,
      events: 'task-end,plan-end',
      showNumbers: true,
      forwardTo: 'http://fw',
    },
  ),
  row(
    'serve-hooks',
    [
      'serve-hooks',
      '--key-file',
      'k.txt',
      '--skip-verify',
      '--store',
      'postgres://db/x',
      '--forward-lease',
      '60',
      '--forward-queue',
      '10',
      '--forward-queue-mib',
      '8',
      '--chatbot-secret-file',
      'c.txt',
      '--sign-command',
      's.sh',
    ],
    runServeHooks,
    {
      host: '127.0.0.1',
      port: 8787,
      onBadSign: 'reject',
      maxAge: 15,
      forwardLease: 60,
      forwardQueue: 10,
      forwardQueueMib: 8,
      headerTimeout: 10,
      requestTimeout: 30,
      maxConnections: 512,
      maxConnectionsPerPeer: 64,
      refusedLogRate: 10,
      maxBodyKib: 1024,
      maxHeaderKib: 16,
      keepAliveTimeout: 5,
      signTimeout: 5,
      signConcurrency: 8,
      drainTimeout: 10,
      metricsHost: '127.0.0.1',
      keyFile: 'k.txt',
      skipVerify: true,
      store: 'postgres://db/x',
      chatbotSecretFile: 'c.txt',
      signCommand: 's.sh',
    },
  ),
  row(
    'hooks trigger',
    [
      'hooks',
      'trigger',
      'task-end',
      '--url',
      'http://h',
      '--key',
      'k',
      '--set',
      'Status=failed',
      '--tamper',
      'sign',
      '--dry-run',
    ],
    runHooksTrigger,
    { url: 'http://h', key: ['k'], set: ['Status=failed'], tamper: 'sign', dryRun: true, type: 'task-end' },
  ),
  row(
    'hooks events',
    [
      'hooks',
      'events',
      '--log',
      'h.ndjson',
      '--type',
      'task-end',
      '--since',
      '1h',
      '--until',
      '2026-11-02T00:00:00Z',
      '--plan',
      'P',
      '--task',
      'T',
      '--callee',
      '+6281200000001',
      '--verdict',
      'ok',
      '--retries',
      '--limit',
      '5',
      '--show-numbers',
    ],
    runHooksEvents,
    {
      log: 'h.ndjson',
      type: 'task-end',
      since: '1h',
      until: '2026-11-02T00:00:00Z',
      plan: 'P',
      task: 'T',
      callee: '+6281200000001',
      verdict: 'ok',
      retries: true,
      limit: 5,
      showNumbers: true,
    },
  ),
  row('hooks events', ['hooks', 'events', '--store', 'postgres://db/x', '--no-retries', '--follow'], runHooksEvents, {
    store: 'postgres://db/x',
    retries: false,
    follow: true,
  }),
  row('hooks events', ['hooks', 'events', '--log', 'h.ndjson', '--format', 'csv'], runHooksEvents, {
    log: 'h.ndjson',
    format: 'csv',
  }),
  row('hooks show', ['hooks', 'show', '12', '--log', 'h.ndjson', '--show-numbers'], runHooksShow, {
    log: 'h.ndjson',
    showNumbers: true,
    id: '12',
  }),
  row(
    'hooks ui',
    ['hooks', 'ui', '--log', 'h.ndjson', '--port', '0', '--open', '--forward-to', 'http://fw'],
    runHooksUi,
    {
      log: 'h.ndjson',
      host: '127.0.0.1',
      port: 0,
      open: true,
      forwardTo: 'http://fw',
    },
  ),
  row(
    'serve-hooks',
    ['serve-hooks', '--key', 'k', '--log', 'h.ndjson', '--ui', '--ui-port', '9001', '--ui-token-file', 't', '--open'],
    runServeHooks,
    {
      drainTimeout: 10,
      forwardLease: 120,
      forwardQueue: 1000,
      forwardQueueMib: 64,
      headerTimeout: 10,
      host: '127.0.0.1',
      keepAliveTimeout: 5,
      maxAge: 15,
      maxBodyKib: 1024,
      maxConnections: 512,
      maxConnectionsPerPeer: 64,
      maxHeaderKib: 16,
      metricsHost: '127.0.0.1',
      onBadSign: 'reject',
      port: 8787,
      refusedLogRate: 10,
      requestTimeout: 30,
      signConcurrency: 8,
      signTimeout: 5,
      key: ['k'],
      log: 'h.ndjson',
      ui: true,
      uiPort: 9001,
      uiTokenFile: 't',
      open: true,
    },
  ),
  row(
    'hooks replay',
    [
      'hooks',
      'replay',
      '--log',
      'h.ndjson',
      '--to',
      'http://to',
      '--events',
      'task-end',
      '--since',
      '2h',
      '--chatbot-secret-file',
      'c.txt',
      '--sign-command',
      's.sh',
      '--include-unverified',
    ],
    runHooksReplay,
    {
      log: 'h.ndjson',
      to: 'http://to',
      events: 'task-end',
      since: '2h',
      chatbotSecretFile: 'c.txt',
      signCommand: 's.sh',
      includeUnverified: true,
    },
  ),
  row('store migrate', ['store', 'migrate', '--store', 'postgres://db/x', '--grant-to', 'hooks'], runStoreMigrate, {
    store: 'postgres://db/x',
    grantTo: 'hooks',
  }),
  row('store status', ['store', 'status', '--store-file', 's.txt'], runStoreStatus, { storeFile: 's.txt' }),
  row('store list', ['store', 'list', '--store', 'postgres://db.example/callctl'], runStoreList, {
    store: 'postgres://db.example/callctl',
  }),
  row(
    'sandbox',
    [
      'sandbox',
      '--host',
      '0.0.0.0',
      '--port',
      '8080',
      '--start-time',
      '2026-11-02T09:00:00Z',
      '--time-scale',
      '60',
      '--token-ttl',
      '60',
      '--app-key',
      'K',
      '--app-secret-file',
      's.txt',
      '--seed',
      '7',
      '--notify-url',
      'http://n',
      '--notify-key',
      'nk',
      '--no-keep-entries',
      '--fault-path',
      '/service',
      '--fail-rate',
      '0.5',
      '--fail-500',
      '2',
      '--fault-429',
      '1',
      '--retry-after',
      '3',
      '--drop',
      '1',
      '--drop-after-body',
      '1',
      '--delay',
      '100',
      '--fail-batch',
      '2:drop:always',
      '--variant',
      'page-cap,errors-http',
    ],
    runSandbox,
    {
      host: '0.0.0.0',
      port: 8080,
      timeScale: 60,
      tokenTtl: 60,
      appKey: 'K',
      seed: 7,
      keepEntries: false,
      startTime: '2026-11-02T09:00:00Z',
      appSecretFile: 's.txt',
      notifyUrl: 'http://n',
      notifyKey: 'nk',
      faultPath: '/service',
      failRate: 0.5,
      fail500: 2,
      fault429: 1,
      retryAfter: 3,
      drop: 1,
      dropAfterBody: 1,
      delay: 100,
      failBatch: { index: 2, mode: 'drop', repeat: 'always' },
      variant: ['page-cap', 'errors-http'],
    },
  ),
  row('sandbox', ['sandbox'], runSandbox, {
    host: '127.0.0.1',
    port: 0,
    timeScale: 1,
    tokenTtl: 7200,
    appKey: 'demo-app-key',
    seed: 1,
    keepEntries: true,
  }),
  row('api', ['api', 'post', '/service/cloud/x?a=1', '-f', 'a=1', '-F', 'n=2', '--raw', '--yes'], runApi, {
    field: ['a=1'],
    typedField: ['n=2'],
    raw: true,
    yes: true,
    method: 'post',
    path: '/service/cloud/x?a=1',
  }),
  row(
    'api',
    [
      'api',
      'GET',
      '/x',
      '--input',
      'b.json',
      '--flex',
      '--test',
      '--template-api',
      '--signature',
      'S',
      '--sign-command',
      's.sh',
      '--sign-secret-file',
      's.txt',
    ],
    runApi,
    {
      input: 'b.json',
      flex: true,
      test: true,
      templateApi: true,
      signature: 'S',
      signCommand: 's.sh',
      signSecretFile: 's.txt',
      method: 'GET',
      path: '/x',
    },
  ),
  row('completion', ['completion', 'bash'], runCompletion, { shell: 'bash' }),
];

describe('argv to the options each command runs with', () => {
  it.each(table)('$argv', async ({ command, argv, run, opts }) => {
    const seen = await parse(argv);
    expect(seen.command).toBe(command);
    expect(seen.run).toBe(run);
    expect(seen.opts).toEqual(opts);
  });

  it('covers every command of the tree', async () => {
    const io = testIO();
    const state: RunState = { exitCode: 0 };
    const leaves: string[] = [];
    const walk = (c: Command) => {
      for (const sub of c.commands) {
        // __complete is the completion scripts' protocol (hidden, answered in place, no run function).
        if (sub.name() === '__complete') continue;
        if (sub.commands.length) walk(sub);
        else leaves.push(commandName(sub));
      }
    };
    walk(
      await buildProgram(
        io,
        state,
        makeDeps(io, state, async () => 0),
      ),
    );
    expect(leaves.length).toBeGreaterThan(30);
    expect([...new Set(table.map((r) => r.command))].sort()).toEqual(leaves.sort());
  });

  it('reads global options before and after the command', async () => {
    const seen = await parse([
      '-p',
      'prod',
      'robots',
      '--json',
      '--timeout',
      '5',
      '--no-color',
      '--base-url',
      'http://h',
      '--no-input',
      '-v',
    ]);
    expect(seen.globals).toMatchObject({
      profile: 'prod',
      json: true,
      timeout: 5,
      color: false,
      baseUrl: 'http://h',
      input: false,
      verbose: true,
    });
  });

  it.each([
    [['robots', '--bogus']],
    [['workflow', 'list', '--from', 'yesterday']],
    [['workflow', 'list', '--page', '0']],
    [['robots', '--timeout', 'soon']],
    [['task', 'detail']],
    [['workflow', 'report']],
    [['workflow', 'verify-push', '--workflow-id', 'W']],
  ])('rejects %j as a usage error', async (argv) => {
    await expect(parse(argv)).rejects.toMatchObject({ code: expect.stringMatching(/^commander\./) });
  });

  it.each([
    [['task', 'report', 'T-1', '--format', 'csv', '--json'], /--format and --json/],
    [['workflow', 'report', 'WT-1', '--format', 'csv', '--json'], /--format and --json/],
    [['task', 'detail', 'T-1', '--format', 'ndjson', '--json'], /--format and --json/],
    [['workflow', 'task-detail', 'WT-1', '-o', 'x.csv', '--json'], /--output and --json/],
  ])('rejects %j as a usage error naming the flags', async (argv, message) => {
    await expect(parse(argv)).rejects.toMatchObject({ exitCode: 2, message: expect.stringMatching(message) });
  });
});

describe('commandNamed: the command an argv surely names', () => {
  it.each([
    [['robots', '--json'], 'robots'],
    [['--json', '-p', 'robots', 'task', 'detail', 'T1'], 'task'],
    [['--profile=robots', 'plan', 'status', 'P'], 'plan'],
    [['--timeout', '5', '--columns', 'a,b', 'workflow', 'list'], 'workflow'],
    [['serve-hooks', '--port', '0'], 'serve-hooks'],
    [['help', 'robots'], undefined],
    [['completion', 'bash'], undefined],
    [['__complete', 'rob'], undefined],
    [['robot'], undefined],
    [['-vp', 'dev', 'robots'], undefined],
    [['--', 'robots'], undefined],
    [['--json'], undefined],
    [['__proto__'], undefined],
  ] as const)('%j -> %s', (argv, name) => {
    expect(commandNamed(argv)).toBe(name);
  });
});
