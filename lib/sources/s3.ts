import path from 'node:path';
import type { Readable } from 'node:stream';
import type * as S3Sdk from '@aws-sdk/client-s3';
import type * as StsSdk from '@aws-sdk/client-sts';
import { manifestFormatOf, parseManifest } from './manifest';
import { MissingEntryError, MediaSourceError, SourceNotAllowedError, type SourceEntry } from './sourceEntry';

export type S3Client = S3Sdk.S3Client;

/**
 * The S3 SDK, required on first use instead of when a process starts: a deployment that keeps its media on disk and
 * reads no bucket never loads it (70 CPU ms of every API and worker start, and of every test file).
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const s3Sdk = () => require('@aws-sdk/client-s3') as typeof S3Sdk;

/** The object storage add_media reads from (AWS S3 or any S3-compatible server). */
export interface S3Settings {
  endpoint?: string;
  region: string;
  /** Without keys the AWS default chain applies (environment, profile, instance role). */
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle: boolean;
  stsEndpoint?: string;
}

export interface S3Location {
  bucket: string;
  key: string;
}

export function parseS3Uri(uri: string): S3Location | undefined {
  const match = /^s3:\/\/([a-z0-9][a-z0-9.\-_]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(uri.trim());
  return match ? { bucket: match[1], key: match[2] ?? '' } : undefined;
}

export const s3UriOf = (location: S3Location) => `s3://${location.bucket}/${location.key}`;

/**
 * The location with `.` and `..` key segments resolved, so what is checked is what is read;
 * undefined when `..` climbs out of the bucket.
 */
export function canonicalS3Location(location: S3Location): S3Location | undefined {
  const segments: string[] = [];
  for (const segment of location.key.split('/')) {
    if (segment === '.') continue;
    if (segment !== '..') segments.push(segment);
    else if (segments.pop() === undefined) return undefined;
  }
  return { bucket: location.bucket, key: segments.join('/') };
}

const configuredCredentials = (settings: S3Settings) =>
  settings.accessKeyId && settings.secretAccessKey ? { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } : undefined;

/** A client for the configured storage with its own keys (or the AWS default chain). */
export function s3ClientOf(settings: S3Settings, credentials = configuredCredentials(settings)): S3Client {
  return new (s3Sdk().S3Client)({ region: settings.region, credentials, endpoint: settings.endpoint, forcePathStyle: settings.forcePathStyle });
}

/** A role to read as: assumed through STS, always with the ExternalId its owner's trust policy asks for. */
export interface AssumedRole {
  roleArn: string;
  externalId: string;
  sessionName: string;
}

/** A client for the configured storage, acting as `assumeRole` (through STS) when one is given. */
export async function createS3Client(settings: S3Settings, assumeRole?: AssumedRole): Promise<S3Client> {
  const base = { region: settings.region, credentials: configuredCredentials(settings) };
  let credentials = base.credentials;
  if (assumeRole) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { AssumeRoleCommand, STSClient } = require('@aws-sdk/client-sts') as typeof StsSdk;
    const sts = new STSClient({ ...base, endpoint: settings.stsEndpoint ?? settings.endpoint });
    try {
      const { Credentials } = await sts.send(
        new AssumeRoleCommand({
          RoleArn: assumeRole.roleArn,
          RoleSessionName: assumeRole.sessionName,
          ExternalId: assumeRole.externalId,
          DurationSeconds: 3600,
        }),
      );
      if (!Credentials?.AccessKeyId || !Credentials.SecretAccessKey) throw new Error('STS returned no credentials');
      credentials = {
        accessKeyId: Credentials.AccessKeyId,
        secretAccessKey: Credentials.SecretAccessKey,
        sessionToken: Credentials.SessionToken,
      } as typeof credentials;
    } catch (error) {
      throw new MediaSourceError(`Could not assume role ${assumeRole.roleArn}: ${(error as Error).message}`);
    } finally {
      sts.destroy();
    }
  }
  return s3ClientOf(settings, credentials);
}

async function getObjectStream(client: S3Client, location: S3Location): Promise<Readable> {
  const { GetObjectCommand, NoSuchKey } = s3Sdk();
  try {
    const { Body } = await client.send(new GetObjectCommand({ Bucket: location.bucket, Key: location.key }));
    if (!Body) throw new Error('empty response');
    return Body as Readable;
  } catch (error) {
    if (error instanceof NoSuchKey) throw new MissingEntryError(`s3://${location.bucket}/${location.key} does not exist`);
    throw error;
  }
}

async function* listKeys(client: S3Client, bucket: string, prefix: string): AsyncGenerator<string> {
  const { ListObjectsV2Command } = s3Sdk();
  let token: string | undefined;
  for (;;) {
    const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    for (const object of listed.Contents ?? []) if (object.Key && !object.Key.endsWith('/')) yield object.Key;
    if (!listed.IsTruncated || !listed.NextContinuationToken) return;
    token = listed.NextContinuationToken;
  }
}

/** The object keys a manifest lists: `s3://bucket/key` (dot segments resolved), other entries relative to the manifest's folder. */
async function manifestLocations(client: S3Client, manifest: S3Location): Promise<Array<{ name: string; location: S3Location }>> {
  const format = manifestFormatOf(manifest.key)!;
  const stream = await getObjectStream(client, manifest);
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  const references = await parseManifest(Buffer.concat(chunks), format);
  return references.map((reference) => {
    const absolute = parseS3Uri(reference);
    // One climbing out of its bucket stays as listed, for the caller's allowance to refuse.
    if (absolute) return { name: absolute.key, location: canonicalS3Location(absolute) ?? absolute };
    const key = path.posix.join(path.posix.dirname(manifest.key), reference).replace(/^\/+/, '');
    return { name: reference, location: { bucket: manifest.bucket, key } };
  });
}

const isManifest = (location: S3Location) => manifestFormatOf(location.key) !== undefined;
const folderPrefix = (key: string) => (key === '' || key.endsWith('/') ? key : `${key}/`);

/**
 * The files of an object-storage folder (every key under it), or of a manifest listing objects. Every
 * object must be `allowed` (SourceNotAllowedError otherwise): a manifest's entries all, before the first is read.
 */
export async function* s3Entries(client: S3Client, location: S3Location, allowed: (location: S3Location) => boolean): AsyncGenerator<SourceEntry> {
  if (isManifest(location)) {
    const listed = await manifestLocations(client, location);
    const outside = listed.find((entry) => !allowed(entry.location));
    if (outside) throw SourceNotAllowedError.outside(`${s3UriOf(outside.location)}, listed in ${s3UriOf(location)},`);
    for (const { name, location: object } of listed) {
      yield { name, open: () => getObjectStream(client, object) };
    }
    return;
  }
  const prefix = folderPrefix(location.key);
  for await (const key of listKeys(client, location.bucket, prefix)) {
    const object = { bucket: location.bucket, key };
    if (!allowed(object)) throw SourceNotAllowedError.outside(s3UriOf(object));
    yield { name: key.slice(prefix.length), open: () => getObjectStream(client, object) };
  }
}
