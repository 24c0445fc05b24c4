import fs from 'node:fs';
import path from 'node:path';
import { randomToken } from './randomTokens';

/** A random secret generated into `file` the first time (mode 0600) and read back ever after. */
export function loadOrCreateSecretFile(file: string, bytes = 48): string {
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const secret = randomToken(bytes);
  try {
    fs.writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another process wrote it first: theirs is the one.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return fs.readFileSync(file, 'utf8').trim();
    throw error;
  }
  return secret;
}

/** ONPREM without SECRET_KEY: one key generated on first start and kept in DATA_DIR. */
export function loadOrCreateSecretKey(dataDir: string): string {
  return loadOrCreateSecretFile(path.join(dataDir, 'secret.key'));
}
