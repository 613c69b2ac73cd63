import { ProxyAuthError } from '../errors.js';
import { named, Said, said } from '../said.js';

/**
 * The proxies of the environment, read as undici's EnvHttpProxyAgent reads them, so that a
 * message can name the proxy a request went through and the variable that set it (README,
 * "Proxies"). callctl hands the agent these very values, so the two never disagree.
 */

/** A proxy's address as set, and the variable it came from. */
export interface ProxySetting {
  url: string;
  variable: string;
}

export interface Proxies {
  /** For http:// addresses: HTTP_PROXY or http_proxy. */
  http?: ProxySetting;
  /** For https:// addresses: HTTPS_PROXY or https_proxy, else the http one (as undici does). */
  https?: ProxySetting;
  /** NO_PROXY or no_proxy: hosts reached directly. */
  noProxy?: ProxySetting;
}

/** The variables a proxy is read from: callctl's own words where a message names one. */
const VARIABLES = new Set(['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'NO_PROXY', 'no_proxy']);
const variable = (setting: ProxySetting) => named(setting.variable, VARIABLES);

/** The first of `names` set to a non-empty value. */
function fromEnv(env: Record<string, string | undefined>, ...names: string[]): ProxySetting | undefined {
  for (const variable of names) {
    const url = env[variable];
    if (url) return { url, variable };
  }
  return undefined;
}

/** The proxy variables of `env` (upper case before lower case). */
export function proxiesOf(env: Record<string, string | undefined>): Proxies {
  const http = fromEnv(env, 'HTTP_PROXY', 'http_proxy');
  const https = fromEnv(env, 'HTTPS_PROXY', 'https_proxy') ?? http;
  const noProxy = fromEnv(env, 'NO_PROXY', 'no_proxy');
  return { ...(http ? { http } : {}), ...(https ? { https } : {}), ...(noProxy ? { noProxy } : {}) };
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/**
 * The proxy a request to `url` goes through, or undefined for a direct connection; `bypass` is
 * set when NO_PROXY is why. The rules are EnvHttpProxyAgent's (undici 7): NO_PROXY `*` bypasses
 * every host; an entry matches the host or any subdomain (a leading `.` or `*.` ignored), and,
 * with a `:port`, only that port.
 */
export function proxyFor(proxies: Proxies, url: string): { proxy?: ProxySetting; bypass?: ProxySetting } {
  const target = new URL(url);
  const proxy = target.protocol === 'https:' ? proxies.https : proxies.http;
  if (!proxy) return {};
  const host = target.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number.parseInt(target.port, 10) || DEFAULT_PORTS[target.protocol] || 0;
  const noProxy = proxies.noProxy;
  if (noProxy && bypassed(noProxy.url, host, port)) return { bypass: noProxy };
  return { proxy };
}

function bypassed(value: string, host: string, port: number): boolean {
  if (value === '*') return true;
  for (const entry of value.split(/[,\s]/)) {
    if (!entry) continue;
    const m = /^(.+):(\d+)$/.exec(entry);
    const name = (m ? m[1]! : entry).replace(/^\*?\./, '').toLowerCase();
    if (m && Number.parseInt(m[2]!, 10) !== port) continue;
    if (host === name || host.endsWith(`.${name}`)) return true;
  }
  return false;
}

/** A proxy's address as shown: its password (if any) as `***`, no path. */
export function shownProxy(url: string): string {
  try {
    const u = new URL(url);
    const user = u.username ? `${u.username}${u.password ? ':***' : ''}@` : '';
    return `${u.protocol}//${user}${u.host}`;
  } catch {
    return '(an address that is not a URL)';
  }
}

/** The passwords of the proxies' addresses: never printed, even by -v. */
export function proxyPasswords(proxies: Proxies): string[] {
  const passwords: string[] = [];
  for (const p of [proxies.http, proxies.https]) {
    try {
      const password = p && new URL(p.url).password;
      if (password) passwords.push(password, decodeURIComponent(password));
    } catch {
      // Not a URL: undici refuses it when the agent is made, and that error names it.
    }
  }
  return passwords;
}

/** `the proxy http://host:port (from HTTPS_PROXY)`. */
export function proxyName(proxy: ProxySetting): Said {
  return said`the proxy ${shownProxy(proxy.url)} (from ${variable(proxy)})`;
}

/**
 * The status a proxy answered a tunnel (CONNECT) with, when that is why an attempt failed:
 * undici says `Proxy response (407) !== 200 when HTTP Tunneling`.
 */
export function tunnelStatus(error: unknown): number | undefined {
  const e = error as { message?: unknown; cause?: { message?: unknown } };
  const text = `${String(e?.message ?? '')} ${String(e?.cause?.message ?? '')}`;
  const m = /Proxy response \((\d{3})\) !== 200 when HTTP Tunneling|Proxy Authentication Required \((407)\)/.exec(text);
  return m ? Number(m[1] ?? m[2]) : undefined;
}

/** A proxy that refused its credentials (407): not transient, nothing reached the service (exit 4). */
export function proxyAuthError(endpoint: string, proxy: ProxySetting): ProxyAuthError {
  const hasUser = (() => {
    try {
      return new URL(proxy.url).username !== '';
    } catch {
      return false;
    }
  })();
  const fix = hasUser
    ? said`check the user name and password in ${variable(proxy)}`
    : said`put them in ${variable(proxy)}, before its host: user:password@host:port`;
  const refused = hasUser ? said`the credentials it was given` : said`to pass a request without credentials`;
  return new ProxyAuthError(
    said`${endpoint}: ${proxyName(proxy)} refused ${refused} (HTTP 407, Proxy Authentication Required): ${fix}; nothing was sent`,
    { endpoint, proxy: shownProxy(proxy.url), variable: proxy.variable, proxyStatus: 407 },
  );
}

/** What -v says of the way to `url`: through which proxy, or direct and why; nothing without proxies. */
export function routeNote(proxies: Proxies, url: string): string | undefined {
  if (!proxies.http && !proxies.https) return undefined;
  const { proxy, bypass } = proxyFor(proxies, url);
  if (proxy) return `through ${proxyName(proxy)}`;
  const target = new URL(url);
  if (bypass) return `direct, not through a proxy: ${target.hostname} is in ${bypass.variable}`;
  return `direct, not through a proxy: none is set for ${target.protocol}// (HTTP_PROXY, http_proxy)`;
}

/**
 * A failed attempt through a proxy, in words: at the proxy (it could not be reached, or refused
 * the tunnel), or beyond it, at the service; both addresses named, and where each came from.
 */
export function throughProxy(o: {
  what: Said;
  advice?: Said | undefined;
  proxy: ProxySetting;
  service: Said;
  atProxy: boolean;
}): Said {
  if (!o.atProxy) return said`${o.what} at ${o.service}, through ${proxyName(o.proxy)}`;
  const notes = Said.join([said`from ${variable(o.proxy)}`, ...(o.advice ? [o.advice] : [])], said`; `);
  return said`${o.what} at the proxy ${shownProxy(o.proxy.url)} (${notes}), on the way to ${o.service}`;
}
