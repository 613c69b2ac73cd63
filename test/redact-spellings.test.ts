import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addSecret, REDACTED, redact, redactValues, secrets } from '../src/redact.js';

/** Each way a writer may spell one character (undefined where it has no such spelling). */
const hex = (n: number, w: number) => n.toString(16).padStart(w, '0');
const units = (ch: string) => [...Array(ch.length).keys()].map((i) => ch.charCodeAt(i));
const SHORT: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', '\n': 'n', '\t': 't', '\r': 'r' };
// HTML5's names too (PHP's htmlentities with ENT_HTML5): `&sol;`, `&plus;`, `&bsol;`, `&percnt;`.
const NAMED: Record<string, string> = {
  '&': 'amp',
  '<': 'lt',
  '>': 'gt',
  '"': 'quot',
  "'": 'apos',
  é: 'eacute',
  '/': 'sol',
  '+': 'plus',
  '\\': 'bsol',
  '%': 'percnt',
};
const CHAR_SPELLINGS: Array<(ch: string) => string | undefined> = [
  (ch) => ch,
  (ch) =>
    units(ch)
      .map((u) => `\\u${hex(u, 4)}`)
      .join(''),
  (ch) =>
    units(ch)
      .map((u) => `\\u${hex(u, 4).toUpperCase()}`)
      .join(''),
  (ch) =>
    units(ch)
      .map((u) => `\\\\u${hex(u, 4)}`)
      .join(''), // JSON inside a JSON string
  (ch) => (SHORT[ch] ? `\\${SHORT[ch]}` : undefined),
  (ch) => (SHORT[ch] ? `\\\\\\${SHORT[ch]}` : undefined),
  (ch) => [...Buffer.from(ch)].map((b) => `%${hex(b, 2).toUpperCase()}`).join(''),
  (ch) => [...Buffer.from(ch)].map((b) => `%${hex(b, 2)}`).join(''),
  (ch) => `&#${ch.codePointAt(0)};`,
  (ch) => `&#x${hex(ch.codePointAt(0)!, 1).toUpperCase()};`,
  (ch) => (NAMED[ch] ? `&${NAMED[ch]};` : undefined),
  (ch) => (ch === ' ' ? '+' : undefined),
];

