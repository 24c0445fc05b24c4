import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import supertest from 'supertest';
import { createApp } from '../../../api/app';
import type { RouteSpec } from '../../../api/routeSpec';
import { API_ROUTES } from '../../../api/specs';
import type { Db } from '../../../db/connection';
import { Organization, Workspace } from '../../../db/models';
import { insertNotifications } from '../../../db/repositories/notifications';
import { createUser } from '../../../db/repositories/users';
import { createReadyDataset } from '../../support/datasets';
import { eventually, photo } from '../../support/media';
import { sdkToken } from '../../support/sdkToken';
import { loginCookie } from '../../support/sessions';
import { startTestStack } from '../../support/testStack';
import { clusteringOf } from '../../../db/repositories/clusteringOf';

type Stack = Awaited<ReturnType<typeof startTestStack>>;
type Agent = ReturnType<typeof supertest>;
type Rows = Record<string, Array<Record<string, unknown>>>;

/**
 * Organization A's admin calls every route of the API with the ids of organization B's things: each
 * answers 404 or 403 with `{"detail": ...}`, shows nothing of B's, and B's rows stay as they were.
 * Both run modes: CLOUD (the stack's) and ONPREM with authentication, where workspace and
 * organization routes exist (in CLOUD they answer 403 for everyone).
 */

const password = 'correct horse battery';
const emailOfA = 'admin@organization-a.example';
const emailOfB = 'admin@organization-b.example';
/** Names only B's data holds: an answer to A that contains one of them shows B's data. */
const namesOfB = {
  dataset: 'B private dataset',
  snapshot: 'B private snapshot',
  view: 'B private view',
  tag: 'B private tag',
  notification: 'B private notification',
};
const secretsOfB = [...Object.values(namesOfB), emailOfB];

let stack: Stack;
/** A's client of the API in each run mode (the same database and worker behind both), sending A's token. */
let apps: Array<[mode: 'CLOUD' | 'ONPREM', app: Agent]>;
let userOfA: string;
let datasetOfA: string;
let tagOfA: string;
/** Query strings of links A was given for its own media and export, to try on B's ids. */
const linksOfA: { media: Record<string, string>; export: Record<string, string> } = { media: {}, export: {} };

/** Path parameter → the id of organization B's thing of that kind (or, for variant and file_name, B's value). */
const idsOfB: Record<string, string> = {};
/** B's things the explicit cases name in queries and bodies. */
const ofB = { userId: '', workspaceId: '', organizationId: '', mediaId: '', clusterId: '', anchorId: '', creationTaskId: '' };
let rowsOfBBefore: Rows;
let idsReachingB: string[];
let scratch: string;

/** A new organization with one workspace. */
async function newOrganization(db: Db, name: string): Promise<{ organizationId: string; workspaceId: string }> {
  const organization = await Organization.query(db).insertAndFetch({ name });
  const workspace = await Workspace.query(db).insertAndFetch({ organization_id: organization.id, name });
  return { organizationId: organization.id, workspaceId: workspace.id };
}

/** An API key minted with a password session, and the Authorization header of a token signed with it. */
async function apiKeyOf(email: string, lifetimeSeconds: number): Promise<{ apiKey: string; authorization: string }> {
  const cookie = await loginCookie(stack, email, password);
  const { api_key, api_secret } = (await stack.request.get('/api/v1/api_credentials').set('Cookie', cookie).expect(200)).body;
  return { apiKey: api_key, authorization: `Bearer ${await sdkToken(api_key, api_secret, { lifetimeSeconds })}` };
}

/** The query string of a signed link, as an object. */
const linkQuery = (uri: string) => Object.fromEntries(new URL(uri).searchParams);

/** Every base table of the schema with its uuid columns. */
async function uuidColumns(db: Db): Promise<Map<string, string[]>> {
  const { rows } = await db.raw<{ rows: Array<{ table_name: string; column_name: string }> }>(`
    SELECT c.table_name, c.column_name FROM information_schema.columns c
    JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
    WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' AND c.data_type = 'uuid'
    ORDER BY c.table_name, c.ordinal_position`);
  const columns = new Map<string, string[]>();
  for (const row of rows) columns.set(row.table_name, [...(columns.get(row.table_name) ?? []), row.column_name]);
  return columns;
}

