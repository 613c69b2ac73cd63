import type { UploadOutcome, UploadPlan, UploadRun } from './events.js';
import { prepare } from './prepare.js';
import { sendBatches } from './send.js';

/**
 * The uploading engine's one entry: `upload(plan, run)`, one contact CSV to one workflow. The
 * engine owns the sequence: read and check every row of the file before anything is sent (pass 0
 * hashes it, pass 1 checks it and spools the valid rows' batches), take the journal and its lock
 * from the store, confirm through the callback (once, only with batches to send, never on a dry
 * run), send the batches (pass 2), and release the lock and the spool, always. It tells what it
 * does through `run.onEvent` and returns what it came to; it never prints and picks no exit code.
 *
 * Stopping is `run.signal`: while the file is read the read stops; once sending, the batch in
 * flight is finished and journaled first. Either way before the first batch, nothing was sent.
 */
export async function upload(plan: UploadPlan, run: UploadRun): Promise<UploadOutcome> {
  const prepared = await prepare(plan, run).catch((error: unknown) => {
    if (run.signal?.aborted) return undefined;
    throw error;
  });
  if (!prepared) return { kind: 'stopped', when: 'reading' };
  try {
    const { report } = prepared;
    if (run.signal?.aborted) return { kind: 'stopped', when: 'read' };
    if (!report.allowed || plan.dryRun) return { kind: 'checked', report };
    if (report.batching.batches.length > 0 && !(await run.confirm(report.batching))) return { kind: 'declined' };
    if (run.signal?.aborted) return { kind: 'stopped', when: 'confirmed' };
    run.onEvent({ type: 'send' });
    return { kind: 'sent', report, sent: await sendBatches(plan, run, prepared) };
  } finally {
    await prepared.close();
  }
}
