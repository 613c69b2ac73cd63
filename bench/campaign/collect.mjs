// What callctl recorded on a campaign day, read back for the checker: the store's events, the
// app's forwards, the rows and people the runs named uncertain, the reports, and every secret
// found in a file or output of the day.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { digitsOf, kindOf, notificationOf } from './checker.mjs';
import { runCli } from './parts.mjs';

const parse = (text) => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** Every row of the store, oldest first, with the notification it holds (paged: a day is large). */
export async function storedEvents(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const rows = [];
  try {
    for (let after = 0; ;) {
      const page = await client.query(
        `SELECT id, type, retry, status, fwd_state, record->>'body' AS body FROM callctl_events
         WHERE id > $1 ORDER BY id LIMIT 20000`,
        [after],
      );
      for (const r of page.rows) {
        const body = parse(r.body);
        rows.push({
          kind: kindOf(body),
          nid: notificationOf(body),
          type: r.type,
          retry: r.retry,
          status: r.status,
          fwdState: r.fwd_state,
        });
      }
      if (page.rows.length === 0) break;
      after = Number(page.rows.at(-1).id);
    }
  } finally {
    await client.end();
  }
  return rows;
}

/** Forwards not finished yet (claimed, or failed: tried again later), or undefined while the store cannot be read. */
export async function forwardsOpen(url) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    // Each kind counted by its own partial index: IN ('claimed', 'failed') read the whole table,
    // 93 ms a poll by a tenth of the day, polled every 200 ms while the day ends.
    const r = await client.query(
      `SELECT (SELECT count(*) FROM callctl_events WHERE fwd_state = 'claimed')
            + (SELECT count(*) FROM callctl_events WHERE fwd_state = 'failed') AS n`,
    );
    return Number(r.rows[0].n);
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The app's forwards, each with the notification it carries. */
export function forwardsOf(app) {
  return app.forwards.map((f) => ({ eventId: f.eventId, status: f.status, nid: notificationOf(parse(f.body)) }));
}

/** JSON values in a run's output lines (its summary, an error line). */
function jsonLines(text) {
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map(parse)
    .filter(Boolean);
}

/**
 * Contact rows of files that no run uploaded to the end (each run's exit code said so: run again
 * later), by callee: not sent, and not silently.
 */
export function unfinishedRows(runs, rows) {
  const done = new Set(runs.filter((r) => r.kind === 'upload' && r.code === 0).map((r) => r.file));
  return new Set(rows.filter((r) => !done.has(r.file)).map((r) => r.callee));
}

/**
 * People of push files no run got past its start (every run exited 2, refused while the other
 * host's run held the route, and said so): not sent, and not silently.
 */
export function unfinishedPeople(runs, peopleOf) {
  const started = new Set(runs.filter((r) => r.kind === 'push' && r.code !== 2).map((r) => r.file));
  return new Set(
    Object.entries(peopleOf)
      .filter(([file]) => !started.has(file))
      .flatMap(([, people]) => people.map(digitsOf)),
  );
}

/** Contact rows the upload runs named uncertain (their batches' lines), by callee. */
export function uncertainRows(runs, rows) {
  const byLine = new Map(rows.map((r) => [`${r.file}:${r.line}`, r.callee]));
  const named = new Set();
  for (const run of runs.filter((r) => r.kind === 'upload')) {
    for (const j of [...jsonLines(run.out), ...jsonLines(run.err)]) {
      const batches = j.uncertain ?? j.error?.uncertain ?? [];
      if (!Array.isArray(batches)) continue;
      for (const b of batches)
        for (let line = b.firstLine; line <= b.lastLine; line++) {
          const c = byLine.get(`${run.file}:${line}`);
          if (c) named.add(c);
        }
    }
  }
  return named;
}

/** People the push runs' results name as uncertain or not sent (refused, or not reached yet), by digits. */
export function uncertainPeople(dir, hosts, pushFiles) {
  const named = new Set();
  for (const [i, host] of hosts.entries()) {
    const file = pushFiles[i];
    let text;
    try {
      text = readFileSync(join(dir, `host-${host}`, `${file}.results.csv`), 'utf8');
    } catch {
      continue; // no run got far enough to write results: its people are then not named
    }
    const [header, ...lines] = text.split(/\r?\n/);
    const cols = header.split(',');
    const caller = cols.indexOf('caller_id');
    const outcome = cols.indexOf('outcome');
    for (const l of lines) {
      // caller_id and outcome come before the one quoted column (error).
      const cells = l.split(',');
      const o = cells[outcome];
      if (!o || o === 'sent') continue;
      if (o === 'skipped' && /already reached/.test(l)) continue;
      named.add(digitsOf(cells[caller]));
    }
  }
  return named;
}

/** Runs `task report` / `plan report` with --json and returns the parsed answer. */
export async function report(args, env) {
  const run = await runCli([...args, '--json'], env, { timeoutMs: 120_000 });
  return { run, json: run.code === 0 ? parse(run.out) : undefined };
}

/**
 * The numbers a report gives for calls, computed from the truth's facts (README, "How report
 * numbers are computed"): `byDescription` for a workflow report, whose calls have no intention letter.
 */
export function reportTruth(facts, { byDescription = false } = {}) {
  const called = facts.filter((f) => f.startTime || f.callTimes > 0);
  const connected = called.filter((f) => f.ringType === 'normal' || f.talkRound > 0);
  const totals = {
    records: facts.length,
    called: called.length,
    connected: connected.length,
    noAnswer: called.length - connected.length,
    busy: called.filter((f) => f.ringType === 'busy').length,
    finished: connected.filter((f) => f.hangupType === 'ByRobot').length,
    hungUpByCallee: connected.filter((f) => f.hangupType === 'ByCallee').length,
    redialed: facts.filter((f) => f.redials > 0).length,
  };
  const intentions = {};
  for (const f of facts) {
    const k = byDescription ? f.description : f.intention;
    intentions[k] = (intentions[k] ?? 0) + 1;
  }
  return { totals, intentions };
}

/** The same shape from a report's --json. */
export function reportNumbers(json) {
  if (!json) return undefined;
  const intentions = {};
  for (const i of json.intentions ?? []) intentions[i.value] = i.count;
  return { totals: json.totals, intentions };
}

/** Every secret found in the files under `dir` (but those that hold it on purpose) and in outputs. */
export function findSecrets(dir, secrets, { skip = [], outputs = [] } = {}) {
  const found = [];
  const look = (where, text) => {
    for (const s of secrets) if (s && text.includes(s)) found.push({ where, secret: `${s.slice(0, 3)}...` });
  };
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (skip.includes(p)) continue;
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else if (st.isFile()) look(p, readFileSync(p, 'latin1'));
    }
  };
  walk(dir);
  for (const o of outputs) look(o.where, o.text);
  return found;
}
