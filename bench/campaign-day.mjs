// A campaign day, end to end, under faults: every contact, call and notification accounted for.
// Starts PostgreSQL, the sandbox with the service's side of a day scenario (fixtures/campaign/*.json)
// running on it, two serve-hooks on one store behind a round-robin relay, the app they forward to
// and two cron hosts; injects
// faults on a schedule drawn from the seed; then checks what callctl recorded against the
// service's truth and prints the table. Exits 1 on any broken invariant, printing the seed.
// Usage: npm run bench:campaign-day [-- --scenario fixtures/campaign/default.json --seed 7 --keep]
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { readScenario, runDay } from './campaign/day.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const scenarioPath = arg('scenario', fileURLToPath(new URL('../fixtures/campaign/default.json', import.meta.url)));
const seed = Number(arg('seed', 1));
const scenario = readScenario(scenarioPath);
const say = (line) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
say(`campaign day "${scenario.name}" (${scenarioPath}), seed ${seed}`);
const result = await runDay(scenario, { seed, say, keep: process.argv.includes('--keep') });
console.log(result.table);
const use = process.resourceUsage();
console.log(
  `day ${result.seconds.day.toFixed(1)} s, all ${result.seconds.all.toFixed(1)} s; relay ${JSON.stringify(result.relay)}`,
);
// This process holds the sandbox, the relay, the app and the checker; the receivers, the cron runs
// and PostgreSQL are children (run under /usr/bin/time -v for their CPU and the largest RSS).
console.log(
  `runner: CPU ${(use.userCPUTime / 1e6).toFixed(1)} s user + ${(use.systemCPUTime / 1e6).toFixed(1)} s system, peak RSS ${(use.maxRSS / 1024).toFixed(0)} MB; load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
if (!result.ok) {
  console.log(`BROKEN (seed ${seed}, scenario ${scenarioPath}):`);
  for (const p of result.problems) console.log(`- ${p}`);
  process.exitCode = 1;
} else console.log(`every invariant holds (seed ${seed})`);
