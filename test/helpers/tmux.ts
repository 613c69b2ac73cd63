import { execFileSync } from 'node:child_process';

/** A command running in a real pseudo-terminal under tmux, read and typed into as a person would. */
export class TmuxSession {
  private readonly socket = `callctl-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  private readonly name = 'main';

  constructor(command: string, env: Record<string, string> = {}, size: { width?: number; height?: number } = {}) {
    const exports = Object.entries(env).map(([k, v]) => `export ${k}=${shellQuote(v)};`).join(' ');
    const { width = 150, height = 40 } = size;
    this.tmux('new-session', '-d', '-s', this.name, '-x', String(width), '-y', String(height), `${exports} ${command}; echo "EXIT=$?"; sleep 30`);
  }

  private tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  }

  screen(): string {
    return this.tmux('capture-pane', '-p', '-t', this.name, '-S', '-200');
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

/**
 * Whether tmux is installed. Without it the real-terminal tests are skipped with a line that says
 * so, except under CI=true, where a missing tmux fails the run instead of passing it silently.
 */
export function tmuxAvailable(): boolean {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    if (process.env.CI === 'true') throw new Error('tmux is not installed, and CI=true requires the real-terminal tests to run');
    console.warn('SKIPPED: tmux is not installed; the real-terminal (tmux) tests did not run');
    return false;
  }
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
