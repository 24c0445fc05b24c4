import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { projectRoot } from './projectRoot';
import type { LoginThrottleSettings } from './auth/loginThrottle';
import type { LogFormat } from './logger';
import type { QdrantQuantization } from './vectors/qdrantVectorStore';
import type { ArchiveLimits } from './sources/archive';
import { canonicalS3Location, parseS3Uri, s3UriOf, type S3Location, type S3Settings } from './sources/s3';
import { EVERY_ORGANIZATION, type S3SourceGrant, type S3SourcePolicy } from './sources/sourcePolicy';

/**
 * Files decoded at once per core by default (DECODE_CONCURRENCY): a decode waits on file reads, writes and the event
 * loop between its libvips steps, and two per core kept 2,000 images 5-10 % faster than one (docs/scaling.md).
 */
export const DECODES_PER_CORE = 2;

const booleanString = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'expected true or false' })
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

const port = z.coerce
  .number({ message: 'expected a port number' })
  .int('expected a port number')
  .min(0, 'expected a port number 0-65535')
  .max(65535, 'expected a port number 0-65535');

const url = z.string().url('expected a URL');

const secondsUpTo600 = z.coerce
  .number({ message: 'expected a number of seconds, more than 0 and at most 600' })
  .positive('expected a number of seconds, more than 0 and at most 600')
  .max(600, 'expected a number of seconds, more than 0 and at most 600');

/**
 * Values this project has shipped as examples for a secret (docker-compose.yml defaults): public, so never a secret.
 * Every one starts with `change-me`, which is refused as a prefix too.
 */
const SHIPPED_EXAMPLE_SECRETS = ['change-me-to-a-long-random-secret-key', 'change-me-oidc-client-secret', 'change-me-admin-password', 'change-me-keycloak-admin', 'change-me'];

/** The schemas `secret` made: a refusal of a variable declared with one names it without its value. */
const SECRET_SCHEMAS = new WeakSet<z.ZodType>();

/** A secret of at least `min` characters that is none of the examples we have published. */
const secret = (min: number) => {
  const schema = z
    .string()
    .min(min, `expected at least ${min} characters`)
    .refine((value) => {
      const plain = value.trim().toLowerCase();
      return !plain.startsWith('change-me') && !SHIPPED_EXAMPLE_SECRETS.includes(plain);
    }, 'it is a value this project has shipped as an example, so it is public: generate your own (e.g. openssl rand -hex 32)');
  SECRET_SCHEMAS.add(schema);
  return schema;
};

/** A whole number from lo to hi, every refusal with the same `message`. */
const wholeNumber = (message: string, lo: number, hi: number) => z.coerce.number({ message }).int(message).min(lo, message).max(hi, message);

