import type { Delivery } from '../api/deliver.js';
import { nothingSent } from '../errors.js';
import type { Destination } from '../store/destination.js';
import { openLedger, RECALL_WINDOW_MS } from '../store/ledger.js';
import { Journal, type JournalKey, type RowState } from '../store/row-journal.js';
import type { Store } from '../store/store.js';
import { selectRows, type RowSelection, type SendRow } from './rows.js';

/** One CSV send, as a dry run reads what earlier runs left of it: where it goes and its rows. */
export interface SendWork<B> {
  key: JournalKey;
  /** The input file's absolute path. */
  file: string;
  rows: SendRow<B>[];
}

/** The ledger's rules and the journal's, as the flags set them. */
export interface SendRules {
  resendUncertain: boolean;
  retryFailed: boolean;
  /** Reach people the ledger says were reached through this destination within the window. */
  callAgain: boolean;
  /** ms (default 24 h; 0: no ledger check). */
  recallWindowMs?: number;
  now(): number;
}

/** A row the ledger keeps from being sent: its person was reached through the destination at `reachedAt`. */
export interface LedgerSkip {
  row: number;
  line: number;
  who: string;
  reachedAt: string;
}

/** Why a row is skipped by the ledger, for results and messages (the core names no flag). */
export const REACHED_BEFORE = 'already reached through this destination';

/**
 * What a run would do now, read without taking a lock or writing anything (`--dry-run`): the
 * selection and the rows the ledger would skip.
 */
export async function peekSend<B>(
  store: Store,
  work: SendWork<B>,
  rules: SendRules,
): Promise<{ selection: RowSelection; skipped: LedgerSkip[] }> {
  const states = await Journal.peek(await store.journals('reach'), work.key);
  const selection = selectRows(work.rows, states, rules);
  const lastReached = await (await store.ledgers()).peek(work.key.destination.text);
  const skipped = ledgerSkips(work.rows, lastReached, states, rules);
  selection.toSend = selection.toSend.filter((n) => !skipped.some((s) => s.row === n));
  return { selection, skipped };
}

/**
 * Rows whose person was reached through this destination within the window, unless `callAgain`
 * or a window of 0. Rows this file's journal knows (uncertain, refused) follow the journal's own rules.
 */
export function ledgerSkips(
  rows: readonly SendRow<unknown>[],
  lastReached: (person: string) => string | undefined,
  known: ReadonlyMap<number, RowState>,
  rules: Pick<SendRules, 'callAgain' | 'recallWindowMs' | 'now'>,
): LedgerSkip[] {
  const window = rules.recallWindowMs ?? RECALL_WINDOW_MS;
  if (rules.callAgain || window <= 0) return [];
  const since = rules.now() - window;
  const skips: LedgerSkip[] = [];
  for (const r of rows) {
    const at = lastReached(r.person);
    if (at && Date.parse(at) >= since && !known.has(r.row))
      skips.push({ row: r.row, line: r.line, who: r.who, reachedAt: at });
  }
  return skips;
}

/** One push or template message (no file): the destination's ledger checked and written around it. */
export interface OneSend {
  destination: Destination;
  /** The person's key (src/person.ts). */
  person: string;
}

/** What became of a single send: sent (whatever the answer), or skipped by the ledger. */
export type OneOutcome = { outcome: 'skipped'; reachedAt: string } | { outcome: 'delivered'; delivery: Delivery };

/**
 * When the ledger would skip this person now (read only, for `--dry-run`); undefined when it would not.
 */
export async function peekOne(
  store: Store,
  one: OneSend,
  rules: Omit<SendRules, 'resendUncertain' | 'retryFailed'>,
): Promise<string | undefined> {
  const ledgers = await store.ledgers();
  return within((await ledgers.peek(one.destination.text))(one.person), rules);
}

/**
 * Sends one request to a person through the destination's ledger, under its lock: skipped when
 * the person was reached within the window (unless `callAgain`); else `pending` is committed
 * before the request and cleared when nothing reached them. An answer that never came leaves it
 * pending: the person may have been reached, and no later run reaches them again within the window.
 */
export async function reachOne(
  store: Store,
  one: OneSend,
  rules: Omit<SendRules, 'resendUncertain' | 'retryFailed'>,
  deliver: () => Promise<Delivery>,
): Promise<OneOutcome> {
  const ledger = await openLedger(store, one.destination);
  try {
    const reachedAt = within(ledger.lastReached(one.person), rules);
    if (reachedAt) return { outcome: 'skipped', reachedAt };
    await ledger.pending(one.person, new Date(rules.now()).toISOString());
    let delivery: Delivery;
    try {
      delivery = await deliver();
    } catch (error) {
      // https:// to a plain HTTP server (or the reverse), a proxy's 407: nothing left, as the error says.
      if (nothingSent(error)) await ledger.cleared(one.person, new Date(rules.now()).toISOString());
      throw error;
    }
    if (delivery.outcome === 'failed' || delivery.outcome === 'not-sent')
      await ledger.cleared(one.person, new Date(rules.now()).toISOString());
    return { outcome: 'delivered', delivery };
  } finally {
    await ledger.close();
  }
}

function within(
  at: string | undefined,
  rules: Pick<SendRules, 'callAgain' | 'recallWindowMs' | 'now'>,
): string | undefined {
  const window = rules.recallWindowMs ?? RECALL_WINDOW_MS;
  if (!at || rules.callAgain || window <= 0) return undefined;
  return Date.parse(at) >= rules.now() - window ? at : undefined;
}
