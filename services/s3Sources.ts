import type { Db } from '../db/connection';
import { datasetOrganizationId } from '../db/repositories/datasets';
import { createS3Client, s3Entries, type S3Client, type S3Location, type S3Settings } from '../lib/sources/s3';
import type { SourceEntry } from '../lib/sources/sourceEntry';
import { s3ReadScope, type S3SourcePolicy } from '../lib/sources/sourcePolicy';

export interface S3SourceDeps {
  db: Db;
  s3: S3Settings;
  policy: S3SourcePolicy;
}

/**
 * An add_media object-storage source, opened as its dataset's organization may read it
 * (S3_SOURCE_POLICY): as the allowed role when one is asked for, with every entry checked against
 * the allowance. Throws SourceNotAllowedError for a URI, role or entry outside it. The caller
 * destroys the client. The API's check and the worker's read both come here: the organization is
 * read from the database each time, never trusted from the request.
 */
export async function openS3Source(
  deps: S3SourceDeps,
  datasetId: string,
  source: { location: S3Location; uri: string; assumeRole?: string },
  sessionName: string,
): Promise<{ client: S3Client; entries: AsyncGenerator<SourceEntry> }> {
  const scope = s3ReadScope(deps.policy, await datasetOrganizationId(deps.db, datasetId), source.assumeRole);
  const location = scope.requireAllowed(source.location, source.uri);
  const role = scope.role && { roleArn: scope.role.arn, externalId: scope.role.externalId, sessionName };
  const client = await createS3Client(deps.s3, role);
  return { client, entries: s3Entries(client, location, scope.isAllowed) };
}
