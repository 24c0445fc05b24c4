/** Settings every test tier shares (jest does not pass a root config's project options on to its projects). */
const shared = {
  rootDir: __dirname,
  testEnvironment: '<rootDir>/test/support/nodeEnvironment.js',
  transform: { '^.+\\.(ts|js)$': ['@swc/jest'] },
  // ESM-only packages, compiled to CommonJS for jest like our own sources.
  // The web app's modules, imported by their ES module names (vql.js for vql.ts) from the unit tests of its pure logic.
  moduleNameMapper: { '^(.*/web/src/.*)\\.js$': '$1' },
  transformIgnorePatterns: ['/node_modules/(?!(hyparquet|hyparquet-writer|archiver|zip-stream|compress-commons|crc32-stream|is-stream)/)'],
};

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    // Pure code: no services started.
    { ...shared, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    // Workflows with mocked activities on @temporalio/testing's local server; no Postgres.
    { ...shared, displayName: 'workflows', testMatch: ['<rootDir>/test/workflows/**/*.test.ts'] },
    // Everything else (integration, contract, e2e) shares one Postgres and one Temporal server per run;
    // jest runs a project's globalSetup only when that project has tests in the run.
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/unit/', '<rootDir>/test/workflows/'],
      globalSetup: '<rootDir>/test/support/globalSetup.ts',
      globalTeardown: '<rootDir>/test/support/globalTeardown.ts',
    },
  ],
  // A global option: jest ignores it inside projects.
  testTimeout: 60_000,
  // Four files at a time on two cores: many integration files spend much of their time waiting (a fault window,
  // a heartbeat timeout, a server starting), and the others keep the cores busy meanwhile (with three, a quiet
  // 2-core machine still ran at about 1.5 cores).
  maxWorkers: 4,
  testSequencer: '<rootDir>/test/support/longestFirst.js',
};
