import path from 'node:path';
import type { Config } from '../config';
import { createLocalObjectStore } from './localObjectStore';
import type { ObjectStore } from './objectStore';

/** The configured object store: a folder under DATA_DIR by default. */
export function createObjectStore(config: Config): ObjectStore {
  return createLocalObjectStore(path.join(config.dataDir, 'objects'));
}
