import type { IO } from '../../io.js';
import { said, type Said } from '../../said.js';

/**
 * `--open`: the inspector's address in a browser, by the system's opener (xdg-open, open,
 * explorer). Where none can open one (Linux without DISPLAY or WAYLAND_DISPLAY, an opener that is
 * missing or fails), `say` gets one line with the address to open by hand; nothing is left unsaid.
 */
export function openInBrowser(io: Pick<IO, 'env'>, url: string, shown: string | Said, say: (line: Said) => void): void {
  const platform = process.platform;
  const byHand = (why: Said) => say(said`--open: ${why}: open ${shown} in a browser by hand`);
  if (platform !== 'darwin' && platform !== 'win32' && !io.env.DISPLAY && !io.env.WAYLAND_DISPLAY)
    return byHand(said`no display to open a browser on (DISPLAY and WAYLAND_DISPLAY are unset)`);
  const opener = platform === 'darwin' ? 'open' : platform === 'win32' ? 'explorer' : 'xdg-open';
  void import('node:child_process').then(({ spawn }) => {
    const child = spawn(opener, [url], { stdio: 'ignore', detached: true, env: io.env });
    child.on('error', (error: NodeJS.ErrnoException) =>
      byHand(said`could not start ${opener} (${error.code ?? error.message})`),
    );
    // explorer answers 1 even when it opened the page.
    child.on('exit', (code) => {
      if (code !== 0 && code !== null && platform !== 'win32')
        byHand(said`${opener} could not open a browser (exit ${code})`);
    });
    child.unref();
  });
}
