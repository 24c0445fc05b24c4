import { canonicalS3Location, type S3Location } from './s3';
import { SourceNotAllowedError } from './sourceEntry';

/** A role an organization may read its sources as: assumed with the operator's credentials and its ExternalId. */
export interface S3SourceRole {
  arn: string;
  externalId: string;
  /** When set, reads as the role stay within these too; otherwise the role's own permissions bound them. */
  prefixes?: S3Location[];
}

/** What one entry of S3_SOURCE_POLICY lets an organization read with add_media. */
export interface S3SourceGrant {
  /** Where reads with the operator's own credentials may go. */
  prefixes: S3Location[];
  roles: S3SourceRole[];
}

/** S3_SOURCE_POLICY: grants by organization id, `*` for every organization. No grant: no s3_uri. */
export interface S3SourcePolicy {
  grants: Record<string, S3SourceGrant>;
  /** The service's own media store (OBJECT_STORE_URL): every tenant's blobs, never a source. */
  reservedBucket?: string;
}

export const EVERY_ORGANIZATION = '*';

/** The grants of `*` and of the organization, together. */
export function allowedS3Locations(policy: S3SourcePolicy, organizationId: string): S3SourceGrant {
  const grants = [policy.grants[EVERY_ORGANIZATION], policy.grants[organizationId]].filter((grant) => grant !== undefined);
  return { prefixes: grants.flatMap((grant) => grant.prefixes), roles: grants.flatMap((grant) => grant.roles) };
}

/** `location` is `prefix` or below it: same bucket, key equal or continuing at a `/`. */
export function isWithin(prefix: S3Location, location: S3Location): boolean {
  if (prefix.bucket !== location.bucket) return false;
  const base = prefix.key.replace(/\/+$/, '');
  return base === '' || location.key === base || location.key.startsWith(`${base}/`);
}

/** Where one add_media read may go, and the role it reads as. */
export interface S3ReadScope {
  role?: S3SourceRole;
  /** Checked on the canonical key, so `..` cannot leave an allowed prefix. */
  isAllowed(location: S3Location): boolean;
  /** The canonical form of `location`, or SourceNotAllowedError naming `uri`. */
  requireAllowed(location: S3Location, uri: string): S3Location;
}

/**
 * The read scope of an add_media source of `organizationId`, as `roleArn` when given (which must be
 * one of the organization's roles: SourceNotAllowedError otherwise). With the operator's credentials,
 * reads stay within the organization's prefixes; as a role, within the role's prefixes if it has any.
 */
export function s3ReadScope(policy: S3SourcePolicy, organizationId: string, roleArn?: string): S3ReadScope {
  const grant = allowedS3Locations(policy, organizationId);
  const role = roleArn === undefined ? undefined : grant.roles.find((candidate) => candidate.arn === roleArn);
  if (roleArn !== undefined && !role) {
    throw new SourceNotAllowedError(
      `assume_role ${roleArn} is not a role the operator allows this dataset's organization to use: roles are allowed per organization (S3_SOURCE_POLICY)`,
    );
  }
  const prefixes = role ? role.prefixes : grant.prefixes;
  const isAllowed = (location: S3Location) => {
    const canonical = canonicalS3Location(location);
    if (!canonical || canonical.bucket === policy.reservedBucket) return false;
    return prefixes === undefined || prefixes.some((prefix) => isWithin(prefix, canonical));
  };
  return {
    role,
    isAllowed,
    requireAllowed(location, uri) {
      const canonical = canonicalS3Location(location);
      if (!canonical || !isAllowed(canonical)) throw SourceNotAllowedError.outside(uri);
      return canonical;
    },
  };
}
