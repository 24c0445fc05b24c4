/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: '<rootDir>/test/support/nodeEnvironment.js',
  transform: { '^.+\\.(ts|js)$': ['@swc/jest'] },
  // ESM-only packages, compiled to CommonJS for jest like our own sources.
  transformIgnorePatterns: ['/node_modules/(?!(hyparquet|hyparquet-writer)/)'],
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  globalSetup: '<rootDir>/test/support/globalSetup.ts',
  globalTeardown: '<rootDir>/test/support/globalTeardown.ts',
  testTimeout: 60_000,
  // Two cores: integration files each start workers and pools; two at a time keeps them honest.
  maxWorkers: 2,
};
