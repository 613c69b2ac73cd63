// The two "cron hosts" of a campaign day: each its own config and state folders, one shared store;
// they upload overlapping contact files (a file both hosts have a copy of) and push callers from
// CSVs that name some of the same people (spelled another way on the other host).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from './parts.mjs';

/** A contact's callee number, unique per row of the day: +62 8 then 10 digits. */
const callee = (n) => `+628${String(1_000_000_000 + n)}`;
/** A person to push, unique per n: +1 555 then 7 digits. */
const person = (n) => `+1555${String(1_000_000 + n)}`;
/** The same number as an export might spell it (one person: callctl compares E.164). */
const spelled = (e164) => `${e164.slice(0, 2)} ${e164.slice(2, 5)} ${e164.slice(5, 8)} ${e164.slice(8)}`;

/**
 * Writes the day's CSV files and says what is in them: contact rows by callee (with the file's
 * `caseid` or none), and push rows by person.
 */
export function writeFiles(dir, plan) {
  mkdirSync(dir, { recursive: true });
  const { own, shared } = plan.contacts;
  const files = [
    { name: 'contacts-a.csv', from: 0, n: own, caseid: false, hosts: ['a'] },
    { name: 'contacts-b.csv', from: own, n: own, caseid: true, hosts: ['b'] },
    { name: 'contacts-shared.csv', from: 2 * own, n: shared, caseid: true, hosts: ['a', 'b'] },
  ];
  const rows = [];
  for (const f of files) {
    const lines = [f.caseid ? 'callee,platform,caseid,name,amount' : 'callee,platform,name,amount'];
    for (let i = 0; i < f.n; i++) {
      const c = callee(f.from + i);
      const name = `Contact ${f.from + i}`;
      const amount = String(100 + ((f.from + i) % 900));
      lines.push(
        f.caseid ? `${c},KreditCepat,CASE-${f.from + i},${name},${amount}` : `${c},KreditCepat,${name},${amount}`,
      );
      rows.push({ callee: c, file: f.name, line: i + 2, caseid: f.caseid });
    }
    writeFileSync(join(dir, f.name), `${lines.join('\n')}\n`);
  }
  const callers = plan.callers;
  const pushFiles = [
    {
      name: 'callers-a.csv',
      people: [...range(0, callers.own), ...range(2 * callers.own, callers.shared)],
      spell: false,
    },
    {
      name: 'callers-b.csv',
      people: [...range(callers.own, callers.own), ...range(2 * callers.own, callers.shared)],
      spell: true,
    },
  ];
  const people = new Set();
  for (const f of pushFiles) {
    const lines = ['caller_id,client_name,debt_amount'];
    for (const n of f.people) {
      const p = person(n);
      people.add(p);
      lines.push(`${f.spell ? spelled(p) : p},Person ${n},${1000 + n}`);
    }
    writeFileSync(join(dir, f.name), `${lines.join('\n')}\n`);
  }
  const peopleOf = Object.fromEntries(pushFiles.map((f) => [f.name, f.people.map(person)]));
  return { files, rows, pushFiles: pushFiles.map((f) => f.name), people: [...people], peopleOf };
}

function range(from, n) {
  return Array.from({ length: n }, (_, i) => from + i);
}

/** A host's environment: its own folders, the day's store and service. */
export function hostEnv(dir, name, day) {
  const home = join(dir, `host-${name}`);
  mkdirSync(home, { recursive: true });
  return {
    CALLCTL_CONFIG_DIR: join(home, 'config'),
    XDG_STATE_HOME: join(home, 'state'),
    XDG_CACHE_HOME: join(home, 'cache'),
    HOME: home,
    NO_COLOR: '1',
    CALLCTL_STORE: day.store,
    CALLCTL_BASE_URL: day.sandbox.url,
    CALLCTL_APP_KEY: day.sandbox.appKey,
    CALLCTL_APP_SECRET_FILE: day.secretFile,
    CALLCTL_FLEX_URL: day.sandbox.flexUrl,
    CALLCTL_PUSH_TOKEN: day.sandbox.pushToken,
  };
}

/** A run's last line on stderr (what it said last: why it stopped), without its time stamp. */
export function lastLine(run) {
  return (
    run?.err
      .split('\n')
      .filter(Boolean)
      .at(-1)
      ?.replace(/^\S+Z /, '') ?? ''
  );
}

/** A host's run as the day's summary tells it: one that did not end well says why, in its own last line. */
export function runSummary(r) {
  const why = r.code === 0 ? '' : lastLine(r).slice(0, 200);
  return `${r.host} ${r.kind} ${r.file} exit ${r.code}${why ? ` (${why})` : ''}`;
}

/**
 * A cron job: runs the command, and runs it again while it exits 5 (what may pass by itself: the
 * next cron run), at most `tries` times, or 2 naming the other host's run of the same work, until
 * `heldMs` has passed (the other host's run may take minutes). Every run is kept, in order.
 */
async function cron(args, env, { tries = 8, pauseMs = 1_500, heldMs = 600_000 } = {}) {
  const runs = [];
  const last = lastLine;
  const heldUntil = Date.now() + heldMs;
  let fives = 0;
  for (;;) {
    const run = await runCli(args, env);
    runs.push(run);
    // A run again sends the rest; uncertain lines stay uncertain on every run until a person
    // looks (--resend-uncertain): a run that stops on them as the one before did made no progress.
    const stuck = runs.length > 1 && /uncertain/.test(last(run)) && last(run) === last(runs.at(-2));
    // Exit 2 naming the other host's run that holds the lock: the next cron run goes ahead.
    const held = run.code === 2 && /is running \(/.test(run.err);
    if (stuck || !((run.code === 5 && ++fives < tries) || (held && Date.now() < heldUntil))) break;
    await new Promise((r) => setTimeout(r, pauseMs));
  }
  return runs;
}

/** One host's night: its contact files into the workflow, then its callers pushed. */
export async function hostNight(name, env, { dir, home, uploads, pushFile, pushRate, batchSize }) {
  const runs = [];
  for (const [f, workflowId] of uploads) {
    const args = ['workflow', 'update', '--workflow-id', workflowId, '--csv', join(dir, f), '--yes', '--json'];
    if (batchSize) args.push('--batch-size', String(batchSize));
    for (const run of await cron(args, env)) runs.push({ host: name, kind: 'upload', file: f, ...run });
  }
  const args = ['push', '--csv', join(dir, pushFile), '--yes', '--json', '--rate', String(pushRate)];
  args.push('--results', join(home, `${pushFile}.results.csv`));
  for (const run of await cron(args, env)) runs.push({ host: name, kind: 'push', file: pushFile, ...run });
  return runs;
}