/** Every row of every table with one of `ids` in a uuid column, each table's rows in a stable order. */
async function rowsNaming(db: Db, ids: string[]): Promise<Rows> {
  const result: Rows = {};
  for (const [table, columns] of await uuidColumns(db)) {
    const rows: Array<Record<string, unknown>> = await db(table).where((query) => {
      for (const column of columns) void query.orWhereIn(column, ids);
    });
    if (rows.length > 0) result[table] = rows.map((row) => [JSON.stringify(row), row] as const).sort(([a], [b]) => a.localeCompare(b)).map(([, row]) => row);
  }
  return result;
}

/** The ids linked to `seeds` through any chain of rows (B's versions, media, clusters, tasks, keys, ...). */
async function idsLinkedTo(db: Db, seeds: string[]): Promise<string[]> {
  const ids = new Set(seeds);
  for (let size = 0; size !== ids.size; ) {
    size = ids.size;
    for (const rows of Object.values(await rowsNaming(db, [...ids]))) {
      for (const row of rows) for (const value of Object.values(row)) if (typeof value === 'string' && /^[0-9a-f-]{36}$/.test(value)) ids.add(value);
    }
  }
  return [...ids];
}

/** What a request of A's needs beyond its path to pass validation, so that the access check is what answers. */
interface RequestInput {
  query?: Record<string, string>;
  body?: object;
  fields?: Record<string, string>;
  files?: Record<string, string>;
}

/** By `${method} ${path}` of API_ROUTES; a route missing here that needs input fails its case with a 400 or 422. */
function inputOf(route: RouteSpec): RequestInput {
  const metadataFile = path.join(scratch, 'metadata.json');
  const inputs: Record<string, RequestInput> = {
    // Public routes: A's own valid signature with B's id in the path.
    'get /media/:media_id/:variant': { query: linksOfA.media },
    'get /exports/:task_id/:file_name': { query: linksOfA.export },
    'post /ingestion/:dataset_id/data_files/:transaction_id': { files: { files: photo('camera') } },
    'get /explore/:dataset_id': { query: { entity_type: 'IMAGES' } },
    'post /dataset/:dataset_id/search-image-similarity': { query: { entity_type: 'IMAGES' }, files: { file: photo('camera') } },
    'patch /dataset/:dataset_id': { body: { name: 'renamed by A' } },
    'post /dataset/:dataset_id/tags': { body: { name: 'made by A' } },
    'post /dataset/:dataset_id/tags/:tag_id/media': { body: { media_ids: [ofB.mediaId] } },
    'delete /dataset/:dataset_id/tags/:tag_id/media': { body: { media_ids: [ofB.mediaId] } },
    'post /dataset/:dataset_id/duplicates/decisions': { body: { groups: [{ media_ids: [ofB.mediaId, randomUUID()], verdict: 'not_duplicates' }] } },
    'post /dataset/:dataset_id/duplicates/accept_suggestions': { body: {} },
    'post /dataset/:dataset_id/labels/propagate': { body: { label: 'by A', selection: { media_ids: [ofB.mediaId] } } },
    'post /dataset/:dataset_id/labels/propagate/preview': { body: { label: 'by A', selection: { media_ids: [ofB.mediaId] } } },
    'post /dataset/:dataset_id/selection/count': { body: { media_ids: [ofB.mediaId] } },
    'post /dataset/:dataset_id/classes/set': { body: { label: 'by A', selection: { media_ids: [ofB.mediaId] } } },
    'post /dataset/:dataset_id/classes/accept_suggestions': { body: { media_ids: [ofB.mediaId] } },
    'put /dataset/:dataset_id/label_fields': { body: { label_field: 'class', split_field: 'split' } },
    'post /dataset/:dataset_id/map/selection': { body: { layout_id: randomUUID(), indices: [0] } },
    'get /dataset/:dataset_id/map/matches': { query: { vql: '[]' } },
    'post /dataset/:dataset_id/selections': { body: { strategy: 'diversity', n: 1, tag: 'chosen by A' } },
    'post /dataset/:dataset_id/custom_metadata': { files: { file: metadataFile } },
    'post /dataset/:dataset_id/views': { query: { entity_type: 'IMAGES' }, fields: { name: 'made by A' } },
    'patch /dataset/:dataset_id/views/:view_id': { body: { name: 'renamed by A' } },
    'post /dataset/:dataset_id/views/:view_id/alerting': { body: { request: { enabled: false } } },
    'post /dataset/:dataset_id/snapshot': { body: { name: 'made by A' } },
    'patch /dataset/:dataset_id/snapshot/:snapshot_id': { body: { name: 'renamed by A' } },
    'post /dataset/:dataset_id/add_media': { files: { files: photo('camera') } },
    'get /dataset/:dataset_id/export_context_async': { query: { file_name: 'by A', export_format: 'json' } },
    'post /dataset/:dataset_id/export_entities_async': {
      query: { export_format: 'json' },
      body: { media_selection: [{ type: 'media', payload: { media_ids: [ofB.mediaId] } }] },
    },
    'get /dataset/:dataset_id/export_status': { query: { export_task_id: idsOfB.task_id } },
    // A grants itself a role on B's dataset.
    'put /manage/:dataset_id/invite': { body: { grant_to_user_email: emailOfA, role: 'editor' } },
    'patch /idp/admin/users/:user_id': { body: { enabled: false } },
    'post /idp/admin/users/:user_id/reset-password': { body: { password: 'a password A chose' } },
    'put /idp/admin/users/:user_id/roles': { body: { roles: ['manage-users'] } },
    'post /dataset/:dataset_id/enrich_dataset': { body: { enrichment_models: { IMAGE_TAGGING: 'imagenet-tagger@1' } } },
    'put /workspace/members/:member_user_id/role': { body: { role: 'viewer', workspace_id: ofB.workspaceId } },
  };
  return inputs[`${route.method} ${route.path}`] ?? {};
}

