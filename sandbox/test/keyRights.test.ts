import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { publicKey } from '../src/domain/keys';
import { openSandbox, TestClient } from './client';

const DAY_MS = 86_400_000;

/** A key as /key/create answers it: its public record and, only there, its value. */
type CreatedKey = ReturnType<typeof publicKey> & { key: string };

/** Creates a key with `creator` and returns the whole answer (key and, when its expiry was cut, notice). */
async function create(
	creator: TestClient,
	body: Record<string, unknown>,
): Promise<{ key: CreatedKey; notice?: string }> {
	const response = await creator.post('/key/create', body);
	if (response.status !== 200)
		throw new Error(`/key/create answered ${response.status}: ${JSON.stringify(response.body)}`);
	return response.body;
}

const isoPlus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
const cutNotice = (expires: string, creatorId: string, asked: string) =>
	`The key expires at ${expires}, with the key that created it (${creatorId}), instead of ${asked}: a key never outlives its creator`;

/** The status and message a key gets on a read every key in these tests may make. */
async function standing(api: TestClient, key: CreatedKey): Promise<string> {
	const response = await api.withKey(key.key).get('/account/balance/get');
	return response.status === 200 ? '200' : `${response.status} ${response.body.error}`;
}
const WORKS = '200';
const EXPIRED = '401 The API key has expired';
const REVOKED = '401 The API key has been revoked';

describe('keys never outlive their creator', () => {
	test('a key made by an expiring key expires with it at the latest, and the answer says when its expiry was cut', async () => {
		const { api, routes, close } = await openSandbox({ seed: false });
		try {
			const parent = (await create(api, { name: 'three days', scopes: ['keys:write', 'account:read'], days: 3 })).key;
			expect(parent.expires).toBe(isoPlus(parent.created, 3 * DAY_MS));
			const asParent = api.withKey(parent.key);

			const longer = await create(asParent, { name: 'ten days', scopes: ['keys:write', 'account:read'], days: 10 });
			expect(longer.key.expires).toBe(parent.expires);
			expect(longer.notice).toBe(cutNotice(parent.expires!, parent.id, '10 days'));

			const forever = await create(asParent, { name: 'no days', scopes: ['account:read'] });
			expect(forever.key.expires).toBe(parent.expires);
			expect(forever.notice).toBe(cutNotice(parent.expires!, parent.id, 'never expiring'));

			const shorter = await create(asParent, { name: 'one day', scopes: ['account:read'], days: 1 });
			expect(Object.keys(shorter)).toEqual(['key']);
			expect(shorter.key.expires).toBe(isoPlus(shorter.key.created, DAY_MS));

			// Through a generation: the grandchild is cut to the grandparent's expiry, which its parent carries.
			const grandchild = await create(api.withKey(longer.key.key), {
				name: 'thirty days',
				scopes: ['account:read'],
				days: 30,
			});
			expect(grandchild.key.expires).toBe(parent.expires);
			expect(grandchild.notice).toBe(cutNotice(parent.expires!, longer.key.id, '30 days'));

			// A creator that never expires sets no limit: neither the account key nor a key made without days.
			const unlimited = (await create(api, { name: 'no expiry', scopes: ['keys:write', 'account:read'] })).key;
			expect(unlimited.expires).toBeNull();
			const fromUnlimited = await create(api.withKey(unlimited.key), {
				name: 'five days',
				scopes: ['account:read'],
				days: 5,
			});
			expect(Object.keys(fromUnlimited)).toEqual(['key']);
			expect(fromUnlimited.key.expires).toBe(isoPlus(fromUnlimited.key.created, 5 * DAY_MS));
			const fromAccount = await create(api, { name: 'account made', scopes: ['account:read'], days: 3650 });
			expect(fromAccount.key.expires).toBe(isoPlus(fromAccount.key.created, 3650 * DAY_MS));

			const keys = {
				parent,
				longer: longer.key,
				forever: forever.key,
				shorter: shorter.key,
				grandchild: grandchild.key,
				unlimited,
				fromUnlimited: fromUnlimited.key,
			};
			const standings = async () =>
				Object.fromEntries(
					await Promise.all(Object.entries(keys).map(async ([name, key]) => [name, await standing(api, key)])),
				);
			expect(await standings()).toEqual({
				parent: WORKS,
				longer: WORKS,
				forever: WORKS,
				shorter: WORKS,
				grandchild: WORKS,
				unlimited: WORKS,
				fromUnlimited: WORKS,
			});

			// A day and a second later only the one-day key has expired; three days later every key cut to the parent's has.
			expect((await routes.post('/sandbox/clock', { advanceSeconds: 86_401 })).status).toBe(200);
			expect(await standings()).toEqual({
				parent: WORKS,
				longer: WORKS,
				forever: WORKS,
				shorter: EXPIRED,
				grandchild: WORKS,
				unlimited: WORKS,
				fromUnlimited: WORKS,
			});
			expect((await routes.post('/sandbox/clock', { advanceSeconds: 2 * 86_400 })).status).toBe(200);
			expect(await standings()).toEqual({
				parent: EXPIRED,
				longer: EXPIRED,
				forever: EXPIRED,
				shorter: EXPIRED,
				grandchild: EXPIRED,
				unlimited: WORKS,
				fromUnlimited: WORKS,
			});
		} finally {
			await close();
		}
	});
});

