import { redactUrls } from '../../redact.js';
import type { EventStore, StoredEvent } from '../../store/events.js';
import { eventDetail, eventRow, type EventRow } from '../event-view.js';

/** Events per page of the list. */
export const PAGE = 100;

export interface ListAnswer {
  events: EventRow[];
  newest: string;
  more: boolean;
}

/** A shell word: single-quoted, a quote inside written '\'' . */
const sh = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The event as a curl command that posts the same bytes with the same content type. */
export function curlOf(
  e: { headers: Record<string, string>; body?: string; encoding?: 'base64' },
  to?: string,
): string {
  const lines = ['curl -sS -X POST'];
  lines.push(`  -H ${sh(`Content-Type: ${e.headers['content-type'] ?? 'application/json'}`)}`);
  if (e.headers['user-agent']) lines.push(`  -H ${sh(`User-Agent: ${e.headers['user-agent']}`)}`);
  lines.push(
    e.encoding === 'base64'
      ? `  --data-binary @<(printf %s ${sh(e.body ?? '')} | base64 -d)`
      : `  --data-binary ${sh(e.body ?? '')}`,
  );
  lines.push(`  ${to ? sh(to) : '"$URL"'}`);
  return lines.join(' \\\n');
}

export async function listAnswer(
  store: EventStore,
  filter: Parameters<EventStore['page']>[0],
  cursor: Parameters<EventStore['page']>[1],
  reveal: boolean,
): Promise<ListAnswer> {
  const page = await store.page(filter, cursor);
  return { events: page.events.map((e) => eventRow(e, reveal)), newest: page.newest, more: page.more };
}

/** The detail view's answer: what `hooks show --json` gives, the body to read, the arrivals, a curl command. */
export async function detailAnswer(store: EventStore, id: string, reveal: boolean, to: string | undefined) {
  const detail = await eventDetail(store, id, reveal);
  if (!detail) return undefined;
  const { json } = detail;
  return {
    event: json,
    pretty: detail.body,
    arrivals: detail.arrivals.map((e: StoredEvent) => eventRow(e, reveal)),
    // The target's password (in its URL) is a secret: the command shows it as ***.
    curl: curlOf(json, to && redactUrls(to)),
  };
}
