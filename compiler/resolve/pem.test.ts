import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createLocalJWKSet, exportJWK, exportSPKI, generateKeyPair, jwtVerify, SignJWT, type JWK } from 'jose';
import { keyId, pemToJwks } from './pem.js';

const ISSUER = 'https://issuer.example';

async function sign(privateKey: CryptoKey | KeyObject, alg: string, kid?: string): Promise<string> {
  return new SignJWT({ sub: 'alice' })
    .setProtectedHeader(kid ? { alg, kid } : { alg })
    .setIssuer(ISSUER)
    .setExpirationTime('5m')
    .sign(privateKey);
}

function jwksOf(pem: string): { keys: JWK[] } {
  const result = pemToJwks(pem);
  if (!result.ok) throw new Error(`conversion failed: ${result.message}`);
  return { keys: result.keys as JWK[] };
}

describe('pemToJwks verifies tokens signed by the matching private key', () => {
  for (const alg of ['RS256', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const) {
    test(alg, async () => {
      const mine = await generateKeyPair(alg, { extractable: true });
      const other = await generateKeyPair(alg, { extractable: true });
      const jwks = jwksOf(await exportSPKI(mine.publicKey));
      expect(jwks.keys).toHaveLength(1);
      expect(jwks.keys[0]).toMatchObject({ alg, use: 'sig' });
      const keySet = createLocalJWKSet(jwks);

      const good = await sign(mine.privateKey, alg);
      const { payload } = await jwtVerify(good, keySet, { issuer: ISSUER });
      expect(payload.sub).toBe('alice');

      // A token naming the key by its kid (as Kubernetes service-account tokens do) also verifies.
      const withKid = await sign(mine.privateKey, alg, jwks.keys[0]!.kid);
      await expect(jwtVerify(withKid, keySet, { issuer: ISSUER })).resolves.toBeDefined();

      const forged = await sign(other.privateKey, alg);
      await expect(jwtVerify(forged, keySet, { issuer: ISSUER })).rejects.toThrow(/signature verification failed/);
    });
  }
});

describe('pemToJwks key shapes', () => {
  test('the kid is base64url(SHA-256(DER SPKI)), the Kubernetes service-account key id', () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const kid = keyId(publicKey);
    expect(kid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;
    expect(keyId(other)).not.toBe(kid);
  });

  test('PKCS#1 "RSA PUBLIC KEY" and SPKI "PUBLIC KEY" of one key give the same JWK', () => {
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const spki = publicKey.export({ type: 'spki', format: 'pem' }) as string;
    const pkcs1 = publicKey.export({ type: 'pkcs1', format: 'pem' }) as string;
    expect(pkcs1).toContain('BEGIN RSA PUBLIC KEY');
    expect(jwksOf(pkcs1)).toEqual(jwksOf(spki));
  });

  test('several PEM blocks become several keys, in order, each verifying its own tokens', async () => {
    const a = await generateKeyPair('RS256', { extractable: true });
    const b = await generateKeyPair('ES256', { extractable: true });
    const jwks = jwksOf(`${await exportSPKI(a.publicKey)}\n${await exportSPKI(b.publicKey)}`);
    expect(jwks.keys.map((k) => k.kty)).toEqual(['RSA', 'EC']);
    const keySet = createLocalJWKSet(jwks);
    await expect(jwtVerify(await sign(b.privateKey, 'ES256'), keySet)).resolves.toBeDefined();
    await expect(jwtVerify(await sign(a.privateKey, 'RS256'), keySet)).resolves.toBeDefined();
  });

  test('indented PEM (as YAML block scalars often are) is accepted', () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-384' });
    const pem = (publicKey.export({ type: 'spki', format: 'pem' }) as string)
      .split('\n')
      .map((line) => `  ${line}`)
      .join('\n');
    const result = pemToJwks(pem);
    expect(result.ok).toBe(true);
  });
});

