import { readFileSync } from 'node:fs';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { FaultPatch } from '../../sandbox/faults.js';
import { startSandbox, type Sandbox } from '../../sandbox/server.js';
import { describe, render } from './render.js';
import type { VariantName } from '../../sandbox/variants.js';
import { httpUrl } from '../../config/http-url.js';
import { plural } from '../../plural.js';

export interface SandboxCommandOptions {
  host: string;
  port: number;
  timeScale: number;
  /** `--start-time`: simulated time at start (ISO), so that seeded dates are the same each run. */
  startTime?: string;
  tokenTtl: number;
  appKey: string;
  appSecretFile?: string;
  seed: number;
  notifyUrl?: string;
  notifyKey?: string;
  keepEntries: boolean;
  faultPath?: string;
  failRate?: number;
  fail500?: number;
  fault429?: number;
  retryAfter?: number;
  drop?: number;
  dropAfterBody?: number;
  delay?: number;
  failBatch?: { index: number; mode: string; repeat: string };
  variant?: VariantName[];
  /** Not a flag: lets an in-process caller (a test) stop the sandbox, as SIGTERM would. */
  stop?: AbortSignal;
  /** Not a flag: told the sandbox once it listens. */
  onListening?: (sandbox: Sandbox) => void;
}

function faultsOf(o: SandboxCommandOptions): FaultPatch {
  const patch: FaultPatch = {};
  if (o.faultPath !== undefined) patch.path = o.faultPath;
  if (o.failRate !== undefined) patch.failRate = o.failRate;
  if (o.fail500 !== undefined) patch.fail500 = o.fail500;
  if (o.fault429 !== undefined) patch.fail429 = o.fault429;
  if (o.retryAfter !== undefined) patch.retryAfter = o.retryAfter;
  if (o.drop !== undefined) patch.drop = o.drop;
  if (o.dropAfterBody !== undefined) patch.dropAfterBody = o.dropAfterBody;
  if (o.delay !== undefined) patch.delayMs = o.delay;
  if (o.failBatch) patch.failBatch = o.failBatch as FaultPatch['failBatch'];
  return patch;
}

/**
 * Runs the sandbox until SIGINT or SIGTERM (or `opts.stop`), printing its address and throwaway
 * credentials, and rendering what it emits on stderr.
 */
export async function runSandbox(ctx: Context, opts: SandboxCommandOptions): Promise<number> {
  let appSecret: string | undefined;
  if (opts.appSecretFile) {
    try {
      appSecret = readFileSync(opts.appSecretFile, 'utf8').trim();
    } catch (error) {
      throw new UsageError(
        `--app-secret-file: cannot read ${opts.appSecretFile}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
      );
    }
    if (!appSecret) throw new UsageError(`--app-secret-file: ${opts.appSecretFile} is empty`);
  }
  if (opts.notifyUrl !== undefined) httpUrl(opts.notifyUrl, '--notify-url');
  const notifyKey = opts.notifyKey ?? ctx.io.env.CALLCTL_HOOK_KEYS?.split(',')[0]?.trim() ?? undefined;
  const out = await ctx.output();

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
        `cannot listen on ${opts.host}:${opts.port}: ${code === 'EADDRINUSE' ? 'the port is in use (--port 0 picks a free one)' : code}`,
      );
    throw new UsageError((error as Error).message);
  }

  const info = describe(sb, opts.tokenTtl);
  if (out.json) ctx.io.stdout.write(`${JSON.stringify(info)}\n`);
  const stopRendering = render(sb, out, { verbose: ctx.globals.verbose, banner: info });
  opts.onListening?.(sb);

  const signal = await new Promise<string>((resolve) => {
    const off = ctx.io.onSignal((s) => {
      off();
      resolve(s);
    });
    if (opts.stop?.aborted) resolve('stop');
    opts.stop?.addEventListener('abort', () => {
      off();
      resolve('stop');
    });
  });
  stopRendering();
  await sb.close();
  out.info(
    `${signal === 'stop' ? '' : `${signal}: `}sandbox stopped after ${plural(sb.state.counters.requests, 'request')}`,
  );
  return 0;
}
