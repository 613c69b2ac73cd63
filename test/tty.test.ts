import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, beforeEach } from 'vitest';
import { SEED, type Sandbox } from '../src/sandbox/server.js';
import { itWith } from './helpers/programs.js';
import { TmuxSession } from './helpers/tmux.js';
import { tempDir } from './helpers/temp.js';
import { useSandbox } from './helpers/sandbox.js';

const bin = fileURLToPath(new URL('../bin/callctl.js', import.meta.url));
let sandbox: Sandbox;
const sessions: TmuxSession[] = [];

const fixture = useSandbox();
// Hooks after a test run last-registered first: the sessions close before the sandbox does.
afterAll(() => {
  for (const s of sessions) s.close();
});
beforeEach(() => (sandbox = fixture.sandbox));

describe('in a real terminal (tmux)', () => {
  itWith('tmux', 'auth login asks for the key, masks the secret, and stores the token', async () => {
    const config = tempDir('callctl-tty-');
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

describe('workflow update in a real terminal (tmux)', () => {
  const csv = fileURLToPath(new URL('../fixtures/contacts/demo.csv', import.meta.url));

  itWith('tmux', 'asks before sending, naming the workflow and the rows; declining sends nothing', async () => {
    const config = tempDir('callctl-tty-');
    const env = {
      CALLCTL_CONFIG_DIR: config,
      CALLCTL_BASE_URL: sandbox.url,
      CALLCTL_TOKEN: sandbox.issueToken(),
      CALLCTL_APP_KEY: sandbox.appKey,
    };
    const before = sandbox.state.received.updates.get(SEED.workflowId)?.count ?? 0;
    const no = new TmuxSession(
      `"${process.execPath}" "${bin}" workflow update --workflow-id ${SEED.workflowId} --csv "${csv}" --max-invalid 1`,
      env,
    );
    sessions.push(no);
    const question = await no.waitFor(/\?.*(Y\/n|y\/N)/);
    expect(question).toContain(SEED.workflowId);
    expect(question).toMatch(/7 /);
    no.type('n');
    no.press('Enter');
    expect(await no.waitFor(/EXIT=\d+/)).toMatch(/EXIT=130/);
    expect(sandbox.state.received.updates.get(SEED.workflowId)?.count ?? 0).toBe(before);

    const yes = new TmuxSession(
      `"${process.execPath}" "${bin}" workflow update --workflow-id ${SEED.workflowId} --csv "${csv}" --max-invalid 1`,
      env,
    );
    sessions.push(yes);
    await yes.waitFor(/\?.*(Y\/n|y\/N)/);
    yes.type('y');
    yes.press('Enter');
    expect(await yes.waitFor(/EXIT=\d+/)).toMatch(/EXIT=0/);
    expect(sandbox.state.received.updates.get(SEED.workflowId)?.count).toBe(before + 7);
  });
});
