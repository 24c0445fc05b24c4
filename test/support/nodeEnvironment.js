// onnxruntime-node checks tensors with `instanceof Float32Array` against the main realm's classes;
// jest's default node environment gives tests their own, so share the typed-array classes.
const { TestEnvironment } = require('jest-environment-node');

class SharedTypedArrayEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    for (const name of [
      'ArrayBuffer', 'Uint8Array', 'Int8Array', 'Uint16Array', 'Int16Array', 'Uint32Array', 'Int32Array',
      'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array',
    ]) {
      this.global[name] = globalThis[name];
    }
  }
}

module.exports = SharedTypedArrayEnvironment;
