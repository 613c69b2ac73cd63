import { execFileSync } from 'node:child_process';

/** A command running in a real pseudo-terminal under tmux, read and typed into as a person would. */
export class TmuxSession {
  private readonly socket = `callctl-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  private readonly name = 'main';

  constructor(command: string, env: Record<string, string> = {}, size: { width?: number; height?: number } = {}) {
    const exports = Object.entries(env)
      .map(([k, v]) => `export ${k}=${shellQuote(v)};`)
      .join(' ');
    const { width = 150, height = 40 } = size;
    this.tmux(
      'new-session',
      '-d',
      '-s',
      this.name,
      '-x',
      String(width),
      '-y',
      String(height),
      `${exports} ${command}; echo "EXIT=$?"; sleep 30`,
    );
  }

  private tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  }

  screen(): string {
    return this.tmux('capture-pane', '-p', '-t', this.name, '-S', '-200');
  }

  /** Whether the terminal shows its cursor (a program may hide it while it redraws). */
  cursorVisible(): boolean {
    return this.tmux('display-message', '-p', '-t', this.name, '#{cursor_flag}').trim() === '1';
  }

  type(text: string): void {
    this.tmux('send-keys', '-t', this.name, '-l', text);
  }

  press(...keys: string[]): void {
    this.tmux('send-keys', '-t', this.name, ...keys);
  }

  /** Waits until the screen matches, or fails with what it shows. */
  async waitFor(pattern: RegExp, timeoutMs = 15_000): Promise<string> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.screen();
      if (pattern.test(screen)) return screen;
      if (Date.now() > until) throw new Error(`timed out waiting for ${pattern}; screen:\n${screen}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  close(): void {
    try {
      this.tmux('kill-server');
    } catch {
      // already gone
    }
  }
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
