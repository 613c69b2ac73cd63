// A worker thread that reads groups of a streamed answer's records for `--json`
// (group-workers.ts): parses each, checks it inside the answer as the main thread would, and
// writes its text. No top-level await: the single executable starts this worker from its
// CommonJS source (scripts/sea.mjs, src/packaged.ts).
import { isAscii, isUtf8 } from 'node:buffer';
import { parentPort } from 'node:worker_threads';
import { recordsText } from '../output/json-stream.js';
import { addSecret, mayRedact, redactValues } from '../redact.js';
import { answerCheck, type AnswerCheck } from '../schemas/answers.js';
import { SLOT_IN, SLOT_OUT, SLOTS, type GroupJob, type GroupResult, type GroupWorkerData } from './group-jobs.js';
import { indenterBytes, jsonIndenter, type Indenter } from './json-indent.js';

const port = parentPort!;
// Told first, by message: workerData would show in Node's NODE_DEBUG=worker log, secrets and all.
let data: GroupWorkerData;
let checked: Promise<[AnswerCheck, Indenter | undefined]>;
const encoder = new TextEncoder();

port.on('message', (message: GroupWorkerData | GroupJob) => {
  if (!('seq' in message)) {
    data = message;
    // The slots as the indenter's memory sees them: one buffer, for it to know them as its own.
    if (data.memory) data.shared = data.memory.buffer;
    for (const secret of data.secrets) addSecret(secret);
    // Without WebAssembly (node --jitless), every text is JSON.stringify's.
    const indenter = data.memory
      ? jsonIndenter(data.memory, SLOTS * (SLOT_IN + SLOT_OUT) + data.index * indenterBytes(0), 0).catch(
          () => undefined,
        )
      : undefined;
    checked = Promise.all([answerCheck(data.answer), indenter]);
    return;
  }
  void checked.then(
    ([check, indenter]) => {
      const result = read(check, indenter, message);
      port.postMessage(result, result.kind === 'text' && result.text ? [result.text.buffer as ArrayBuffer] : []);
    },
    (error: unknown) => port.postMessage({ seq: message.seq, kind: 'failed', message: String(error) }),
  );
});

function read(check: AnswerCheck, indenter: Indenter | undefined, job: GroupJob): GroupResult {
  const at = job.slot * (SLOT_IN + SLOT_OUT);
  const bytes = Buffer.from(data.shared, at, job.length);
  // ASCII (most answers) is read as Latin-1: the same text, decoded faster.
  const ascii = isAscii(bytes);
  const utf8 = ascii || isUtf8(bytes);
  let items: unknown[];
  try {
    items = JSON.parse(bytes.toString(ascii ? 'latin1' : 'utf8'));
  } catch {
    return { seq: job.seq, kind: 'syntax' };
  }
  if (items.length !== job.count) return { seq: job.seq, kind: 'syntax' };
  if (!check({ ...data.holder, [data.key]: items })) return { seq: job.seq, kind: 'unvouched' };
  // From the slot's second byte: the first is the comma before the group, when it needs one.
  const out = Buffer.from(data.shared, at + SLOT_IN + 1, SLOT_OUT - 1);
  // The text from the bytes as they are (src/api/json-indent.ts), when it is sure to be
  // JSON.stringify's and holds nothing to redact; else from what they were parsed into.
  const length = utf8 ? indenter?.write(bytes.subarray(1, -1), out) : undefined;
  if (length !== undefined && !mayRedact(indenter!.includes)) return { seq: job.seq, kind: 'text', length };
  // Redacted here, with the main thread's secrets: the text goes to the output as it is.
  const text = redactValues(recordsText(items));
  const { read, written } = encoder.encodeInto(text, out);
  if (read === text.length) return { seq: job.seq, kind: 'text', length: written };
  const own = encoder.encode(text);
  return { seq: job.seq, kind: 'text', length: own.length, text: own };
}
