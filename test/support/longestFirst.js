// Starts the longest test files first, from their committed durations (testDurations.tsv), so that no long file
// starts late and runs on alone at the end. jest's own order uses durations it cached on this machine, and on
// a clean clone (CI) only file sizes: the fault matrices are short files of long runs.
// To refresh the list: JEST_CPU_LOG=/tmp/run.tsv npm test, then
//   sed "s#^$PWD/##" /tmp/run.tsv | cut -f1,2 | sort -t$'\t' -k2 -rn > test/support/testDurations.tsv
const fs = require('node:fs');
const path = require('node:path');
const TestSequencer = require('@jest/test-sequencer').default;

const committed = new Map(
  fs.readFileSync(path.join(__dirname, 'testDurations.tsv'), 'utf8').split('\n').filter(Boolean).map((line) => {
    const [file, seconds] = line.split('\t');
    return [file, Number(seconds) * 1000];
  }),
);

class LongestFirst extends TestSequencer {
  // A file missing from the list (a new one) has no time, and jest runs those first.
  time(test) {
    return committed.get(path.relative(test.context.config.rootDir, test.path)) ?? super.time(test);
  }
}

module.exports = LongestFirst;