describe('revoking a key revokes the keys it created', () => {
	test('transitively, only below the revoked key, and the answer names the keys revoked with it', async () => {
		const { api, close } = await openSandbox({ seed: false });
		try {
			const writer = { scopes: ['keys:write', 'account:read'] };
			const a = (await create(api, { name: 'a', ...writer })).key;
			const b = (await create(api.withKey(a.key), { name: 'b', ...writer })).key;
			const c = (await create(api.withKey(b.key), { name: 'c', ...writer })).key;
			const d = (await create(api.withKey(c.key), { name: 'd', scopes: ['account:read'] })).key;
			const sibling = (await create(api.withKey(a.key), { name: 'sibling', scopes: ['account:read'] })).key;
			const other = (await create(api, { name: 'other', ...writer })).key;
			const keys = { a, b, c, d, sibling, other };
			const standings = async () =>
				Object.fromEntries(
					await Promise.all(Object.entries(keys).map(async ([name, key]) => [name, await standing(api, key)])),
				);

			const revokeB = await api.post('/key/revoke', { id: b.id });
			expect(revokeB.status).toBe(200);
			const { key: _value, ...bPublic } = b;
			expect(revokeB.body).toEqual({ ok: true, key: { ...bPublic, revoked: true }, revokedWith: [c.id, d.id] });
			expect(await standings()).toEqual({ a: WORKS, b: REVOKED, c: REVOKED, d: REVOKED, sibling: WORKS, other: WORKS });

			// A key may revoke itself: with it go the keys it created that still worked.
			const revokeA = await api.withKey(a.key).post('/key/revoke', { id: a.id });
			expect(revokeA.body.revokedWith).toEqual([sibling.id]);
			expect(await standings()).toEqual({
				a: REVOKED,
				b: REVOKED,
				c: REVOKED,
				d: REVOKED,
				sibling: REVOKED,
				other: WORKS,
			});
			expect((await api.post('/key/revoke', { id: a.id })).body.revokedWith).toEqual([]);
			expect((await api.get('/account/get')).body.used.keys).toBe(2);
		} finally {
			await close();
		}
	});

	test('holds across restarts of a sandbox on a data file and when the clock moves 10 days', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'sandbox-key-rights-'));
		const dataFile = join(dir, 'state.sqlite');
		try {
			const first = await openSandbox({ dataFile, seed: false });
			const parent = (await create(first.api, { name: 'a day', scopes: ['keys:write', 'account:read'], days: 1 })).key;
			const child = (
				await create(first.api.withKey(parent.key), { name: 'child', scopes: ['keys:write', 'account:read'] })
			).key;
			const grandchild = (await create(first.api.withKey(child.key), { name: 'grandchild', scopes: ['account:read'] }))
				.key;
			await first.close();

			// After a restart the creators are known: revoking the parent takes the keys made before the restart with it.
			const second = await openSandbox({ dataFile, seed: false });
			const revoked = await second.api.post('/key/revoke', { id: parent.id });
			expect(revoked.body).toEqual({
				ok: true,
				key: expect.objectContaining({ id: parent.id, revoked: true }),
				revokedWith: [child.id, grandchild.id],
			});
			const keys = { parent, child, grandchild };
			const standings = async (api: TestClient) =>
				Object.fromEntries(
					await Promise.all(Object.entries(keys).map(async ([name, key]) => [name, await standing(api, key)])),
				);
			expect(await standings(second.api)).toEqual({ parent: REVOKED, child: REVOKED, grandchild: REVOKED });
			expect((await second.routes.post('/sandbox/clock', { advanceSeconds: 10 * 86_400 })).status).toBe(200);
			expect(await standings(second.api)).toEqual({ parent: REVOKED, child: REVOKED, grandchild: REVOKED });
			await second.close();

			const third = await openSandbox({ dataFile, seed: false });
			try {
				expect(await standings(third.api)).toEqual({ parent: REVOKED, child: REVOKED, grandchild: REVOKED });
				// The child kept its cut expiry: the parent's.
				const again = await third.api.post('/key/revoke', { id: child.id });
				expect(again.body).toEqual({
					ok: true,
					key: expect.objectContaining({ id: child.id, expires: parent.expires, revoked: true }),
					revokedWith: [],
				});
			} finally {
				await third.close();
			}
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});
});

