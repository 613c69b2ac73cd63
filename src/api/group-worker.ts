// A worker thread that reads groups of a streamed answer's records for `--json`
// (group-workers.ts): parses each, checks it inside the answer as the main thread would, and
// writes its text. No top-level await: the single executable starts this worker from its
// CommonJS source (scripts/sea.mjs, src/packaged.ts).
import { parentPort } from 'node:worker_threads';
import { recordsText } from '../output/json-stream.js';
import { addSecret, redactValues } from '../redact.js';
import { answerCheck, type AnswerCheck } from '../schemas/answers.js';
import type { GroupJob, GroupResult, GroupWorkerData } from './group-workers.js';

const port = parentPort!;
// Told first, by message: workerData would show in Node's NODE_DEBUG=worker log, secrets and all.
let data: GroupWorkerData;
let checked: Promise<AnswerCheck>;
const encoder = new TextEncoder();

port.on('message', (message: GroupWorkerData | GroupJob) => {
  if (!('seq' in message)) {
    data = message;
    for (const secret of data.secrets) addSecret(secret);
    checked = answerCheck(data.answer);
    return;
  }
  void checked.then(
    (check) => {
      const result = read(check, message);
      port.postMessage(result, result.kind === 'text' ? [result.text.buffer as ArrayBuffer] : []);
    },
    (error: unknown) => port.postMessage({ seq: message.seq, kind: 'failed', message: String(error) }),
  );
});

function read(check: AnswerCheck, job: GroupJob): GroupResult {
  let items: unknown[];
  try {
    items = JSON.parse(Buffer.from(job.bytes.buffer, job.bytes.byteOffset, job.bytes.length).toString('utf8'));
  } catch {
    return { seq: job.seq, kind: 'syntax' };
  }
  if (items.length !== job.count) return { seq: job.seq, kind: 'syntax' };
  if (!check({ ...data.holder, [data.key]: items })) return { seq: job.seq, kind: 'unvouched' };
  // Redacted here, with the main thread's secrets: the text goes to the output as it is.
  return { seq: job.seq, kind: 'text', text: encoder.encode(redactValues(recordsText(items))) };
}