describe('pemToJwks rejects what Envoy cannot use', () => {
  const reject = (pem: string, message: RegExp) => {
    const result = pemToJwks(pem);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(message);
  };

  test('text that is not PEM', () => reject('not a key', /not a PEM public key/));

  test('a PEM block whose body is not a key', () =>
    reject(
      '-----BEGIN PUBLIC KEY-----\nbm90IGEga2V5\n-----END PUBLIC KEY-----\n',
      /block 1 is not a valid public key/,
    ));

  test('a private key, without echoing it', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const result = pemToJwks(pem);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.message).toMatch(/private key/);
      const body = pem.split('\n')[1]!;
      expect(`${result.message} ${result.hint}`).not.toContain(body);
    }
  });

  test('a certificate', () =>
    reject('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n', /certificate, not a public key/));

  test('text around the PEM block', () => {
    const { publicKey } = generateKeyPairSync('ed25519');
    reject(`key: ${publicKey.export({ type: 'spki', format: 'pem' }) as string}`, /text outside/);
  });

  test('an EC key on a curve Envoy does not support', () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
    reject(publicKey.export({ type: 'spki', format: 'pem' }) as string, /curve secp256k1/);
  });

  test('an RSA key with a non-standard exponent', () => {
    const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048, publicExponent: 17 });
    reject(publicKey.export({ type: 'spki', format: 'pem' }) as string, /exponent other than 3 or 65537/);
  });

  test('a key-agreement key (X25519)', () => {
    const { publicKey } = generateKeyPairSync('x25519');
    reject(publicKey.export({ type: 'spki', format: 'pem' }) as string, /x25519 key/);
  });
});

describe('a JWK Set or a single JWK in jwks.local.key (as Gloo accepts)', () => {
  test('each key verifies tokens of its private key; the given kid and alg are kept', async () => {
    const rsa = await generateKeyPair('PS384', { extractable: true });
    const ec = await generateKeyPair('ES256', { extractable: true });
    const other = await generateKeyPair('ES256', { extractable: true });
    const given = {
      keys: [
        { ...(await exportJWK(rsa.publicKey)), kid: 'rsa-2026', alg: 'PS384', use: 'sig' },
        { ...(await exportJWK(ec.publicKey)), kid: 'ec-2026' },
      ],
    };
    const jwks = jwksOf(JSON.stringify(given));
    expect(jwks.keys.map((k) => [k.kid, k.alg])).toEqual([
      ['rsa-2026', 'PS384'],
      ['ec-2026', 'ES256'],
    ]);
    const keySet = createLocalJWKSet(jwks);
    await expect(
      jwtVerify(await sign(rsa.privateKey, 'PS384', 'rsa-2026'), keySet, { issuer: ISSUER }),
    ).resolves.toBeDefined();
    await expect(
      jwtVerify(await sign(ec.privateKey, 'ES256', 'ec-2026'), keySet, { issuer: ISSUER }),
    ).resolves.toBeDefined();
    await expect(
      jwtVerify(await sign(other.privateKey, 'ES256', 'ec-2026'), keySet, { issuer: ISSUER }),
    ).rejects.toThrow(/signature verification failed/);
  });

  test('one JWK without kid gets the same kid its PEM form gets', async () => {
    const { publicKey } = generateKeyPairSync('ed25519');
    const fromJwk = jwksOf(JSON.stringify(publicKey.export({ format: 'jwk' })));
    const fromPem = jwksOf(publicKey.export({ type: 'spki', format: 'pem' }) as string);
    expect(fromJwk).toEqual(fromPem);
    expect(fromJwk.keys[0]!.kid).toBe(keyId(publicKey));
  });

  const reject = (text: string, message: RegExp) => {
    const result = pemToJwks(text);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(message);
    return result;
  };

  test('a private JWK is refused without echoing it', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = privateKey.export({ format: 'jwk' });
    const result = reject(JSON.stringify({ keys: [jwk] }), /private or symmetric key \(it has "d"\)/);
    if (!result.ok) expect(`${result.message} ${result.hint}`).not.toContain(jwk.d!);
  });

  test('what Envoy cannot use is refused as in the PEM form', () => {
    reject('{"keys": []}', /without keys/);
    reject('{"keys": [', /not JSON/);
    reject('{"kty": "RSA", "n": "AQAB"}', /not a valid public JWK/);
    reject(
      JSON.stringify(generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).publicKey.export({ format: 'jwk' })),
      /curve secp256k1/,
    );
    reject(
      JSON.stringify({ ...generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }), alg: 'RS256' }),
      /an OKP key with "alg" "RS256"/,
    );
    reject(
      JSON.stringify({ ...generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }), use: 'enc' }),
      /"use" "enc"/,
    );
  });
});
