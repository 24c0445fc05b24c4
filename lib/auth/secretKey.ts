import fs from 'node:fs';
import path from 'node:path';
import { randomToken } from './randomTokens';

/** ONPREM without SECRET_KEY: one key generated on first start and kept in DATA_DIR. */
export function loadOrCreateSecretKey(dataDir: string): string {
  const file = path.join(dataDir, 'secret.key');
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  fs.mkdirSync(dataDir, { recursive: true });
  const key = randomToken(48);
  fs.writeFileSync(file, key, { mode: 0o600, flag: 'wx' });
  return key;
}
