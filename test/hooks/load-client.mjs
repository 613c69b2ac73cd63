// Load from a second process for the crash test: signed task.end bodies with unique TaskIDs over
// keep-alive connections; prints the TaskID of every request answered 200, one per line, the
// moment the answer arrives. Ends by itself once the server is gone (every worker saw an error).
// Usage: node load-client.mjs URL KEY [CONCURRENCY]
import { createHash } from 'node:crypto';
import http from 'node:http';

const [url, key, concurrency = '16'] = process.argv.slice(2);
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(concurrency) });
let n = 0;

function once() {
  const TaskID = `T-LOAD-${process.pid}-${++n}`;
  const Sign = createHash('md5')
    .update(TaskID + key)
    .digest('hex');
  const body = JSON.stringify({ TaskID, TaskName: 'load', Sign });
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode === 200) process.stdout.write(`${TaskID}\n`);
          resolve();
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function worker() {
  for (;;) {
    try {
      await once();
    } catch {
      return;
    }
  }
}

await Promise.all(Array.from({ length: Number(concurrency) }, worker));
agent.destroy();
