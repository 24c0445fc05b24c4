import { loadConfig, loadS3SourcePolicy } from '../../lib/config';
import { canonicalS3Location } from '../../lib/sources/s3';
import { allowedS3Locations, s3ReadScope } from '../../lib/sources/sourcePolicy';
import { SourceNotAllowedError } from '../../lib/sources/sourceEntry';

const ORG_A = '6f1d2c3b-4a59-4e8f-9c7d-0b1a2c3d4e5f';
const ORG_B = '0e9d8c7b-6a59-4e8f-9c7d-0b1a2c3d4e5f';
const at = (uri: string) => ({ bucket: uri.slice(5).split('/')[0], key: uri.slice(5).split('/').slice(1).join('/') });

describe('S3_SOURCE_POLICY', () => {
  it('allows no organization any location without a policy', () => {
    const scope = s3ReadScope(loadConfig({}).s3SourcePolicy, ORG_A);
    expect(scope.isAllowed(at('s3://anything/x.jpg'))).toBe(false);
  });

  it('refuses bad JSON, a bad shape, a bad key, prefix, ARN or ExternalId with a ConfigError naming where', () => {
    const refusal = (text: string) => () => loadConfig({ S3_SOURCE_POLICY: text });
    expect(refusal('{not json')).toThrow(/^Invalid configuration: S3_SOURCE_POLICY: expected a JSON object/);
    expect(refusal('[]')).toThrow(/^Invalid configuration: S3_SOURCE_POLICY: /);
    expect(refusal('{"acme": {}}')).toThrow('S3_SOURCE_POLICY: acme: expected an organization id (UUID) or "*" as key');
    expect(refusal(`{"${ORG_A}": {"prefixes": ["https://x/y"]}}`)).toThrow(`S3_SOURCE_POLICY: ${ORG_A}.prefixes.0: expected s3://bucket or s3://bucket/prefix/`);
    expect(refusal('{"*": {"prefixes": ["s3://b/../../x"]}}')).toThrow('S3_SOURCE_POLICY: *.prefixes.0: expected s3://bucket');
    expect(refusal('{"*": {"buckets": []}}')).toThrow('S3_SOURCE_POLICY: *: ');
    expect(refusal('{"*": {"roles": [{"arn": "role/x", "external_id": "abc"}]}}')).toThrow('S3_SOURCE_POLICY: *.roles.0.arn: expected a role ARN');
    expect(refusal('{"*": {"roles": [{"arn": "arn:aws:iam::1:role/x"}]}}')).toThrow('S3_SOURCE_POLICY: *.roles.0.external_id: expected an external_id');
    expect(refusal('{"*": {"roles": [{"arn": "arn:aws:iam::1:role/x", "external_id": "a b"}]}}')).toThrow('external_id of 2-1224');
  });

  it("refuses a prefix (an organization's or a role's) in OBJECT_STORE_URL's bucket", () => {
    const store = { OBJECT_STORE_URL: 's3://media-store/blobs' };
    expect(() => loadConfig({ ...store, S3_SOURCE_POLICY: '{"*": {"prefixes": ["s3://media-store/incoming/"]}}' })).toThrow(
      "S3_SOURCE_POLICY: s3://media-store/incoming/ is in OBJECT_STORE_URL's bucket",
    );
    const role = { arn: 'arn:aws:iam::1:role/x', external_id: 'ext-1', prefixes: ['s3://media-store'] };
    expect(() => loadConfig({ ...store, S3_SOURCE_POLICY: JSON.stringify({ [ORG_A]: { roles: [role] } }) })).toThrow("OBJECT_STORE_URL's bucket");
    // A role without prefixes still never reads the service's own bucket.
    const open = loadS3SourcePolicy(JSON.stringify({ [ORG_A]: { roles: [{ ...role, prefixes: undefined }] } }), at('s3://media-store/blobs'));
    const scope = s3ReadScope(open, ORG_A, role.arn);
    expect(scope.isAllowed(at('s3://tenant/x.jpg'))).toBe(true);
    expect(scope.isAllowed(at('s3://media-store/blobs/ab/cd'))).toBe(false);
  });

  it('gives an organization its own grant plus that of *, and matches prefixes at a / boundary after resolving ..', () => {
    const policy = loadS3SourcePolicy(
      JSON.stringify({ '*': { prefixes: ['s3://shared/public/'] }, [ORG_A.toUpperCase()]: { prefixes: ['s3://tenant-a/data'] }, [ORG_B]: { prefixes: ['s3://tenant-b'] } }),
    );
    expect(allowedS3Locations(policy, ORG_A).prefixes).toEqual([at('s3://shared/public/'), at('s3://tenant-a/data')]);
    const scope = s3ReadScope(policy, ORG_A);
    for (const uri of ['s3://tenant-a/data', 's3://tenant-a/data/', 's3://tenant-a/data/x/y.jpg', 's3://shared/public/a.jpg', 's3://shared/public', 's3://tenant-a/other/../data/z.jpg']) {
      expect([uri, scope.isAllowed(at(uri))]).toEqual([uri, true]);
    }
    for (const uri of ['s3://tenant-a/data2/x.jpg', 's3://tenant-a/', 's3://tenant-a/data/../x.jpg', 's3://tenant-a/../tenant-b/x', 's3://tenant-b/x.jpg', 's3://shared/publication']) {
      expect([uri, scope.isAllowed(at(uri))]).toEqual([uri, false]);
    }
    expect(() => scope.requireAllowed(at('s3://tenant-b/x'), 's3://tenant-b/x')).toThrow(SourceNotAllowedError);
    expect(scope.requireAllowed(at('s3://tenant-a/data/./x/../y.jpg'), 'u')).toEqual(at('s3://tenant-a/data/y.jpg'));
  });

  it('lets an organization read as its own roles only, each within its prefixes when it has any', () => {
    const roleA = { arn: 'arn:aws:iam::111111111111:role/a', external_id: 'ext-a', prefixes: ['s3://tenant-a'] };
    const roleB = { arn: 'arn:aws:iam::222222222222:role/b', external_id: 'ext-b' };
    const policy = loadS3SourcePolicy(JSON.stringify({ [ORG_A]: { prefixes: ['s3://tenant-a/data/'], roles: [roleA] }, [ORG_B]: { roles: [roleB] } }));
    expect(() => s3ReadScope(policy, ORG_A, roleB.arn)).toThrow(`assume_role ${roleB.arn} is not a role the operator allows`);
    const asA = s3ReadScope(policy, ORG_A, roleA.arn);
    expect(asA.role).toEqual({ arn: roleA.arn, externalId: 'ext-a', prefixes: [at('s3://tenant-a')] });
    expect(asA.isAllowed(at('s3://tenant-a/elsewhere/x.jpg'))).toBe(true);
    expect(asA.isAllowed(at('s3://tenant-b/x.jpg'))).toBe(false);
    expect(s3ReadScope(policy, ORG_B, roleB.arn).isAllowed(at('s3://anywhere/x.jpg'))).toBe(true);
    expect(s3ReadScope(policy, ORG_B).isAllowed(at('s3://anywhere/x.jpg'))).toBe(false);
  });

  it('resolves . and .. in keys, and refuses a key that climbs out of its bucket', () => {
    expect(canonicalS3Location(at('s3://b/a/./c/../d/'))).toEqual(at('s3://b/a/d/'));
    expect(canonicalS3Location(at('s3://b/a/..'))).toEqual(at('s3://b/'));
    expect(canonicalS3Location(at('s3://b/a/../../x'))).toBeUndefined();
  });
});
