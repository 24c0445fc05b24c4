// onnxruntime-node checks tensors with `instanceof Float32Array` against the main realm's classes;
// jest's default node environment gives tests their own, so share the typed-array classes.
const fs = require('node:fs');
const { TestEnvironment } = require('jest-environment-node');

/** CPU seconds of this jest worker (every thread) and of its children it has reaped (mds, pytest, Chromium, worker processes). */
function cpuSeconds() {
  const { user, system } = process.cpuUsage();
  const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  // cutime and cstime, fields 16 and 17 of proc(5), counted from the field after the command's name.
  return { own: (user + system) / 1e6, children: (Number(fields[13]) + Number(fields[14])) / 100 };
}

class SharedTypedArrayEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.testPath = context.testPath;
    for (const name of [
      'ArrayBuffer', 'Uint8Array', 'Int8Array', 'Uint16Array', 'Int16Array', 'Uint32Array', 'Int32Array',
      'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array',
    ]) {
      this.global[name] = globalThis[name];
    }
  }

  async setup() {
    this.started = { cpu: cpuSeconds(), at: Date.now() };
    await super.setup();
  }

  // JEST_CPU_LOG=FILE: a line per test file with its wall and CPU seconds, to find what makes the suite slow.
  async teardown() {
    await super.teardown();
    const log = process.env.JEST_CPU_LOG;
    if (!log || !this.started) return;
    const now = cpuSeconds();
    const line = [this.testPath, ((Date.now() - this.started.at) / 1000).toFixed(1), (now.own - this.started.cpu.own).toFixed(1), (now.children - this.started.cpu.children).toFixed(1)];
    fs.appendFileSync(log, `${line.join('\t')}\n`);
  }
}

module.exports = SharedTypedArrayEnvironment;
