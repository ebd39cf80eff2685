/**
 * normalizeDn against the real slapd, on a corpus of tricky group names:
 * whenever normalizeDn says two DNs are equal, slapd must refuse to hold both
 * as separate entries (otherwise a member of a look-alike group would pass as
 * a member of an allowed one). The opposite (slapd equal, normalizeDn
 * different) only denies access; it is printed, not failed.
 *
 * slapd's verdict on two DNs is asked the way it decides it itself: add the
 * first, then the second under the same parent; "already exists" (68) means
 * one entry. Two phases:
 *  1. every spelling is added under one parent; one that already exists is
 *     then read back by its own DN, which names the entry slapd took it for.
 *     That gives slapd's classes for all pairs at once (slapd compares
 *     normalized DNs, so its equality is transitive).
 *  2. every pair normalizeDn calls equal (plus two controls) is asked again
 *     directly, each under a fresh parent so pairs cannot interfere, and must
 *     agree with phase 1.
 * normalizeDn is compared on the DNs as written (allowedGroups) and on the DN
 * slapd returns for an entry (what memberOf holds).
 */
import { Client } from 'ldapts';
import { normalizeDn } from '../../contract/ldap-dn.js';
import { startSlapd, ADMIN, GROUPS_DN, type Slapd } from '../../harness/slapd.js';

interface Spelling {
  /** The RDN as written, e.g. `cn=a\,b`. */
  rdn: string;
  /** The decoded cn value, which the entry must hold as its naming attribute. */
  cn: string;
}