function send(app: Agent, method: RouteSpec['method'], url: string, input: RequestInput) {
  const request = app[method](`/api/v1${url}`);
  if (input.query) void request.query(input.query);
  for (const [field, value] of Object.entries(input.fields ?? {})) void request.field(field, value);
  for (const [field, file] of Object.entries(input.files ?? {})) void request.attach(field, file);
  if (input.body) void request.send(input.body);
  return request;
}

const paramNames = (routePath: string) => [...routePath.matchAll(/:(\w+)/g)].map((match) => match[1]);
const fillPath = (routePath: string, ids: Record<string, string>) => routePath.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(ids[name]));

/** Why an answer to A is not a refusal that shows nothing of B's, or undefined when it is one. */
function refusalProblem(response: supertest.Response, mustBe404: boolean): string | undefined {
  if (![403, 404].includes(response.status)) return `answered ${response.status} ${response.text.slice(0, 300)}`;
  const body = response.body as Record<string, unknown>;
  if (Object.keys(body ?? {}).join() !== 'detail' || typeof body.detail !== 'string') return `body is not {"detail": "..."}: ${response.text.slice(0, 300)}`;
  // koa's own answer when no route matched: the path was not filled in as the route expects.
  if (body.detail === 'Not Found') return 'no route matched';
  if (mustBe404 && response.status !== 404) return `answered ${response.status} (${body.detail}), not the 404 the spec gives for a dataset of another organization`;
  const shown = secretsOfB.find((secret) => response.text.includes(secret));
  return shown ? `the answer shows "${shown}"` : undefined;
}

