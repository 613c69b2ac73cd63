// The checker of a campaign day: holds what callctl recorded against the sandbox's truth, as
// Jepsen's checkers hold a history against a model. Pure: it is given the history, it returns
// the broken invariants (each a line naming what broke) and the table of counts.

/** The kind of a notification from its body's shape (the sandbox's six; the spec's Events). */
export function kindOf(body) {
  if (!body || typeof body !== 'object') return 'unknown';
  if ('TaskID' in body) return 'task.end';
  if ('PlanDetails' in body) return 'plan.end';
  if ('node_id' in body && 'call' in body) return 'workflow.api_push';
  if ('msg_id' in body && 'waba_task_id' in body) return 'template.status';
  if (body.event === 'session.closed') return 'chatbot.session_closed';
  if (body.event === 'session.transfer') return 'chatbot.transfer';
  return 'unknown';
}

/**
 * Which notification a body is, the same on every attempt: its kind and the fields that name what
 * it is about (as the sandbox's truth names them, src/sandbox/notifier.ts's notificationId).
 */
export function notificationOf(body) {
  const kind = kindOf(body);
  const s = (v) => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');
  const b = body ?? {};
  switch (kind) {
    case 'task.end':
      return `task.end|${s(b.TaskID)}|${s(b.PlanName)}`;
    case 'plan.end':
      return `plan.end|${s(b.PlanName)}`;
    case 'workflow.api_push':
      return `workflow.api_push|${s(b.workflow_id)}|${s(b.node_id)}|${s(b.call?.call_id)}`;
    case 'template.status':
      return `template.status|${s(b.msg_id)}|${s(b.status)}`;
    default:
      return `${kind}|${s(b.call_id)}`;
  }
}

/** The digits of a phone number however it was spelled (+1 555 ... is +1555...). */
export const digitsOf = (n) => String(n).replace(/\D/g, '');

const LIMIT = 10;
const tally = (map, key) => map.set(key, (map.get(key) ?? 0) + 1);

/**
 * history: {
 *   seed,
 *   truth: { notifications: [{ id, kind, attempts, delivered }], calls: [...] },
 *   stored: [{ nid, kind, type, retry, status, fwdState }]  (every row of the store),
 *   forwards: [{ nid, eventId, status }]                    (every forward the app got),
 *   rows: { sent: [{ callee, file, line, caseid }], received: [callee...], uncertain: Set<callee>,
 *           unfinished: Set<callee> (rows of files no run finished) },
 *   pushes: { people: [e164...], received: [caller as sent...], uncertain: Set<digits>,
 *             unfinished: Set<digits> (people of files no run got past its start) },
 *   reports: [{ what, got, want }],
 *   secrets: [{ where, secret }]   (each secret found in a file or output),
 *   faults: [{ kind }],
 * }
 */
