import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

// The tour starts serve-hooks --log events.ndjson in a third terminal and reads it with hooks
// events --log events.ndjson in the second: a relative path is read from each one's own folder.
describe('hooks events --log naming a file that is not there', () => {
  it('says which file it looked for, in which folder, and what to name: exit 2 (#36 item 8)', async () => {
    const env = { CALLCTL_CONFIG_DIR: tempConfigDir() };
    const relative = await runCli(['hooks', 'events', '--log', 'no-such-events.ndjson'], { env });
    expect(relative.code).toBe(2);
    expect(relative.err).toBe(
      `error: --log: no such file no-such-events.ndjson (here: ${join(process.cwd(), 'no-such-events.ndjson')}): name the file serve-hooks --log writes\n`,
    );
    const absolute = join(tempDir(), 'events.ndjson');
    const named = await runCli(['hooks', 'events', '--log', absolute], { env });
    expect(named.code).toBe(2);
    expect(named.err).toBe(`error: --log: no such file ${absolute}: name the file serve-hooks --log writes\n`);
  });
});