beforeAll(async () => {
  stack = await startTestStack({ RUN_MODE: 'CLOUD', SECRET_KEY: 'cross-tenant-secret-key-long-enough-0123' });
  const { db } = stack.deps;
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'cross-tenant-'));
  fs.writeFileSync(path.join(scratch, 'metadata.json'), '[]');

  const [orgA, orgB] = [await newOrganization(db, 'organization A'), await newOrganization(db, 'organization B')];
  userOfA = (await createUser(db, { email: emailOfA, password, workspaceId: orgA.workspaceId, workspaceRole: 'admin' })).id;
  const userOfB = (await createUser(db, { email: emailOfB, password, workspaceId: orgB.workspaceId, workspaceRole: 'admin' })).id;
  const keyOfA = await apiKeyOf(emailOfA, 3600);
  const keyOfB = await apiKeyOf(emailOfB, 600);
  const asA = supertest.agent(createApp(stack.deps).callback()).set('Authorization', keyOfA.authorization);
  const onPremises = createApp({ ...stack.deps, config: { ...stack.deps.config, runMode: 'ONPREM', disableAuth: false } });
  apps = [
    ['CLOUD', asA],
    ['ONPREM', supertest.agent(onPremises.callback()).set('Authorization', keyOfA.authorization)],
  ];
  const asB = supertest.agent(createApp(stack.deps).callback()).set('Authorization', keyOfB.authorization);
  const finishedExport = async (agent: Agent, datasetId: string, query: Record<string, string>) => {
    const { id } = (await agent.get(`/api/v1/dataset/${datasetId}/export_context_async`).query(query).expect(200)).body;
    const status = await eventually(
      async () => (await agent.get(`/api/v1/dataset/${datasetId}/export_status`).query({ export_task_id: id }).expect(200)).body,
      (body) => ['COMPLETED', 'FAILED'].includes(body.status),
      60_000,
      'an export',
    );
    expect(status.status).toBe('COMPLETED');
    return { id: id as string, downloadUri: status.download_uri as string };
  };

  // A: a dataset of its own (other photos than B's, so no content is shared), a tag, and links to its media and export.
  const setUpA = async () => {
    datasetOfA = await createReadyDataset({ request: asA }, 'A own dataset', [photo('chelsea')]);
    tagOfA = (await asA.post(`/api/v1/dataset/${datasetOfA}/tags`).send({ name: 'A own tag' }).expect(201)).body.id;
    const explored = await asA.get(`/api/v1/explore/${datasetOfA}`).query({ entity_type: 'IMAGES' }).expect(200);
    linksOfA.media = linkQuery(explored.body.clusters[0].previews[0].media_uri);
    linksOfA.export = linkQuery((await finishedExport(asA, datasetOfA, { file_name: 'a-export', export_format: 'json' })).downloadUri);
  };

  // B: an indexed dataset with a tagged photo, a snapshot, a view, an anchor, a finished export and a notification.
  const setUpB = async () => {
    const datasetId = await createReadyDataset({ request: asB }, namesOfB.dataset, [photo('rocket')]);
    const snapshot = (await asB.post(`/api/v1/dataset/${datasetId}/snapshot`).send({ name: namesOfB.snapshot }).expect(200)).body;
    const view = (await asB.post(`/api/v1/dataset/${datasetId}/views`).query({ entity_type: 'IMAGES' }).field('name', namesOfB.view).expect(200)).body;
    const tag = (await asB.post(`/api/v1/dataset/${datasetId}/tags`).send({ name: namesOfB.tag }).expect(201)).body;
    const head = await db('datasets').where({ id: datasetId }).first();
    ofB.mediaId = (await db('media').where({ version_id: head.head_version_id }).first()).id;
    ofB.clusterId = (await db('clusters').where({ clustering_id: clusteringOf(db, head.head_version_id) }).first()).id;
    await asB.post(`/api/v1/dataset/${datasetId}/tags/${tag.id}/media`).send({ media_ids: [ofB.mediaId] }).expect(200);
    // A duplicate-review decision of B's (B's one photo has no copy to decide through the API).
    const [decisionOfB, acceptAllOfB] = [randomUUID(), randomUUID()];
    await db('duplicate_decisions').insert({ version_id: head.head_version_id, media_id: ofB.mediaId, decision_id: decisionOfB, role: 'distinct', decided_by: userOfB, action_id: acceptAllOfB });
    const anchor = await asB.post(`/api/v1/dataset/${datasetId}/search-image-similarity`).query({ entity_type: 'IMAGES' }).attach('file', photo('rocket')).expect(200);
    ofB.anchorId = anchor.body.anchor_media_id;
    const exported = await finishedExport(asB, datasetId, { file_name: 'b-export', export_format: 'json' });
    await insertNotifications(db, [
      { user_id: userOfB, entity_type: 'saved_view', entity_id: view.id, title: '', message: namesOfB.notification, metadata: { view_name: namesOfB.view }, dataset_id: datasetId },
    ]);
    ofB.creationTaskId = (await db('tasks').where({ dataset_id: datasetId, task_type: 'DATASET_CREATION' }).first()).task_id;
    Object.assign(idsOfB, {
      dataset_id: datasetId,
      transaction_id: String((await db('upload_transactions').where({ dataset_id: datasetId }).first()).id),
      task_id: exported.id,
      file_name: decodeURIComponent(new URL(exported.downloadUri).pathname.split('/').pop()!),
      media_id: ofB.mediaId,
      variant: 'file', // not an id: the route serves either variant
      tag_id: tag.id,
      cluster_id: ofB.clusterId,
      decision_id: decisionOfB,
      action_id: acceptAllOfB,
      notification_id: (await db('notifications').where({ user_id: userOfB }).first()).id,
      view_id: view.id,
      snapshot_id: snapshot.snapshot_id,
      other_id: snapshot.snapshot_id,
      api_key: keyOfB.apiKey,
      user_id: userOfB,
      member_user_id: userOfB,
      workspace_id: orgB.workspaceId,
      organization_id: orgB.organizationId,
    });
  };
  await Promise.all([setUpA(), setUpB()]);
  Object.assign(ofB, { userId: userOfB, workspaceId: orgB.workspaceId, organizationId: orgB.organizationId });
  // An id left undefined would make a case pass on a 422 of its own making.
  expect([...Object.entries(idsOfB), ...Object.entries(ofB)].filter(([, value]) => typeof value !== 'string' || value === '')).toEqual([]);

  idsReachingB = await idsLinkedTo(db, [userOfB, orgB.workspaceId, orgB.organizationId, idsOfB.dataset_id]);
  // Nothing links B to A before the matrix runs; the rows below are B's alone.
  expect(idsReachingB).not.toEqual(expect.arrayContaining([userOfA]));
  expect(idsReachingB).not.toEqual(expect.arrayContaining([datasetOfA]));
  rowsOfBBefore = await rowsNaming(db, idsReachingB);
}, 300_000);

