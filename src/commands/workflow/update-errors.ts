import { CliError, NetworkError, ServiceError, ServiceUnavailableError } from '../../errors.js';
import type { Batch } from '../../store/upload-journal.js';
import type { UploadStop } from '../../upload/upload.js';
import { plural } from '../../plural.js';
import { said } from '../../said.js';

/**
 * The error an upload that stopped ends with: what stopped it, where (batch and lines), how far
 * it got, and what to do, flags named. A failure that may pass by itself is a NetworkError (exit
 * 5, "run again"); one that will recur keeps its own class and says what to fix.
 */
export function stopError(stop: UploadStop): unknown {
  if (stop.kind === 'uncertain') return uncertainError(stop.batches, stop.totalBatches, stop.why);
  let { error } = stop;
  const { batch, ackedBatches, ackedEntries, totalBatches } = stop;
  const done =
    ackedBatches === 0
      ? said`no batch was acknowledged`
      : said`${ackedBatches === 1 ? said`batch 1` : said`batches 1-${ackedBatches}`} (${plural(ackedEntries, 'entry', 'entries')}) ${ackedBatches === 1 ? said`is` : said`are`} acknowledged and journaled`;
  const prefix = said`batch ${batch.index} of ${totalBatches} (lines ${batch.firstLine}-${batch.lastLine}) failed: `;
  const suffix = transient(error)
    ? said`; ${done}; run the same command again to send the rest`
    : said`; ${done}; the service will refuse it again until this is fixed (the workflow id and its state, or the rows named)`;
  // A 5xx or 429 refusal may pass by itself: exit 5 ("run again"), as README's exit codes say.
  if (error instanceof ServiceError && transient(error)) error = new NetworkError(error.said, { ...error.details });
  if (error instanceof CliError) {
    error.amend(said`${prefix}${error}${suffix}`);
    Object.assign(error.details, {
      batch: batch.index,
      firstLine: batch.firstLine,
      lastLine: batch.lastLine,
      acknowledgedBatches: ackedBatches,
      runAgain: transient(error),
    });
  }
  return error;
}

/** A failure that may pass by itself (network, timeout, 429, 5xx): "run again" is the advice. */
function transient(error: unknown): boolean {
  if (error instanceof NetworkError || error instanceof ServiceUnavailableError) return true;
  if (error instanceof ServiceError) {
    const s = error.httpStatus !== 200 ? error.httpStatus : (error.serviceCode ?? 0);
    return s === 408 || s === 429 || s >= 500;
  }
  return false;
}

/** The run stops on uncertain batches: their lines, and what to do (exit 5). */
function uncertainError(batches: readonly Batch[], total: number, why?: string): NetworkError {
  const lines = batches
    .map(
      (b) =>
        `batch ${b.index} of ${total} (lines ${b.firstLine}-${b.lastLine}, ${b.count} ${b.count === 1 ? 'entry' : 'entries'})`,
    )
    .join(', ');
  const verb = batches.length === 1 ? 'it is' : 'they are';
  return new NetworkError(
    said`${lines} may have reached the service with no answer${why ? ` (${why})` : ''}; ${verb} not sent again by itself, as a second copy of rows without caseid would duplicate contacts: check the workflow, then run again with --resend-uncertain to send those lines (a run without it sends only the rest)`,
    {
      uncertain: batches.map((b) => ({
        batch: b.index,
        firstLine: b.firstLine,
        lastLine: b.lastLine,
        entries: b.count,
      })),
    },
  );
}
