/**
 * The one sandbox fixture of the command tests: an in-process sandbox for the test file, started
 * before its tests and closed after them. Before each test the sandbox is back to how the file
 * started it (its faults and variants; nothing received, no request recorded), a token is issued
 * and a fresh config folder made, and `env` points a CLI run at all three.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { SEED, startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/server.js';
import { tempDir } from './temp.js';

export interface SandboxFixture {
  /** The running sandbox (from beforeAll on). */
  readonly sandbox: Sandbox;
  /** A token issued before each test. */
  readonly token: string;
  /** The config folder made before each test (removed after it). */
  readonly configDir: string;
  /**
   * CALLCTL_BASE_URL, CALLCTL_TOKEN and CALLCTL_CONFIG_DIR for a CLI run against the sandbox;
   * push and template tests add the flex URL or the sign keys they need.
   */
  readonly env: Record<string, string>;
}

/** Starts one sandbox for the current test file (see the module comment). */
export function useSandbox(options: SandboxOptions = {}): SandboxFixture {
  let sandbox: Sandbox | undefined;
  let token = '';
  let configDir = '';
  beforeAll(async () => {
    sandbox = await startSandbox(options);
  });
  afterAll(() => sandbox?.close());
  beforeEach(() => {
    const sb = sandbox!;
    sb.resetFaults();
    if (options.faults) sb.setFaults(options.faults);
    sb.setVariants(options.variants ?? []);
    sb.requests.length = 0;
    sb.state.received.updates.clear();
    sb.state.received.pushes.length = 0;
    sb.state.received.templates.length = 0;
    token = sb.issueToken();
    configDir = tempDir('callctl-config-');
  });
  return {
    get sandbox() {
      if (!sandbox) throw new Error('useSandbox: the sandbox starts in beforeAll; use it inside hooks and tests');
      return sandbox;
    },
    get token() {
      return token;
    },
    get configDir() {
      return configDir;
    },
    get env() {
      // The APPKey names the account a workflow update's journal is kept for (src/store/destination.ts).
      return {
        CALLCTL_BASE_URL: sandbox!.url,
        CALLCTL_TOKEN: token,
        CALLCTL_APP_KEY: sandbox!.appKey,
        CALLCTL_CONFIG_DIR: configDir,
      };
    },
  };
}

/** `workflow verify-push` of the push the sandbox is seeded with (SEED.verifyPush): it finds it. */
export const SEEDED_VERIFY_PUSH = [
  'workflow',
  'verify-push',
  '--workflow-id',
  SEED.verifyPush.workflowId,
  '--node-id',
  SEED.verifyPush.nodeId,
  '--callee',
  SEED.verifyPush.callee,
];