export const envSchema = z.object({
  RUN_MODE: z.enum(['CLOUD', 'ONPREM'], { message: 'expected CLOUD or ONPREM' }).default('ONPREM'),
  DISABLE_AUTH: booleanString.optional(),
  ADD_MEDIA_ENABLED: booleanString.default(true),
  API_HOST: z.string().min(1).default('0.0.0.0'),
  API_PORT: port.default(8080),
  DATA_DIR: z.string().min(1).default('./.data'),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      message: 'expected one of fatal, error, warn, info, debug, trace, silent',
    })
    .default('info'),
  LOG_FORMAT: z.enum(['auto', 'pretty', 'json'], { message: 'expected auto, pretty or json' }).default('auto'),
  DATABASE_URL: url.optional(),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(500).default(10),
  DATABASE_CONNECT_TIMEOUT_SECONDS: secondsUpTo600.default(3),
  DATABASE_ACQUIRE_TIMEOUT_SECONDS: secondsUpTo600.default(5),
  DATABASE_QUERY_TIMEOUT_SECONDS: secondsUpTo600.default(15),
  EMBEDDED_PG_PORT: port.default(54320),
  TEMPORAL_ADDRESS: z.string().min(1).optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_PORT: port.default(7233),
  TEMPORAL_UI_PORT: port.default(8233),
  TEMPORAL_UI_URL: url.optional(),
  TEMPORAL_BIN: z.string().min(1).optional(),
  WORKFLOW_BUNDLE: z.string().min(1).optional(),
  TEMPORAL_RPC_TIMEOUT_SECONDS: secondsUpTo600.default(5),
  TASK_QUEUE: z.string().regex(/^[A-Za-z0-9._-]+$/, 'expected letters, digits, . _ -').default('media'),
  QDRANT_URL: url.optional(),
  QDRANT_API_KEY: secret(16).optional(),
  QDRANT_QUANTIZATION: z.enum(['int8', 'none'], { message: 'expected int8 or none' }).default('int8'),
  SECRET_KEY: secret(32).optional(),
  ADMIN_EMAIL: z.string().email('expected an email address').default('admin@localhost.localdomain'),
  ADMIN_PASSWORD: secret(8).optional(),
  SESSION_TTL_HOURS: z.coerce.number().positive().default(168),
  TOKEN_MAX_LIFETIME_SECONDS: z.coerce.number().int().positive().default(86400),
  API_KEY_TTL_DAYS: z.coerce
    .number({ message: 'expected a number of days 0-36500 (0: keys never expire)' })
    .min(0, 'expected a number of days 0-36500 (0: keys never expire)')
    .max(36500, 'expected a number of days 0-36500 (0: keys never expire)')
    .default(90),
  SNAPSHOT_RETENTION_DAYS: z.coerce
    .number({ message: 'expected a number of days 0-36500 (0: at the next collection)' })
    .min(0, 'expected a number of days 0-36500 (0: at the next collection)')
    .max(36500, 'expected a number of days 0-36500 (0: at the next collection)')
    .default(7),
  EXPORT_RETENTION_DAYS: z.coerce
    .number({ message: 'expected a number of days 0-36500 (0: at the next collection)' })
    .min(0, 'expected a number of days 0-36500 (0: at the next collection)')
    .max(36500, 'expected a number of days 0-36500 (0: at the next collection)')
    .default(7),
  STORAGE_COLLECTION_INTERVAL_MINUTES: z.coerce
    .number({ message: 'expected a number of minutes, at least 1' })
    .min(1, 'expected a number of minutes, at least 1')
    .max(10080, 'expected a number of minutes, at most 10080 (a week)')
    .default(60),
  API_KEY_MAX_PER_USER: z.coerce.number({ message: 'expected a whole number of at least 1' }).int('expected a whole number of at least 1').min(1, 'expected a whole number of at least 1').default(20),
  LOGIN_MAX_FAILURES: z.coerce.number({ message: 'expected a whole number of at least 1' }).int().min(1).default(5),
  LOGIN_MAX_FAILURES_PER_IP: z.coerce.number({ message: 'expected a whole number of at least 1' }).int().min(1).default(50),
  LOGIN_FAILURE_WINDOW_SECONDS: z.coerce.number({ message: 'expected a whole number of seconds, at least 1' }).int().min(1).default(900),
  LOGIN_LOCKOUT_SECONDS: z.coerce.number({ message: 'expected a whole number of seconds, at least 1' }).int().min(1).default(60),
  TRUST_PROXY: booleanString.default(false),
  MODELS_DIR: z.string().min(1).optional(),
  IMAGE_MODEL: z.string().min(1).default('efficientnet-lite0-int8'),
  INFERENCE_THREADS: z.coerce.number().int().min(1).max(64).optional(),
  VISION_CAPTION_URL: url.refine((value) => /^https?:\/\//i.test(value), 'expected an http or https URL').optional(),
  VISION_CAPTION_MODEL: z.string().min(1).default('llava'),
  VISION_CAPTION_API_KEY: secret(1).optional(),
  WORKER_QUEUES: z.enum(['all', 'workflows', 'inference'], { message: 'expected all, workflows or inference' }).default('all'),
  WORKER_PROCESSES: wholeNumber('expected a whole number of worker processes, 1-64', 1, 64).default(1),
  INDEX_CHUNK_SIZE: wholeNumber('expected a whole number of files, 1-100000', 1, 100_000).default(256),
  INDEX_CHUNK_CONCURRENCY: wholeNumber('expected a whole number of chunks, 1-1000', 1, 1000).default(4),
  ANALYSIS_CHUNK_SIZE: wholeNumber('expected a whole number of media, 1-1000000', 1, 1_000_000).default(10_000),
  REINDEX_INCREMENTAL_MAX_SHARE: z.coerce.number({ message: 'expected a share of the media, 0-1' }).min(0, 'expected a share of the media, 0-1').max(1, 'expected a share of the media, 0-1').default(0.5),
  DECODE_CONCURRENCY: wholeNumber('expected a whole number of files, 1-64', 1, 64).optional(),
  VIDEO_FRAME_INTERVAL_MS: z.coerce.number().int().min(100).default(1000),
  VIDEO_MAX_FRAMES: z.coerce.number().int().min(1).default(300),
  PUBLIC_URL: url.optional(),
  MEDIA_URL_TTL_SECONDS: z.coerce.number().int().min(60).default(3600),
  MAX_UPLOAD_FILE_MB: z.coerce.number({ message: 'expected a number of MiB' }).positive().default(10240),
  MAX_FILES_PER_REQUEST: z.coerce.number({ message: 'expected an integer' }).int().min(1).default(500),
  MAX_FORM_FIELDS: z.coerce.number({ message: 'expected a whole number of at least 1' }).int().min(1).default(50),
  MAX_FORM_FIELD_KB: z.coerce.number({ message: 'expected a positive number of KiB' }).positive().default(64),
  UPLOAD_IDLE_TIMEOUT_SECONDS: z.coerce.number({ message: 'expected a positive number of seconds' }).positive().default(60),
  STAGED_UPLOAD_MAX_AGE_HOURS: z.coerce.number({ message: 'expected a positive number of hours' }).positive().default(24),
  ARCHIVE_MAX_ENTRIES: z.coerce.number({ message: 'expected an integer' }).int().min(1).default(100_000),
  ARCHIVE_MAX_ENTRY_MB: z.coerce.number({ message: 'expected a positive number of MiB' }).positive().default(2048),
  ARCHIVE_MAX_EXTRACTED_MB: z.coerce.number({ message: 'expected a number of MiB' }).positive().default(10_240),
  ARCHIVE_MAX_RATIO: z.coerce.number({ message: 'expected a ratio of at least 1' }).min(1).default(100),
  ARCHIVE_RATIO_FLOOR_MB: z.coerce.number({ message: 'expected a number of MiB, 0 or more' }).min(0).default(16),
  OBJECT_STORE_URL: z
    .string()
    .refine((value) => parseS3Uri(value) !== undefined, 'expected s3://bucket or s3://bucket/prefix')
    .optional(),
  S3_ENDPOINT: url.optional(),
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  S3_FORCE_PATH_STYLE: booleanString.optional(),
  STS_ENDPOINT: url.optional(),
  S3_SOURCE_POLICY: z.string().optional(),
  PIPELINE_HOST: z.string().min(1).default('127.0.0.1'),
  PIPELINE_PORT: port.default(8091),
  PIPELINE_TOKEN: secret(16).optional(),
  OIDC_ISSUER: url.optional(),
  OIDC_CLIENT_ID: z.string().min(1).default('media-dataset-service'),
  OIDC_CLIENT_SECRET: secret(16).optional(),
  KEYCLOAK_PORT: port.default(8180),
  KEYCLOAK_URL: url.optional(),
});