/** The refusal a key gets for revoking `target`, which it neither is nor created (directly or through keys it created). */
const notCreator = (target: CreatedKey, callerId: string) => ({
	code: 'not_creator',
	error: `Key ${target.id} was not created by this key (${callerId}) nor by a key it created: a key may revoke only itself and the keys it created, directly or through them; the account key may revoke any`,
	param: 'id',
});

describe('keys never turn on their makers', () => {
	test('a key revokes only itself and the keys below it: not its creator, a sibling, a key the account made, nor another key of its bots', async () => {
		const { api, close } = await openSandbox();
		try {
			const writer = { scopes: ['keys:write', 'account:read'] };
			const a = (await create(api, { name: 'a', ...writer })).key;
			const b1 = (await create(api.withKey(a.key), { name: 'b1', ...writer })).key;
			const b2 = (await create(api.withKey(a.key), { name: 'b2', ...writer })).key;
			const c = (await create(api.withKey(b1.key), { name: 'c', ...writer })).key;
			const other = (await create(api, { name: 'other', ...writer })).key;
			const tg = (await create(api, { name: 'tg', ...writer, bots: ['bot_tg'] })).key;
			const tgChild = (await create(api.withKey(tg.key), { name: 'tg child', ...writer, bots: ['bot_tg'] })).key;
			const tgOther = (await create(api, { name: 'tg other', ...writer, bots: ['bot_tg'] })).key;
			const keys = { a, b1, b2, c, other, tg, tgChild, tgOther };
			const standings = async () =>
				Object.fromEntries(
					await Promise.all(Object.entries(keys).map(async ([name, key]) => [name, await standing(api, key)])),
				);
			const allWork = Object.fromEntries(Object.keys(keys).map((name) => [name, WORKS]));
			const usedKeys = 1 + Object.keys(keys).length;
			expect((await api.get('/account/get')).body.used.keys).toBe(usedKeys);

			const refusals: [CreatedKey, CreatedKey][] = [
				[b1, a], // its creator
				[b1, b2], // a sibling
				[b1, other], // a key the account made
				[c, b1], // its creator
				[c, a], // its creator's creator
				[c, b2], // its creator's sibling
				[a, other], // a key the account made, beside it
				[tgChild, tg], // its creator, of the same bot
				[tgChild, tgOther], // a key of its bot the account made
				[tg, tgOther], // a bot-restricted key and another key of its bot
			];
			for (const [caller, target] of refusals) {
				const response = await api.withKey(caller.key).post('/key/revoke', { id: target.id });
				expect({ caller: caller.name, target: target.name, status: response.status, body: response.body }).toEqual({
					caller: caller.name,
					target: target.name,
					status: 403,
					body: notCreator(target, caller.id),
				});
			}
			// A bot-restricted key naming a key of every bot is refused for the bots first.
			const beyondBots = await api.withKey(tg.key).post('/key/revoke', { id: other.id });
			expect({ status: beyondBots.status, code: beyondBots.body.code, param: beyondBots.body.param }).toEqual({
				status: 403,
				code: 'bot_forbidden',
				param: 'id',
			});
			// Nothing was revoked: every key still works and still counts.
			expect(await standings()).toEqual(allWork);
			expect((await api.get('/account/get')).body.used.keys).toBe(usedKeys);

			// Below itself a key may revoke, and the cascade goes on from there.
			const grandchild = await api.withKey(a.key).post('/key/revoke', { id: c.id });
			expect({ status: grandchild.status, revokedWith: grandchild.body.revokedWith }).toEqual({
				status: 200,
				revokedWith: [],
			});
			const withChild = await api.withKey(tg.key).post('/key/revoke', { id: tgChild.id });
			expect({ status: withChild.status, revokedWith: withChild.body.revokedWith }).toEqual({
				status: 200,
				revokedWith: [],
			});
			expect(await standings()).toEqual({ ...allWork, c: REVOKED, tgChild: REVOKED });
			const self = await api.withKey(a.key).post('/key/revoke', { id: a.id });
			expect({ status: self.status, revokedWith: self.body.revokedWith }).toEqual({
				status: 200,
				revokedWith: [b1.id, b2.id],
			});
			expect(await standings()).toEqual({
				...allWork,
				a: REVOKED,
				b1: REVOKED,
				b2: REVOKED,
				c: REVOKED,
				tgChild: REVOKED,
			});

			// The account key revokes any key, made by itself or by another.
			for (const target of [other, tgOther])
				expect((await api.post('/key/revoke', { id: target.id })).status).toBe(200);
			expect(await standings()).toEqual({
				a: REVOKED,
				b1: REVOKED,
				b2: REVOKED,
				c: REVOKED,
				other: REVOKED,
				tg: WORKS,
				tgChild: REVOKED,
				tgOther: REVOKED,
			});
			expect((await api.get('/account/get')).body.used.keys).toBe(2);
		} finally {
			await close();
		}
	});

	test('the refusal holds after restarts on a data file; a key stored without its creator is revocable by itself and the account key only', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'sandbox-key-makers-'));
		const dataFile = join(dir, 'state.sqlite');
		try {
			const writer = { scopes: ['keys:write', 'account:read'] };
			const first = await openSandbox({ dataFile, seed: false });
			const parent = (await create(first.api, { name: 'parent', ...writer })).key;
			const child = (await create(first.api.withKey(parent.key), { name: 'child', ...writer })).key;
			const sibling = (await create(first.api.withKey(parent.key), { name: 'sibling', ...writer })).key;
			const unrelated = (await create(first.api, { name: 'unrelated', ...writer })).key;
			await first.close();
			const keys = { parent, child, sibling, unrelated };
			const standings = async (api: TestClient) =>
				Object.fromEntries(
					await Promise.all(Object.entries(keys).map(async ([name, key]) => [name, await standing(api, key)])),
				);
			const allWork = { parent: WORKS, child: WORKS, sibling: WORKS, unrelated: WORKS };

			const second = await openSandbox({ dataFile, seed: false });
			for (const target of [parent, sibling, unrelated]) {
				const response = await second.api.withKey(child.key).post('/key/revoke', { id: target.id });
				expect({ target: target.name, status: response.status, body: response.body }).toEqual({
					target: target.name,
					status: 403,
					body: notCreator(target, child.id),
				});
			}
			expect(await standings(second.api)).toEqual(allWork);
			await second.close();

			// As an older sandbox stored it: the sibling without a recorded creator.
			const db = new DatabaseSync(dataFile);
			try {
				const stored = JSON.parse(
					(db.prepare("SELECT json FROM documents WHERE name = 'keys'").get() as { json: string }).json,
				);
				const entry = stored.keys.find((key: { id: string }) => key.id === sibling.id);
				expect(entry.createdBy).toBe(parent.id);
				delete entry.createdBy;
				db.prepare("UPDATE documents SET json = ? WHERE name = 'keys'").run(JSON.stringify(stored));
			} finally {
				db.close();
			}

			const third = await openSandbox({ dataFile, seed: false });
			try {
				expect(await standings(third.api)).toEqual(allWork);
				const refused = await third.api.withKey(parent.key).post('/key/revoke', { id: sibling.id });
				expect({ status: refused.status, body: refused.body }).toEqual({
					status: 403,
					body: notCreator(sibling, parent.id),
				});
				expect(await standings(third.api)).toEqual(allWork);
				// The parent still revokes the child it is recorded to have made, and the account key the sibling.
				const byParent = await third.api.withKey(parent.key).post('/key/revoke', { id: child.id });
				expect({ status: byParent.status, revokedWith: byParent.body.revokedWith }).toEqual({
					status: 200,
					revokedWith: [],
				});
				const byAccount = await third.api.post('/key/revoke', { id: sibling.id });
				expect({ status: byAccount.status, revokedWith: byAccount.body.revokedWith }).toEqual({
					status: 200,
					revokedWith: [],
				});
				expect(await standings(third.api)).toEqual({
					parent: WORKS,
					child: REVOKED,
					sibling: REVOKED,
					unrelated: WORKS,
				});
			} finally {
				await third.close();
			}
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});
});
