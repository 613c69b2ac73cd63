import { NetworkError } from '../errors.js';
import { JournalWriter, markSuperseded, type Batch } from '../store/upload-journal.js';
import { BatchReader } from './batches.js';
import type { Sent, UploadPlan, UploadRun } from './events.js';
import type { Prepared } from './prepare.js';

/** Tries of an uncertain batch whose entries all carry caseid, after the first. */
const CASEID_RETRIES = 3;

/**
 * Pass 2: sends the planned batches in order, one request at a time, reading the next batch from
 * the spool while the current one is in flight. Each acknowledged batch is journaled (and flushed
 * to disk) before the next is sent; a batch in flight when the process dies is not, so a re-run
 * sends it again, and only it. An aborted signal stops it between two batches.
 */
export async function sendBatches(plan: UploadPlan, run: UploadRun, prepared: Prepared): Promise<Sent> {
  const { batching } = prepared.report;
  const { batches, totalBatches, entries, resumed } = batching;
  const journal = new JournalWriter(prepared.journals, prepared.journalName, {
    workflowId: plan.workflowId,
    destination: plan.destination!.text,
    file: plan.path,
    sha256: prepared.fingerprint.sha256,
    bytes: prepared.fingerprint.bytes,
  });
  const sent: Sent = {
    batchesSent: 0,
    entriesAcked: 0,
    serviceCount: 0,
    uncertain: [...batching.uncertain],
    interrupted: false,
  };
  const earlier = prepared.journal;
  const unfinished = !earlier.doneAt && (earlier.batches.length > 0 || earlier.uncertain.length > 0);
  try {
    if (batches.length > 0) await sendAll();
    // Every batch acknowledged (or, with none to send, an earlier run's left to close): the journal says done.
    const finished = batches.length > 0 ? sent.batchesSent === batches.length : unfinished || sent.uncertain.length > 0;
    if (finished && sent.uncertain.length > 0)
      sent.stop ??= { kind: 'uncertain', batches: sent.uncertain, totalBatches };
    else if (finished) await journal.done();
    return sent;
  } finally {
    await journal.close();
  }

  async function sendAll(): Promise<void> {
    const reader = await BatchReader.open(prepared.spooled);
    let next: Promise<{ batch: Batch; details: Buffer }> | undefined = reader.read(0);
    try {
      for (let i = 0; i < batches.length; i++) {
        const { batch, details } = await next!;
        next = undefined;
        if (run.signal?.aborted) {
          sent.interrupted = true;
          return;
        }
        if (i === 0) {
          for (const name of prepared.replaced) await prepared.journals.remove(name);
          for (const j of prepared.earlier) await markSuperseded(prepared.journals, j.name, prepared.report.journal);
        }
        run.onEvent({ type: 'sending', batch, total: totalBatches });
        if (i + 1 < batches.length) {
          next = reader.read(i + 1);
          next.catch(() => undefined);
        }
        const answer = await sendOne(batch, details);
        if (!answer) return;
        await journal.batch(batch, answer.count);
        sent.batchesSent++;
        sent.entriesAcked += batch.count;
        sent.serviceCount += answer.count;
        // Status OK and code 200: accepted. `count` is told, never a verdict (what it counts is not said).
        if (answer.count !== batch.count) run.onEvent({ type: 'count-differs', batch, count: answer.count });
        if (answer.workflow_id !== undefined && answer.workflow_id !== plan.workflowId)
          run.onEvent({ type: 'other-workflow', batch, workflowId: answer.workflow_id });
        run.onEvent({
          type: 'sent',
          batch,
          total: totalBatches,
          acked: answer.count,
          entriesSent: sent.entriesAcked,
          entriesToSend: entries,
        });
      }
    } finally {
      await next?.catch(() => undefined);
      await reader.close();
    }
  }

  /** One batch, journaled before each try; its answer, or undefined when the run stops on it. */
  async function sendOne(batch: Batch, details: Buffer) {
    for (let attempt = 0; ; attempt++) {
      await journal.sending(batch);
      const tried = await run.sendBatch(details, batch).then(
        (answer) => ({ answer }),
        (error: unknown) => ({ error }),
      );
      if ('answer' in tried) return tried.answer;
      const { error } = tried;
      const why = error instanceof Error ? error.message : String(error);
      if (!mayHaveArrived(error)) {
        await journal.failed(batch, why);
        sent.stop = {
          kind: 'failed',
          error,
          batch,
          totalBatches,
          ackedBatches: resumed.batches + sent.batchesSent,
          ackedEntries: resumed.entries + sent.entriesAcked,
        };
        return undefined;
      }
      await journal.uncertain(batch, why);
      if (batch.caseids && attempt < CASEID_RETRIES) {
        const waitMs = 500 * 2 ** attempt;
        run.onEvent({ type: 'retry-uncertain', batch, attempt: attempt + 1, of: CASEID_RETRIES, waitMs, error: why });
        await run.sleep(waitMs);
        continue;
      }
      sent.uncertain.push(batch);
      sent.stop = { kind: 'uncertain', batches: sent.uncertain, totalBatches, why };
      return undefined;
    }
  }
}

/** Whether the body may have reached the service without an answer (a connection lost or timed out once it was sent). */
function mayHaveArrived(error: unknown): boolean {
  return error instanceof NetworkError && error.details.mayHaveBeenSent !== false;
}