/** Whole-text escapings as libraries write them. */
const WHOLE: Array<[string, (s: string) => string]> = [
  ['raw', (s) => s],
  ['JSON.stringify', (s) => JSON.stringify(s).slice(1, -1)],
  ['JSON twice', (s) => JSON.stringify(JSON.stringify(s).slice(1, -1)).slice(1, -1)],
  [
    "PHP's json_encode",
    (s) =>
      JSON.stringify(s)
        .slice(1, -1)
        .replace(/\//g, '\\/')
        .replace(/[\u0080-\uffff]/g, (c) => `\\u${hex(c.charCodeAt(0), 4)}`),
  ],
  ['encodeURIComponent', (s) => encodeURIComponent(s)],
  ['encodeURI', (s) => encodeURI(s)],
  ['form-urlencoded', (s) => new URLSearchParams({ v: s }).toString().slice(2)],
  [
    'HTML-escaped',
    (s) =>
      s
        .replace(/&/g, '&amp;')
        .replace(/</g, '&lt;')
        .replace(/>/g, '&gt;')
        .replace(/"/g, '&quot;')
        .replace(/'/g, '&#39;'),
  ],
  ['CSV field', (s) => s.replaceAll('"', '""')],
];

/** Secrets of any characters (no lone surrogate: no writer can encode one), at least 4 long. */
const secret = fc
  .string({
    unit: fc.oneof(fc.constantFrom(...'/+"\\&<>\' é%€😀'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })),
    minLength: 4,
    maxLength: 20,
  })
  .filter((s) => s.length >= 4 && !/[\ud800-\udfff]/.test(s.replace(/[\ud800-\udbff][\udc00-\udfff]/g, '')));
/** Text around it that cannot run into an escape. */
const around = fc.string({ unit: fc.constantFrom(...'abc XYZ.:=,'), maxLength: 12 });

/** Each character of `s` spelled its own way, the way `picks` chooses. */
const spellEach = (s: string, picks: number[]) =>
  [...s]
    .map((ch, i) => {
      const options = CHAR_SPELLINGS.map((f) => f(ch)).filter((x): x is string => x !== undefined);
      return options[picks[i % picks.length]! % options.length]!;
    })
    .join('');

/**
 * `out` is `before`, the mark and `after`; where the text around also spells part of the secret
 * (a space before a secret that begins with spaces), the mark may take in those characters too,
 * and only those.
 */
function expectMarked(out: string, before: string, after: string, s: string): void {
  if (out === `${before}${REDACTED}${after}`) return;
  const at = out.indexOf(REDACTED);
  const [head, tail] = [out.slice(0, at), out.slice(at + REDACTED.length)];
  expect(at >= 0 && before.startsWith(head) && after.endsWith(tail), out).toBe(true);
  const afterTaken = after.slice(0, after.length - tail.length);
  const taken = before.slice(head.length) + afterTaken;
  // A secret that ends in a backslash may take in the escape it would begin in JSON text (the
  // character after it, or `u` and four more), so that redacted JSON stays JSON.
  const escape = s.endsWith('\\') && afterTaken.length <= 5;
  expect([...taken].every((c) => s.includes(c)) || escape, out).toBe(true);
}

describe('redaction finds a secret in every spelling (fast-check)', () => {
  it('each character spelled its own way: as is, JSON-escaped (once or twice), URL-encoded, HTML-escaped', () => {
    fc.assert(
      fc.property(
        secret,
        fc.array(fc.nat(), { minLength: 40, maxLength: 40 }),
        around,
        around,
        (s, picks, before, after) => {
          const spelled = spellEach(s, picks);
          const out = redact(`${before}${spelled}${after}`, [s]);
          expectMarked(out, before, after, s);
          // The registry's own pass (redactValues) finds it too, once the secret is known.
          const mark = secrets.size;
          addSecret(s);
          try {
            expectMarked(redactValues(`${before}${spelled}${after}`), before, after, s);
          } finally {
            secrets.truncate(mark);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it.each(WHOLE)('the whole secret as %s writes it', (_name, spell) => {
    fc.assert(
      fc.property(secret, around, around, (s, before, after) => {
        expectMarked(redact(`${before}${spell(s)}${after}`, [s]), before, after, s);
      }),
      { numRuns: 300 },
    );
  });

  // The registry looks for the characters an escape begins with before it runs its pattern: each
  // spelling alone, with nothing else escaped around it, must still be found.
  const registered = (s: string, text: string) => {
    const mark = secrets.size;
    addSecret(s);
    try {
      return redactValues(text);
    } finally {
      secrets.truncate(mark);
    }
  };

  it.each(CHAR_SPELLINGS.map((spell, k) => [k, spell] as const))(
    'the registry finds a secret each of whose characters is spelled one way (way %i), nothing else escaped',
    (_k, spell) => {
      fc.assert(
        fc.property(secret, around, around, (s, before, after) => {
          const spelled = [...s].map((ch) => spell(ch) ?? ch).join('');
          expectMarked(registered(s, `${before}${spelled}${after}`), before, after, s);
        }),
        { numRuns: 200 },
      );
    },
  );

  it.each(WHOLE)('the registry finds the whole secret as %s writes it', (_name, spell) => {
    fc.assert(
      fc.property(secret, around, around, (s, before, after) => {
        expectMarked(registered(s, `${before}${spell(s)}${after}`), before, after, s);
      }),
      { numRuns: 200 },
    );
  });

  it('a spelling that begins in the text before the secret does not leave the rest of the secret shown', () => {
    // fast-check found it: the space before `\u0020\u0020\u0020\u005c` and two of its escapes
    // spell `   \` with the next escape's backslash; replacing only that first stretch showed the
    // secret's last character (`\u005c`). Every stretch a spelling covers is replaced, as one.
    const s = '   \\';
    const text = ' \\u0020\\u0020\\u0020\\u005c';
    expect(registered(s, text)).toBe(REDACTED);
    expect(redact(text, [s])).toBe(REDACTED);
    expect(registered(s, `id=${text}.`)).toBe(`id=${REDACTED}.`);
  });

  it('leaves text without the secret as it was', () => {
    fc.assert(
      fc.property(secret, fc.string({ maxLength: 60 }), (s, text) => {
        fc.pre(!text.includes(s));
        expect(redact(text, [s])).toBe(redact(text));
      }),
      { numRuns: 300 },
    );
  });
});

describe('a registry that forgets what came after a mark', () => {
  it('keeps the secrets known at the mark and forgets the later ones', () => {
    const mark = secrets.size;
    addSecret('kept-secret-1234');
    const kept = secrets.size;
    addSecret('later-secret-5678');
    secrets.truncate(kept);
    expect(redactValues('a kept-secret-1234 b later-secret-5678')).toBe('a *** b later-secret-5678');
    secrets.truncate(mark);
    expect(redactValues('kept-secret-1234')).toBe('kept-secret-1234');
  });
});

describe('redacting JSON text leaves JSON', () => {
  // Journals, the event log and --json redact the JSON text they write. A stretch that ended
  // half-way through a run of backslashes took the backslash of the next escape (a secret ending
  // in `\` before `\"`), or one that began after a backslash left it to escape the mark: the line
  // no longer read as JSON, and the record was lost to every reader.
  const piece = fc.string({ unit: fc.constantFrom(...'ab\\"/nu0\n\té%&+ '), maxLength: 8 });
  it('any value holding a secret, spelled as JSON.stringify writes it (once or twice), still parses', () => {
    fc.assert(
      fc.property(
        secret.filter((s) => !s.includes('"')),
        fc.array(fc.tuple(piece, piece), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        (s, parts, twice) => {
          const values = parts.map(([a, b]) => `${a}${s}${b}`);
          const value = { values, nested: twice ? JSON.stringify({ values }) : null };
          const text = JSON.stringify(value);
          const mark = secrets.size;
          addSecret(s);
          try {
            const out = redactValues(text);
            expect(() => JSON.parse(out), out).not.toThrow();
            expect(JSON.stringify(JSON.parse(out))).not.toContain(JSON.stringify(s).slice(1, -1));
          } finally {
            secrets.truncate(mark);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('a secret ending in a backslash, before an escaped quote', () => {
    const mark = secrets.size;
    addSecret('k3y-s3cret\\');
    try {
      expect(redactValues(JSON.stringify({ a: 'x k3y-s3cret\\"tail' }))).toBe(`{"a":"x ${REDACTED}\\"tail"}`);
    } finally {
      secrets.truncate(mark);
    }
  });
});

describe('a long run of backslashes', () => {
  it('is read once, not tried against itself at every place (a body of any length reaches the log)', () => {
    // Unbounded runs of backslashes in the spellings backtracked against each other: 4,000 took
    // 3.9 s and 20,000 would take minutes, so this test ends by its timeout if that comes back.
    const mark = secrets.size;
    addSecret('\\abc');
    addSecret('ab\\\\');
    try {
      const text = `${'\\'.repeat(20_000)}x`;
      expect(redactValues(text)).toBe(text);
      expect(redactValues(`${'\\'.repeat(20_000)}abc`)).toContain(REDACTED);
    } finally {
      secrets.truncate(mark);
    }
  }, 5_000);
});
