import { readFileSync } from 'node:fs';
import { Help, InvalidArgumentError, type Command, type FlagsOf } from '../commander.js';
import type { Deps } from '../action.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { FailBatch, FaultPatch } from '../../sandbox/faults.js';
import type { Sandbox } from '../../sandbox/server.js';
import { checkVariants, SANDBOX_VARIANTS, type VariantName } from '../../sandbox/variants.js';
import { SANDBOX_DEFAULTS } from '../../sandbox/defaults.js';
import { milliseconds, nonNegativeInt, number, port, seconds, wholeNumber } from '../flag-values.js';
import { httpUrl } from '../../config/http-url.js';
import { plural } from '../../plural.js';
import { JSON_SHAPES } from '../../help/json-shapes.js';
import { said } from '../../said.js';

function fraction(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError('expected a fraction from 0 to 1');
  return n;
}

const MODES = ['envelope', 'drop', 'drop-after-accept'] as const;
const REPEATS = ['once', 'always'] as const;

/** `N`, `N:MODE` or `N:MODE:REPEAT` (MODE envelope|drop|drop-after-accept, REPEAT once|always). */
function failBatch(value: string): FailBatch {
  const [index = '', mode = 'envelope', repeat = 'once'] = value.split(':');
  const n = Number(index);
  if (!Number.isInteger(n) || n < 1)
    throw new InvalidArgumentError('expected N[:MODE[:REPEAT]], N a whole number from 1');
  if (!isOneOf(MODES, mode)) throw new InvalidArgumentError('MODE is envelope, drop or drop-after-accept');
  if (!isOneOf(REPEATS, repeat)) throw new InvalidArgumentError('REPEAT is once or always');
  return { index: n, mode, repeat };
}

function isOneOf<T extends string>(values: readonly T[], value: string): value is T {
  return (values as readonly string[]).includes(value);
}

