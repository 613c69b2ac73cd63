import { buildSync } from 'esbuild';
import { readdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp.js';

const ROUNDS = 200;
const RUNS = 3;

/**
 * Each worker thread runs every round: waits at a barrier with the others (so the three start
 * together), tries the round's lock, and records whether it got it. Threads of one process share
 * a pid, which is alive: a run that finds a lock taken by another thread must say busy.
 */
const WORKER = `
const { workerData, parentPort } = require('node:worker_threads');
(async () => {
  const { acquireLock } = await import(workerData.module);
  const gate = new Int32Array(workerData.gate);
  const won = new Int32Array(workerData.won);
  for (let r = 0; r < workerData.rounds; r++) {
    Atomics.add(gate, r, 1);
    Atomics.notify(gate, r);
    for (;;) {
      const v = Atomics.load(gate, r);
      if (v >= workerData.runs) break;
      Atomics.wait(gate, r, v, 50);
    }
    try {
      acquireLock(workerData.dir + '/' + r + '.lock', 'push of c.csv', () => undefined);
      Atomics.add(won, r, 1);
    } catch (e) {
      if (!/another .* is running/.test(String(e && e.message))) { parentPort.postMessage('error: ' + e.message); return; }
    }
  }
  parentPort.postMessage('done');
})().catch((e) => parentPort.postMessage('error: ' + e.message));
`;

describe('lock takeover', () => {
  it(`${ROUNDS} rounds of ${RUNS} runs started together over a dead owner's lock: exactly one proceeds each time`, async () => {
    const dir = tempDir('callctl-lock-race-');
    // The module under test, bundled so worker threads can load it (LOCK_MODULE: another source, to check the test fails on it).
    const out = join(dir, 'lock.mjs');
    buildSync({
      entryPoints: [process.env.LOCK_MODULE ?? 'src/files/lock.ts'],
      bundle: true,
      format: 'esm',
      platform: 'node',
      outfile: out,
      logLevel: 'silent',
    });
    const locks = join(dir, 'locks');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(locks);
    // A pid that is not running: a run killed with SIGKILL left these.
    const dead = 2 ** 22 + 11;
    for (let r = 0; r < ROUNDS; r++)
      writeFileSync(
        join(locks, `${r}.lock`),
        `${JSON.stringify({ pid: dead, host: hostname(), at: '2026-01-01T00:00:00.000Z' })}\n`,
      );
    const gate = new SharedArrayBuffer(4 * ROUNDS);
    const won = new SharedArrayBuffer(4 * ROUNDS);
    const workers = Array.from(
      { length: RUNS },
      () =>
        new Worker(WORKER, {
          eval: true,
          workerData: { module: pathToFileURL(out).href, dir: locks, gate, won, rounds: ROUNDS, runs: RUNS },
        }),
    );
    const messages = await Promise.all(
      workers.map(
        (w) =>
          new Promise<string>((resolve, reject) => {
            w.once('message', resolve);
            w.once('error', reject);
          }),
      ),
    );
    await Promise.all(workers.map((w) => w.terminate()));
    expect(messages).toEqual(Array(RUNS).fill('done'));
    const wins = Array.from(new Int32Array(won));
    const wrong = wins.map((n, r) => ({ r, n })).filter((x) => x.n !== 1);
    expect(wrong, `rounds where not exactly one run proceeded`).toEqual([]);
    // No temp or claim files left behind: only the locks.
    expect(readdirSync(locks).filter((n) => !n.endsWith('.lock'))).toEqual([]);
  }, 30_000);
});
