// The inspector's page: a list of recorded events, newest first, that fills as they arrive
// (server-sent events), filters kept in the address, and one event's detail. Every text from an
// event goes into the page as text (textContent), never as markup.
import './inspector.css';
import { EVENT_TYPES } from '../../../schemas/event-types.js';
import { renderDetail } from './detail.js';
import { breakable, el, getJson, params, withParam, type Detail, type ListAnswer, type Row } from './dom.js';

const FILTERS = ['type', 'verdict', 'retries', 'plan', 'task', 'callee', 'since', 'until'] as const;
const TYPES = [...EVENT_TYPES, 'refused'];
const VERDICTS = ['verified', 'rejected', 'unverified', 'skipped', 'unsigned', 'refused'];
/** Rows kept in the page at most: older ones are read again from the server when asked. */
const WINDOW = 2000;

const csrf = document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? '';
const canSend = document.querySelector<HTMLMetaElement>('meta[name="can-send"]')?.content === 'yes';

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
  ...['#', 'time', 'type', 'plan', 'task', 'callee', 'status', 'verdict', 'retry', 'http status', 'forward'].map((h) =>
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
    // To the second (the detail has the milliseconds): the date and the time each on one line.
    el('td', { class: 'time', title: r.time }, r.time.slice(0, 10), ' ', r.time.slice(11, 19)),
    el('td', {}, breakable(r.type)),
    el('td', { class: 'id' }, breakable(r.plan ?? '')),
    el('td', { class: 'id' }, breakable(r.task ?? '')),
    el('td', { class: 'id callee' }, r.callee ?? ''),
    el('td', {}, breakable(r.status ?? '')),
    el('td', {}, r.verdict),
    el('td', {}, r.retry > 0 ? `retry ${r.retry}` : ''),
    el('td', {}, String(r.httpStatus)),
    el('td', {}, r.forward),
  );
  if (params().get('event') === r.id) tr.setAttribute('aria-current', 'true');
  return tr;
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
  renderDetail(detail, d, {
    canSend,
    csrf,
    revealed: reveal.checked,
    close: () => navigate(withParam('event', undefined)),
  });
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
