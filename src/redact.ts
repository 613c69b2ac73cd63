/**
 * The one redaction of callctl. Every secret the run learns (token, APPSecret, push tokens, sign
 * key and secret, hook KEYs, chatbot secret, passwords in URLs) is added to the registry of this
 * process, and every writer of text that leaves the process (errors, human and `--json`; `--verbose`;
 * results, rejects and journal files; serve-hooks' event log) passes its text through `redact`
 * or `redactValues` just before writing it. A secret is replaced in every spelling it can take
 * there, each character spelled its own way (charSpellings): as is, JSON-escaped once or more
 * (`\/`, `\u00e9`, `\"`: PHP's json_encode escapes `/` and non-ASCII), URL-encoded and
 * HTML-escaped; a CSV field doubles quotes, which the JSON and HTML spellings of `"` do not
 * cover, so that form is matched too.
 *
 * The registry lives as long as the process: a CLI run is one process. Tests that run many
 * commands in one process only get more redaction, never less.
 */

import type { Said } from './said.js';

export const REDACTED = '***';

/** Header names whose values are never shown or recorded. */
export const SECRET_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'x-service-sign',
  'x-service-sign-key',
  'cookie',
  'set-cookie',
]);

/**
 * Header names that look like they carry a credential, whatever the sender calls them
 * (`X-Api-Key`, `X-Auth-Token`, `X-Webhook-Secret`, `X-Signature`...): their values are never
 * shown or recorded either. One hyphen- or underscore-separated word of the name decides.
 */
const SECRET_HEADER_WORDS =
  /(?:^|[-_])(?:api[-_]?key|key|token|secret|password|passwd|auth|signature|sign|session|cookie|credentials?)(?:$|[-_])/i;

/** True for a header whose value is a secret: a known one, or one named like a credential. */
export function isSecretHeader(name: string): boolean {
  let secret = seenHeaders.get(name);
  if (secret === undefined) {
    const lower = name.toLowerCase();
    secret = SECRET_HEADERS.has(lower) || SECRET_HEADER_WORDS.test(lower);
    // Every notification carries the same few names: each is judged once (bounded, as anyone
    // can send any name).
    if (seenHeaders.size < 1_000) seenHeaders.set(name, secret);
  }
  return secret;
}
const seenHeaders = new Map<string, boolean>();

/**
 * JSON keys whose values are never shown (for display text only, not for records kept as data:
 * a plan-end body's `Sign` must stay in the event log for replay). The value pattern follows JSON
 * string escapes, so a secret holding `\"` is replaced whole.
 */
const SECRET_JSON_KEYS = /"(APPSecret|token|push_token|Sign|sign|secret|password)"(\s*:\s*)"(?:[^"\\]|\\.)*"/g;

/**
 * `scheme://user:password@` in a URL: the password is a secret, the user name is not
 * (`ssh://git@host` is shown as it is).
 */
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/?#@:"'<>\\]*:)([^\s/?#@"'<>\\]+)@/gi;

/** Shorter values would redact ordinary words; callctl's secrets are longer. */
const MIN_LENGTH = 4;

/** Every secret value known to this process, matched in every spelling it can take in output. */
class SecretRegistry implements Iterable<string> {
  private readonly values = new Set<string>();
  /** One pattern for every spelling of every secret, longest secret first. */
  private pattern: RegExp | undefined;
  /** What an escaped spelling of a character may begin with: `\` `%` `&`, and `+` or `""` when a secret needs them. */
  private escapeStarts: string[] = [];

  add(value: string | undefined): void {
    if (!value || value.length < MIN_LENGTH || this.values.has(value)) return;
    this.values.add(value);
    this.compile();
  }

  private compile(): void {
    const values = [...this.values];
    this.pattern = values.length ? spellings(values) : undefined;
    // Every spelling of a character but itself begins with \ % or &, a space's with +, a quote's with "".
    this.escapeStarts = ['\\', '%', '&'];
    if (values.some((v) => v.includes(' '))) this.escapeStarts.push('+');
    if (values.some((v) => v.includes('"'))) this.escapeStarts.push('""');
  }

  /**
   * Whether `text` may hold a spelling of a secret, told without running the pattern (a tenth of
   * the time on a large `--json`): with none of the characters an escaped spelling begins with,
   * only a secret as it is could be there.
   */
  mayBeIn(includes: (part: string) => boolean): boolean {
    for (const start of this.escapeStarts) if (includes(start)) return true;
    for (const value of this.values) if (includes(value)) return true;
    return false;
  }