export type Env = Record<string, string | undefined>;

export interface Config {
  runMode: 'CLOUD' | 'ONPREM';
  disableAuth: boolean;
  addMediaEnabled: boolean;
  api: { host: string; port: number };
  dataDir: string;
  logLevel: string;
  /** pretty: readable lines for a person; json: one JSON object a line; auto: pretty on a terminal, else json. */
  logFormat: LogFormat;
  database: {
    url?: string;
    poolMax: number;
    embeddedPort: number;
    /** Bounds on opening a connection and on waiting for a free one, so an outage fails requests fast (503). */
    connectTimeoutMs: number;
    acquireTimeoutMs: number;
    queryTimeoutMs: number;
  };
  temporal: {
    address?: string;
    namespace: string;
    embeddedPort: number;
    embeddedUiPort: number;
    binary?: string;
    /** A workflow bundle made beforehand (bundleWorkflowCode): the worker starts without bundling the workflows itself. */
    workflowBundle?: string;
    taskQueue: string;
    /** Deadline of each call the API makes to Temporal (long polls for a result excepted). */
    rpcTimeoutMs: number;
    /** Where browsers open the Temporal Web UI (the web app links each task's workflow there); none when unknown. */
    uiUrl: string | null;
  };
  qdrant: { url?: string; apiKey?: string; quantization: QdrantQuantization };
  secretKey?: string;
  admin: { email: string; password?: string };
  auth: {
    sessionTtlHours: number;
    tokenMaxLifetimeSeconds: number;
    login: LoginThrottleSettings;
    /** Lifetime of a new API key, which is also the longest a caller may ask for (null: keys never expire unless asked); live keys per user. */
    apiKeys: { lifetimeDays: number | null; maxPerUser: number };
  };
  /**
   * The storage collector (workflows/storageCollection.ts): how long a deleted snapshot's data and a finished
   * export's archive are kept, and how often it runs (it also runs after every dataset delete).
   */
  storageRelease: { snapshotRetentionDays: number; exportRetentionDays: number; intervalMinutes: number };
  /** Whether X-Forwarded-* headers (client address, host, scheme) are believed: only behind a proxy that sets them. */
  trustProxy: boolean;
  uploads: {
    maxFileBytes: number;
    maxFiles: number;
    /** Text fields of any multipart request: how many, and how long each. */
    maxFields: number;
    maxFieldBytes: number;
    /** An upload that sends nothing for this long is answered 408 and its staged bytes removed. */
    idleTimeoutMs: number;
    /** Staged files older than this are leftovers of a dead process, removed when the API starts. */
    staleAfterMs: number;
  };
  mediaUrlTtlSeconds: number;
  /**
   * Where users reach this service (PUBLIC_URL, else derived from the listen address): the base of
   * the links we hand out, the OIDC redirect URIs, and the origin a browser's writes must come from.
   * Never taken from a request's headers.
   */
  publicUrl: string;
  models: { dir: string; imageModel: string; inferenceThreads: number };
  /** Models reached over the network: the OpenAI-compatible vision endpoint for captions (when VISION_CAPTION_URL is set). */
  enrichment: { visionCaption?: { url: string; model: string; apiKey?: string } };
  video: { everyMs: number; maxFrames: number };
  /** Which queues `npm run worker` serves: both, or only the workflows and I/O activities, or only inference (its own machines). */
  workerQueues: 'all' | 'workflows' | 'inference';
  /** Worker processes `npm start` runs (they share the cores: see lib/embedded/workerProcesses.ts). */
  workerProcesses: number;
  /**
   * How indexing splits a run's files: files per chunk, chunks of one run in flight, files one chunk activity decodes at once;
   * and how many images and frames one neighbour-search chunk of an analysis searches (its chunks run chunkConcurrency at once).
   */
  indexing: { chunkSize: number; chunkConcurrency: number; decodeConcurrency: number; analysisChunkSize: number; reindexIncrementalMaxShare: number };
  archives: ArchiveLimits;
  s3: S3Settings;
  /** Which object-storage locations and roles each organization's add_media may read (S3_SOURCE_POLICY); none by default. */
  s3SourcePolicy: S3SourcePolicy;
  /** Where media, thumbnails and published indexes live when not under DATA_DIR/objects: a bucket and key prefix (S3_* settings). */
  objectStore?: S3Location;
  /** Where the API serves the on-premises pipeline trigger (GET /api/v1/process/add_media); port 0 picks a free one. */
  pipeline: { host: string; port: number; token?: string };
  /** The OpenID Connect provider users log in through (ONPREM with auth enabled and OIDC_ISSUER set). */
  oidc?: OidcSettings;
  /** The embedded Keycloak `npm start` runs when ONPREM asks for logins and names no OIDC_ISSUER. */
  keycloak: { port: number; url: string; clientId: string; clientSecret?: string };
}