/** RFC 4514 escaping: the specials, a leading `#` or space, a trailing space, NUL. */
function escapeValue(raw: string): string {
  return raw
    .replace(/[\\,+";<>=]/g, (c) => `\\${c}`)
    .replace(/\0/g, '\\00')
    .replace(/^[# ]/, (c) => `\\${c}`)
    .replace(/ $/, '\\ ');
}

/** Every byte outside [A-Za-z0-9] as a \xx escape (upper-case hex), to test hex spellings of the same value. */
function hexValue(raw: string): string {
  return [...Buffer.from(raw)]
    .map((b) =>
      /[A-Za-z0-9]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `\\${b.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
}

const RAW_VALUES: string[] = [
  // ASCII case
  'admins',
  'Admins',
  'ADMINS',
  'aDmInS',
  // Unicode case and canonical singletons (KELVIN, ANGSTROM, OHM)
  'key',
  'Key',
  'KEY',
  '\u212Aey',
  '\u00e5',
  '\u00c5',
  '\u212b',
  'a\u030a',
  'A\u030a',
  '\u03c9',
  '\u03a9',
  '\u2126',
  'dir',
  'DIR',
  'd\u0130r',
  'd\u0131r',
  'di\u0307r',
  'dI\u0307r',
  '\u03bf\u03b4\u03bf\u03c2',
  '\u03bf\u03b4\u03bf\u03c3',
  '\u039f\u0394\u039f\u03a3',
  '\u039f\u03b4\u03bf\u03c2',
  'stra\u00dfe',
  'Stra\u00dfe',
  'STRASSE',
  'strasse',
  'STRA\u1e9eE',
  'stra\u1e9ee',
  'sales',
  'SALES',
  '\u017fales',
  '\u00b5s',
  '\u03bcs',
  '\u039cs',
  '\u01c4',
  '\u01c5',
  '\u01c6',
  'D\u017d',
  'd\u017e',
  // Case pairs from newer Unicode versions than slapd's tables may know
  '\u1c90',
  '\u10d0',
  '\u13a0',
  '\uab70',
  '\u2c00',
  '\u2c30',
  '\ua640',
  '\ua641',
  '\u{10400}',
  '\u{10428}',
  '\u{1e900}',
  '\u{1e922}',
  // Canonical equivalence: composed, decomposed, reordered marks, newer compositions
  'caf\u00e9',
  'cafe\u0301',
  'CAF\u00c9',
  'CAFE\u0301',
  'cafe',
  'a\u0323\u0302',
  'a\u0302\u0323',
  '\u1ead',
  '\ud55c',
  '\u1112\u1161\u11ab',
  '\u1b06',
  '\u1b05\u1b35',
  '\u{1109a}',
  '\u{11099}\u{110ba}',
  '\u{1112e}',
  '\u{11131}\u{11127}',
  // Compatibility forms (NFKC folds them; canonical equivalence does not)
  '\ufb01le',
  'file',
  'FILE',
  '\uff41dmins',
  '\uff41\uff44\uff4d\uff49\uff4e\uff53',
  '\uff21\uff24\uff2d\uff29\uff2e\uff33',
  'v\u00b2',
  'v2',
  '\u2460',
  '1',
  '\u2160',
  'I',
  // Spaces of every kind: runs, ends, and other space characters
  'ops team',
  'ops  team',
  'ops   team',
  ' ops team',
  'ops team ',
  '  ops  team  ',
  'opsteam',
  ...Array.from({ length: 11 }, (_, k) => `ops${String.fromCharCode(0x2000 + k)}team`),
  'ops\u00a0team',
  'ops\u3000team',
  'ops\tteam',
  'ops\u202fteam',
  'ops\u205fteam',
  'ops\u1680team',
  'ops\u2028team',
  'ops\u2029team',
  'ops\nteam',
  'ops\rteam',
  'ops\u000bteam',
  'ops\u000cteam',
  'ops\u0085team',
  '\u00a0ops team',
  'ops team\u00a0',
  'ops team\u3000',
  '\u2003ops team',
  'ops team\t',
  'ops team\n',
  'ops team\u2028',
  'ops team\u0085',
  '\tops team',
  // Zero-width and format characters
  'admins\u200b',
  'ad\u200bmins',
  '\u200badmins',
  'admins\u200c',
  'ad\u200cmins',
  'ad\u200dmins',
  'admins\u200d',
  'admins\ufeff',
  '\ufeffadmins',
  'ad\ufeffmins',
  'ad\u00admins',
  'admins\u00ad',
  'admins\u2060',
  'admins\u180e',
  'ad\u034fmins',
  'admins\u200e',
  'admins\u202e',
  'admins\ufe0f',
  'admins\u0000',
  // Characters with a meaning in a DN
  'a,b',
  'a+b',
  'a;b',
  'a=b',
  'a"b',
  'a<b',
  'a>b',
  'a\\b',
  'a\\,b',
  '#abc',
  'abc',
  ' lead',
  'lead',
  'trail ',
  'trail',
  'a\u0000b',
  'ab',
];

/** Other spellings of values above: attribute type names, hex escapes, quoting, BER. */
const EXTRA_SPELLINGS: Spelling[] = [
  { rdn: 'CN=admins', cn: 'admins' },
  { rdn: 'commonName=admins', cn: 'admins' },
  { rdn: '2.5.4.3=admins', cn: 'admins' },
  { rdn: ' cn = admins ', cn: 'admins' },
  { rdn: 'cn=\\61dmins', cn: 'admins' },
  { rdn: 'cn=\\41DMINS', cn: 'ADMINS' },
  { rdn: 'cn="admins"', cn: 'admins' },
  { rdn: 'cn=admins\\ef\\bb\\bf', cn: 'admins\ufeff' },
  { rdn: 'cn=a\\2cb', cn: 'a,b' },
  { rdn: 'cn=a\\2Cb', cn: 'a,b' },
  { rdn: 'cn="a,b"', cn: 'a,b' },
  { rdn: 'cn=a\\2bb', cn: 'a+b' },
  { rdn: 'cn=a\\3bb', cn: 'a;b' },
  { rdn: 'cn=a=b', cn: 'a=b' },
  { rdn: 'cn=\\23abc', cn: '#abc' },
  { rdn: 'cn=#0C03616263', cn: 'abc' },
  { rdn: 'cn=#0c03616263', cn: 'abc' },
  { rdn: 'cn=#0403616263', cn: 'abc' },
  { rdn: 'cn=\\20lead', cn: ' lead' },
  { rdn: 'cn=trail\\20', cn: 'trail ' },
  { rdn: 'cn=trail ', cn: 'trail' },
  { rdn: 'cn=ops\\20team', cn: 'ops team' },
  { rdn: 'cn=cafe\\cc\\81', cn: 'cafe\u0301' },
  { rdn: 'cn=caf\\c3\\a9', cn: 'caf\u00e9' },
];

const CORPUS: Spelling[] = [
  ...RAW_VALUES.map((cn) => ({ rdn: `cn=${escapeValue(cn)}`, cn })),
  // Each non-trivial value also spelled with hex escapes.
  ...RAW_VALUES.filter((cn) => !/^[A-Za-z0-9]*$/.test(cn)).map((cn) => ({ rdn: `cn=${hexValue(cn)}`, cn })),
  ...EXTRA_SPELLINGS,
];

/** Readable label: non-printable-ASCII code points as \u{…}. */
const show = (s: string) => s.replace(/[^\x21-\x7e]/gu, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);

const equalDns = (a: string, b: string) => {
  const na = normalizeDn(a);
  return na !== undefined && na === normalizeDn(b);
};

const ALREADY_EXISTS = 68;
const codeOf = (err: unknown): number => {
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'number') throw err;
  return code;
};

/**
 * fn over items with at most 32 requests in flight: with all of them sent at
 * once, slapd closed the connection.
 */
async function mapLimited<T, R>(items: T[], fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const k = next++;
      out[k] = await fn(items[k], k);
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  return out;
}

let slapd: Slapd;
let client: Client;

beforeAll(async () => {
  slapd = await startSlapd({ statsLog: false });
  client = new Client({ url: slapd.url });
  await client.bind(ADMIN.dn, ADMIN.password);
});

afterAll(async () => {
  await client?.unbind();
  await slapd?.close();
});

/** Adds `rdn,parent` holding cn; resolves true when added, false when slapd says it already exists. */
async function addEntry(parent: string, s: Spelling, description: string): Promise<boolean> {
  try {
    // organizationalRole: cn is its only required attribute, and entry equality depends on cn's matching rule only.
    await client.add(`${s.rdn},${parent}`, { objectClass: 'organizationalRole', cn: s.cn, description });
    return true;
  } catch (err) {
    if (codeOf(err) === ALREADY_EXISTS) return false;
    throw err;
  }
}

test('normalizeDn never calls equal two DNs that slapd holds as two entries', async () => {
  // Phase 1: slapd's classes.
  const all = `ou=all,${GROUPS_DN}`;
  await client.add(all, { objectClass: 'organizationalUnit', ou: 'all' });
  const rejected: string[] = [];
  // One at a time, so which spelling of an entry is added (and returned by slapd from then on) is always the first.
  const outcomes: (boolean | undefined)[] = [];
  for (const [i, s] of CORPUS.entries()) {
    outcomes.push(
      await addEntry(all, s, String(i)).catch((err: unknown) => {
        rejected.push(`${show(s.rdn)} (${codeOf(err)})`);
        return undefined;
      }),
    );
  }
  interface Accepted {
    i: number;
    written: string;
    stored: string;
    cls: number;
  }
  const accepted: Accepted[] = [];
  await mapLimited(CORPUS, async (s, i) => {
    if (outcomes[i] === undefined) return;
    const written = `${s.rdn},${all}`;
    const { searchEntries } = await client.search(written, { scope: 'base', attributes: ['description'] });
    expect(searchEntries).toHaveLength(1);
    const [{ dn, description }] = searchEntries;
    accepted.push({ i, written, stored: dn, cls: Number(description) });
  });
  accepted.sort((a, b) => a.i - b.i);
  // Each added spelling is its own class representative.
  for (const a of accepted) if (outcomes[a.i]) expect(a.cls).toBe(a.i);

  const label = (a: Accepted) => show(CORPUS[a.i].rdn);
  // normalizeDn's verdict on a pair: equal when any spelling an administrator or slapd uses for one equals one for the other.
  const oursEqual = (a: Accepted, b: Accepted) =>
    equalDns(a.written, b.written) || equalDns(a.stored, b.written) || equalDns(a.written, b.stored);
  const toAsk: [Accepted, Accepted][] = [];
  let failClosedPairs = 0;
  for (let x = 0; x < accepted.length; x++) {
    for (let y = x + 1; y < accepted.length; y++) {
      const [a, b] = [accepted[x], accepted[y]];
      if (oursEqual(a, b)) toAsk.push([a, b]);
      else if (a.cls === b.cls) failClosedPairs++;
    }
  }
  // Fail-closed summary: each slapd entry that normalizeDn splits, as the groups of spellings it keeps apart.
  const failClosed: string[] = [];
  for (const cls of new Set(accepted.map((a) => a.cls))) {
    const members = accepted.filter((a) => a.cls === cls);
    const groups = new Map<string, string[]>();
    for (const a of members) {
      const key = normalizeDn(a.written) ?? `unparsed ${a.i}`;
      groups.set(key, [...(groups.get(key) ?? []), label(a)]);
    }
    const storedApart = members.some((a) => !equalDns(a.stored, a.written));
    if (groups.size > 1 || storedApart) {
      const shown = [...groups.values()].map(
        (g) => g.slice(0, 3).join(' ') + (g.length > 3 ? ` +${g.length - 3}` : ''),
      );
      failClosed.push(
        `${shown.join(' | ')}${storedApart ? ` (slapd returns ${show(members[0].stored.split(',')[0])})` : ''}`,
      );
    }
  }

  // Phase 2: each pair normalizeDn calls equal, asked directly under a fresh parent. Controls: slapd folds ASCII case, keeps U+FEFF.
  const byRdn = (rdn: string) => accepted.find((a) => CORPUS[a.i].rdn === rdn)!;
  const controls: [Accepted, Accepted, boolean][] = [
    [byRdn('cn=admins'), byRdn('cn=ADMINS'), true],
    [byRdn('cn=admins'), byRdn('cn=admins\ufeff'), false],
  ];
  const direct = await mapLimited([...toAsk, ...controls], async ([a, b], k) => {
    const parent = `ou=p${k},${GROUPS_DN}`;
    await client.add(parent, { objectClass: 'organizationalUnit', ou: `p${k}` });
    expect(await addEntry(parent, CORPUS[a.i], 'a')).toBe(true);
    const slapdEqual = !(await addEntry(parent, CORPUS[b.i], 'b'));
    return { a, b, slapdEqual };
  });
  expect(direct.slice(toAsk.length).map((d) => d.slapdEqual)).toEqual(controls.map(([, , equal]) => equal));
  // The two ways of asking slapd agree.
  expect(
    direct.filter((d) => d.slapdEqual !== (d.a.cls === d.b.cls)).map((d) => `${label(d.a)} / ${label(d.b)}`),
  ).toEqual([]);

  // Dangerous pairs, one line per two slapd entries normalizeDn confuses.
  const dangerousByEntries = new Map<string, string[]>();
  for (const d of direct.slice(0, toAsk.length)) {
    if (d.slapdEqual) continue;
    const key = [d.a.cls, d.b.cls].sort((p, q) => p - q).join('/');
    dangerousByEntries.set(key, [...(dangerousByEntries.get(key) ?? []), `${label(d.a)} = ${label(d.b)}`]);
  }
  const dangerous = [...dangerousByEntries.values()].map(
    (pairs) => `${pairs[0]}${pairs.length > 1 ? ` (+${pairs.length - 1} other spellings)` : ''}`,
  );

  // The summary is for people studying DN folding (DN_DIFFERENTIAL_REPORT=1); a passing run stays quiet.
  if (process.env.DN_DIFFERENTIAL_REPORT)
    console.log(
      [
        `dn differential: ${CORPUS.length} spellings, ${accepted.length} accepted by slapd as ${new Set(accepted.map((a) => a.cls)).size} entries; ` +
          `${(accepted.length * (accepted.length - 1)) / 2} pairs; ${toAsk.length} pairs normalizeDn calls equal, asked again directly`,
        `slapd rejects (${rejected.length}): ${rejected.join(', ')}`,
        `fail-closed: ${failClosedPairs} pairs slapd calls equal and normalizeDn does not, in ${failClosed.length} entries (spellings normalizeDn keeps apart | ...):`,
        ...failClosed.map((f) => `  ${f}`),
      ].join('\n'),
    );
  expect(dangerous).toEqual([]);
});