  has(value: string): boolean {
    return this.values.has(value);
  }

  get size(): number {
    return this.values.size;
  }

  /**
   * Forgets the secrets added after the registry held `mark` of them. For a process that runs many
   * commands one after another (the tests: test/helpers/secrets-per-test.ts): one pattern over
   * hundreds of secrets is too large for V8 to compile, and every write then crawled.
   */
  truncate(mark: number): void {
    if (mark >= this.values.size) return;
    const kept = [...this.values].slice(0, mark);
    this.values.clear();
    for (const v of kept) this.values.add(v);
    this.compile();
  }

  [Symbol.iterator](): Iterator<string> {
    return this.values.values();
  }

  /** Replaces every spelling of every secret (but the stretches `keep` keeps). */
  replace(text: string, keep?: Keep): string {
    return this.pattern && this.mayBeIn((part) => text.includes(part))
      ? replaceCovered(text, this.pattern, keep)
      : text;
  }
}

/** A hex number in either case, as escapes may write it (`e9` or `E9`). */
const hexCase = (n: number, width = 2) =>
  n
    .toString(16)
    .padStart(width, '0')
    .replace(/[a-f]/g, (d) => `[${d}${d.toUpperCase()}]`);

/** HTML's names of ASCII characters, HTML5's among them (PHP's `htmlentities(..., ENT_HTML5)` writes `&sol;`). */
const HTML_NAMES: Record<string, string> = Object.fromEntries([
  ['\t', 'Tab'],
  ['\n', 'NewLine'],
  ...'&amp|AMP <lt|LT >gt|GT "quot|QUOT \'apos !excl #num $dollar %percnt (lpar )rpar *ast|midast +plus ,comma .period /sol :colon ;semi =equals ?quest @commat [lsqb|lbrack \\bsol ]rsqb|rbrack ^Hat _lowbar|UnderBar `grave|DiacriticalGrave {lcub|lbrace ||verbar|vert|VerticalLine }rcub|rbrace'
    .split(' ')
    .map((e) => [e[0]!, e.slice(1)]),
]);
/** HTML's names of U+00A0 to U+00FF, in order (PHP's htmlentities writes `&eacute;`). */
const LATIN1_NAMES = (
  'nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 ' +
  'acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave Aacute Acirc Atilde Auml ' +
  'Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde ' +
  'Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml aring aelig ' +
  'ccedil egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide ' +
  'oslash ugrave uacute ucirc uuml yacute thorn yuml'
).split(' ');
/** JSON's short escapes: the letter after the backslash. */
const JSON_SHORT: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  '\b': 'b',
  '\f': 'f',
  '\n': 'n',
  '\r': 'r',
  '\t': 't',
};

/**
 * The backslashes before an escape, escaped up to six times (32 of them). Bounded: unbounded runs
 * tried against each other at every place of a long run of backslashes took seconds (4,000 of
 * them: 3.9 s for one text, where a webhook's body can hold any number).
 */
const DEPTH = 32;
const BACKSLASHES = `\\\\{1,${DEPTH}}`;

const literal = (text: string) => text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');

/**
 * The pattern of one character in every spelling a writer may give it, each character spelled on
 * its own: as is; JSON-escaped (`\u00e9` in either case, a surrogate pair beyond the BMP, `\/`,
 * `\"`, `\n`), once or more (the backslashes doubled by each JSON string around it); URL-encoded
 * (`%C3%A9` in either case, `+` for a space); HTML-escaped (`&#233;`, `&#xE9;`, `&amp;`); a quote
 * doubled (a CSV field).
 */