afterAll(async () => {
  await stack?.close();
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

// Which status each family answers (all within 403 or 404):
// - dataset routes: 404 "Dataset not found", as the spec's Errors and Authentication sections give for a
//   dataset of another organization; with A's own dataset and B's view, tag, snapshot or transaction: 404.
// - /idp/admin/users/*: 403 (the identity provider's admin area exists only ONPREM with a provider;
//   the provider's realm is not organization-scoped, so cross-organization user management is the
//   provider's realm roles' business, tested with Keycloak in test/integration/identity/).
// - /workspaces/*, /workspace/*, /organizations/*: 403 in CLOUD (they do not exist there), 404 ONPREM.
// - signed media and export links: 403 (A's signature does not cover B's id).
for (const route of API_ROUTES.filter((spec) => paramNames(spec.path).length > 0)) {
  it(`${route.method.toUpperCase()} ${route.path} with organization B's ids answers 404 or 403`, async () => {
    const names = paramNames(route.path);
    const unmapped = names.filter((name) => !(name in idsOfB));
    if (unmapped.length > 0) {
      throw new Error(`${route.method.toUpperCase()} ${route.path}: no id of organization B for :${unmapped.join(', :')}; add B's thing of that kind to idsOfB`);
    }
    // B's ids everywhere; and A's own dataset with B's other ids (a view, tag, snapshot... looked up without its dataset).
    const passes: Array<[string, Record<string, string>]> = [["B's ids", idsOfB]];
    if (names.includes('dataset_id') && names.some((name) => name !== 'dataset_id')) passes.push(["A's dataset with B's ids", { ...idsOfB, dataset_id: datasetOfA }]);
    const problems: string[] = [];
    for (const [pass, ids] of passes) {
      for (const [mode, app] of apps) {
        // The router matches paths in any letter case: the case-folded path must be refused the same way.
        const folded = route.path.replace(/\/([a-z_-]+)(?=\/|$)/g, (_, word: string) => `/${word.toUpperCase()}`);
        for (const sent of [fillPath(route.path, ids), fillPath(folded, ids)]) {
          const response = await send(app, route.method, sent, inputOf(route));
          const problem = refusalProblem(response, ids.dataset_id === idsOfB.dataset_id && names.includes('dataset_id'));
          if (problem) problems.push(`${mode}, ${pass}: ${route.method.toUpperCase()} ${sent}: ${problem}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
}

it("GET /tasks filtered by organization B's dataset, name or creator lists none of B's tasks", async () => {
  for (const [, app] of apps) {
    const list = (query: Record<string, string>) => app.get('/api/v1/tasks').query(query);
    expect((await list({ dataset_id: idsOfB.dataset_id }).expect(404)).body).toEqual({ detail: 'Dataset not found' });
    expect((await list({ dataset_id: idsOfB.dataset_id, task_type: 'EXPORT' }).expect(404)).body).toEqual({ detail: 'Dataset not found' });
    const queries: Array<Record<string, string>> = [{ dataset_name: namesOfB.dataset }, { created_by: emailOfB }, { task_type: 'EXPORT', created_by: emailOfB }];
    for (const query of queries) {
      expect((await list(query).expect(200)).body).toMatchObject({ tasks: [], total: 0 });
    }
    const filters = await app.get('/api/v1/tasks/filters').expect(200);
    expect(filters.text).not.toContain(idsOfB.dataset_id);
    expect(secretsOfB.filter((secret) => filters.text.includes(secret))).toEqual([]);
  }
});

// Notifications are the caller's own: a dataset_id filter narrows them and checks no access, so
// B's dataset answers as an unknown one does (200, nothing), never 403/404 that would tell it exists.
it("notification queries with organization B's dataset id answer as for an unknown dataset", async () => {
  for (const [, app] of apps) {
    const ask = (method: 'get' | 'post', url: string, datasetId: string) => app[method](`/api/v1${url}`).query({ dataset_id: datasetId });
    for (const [method, url] of [['get', '/notifications'], ['get', '/notifications/unread-count'], ['post', '/notifications/read-all']] as const) {
      const ofBs = await ask(method, url, idsOfB.dataset_id).expect(200);
      const unknown = await ask(method, url, randomUUID()).expect(200);
      expect(ofBs.body).toEqual(unknown.body);
    }
  }
});

it("workspace queries with organization B's workspace or organization id answer 404 or as for an unknown id", async () => {
  const [, onPremises] = apps.find(([mode]) => mode === 'ONPREM')!;
  const get = (url: string, query: Record<string, string> = {}) => onPremises.get(`/api/v1${url}`).query(query);
  expect((await get('/workspaces', { organization_id: ofB.organizationId }).expect(200)).body).toEqual((await get('/workspaces', { organization_id: randomUUID() })).body);
  expect((await get('/workspace/settings/access', { workspace_id: ofB.workspaceId }).expect(200)).body).toEqual({ can_access: false, can_manage: false, role: null });
  expect((await get('/workspace/members', { workspace_id: ofB.workspaceId }).expect(404)).body).toEqual({ detail: 'Workspace not found' });
  // B's admin is no member of A's workspace (the default when no workspace_id is given).
  const demote = await onPremises.put(`/api/v1/workspace/members/${ofB.userId}/role`).send({ role: 'viewer' }).expect(404);
  expect(demote.body).toEqual({ detail: 'Member not found' });
  const listed = [(await get('/workspaces').expect(200)).text, (await get('/organizations').expect(200)).text, (await get('/workspace/members').expect(200)).text].join();
  expect([ofB.workspaceId, ofB.organizationId, ofB.userId, emailOfB].filter((id) => listed.includes(id))).toEqual([]);
});

it("exports of A's own dataset that name B's media, cluster, snapshot or export reach none of them and start nothing", async () => {
  const [, app] = apps[0];
  const tasksOfA = async () => Number((await stack.deps.db('tasks').where({ created_by: userOfA }).count({ n: '*' }).first())!.n);
  const before = await tasksOfA();
  const entities = (item: object) =>
    app.post(`/api/v1/dataset/${datasetOfA}/export_entities_async`).query({ export_format: 'json' }).send({ media_selection: [item] });
  // The spec gives no status for ids the dataset does not hold: 422 names them as not in this dataset.
  expect((await entities({ type: 'media', payload: { media_ids: [ofB.mediaId] } }).expect(422)).body).toEqual({
    detail: `body.media_selection: media not in this dataset: ${ofB.mediaId}`,
  });
  expect((await entities({ type: 'cluster', payload: { cluster_id: ofB.clusterId } }).expect(422)).body).toEqual({
    detail: `body.media_selection: clusters not in this dataset: ${ofB.clusterId}`,
  });
  const ofSnapshot = app.get(`/api/v1/dataset/${datasetOfA}/export_context_async`).query({ file_name: 'x', export_format: 'json', snapshot_id: idsOfB.snapshot_id });
  expect((await ofSnapshot.expect(404)).body).toEqual({ detail: 'Snapshot not found' });
  const status = app.get(`/api/v1/dataset/${datasetOfA}/export_status`).query({ export_task_id: idsOfB.task_id });
  expect((await status.expect(404)).body).toEqual({ detail: 'Export not found' });
  expect(await tasksOfA()).toBe(before);
});

it("tags, Explore, snapshot diffs and tasks of A's own naming B's media, tag, anchor, snapshot or task reach none of them", async () => {
  const [, app] = apps[0];
  for (const selection of [{ media_ids: [ofB.mediaId] }, { cluster_id: ofB.clusterId }]) {
    expect((await app.post(`/api/v1/dataset/${datasetOfA}/tags/${tagOfA}/media`).send(selection).expect(200)).body).toEqual({ tagged: 0 });
    expect((await app.delete(`/api/v1/dataset/${datasetOfA}/tags/${tagOfA}/media`).send(selection).expect(200)).body).toEqual({ untagged: 0 });
  }
  const explore = (query: Record<string, string>) => app.get(`/api/v1/explore/${datasetOfA}`).query({ entity_type: 'IMAGES', ...query });
  const taggedB = await explore({ tags: JSON.stringify([idsOfB.tag_id]) }).expect(200);
  expect(taggedB.body.clusters).toEqual([]);
  expect((await explore({ anchor_media_id: ofB.anchorId, anchor_type: 'UPLOAD' }).expect(404)).body).toEqual({ detail: `Anchor ${ofB.anchorId} not found for this dataset` });
  expect((await explore({ anchor_media_id: ofB.mediaId, anchor_type: 'MEDIA' }).expect(404)).body).toEqual({ detail: `Media ${ofB.mediaId} not found in this dataset's visual index` });
  expect((await app.get(`/api/v1/dataset/${datasetOfA}/snapshot/head/diff/${idsOfB.snapshot_id}`).expect(404)).body).toEqual({ detail: 'Snapshot not found' });
  for (const action of ['abort', 'retry']) {
    expect((await app.post(`/api/v1/tasks/${ofB.creationTaskId}/${action}`).expect(404)).body).toEqual({ detail: 'Task not found' });
  }
});

// Last: the calls above changed nothing of B's, and linked nothing of A's to B's (a new row naming one
// of B's ids, such as a membership of A in B's dataset, shows here too).
it("leaves every row of organization B as it was", async () => {
  expect(await rowsNaming(stack.deps.db, idsReachingB)).toEqual(rowsOfBBefore);
});
