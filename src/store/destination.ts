import { createHash } from 'node:crypto';

/**
 * Where a piece of work goes, as every record about it is keyed (README,
 * "Reaching people safely"): the same file to the same workflow id on another service or account
 * is other work, and so is a push to another flex route. `text` is shown and stored (it holds no
 * secret: a sign key enters only as a hash); `id` is a short hash of it for names.
 */
export interface Destination {
  kind: 'cloud' | 'push' | 'template';
  text: string;
  id: string;
}

/**
 * One spelling for one address: scheme and host in lower case, `localhost` and `[::1]` as
 * 127.0.0.1, no default port, no trailing slash, no empty path segments.
 */
export function normaliseUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url.trim().replace(/\/+$/, '');
  }
  const host = u.hostname === 'localhost' || u.hostname === '[::1]' ? '127.0.0.1' : u.hostname;
  const path = u.pathname.replace(/\/{2,}/g, '/').replace(/\/+$/, '');
  return `${u.protocol}//${host}${u.port ? `:${u.port}` : ''}${path}${u.search}`;
}

const hash = (text: string, length: number) => createHash('sha256').update(text).digest('hex').slice(0, length);

function destination(kind: Destination['kind'], text: string): Destination {
  return { kind, text, id: hash(text, 12) };
}

/** The cloud endpoints of one service and account: the base URL and the APPKey (list updates). */
export function cloudDestination(baseUrl: string, appKey: string): Destination {
  return destination('cloud', `cloud ${normaliseUrl(baseUrl)} account ${appKey.normalize('NFKC').trim()}`);
}

/** A direct call-push route: its address and environment (live or test). */
export function pushDestination(flexUrl: string, environment: 'live' | 'test'): Destination {
  return destination('push', `push ${environment} ${normaliseUrl(flexUrl)}`);
}

/**
 * The template endpoint of a service under one API key (X-Service-Sign-Key, a secret: only its
 * hash is kept), for one template: another template is another message.
 */
export function templateDestination(baseUrl: string, signKey: string, templateId: number): Destination {
  return destination(
    'template',
    `template ${normaliseUrl(baseUrl)} key ${hash(`callctl sign key\0${signKey}`, 16)} template ${templateId}`,
  );
}