/** `--variant a,b` (repeatable): names of SANDBOX_VARIANTS, checked as the list grows. */
function variantList(value: string, previous: VariantName[] = []): VariantName[] {
  const names = value
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  if (names.length === 0) throw new InvalidArgumentError('expected NAME[,NAME...]');
  try {
    return checkVariants([...previous, ...names]);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

/** The variants for --help, descriptions wrapped to fit 80 columns. */
const variantHelp = Object.entries(SANDBOX_VARIANTS)
  .map(([name, what]) =>
    new Help()
      .boxWrap(what, 54)
      .split('\n')
      .map((l, i) => `  ${(i === 0 ? name : '').padEnd(23)} ${l}`)
      .join('\n'),
  )
  .join('\n');

/** `--start-time`: an ISO time in UTC, such as 2026-11-02T09:00:00Z. */
function startTime(value: string): string {
  if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(value) || Number.isNaN(Date.parse(value))) {
    throw new InvalidArgumentError('expected a time as YYYY-MM-DDTHH:MM:SSZ, e.g. 2026-11-02T09:00:00Z');
  }
  return value;
}

function declare(parent: Command) {
  return parent
    .command('sandbox')
    .description('run the embedded simulator of the service on loopback, until Ctrl-C')
    .option('--host <host>', 'address to listen on', SANDBOX_DEFAULTS.host)
    .option('--port <n>', 'port to listen on (0 picks a free one)', port, SANDBOX_DEFAULTS.port)
    .option(
      '--start-time <time>',
      'simulated time at start, YYYY-MM-DDTHH:MM:SSZ (default now): seeded dates are then the same on every run, as in the README',
      startTime,
    )
    .option(
      '--time-scale <x>',
      'simulated-time speed: 1 is real time, 60 makes a minute last a second',
      number({ min: 0.001, max: 1_000_000 }),
      SANDBOX_DEFAULTS.timeScale,
    )
    .option(
      '--token-ttl <seconds>',
      'token lifetime, real seconds',
      seconds({ min: 1 }),
      SANDBOX_DEFAULTS.tokenTtlSeconds,
    )
    .option('--app-key <key>', 'APPKey the token endpoint accepts', SANDBOX_DEFAULTS.appKey)
    .option(
      '--app-secret-file <file>',
      'APPSecret the token endpoint accepts, from a file (default: a fixed demo secret)',
    )
    .option(
      '--seed <n>',
      'seed of the generated data (the well-known ids never change)',
      nonNegativeInt,
      SANDBOX_DEFAULTS.seed,
    )
    .option('--notify-url <url>', 'send signed task-end and plan-end notifications here')
    .option(
      '--notify-key <KEY>',
      `KEY of the notifications' Sign (default: first of CALLCTL_HOOK_KEYS, else ${SANDBOX_DEFAULTS.notifyKey})`,
    )
    .option('--no-keep-entries', 'count list entries received without keeping them (for large benchmarks)')
    .option('--fault-path <prefix>', 'apply the faults below only to paths starting with this')
    .option('--fail-rate <fraction>', 'answer this fraction of requests with HTTP 500', fraction)
    .option('--fail-500 <n>', 'answer the next n requests with HTTP 500', nonNegativeInt)
    .option('--fault-429 <n>', 'answer the next n requests with HTTP 429', nonNegativeInt)
    .option('--retry-after <seconds>', 'Retry-After sent with a 429', wholeNumber({ min: 0, max: 86_400 }, 'seconds'))
    .option('--drop <n>', 'drop the connection of the next n requests, before reading them', nonNegativeInt)
    .option(
      '--drop-after-body <n>',
      'drop the connection of the next n requests after reading their body',
      nonNegativeInt,
    )
    .option('--delay <ms>', 'delay every answer by this many milliseconds', milliseconds())
    .option(
      '--fail-batch <spec>',
      'updatedetails: fail the Nth batch, N[:envelope|drop|drop-after-accept[:once|always]]',
      failBatch,
    )
    .option(
      '--variant <names>',
      'answer the points the spec leaves open another way: NAME[,NAME...] (listed below)',
      variantList,
    )
    .addHelpText(
      'after',
      `
Prints the base URL, the flex (direct call push) URLs and the throwaway credentials of this local
simulator on stderr (with --json: one JSON object on stdout, for scripts), then serves until
SIGINT or SIGTERM and exits 0. Simulation events (tasks and plans finishing, pushes, templates,
list updates, notifications) are shown on stderr; with --verbose, every request too.

Serves every endpoint of callctl with the spec's shapes, envelope and auth rules, with seeded
robots, tasks, plans (PLAN-A, PLAN-B, PLAN-C) and workflows. Admin endpoints (no auth):
  GET /__sandbox/state    GET|DELETE /__sandbox/requests    GET|POST|DELETE /__sandbox/faults
  GET /__sandbox/entries?workflow_id=ID    POST /__sandbox/expire-tokens
  POST /__sandbox/simulate {"action":"finishTask","id":"T-DEBT-0002"}

Answers: success is HTTP 200 {"data", "status":"OK", "code":200}. A refusal is HTTP 200 with
{"data", "status":"<the reason>", "code":N}: 400 (missing or invalid field), 404 (unknown task,
plan, workflow, push), 409 (cancelled workflow), 500 (a batch fault), 401 (a missing, malformed,
unknown or expired token); the token endpoint answers code 401 (wrong credentials) or 403 (missing
ones). Transport trouble keeps its HTTP status with the same envelope: 400 invalid JSON, 415 a body
that is not application/json, 404/405 unknown path or method, 500/429 faults. Push: HTTP 200 code
200, 404 unknown token, 400 bad body. Template: HTTP 200 code 200, 401 bad sign key or
X-Service-Sign, 400 bad body.

Variants (--variant; also POST /__sandbox/variants {"variants":[...]}); none means the spec read
literally:
${variantHelp}

Examples:
  callctl sandbox --port 8780
  callctl sandbox --variant errors-http,page-cap,count-new
  callctl sandbox --time-scale 60 --notify-url http://127.0.0.1:8787/ --notify-key demo-hook-key
  callctl sandbox --json --fail-rate 0.2 --fault-429 3 --retry-after 1 | head -1 | jq -r .url
  curl -s -XPOST localhost:8780/__sandbox/faults -d '{"drop":2}'

JSON (--json), one line once it listens ("seed": the seeded ids; "notifyUrl": null without one):
${JSON_SHAPES.sandbox}`,
    );
}

export type SandboxOptions = FlagsOf<typeof declare>;

export function register(parent: Command, { start }: Deps): void {
  declare(parent).action((flags, command) => start(command, runSandbox, flags));
}

function faultsOf(o: SandboxOptions): FaultPatch {
  const patch: FaultPatch = {};
  if (o.faultPath !== undefined) patch.path = o.faultPath;
  if (o.failRate !== undefined) patch.failRate = o.failRate;
  if (o.fail500 !== undefined) patch.fail500 = o.fail500;
  if (o.fault429 !== undefined) patch.fail429 = o.fault429;
  if (o.retryAfter !== undefined) patch.retryAfter = o.retryAfter;
  if (o.drop !== undefined) patch.drop = o.drop;
  if (o.dropAfterBody !== undefined) patch.dropAfterBody = o.dropAfterBody;
  if (o.delay !== undefined) patch.delayMs = o.delay;
  if (o.failBatch) patch.failBatch = o.failBatch;
  return patch;
}

/**
 * Runs the sandbox until SIGINT or SIGTERM, printing its address and throwaway credentials, and
 * rendering what it emits on stderr.
 */
export async function runSandbox(ctx: Context, opts: SandboxOptions): Promise<number> {
  let appSecret: string | undefined;
  if (opts.appSecretFile) {
    try {
      appSecret = readFileSync(opts.appSecretFile, 'utf8').trim();
    } catch (error) {
      throw new UsageError(
        said`--app-secret-file: cannot read ${opts.appSecretFile}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
      );
    }
    if (!appSecret) throw new UsageError(said`--app-secret-file: ${opts.appSecretFile} is empty`);
  }
  if (opts.notifyUrl !== undefined) httpUrl(opts.notifyUrl, '--notify-url');
  const notifyKey = opts.notifyKey ?? ctx.io.env.CALLCTL_HOOK_KEYS?.split(',')[0]?.trim() ?? undefined;
  const out = await ctx.output();

  const [{ startSandbox }, { describe, render }] = await Promise.all([
    import('../../sandbox/server.js'),
    import('./render.js'),
  ]);
  let sb: Sandbox;
  try {
    sb = await startSandbox({
      host: opts.host,
      port: opts.port,
      timeScale: opts.timeScale,
      ...(opts.startTime !== undefined ? { startTime: opts.startTime } : {}),
      tokenTtlSeconds: opts.tokenTtl,
      appKey: opts.appKey,
      appSecret,
      seed: opts.seed,
      notifyUrl: opts.notifyUrl,
      notifyKey: notifyKey || undefined,
      keepEntries: opts.keepEntries,
      faults: faultsOf(opts),
      variants: opts.variant ?? [],
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code)
      throw new UsageError(
        said`cannot listen on ${opts.host}:${opts.port}: ${code === 'EADDRINUSE' ? 'the port is in use (--port 0 picks a free one)' : code}`,
      );
    throw new UsageError((error as Error).message);
  }

  const info = describe(sb, opts.tokenTtl);
  if (out.json) ctx.io.stdout.write(`${JSON.stringify(info)}\n`);
  const stopRendering = render(sb, out, { verbose: ctx.globals.verbose, banner: info });

  const signal = await new Promise<string>((resolve) => {
    const off = ctx.io.onSignal((s) => {
      off();
      resolve(s);
    });
  });
  stopRendering();
  await sb.close();
  out.info(said`${signal}: sandbox stopped after ${plural(sb.state.counters.requests, 'request')}`);
  return 0;
}
