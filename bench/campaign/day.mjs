// A campaign day, end to end, under faults (bench/campaign-day.mjs and test/campaign/day.test.ts):
// PostgreSQL, the sandbox running the scenario's day, two serve-hooks on one store behind a
// round-robin relay, the app they forward to, and two cron hosts uploading contacts and pushing
// callers; faults on a schedule drawn from the seed; then the checker holds what callctl recorded
// against the service's truth (service-day.mjs runs the service's side of the day on the sandbox).
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../../dist/sandbox/server.js';
import { check } from './checker.mjs';
import {
  findSecrets,
  forwardsOf,
  forwardsOpen,
  report,
  reportNumbers,
  reportTruth,
  storedEvents,
  uncertainPeople,
  uncertainRows,
  unfinishedPeople,
  unfinishedRows,
} from './collect.mjs';
import { faultSchedule, injectFaults, rngOf } from './faults.mjs';
import { dayScenario, startDay } from './service-day.mjs';
import { hostEnv, hostNight, runSummary, writeFiles } from './hosts.mjs';
import { freePort, receiver, smallDisk, startApp, startPostgres, startRelay } from './parts.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Reads a scenario file (fixtures/campaign/*.json). */
export function readScenario(path) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

/**
 * Runs one day and checks it. With `plant(parts)`, the day is checked a second time after it ran
 * (`planted`): a test plants faults in the real parts with it and sees that the checker fires. Resolves with the checker's verdict, the table and the figures.
 */