function charSpellings(ch: string): string {
  const cp = ch.codePointAt(0)!;
  const units = cp > 0xffff ? [ch.charCodeAt(0), ch.charCodeAt(1)] : [cp];
  const alts = [
    units.map((u) => `${BACKSLASHES}u${hexCase(u, 4)}`).join(''),
    [...Buffer.from(ch, 'utf8')].map((b) => `%${hexCase(b)}`).join(''),
    `&#0*${cp};`,
    `&#[xX]0*${hexCase(cp, 1)};`,
  ];
  const short = JSON_SHORT[ch];
  // A backslash escaped k times is 2^k of them: taken in pairs, so that the backslash of an
  // escape after it (`\\\"` is a backslash and a quote) is left to that escape.
  if (ch === '\\') alts.push(`(?:\\\\\\\\){1,${DEPTH / 2}}`);
  else if (short !== undefined) alts.push(`${BACKSLASHES}${literal(short)}`);
  const named = HTML_NAMES[ch] ?? (cp >= 0xa0 && cp <= 0xff ? LATIN1_NAMES[cp - 0xa0] : undefined);
  if (named) alts.push(`&(?:${named});`);
  if (ch === ' ') alts.push('\\+');
  if (ch === '"') alts.push('""');
  // The character as is comes last: an escape that begins with it (`&#38;`, `\\`, `%25`) is
  // taken whole, not cut after its first character.
  alts.push(literal(ch));
  return `(?:${alts.join('|')})`;
}

/** One pattern matching every spelling of any of `values` (longest first: a longer secret before a part of it). */
function spellings(values: string[]): RegExp {
  const sorted = [...values].sort((a, b) => b.length - a.length);
  return new RegExp(sorted.map((v) => [...v].map(charSpellings).join('')).join('|'), 'g');
}

/**
 * Replaces each stretch of `text` that spellings of a secret cover, spellings that overlap as one
 * stretch. The first spelling found may begin in the text before a secret (a space before
 * `\u0020\u0020\u0020\u005c`, for a secret of three spaces and a backslash) and end inside its
 * real spelling: replacing only that one would show the rest.
 */
function replaceCovered(text: string, pattern: RegExp, keep?: Keep): string {
  pattern.lastIndex = 0;
  let m = pattern.exec(text);
  if (!m) return text;
  let out = '';
  let last = 0;
  while (m) {
    const start = escapeStart(text, m.index, last);
    let end = m.index + m[0].length;
    for (let was = -1; end !== was; end = escapeEnd(text, end)) {
      was = end;
      // Every spelling that begins inside this stretch extends it.
      for (pattern.lastIndex = start + 1; (m = pattern.exec(text)) && m.index < end; pattern.lastIndex = m.index + 1)
        end = Math.max(end, m.index + m[0].length);
    }
    out += keep?.(start, end) ? text.slice(last, end) : `${text.slice(last, start)}${REDACTED}`;
    last = end;
  }
  return out + text.slice(last);
}

/** How many backslashes come right before `at` (not before `from`). */
function backslashesBefore(text: string, at: number, from = 0): number {
  let n = 0;
  while (at - n - 1 >= from && text.charCodeAt(at - n - 1) === 0x5c) n++;
  return n;
}

/**
 * Where a stretch beginning at `at` must begin so that no escape is left cut in the text before
 * it (a backslash, or `\u` and some of its digits): a JSON text stays JSON once redacted.
 */
function escapeStart(text: string, at: number, from: number): number {
  let digits = 0;
  while (digits < 4 && at - digits - 1 >= from && /[0-9a-fA-F]/.test(text[at - digits - 1]!)) digits++;
  const u = at - digits - 1;
  if (digits < 4 && u > from && text[u] === 'u' && backslashesBefore(text, u, from) % 2) return u - 1;
  return backslashesBefore(text, at, from) % 2 ? at - 1 : at;
}

/**
 * Where a stretch ending at `at` must end so that what follows is read as before: a run of
 * backslashes it cut must leave the escape after it whole (taken in, or left as it was).
 */
function escapeEnd(text: string, at: number): number {
  let after = 0;
  while (text.charCodeAt(at + after) === 0x5c) after++;
  const run = after + backslashesBefore(text, at);
  if (run % 2 === after % 2) return at;
  // The run's last backslash escaped what follows: that escape is taken in whole.
  if (run % 2) return at + after + 1 + (text[at + after] === 'u' ? 4 : 0);
  // What follows was not escaped: the backslash left alone would escape it.
  return at + 1;
}

/** The secrets of this process. `Context.addSecret` and the commands that read a secret add to it. */
export const secrets = new SecretRegistry();

/** Adds a secret (and, for a URL, the password inside it) to the registry. */
export function addSecret(value: string | undefined): void {
  secrets.add(value);
}

