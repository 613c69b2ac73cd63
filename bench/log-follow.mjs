// What following the event log through rotation costs: serve-hooks stat(2)s the --log path once
// per write (a batch of records), to notice a file moved away or deleted. The worst case is one
// record per batch (a quiet receiver); this compares, in the same run, the write of one typical
// record as serve-hooks makes it (fstat + write) with and without that stat.
// Usage: node bench/log-follow.mjs [--records 200000 --rounds 5]
import { closeSync, fstatSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const records = arg('records', 200_000);
const rounds = arg('rounds', 5);
const dir = mkdtempSync(join(tmpdir(), 'callctl-bench-follow-'));
const path = join(dir, 'events.ndjson');
// A task end as a log line (about 600 bytes).
const line = Buffer.from(
  `${JSON.stringify({ v: 1, time: new Date().toISOString(), headers: { 'content-type': 'application/json', host: '127.0.0.1:8787' }, body: JSON.stringify({ TaskID: 'T-1', TaskName: 'x'.repeat(300), Sign: '0'.repeat(32) }), type: 'task.end', verdict: 'verified', key: 'k'.repeat(32), duplicate: false, retry: 0, status: 200 })}\n`,
);

function pass(follow) {
  const fd = openSync(path, 'a+', 0o600);
  const start = process.hrtime.bigint();
  for (let i = 0; i < records; i++) {
    if (follow) {
      const st = statSync(path, { throwIfNoEntry: false });
      if (!st || st.ino < 0) throw new Error('unreachable');
    }
    fstatSync(fd);
    writeSync(fd, line);
  }
  const ns = Number(process.hrtime.bigint() - start);
  closeSync(fd);
  rmSync(path);
  return ns / records;
}

const plain = [];
const followed = [];
for (let r = 0; r < rounds; r++) {
  plain.push(pass(false));
  followed.push(pass(true));
}
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const [p, f] = [median(plain), median(followed)];
console.log(
  `one record per write: ${(p / 1000).toFixed(2)} µs without the stat, ${(f / 1000).toFixed(2)} µs with it: ratio ${(f / p).toFixed(2)}`,
);
rmSync(dir, { recursive: true, force: true });