export async function runDay(scenario, { seed = 1, say = () => undefined, keep = false, plant } = {}) {
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'callctl-day-'));
  const secret = (what) => `${what}-${randomBytes(9).toString('hex')}`;
  const secrets = {
    appSecret: secret('app'),
    pushToken: secret('push'),
    hookKey: secret('hook'),
    chatbot: secret('chat'),
    pg: randomBytes(12).toString('hex'),
  };
  const secretFile = join(dir, 'app-secret');
  writeFileSync(secretFile, `${secrets.appSecret}\n`, { mode: 0o600 });
  const cleanup = [];
  const faultLog = [];
  try {
    const pg = await startPostgres(secrets.pg);
    cleanup.push(() => pg.remove());
    const app = await startApp();
    cleanup.push(() => app.close());
    const ports = [await freePort(), await freePort()];
    const relay = await startRelay(ports);
    cleanup.push(() => relay.close());
    const rc = scenario.receivers ?? {};
    const env = {
      CALLCTL_STORE: pg.url,
      CALLCTL_HOOK_KEYS: secrets.hookKey,
      CALLCTL_CHATBOT_SECRET: secrets.chatbot,
      CALLCTL_CONFIG_DIR: join(dir, 'receivers-config'),
      NO_COLOR: '1',
    };
    const args = ['--forward-to', app.url, '--json', '--max-connections-per-peer', '512'];
    args.push('--forward-lease', String(rc.forwardLease ?? 10));
    // receiver-b's output (as `>> /var/log/...` would keep it) on a full disk: a small tmpfs where
    // one can be mounted (root), else under ulimit -f.
    const kib = rc.logLimitKiB ?? 64;
    const disk = smallDisk(join(dir, 'log-disk'), kib);
    if (disk) cleanup.push(async () => disk.remove());
    const full = disk ? { outDir: disk.path } : { fileLimitKiB: kib };
    const receivers = ['receiver-a', 'receiver-b'].map((name, i) =>
      receiver({ name, port: ports[i], env, args, dir, ...(i === 1 ? full : {}) }),
    );
    for (const r of receivers) {
      await r.start();
      cleanup.push(() => r.stop());
    }
    const how = disk ? `on a tmpfs of ${kib} KiB` : `under ulimit -f ${kib}`;
    faultLog.push({ kind: 'log-disk-full', at: 0, detail: `receiver-b's output ${how}` });
    const service = dayScenario.parse(scenario.service);
    const sandbox = await startSandbox({
      seed,
      timeScale: scenario.timeScale ?? 600,
      appSecret: secrets.appSecret,
      pushToken: secrets.pushToken,
      notifyUrl: relay.url,
      notifyKey: secrets.hookKey,
      maxRequestRecords: 100,
      maxRecordedBodyBytes: 256,
      notifyConcurrency: service.concurrency,
    });
    cleanup.push(() => sandbox.close());
    const serviceDay = startDay(sandbox, service, { seed, chatbotSecret: secrets.chatbot });
    cleanup.push(async () => serviceDay.close());
    say(`sandbox ${sandbox.url}, receivers on ${ports.join(' and ')}, store on PostgreSQL, day folder ${dir}`);

    const plan = scenario.hosts;
    const files = writeFiles(join(dir, 'files'), plan);
    const day = { store: pg.url, sandbox, secretFile };
    // The shared file and host a's go to the first workflow; host b's to the second when there is one.
    const workflows = scenario.service.workflows.map((w) => w.id);
    const hostsDone = Promise.all(
      ['a', 'b'].map((h, i) =>
        hostNight(h, hostEnv(dir, h, day), {
          dir: join(dir, 'files'),
          home: join(dir, `host-${h}`),
          uploads: [
            ['contacts-shared.csv', workflows[0]],
            i === 0 ? ['contacts-a.csv', workflows[0]] : ['contacts-b.csv', workflows[1] ?? workflows[0]],
          ],
          pushFile: files.pushFiles[i],
          pushRate: plan.pushRate ?? 100,
          batchSize: plan.batchSize,
        }),
      ),
    ).then((r) => r.flat());
    const stopFaults = new AbortController();
    const schedule = faultSchedule(seed, scenario.faults);
    const faultsDone = injectFaults(
      schedule,
      { pg, receivers, relay, app, sandbox },
      scenario.faults,
      faultLog,
      stopFaults.signal,
    );
    const runs = await hostsDone;
    say(`hosts done in ${((Date.now() - started) / 1000).toFixed(1)} s: ${runs.map(runSummary).join('; ')}`);
    await faultsDone;
    say(`faults done: ${faultLog.map((f) => f.kind).join(', ')}`);

    // The day ends when every contact was called, every notification settled, every forward finished.
    const deadline = Date.now() + (scenario.endWithinSeconds ?? 300) * 1000;
    for (let quiet = 0, told = Date.now(); quiet < 3;) {
      serviceDay.flush();
      const p = serviceDay.progress();
      const open = p.waiting + p.calling + p.notifying === 0 ? await forwardsOpen(pg.url) : undefined;
      quiet = open === 0 ? quiet + 1 : 0;
      if (Date.now() - told > 5_000) {
        told = Date.now();
        say(`waiting for the day to end: ${JSON.stringify({ ...p, forwardsOpen: open })}`);
      }
      if (Date.now() > deadline) throw new Error(`the day did not end: ${JSON.stringify({ ...p, open })}`);
      await sleep(open === 0 ? 500 : 200);
    }
    const dayEnded = Date.now();
    say(`day ended in ${((dayEnded - started) / 1000).toFixed(1)} s: ${JSON.stringify(serviceDay.truth.summary())}`);

    stopFaults.abort();
    for (const r of receivers) await r.stop();
    // Exits by themselves (not the SIGKILL of a fault, not the SIGTERM at the end).
    const crashes = receivers.flatMap((r) =>
      r.exits
        .filter((e) => !e.killed && e.signal !== 'SIGTERM' && e.code !== 0)
        .map((e) => ({ receiver: r.name, ...e })),
    );
    const reportEnv = hostEnv(dir, 'a', day);
    const judge = async (pass) => {
      const reports = await reportsOf(sandbox, serviceDay.truth, scenario, seed, reportEnv);
      const received = sandbox.state.received;
      const history = {
        seed,
        truth: { notifications: serviceDay.truth.notifications, calls: serviceDay.truth.calls },
        stored: await storedEvents(pg.url),
        forwards: forwardsOf(app),
        rows: {
          sent: files.rows,
          received: workflows.flatMap((w) => (received.updates.get(w)?.entries ?? []).map((e) => e.callee)),
          uncertain: uncertainRows(runs, files.rows),
          unfinished: unfinishedRows(runs, files.rows),
        },
        pushes: {
          people: files.people,
          received: received.pushes.map((p) => p.caller_id),
          uncertain: uncertainPeople(dir, ['a', 'b'], files.pushFiles),
          unfinished: unfinishedPeople(runs, files.peopleOf),
        },
        reports: reports.map(({ what, got, want }) => ({ what, got, want })),
        faults: faultLog,
        crashes,
      };
      mkdirSync(join(dir, 'outputs'), { recursive: true });
      for (const [i, r] of [...runs, ...reports.map((x) => x.run)].entries()) {
        const name = `${r.host ?? 'report'}-${r.kind ?? 'report'}-${(r.file ?? r.args.join('-')).replace(/[^\w.-]/g, '_')}`;
        const text = `${r.args.join(' ')}\nexit ${r.code}\n${r.out}\n${r.err}`;
        writeFileSync(join(dir, 'outputs', `${pass}-${String(i).padStart(2, '0')}-${name}.txt`), text);
      }
      const values = [secrets.appSecret, secrets.pushToken, secrets.hookKey, secrets.chatbot, secrets.pg];
      history.secrets = findSecrets(dir, values, { skip: [secretFile] });
      return check(history);
    };
    const verdict = await judge('day');
    // What a test plants in the real parts to show that the checker fires (test/campaign/day.test.ts).
    let planted;
    if (plant) {
      await plant({ store: pg.url, app, sandbox, env: reportEnv, dir, files, workflows, secrets });
      planted = await judge('planted');
    }
    return {
      ...verdict,
      planted,
      dir,
      runs,
      relay: relay.counts,
      seconds: { day: (dayEnded - started) / 1000, all: (Date.now() - started) / 1000 },
      summary: serviceDay.truth.summary(),
    };
  } finally {
    for (const c of cleanup.reverse()) await c().catch?.(() => undefined);
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
}

