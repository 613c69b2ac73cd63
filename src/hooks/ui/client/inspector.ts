// The inspector's page: a list of recorded events, newest first, that fills as they arrive
// (server-sent events), filters kept in the address, and one event's detail. Every text from an
// event goes into the page as text (textContent), never as markup.
import './inspector.css';

interface Row {
  id: string;
  time: string;
  type: string;
  plan?: string;
  task?: string;
  callee?: string;
  status?: string;
  verdict: string;
  retry: number;
  answer: number;
  forward: string;
}
interface ListAnswer {
  events: Row[];
  newest: string;
  more: boolean;
}
interface Detail {
  event: Record<string, unknown> & {
    id: string;
    headers: Record<string, string>;
    body?: string;
    ids: Record<string, unknown>;
    forward: null | Record<string, unknown>;
  };
  pretty: string;
  arrivals: Row[];
  curl: string;
}

const FILTERS = ['type', 'verdict', 'retries', 'plan', 'task', 'callee', 'since', 'until'] as const;
const TYPES = [
  'plan.end',
  'task.end',
  'workflow.api_push',
  'template.status',
  'chatbot.session_closed',
  'chatbot.transfer',
  'unknown',
  'refused',
];
const VERDICTS = ['verified', 'rejected', 'unverified', 'skipped', 'unsigned', 'refused'];
/** Rows kept in the page at most: older ones are read again from the server when asked. */
const WINDOW = 2000;

const csrf = document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? '';
const canSend = document.querySelector<HTMLMetaElement>('meta[name="can-send"]')?.content === 'yes';

/** An element with attributes and children (strings become text nodes). */
function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | boolean> = {},
  ...children: Array<Node | string | undefined>
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false) continue;
    e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) if (c !== undefined) e.append(c);
  return e;
}

const params = () => new URLSearchParams(location.search);
const later = (a: string, b: string) => a.length > b.length || (a.length === b.length && a > b);

/** The filters of the address, as the API takes them. */
function filterQuery(): URLSearchParams {
  const q = new URLSearchParams();
  const p = params();
  for (const k of FILTERS) {
    const v = p.get(k);
    if (v) q.set(k, v);
  }
  if (reveal.checked) q.set('reveal', '1');
  return q;
}

async function getJson<T>(url: string, init?: RequestInit): Promise<T> {
  const res = await fetch(url, { credentials: 'same-origin', ...init });
  const body = (await res.json().catch(() => ({}))) as T & { error?: string };
  if (!res.ok) throw new Error(body.error ?? `HTTP ${res.status}`);
  return body;
}

// ---- the frame ----
const app = document.getElementById('app')!;
const liveNote = document.getElementById('live')!;
const form = el('form', { id: 'filters', role: 'search', 'aria-label': 'Filters' });
const select = (name: string, label: string, options: Array<[string, string]>) =>
  el('label', {}, `${label} `, el('select', { name }, ...options.map(([v, t]) => el('option', { value: v }, t))));
const input = (name: string, label: string, placeholder = '') =>
  el('label', {}, `${label} `, el('input', { name, type: 'text', placeholder, size: '12', autocomplete: 'off' }));
form.append(
  select('type', 'Type', [['', 'all'], ...TYPES.map((t): [string, string] => [t, t])]),
  select('verdict', 'Verdict', [['', 'all'], ...VERDICTS.map((t): [string, string] => [t, t])]),
  select('retries', 'Arrivals', [
    ['', 'all'],
    ['true', 'retries only'],
    ['false', 'first arrivals'],
  ]),
  input('plan', 'Plan'),
  input('task', 'Task'),
  input('callee', 'Callee', '+62…'),
  input('since', 'Since', '2h, 2026-11-22'),
  input('until', 'Until'),
  el('button', { type: 'submit' }, 'Apply'),
  el('button', { type: 'button', id: 'clear' }, 'Clear'),
);
const reveal = el('input', { type: 'checkbox', id: 'reveal' });
const exportCsv = el('a', { id: 'export-csv', download: 'events.csv' }, 'Export CSV');
const exportNdjson = el('a', { id: 'export-ndjson', download: 'events.ndjson' }, 'Export NDJSON');
const problem = el('p', { id: 'problem', role: 'alert' });
const tools = el('div', { class: 'tools' }, el('label', {}, reveal, ' Show numbers'), exportCsv, exportNdjson);
const head = el(
  'tr',
  {},
  ...['#', 'time', 'type', 'plan', 'task', 'callee', 'status', 'verdict', 'retry', 'answer', 'forward'].map((h) =>
    el('th', { scope: 'col' }, h),
  ),
);
const tbody = el('tbody');
const table = el(
  'table',
  { id: 'list' },
  el('caption', { class: 'sr' }, 'Recorded events, newest first'),
  el('thead', {}, head),
  tbody,
);
const older = el('button', { type: 'button', id: 'older', hidden: true }, 'Load older');
const listNote = el('p', { id: 'list-note', role: 'status' });
const detail = el('aside', { id: 'detail', 'aria-label': 'Event detail', hidden: true });
app.replaceChildren(
  form,
  tools,
  problem,
  el(
    'div',
    { class: 'panes' },
    el('section', { 'aria-label': 'Events', class: 'list' }, table, older, listNote),
    detail,
  ),
);

