import { createSecretBox } from '../../lib/auth/secretBox';

describe('createSecretBox', () => {
  const box = createSecretBox('k'.repeat(40));

  it('opens what it sealed, and the sealed form does not contain the secret', () => {
    const sealed = box.seal('my-api-secret');
    expect(sealed).not.toContain('my-api-secret');
    expect(box.open(sealed)).toBe('my-api-secret');
    expect(box.seal('my-api-secret')).not.toBe(sealed);
  });

  it('refuses a tampered ciphertext and another key', () => {
    const [iv, tag, ciphertext] = box.seal('my-api-secret').split('.');
    const flipped = Buffer.from(ciphertext, 'base64url');
    flipped[0] ^= 1;
    expect(() => box.open([iv, tag, flipped.toString('base64url')].join('.'))).toThrow();
    expect(() => createSecretBox('x'.repeat(40)).open(box.seal('s'))).toThrow();
  });
});
