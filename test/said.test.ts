import { describe, expect, it } from 'vitest';
import { AuthError, UsageError } from '../src/errors.js';
import { addSecret, redact } from '../src/redact.js';
import { named, Said, said } from '../src/said.js';

describe("a message as callctl's words and outside text (src/said.ts)", () => {
  addSecret('secret');
  addSecret('tok"en-77');

  it("keeps callctl's words as written and redacts what came from outside", () => {
    const answer = 'no app has the secret secret';
    const m = said`--app-secret-stdin: the service said ${answer}`;
    expect(String(m)).toBe('--app-secret-stdin: the service said no app has the secret secret');
    expect(redact(m)).toBe('--app-secret-stdin: the service said no app has the *** ***');
    // A plain string is outside text whole: redacted whole, as before.
    expect(redact('--app-secret-stdin')).toBe('--app-***-stdin');
  });

  it("redacts a secret in every spelling in outside text, and one that begins in callctl's words and ends outside", () => {
    expect(redact(said`got ${JSON.stringify('tok"en-77')} and ${encodeURIComponent('tok"en-77')}`)).toBe(
      'got "***" and ***',
    );
    // "tok" is callctl's, `"en-77` came from outside: the whole stretch is the secret.
    expect(redact(said`the tok${'"en-77'} was refused`)).toBe('the *** was refused');
    // Two values side by side are one stretch of outside text.
    expect(redact(said`[${'sec'}${'ret'}]`)).toBe('[***]');
  });

  it("nests: a message, or an error's, keeps its words; any other value is outside text", () => {
    const inner = said`APPSecret (from --app-secret-stdin)`;
    const error = new AuthError(said`rejected: ${inner}`);
    expect(redact(said`${error}; also ${'secret'} and ${new Error('secret')}`)).toBe(
      'rejected: APPSecret (from --app-secret-stdin); also *** and Error: ***',
    );
    expect(redact(new UsageError('--app-secret-stdin').said)).toBe('--app-***-stdin');
    expect(redact(Said.join(['secret', said`secret`], said` / `))).toBe('*** / secret');
  });

  it("takes only a template's own strings, and a name of a table only when it is one", () => {
    const strings = Object.assign(['--app-secret-stdin'], { raw: ['--app-secret-stdin'] });
    expect(() => said(strings as unknown as TemplateStringsArray)).toThrow(/template tag/);
    const names = new Set(['CALLCTL_APP_SECRET']);
    expect(redact(said`${named('CALLCTL_APP_SECRET', names)} / ${named('secret', names)}`)).toBe(
      'CALLCTL_APP_SECRET / ***',
    );
  });
});
