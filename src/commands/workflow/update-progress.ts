import type { IO } from '../../io.js';
import type { UploadEvent } from '../../contacts/events.js';

/** How often the TTY status line is redrawn. */
const REDRAW_MS = 100;

/**
 * Renders the uploader's events on stderr. On a terminal: one status line redrawn in place
 * (rows read, valid, batches sent, rows per second, ETA). Otherwise (cron): no redrawing, one
 * line after the check and one line per batch.
 */
export class UploadProgress {
  private lastDraw = 0;
  private drawn = false;
  private readStarted: number;
  private sendStarted: number | undefined;

  constructor(
    private readonly io: IO,
    private readonly file: string,
    private readonly tty: boolean,
    private readonly warn: (message: string) => void,
    /** `--quiet`: errors only (the command prints those), no progress, no warnings. */
    private readonly quiet = false,
  ) {
    this.readStarted = io.now();
  }

  readonly onEvent = (e: UploadEvent): void => {
    if (this.quiet) return;
    switch (e.type) {
      case 'stale-lock':
        this.warning(`took over the lock of an earlier run that is gone (pid ${e.pid})`);
        break;
      case 'resume':
        this.line(
          e.doneAt
            ? `this file was already uploaded to this workflow (${plural(e.entries, 'entry', 'entries')}, completed ${e.doneAt})`
            : `continuing an earlier run: ${plural(e.batches, 'batch', 'batches')} (${plural(e.entries, 'entry', 'entries')}, up to line ${e.line}) already accepted`,
        );
        break;
      case 'earlier-upload':
        this.warning(
          `an upload of an earlier version of ${this.file} to this workflow stopped at ${e.at || e.startedAt} after ${plural(e.batches, 'batch', 'batches')} ` +
            `(${plural(e.entries, 'entry', 'entries')}, up to line ${e.line}); this file is new content and is uploaded from its first row (journal ${e.journal})`,
        );
        break;
      case 'resend-uncertain':
        this.warning(
          `sending again batch ${e.batch.index} (lines ${e.batch.firstLine}-${e.batch.lastLine}), which an earlier run sent with no answer: ` +
            (e.reason === 'caseid' ? 'every entry carries caseid, so the service does not duplicate it' : '--resend-uncertain'),
        );
        break;
      case 'uncertain-kept':
        this.warning(`not sending batch ${e.batch.index} (lines ${e.batch.firstLine}-${e.batch.lastLine}) again: an earlier run sent it at ${e.batch.at} with no answer (${e.batch.error}); --resend-uncertain sends it`);
        break;
      case 'retry-uncertain':
        this.warning(
          `batch ${e.batch.index} (lines ${e.batch.firstLine}-${e.batch.lastLine}): ${e.error}; it may have reached the service, but every entry carries caseid, so it is sent again (${e.attempt} of ${e.of}) in ${(e.waitMs / 1000).toFixed(1)} s`,
        );
        break;
      case 'count-differs':
        this.warning(`batch ${e.batch.index} (lines ${e.batch.firstLine}-${e.batch.lastLine}): accepted; the service counted ${plural(e.count, 'entry', 'entries')} of the ${e.batch.count} sent (what it counts is not said; nothing is sent again)`);
        break;
      case 'other-workflow':
        this.warning(`batch ${e.batch.index}: accepted, but the answer names workflow ${e.workflowId}`);
        break;
      case 'read': {
        if (!this.tty) break;
        const seconds = (this.io.now() - this.readStarted) / 1000;
        const done = e.totalBytes > 0 ? e.bytes / e.totalBytes : 0;
        const eta = done > 0 && done < 1 ? `, ETA ${duration((seconds / done) * (1 - done))}` : '';
        this.draw(`checking ${this.file} ${Math.floor(done * 100)}%: ${count(e.rows)} rows, ${count(e.valid)} valid, ${count(e.invalid)} invalid, ${rate(e.rows, seconds)}${eta}`);
        break;
      }
      case 'validated': {
        const v = e.validation;
        const seconds = (this.io.now() - this.readStarted) / 1000;
        this.line(`checked ${this.file}: ${count(v.rows)} rows, ${count(v.valid)} valid, ${count(v.invalid)} invalid (${seconds.toFixed(1)} s)`);
        break;
      }
      case 'sending':
        if (this.sendStarted === undefined) {
          this.sendStarted = this.io.now();
          if (this.tty) this.draw(`sending: batch ${e.batch.index}/${e.total}...`, true);
        }
        break;
      case 'sent': {
        const seconds = (this.io.now() - (this.sendStarted ?? this.io.now())) / 1000;
        const perSecond = seconds > 0 ? e.entriesSent / seconds : 0;
        const left = perSecond > 0 ? (e.entriesToSend - e.entriesSent) / perSecond : 0;
        const b = e.batch;
        if (this.tty) {
          this.draw(
            `sending: batch ${b.index}/${e.total}, ${count(e.entriesSent)}/${count(e.entriesToSend)} entries, ${rate(e.entriesSent, seconds)}, ETA ${duration(left)}`,
            true,
          );
        } else {
          this.io.stderr.write(
            `${this.stamp()}batch ${b.index}/${e.total} sent: lines ${b.firstLine}-${b.lastLine}, ${plural(b.count, 'entry', 'entries')} accepted, service count ${e.acked} (${e.entriesSent}/${e.entriesToSend} this run, ${rate(e.entriesSent, seconds)})\n`,
          );
        }
        break;
      }
      case 'fingerprint':
        break;
    }
  };

  /** A message between redraws (the status line is cleared first); without a terminal, after the time. */
  line(message: string): void {
    if (this.quiet) return;
    this.clear();
    this.io.stderr.write(`${this.stamp()}${message}\n`);
  }

  /** A warning line; without a terminal it starts with the time too (a cron log read back by night). */
  private warning(message: string): void {
    if (this.quiet) return;
    this.clear();
    if (this.tty) this.warn(message);
    else this.io.stderr.write(`${this.stamp()}warning: ${message}\n`);
  }

  /** `2026-11-23T02:30:05.123Z ` without a terminal; nothing on one. */
  private stamp(): string {
    return this.tty ? '' : `${new Date(this.io.now()).toISOString()} `;
  }

  /** Removes the status line, if one is shown. */
  clear(): void {
    if (this.drawn) this.io.stderr.write('\r\x1b[2K');
    this.drawn = false;
  }

  private draw(text: string, force = false): void {
    const now = this.io.now();
    if (!force && now - this.lastDraw < REDRAW_MS) return;
    this.lastDraw = now;
    const width = this.io.columns ? this.io.columns - 1 : 119;
    this.io.stderr.write(`\r\x1b[2K${text.length > width ? text.slice(0, width) : text}`);
    this.drawn = true;
  }
}

/** "1 batch", "2 batches". */
export function plural(n: number, one: string, many: string): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}

export function count(n: number): string {
  return n.toLocaleString('en-US');
}

function rate(rows: number, seconds: number): string {
  return seconds > 0 ? `${count(Math.round(rows / seconds))} rows/s` : '- rows/s';
}

function duration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds <= 0) return '0s';
  if (seconds < 60) return `${Math.ceil(seconds)}s`;
  return `${Math.floor(seconds / 60)}m${String(Math.ceil(seconds % 60)).padStart(2, '0')}s`;
}
