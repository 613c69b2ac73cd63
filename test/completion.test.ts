import { execFileSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from './helpers/cli.js';
import { itWith } from './helpers/programs.js';
import { TmuxSession } from './helpers/tmux.js';
import { tempDir } from './helpers/temp.js';

const bin = fileURLToPath(new URL('../bin/callctl.js', import.meta.url));
let pathDir: string;
let configDir: string;

beforeAll(async () => {
  // `callctl` on PATH, as an installed copy would be (needs `npm run build`, which `npm test` does first).
  pathDir = tempDir('callctl-path-');
  writeFileSync(join(pathDir, 'callctl'), `#!/bin/sh\nexec "${process.execPath}" "${bin}" "$@"\n`);
  chmodSync(join(pathDir, 'callctl'), 0o755);
  configDir = tempConfigDir();
  for (const p of ['prod', 'test'])
    await runCli(['-p', p, 'config', 'set', 'base-url', `https://${p}.example`], {
      env: { CALLCTL_CONFIG_DIR: configDir },
    });
});

function shell(program: string, script: string): string {
  return execFileSync(program, ['-c', script], {
    env: { ...process.env, PATH: `${pathDir}:${process.env.PATH}`, CALLCTL_CONFIG_DIR: configDir },
    encoding: 'utf8',
  });
}

describe('callctl __complete', () => {
  it.each([
    [['wor'], ['workflow']],
    [
      ['workflow', ''],
      ['list', 'task-detail', 'verify-push'],
    ],
    [['workflow', 'list', '--s'], ['--size']],
    [
      ['-p', ''],
      ['prod', 'test'],
    ],
    [['--profile', 'p'], ['prod']],
    [['completion', 'z'], ['zsh']],
    [
      ['hooks', 'trigger', ''],
      ['chatbot.session_closed', 'chatbot.transfer', 'plan.end', 'task.end', 'template.status', 'workflow.api_push'],
    ],
    [
      ['hooks', 'trigger', 't'],
      ['task.end', 'template.status'],
    ],
    [['hooks', 'trigger', '--url', 'http://x', 'p'], ['plan.end']],
    [['hooks', 'trigger', 'task.end', ''], []],
    [
      ['config', 'use', ''],
      ['prod', 'test'],
    ],
  ])('%j -> %j', async (words, expected) => {
    const res = await runCli(['__complete', '--', ...words], { env: { CALLCTL_CONFIG_DIR: configDir } });
    expect(res.code).toBe(0);
    const got = res.out.split('\n').filter(Boolean);
    if (words[0] === 'workflow' && words[1] === '') expect(got).toEqual(expect.arrayContaining(expected));
    else expect(got).toEqual(expected);
  });
});

describe('completion scripts in real shells', () => {
  it('bash: loads without errors and completes `callctl wor<TAB>` to workflow', () => {
    const out = shell(
      'bash',
      `set -e; source <(callctl completion bash)
       COMP_WORDS=(callctl wor); COMP_CWORD=1; _callctl_complete; printf '%s\\n' "\${COMPREPLY[@]}"
       COMP_WORDS=(callctl -p ""); COMP_CWORD=2; _callctl_complete; printf '%s\\n' "\${COMPREPLY[@]}"`,
    );
    expect(out.split('\n').filter(Boolean)).toEqual(['workflow', 'prod', 'test']);
  });

  itWith('zsh', 'zsh: loads after compinit without errors and completes `callctl wor<TAB>` to workflow', () => {
    const out = shell(
      'zsh',
      `autoload -U compinit && compinit -u -D
       source <(callctl completion zsh) || exit 9
       compadd() { [[ $1 == -- ]] && shift; print -l -- "$@" }
       words=(callctl wor); CURRENT=2; _callctl`,
    );
    expect(out.split('\n').filter(Boolean)).toEqual(['workflow']);
  });

  itWith('fish', 'fish: the script loads without errors', () => {
    expect(() => shell('fish', 'callctl completion fish | source; complete -C"callctl wor"')).not.toThrow();
    expect(shell('fish', 'callctl completion fish | source; complete -C"callctl wor"')).toMatch(/^workflow/);
  });
});

describe('zsh completion in a real terminal (tmux): the first TAB of a fresh shell completes', () => {
  const sessions: TmuxSession[] = [];
  afterEach(() => {
    for (const s of sessions.splice(0)) s.close();
  });

  /** A fresh interactive zsh (no global rc files) whose .zshrc is `zshrc`; `callctl wor<TAB>` typed once. */
  async function firstTab(zshrc: (home: string) => string): Promise<string> {
    const home = tempDir('callctl-zsh-');
    writeFileSync(join(home, '.zshrc'), `${zshrc(home)}\nPS1='ready> '\n`);
    const session = new TmuxSession('zsh -d -i', {
      HOME: home,
      ZDOTDIR: home,
      PATH: `${pathDir}:${process.env.PATH}`,
      CALLCTL_CONFIG_DIR: configDir,
    });
    sessions.push(session);
    await session.waitFor(/^ready>\s*$/m);
    session.type('callctl wor');
    session.press('Tab');
    return session.waitFor(/^ready> callctl workflow\s*$/m);
  }

  itWith(
    ['zsh', 'tmux'],
    'as installed by the .deb: the script in a folder of fpath, autoloaded by compinit',
    async () => {
      const completion = await runCli(['completion', 'zsh']);
      const home = tempDir('callctl-fpath-');
      // What scripts/deb.mjs puts in /usr/share/zsh/vendor-completions/_callctl.
      writeFileSync(join(home, '_callctl'), completion.out);
      await firstTab(
        (zdotdir) => `fpath=(${home} $fpath)\nautoload -U compinit && compinit -u -d ${zdotdir}/.zcompdump`,
      );
    },
  );

  itWith(['zsh', 'tmux'], 'sourced in .zshrc after compinit: source <(callctl completion zsh)', async () => {
    await firstTab(
      (zdotdir) => `autoload -U compinit && compinit -u -d ${zdotdir}/.zcompdump\nsource <(callctl completion zsh)`,
    );
  });
});
