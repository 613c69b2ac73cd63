import { describe, expect, it } from 'vitest';
import { InputError, UsageError } from '../../src/errors.js';
import { collectVariables, parseVarFlags } from '../../src/commands/flags/variables.js';
import { buildPush } from '../../src/reach/push.js';
import { signBody, runSendSignCommand as runSignCommand } from '../../src/signing/service-sign.js';
import { signatureSource } from '../../src/commands/flags/signature.js';
import { defaultServiceSign } from '../../src/signing/sign.js';
import { tempDir, writeIn } from '../reach/helpers.js';

describe('variables', () => {
  it('--var pairs keep = in values; flags win over the file', () => {
    expect(parseVarFlags(['a=1', 'b=x=y', 'c='])).toEqual({ a: '1', b: 'x=y', c: '' });
    expect(() => parseVarFlags(['=1'])).toThrow(UsageError);
    const file = writeIn(tempDir(), 'v.json', '\uFEFF{"a": "file", "b": "file"}');
    expect(collectVariables(['a=flag'], file)).toEqual({ a: 'flag', b: 'file' });
  });

  it('the file must be a JSON object of strings', () => {
    const dir = tempDir();
    expect(() => collectVariables([], writeIn(dir, '1.json', '{"a": 1, "b": null}'))).toThrow(/not: a, b/);
    expect(() => collectVariables([], writeIn(dir, '2.json', 'null'))).toThrow(InputError);
  });

  it('debt_amount is any text (the spec gives it no format); caller_id is required', () => {
    for (const ok of ['0', '1500000', '99.50', '-3', '', '1,5', '1.500.000', ' 1'])
      expect(buildPush({ caller_id: '+6281234567001', variables: { debt_amount: ok } }, {}).ok).toBe(true);
    const missing = buildPush({ caller_id: '  ', variables: {} }, {}, 7);
    expect(missing).toEqual({ ok: false, problems: [{ line: 7, message: 'caller_id is required' }] });
  });
});

describe('signature sources', () => {
  const body = Buffer.from('{"template_id":7}');
  it('in order: --signature, --sign-command, --sign-secret-file, then the environment', () => {
    const file = writeIn(tempDir(), 's', 'from-file\n');
    const env = { CALLCTL_SIGN_SECRET: 'from-env' };
    expect(signatureSource({ signature: 'sig', signCommand: 'x', signSecretFile: file }, env)).toEqual({
      kind: 'explicit',
      value: 'sig',
    });
    expect(signatureSource({ signCommand: 'x', signSecretFile: file }, env)).toEqual({ kind: 'command', command: 'x' });
    expect(signatureSource({ signSecretFile: file }, env)).toMatchObject({ kind: 'default', secret: 'from-file' });
    expect(signatureSource({}, env)).toMatchObject({
      kind: 'default',
      secret: 'from-env',
      from: 'CALLCTL_SIGN_SECRET',
    });
    expect(signatureSource({}, { CALLCTL_SIGN_SECRET_FILE: file })).toMatchObject({
      kind: 'default',
      secret: 'from-file',
    });
    expect(() => signatureSource({}, {})).toThrow(UsageError);
  });

  it('the default is HMAC-SHA256 hex of the exact bytes; a command gets those bytes on stdin', async () => {
    expect(await signBody({ kind: 'default', secret: 'k', from: 'x' }, body)).toBe(defaultServiceSign(body, 'k'));
    // `wc -c` proves the command saw every byte, and nothing else.
    expect(await runSignCommand('wc -c | tr -d " "', body)).toBe(String(body.length));
    await expect(runSignCommand('printf "a\\nb\\n"', body)).rejects.toThrow(/more than one line/);
  });
});
