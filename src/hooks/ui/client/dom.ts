// What the inspector's modules share: building elements (text always as text), the API, the address.

import type { EventRow } from '../../event-row.js';

export type Row = EventRow;
export interface ListAnswer {
  events: Row[];
  newest: string;
  more: boolean;
}
export interface Detail {
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

/** An element with attributes and children (strings become text nodes). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | boolean> = {},
  ...children: Array<Node | string | undefined | Array<Node | string>>
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false) continue;
    e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) if (c !== undefined) e.append(...(Array.isArray(c) ? c : [c]));
  return e;
}

/**
 * Text that may break after `.`, `-`, `:` and `/` (`workflow.<wbr>api_push`): a narrow column
 * wraps an id or a type at its parts before it breaks anywhere.
 */
export function breakable(text: string): Array<Node | string> {
  return text.split(/(?<=[.\-:/])/).flatMap((part, i) => (i ? [document.createElement('wbr'), part] : [part]));
}

export const params = () => new URLSearchParams(location.search);

/** The address's query with one parameter set (or removed). */
export function withParam(name: string, value: string | undefined): string {
  const p = params();
  if (value === undefined) p.delete(name);
  else p.set(name, value);
  return p.toString();
}

/** A GET or POST of the API; an answer other than 2xx throws its `error`. */
export async function getJson<T>(url: string, init?: RequestInit): Promise<T> {
  const res = await fetch(url, { credentials: 'same-origin', ...init });
  const body = (await res.json().catch(() => ({}))) as T & { error?: string };
  if (!res.ok) throw new Error(body.error ?? `HTTP ${res.status}`);
  return body;
}
