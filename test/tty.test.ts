import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../src/sandbox/server.js';
import { TmuxSession } from './helpers/tmux.js';

const bin = fileURLToPath(new URL('../bin/callctl.js', import.meta.url));
let sandbox: Sandbox;
const sessions: TmuxSession[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
});
afterAll(async () => {
  for (const s of sessions) s.close();
  await sandbox.close();
});

describe('in a real terminal (tmux)', () => {
  it('auth login asks for the key, masks the secret, and stores the token', async () => {
    const config = mkdtempSync(join(tmpdir(), 'callctl-tty-'));
    const session = new TmuxSession(`"${process.execPath}" "${bin}" auth login --base-url ${sandbox.url}`, {
      CALLCTL_CONFIG_DIR: config,
    });
    sessions.push(session);
    await session.waitFor(/APPKey/);
    session.type(sandbox.appKey);
    session.press('Enter');
    await session.waitFor(/APPSecret/);
    session.type(sandbox.appSecret);
    const typing = await session.waitFor(/APPSecret.*\*{4,}/);
    expect(typing).not.toContain(sandbox.appSecret);
    session.press('Enter');
    const screen = await session.waitFor(/EXIT=\d+/);
    expect(screen).toMatch(/logged in to/);
    expect(screen).toMatch(/EXIT=0/);
    expect(screen).not.toContain(sandbox.appSecret);
    const stored = JSON.parse(readFileSync(join(config, 'config.json'), 'utf8'));
    expect(stored.profiles.default.token).toMatch(/.+/);
    expect(JSON.stringify(stored)).not.toContain(sandbox.appSecret);
  });
});