export function check(h) {
  const problems = [];
  const broke = (what, items, show = (x) => x) => {
    if (items.length === 0) return;
    const named = items.slice(0, LIMIT).map(show).join(', ');
    problems.push(`${what}: ${items.length}${items.length ? ` (${named}${items.length > LIMIT ? ', ...' : ''})` : ''}`);
  };

  // Notifications: every one answered 200 is stored exactly once as a first arrival (its other
  // arrivals marked as retries), and forwarded exactly once as the app sees it (by event id).
  const delivered = h.truth.notifications.filter((n) => n.delivered);
  const sentIds = new Set(h.truth.notifications.map((n) => n.id));
  const firsts = new Map();
  const accepted = new Map();
  const mistyped = [];
  for (const s of h.stored) {
    if (s.status !== 200) continue;
    tally(accepted, s.nid);
    if (s.retry === 0) tally(firsts, s.nid);
    if (s.type !== s.kind) mistyped.push(`${s.nid} as ${s.type}`);
  }
  const lostInStore = delivered.filter((n) => !accepted.has(n.id)).map((n) => n.id);
  const storedTwice = [...firsts].filter(([, c]) => c > 1).map(([id, c]) => `${id} x${c}`);
  const noFirst = delivered.filter((n) => accepted.has(n.id) && !firsts.has(n.id)).map((n) => n.id);
  const phantom = [...accepted.keys()].filter((id) => !sentIds.has(id));
  const retries = h.stored.filter((s) => s.status === 200 && s.retry > 0).length;
  // More arrivals stored than attempts made: something stored what was never sent.
  const attemptsOf = new Map(h.truth.notifications.map((n) => [n.id, n.attempts.length]));
  const overStored = [...accepted].filter(([id, c]) => c > (attemptsOf.get(id) ?? 0)).map(([id, c]) => `${id} ${c}`);
  broke('answered 200 but not in the store', lostInStore);
  broke('stored more than once as a new event (not marked as a retry)', storedTwice);
  broke('stored only as retries, never as a first arrival', noFirst);
  broke('in the store but never sent', phantom);
  broke('more arrivals stored than attempts sent', overStored);
  broke('typed otherwise than sent', mistyped);

  const taken = new Map();
  const eventIdsOf = new Map();
  let repeatsDropped = 0;
  for (const f of h.forwards) {
    if (f.status >= 300) continue;
    if (taken.has(f.eventId)) {
      repeatsDropped++;
      continue;
    }
    taken.set(f.eventId, f.nid);
    const ids = eventIdsOf.get(f.nid) ?? [];
    ids.push(f.eventId);
    eventIdsOf.set(f.nid, ids);
  }
  const noEventId = h.forwards.filter((f) => !f.eventId).length;
  const notForwarded = delivered.filter((n) => !eventIdsOf.has(n.id)).map((n) => n.id);
  const forwardedTwice = [...eventIdsOf].filter(([, ids]) => ids.length > 1).map(([id, ids]) => `${id} as ${ids}`);
  const forwardedUnsent = [...eventIdsOf.keys()].filter((id) => !sentIds.has(id));
  broke('forwards without an event id', noEventId ? [`${noEventId} forwards`] : []);
  broke('answered 200 but never forwarded to the app', notForwarded);
  broke('forwarded to the app under two event ids (the app cannot drop the repeat)', forwardedTwice);
  broke('forwarded but never sent', forwardedUnsent);

  // Contacts: every row in the service's list exactly once, or named uncertain by a run.
  const got = new Map();
  for (const c of h.rows.received) tally(got, c);
  const rowKeys = new Map();
  for (const r of h.rows.sent) if (!rowKeys.has(r.callee)) rowKeys.set(r.callee, r);
  const missing = [];
  const twice = [];
  const unnamed = [];
  let uncertainRows = 0;
  let unfinishedRows = 0;
  let resentByCaseid = 0;
  for (const [callee, r] of rowKeys) {
    const n = got.get(callee) ?? 0;
    const named = h.rows.uncertain.has(callee);
    if (named) uncertainRows++;
    // A file no run finished: every run said so with its exit code (run again later).
    const unfinished = n === 0 && !named && (h.rows.unfinished?.has(callee) ?? false);
    if (unfinished) unfinishedRows++;
    if (n === 0 && !named && !unfinished) missing.push(`${r.file}:${r.line}`);
    // A batch of rows that all carry caseid is sent again when uncertain (the service keeps one per caseid).
    if (n > 1 && r.caseid) resentByCaseid++;
    if (n > 1 && !r.caseid) twice.push(`${r.file}:${r.line} x${n}`);
  }
  for (const callee of got.keys()) if (!rowKeys.has(callee)) unnamed.push(callee);
  broke('contact rows not in the service and not named uncertain', missing);
  broke('contact rows without caseid in the service more than once', twice);
  broke('contacts in the service from no file', unnamed);

  // Pushes: each person pushed at most once (the ledger), and anyone not pushed was named.
  const pushed = new Map();
  for (const p of h.pushes.received) tally(pushed, digitsOf(p));
  const people = new Set(h.pushes.people.map(digitsOf));
  const pushedTwice = [...pushed].filter(([, c]) => c > 1).map(([p, c]) => `+${p} x${c}`);
  // A file no run got past its start: every run said so with its exit code (run again later).
  const unfinishedPeople = [...people].filter(
    (p) => !pushed.has(p) && !h.pushes.uncertain.has(p) && (h.pushes.unfinished?.has(p) ?? false),
  ).length;
  const notPushed = [...people]
    .filter((p) => !pushed.has(p) && !h.pushes.uncertain.has(p) && !(h.pushes.unfinished?.has(p) ?? false))
    .map((p) => `+${p}`);
  const pushedStranger = [...pushed.keys()].filter((p) => !people.has(p)).map((p) => `+${p}`);
  broke('people pushed more than once', pushedTwice);
  broke('people never pushed and not named uncertain or failed', notPushed);
  broke('pushes to no one in the files', pushedStranger);

  // Reports equal the truth (objects compared whatever their keys' order).
  const canonical = (v) =>
    JSON.stringify(
      v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
    );
  const reportDiffs = [];
  for (const r of h.reports) {
    for (const [k, v] of Object.entries(r.want)) {
      const g = canonical(r.got?.[k]);
      if (g !== canonical(v)) reportDiffs.push(`${r.what} ${k}: report ${g}, truth ${JSON.stringify(v)}`);
    }
  }
  broke('report numbers other than the truth', reportDiffs);
  broke('secrets found', h.secrets, (s) => `${s.secret} in ${s.where}`);
  broke(
    'faults that could not be injected',
    h.faults.filter((f) => f.error),
    (f) => `${f.kind}: ${f.error}`,
  );

  const lost = lostInStore.length + notForwarded.length;
  const duplicates = storedTwice.length + forwardedTwice.length + twice.length + pushedTwice.length;
  const counts = {
    seed: h.seed,
    notificationsSent: h.truth.notifications.length,
    attempts: h.truth.notifications.reduce((a, n) => a + n.attempts.length, 0),
    answered200: delivered.length,
    givenUp: h.truth.notifications.filter((n) => n.gaveUp).length,
    stored: accepted.size,
    storedRetries: retries,
    forwarded: eventIdsOf.size,
    forwardRepeatsDropped: repeatsDropped,
    duplicates,
    lost,
    rowsSent: rowKeys.size,
    rowsReceived: [...got.keys()].filter((c) => rowKeys.has(c)).length,
    rowsUncertain: uncertainRows,
    rowsUnfinished: unfinishedRows,
    peopleUnfinished: unfinishedPeople,
    rowsResentByCaseid: resentByCaseid,
    people: people.size,
    peoplePushed: pushed.size,
    peopleUncertain: h.pushes.uncertain.size,
    calls: h.truth.calls.length,
    reportsChecked: h.reports.length,
    faults: h.faults.length,
    receiverCrashes: (h.crashes ?? []).length,
  };
  return { ok: problems.length === 0, problems, counts, table: table(counts, h.faults) };
}