// ---- the list ----
let newest = '0';
let oldest: string | undefined;
let loading = 0;

function rowOf(r: Row): HTMLTableRowElement {
  const link = el('a', { href: `?${withParam('event', r.id)}`, 'data-id': r.id }, `#${r.id}`);
  const tr = el(
    'tr',
    { 'data-id': r.id, class: `v-${r.verdict || 'none'}` },
    el('td', {}, link),
    el('td', {}, r.time.replace('T', ' ').replace('Z', '')),
    el('td', {}, r.type),
    el('td', {}, r.plan ?? ''),
    el('td', {}, r.task ?? ''),
    el('td', { class: 'callee' }, r.callee ?? ''),
    el('td', {}, r.status ?? ''),
    el('td', {}, r.verdict),
    el('td', {}, r.retry > 0 ? `retry ${r.retry}` : ''),
    el('td', {}, String(r.answer)),
    el('td', {}, r.forward),
  );
  if (params().get('event') === r.id) tr.setAttribute('aria-current', 'true');
  return tr;
}

function withParam(name: string, value: string | undefined): string {
  const p = params();
  if (value === undefined) p.delete(name);
  else p.set(name, value);
  return p.toString();
}

function setExports(): void {
  const q = filterQuery();
  q.set('format', 'csv');
  exportCsv.href = `/api/export?${q}`;
  q.set('format', 'ndjson');
  exportNdjson.href = `/api/export?${q}`;
}

/** The first page for the address's filters. */
async function loadList(): Promise<void> {
  const mine = ++loading;
  problem.textContent = '';
  listNote.textContent = 'loading…';
  try {
    const page = await getJson<ListAnswer>(`/api/events?${filterQuery()}`);
    if (mine !== loading) return;
    newest = page.newest;
    tbody.replaceChildren(...page.events.map(rowOf));
    oldest = page.events.at(-1)?.id;
    older.hidden = !page.more;
    listNote.textContent = page.events.length ? '' : 'No events match.';
  } catch (error) {
    problem.textContent = (error as Error).message;
    listNote.textContent = '';
  }
}

async function loadOlder(): Promise<void> {
  if (!oldest) return;
  const q = filterQuery();
  q.set('before', oldest);
  const page = await getJson<ListAnswer>(`/api/events?${q}`);
  tbody.append(...page.events.map(rowOf));
  oldest = page.events.at(-1)?.id ?? oldest;
  older.hidden = !page.more;
}

/** New events since the last seen, put on top. */
async function loadNewer(upTo: string): Promise<void> {
  if (!later(upTo, newest)) return;
  const q = filterQuery();
  q.set('after', newest);
  q.set('limit', '500');
  const page = await getJson<ListAnswer>(`/api/events?${q}`);
  if (page.more) return loadList();
  newest = later(page.newest, upTo) ? page.newest : upTo;
  const fresh = page.events.filter((r) => !tbody.querySelector(`tr[data-id="${r.id}"]`));
  tbody.prepend(...fresh.map(rowOf));
  if (fresh.length) listNote.textContent = '';
  while (tbody.rows.length > WINDOW) {
    tbody.lastElementChild!.remove();
    oldest = tbody.lastElementChild?.getAttribute('data-id') ?? undefined;
    older.hidden = false;
  }
}