/** The plans' reports and a seeded draw of the day's tasks' (an information check's by workflow report). */
async function reportsOf(sandbox, truth, scenario, seed, env) {
  const reports = [];
  const byTask = new Map();
  for (const c of truth.calls)
    if (c.facts && c.taskId) (byTask.get(c.taskId) ?? byTask.set(c.taskId, []).get(c.taskId)).push(c.facts);
  const dayTasks = [...byTask.keys()].filter((t) => t.startsWith('T-DAY-'));
  const rng = rngOf(seed ^ 0x7e9);
  const sample = new Set(
    Array.from({ length: scenario.reports?.tasks ?? 3 }, () => dayTasks[rng.int(0, dayTasks.length - 1)]),
  );
  for (const t of [...sample].filter(Boolean)) {
    const byWorkflow = sandbox.state.workflowTasks.has(t);
    const r = await report(byWorkflow ? ['workflow', 'report', t] : ['task', 'report', t], env);
    const want = reportTruth(byTask.get(t), { byDescription: byWorkflow });
    reports.push({
      what: `${byWorkflow ? 'workflow' : 'task'} report ${t}`,
      got: reportNumbers(r.json),
      want,
      run: r.run,
    });
  }
  for (const p of scenario.service.plans ?? []) {
    const r = await report(['plan', 'report', p.name], env);
    const rounds = truth.calls.filter((c) => c.planName === p.name).map((c) => c.facts);
    reports.push({ what: `plan report ${p.name}`, got: reportNumbers(r.json), want: reportTruth(rounds), run: r.run });
  }
  return reports;
}
