import type { Paint } from '../../output/paint.js';
import type { ReceiverEvent, ReceiverSummary } from '../../hooks/receive.js';
import type { ReceivePlan } from '../../hooks/plan.js';
import { eventLine, eventObject, type RenderOptions } from '../../hooks/event-view.js';
import { plural } from '../../plural.js';

/** Where each listener event goes: `out` for stdout (events), `err` for stderr (messages). */
export interface Rendered {
  out?: string;
  err?: string;
}

/** Turns a receiver event into text; the command writes it. */
export function render(event: ReceiverEvent, options: RenderOptions, c: { out: Paint; err: Paint }): Rendered {
  switch (event.kind) {
    case 'event': {
      if (options.events && !options.events.has(event.record.type ?? '')) return {};
      const { seq, record, summary, forwarding } = event;
      return options.json
        ? { out: `${JSON.stringify(eventObject(seq, record, summary, options, forwarding))}\n` }
        : { out: `${eventLine(seq, record, summary, options, c.out)}\n` };
    }
    case 'refused': {
      const r = event.record;
      return {
        err: `${c.err.yellow('warning:')} answered ${r.status} to ${r.method} ${r.path}${r.remote ? ` from ${r.remote}` : ''}: ${r.error}\n`,
      };
    }
    case 'forward': {
      const took = event.ms !== undefined ? ` in ${event.ms} ms` : '';
      const what = event.status !== undefined ? `${event.status}${took}` : `${event.error}${took}`;
      if (!event.final) {
        const wait = event.waitMs !== undefined ? ` in ${event.waitMs} ms` : '';
        return {
          err: `${c.err.yellow('↻')} forward #${event.seq} attempt ${event.attempt}: ${what}; retrying${wait}\n`,
        };
      }
      const ok = event.status !== undefined && event.status < 300;
      const mark = ok ? c.err.green('→') : c.err.red('✗');
      const tries = event.attempt > 1 ? ` after ${event.attempt} attempts` : '';
      return { err: `${mark} forward #${event.seq}: ${what}${tries}\n` };
    }
    case 'error':
      return { err: `${c.err.red('error:')} ${event.message}\n` };
    case 'hangup':
      return { err: `${event.message}\n` };
    case 'recovered':
      return {
        err: `the store is back after ${(event.ms / 1000).toFixed(1)} s; ${plural(event.refused, 'request')} answered 503 meanwhile (the service sends them again)\n`,
      };
    case 'cut':
      return {
        err: `${c.err.yellow('warning:')} ${plural(event.count, 'request')} cut short by the sender before the body was all in (not answered, not recorded; ${event.total} in all)\n`,
      };
    case 'listening':
    case 'ready':
      return {}; // the command says these (listeningLine)
    case 'unlogged':
      return {
        err: `${c.err.yellow('warning:')} ${event.count} refused request${event.count === 1 ? '' : 's'} not logged (over --refused-log-rate; ${event.total} in all)\n`,
      };
  }
}

/** The last line of a run: what it received, and what it refused. */
export function stoppedLine(s: ReceiverSummary): string {
  const extra = [
    s.refused
      ? `${s.refused} refused${s.refusedUnlogged ? `, ${s.refusedUnlogged} of them not logged` : ''}`
      : undefined,
    s.cutShort ? `${plural(s.cutShort, 'request')} cut short by the sender` : undefined,
    s.connectionsRefused ? `${plural(s.connectionsRefused, 'connection')} over the caps closed` : undefined,
  ].filter(Boolean);
  return `stopped: ${plural(s.events, 'event')} (${plural(s.retries, 'retry', 'retries')}, ${s.rejected} rejected)${extra.length ? `; ${extra.join('; ')}` : ''}`;
}

/** The first line of a run: where it listens, how it verifies, where it keeps and sends events. */
export function listeningLine(event: Extract<ReceiverEvent, { kind: 'listening' }>, plan: ReceivePlan): string {
  const keys = plan.keys.length;
  const { forwardTo, forwardKey, signCommand, chatbotSecret } = plan;
  return [
    `listening on ${event.url}${plan.path ? ' (POST on --path only)' : ''}; GET /healthz, /readyz${plan.metricsPath ? `, ${plan.metricsPath}` : ''}`,
    event.metricsUrl ? `metrics on ${event.metricsUrl}` : undefined,
    keys ? `${keys} key${keys > 1 ? 's' : ''}` : undefined,
    signCommand ? 'chatbot: sign command' : chatbotSecret ? 'chatbot: secret' : 'chatbot: unverified',
    event.store.summary,
    forwardTo
      ? `forwarding to ${new URL(forwardTo).origin} ${forwardKey ? 'signed' : 'unsigned (no --forward-secret-file or CALLCTL_FORWARD_SECRET)'}`
      : undefined,
  ]
    .filter(Boolean)
    .join('; ');
}
