import { createUrlSigner } from '../../lib/auth/signedUrls';

const expiresOf = (link: string) => Number(new URL(link, 'http://x').searchParams.get('expires'));
const signatureOf = (link: string) => new URL(link, 'http://x').searchParams.get('signature')!;

describe('signed media links', () => {
  const signer = createUrlSigner('a-secret-key-of-at-least-32-characters', 3600);
  const id = '6b0c6f7e-3a7e-4d47-9e8b-2f1f2c1c9a11';
  const start = Date.UTC(2026, 10, 28, 12, 0, 0);

  it('gives one URL per item for a quarter of the lifetime, so browsers reuse cached thumbnails', () => {
    const first = signer.mediaPath(id, 'thumbnail', start + 1000);
    expect(signer.mediaPath(id, 'thumbnail', start + 800_000)).toBe(first);
    expect(signer.mediaPath(id, 'thumbnail', start + 901_000)).not.toBe(first);
    expect(signer.mediaPath(id, 'file', start + 1000)).not.toBe(first);
  });

  it('keeps every link valid for at least its lifetime and at most a quarter more', () => {
    for (const offset of [0, 1000, 450_000, 899_000, 900_000]) {
      const made = start + offset;
      const link = signer.mediaPath(id, 'thumbnail', made);
      const expires = expiresOf(link);
      expect(signer.verify(id, 'thumbnail', expires, signatureOf(link), made + 3600 * 1000)).toBe(true);
      expect(expires * 1000 - made).toBeLessThanOrEqual(1.25 * 3600 * 1000);
      expect(signer.verify(id, 'thumbnail', expires, signatureOf(link), (expires + 1) * 1000)).toBe(false);
    }
  });

  it('refuses a link for another item, variant or expiry', () => {
    const link = signer.mediaPath(id, 'thumbnail', start);
    const expires = expiresOf(link);
    expect(signer.verify(id, 'file', expires, signatureOf(link), start)).toBe(false);
    expect(signer.verify('7b0c6f7e-3a7e-4d47-9e8b-2f1f2c1c9a11', 'thumbnail', expires, signatureOf(link), start)).toBe(false);
    expect(signer.verify(id, 'thumbnail', expires + 900, signatureOf(link), start)).toBe(false);
  });
});
