/**
 * Every value this project has shipped as an example for a secret (`git log -p -S change-me --all`: the
 * docker-compose.yml defaults), written out here rather than imported, so the tests do not trust the loader's list.
 */
export const SHIPPED_EXAMPLE_SECRETS = [
  'change-me-to-a-long-random-secret-key',
  'change-me-oidc-client-secret',
  'change-me-admin-password',
  'change-me-keycloak-admin',
  'change-me',
];

/** The secrets loadConfig reads, with the fewest characters it takes for each. */
export const LOADER_SECRETS: Record<string, number> = {
  SECRET_KEY: 32,
  OIDC_CLIENT_SECRET: 16,
  ADMIN_PASSWORD: 8,
  PIPELINE_TOKEN: 16,
  QDRANT_API_KEY: 16,
  VISION_CAPTION_API_KEY: 1,
};
