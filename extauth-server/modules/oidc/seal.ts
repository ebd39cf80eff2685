/**
 * Sealed cookie values: AES-256-GCM under one of the configured keys, the
 * cookie's purpose as additional data (a login-state cookie never opens as a
 * session). The first key seals; every key opens, found by a short id of the
 * key carried in the value, so a key rotated out of first place still opens
 * the cookies it sealed (no one is logged out by a rotation) and any replica
 * given the same keys opens any cookie.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const KID = 4;
const IV = 12;
const TAG = 16;

export interface Sealer {
  seal(purpose: string, plaintext: string): string;
  /** The plaintext, or undefined for a value no key opens (malformed, forged, sealed with a key no longer listed). */
  open(purpose: string, sealed: string): string | undefined;
}

export function sealer(keys: readonly Buffer[]): Sealer {
  if (!keys.length) throw new Error('a sealer needs a key');
  const kidOf = (key: Buffer) => createHash('sha256').update(key).digest().subarray(0, KID);
  const byKid = new Map<string, Buffer[]>();
  for (const key of keys) {
    const kid = kidOf(key).toString('hex');
    byKid.set(kid, [...(byKid.get(kid) ?? []), key]);
  }
  const first = keys[0]!;
  const firstKid = kidOf(first);
  return {
    seal(purpose, plaintext) {
      const iv = randomBytes(IV);
      const cipher = createCipheriv('aes-256-gcm', first, iv);
      cipher.setAAD(Buffer.from(purpose));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return Buffer.concat([firstKid, iv, cipher.getAuthTag(), body]).toString('base64url');
    },
    open(purpose, sealed) {
      const raw = Buffer.from(sealed, 'base64url');
      if (raw.length <= KID + IV + TAG) return undefined;
      for (const key of byKid.get(raw.subarray(0, KID).toString('hex')) ?? []) {
        try {
          const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(KID, KID + IV));
          decipher.setAAD(Buffer.from(purpose));
          decipher.setAuthTag(raw.subarray(KID + IV, KID + IV + TAG));
          return Buffer.concat([decipher.update(raw.subarray(KID + IV + TAG)), decipher.final()]).toString('utf8');
        } catch {
          // Not this key (or tampered with): the next key of the same id, if any.
        }
      }
      return undefined;
    },
  };
}
