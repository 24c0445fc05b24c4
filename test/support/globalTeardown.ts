export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __testServices?: { stop(): Promise<void> } }).__testServices?.stop();
}
