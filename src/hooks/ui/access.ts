import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/*
 * Who may use the inspector. On a loopback address, whoever can reach it (the machine's own
 * users), but only under a loopback host name: a page elsewhere cannot point a DNS name at
 * 127.0.0.1 and read the events through the visitor's browser. On any other address, a token,
 * carried by every request: the printed address holds it once, the first page load turns it into
 * a cookie (HttpOnly, SameSite=Strict) and drops it from the address bar; scripts may send it as
 * `Authorization: Bearer`. The token in an address always wins over a cookie and replaces it: a
 * browser keeps the cookie of an earlier start (the token changes every start), and cookies are
 * not kept apart by port, so each inspector's cookie is named by its port. Actions are POSTs
 * carrying the page's CSRF token in a header, which a page of another origin cannot set.
 */

/** The cookie that carries the token of the inspector on `port` (two on one host keep theirs apart). */
const cookieName = (port: number) => `callctl_inspector_${port}`;

/** Whether `host` is a loopback address (the only ones served without a token by default). */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** A fresh random token (URL-safe). */
export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The host (and port) of an Origin header, or undefined when it is no URL. */
function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}

/** Every value of the cookie `name` (a browser may send several, of other paths or hosts). */
function cookies(req: IncomingMessage, name: string): string[] {
  const values: string[] = [];
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) values.push(v.join('='));
  }
  return values;
}

export interface Access {
  /** The token every request must carry, or undefined on loopback without one. */
  token?: string;
  /** The port served (for the loopback host names accepted). */
  port: number;
  /** The CSRF token of this run, given to the page. */
  csrf: string;
}

export type Verdict = 'ok' | { status: number; message: string } | { redirect: string };

/** Whether a request may be answered, before anything is read for it. */
export function admit(req: IncomingMessage, url: URL, access: Access): Verdict {
  if (access.token === undefined) {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '').replace(/^\[(.*)\]$/, '$1');
    if (!isLoopback(host)) return { status: 403, message: 'this inspector answers only at a loopback address' };
  } else {
    const refused = { status: 401, message: 'give the token: open the address callctl printed (it carries it)' };
    const { token } = access;
    const inAddress = url.searchParams.get('token');
    if (inAddress !== null) {
      if (!same(inAddress, token)) return refused;
      const rest = new URL(url);
      rest.searchParams.delete('token');
      return { redirect: `${rest.pathname}${rest.search}` };
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (
      !(bearer !== undefined && same(bearer, token)) &&
      !cookies(req, cookieName(access.port)).some((c) => same(c, token))
    )
      return refused;
  }
  if (req.method === 'POST') {
    const csrf = req.headers['x-csrf-token'];
    if (typeof csrf !== 'string' || !same(csrf, access.csrf))
      return { status: 403, message: 'missing or wrong CSRF token: reload the page' };
    const origin = req.headers.origin;
    if (origin !== undefined) {
      // `null` is a page without an origin of its own (a sandboxed frame, a file): another one.
      const host = origin === 'null' ? null : hostOf(origin);
      if (host === undefined) return { status: 400, message: 'malformed Origin header' };
      if (host !== req.headers.host) return { status: 403, message: 'a request from another origin' };
    }
  }
  return 'ok';
}

/** Sets the cookie that carries the token (when there is one) and redirects. */
export function redirectWithCookie(res: ServerResponse, access: Access, to: string): void {
  res.writeHead(303, {
    location: to,
    ...(access.token
      ? { 'set-cookie': `${cookieName(access.port)}=${access.token}; HttpOnly; SameSite=Strict; Path=/` }
      : {}),
    'cache-control': 'no-store',
  });
  res.end();
}
