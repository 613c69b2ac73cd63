// The README's sample outputs, produced by the real CLI against the sandbox (fixed seed and
// start time, so they are the same on every run). `npm run readme` rewrites them; the test
// suite fails when the README no longer matches what the commands print.
//
// In README.md, a sample is a console block right after a marker:
//   <!-- sample -->
//   ```console
//   $ callctl robots
//   ...output...
//   ```
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'callctl.js');
/** The address samples show, whatever port the sandbox got. */
export const SHOWN_URL = 'http://127.0.0.1:8780';
/** The sandbox's simulated start time for the samples; the README's tour starts the sandbox with it. */
export const SAMPLE_START_TIME = '2026-11-02T09:00:00Z';
const SAMPLE = /<!-- sample -->\n```console\n\$ callctl (.+)\n[\s\S]*?```/g;

/** Splits a command line as a shell would, for the simple quoting samples use. */
function words(line) {
  return [...line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);
}

/**
 * What differs between runs and machines, made constant: the sandbox's port, this checkout's
 * folder, and timings (shown as 0.0 s and n rows/s).
 */
function normalise(text, url) {
  return (
    text
      .split(url)
      .join(SHOWN_URL)
      .split(root)
      .join('./')
      .replace(/\b\d+\.\d s\b/g, '0.0 s')
      .replace(/\(\d+ rows\/s\)/g, '(n rows/s)')
      // Progress and warning lines start with the time when stderr is not a terminal.
      .replace(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /gm, '2026-11-23T02:30:00.000Z ')
      .trimEnd()
  );
}

/**
 * What a command prints on stdout and stderr together, in the order it wrote them, as a terminal
 * shows it: both go to one file (a note on stderr after a table stays after that table).
 */
async function both(command, args, options, dir) {
  const file = join(dir, 'output.txt');
  const fd = openSync(file, 'w');
  try {
    await new Promise((resolve, reject) => {
      const child = spawn(command, args, { ...options, stdio: ['ignore', fd, fd] });
      child.on('error', reject);
      child.on('close', resolve);
    });
  } finally {
    closeSync(fd);
  }
  return readFileSync(file, 'utf8');
}

export async function renderSamples(readme) {
  const { startSandbox } = await import('../dist/sandbox/server.js');
  const sandbox = await startSandbox({ port: 0, seed: 1, startTime: SAMPLE_START_TIME });
  // Config, state and cache folders of this rendering, removed at the end.
  const dir = mkdtempSync(join(tmpdir(), 'callctl-readme-'));
  for (const sub of ['config', 'state', 'cache']) mkdirSync(join(dir, sub));
  try {
    // Only what is set here: the user's own callctl settings (a profile, a store, a pasted export
    // line) and terminal width must not change the samples.
    const env = {
      ...Object.fromEntries(
        Object.entries(process.env).filter(([name]) => !/^(CALLCTL_|XDG_|COLUMNS$|FORCE_COLOR$)/.test(name)),
      ),
      CALLCTL_BASE_URL: sandbox.url,
      CALLCTL_TOKEN: sandbox.issueToken(),
      CALLCTL_FLEX_URL: sandbox.flexUrl,
      CALLCTL_PUSH_TOKEN: sandbox.pushToken,
      CALLCTL_SIGN_KEY: sandbox.signKey,
      CALLCTL_SIGN_SECRET: sandbox.signSecret,
      CALLCTL_CONFIG_DIR: join(dir, 'config'),
      // Journals and ledgers in a folder of this run: the user's state (or another run's) must not
      // change what the samples show ("already uploaded"), nor be changed by them.
      XDG_STATE_HOME: join(dir, 'state'),
      XDG_CACHE_HOME: join(dir, 'cache'),
      CALLCTL_FORCE_TTY: '1',
      COLUMNS: '100',
      NO_COLOR: '1',
    };
    let out = '';
    let last = 0;
    for (const match of readme.matchAll(SAMPLE)) {
      const line = match[1];
      const text = normalise(await both(process.execPath, [bin, ...words(line)], { env, cwd: root }, dir), sandbox.url);
      out += readme.slice(last, match.index) + `<!-- sample -->\n\`\`\`console\n$ callctl ${line}\n${text}\n\`\`\``;
      last = match.index + match[0].length;
    }
    return out + readme.slice(last);
  } finally {
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const file = join(root, 'README.md');
  const before = readFileSync(file, 'utf8');
  const after = await renderSamples(before);
  writeFileSync(file, after);
  console.log(before === after ? 'README samples already up to date' : 'README samples rewritten');
}
