import { reuseMediaLinks } from '../../lib/auth/reusedMediaLinks';
import { createUrlSigner } from '../../lib/auth/signedUrls';

describe('reuseMediaLinks', () => {
  const signer = createUrlSigner('k'.repeat(32), 3600);
  const expiresOf = (link: string) => Number(new URL(link, 'http://x').searchParams.get('expires'));

  it('hands out the same link for a sixtieth of the TTL, then a fresh one; every link verifies', () => {
    let now = 1_700_000_000_000 - (1_700_000_000_000 % 60_000);
    const links = reuseMediaLinks(signer, 3600, () => now);
    const first = links.mediaPath('m1', 'thumbnail');
    now += 59_000;
    expect(links.mediaPath('m1', 'thumbnail')).toBe(first);
    expect(links.mediaPath('m1', 'file')).not.toBe(first);
    now += 1_000;
    const next = links.mediaPath('m1', 'thumbnail');
    expect(next).not.toBe(first);
    for (const link of [first, next]) {
      const url = new URL(link, 'http://x');
      expect(signer.verify('m1', 'thumbnail', expiresOf(link), url.searchParams.get('signature')!, now)).toBe(true);
    }
  });

  it('never gives a link more time than the TTL, nor less than the TTL minus a sixtieth of it', () => {
    let now = 1_700_000_012_345;
    const links = reuseMediaLinks(signer, 3600, () => now);
    for (let step = 0; step < 200; step++) {
      const left = expiresOf(links.mediaPath('m2', 'file')) - now / 1000;
      expect(left).toBeLessThanOrEqual(3600);
      expect(left).toBeGreaterThan(3600 - 61);
      now += 1_234;
    }
  });
});