export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

export class ConfigError extends Error {}

const s3Prefix = z
  .string({ message: 'expected s3://bucket or s3://bucket/prefix/' })
  .transform((value, ctx) => {
    const parsed = parseS3Uri(value);
    const location = parsed && canonicalS3Location(parsed);
    if (!location) ctx.addIssue({ code: 'custom', message: `expected s3://bucket or s3://bucket/prefix/ (got ${JSON.stringify(value)})` });
    return location ?? { bucket: '', key: '' };
  });

const s3SourceRole = z.strictObject({
  arn: z.string({ message: 'expected a role ARN' }).regex(/^arn:\S+$/, 'expected a role ARN (arn:…)'),
  // AWS's own bounds for an ExternalId; a role without one could be assumed for any tenant that learns its ARN.
  external_id: z
    .string({ message: 'expected an external_id' })
    .regex(/^[\w+=,.@:/-]{2,1224}$/, 'expected an external_id of 2-1224 letters, digits or +=,.@:/-'),
  prefixes: z.array(s3Prefix).min(1, 'expected at least one prefix (or no prefixes field)').optional(),
});

const organizationKey = /^(\*|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/;

/** S3_SOURCE_POLICY: `{"<organization id>|*": {"prefixes": ["s3://bucket/prefix/"], "roles": [{"arn", "external_id"}]}}`. */
const s3SourcePolicySchema = z.record(
  z.string().regex(organizationKey),
  z.strictObject({ prefixes: z.array(s3Prefix).default([]), roles: z.array(s3SourceRole).default([]) }),
  { error: (issue) => (issue.code === 'invalid_key' ? 'expected an organization id (UUID) or "*" as key' : undefined) },
);

/** The validated policy; the service's own bucket (OBJECT_STORE_URL) is refused as a prefix, since it holds every tenant's blobs. */
export function loadS3SourcePolicy(text: string | undefined, objectStore?: S3Location): S3SourcePolicy {
  const refuse = (message: string) => new ConfigError(`Invalid configuration: S3_SOURCE_POLICY: ${message}`);
  const policy: S3SourcePolicy = { grants: {}, reservedBucket: objectStore?.bucket };
  if (text === undefined) return policy;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw refuse(`expected a JSON object (${(error as Error).message})`);
  }
  const parsed = s3SourcePolicySchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw refuse(`${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}`);
  }
  for (const [organization, entry] of Object.entries(parsed.data)) {
    const grant: S3SourceGrant = {
      prefixes: entry.prefixes,
      roles: entry.roles.map((role) => ({ arn: role.arn, externalId: role.external_id, ...(role.prefixes ? { prefixes: role.prefixes } : {}) })),
    };
    const reserved = [...grant.prefixes, ...grant.roles.flatMap((role) => role.prefixes ?? [])].find((prefix) => prefix.bucket === objectStore?.bucket);
    if (reserved) {
      throw refuse(`${s3UriOf(reserved)} is in OBJECT_STORE_URL's bucket, the service's own store of every organization's media: it cannot be a source`);
    }
    const key = organization === EVERY_ORGANIZATION ? organization : organization.toLowerCase();
    const earlier = policy.grants[key];
    policy.grants[key] = earlier ? { prefixes: [...earlier.prefixes, ...grant.prefixes], roles: [...earlier.roles, ...grant.roles] } : grant;
  }
  return policy;
}

