import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventEmitter } from 'node:events';
import { TokenStore } from './auth.js';
import { SimClock } from './clock.js';
import { applyFaultPatch, BatchFaultTracker, defaultFaults, resetFaults } from './faults.js';
import { attachNotifier } from './notifier.js';
import { createRng } from './random.js';
import { handle } from './router.js';
import { SANDBOX_DEFAULTS } from './defaults.js';
import { buildSeed } from './seed/index.js';
import { Simulation } from './simulation.js';
import { Variants } from './variants.js';
import type { FaultPatch } from './faults.js';
import type { Simulator } from './simulator.js';
import type { Engine, ResolvedOptions, SandboxEventMap, Notifier, SandboxOptions } from './types.js';

export type { SandboxOptions, SandboxEventMap } from './types.js';
export type Sandbox = Awaited<ReturnType<typeof startSandbox>>;
export { SEED } from './seed/index.js';
export { VARIANT_NAMES } from './variants.js';

export { SANDBOX_DEFAULTS };

function resolveOptions(o: SandboxOptions): ResolvedOptions {
  const timeScale = o.timeScale ?? SANDBOX_DEFAULTS.timeScale;
  if (!(timeScale > 0) || !Number.isFinite(timeScale))
    throw new RangeError(`timeScale must be a positive number, got ${timeScale}`);
  const start =
    o.startTime === undefined ? Date.now() : typeof o.startTime === 'number' ? o.startTime : Date.parse(o.startTime);
  if (Number.isNaN(start)) throw new RangeError(`startTime is not a date: ${o.startTime}`);
  const given = Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as SandboxOptions;
  const pushToken = o.pushToken ?? SANDBOX_DEFAULTS.pushToken;
  return {
    ...SANDBOX_DEFAULTS,
    ...given,
    timeScale,
    startTime: Math.floor(start / 1000) * 1000,
    pushToken,
    pushTestToken: o.pushTestToken ?? `${pushToken}_test`,
  };
}

/**
 * Starts the simulator of the service on loopback (a free port by default) and resolves once it
 * listens. Serves the cloud endpoints, the direct call push (`flexUrl`, `flexTestUrl`), the
 * template endpoint and the admin endpoints under `/__sandbox/`.
 */
export async function startSandbox(options: SandboxOptions = {}) {
  const o = resolveOptions(options);
  const variants = new Variants(options.variants ?? []);
  const clock = new SimClock(o.startTime, o.timeScale);
  const state = buildSeed(o.seed, o.startTime);
  const events = new EventEmitter<SandboxEventMap>();
  events.setMaxListeners(100);
  const faults = defaultFaults();
  applyFaultPatch(faults, options.faults ?? {});
  const tokens = new TokenStore(() => faults.tokenTtlSeconds ?? o.tokenTtlSeconds);
  const simulation = new Simulation(state, clock, events, createRng(o.seed ^ 0x5eed));
  const engine: Engine = {
    options: o,
    state,
    clock,
    tokens,
    faults,
    batchFaults: new BatchFaultTracker(),
    variants,
    events,
    simulate: simulation,
    rng: createRng(o.seed ^ 0xfa17),
    requests: [],
    url: '',
  };

  const server = createServer({ keepAliveTimeout: 30_000 }, (req, res) => {
    handle(engine, req, res).catch((error: Error) => {
      // A listener of `request` threw, or the socket broke mid-answer: report, never crash.
      events.emit('internal-error', error);
      res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = o.host.includes(':') ? `[${o.host}]` : o.host;
  const url = `http://${host}:${port}`;
  engine.url = url;

  let notifier: Notifier | undefined;
  if (o.notifyUrl)
    notifier = attachNotifier({
      url: o.notifyUrl,
      key: o.notifyKey,
      events,
      timeScale: o.timeScale,
      variants,
      concurrency: options.notifyConcurrency,
    });
  simulation.start();

  let closing: Promise<void> | undefined;
  return {
    /** Base URL, no trailing slash, e.g. `http://127.0.0.1:39123`. */
    url,
    /** Live direct call-push address: push goes to `${flexUrl}/api/push/<pushToken>`. */
    flexUrl: `${url}/flex`,
    /** Test-environment direct call-push address (its own token, `pushTestToken`). */
    flexTestUrl: `${url}/flex-test`,
    port,
    appKey: o.appKey,
    appSecret: o.appSecret,
    pushToken: o.pushToken,
    pushTestToken: o.pushTestToken,
    signKey: o.signKey,
    signSecret: o.signSecret,
    notifyUrl: o.notifyUrl,
    notifyKey: o.notifyKey,
    timeScale: o.timeScale,
    /** The in-memory model, including what was received. */
    state,
    /** Live fault settings (mutable). */
    faults,
    /** Requests received, oldest first (capped at `maxRequestRecords`). */
    requests: engine.requests,
    events,
    simulate: simulation as Simulator,
    /** The notifier, when there is a `notifyUrl`: what sends the notifications (a campaign day sends more through it). */
    notifier,
    /** Simulated now (epoch ms). */
    now: () => clock.now(),
    /** Issues a token without HTTP, for tests that are not about auth. */
    issueToken: () => {
      state.counters.tokensIssued++;
      return tokens.issue();
    },
    /** Applies a (validated) fault patch; throws a ZodError on a bad one. */
    setFaults: (patch: FaultPatch) => applyFaultPatch(faults, patch),
    resetFaults: () => resetFaults(faults),
    /** Replaces the variants in force; throws a RangeError on an unknown name or two that clash. */
    setVariants: (names: readonly string[]) => variants.set(names),
    variants: () => variants.list(),
    expireTokens: () => tokens.expireAll(),
    /** Closes the server and every socket, stops timers and notifications. */
    close(): Promise<void> {
      closing ??= (async () => {
        simulation.close();
        await notifier?.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })();
      return closing;
    },
  };
}
