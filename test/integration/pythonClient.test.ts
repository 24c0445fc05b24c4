import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Workspace } from '../../db/models';
import { createUser } from '../../db/repositories/users';
import { localPublicUrl, serveOverHttp } from '../support/browser';
import { startTestStack, type TestApi } from '../support/testStack';

const run = promisify(execFile);
const root = path.resolve(__dirname, '../..');
const venv = path.join(root, '.tools', 'python-client');
const python = path.join(venv, 'bin', 'python');
const email = 'curator@example.com';
const colleague = 'colleague@example.com';
const password = 'correct horse battery';
/** The client's test files that need no service (a stand-in in a thread, or none). */
const SERVICELESS = ['test_offline.py', 'test_cli_offline.py', 'test_models.py'];

/** Runs a command of the client's venv; its output, also when it fails (the error carries stdout and stderr). */
async function inVenv(args: string[], env: NodeJS.ProcessEnv = process.env, timeoutMs = 600_000): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(python, args, { cwd: root, env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string; message: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, output: `${failed.stdout ?? ''}${failed.stderr ?? failed.message}` };
  }
}

describe('Python client (clients/python): its wheel installs, and its pytest suite passes against the real API and worker with an API key', () => {
  let stack: TestApi & { stopWorker(): Promise<void> };
  let server: { url: string; close(): Promise<void> };
  const wheels = fs.mkdtempSync(path.join(os.tmpdir(), 'mds-wheel-'));

  beforeAll(async () => {
    // The venv with the client's pinned dependencies, made once (scripts/install-python-client.sh).
    await run('bash', [path.join(root, 'scripts', 'install-python-client.sh')], { cwd: root });
    // CLOUD: every request needs a bearer token, so the suite exercises the client's API-key signing.
    stack = await startTestStack({ RUN_MODE: 'CLOUD', SECRET_KEY: 'test-secret-key-that-is-long-enough-123', PUBLIC_URL: await localPublicUrl() });
    server = await serveOverHttp(stack);
  }, 300_000);
  afterAll(async () => {
    await server?.close();
    await stack?.close();
    fs.rmSync(wheels, { recursive: true, force: true });
  });

  it('builds the wheel and installs it with its dependencies satisfied', async () => {
    const built = await inVenv(['-m', 'pip', 'wheel', '--no-deps', '--no-build-isolation', '--disable-pip-version-check', '-w', wheels, './clients/python']);
    expect(built).toMatchObject({ code: 0 });
    const wheel = fs.readdirSync(wheels).find((name) => /^mds_client-.+-py3-none-any\.whl$/.test(name));
    expect(wheel).toBeDefined();
    const installed = await inVenv(['-m', 'pip', 'install', '--no-deps', '--force-reinstall', '--disable-pip-version-check', path.join(wheels, wheel!)]);
    expect(installed).toMatchObject({ code: 0 });
    // The wheel's declared requirements (httpx, pydantic, tqdm; pandas for [test]) are what the venv holds.
    expect(await inVenv(['-m', 'pip', 'check'])).toMatchObject({ code: 0 });
    expect(fs.existsSync(path.join(venv, 'bin', 'mds'))).toBe(true);
  }, 120_000);

  it('passes its pytest suite: models against docs/openapi.json, the client, the mds command and the READMEs\' Python walkthroughs end to end', async () => {
    const workspaceId = (await Workspace.query(stack.deps.db).first())!.id;
    await createUser(stack.deps.db, { email, password, workspaceId, workspaceRole: 'editor' });
    // A second account, for the suite to share a dataset with.
    await createUser(stack.deps.db, { email: colleague, password, workspaceId, workspaceRole: 'viewer' });
    const login = await stack.request.post('/api/v1/auth/login').send({ email, password }).expect(200);
    const cookie = (login.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith('SESSION='))!.split(';')[0];
    const { api_key, api_secret } = (await stack.request.get('/api/v1/api_credentials').set('Cookie', cookie).expect(200)).body;

    const env = { ...process.env, MDS_URL: server.url, MDS_API_KEY: api_key, MDS_API_SECRET: api_secret, MDS_TEST_COLLEAGUE: colleague, PYTHONDONTWRITEBYTECODE: '1' };
    // MDS_PYTEST_ARGS narrows the run while working on the client (e.g. "-k curation"); npm test runs it all.
    const narrowed = process.env.MDS_PYTEST_ARGS?.split(' ').filter(Boolean) ?? [];
    // The files that need no service run beside the others: they spend their time waiting on `mds` subprocesses.
    const serviceless = SERVICELESS.map((file) => `clients/python/tests/${file}`);
    const runs = await Promise.all(
      [serviceless, ['clients/python/tests', ...serviceless.map((file) => `--ignore=${file}`)]].map((files) =>
        inVenv(['-m', 'pytest', ...files, '-q', '-p', 'no:cacheprovider', '-rs', ...narrowed], env),
      ),
    );
    for (const result of runs) {
      // The whole report on failure, so jest's output says which Python test failed and why.
      if (result.code !== 0 || narrowed.length > 0) console.error(result.output);
      // pytest's 5: a narrowed run selected none of this half's tests.
      if (narrowed.length > 0 && result.code === 5) continue;
      expect(result.code).toBe(0);
      expect(result.output).toMatch(/\d+ passed/);
      expect(result.output).not.toMatch(/skipped|SKIPPED/);
    }
  }, 900_000);
});
