// A worker thread that reads groups of a streamed answer's records for `--json`
// (group-workers.ts): parses each, checks it inside the answer as the main thread would, and
// writes its text. No top-level await: the single executable starts this worker from its
// CommonJS source (scripts/sea.mjs, src/packaged.ts).
import { parentPort } from 'node:worker_threads';
import { recordsText } from '../output/json-stream.js';
import { addSecret, redactValues } from '../redact.js';
import { answerCheck, type AnswerCheck } from '../schemas/answers.js';
import { SLOT_IN, SLOT_OUT, type GroupJob, type GroupResult, type GroupWorkerData } from './group-jobs.js';

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
      port.postMessage(result, result.kind === 'text' && result.text ? [result.text.buffer as ArrayBuffer] : []);
    },
    (error: unknown) => port.postMessage({ seq: message.seq, kind: 'failed', message: String(error) }),
  );
});

function read(check: AnswerCheck, job: GroupJob): GroupResult {
  const at = job.slot * (SLOT_IN + SLOT_OUT);
  let items: unknown[];
  try {
    items = JSON.parse(Buffer.from(data.shared, at, job.length).toString('utf8'));
  } catch {
    return { seq: job.seq, kind: 'syntax' };
  }
  if (items.length !== job.count) return { seq: job.seq, kind: 'syntax' };
  if (!check({ ...data.holder, [data.key]: items })) return { seq: job.seq, kind: 'unvouched' };
  // Redacted here, with the main thread's secrets: the text goes to the output as it is.
  const text = redactValues(recordsText(items));
  // From the slot's second byte: the first is the comma before the group, when it needs one.
  const { read, written } = encoder.encodeInto(text, new Uint8Array(data.shared, at + SLOT_IN + 1, SLOT_OUT - 1));
  if (read === text.length) return { seq: job.seq, kind: 'text', length: written };
  const own = encoder.encode(text);
  return { seq: job.seq, kind: 'text', length: own.length, text: own };
}
