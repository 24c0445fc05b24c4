import path from 'node:path';
import type { Config } from '../config';
import { s3ClientOf } from '../sources/s3';
import { createLocalObjectStore } from './localObjectStore';
import type { ObjectStore } from './objectStore';
import { createS3ObjectStore } from './s3ObjectStore';

/** The configured object store: a bucket (OBJECT_STORE_URL), or a folder under DATA_DIR by default. */
export function createObjectStore(config: Config): ObjectStore {
  if (config.objectStore) return createS3ObjectStore(s3ClientOf(config.s3), config.objectStore.bucket, config.objectStore.key);
  return createLocalObjectStore(path.join(config.dataDir, 'objects'));
}