/** The Temporal dev server `npm start` runs serves its UI on this machine: the host users reach the API at, the UI's port. */
/** The embedded Temporal UI as the users of PUBLIC_URL reach it (the launcher starts it on the same machine). */
export function embeddedTemporalUiUrl(publicUrl: string, uiPort: number): string {
  return `http://${new URL(publicUrl).hostname}:${uiPort}`;
}

/** PUBLIC_URL when unset: the listen address as a local browser reaches it (any-address hosts as localhost). */
export function defaultPublicUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${reachable}:${port}`;
}

/** Reads and validates the environment; throws a ConfigError naming the first bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue.path[0]);
    const field = envSchema.shape[name as keyof typeof envSchema.shape];
    const isSecret = field instanceof z.ZodOptional && SECRET_SCHEMAS.has(field.unwrap() as z.ZodType);
    const shown = isSecret ? ' (value not shown)' : `=${JSON.stringify(present[name] ?? '')}`;
    throw new ConfigError(`Invalid configuration: ${name}${shown}: ${issue.message}`);
  }
  const e = parsed.data;
  const publicUrl = (e.PUBLIC_URL ?? defaultPublicUrl(e.API_HOST, e.API_PORT)).replace(/\/+$/, '');
  const objectStore = e.OBJECT_STORE_URL ? parseS3Uri(e.OBJECT_STORE_URL) : undefined;
  const disableAuth = e.DISABLE_AUTH ?? e.RUN_MODE === 'ONPREM';
  if (disableAuth && e.RUN_MODE === 'CLOUD') {
    throw new ConfigError('Invalid configuration: DISABLE_AUTH=true is only allowed with RUN_MODE=ONPREM');
  }
  if (e.OIDC_ISSUER && e.RUN_MODE === 'CLOUD') {
    throw new ConfigError('Invalid configuration: OIDC_ISSUER is only used with RUN_MODE=ONPREM (CLOUD logs in with a password)');
  }
  if (e.OIDC_ISSUER && !e.OIDC_CLIENT_SECRET) {
    throw new ConfigError('Invalid configuration: OIDC_CLIENT_SECRET is required with OIDC_ISSUER (a confidential client)');
  }
  if (e.RUN_MODE === 'CLOUD' && !e.SECRET_KEY) {
    throw new ConfigError('Invalid configuration: SECRET_KEY is required when RUN_MODE=CLOUD');
  }
  return {
    runMode: e.RUN_MODE,
    disableAuth,
    addMediaEnabled: e.ADD_MEDIA_ENABLED,
    api: { host: e.API_HOST, port: e.API_PORT },
    dataDir: path.resolve(e.DATA_DIR),
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    database: {
      url: e.DATABASE_URL,
      poolMax: e.DATABASE_POOL_MAX,
      embeddedPort: e.EMBEDDED_PG_PORT,
      connectTimeoutMs: Math.round(e.DATABASE_CONNECT_TIMEOUT_SECONDS * 1000),
      acquireTimeoutMs: Math.round(e.DATABASE_ACQUIRE_TIMEOUT_SECONDS * 1000),
      queryTimeoutMs: Math.round(e.DATABASE_QUERY_TIMEOUT_SECONDS * 1000),
    },
    temporal: {
      address: e.TEMPORAL_ADDRESS,
      namespace: e.TEMPORAL_NAMESPACE,
      embeddedPort: e.TEMPORAL_PORT,
      embeddedUiPort: e.TEMPORAL_UI_PORT,
      binary: e.TEMPORAL_BIN,
      workflowBundle: e.WORKFLOW_BUNDLE,
      taskQueue: e.TASK_QUEUE,
      rpcTimeoutMs: Math.round(e.TEMPORAL_RPC_TIMEOUT_SECONDS * 1000),
      uiUrl: (e.TEMPORAL_UI_URL ?? (e.TEMPORAL_ADDRESS ? undefined : embeddedTemporalUiUrl(publicUrl, e.TEMPORAL_UI_PORT)))?.replace(/\/+$/, '') ?? null,
    },
    qdrant: { url: e.QDRANT_URL, apiKey: e.QDRANT_API_KEY, quantization: e.QDRANT_QUANTIZATION },
    secretKey: e.SECRET_KEY,
    admin: { email: e.ADMIN_EMAIL.toLowerCase(), password: e.ADMIN_PASSWORD },
    auth: {
      sessionTtlHours: e.SESSION_TTL_HOURS,
      tokenMaxLifetimeSeconds: e.TOKEN_MAX_LIFETIME_SECONDS,
      apiKeys: { lifetimeDays: e.API_KEY_TTL_DAYS === 0 ? null : e.API_KEY_TTL_DAYS, maxPerUser: e.API_KEY_MAX_PER_USER },
      login: {
        maxFailuresPerAccount: e.LOGIN_MAX_FAILURES,
        maxFailuresPerIp: e.LOGIN_MAX_FAILURES_PER_IP,
        windowMs: e.LOGIN_FAILURE_WINDOW_SECONDS * 1000,
        lockoutMs: e.LOGIN_LOCKOUT_SECONDS * 1000,
      },
    },
    trustProxy: e.TRUST_PROXY,
    storageRelease: {
      snapshotRetentionDays: e.SNAPSHOT_RETENTION_DAYS,
      exportRetentionDays: e.EXPORT_RETENTION_DAYS,
      intervalMinutes: e.STORAGE_COLLECTION_INTERVAL_MINUTES,
    },
    models: {
      dir: path.resolve(e.MODELS_DIR ?? path.join(projectRoot(), '.tools', 'models')),
      imageModel: e.IMAGE_MODEL,
      inferenceThreads: e.INFERENCE_THREADS ?? Math.max(1, os.availableParallelism()),
    },
    enrichment: {
      visionCaption: e.VISION_CAPTION_URL
        ? { url: e.VISION_CAPTION_URL.replace(/\/+$/, ''), model: e.VISION_CAPTION_MODEL, apiKey: e.VISION_CAPTION_API_KEY }
        : undefined,
    },
    workerQueues: e.WORKER_QUEUES,
    workerProcesses: e.WORKER_PROCESSES,
    indexing: {
      chunkSize: e.INDEX_CHUNK_SIZE,
      chunkConcurrency: e.INDEX_CHUNK_CONCURRENCY,
      analysisChunkSize: e.ANALYSIS_CHUNK_SIZE,
      reindexIncrementalMaxShare: e.REINDEX_INCREMENTAL_MAX_SHARE,
      decodeConcurrency: e.DECODE_CONCURRENCY ?? Math.min(64, DECODES_PER_CORE * Math.max(1, os.availableParallelism())),
    },
    video: { everyMs: e.VIDEO_FRAME_INTERVAL_MS, maxFrames: e.VIDEO_MAX_FRAMES },
    mediaUrlTtlSeconds: e.MEDIA_URL_TTL_SECONDS,
    publicUrl,
    uploads: {
      maxFileBytes: Math.floor(e.MAX_UPLOAD_FILE_MB * 1024 * 1024),
      maxFiles: e.MAX_FILES_PER_REQUEST,
      maxFields: e.MAX_FORM_FIELDS,
      maxFieldBytes: Math.floor(e.MAX_FORM_FIELD_KB * 1024),
      idleTimeoutMs: Math.round(e.UPLOAD_IDLE_TIMEOUT_SECONDS * 1000),
      staleAfterMs: Math.round(e.STAGED_UPLOAD_MAX_AGE_HOURS * 3600_000),
    },
    archives: {
      maxEntries: e.ARCHIVE_MAX_ENTRIES,
      maxEntryBytes: Math.floor(e.ARCHIVE_MAX_ENTRY_MB * 1024 * 1024),
      maxTotalBytes: Math.floor(e.ARCHIVE_MAX_EXTRACTED_MB * 1024 * 1024),
      maxRatio: e.ARCHIVE_MAX_RATIO,
      ratioFloorBytes: Math.floor(e.ARCHIVE_RATIO_FLOOR_MB * 1024 * 1024),
    },
    s3: {
      endpoint: e.S3_ENDPOINT,
      region: e.S3_REGION,
      accessKeyId: e.S3_ACCESS_KEY_ID,
      secretAccessKey: e.S3_SECRET_ACCESS_KEY,
      forcePathStyle: e.S3_FORCE_PATH_STYLE ?? e.S3_ENDPOINT !== undefined,
      stsEndpoint: e.STS_ENDPOINT,
    },
    s3SourcePolicy: loadS3SourcePolicy(e.S3_SOURCE_POLICY, objectStore),
    ...(objectStore ? { objectStore } : {}),
    pipeline: { host: e.PIPELINE_HOST, port: e.PIPELINE_PORT, token: e.PIPELINE_TOKEN },
    oidc:
      e.OIDC_ISSUER && !disableAuth
        ? { issuer: e.OIDC_ISSUER.replace(/\/+$/, ''), clientId: e.OIDC_CLIENT_ID, clientSecret: e.OIDC_CLIENT_SECRET! }
        : undefined,
    keycloak: {
      port: e.KEYCLOAK_PORT,
      url: (e.KEYCLOAK_URL ?? `http://localhost:${e.KEYCLOAK_PORT}`).replace(/\/+$/, ''),
      clientId: e.OIDC_CLIENT_ID,
      clientSecret: e.OIDC_CLIENT_SECRET,
    },
  };
}

export type PipelineTriggerAccess = { serve: false; reason: string } | { serve: true; token?: string };

/**
 * Whether the API serves the pipeline trigger, and behind which credential. The spec puts it on
 * on-premises deployments only, so never in CLOUD; where the API asks for logins, the trigger asks
 * for PIPELINE_TOKEN, and without one it stays off. A token set is always required.
 */
export function pipelineTriggerAccess(config: Config): PipelineTriggerAccess {
  if (config.runMode === 'CLOUD') return { serve: false, reason: 'RUN_MODE=CLOUD has no on-premises pipeline trigger' };
  if (config.pipeline.token) return { serve: true, token: config.pipeline.token };
  if (!config.disableAuth) return { serve: false, reason: 'authentication is enabled: set PIPELINE_TOKEN to serve the pipeline trigger' };
  return { serve: true };
}
