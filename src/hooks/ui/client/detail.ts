import { el, getJson, withParam, type Detail } from './dom.js';

// One event's detail: what `hooks show` shows, and the actions (send again, copy as curl).

export interface DetailOptions {
  canSend: boolean;
  csrf: string;
  /** "Show numbers" is ticked: what the page shows is what was recorded. */
  revealed: boolean;
  /** Closes the detail (the address without its event). */
  close(): void;
}

function facts(pairs: Array<[string, unknown]>): HTMLDListElement {
  const dl = el('dl');
  for (const [k, v] of pairs)
    if (v !== undefined && v !== '' && v !== null) dl.append(el('dt', {}, k), el('dd', {}, String(v)));
  return dl;
}

export function renderDetail(detail: HTMLElement, d: Detail, o: DetailOptions): void {
  const e = d.event;
  const f = e.forward;
  const close = el('button', { type: 'button', id: 'close' }, 'Close');
  close.addEventListener('click', () => o.close());
  const headers = el(
    'table',
    { class: 'headers' },
    el(
      'tbody',
      {},
      ...Object.entries(e.headers).map(([k, v]) => el('tr', {}, el('th', { scope: 'row' }, k), el('td', {}, v))),
    ),
  );
  const arrivals = el(
    'table',
    { class: 'arrivals' },
    el('thead', {}, el('tr', {}, ...['#', 'time', 'retry', 'http status'].map((h) => el('th', { scope: 'col' }, h)))),
    el(
      'tbody',
      {},
      ...d.arrivals.map((a) =>
        el(
          'tr',
          {},
          el('td', {}, el('a', { href: `?${withParam('event', a.id)}`, 'data-id': a.id }, `#${a.id}`)),
          el('td', {}, a.time),
          el('td', {}, a.retry > 0 ? `retry ${a.retry}` : 'first'),
          el('td', {}, String(a.httpStatus)),
        ),
      ),
    ),
  );
  const sendNote = el('p', { id: 'send-note', role: 'status' });
  const unverified = e.verdict !== 'verified' && e.verdict !== 'unsigned';
  const include = el('input', { type: 'checkbox', id: 'include-unverified' });
  const sendButton = el('button', { type: 'button', id: 'send', disabled: !o.canSend }, 'Send again');
  sendButton.addEventListener('click', async () => {
    sendButton.disabled = true;
    sendNote.textContent = 'sending…';
    try {
      const r = await getJson<{ status: number | null; error?: string; attempts: number }>(
        `/api/events/${encodeURIComponent(e.id)}/send`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-csrf-token': o.csrf },
          body: JSON.stringify({ includeUnverified: include.checked }),
        },
      );
      sendNote.textContent =
        r.status !== null
          ? `sent: the target answered ${r.status} (${r.attempts} attempt${r.attempts === 1 ? '' : 's'})`
          : `not delivered: ${r.error ?? ''}`;
    } catch (error) {
      sendNote.textContent = `not sent: ${(error as Error).message}`;
    } finally {
      sendButton.disabled = false;
    }
  });
  const curl = el('pre', { class: 'curl', id: 'curl' }, d.curl);
  const copy = el(
    'button',
    { type: 'button', id: 'copy-curl', title: 'The command posts the body exactly as recorded, numbers included' },
    'Copy as curl',
  );
  copy.addEventListener('click', async () => {
    // Masking is for the screen only: the command copied posts the recorded bytes.
    let command = d.curl;
    try {
      if (!o.revealed) command = (await getJson<Detail>(`/api/events/${encodeURIComponent(e.id)}?reveal=1`)).curl;
    } catch (error) {
      sendNote.textContent = `not copied: ${(error as Error).message}`;
      return;
    }
    try {
      await navigator.clipboard.writeText(command);
      sendNote.textContent = 'curl command copied (the body as recorded)';
    } catch {
      curl.textContent = command;
      getSelection()?.selectAllChildren(curl);
      sendNote.textContent = 'the clipboard is not available here: the command is selected, copy it with Ctrl+C';
    }
  });
  const parts: Array<Node | undefined> = [
    el('div', { class: 'detail-head' }, el('h2', { id: 'detail-title', tabindex: '-1' }, `Event #${e.id}`), close),
    facts([
      ['time', e.time],
      ['type', e.type ?? '(refused before its type was known)'],
      ...Object.entries(e.ids),
      ['http status', e.status],
      ['error', e.error],
      ['verdict', e.verdict],
      ['key matched', e.by],
      ['reason', e.reason],
      ['warnings', Array.isArray(e.warnings) ? e.warnings.join('; ') : undefined],
      ['identity', e.key],
      ['retry', Number(e.retry) > 0 ? `retry ${e.retry} of this event` : 'first arrival'],
      ['arrivals', Number(e.arrivals) || 1],
      [
        'forward',
        f
          ? `${f.state}${f.status !== undefined ? ` ${f.status}` : ''}${f.error ? ` ${f.error}` : ''}${f.attempts ? ` after ${f.attempts} attempt${f.attempts === 1 ? '' : 's'}` : ''}${f.at ? ` at ${f.at}` : ''}`
          : 'not forwarded (or not recorded in an NDJSON log)',
      ],
      ['from', `${e.remote ?? ''} ${e.method} ${e.path}`.trim()],
    ]),
    el(
      'div',
      { class: 'actions' },
      sendButton,
      unverified ? el('label', {}, include, ' also unverified (sent as it came)') : undefined,
      copy,
    ),
    o.canSend
      ? undefined
      : el(
          'p',
          { class: 'soft' },
          'Send again needs a forward target: serve-hooks --forward-to, or hooks ui --forward-to.',
        ),
    sendNote,
    el('h3', {}, 'Headers'),
    headers,
    el('h3', {}, `Body (${e.bytes} bytes${e.encoding === 'base64' ? ', base64' : ''})`),
    el(
      'details',
      { open: true },
      el('summary', {}, 'pretty'),
      el('pre', { class: 'body', id: 'body-pretty' }, d.pretty),
    ),
    el('details', {}, el('summary', {}, 'raw'), el('pre', { class: 'body', id: 'body-raw' }, e.body ?? '')),
    el('h3', {}, `Arrivals (${Number(e.arrivals) || 1})`),
    arrivals,
    el('h3', {}, 'As a curl command'),
    o.revealed
      ? undefined
      : el('p', { class: 'soft' }, 'Numbers are hidden here; Copy as curl copies the body as recorded.'),
    curl,
  ];
  detail.replaceChildren(...parts.filter((p): p is Node => p !== undefined));
}
