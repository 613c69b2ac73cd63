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
import type { Engine, ResolvedOptions, Sandbox, SandboxEventMap, Notifier, SandboxOptions } from './types.js';

export type { Sandbox, SandboxOptions, SandboxEventMap } from './types.js';
export { SEED } from './seed/index.js';
export { VARIANT_NAMES } from './variants.js';

export { SANDBOX_DEFAULTS };

function resolveOptions(o: SandboxOptions): ResolvedOptions {
  const d = SANDBOX_DEFAULTS;
  const timeScale = o.timeScale ?? d.timeScale;
  if (!(timeScale > 0) || !Number.isFinite(timeScale))
    throw new RangeError(`timeScale must be a positive number, got ${timeScale}`);
  const start =
    o.startTime === undefined ? Date.now() : typeof o.startTime === 'number' ? o.startTime : Date.parse(o.startTime);
  if (Number.isNaN(start)) throw new RangeError(`startTime is not a date: ${o.startTime}`);
  const pushToken = o.pushToken ?? d.pushToken;
  return {
    host: o.host ?? d.host,
    port: o.port ?? d.port,
    appKey: o.appKey ?? d.appKey,
    appSecret: o.appSecret ?? d.appSecret,
    tokenTtlSeconds: o.tokenTtlSeconds ?? d.tokenTtlSeconds,
    timeScale,
    seed: o.seed ?? d.seed,
    startTime: Math.floor(start / 1000) * 1000,
    pushToken,
    pushTestToken: o.pushTestToken ?? `${pushToken}_test`,
    signKey: o.signKey ?? d.signKey,
    signSecret: o.signSecret ?? d.signSecret,
    notifyUrl: o.notifyUrl,
    notifyKey: o.notifyKey ?? d.notifyKey,
    keepEntries: o.keepEntries ?? d.keepEntries,
    maxRequestRecords: o.maxRequestRecords ?? d.maxRequestRecords,
    maxRecordedBodyBytes: o.maxRecordedBodyBytes ?? d.maxRecordedBodyBytes,
  };
}

/**
 * Starts the simulator of the service on loopback (a free port by default) and resolves once it
 * listens. Serves the cloud endpoints, the direct call push (`flexUrl`, `flexTestUrl`), the
 * template endpoint and the admin endpoints under `/__sandbox/`.
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
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
    url,
    flexUrl: `${url}/flex`,
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
    state,
    faults,
    requests: engine.requests,
    events,
    simulate: simulation,
    notifier,
    now: () => clock.now(),
    issueToken: () => {
      state.counters.tokensIssued++;
      return tokens.issue();
    },
    setFaults: (patch) => applyFaultPatch(faults, patch),
    resetFaults: () => resetFaults(faults),
    setVariants: (names) => variants.set(names),
    variants: () => variants.list(),
    expireTokens: () => tokens.expireAll(),
    close() {
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
