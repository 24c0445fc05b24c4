/** Vectors are stored as little-endian float32 bytes (Postgres bytea). */
export function vectorToBytes(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

export function bytesToVector(bytes: Buffer): Float32Array {
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

/** Vectors of one length as one run of little-endian float32 bytes. */
export function vectorsToBytes(vectors: readonly Float32Array[]): Buffer {
  return Buffer.concat(vectors.map(vectorToBytes));
}

/** The `count` vectors (each its own array) of bytes vectorsToBytes wrote. */
export function bytesToVectors(bytes: Buffer, count: number): Float32Array[] {
  const all = bytesToVector(bytes);
  const dim = all.length / count;
  return Array.from({ length: count }, (_, i) => all.slice(i * dim, (i + 1) * dim));
}
