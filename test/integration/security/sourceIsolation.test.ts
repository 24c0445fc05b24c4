import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import supertest from 'supertest';
import { createApp } from '../../../api/app';
import { Organization, Workspace } from '../../../db/models';
import { createUser } from '../../../db/repositories/users';
import { loadConfig } from '../../../lib/config';
import { blobKey } from '../../../lib/storage/objectStore';
import { createLogger } from '../../../lib/logger';
import { startWorkers } from '../../../workers/main';
import { createReadyDataset, waitForTask } from '../../support/datasets';
import { photo } from '../../support/media';
import { freePort } from '../../support/ports';
import { s3TestClientConfig, startS3Server, type S3Server } from '../../support/s3Server';
import { loginCookie } from '../../support/sessions';
import { quietTemporalLogs, startTestApi, type TestApi } from '../../support/testStack';
import { headVersionId } from '../../support/versions';

type Agent = TestApi['request'];

const password = 'correct horse battery';
const ORG_A = randomUUID();
const ORG_B = randomUUID();
const ROLE_A = { arn: 'arn:aws:iam::111111111111:role/org-a-reader', external_id: 'org-a-4f1c9e', prefixes: ['s3://tenant-a'] };
const ROLE_B = { arn: 'arn:aws:iam::222222222222:role/org-b-reader', external_id: 'org-b-b27d05' };
/** A may read only under s3://tenant-a/org-a/ (or as its role, tenant-a); B only tenant-b. */
const POLICY = {
  [ORG_A]: { prefixes: ['s3://tenant-a/org-a/'], roles: [ROLE_A] },
  [ORG_B]: { prefixes: ['s3://tenant-b'], roles: [ROLE_B] },
};
const OUTSIDE = "is outside the S3 locations this dataset's organization may read: the operator allows S3 sources per organization (S3_SOURCE_POLICY)";

/**
 * add_media from object storage with two organizations on one operator's credentials: each reads only
 * what S3_SOURCE_POLICY grants it, at the request and again in the worker, and its roles only with their
 * ExternalId. Users log in with a password (ONPREM, authentication on), each a member of one organization.
 */
