// Load from a second process for the drain test: N signed task.end bodies with unique TaskIDs,
// CONCURRENCY at a time over keep-alive connections; prints one line per request as it settles:
// "TaskID STATUS", or "TaskID error CODE" when the connection failed. Exits once all have settled.
// Usage: node drain-client.mjs URL KEY N CONCURRENCY
import { createHash } from 'node:crypto';
import http from 'node:http';

const [url, key, total = '5000', concurrency = '32'] = process.argv.slice(2);
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(concurrency) });
let n = 0;

function once(i) {
  const TaskID = `T-DRAIN-${i}`;
  const Sign = createHash('md5')
    .update(TaskID + key)
    .digest('hex');
  const body = JSON.stringify({ TaskID, TaskName: 'drain', Sign });
  return new Promise((resolve) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(`${TaskID} ${res.statusCode}`));
        res.on('error', (e) => resolve(`${TaskID} error ${e.code ?? 'aborted'}`));
      },
    );
    req.on('error', (e) => resolve(`${TaskID} error ${e.code ?? 'error'}`));
    req.setTimeout(20_000, () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.end(body);
  });
}

async function worker() {
  while (n < Number(total)) process.stdout.write(`${await once(++n)}\n`);
}

await Promise.all(Array.from({ length: Number(concurrency) }, worker));
agent.destroy();
