import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** A sealed value that cannot be opened: made with another SECRET_KEY, or damaged. */
export class SecretBoxError extends Error {}

/** AES-256-GCM with a key derived from the service's SECRET_KEY; output is `iv.tag.ciphertext` in base64url. */
export function createSecretBox(secretKey: string) {
  const key = createHash('sha256').update(`secret-box:${secretKey}`).digest();

  /** The plaintext of `sealed`; throws SecretBoxError when this key did not seal it. */
  function open(sealed: string): string {
    try {
      const [iv, tag, ciphertext] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
    } catch (error) {
      throw new SecretBoxError(`cannot open a sealed secret: ${(error as Error).message}`);
    }
  }

  return {
    seal(plaintext: string): string {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url')).join('.');
    },
    open,
    /** Whether this key sealed `sealed` (a value sealed under an earlier SECRET_KEY never opens again). */
    opens(sealed: string): boolean {
      try {
        open(sealed);
        return true;
      } catch (error) {
        if (error instanceof SecretBoxError) return false;
        throw error;
      }
    },
  };
}

export type SecretBox = ReturnType<typeof createSecretBox>;
