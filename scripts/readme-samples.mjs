// The sample outputs of README.md and of every page under docs/, produced by the real CLI against
// the sandbox, as a person following the README's tour sees them: the sandbox started as the tour
// starts it (fixed seed and start time), its export line pasted, each command typed on a terminal
// (a pseudo-terminal: tables, no time stamps, progress lines redrawn in place). `npm run readme`
// rewrites them; test/readme.test.ts fails when a page no longer matches what the commands print.
//
// A sample is a console block right after a marker; its first line is typed into sh as written:
//   <!-- sample -->
//   ```console
//   $ callctl robots
//   ...output...
//   ```
// Each page starts from the tour's set-up: a fresh sandbox, the export line it prints, empty
// config and state folders. Its samples then run in order, so one may depend on the one before.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'callctl.js');
/** The address samples show, whatever port the sandbox got. */
export const SHOWN_URL = 'http://127.0.0.1:8780';
/** The sandbox's simulated start time for the samples; the README's tour starts the sandbox with it. */
export const SAMPLE_START_TIME = '2026-11-02T09:00:00Z';
/** How the tour starts the sandbox: the one sample that starts it shows what it prints on start. */
export const SANDBOX_LINE = `sandbox --port 8780 --start-time ${SAMPLE_START_TIME}`;
/** The width of the samples' terminal: the tour says so, since a table follows the terminal's width. */
export const SAMPLE_COLUMNS = 100;
/** This checkout's folder, as samples show it (the reader's own is wherever they cloned it). */
export const SHOWN_ROOT = '/path/to/callctl/';
const SAMPLE = /<!-- sample -->\n```console\n\$ callctl (.+)\n[\s\S]*?```/g;
/** A sample that runs longer than this has met a prompt or a wait: an error, not a sample. */
const SAMPLE_TIMEOUT_MS = 60_000;

/** The pages whose samples are checked: README.md, then docs/ and its folders, in name order. */
export function samplePages() {
  const walk = (dir) =>
    readdirSync(join(root, dir), { withFileTypes: true })
      .sort((a, b) => a.name.localeCompare(b.name))
      .flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : []));
  return ['README.md', ...walk('docs')];
}

/** A terminal's view of what was written: line breaks, carriage returns and erased lines applied, escapes gone. */
function asTerminalShows(raw) {
  return raw
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map((line) => {
      // A progress line is redrawn in place: "\r\x1b[2K" starts it again; what a terminal ends
      // up showing is the text after the last carriage return.
      const parts = line.split('\r');
      const shown = parts.filter((p) => p.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '') !== '').at(-1) ?? '';
      return shown.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').trimEnd();
    })
    .join('\n');
}

/**
 * What differs between runs and machines, made constant: the sandbox's port, this checkout's
 * folder, and timings (shown as 0.0 s and n rows/s).
 */
function normalise(text, url) {
  const port = new URL(url).port;
  return text
    .split(url)
    .join(SHOWN_URL)
    .replaceAll(`127.0.0.1:${port}`, new URL(SHOWN_URL).host)
    .split(root)
    .join(SHOWN_ROOT)
    .replace(/\b\d+\.\d s\b/g, '0.0 s')
    .replace(/\(\d+ rows\/s\)/g, '(n rows/s)')
    .trimEnd();
}

const quote = (s) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Runs one sample's command line in sh under a pseudo-terminal (util-linux's `script`), as typed. */
function onTerminal(line, env, where) {
  const program = `callctl() { ${quote(process.execPath)} ${quote(bin)} "$@"; }\ncallctl ${line}\n`;
  const args =
    process.platform === 'darwin' ? ['-q', '/dev/null', '/bin/sh', '-c', program] : ['-qec', program, '/dev/null'];
  return new Promise((resolve, reject) => {
    const child = spawn('script', args, {
      env: { ...env, SHELL: '/bin/sh' },
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${where}: \`callctl ${line}\` still running after ${SAMPLE_TIMEOUT_MS / 1000} s:\n${out}`));
    }, SAMPLE_TIMEOUT_MS);
    child.on('error', (e) =>
      reject(new Error(`${where}: cannot run \`script\` (util-linux), which gives samples a terminal: ${e.message}`)),
    );
    child.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
  });
}

/** Starts `callctl sandbox` as the tour does (on a free port) and returns it with its banner. */
async function startSandbox(env) {
  const args = SANDBOX_LINE.split(' ').map((w) => (w === '8780' ? '0' : w));
  const child = spawn(process.execPath, [bin, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let banner = '';
  await new Promise((resolve, reject) => {
    child.stderr.on('data', (c) => {
      banner += c;
      if (banner.includes('Ctrl-C to stop.')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`the sandbox exited ${code}: ${banner}`)));
  });
  child.stderr.resume();
  const url = /base URL\s+(\S+)/.exec(banner)[1];
  const exported = banner.slice(banner.indexOf('export '), banner.indexOf('Ctrl-C to stop.'));
  const vars = Object.fromEntries([...exported.matchAll(/(CALLCTL_[A-Z_]+)=(\S+)/g)].map((m) => [m[1], m[2]]));
  return { child, url, banner: banner.slice(0, banner.indexOf('Ctrl-C to stop.') + 'Ctrl-C to stop.'.length), vars };
}

/** Renders the samples of one page's text (`where` names it in errors). */
export async function renderSamples(text, where = 'README.md') {
  if (!SAMPLE.test(text)) return text;
  SAMPLE.lastIndex = 0;
  // Config, state and cache folders of this page, removed at the end.
  const dir = mkdtempSync(join(tmpdir(), 'callctl-samples-'));
  // Only what is set here: the user's own callctl settings (a profile, a store, a pasted export
  // line), proxies and terminal width must not change the samples.
  const base = {
    ...Object.fromEntries(
      Object.entries(process.env).filter(
        ([name]) =>
          !/^(CALLCTL_|XDG_|COLUMNS$|LINES$|FORCE_COLOR$|CLICOLOR|NO_COLOR$|https?_proxy$|no_proxy$)/i.test(name),
      ),
    ),
    NO_COLOR: '1',
    TERM: 'xterm',
  };
  const sandbox = await startSandbox(base);
  try {
    const env = {
      ...base,
      ...sandbox.vars,
      CALLCTL_CONFIG_DIR: join(dir, 'config'),
      XDG_STATE_HOME: join(dir, 'state'),
      XDG_CACHE_HOME: join(dir, 'cache'),
      COLUMNS: String(SAMPLE_COLUMNS),
    };
    let out = '';
    let last = 0;
    for (const match of text.matchAll(SAMPLE)) {
      const line = match[1];
      let shown;
      if (line.startsWith('sandbox')) {
        if (line !== SANDBOX_LINE)
          throw new Error(`${where}: a sample starts the sandbox as the tour does: ${SANDBOX_LINE}`);
        shown = sandbox.banner;
      } else {
        shown = asTerminalShows(await onTerminal(line, env, where));
      }
      out +=
        text.slice(last, match.index) +
        `<!-- sample -->\n\`\`\`console\n$ callctl ${line}\n${normalise(shown, sandbox.url)}\n\`\`\``;
      last = match.index + match[0].length;
    }
    return out + text.slice(last);
  } finally {
    sandbox.child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const page of samplePages()) {
    const file = join(root, page);
    const before = readFileSync(file, 'utf8');
    const after = await renderSamples(before, page);
    if (before !== after) writeFileSync(file, after);
    console.log(`${relative(root, file)}: ${before === after ? 'up to date' : 'samples rewritten'}`);
  }
}