/** The day's table: one line per count, then the faults by kind. */
export function table(c, faults) {
  const byKind = new Map();
  for (const f of faults) tally(byKind, f.kind);
  const rows = [
    ['notifications sent', c.notificationsSent],
    ['  attempts', c.attempts],
    ['  answered 200', c.answered200],
    ['  given up by the service (no 200 in 6 attempts)', c.givenUp],
    ['  stored (new events)', c.stored],
    ['  stored retries', c.storedRetries],
    ['  forwarded (by event id)', c.forwarded],
    ['  forward repeats dropped by the app', c.forwardRepeatsDropped],
    ['  duplicates', c.duplicates],
    ['  lost', c.lost],
    ['contact rows sent', c.rowsSent],
    ['  received', c.rowsReceived],
    ['  uncertain (named)', c.rowsUncertain],
    ['  not sent: no run finished (exit shown)', c.rowsUnfinished],
    ['  resent by caseid', c.rowsResentByCaseid],
    ['people in push files', c.people],
    ['  pushed', c.peoplePushed],
    ['  uncertain or failed (named)', c.peopleUncertain],
    ['  not sent: no run got past its start (exit shown)', c.peopleUnfinished],
    ['calls made', c.calls],
    ['reports checked', c.reportsChecked],
    ['receiver exits not injected', c.receiverCrashes],
    ['faults injected', c.faults],
    ...[...byKind].map(([k, n]) => [`  ${k}`, n]),
  ];
  const w = Math.max(...rows.map(([k]) => k.length));
  return [`campaign day, seed ${c.seed}`, ...rows.map(([k, v]) => `${k.padEnd(w)}  ${String(v).padStart(9)}`)].join(
    '\n',
  );
}
