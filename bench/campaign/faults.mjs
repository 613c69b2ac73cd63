import { setMaxListeners } from 'node:events';

// The faults of a campaign day, on a schedule drawn from the seed: every kind at least once, then
// more drawn at random, at times spread over `span` seconds.

/** mulberry32: a small PRNG, so that a seed gives the same day. */
export function rngOf(seed) {
  let a = seed >>> 0 || 0x9e3779b9;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (min, max) => min + Math.floor(next() * (max - min + 1)) };
}

export const FAULT_KINDS = [
  'postgres-restart',
  'receiver-kill',
  'drop-after-body',
  'service-drop-after-body',
  'slow-app',
  'failing-app',
];

/** The day's faults, in time order: `{ at (seconds from the start), kind, target }`. */
export function faultSchedule(seed, { count = FAULT_KINDS.length, span = 30 } = {}) {
  const rng = rngOf(seed ^ 0xfa017);
  const kinds = [...FAULT_KINDS];
  while (kinds.length < count) kinds.push(FAULT_KINDS[rng.int(0, FAULT_KINDS.length - 1)]);
  return kinds
    .map((kind) => ({
      // Not in the first tenth, so that the receivers and uploads are under way.
      at: Math.round(span * (0.1 + 0.9 * rng.next()) * 10) / 10,
      kind,
      target: rng.int(0, 1),
    }))
    .sort((a, b) => a.at - b.at);
}

const sleep = (ms, signal) =>
  new Promise((r) => {
    const t = setTimeout(r, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), r()), { once: true });
  });

/**
 * Injects the schedule's faults into the running parts; each is logged (`log`) as it starts and
 * ends. Resolves when the last one has ended (or `signal` aborted the waits).
 */
export async function injectFaults(schedule, parts, cfg, log, signal) {
  if (signal) setMaxListeners(Infinity, signal); // one listener per wait under way
  const started = Date.now();
  const under = [];
  for (const f of schedule) {
    await sleep(Math.max(0, started + f.at * 1000 - Date.now()), signal);
    if (signal?.aborted) break;
    const entry = { ...f, startedAt: (Date.now() - started) / 1000 };
    log.push(entry);
    under.push(
      inject(f, parts, cfg, signal).then(
        (detail) => Object.assign(entry, detail),
        (error) => Object.assign(entry, { error: String(error?.message ?? error) }),
      ),
    );
  }
  await Promise.all(under);
}

async function inject(f, { pg, receivers, relay, app, sandbox }, cfg, signal) {
  switch (f.kind) {
    case 'postgres-restart': {
      await pg.restart(cfg.pgDownSeconds * 1000);
      return { detail: `stopped ${cfg.pgDownSeconds} s` };
    }
    case 'receiver-kill': {
      const r = receivers[f.target % receivers.length];
      await r.kill(cfg.killDownSeconds * 1000);
      await sleep(cfg.killDownSeconds * 1000, signal);
      await r.ready().catch(() => undefined);
      return { detail: `${r.name} SIGKILLed, back after ${cfg.killDownSeconds} s` };
    }
    case 'drop-after-body':
      relay.dropAnswers(cfg.dropAnswers);
      return { detail: `relay cut ${cfg.dropAnswers} connections after the receiver answered` };
    case 'service-drop-after-body': {
      const path = f.target === 0 ? '/service/cloud/workflow/updatedetails' : '/flex/api/push';
      sandbox.setFaults({ path, dropAfterBody: 1 });
      return { detail: `service cut the next ${path} after its body` };
    }
    case 'slow-app':
      app.slow(cfg.slowMs);
      await sleep(cfg.slowSeconds * 1000, signal);
      app.slow(0);
      return { detail: `app answered after ${cfg.slowMs} ms for ${cfg.slowSeconds} s` };
    case 'failing-app':
      app.fail(true);
      await sleep(cfg.failSeconds * 1000, signal);
      app.fail(false);
      return { detail: `app answered 503 for ${cfg.failSeconds} s` };
    default:
      throw new Error(`unknown fault ${f.kind}`);
  }
}
