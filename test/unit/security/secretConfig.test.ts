import { ConfigError, loadConfig, type Env } from '../../../lib/config';
import { LOADER_SECRETS, SHIPPED_EXAMPLE_SECRETS } from './shippedExamples';

/** The ConfigError loadConfig throws for `env`, or a failure when it loads. */
function refusal(env: Env): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`loadConfig accepted ${Object.keys(env).join(', ')}`);
}

it('refuses every value this project has shipped as an example, in each secret variable', () => {
  const variants = SHIPPED_EXAMPLE_SECRETS.flatMap((value) => [value, value.toUpperCase(), ` ${value} `]);
  for (const name of Object.keys(LOADER_SECRETS)) {
    for (const value of variants) {
      const { message } = refusal({ [name]: value });
      expect(message.startsWith(`Invalid configuration: ${name} (value not shown): `)).toBe(true);
      expect(message).not.toContain(value.trim());
      if (value.trim().length >= LOADER_SECRETS[name]) expect(message).toContain('a value this project has shipped as an example');
    }
  }
});

it('refuses any secret that starts with change-me, in any letter case', () => {
  for (const name of Object.keys(LOADER_SECRETS)) {
    const { message } = refusal({ [name]: 'Change-Me-Please-0123456789abcdef0123456789' });
    expect(message).toContain(`${name} (value not shown): it is a value this project has shipped as an example`);
  }
});

it('refuses secrets shorter than their minimum and accepts them from that length', () => {
  for (const [name, min] of Object.entries(LOADER_SECRETS)) {
    if (min > 1) expect(refusal({ [name]: 'x'.repeat(min - 1) }).message).toBe(`Invalid configuration: ${name} (value not shown): expected at least ${min} characters`);
    expect(() => loadConfig({ [name]: 'x'.repeat(min) })).not.toThrow();
  }
});

it('never puts the value of a refused secret in the error message', () => {
  const secretValue = 'hunter2';
  for (const name of Object.keys(LOADER_SECRETS).filter((variable) => LOADER_SECRETS[variable] > secretValue.length)) {
    expect(refusal({ [name]: secretValue }).message).not.toContain(secretValue);
  }
  // Other variables still name their bad value, which helps and gives nothing away.
  expect(refusal({ API_PORT: 'abc' }).message).toBe('Invalid configuration: API_PORT="abc": expected a port number');
});

it('accepts the secrets the tests, scripts and generated files use', () => {
  const config = loadConfig({
    DISABLE_AUTH: 'false',
    SECRET_KEY: 'test-secret-key-that-is-long-enough-123',
    ADMIN_PASSWORD: 'admin-password-1',
    PIPELINE_TOKEN: 'pipeline-token-for-the-tests-0123',
    OIDC_ISSUER: 'http://127.0.0.1:8180/realms/media',
    OIDC_CLIENT_SECRET: 'bench-client-secret-0123456789',
    QDRANT_API_KEY: 'a'.repeat(48),
    VISION_CAPTION_URL: 'https://vllm.internal/v1',
    VISION_CAPTION_API_KEY: 'sk-test',
  });
  expect(config.oidc?.clientSecret).toBe('bench-client-secret-0123456789');
  expect(config.qdrant.apiKey).toBe('a'.repeat(48));
  expect(config.enrichment.visionCaption?.apiKey).toBe('sk-test');
});
