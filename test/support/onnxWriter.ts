/**
 * Writes small ONNX models for tests, without Python: the few protobuf messages of onnx.proto a
 * graph of plain operators needs (ModelProto, GraphProto, NodeProto, AttributeProto, TensorProto,
 * ValueInfoProto), encoded by hand in the protobuf wire format. onnxruntime checks what it loads, so
 * a mistake here fails the test that loads the model.
 */

type Field = Buffer;

function varint(value: number | bigint): Buffer {
  let v = BigInt.asUintN(64, BigInt(value));
  const bytes: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) byte |= 0x80;
    bytes.push(byte);
  } while (v !== 0n);
  return Buffer.from(bytes);
}

const key = (field: number, wireType: number) => varint((field << 3) | wireType);
const intField = (field: number, value: number | bigint): Field => Buffer.concat([key(field, 0), varint(value)]);
const bytesField = (field: number, value: Buffer): Field => Buffer.concat([key(field, 2), varint(value.length), value]);
const stringField = (field: number, value: string): Field => bytesField(field, Buffer.from(value, 'utf8'));
const message = (field: number, parts: Field[]): Field => bytesField(field, Buffer.concat(parts));
const floatField = (field: number, value: number): Field => {
  const data = Buffer.alloc(4);
  data.writeFloatLE(value);
  return Buffer.concat([key(field, 5), data]);
};

/** onnx.TensorProto.DataType */
export const DataType = { FLOAT: 1, UINT8: 2, INT64: 7 } as const;

/** AttributeProto.AttributeType */
const AttributeType = { FLOAT: 1, INT: 2, INTS: 7 } as const;

export type Attribute = number | number[] | { float: number };

export interface NodeSpec {
  op: string;
  inputs: string[];
  outputs: string[];
  attributes?: Record<string, Attribute>;
}

export interface TensorSpec {
  name: string;
  dims: number[];
  /** float32 values, or int64 ones with `int64`. */
  values: number[];
  int64?: boolean;
}

export interface ValueSpec {
  name: string;
  type: number;
  /** A number is a fixed dimension, a string a named (free) one such as "batch". */
  shape: Array<number | string>;
}

function attribute(name: string, value: Attribute): Field {
  const parts = [stringField(1, name)];
  if (typeof value === 'number') {
    parts.push(intField(3, value), intField(20, AttributeType.INT));
  } else if (Array.isArray(value)) {
    parts.push(...value.map((v) => intField(8, v)), intField(20, AttributeType.INTS));
  } else {
    parts.push(floatField(2, value.float), intField(20, AttributeType.FLOAT));
  }
  return message(5, parts);
}

function node(spec: NodeSpec, index: number): Field {
  return message(1, [
    ...spec.inputs.map((name) => stringField(1, name)),
    ...spec.outputs.map((name) => stringField(2, name)),
    stringField(3, `${spec.op.toLowerCase()}_${index}`),
    stringField(4, spec.op),
    ...Object.entries(spec.attributes ?? {}).map(([name, value]) => attribute(name, value)),
  ]);
}

function tensor(spec: TensorSpec): Field {
  const raw = spec.int64
    ? Buffer.from(new BigInt64Array(spec.values.map((v) => BigInt(v))).buffer)
    : Buffer.from(new Float32Array(spec.values).buffer);
  return message(5, [
    ...spec.dims.map((dim) => intField(1, dim)),
    intField(2, spec.int64 ? DataType.INT64 : DataType.FLOAT),
    stringField(8, spec.name),
    bytesField(9, raw),
  ]);
}

function valueInfo(field: number, spec: ValueSpec): Field {
  const dims = spec.shape.map((dim) => message(1, [typeof dim === 'number' ? intField(1, dim) : stringField(2, dim)]));
  const tensorType = message(1, [intField(1, spec.type), message(2, dims)]);
  return message(field, [stringField(1, spec.name), message(2, [tensorType])]);
}

/** An ONNX model (IR 8, default domain at `opset`) of one graph, as the bytes of a .onnx file. */
export function onnxModel(graph: { name: string; nodes: NodeSpec[]; initializers: TensorSpec[]; inputs: ValueSpec[]; outputs: ValueSpec[] }, opset = 17): Buffer {
  const graphProto = Buffer.concat([
    ...graph.nodes.map(node),
    stringField(2, graph.name),
    ...graph.initializers.map(tensor),
    ...graph.inputs.map((input) => valueInfo(11, input)),
    ...graph.outputs.map((output) => valueInfo(12, output)),
  ]);
  return Buffer.concat([
    intField(1, 8),
    stringField(2, 'media-dataset-service tests'),
    bytesField(7, graphProto),
    message(8, [stringField(1, ''), intField(2, opset)]),
  ]);
}
