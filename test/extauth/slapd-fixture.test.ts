/** The fixture itself: memberOf is maintained by the overlay, ACLs hide entries from anonymous, restart keeps data. */
import { Client } from 'ldapts';
import { startSlapd, userDn, groupDn, SERVICE_ACCOUNT, type Slapd } from '../../harness/slapd.js';

let slapd: Slapd;
beforeAll(async () => {
  slapd = await startSlapd();
});
afterAll(async () => {
  await slapd?.close();
});

async function memberOf(bindDn: string, password: string, uid: string): Promise<string[]> {
  const client = new Client({ url: slapd.url, timeout: 5000, connectTimeout: 5000 });
  try {
    await client.bind(bindDn, password);
    const { searchEntries } = await client.search(userDn(uid), { scope: 'base', attributes: ['memberOf'] });
    const v = searchEntries[0]?.memberOf ?? [];
    return (Array.isArray(v) ? v : [v]).map(String);
  } finally {
    await client.unbind();
  }
}

test('groups added after start show up as memberOf on the users', async () => {
  expect((await memberOf(userDn('carol'), 'carol-pw', 'carol')).sort()).toEqual([groupDn('ops'), groupDn('sales')]);
  expect(await memberOf(SERVICE_ACCOUNT.dn, SERVICE_ACCOUNT.password, 'dave')).toEqual([]);
});

test('anonymous cannot read entries; restart keeps data on the same port', async () => {
  const anon = new Client({ url: slapd.url, timeout: 5000 });
  const { searchEntries } = await anon
    .search(userDn('alice'), { scope: 'base', attributes: ['memberOf'] })
    .catch(() => ({ searchEntries: [] }));
  expect(searchEntries).toEqual([]);
  await anon.unbind();
  await slapd.stop();
  await slapd.start();
  expect(await memberOf(userDn('alice'), 'alice-pw', 'alice')).toEqual([groupDn('developers')]);
});