// ---- one event ----
function facts(pairs: Array<[string, unknown]>): HTMLDListElement {
  const dl = el('dl');
  for (const [k, v] of pairs)
    if (v !== undefined && v !== '' && v !== null) dl.append(el('dt', {}, k), el('dd', {}, String(v)));
  return dl;
}

async function showDetail(): Promise<void> {
  const id = params().get('event');
  for (const tr of tbody.querySelectorAll('tr[aria-current]')) tr.removeAttribute('aria-current');
  if (!id) {
    detail.hidden = true;
    detail.replaceChildren();
    return;
  }
  tbody.querySelector(`tr[data-id="${CSS.escape(id)}"]`)?.setAttribute('aria-current', 'true');
  detail.hidden = false;
  detail.replaceChildren(el('p', {}, 'loading…'));
  let d: Detail;
  try {
    d = await getJson<Detail>(`/api/events/${encodeURIComponent(id)}${reveal.checked ? '?reveal=1' : ''}`);
  } catch (error) {
    detail.replaceChildren(el('p', { role: 'alert' }, (error as Error).message));
    return;
  }
  const e = d.event;
  const f = e.forward;
  const close = el('button', { type: 'button', id: 'close' }, 'Close');
  close.addEventListener('click', () => navigate(withParam('event', undefined)));
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
    el('thead', {}, el('tr', {}, ...['#', 'time', 'retry', 'answer'].map((h) => el('th', { scope: 'col' }, h)))),
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
          el('td', {}, String(a.answer)),
        ),
      ),
    ),
  );
  const sendNote = el('p', { id: 'send-note', role: 'status' });
  const unverified = e.verdict !== 'verified' && e.verdict !== 'unsigned';
  const include = el('input', { type: 'checkbox', id: 'include-unverified' });
  const sendButton = el('button', { type: 'button', id: 'send', disabled: !canSend }, 'Send again');
  sendButton.addEventListener('click', async () => {
    sendButton.disabled = true;
    sendNote.textContent = 'sending…';
    try {
      const r = await getJson<{ status: number | null; error?: string; attempts: number }>(
        `/api/events/${encodeURIComponent(e.id)}/send`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
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
  const copy = el('button', { type: 'button', id: 'copy-curl' }, 'Copy as curl');
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(d.curl);
      sendNote.textContent = 'curl command copied';
    } catch {
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
      ['answer', e.answer],
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
    canSend
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
    curl,
  ];
  detail.replaceChildren(...parts.filter((p): p is Node => p !== undefined));
}

// ---- the address ----
function fillForm(): void {
  const p = params();
  for (const k of FILTERS) {
    const field = form.elements.namedItem(k) as HTMLInputElement | HTMLSelectElement | null;
    if (field) field.value = p.get(k) ?? '';
  }
  setExports();
}

function navigate(query: string): void {
  history.pushState(null, '', `?${query}`);
  void render(false);
}

async function render(list: boolean): Promise<void> {
  fillForm();
  if (list) await loadList();
  await showDetail();
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  const p = new URLSearchParams();
  for (const k of FILTERS) {
    const v = (form.elements.namedItem(k) as HTMLInputElement).value.trim();
    if (v) p.set(k, v);
  }
  history.pushState(null, '', `?${p}`);
  void render(true);
});
document.getElementById('clear')!.addEventListener('click', () => {
  history.pushState(null, '', '?');
  void render(true);
});
reveal.addEventListener('change', () => void render(true));
older.addEventListener('click', () => void loadOlder());
app.addEventListener('click', (event) => {
  const a = (event.target as Element).closest?.('a[data-id]');
  if (!a || event.ctrlKey || event.metaKey || event.shiftKey) return;
  event.preventDefault();
  navigate(withParam('event', a.getAttribute('data-id')!));
  (document.getElementById('detail-title') as HTMLElement | null)?.focus();
});
window.addEventListener('popstate', () => void render(true));

// ---- live ----
const stream = new EventSource('/api/stream');
stream.onopen = () => (liveNote.textContent = '● live');
stream.onerror = () => (liveNote.textContent = 'reconnecting…');
stream.onmessage = (m) => {
  const { newest: upTo } = JSON.parse(m.data as string) as { newest: string };
  if (loading === 0) return;
  void loadNewer(upTo).catch((error: Error) => (problem.textContent = error.message));
};

void render(true);