/** Adds the password inside a URL (`https://user:password@host`), if any; a user name is no secret. */
export function addUrlSecrets(url: string | undefined): void {
  if (!url) return;
  for (const m of url.matchAll(URL_PASSWORD)) {
    const secret = m[2]!;
    addSecret(secret);
    try {
      addSecret(decodeURIComponent(secret));
    } catch {
      // not percent-encoded
    }
  }
}

/** Whether the stretch `[start, end)` of a text is kept as it is (it is callctl's own words). */
type Keep = (start: number, end: number) => boolean;

/**
 * For display text (errors, warnings, `--verbose`, results): every known secret in each of its
 * forms, the values of secret JSON keys, and passwords inside URLs. `extra` adds values for this
 * call only. Of a message built with `said` (src/said.ts), only what came from outside is
 * rewritten: a stretch that spells a secret is replaced when any character of it is outside text,
 * and callctl's own words around it are shown as written.
 */
export function redact(text: string | Said, extra: Iterable<string | undefined> = []): string {
  const more = [...extra].filter((v): v is string => !!v && v.length >= MIN_LENGTH && !secrets.has(v));
  if (typeof text === 'string') return redactSecrets(redactPatterns(text), more);
  // The patterns are of outside text alone (source code holds no password or secret JSON value);
  // a secret is looked for in the whole, so that one begun in callctl's words and ended outside
  // them is caught, and kept only when it lies in callctl's words whole.
  const parts = text.parts.map((p, i) => (i % 2 ? redactPatterns(p) : p));
  const own: Array<[number, number]> = [];
  let at = 0;
  parts.forEach((p, i) => {
    if (i % 2 === 0) own.push([at, at + p.length]);
    at += p.length;
  });
  const keep: Keep = (start, end) => own.some(([from, to]) => from <= start && end <= to);
  return redactSecrets(parts.join(''), more, keep);
}

/** The values of secret JSON keys and the passwords of URLs. */
function redactPatterns(text: string): string {
  return redactUrls(text).replace(
    SECRET_JSON_KEYS,
    (_m, key: string, colon: string) => `"${key}"${colon}"${REDACTED}"`,
  );
}

/** Every known secret, and `more` for this call; positions in `text` are the ones `keep` is asked of. */
function redactSecrets(text: string, more: string[], keep?: Keep): string {
  if (!more.length) return secrets.replace(text, keep);
  return replaceCovered(text, spellings([...secrets, ...more]), keep);
}

/**
 * For records kept as data (journals, serve-hooks' event log): only the known secret values, so
 * that the rest of a record (a plan end's `Sign`, a body to replay) stays as it came.
 */
export function redactValues(text: string): string {
  return secrets.size === 0 ? text : secrets.replace(redactUrls(text));
}

/** `scheme://user:password@host` -> `scheme://user:***@host`; `scheme://user@host` stays as it is. */
export function redactUrls(text: string): string {
  // The pattern needs "://" and "@": most texts (every header of a notification) have neither,
  // and a plain includes() is far cheaper than running the pattern (serve-hooks runs this per header).
  if (!text.includes('://') || !text.includes('@')) return text;
  return text.replace(URL_PASSWORD, (_m, user: string) => `${user}${REDACTED}@`);
}

/** A header as it may be shown: secret headers keep only their scheme (`Token ***`). */
export function redactHeader(name: string, value: string, extra: Iterable<string | undefined> = []): string {
  if (isSecretHeader(name)) {
    const scheme = /^(Token|Bearer|Basic) /i.exec(value)?.[1];
    return scheme ? `${scheme} ${REDACTED}` : REDACTED;
  }
  return redact(value, extra);
}

/** Headers as they are recorded: secret values replaced, repeated headers joined, known secrets removed. */
export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = isSecretHeader(name) ? REDACTED : redactedValue(Array.isArray(value) ? value.join(', ') : value);
  }
  return out;
}

/**
 * redactValues for a header value, remembered: serve-hooks sees the same few values (host,
 * content type, user agent) on every request. Bounded, and forgotten when a secret is added.
 */
function redactedValue(value: string): string {
  if (value.length > 200) return redactValues(value);
  if (seenValuesFor !== secrets.size || seenValues.size >= 1_000) {
    seenValues.clear();
    seenValuesFor = secrets.size;
  }
  let out = seenValues.get(value);
  if (out === undefined) seenValues.set(value, (out = redactValues(value)));
  return out;
}
const seenValues = new Map<string, string>();
let seenValuesFor = -1;