describe('S3 sources are isolated per organization (S3_SOURCE_POLICY)', () => {
  let s3: S3Server;
  let client: S3Client;
  let api: TestApi;
  let stopWorkers: (() => Promise<void>) | undefined;
  let alice: Agent;
  let bob: Agent;
  let datasetA: string;
  let datasetB: string;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 's3-isolation-'));

  const put = (bucket: string, key: string, body: Buffer | string) => client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
  const startWorker = async () => {
    stopWorkers = (await startWorkers(loadConfig(api.env), createLogger('test-worker', 'silent'))).stop;
  };
  const stopWorker = async () => {
    const stop = stopWorkers;
    stopWorkers = undefined;
    await stop?.();
  };
  /** A user's requests: its own session cookie on each. */
  const signedIn = async (email: string, workspaceId: string): Promise<Agent> => {
    await createUser(api.deps.db, { email, password, workspaceId, workspaceRole: 'editor' });
    return supertest.agent(createApp(api.deps).callback()).set('Cookie', await loginCookie(api, email, password));
  };
  const organization = async (id: string, name: string) => {
    await Organization.query(api.deps.db).insert({ id, name });
    return (await Workspace.query(api.deps.db).insertAndFetch({ organization_id: id, name })).id;
  };
  const moto = (action: string) => fetch(`${s3.endpoint}/moto-api/recorder/${action}`, { method: action === 'download-recording' ? 'GET' : 'POST' });
  /** The requests moto received while recording: method, URL, headers and (decoded) body. */
  const recorded = async () => {
    const lines = (await (await moto('download-recording')).text()).split('\n').filter(Boolean);
    return lines.map((line) => {
      const entry = JSON.parse(line) as { method: string; url: string; headers: Record<string, string>; body: string; body_encoded: boolean };
      return { ...entry, body: entry.body_encoded ? Buffer.from(entry.body, 'base64').toString('utf8') : entry.body };
    });
  };
  const assumeRoleCalls = async () =>
    (await recorded()).map((entry) => new URLSearchParams(entry.body)).filter((form) => form.get('Action') === 'AssumeRole');

  beforeAll(async () => {
    s3 = await startS3Server({ port: await freePort(), dataDir: path.join(scratch, 's3') });
    client = new S3Client(s3TestClientConfig(s3.endpoint));
    for (const bucket of ['tenant-a', 'tenant-b']) await client.send(new CreateBucketCommand({ Bucket: bucket }));
    await put('tenant-a', 'org-a/photos/rocket.jpg', fs.readFileSync(photo('rocket')));
    await put('tenant-a', 'org-a/photos/camera.jpg', fs.readFileSync(photo('camera')));
    await put('tenant-a', 'org-a/archive/hubble_deep_field.jpg', fs.readFileSync(photo('hubble_deep_field')));
    await put('tenant-a', 'elsewhere/astronaut.jpg', fs.readFileSync(photo('astronaut')));
    await put('tenant-b', 'confidential/grace_hopper.jpg', fs.readFileSync(photo('grace_hopper')));
    await put('tenant-b', 'confidential/motorcycle_left.jpg', fs.readFileSync(photo('motorcycle_left')));

    quietTemporalLogs();
    api = await startTestApi({
      DISABLE_AUTH: 'false',
      ADMIN_PASSWORD: password,
      VIDEO_FRAME_INTERVAL_MS: '500',
      S3_ENDPOINT: s3.endpoint,
      S3_ACCESS_KEY_ID: 'test',
      S3_SECRET_ACCESS_KEY: 'test',
      S3_SOURCE_POLICY: JSON.stringify(POLICY),
    });
    await startWorker();
    alice = await signedIn('alice@org-a.example', await organization(ORG_A, 'Organization A'));
    bob = await signedIn('bob@org-b.example', await organization(ORG_B, 'Organization B'));
    datasetA = await createReadyDataset({ request: alice }, 'org A photos', [photo('chelsea')]);
    datasetB = await createReadyDataset({ request: bob }, 'org B photos', [photo('coffee')]);
  }, 180_000);
  afterAll(async () => {
    await stopWorker();
    await api?.close();
    client?.destroy();
    await s3?.stop();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  const addFromS3 = (agent: Agent, datasetId: string, uri: string) => agent.post(`/api/v1/dataset/${datasetId}/add_media`).field('s3_uri', uri);
  const names = async (datasetId: string) =>
    ((await api.deps.db('media').where({ version_id: await headVersionId(api.deps.db, datasetId) }).whereNull('parent_id').pluck('file_name')) as string[]).sort();
  /** What a refused request must leave as it was: the dataset's status, tasks, upload transactions and media. */
  const footprint = async (agent: Agent, datasetId: string) => ({
    status: (await agent.get(`/api/v1/dataset/${datasetId}`).expect(200)).body.status_new,
    tasks: (await api.deps.db('tasks').where({ dataset_id: datasetId }).pluck('task_id')).sort(),
    transactions: Number((await api.deps.db('upload_transactions').where({ dataset_id: datasetId }).count({ n: '*' }))[0].n),
    media: await names(datasetId),
  });
  /** Sends `request`, expects 403 with `detail`, and that nothing of the dataset changed. */
  const expectRefused = async (agent: Agent, datasetId: string, request: () => supertest.Test, detail: string) => {
    const before = await footprint(agent, datasetId);
    expect((await request().expect(403)).body).toEqual({ detail });
    expect(await footprint(agent, datasetId)).toEqual(before);
  };

  it('refuses a user of organization A an s3_uri in the bucket of B, or outside the prefix of A (403), changing nothing', async () => {
    for (const uri of ['s3://tenant-b/confidential/', 's3://tenant-b', 's3://tenant-a/elsewhere/', 's3://tenant-a/org-a/../elsewhere/', 's3://tenant-a/org-a-not']) {
      await expectRefused(alice, datasetA, () => addFromS3(alice, datasetA, uri), `${uri} ${OUTSIDE}`);
    }
    // An organization the policy does not name may read nothing at all.
    const defaultWorkspace = (await Workspace.query(api.deps.db).whereNotIn('organization_id', [ORG_A, ORG_B]).first())!.id;
    const carol = await signedIn('carol@default.example', defaultWorkspace);
    const datasetC = await createReadyDataset({ request: carol }, 'default org photos', [photo('coffee')]);
    await expectRefused(carol, datasetC, () => addFromS3(carol, datasetC, 's3://tenant-a/org-a/photos/'), `s3://tenant-a/org-a/photos/ ${OUTSIDE}`);
  }, 120_000);

  it('refuses a manifest in the folder of A that lists objects of B by s3:// URI (403), changing nothing', async () => {
    await put('tenant-a', 'org-a/lists/mixed.csv', 'uri\nphotos/rocket.jpg\ns3://tenant-b/confidential/grace_hopper.jpg\n');
    await expectRefused(
      alice,
      datasetA,
      () => addFromS3(alice, datasetA, 's3://tenant-a/org-a/lists/mixed.csv'),
      `s3://tenant-b/confidential/grace_hopper.jpg, listed in s3://tenant-a/org-a/lists/mixed.csv, ${OUTSIDE}`,
    );
    await put('tenant-a', 'org-a/lists/dots.txt', 's3://tenant-a/org-a/../elsewhere/astronaut.jpg\n');
    await expectRefused(
      alice,
      datasetA,
      () => addFromS3(alice, datasetA, 's3://tenant-a/org-a/lists/dots.txt'),
      `s3://tenant-a/elsewhere/astronaut.jpg, listed in s3://tenant-a/org-a/lists/dots.txt, ${OUTSIDE}`,
    );
  });

  it('refuses a manifest whose relative ../ entry climbs out of the prefix of A (403), changing nothing', async () => {
    await put('tenant-a', 'org-a/lists/climb.txt', 'photos/rocket.jpg\n../../elsewhere/astronaut.jpg\n');
    await expectRefused(
      alice,
      datasetA,
      () => addFromS3(alice, datasetA, 's3://tenant-a/org-a/lists/climb.txt'),
      `s3://tenant-a/elsewhere/astronaut.jpg, listed in s3://tenant-a/org-a/lists/climb.txt, ${OUTSIDE}`,
    );
    await put('tenant-a', 'org-a/lists/bucket-escape.txt', '../../../tenant-b/confidential/grace_hopper.jpg\n');
    await expectRefused(
      alice,
      datasetA,
      () => addFromS3(alice, datasetA, 's3://tenant-a/org-a/lists/bucket-escape.txt'),
      `s3://tenant-a/../tenant-b/confidential/grace_hopper.jpg, listed in s3://tenant-a/org-a/lists/bucket-escape.txt, ${OUTSIDE}`,
    );
  });

  it('refuses a role not configured for A, the role of B, and the role of A outside its prefixes (403), assuming none', async () => {
    await moto('reset-recording');
    await moto('start-recording');
    try {
      for (const arn of ['arn:aws:iam::999999999999:role/anything', ROLE_B.arn]) {
        await expectRefused(
          alice,
          datasetA,
          () => addFromS3(alice, datasetA, 's3://tenant-a/org-a/photos/').field('assume_role', arn),
          `assume_role ${arn} is not a role the operator allows this dataset's organization to use: roles are allowed per organization (S3_SOURCE_POLICY)`,
        );
      }
      await expectRefused(
        alice,
        datasetA,
        () => addFromS3(alice, datasetA, 's3://tenant-b/confidential/').field('assume_role', ROLE_A.arn),
        `s3://tenant-b/confidential/ ${OUTSIDE}`,
      );
      expect(await assumeRoleCalls()).toEqual([]);
    } finally {
      await moto('stop-recording');
    }
  });

  it('reads a folder and a manifest within the prefix of A for a user of A', async () => {
    await addFromS3(alice, datasetA, 's3://tenant-a/org-a/photos').expect(202);
    expect(await waitForTask({ request: alice }, datasetA, ['COMPLETED', 'FAILED'])).toMatchObject({ task_type: 'MEDIA_ADDITION', status: 'COMPLETED', error_message: null });
    expect(await names(datasetA)).toEqual(['camera.jpg', 'chelsea.jpg', 'rocket.jpg']);
    // A relative ../ that stays within A's prefix is A's own.
    await put('tenant-a', 'org-a/lists/own.txt', '../archive/hubble_deep_field.jpg\n');
    await addFromS3(alice, datasetA, 's3://tenant-a/org-a/lists/own.txt').expect(202);
    expect(await waitForTask({ request: alice }, datasetA, ['COMPLETED', 'FAILED'])).toMatchObject({ status: 'COMPLETED', error_message: null });
    expect(await names(datasetA)).toEqual(['archive/hubble_deep_field.jpg', 'camera.jpg', 'chelsea.jpg', 'rocket.jpg']);
  }, 120_000);

  it('assumes the configured role of A with its ExternalId, and reads with the credentials of the role', async () => {
    await put('tenant-a', 'elsewhere/motorcycle_left.jpg', fs.readFileSync(photo('motorcycle_left')));
    await moto('reset-recording');
    await moto('start-recording');
    try {
      // The role's own prefix (the whole tenant-a bucket) reaches beyond the operator-credential prefix org-a/.
      await addFromS3(alice, datasetA, 's3://tenant-a/elsewhere/').field('assume_role', ROLE_A.arn).expect(202);
      expect(await waitForTask({ request: alice }, datasetA, ['COMPLETED', 'FAILED'])).toMatchObject({ status: 'COMPLETED', error_message: null });
    } finally {
      await moto('stop-recording');
    }
    expect(await names(datasetA)).toEqual(['archive/hubble_deep_field.jpg', 'astronaut.jpg', 'camera.jpg', 'chelsea.jpg', 'motorcycle_left.jpg', 'rocket.jpg']);
    // Once for the API's check, once for the worker's batch: each with the role entry's ExternalId.
    const calls = await assumeRoleCalls();
    expect(calls.map((form) => [form.get('RoleArn'), form.get('ExternalId')])).toEqual([
      [ROLE_A.arn, ROLE_A.external_id],
      [ROLE_A.arn, ROLE_A.external_id],
    ]);
    const reads = (await recorded()).filter((entry) => entry.method === 'GET' && entry.url.includes('/tenant-a/'));
    expect(reads.length).toBeGreaterThan(0);
    // Temporary credentials from STS carry a session token; the operator's own keys do not.
    expect(reads.every((entry) => Object.keys(entry.headers).some((name) => name.toLowerCase() === 'x-amz-security-token'))).toBe(true);
  }, 120_000);

  it('fails the task, adding nothing of B, when a manifest of A lists objects of B by the time the worker reads it', async () => {
    await put('tenant-a', 'org-a/lists/later.txt', 'photos/rocket.jpg\n');
    const before = await names(datasetA);
    const statusBefore = (await alice.get(`/api/v1/dataset/${datasetA}`).expect(200)).body.status_new;
    await stopWorker();
    try {
      await addFromS3(alice, datasetA, 's3://tenant-a/org-a/lists/later.txt').expect(202);
      await put('tenant-a', 'org-a/lists/later.txt', 'photos/rocket.jpg\ns3://tenant-b/confidential/grace_hopper.jpg\ns3://tenant-b/confidential/motorcycle_left.jpg\n');
    } finally {
      await startWorker();
    }
    const task = await waitForTask({ request: alice }, datasetA, ['COMPLETED', 'FAILED']);
    expect(task).toMatchObject({
      status: 'FAILED',
      error_message: expect.stringContaining(`s3://tenant-b/confidential/grace_hopper.jpg, listed in s3://tenant-a/org-a/lists/later.txt, ${OUTSIDE}`),
    });
    expect(await names(datasetA)).toEqual(before);
    // B's bytes never reached the service's store (grace_hopper is in no dataset yet).
    expect(await api.deps.store.exists(blobKey(createHash('sha256').update(fs.readFileSync(photo('grace_hopper'))).digest('hex')))).toBe(false);
    expect((await alice.get(`/api/v1/dataset/${datasetA}`).expect(200)).body.status_new).toBe(statusBefore);
  }, 120_000);

  it('lets a user of organization B read the bucket of B, and refuses B the folder of A (403)', async () => {
    await expectRefused(bob, datasetB, () => addFromS3(bob, datasetB, 's3://tenant-a/org-a/photos/'), `s3://tenant-a/org-a/photos/ ${OUTSIDE}`);
    await addFromS3(bob, datasetB, 's3://tenant-b/confidential/').expect(202);
    expect(await waitForTask({ request: bob }, datasetB, ['COMPLETED', 'FAILED'])).toMatchObject({ status: 'COMPLETED', error_message: null });
    expect(await names(datasetB)).toEqual(['coffee.jpg', 'grace_hopper.jpg', 'motorcycle_left.jpg']);
  }, 120_000);
});
