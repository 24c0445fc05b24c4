import os from 'node:os';
import { DECODES_PER_CORE } from '../config';

/**
 * The environment of each of `processes` worker processes: they share the machine's cores, so each takes its share of
 * inference threads and concurrent decodes unless INFERENCE_THREADS / DECODE_CONCURRENCY say otherwise.
 */
export function workerProcessEnv(env: NodeJS.ProcessEnv, processes: number, cores = os.availableParallelism()): NodeJS.ProcessEnv {
  if (processes === 1) return env;
  const share = Math.max(1, Math.floor(cores / processes));
  return {
    ...env,
    INFERENCE_THREADS: env.INFERENCE_THREADS ?? String(share),
    DECODE_CONCURRENCY: env.DECODE_CONCURRENCY ?? String(DECODES_PER_CORE * share),
  };
}
