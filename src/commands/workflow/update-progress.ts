import type { IO } from '../../io.js';
import type { UploadEvent } from '../../upload/events.js';
import { count, duration, rate, type Progress } from '../progress.js';
import { plural } from '../../plural.js';
import { said } from '../../said.js';

/**
 * What workflow update's events say, shown by the one progress renderer (src/commands/
 * progress.ts). On a terminal: one status line redrawn in place (rows read, valid, batches sent,
 * rows per second, ETA). Otherwise (cron): one line after the check and one line per batch.
 */
export class UploadProgress {
  private readStarted: number;
  private sendStarted: number | undefined;

  constructor(
    private readonly io: IO,
    private readonly file: string,
    readonly out: Progress,
  ) {
    this.readStarted = io.now();
  }

  readonly onEvent = (e: UploadEvent): void => {
    if (this.out.quiet) return;
    switch (e.type) {
      case 'stale-lock':
        this.out.warning(said`took over the lock of an earlier run that is gone (pid ${e.pid})`);
        break;
      case 'resume':
        this.out.line(
          e.doneAt
            ? said`this file was already uploaded to this workflow (${plural(e.entries, 'entry', 'entries')}, completed ${e.doneAt})`
            : said`continuing an earlier run: ${plural(e.batches, 'batch', 'batches')} (${plural(e.entries, 'entry', 'entries')}, up to line ${e.line}) already accepted`,
        );
        break;
      case 'earlier-upload':
        this.out.warning(
          said`an upload of an earlier version of ${this.file} to this workflow stopped at ${e.at || e.startedAt} after ${plural(e.batches, 'batch', 'batches')} (${plural(e.entries, 'entry', 'entries')}, up to line ${e.line}); this file is new content and is uploaded from its first row (journal ${e.journal})`,
        );
        break;
      case 'resend-uncertain':
        this.out.warning(
          said`sending again batch ${e.batch.index} (lines ${e.batch.firstLine}-${e.batch.lastLine}), which an earlier run sent with no answer: ${
            e.reason === 'caseid'
              ? 'every entry carries caseid, so the service does not duplicate it'
              : '--resend-uncertain'
          }`,
        );
        break;
      case 'uncertain-kept':
        this.out.warning(
          said`not sending batch ${e.batch.index} (lines ${e.batch.firstLine}-${e.batch.lastLine}) again: an earlier run sent it at ${e.batch.at} with no answer (${e.batch.error}); --resend-uncertain sends it`,
        );
        break;
      case 'retry-uncertain':
        this.out.warning(
          said`batch ${e.batch.index} (lines ${e.batch.firstLine}-${e.batch.lastLine}): ${e.error}; it may have reached the service, but every entry carries caseid, so it is sent again (${e.attempt} of ${e.of}) in ${(e.waitMs / 1000).toFixed(1)} s`,
        );
        break;
      case 'count-differs':
        this.out.warning(
          said`batch ${e.batch.index} (lines ${e.batch.firstLine}-${e.batch.lastLine}): accepted; the service counted ${plural(e.count, 'entry', 'entries')} of the ${e.batch.count} sent (what it counts is not said; nothing is sent again)`,
        );
        break;
      case 'other-workflow':
        this.out.warning(said`batch ${e.batch.index}: accepted, but the answer names workflow ${e.workflowId}`);
        break;
      case 'read': {
        if (!this.out.tty) break;
        const seconds = (this.io.now() - this.readStarted) / 1000;
        const done = e.totalBytes > 0 ? e.bytes / e.totalBytes : 0;
        const eta = done > 0 && done < 1 ? `, ETA ${duration((seconds / done) * (1 - done))}` : '';
        this.out.draw(
          `checking ${this.file} ${Math.floor(done * 100)}%: ${plural(e.rows, 'row')}, ${count(e.valid)} valid, ${count(e.invalid)} invalid, ${rate(e.rows, seconds)}${eta}`,
        );
        break;
      }
      case 'validated': {
        const v = e.validation;
        const seconds = (this.io.now() - this.readStarted) / 1000;
        this.out.line(
          said`checked ${this.file}: ${plural(v.rows, 'row')}, ${count(v.valid)} valid, ${count(v.invalid)} invalid (${seconds.toFixed(1)} s)`,
        );
        break;
      }
      case 'sending':
        if (this.sendStarted === undefined) {
          this.sendStarted = this.io.now();
          this.out.draw(`sending: batch ${e.batch.index}/${e.total}...`, true);
        }
        break;
      case 'sent': {
        const seconds = (this.io.now() - (this.sendStarted ?? this.io.now())) / 1000;
        const perSecond = seconds > 0 ? e.entriesSent / seconds : 0;
        const left = perSecond > 0 ? (e.entriesToSend - e.entriesSent) / perSecond : 0;
        const b = e.batch;
        if (this.out.tty) {
          this.out.draw(
            `sending: batch ${b.index}/${e.total}, ${count(e.entriesSent)}/${plural(e.entriesToSend, 'entry', 'entries')}, ${rate(e.entriesSent, seconds)}, ETA ${duration(left)}`,
            true,
          );
        } else {
          this.out.line(
            said`batch ${b.index}/${e.total} sent: lines ${b.firstLine}-${b.lastLine}, ${plural(b.count, 'entry', 'entries')} accepted, service count ${e.acked} (${e.entriesSent}/${e.entriesToSend} this run, ${rate(e.entriesSent, seconds)})`,
          );
        }
        break;
      }
      case 'fingerprint':
        break;
    }
  };
}
