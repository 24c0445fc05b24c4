import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

/**
 * In a process of its own (what is under test is whether the process survives): a file stream gets a write of 32 MiB
 * and, while that write is under way, is stopped by `stop` ('destroy': the stream's own destroy(); 'discard': ours).
 */
function stopMidWrite(stop: 'destroy' | 'discard') {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'discard-')), 'partial');
  const script = `
    const fs = require('node:fs');
    const { discard } = require('./lib/export/streams');
    const out = fs.createWriteStream(${JSON.stringify(file)});
    out.on('open', () => {
      out.write(Buffer.alloc(32 << 20));
      setImmediate(() => (${JSON.stringify(stop)} === 'discard' ? discard(out) : out.destroy()));
    });
    out.on('close', () => setTimeout(() => console.log('closed'), 100));`;
  const result = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: root, encoding: 'utf8', timeout: 30_000 });
  fs.rmSync(path.dirname(file), { recursive: true, force: true });
  return result;
}

describe('discarding an export scratch file', () => {
  it('destroy() while a write is under way crashes the process with an error no one hears (why discard exists)', () => {
    const result = stopMidWrite('destroy');
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('ERR_STREAM_DESTROYED');
  });

  it('discard() while a write is under way stops the stream and the process goes on', () => {
    const result = stopMidWrite('discard');
    expect({ status: result.status, stdout: result.stdout.trim(), stderr: result.stderr }).toEqual({ status: 0, stdout: 'closed', stderr: '' });
  });
});
