// Types of scripts/deb.mjs, for the tests that import it.
export const DEB_PATHS: Record<
  | 'executable'
  | 'bash'
  | 'zsh'
  | 'fish'
  | 'man'
  | 'unit'
  | 'settings'
  | 'copyright'
  | 'readme'
  | 'changelog'
  | 'manual',
  string
>;
export function buildDeb(
  executable: string,
  outDir: string,
  options?: { compression?: 'xz' | 'gzip' | 'zstd' | 'none' },
): string;
