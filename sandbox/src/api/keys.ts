import { randomBytes } from 'node:crypto';
import { directory } from '../domain/directory';
import {
	ACCOUNT_KEY_ID,
	ALL_SCOPES,
	expiryWithin,
	hasScope,
	keysCreatedBy,
	keysState,
	mayRevoke,
	newKeyValue,
	publicKey,
	withinBots,
	type ApiKey,
} from '../domain/keys';
import { ApiError, invalidParam, notFound } from '../http/errors';
import type { SandboxModule } from './endpoint';

const MAX_KEY_DAYS = 3650;

/** API keys with restricted rights: create (shown once) and revoke. */
export const keysModule: SandboxModule = {
	name: 'keys',
	endpoints: [
		{
			path: '/key/create',
			methods: 'POST',
			scope: 'keys:write',
			handle: ({ store, clock, params, key: caller }) => {
				const name = params.requiredString('name');
				const scopes = params.requiredStringList('scopes');
				const unknown = scopes.filter((scope) => !ALL_SCOPES.includes(scope));
				if (unknown.length > 0) throw invalidParam('scopes', `has unknown scopes: ${unknown.join(', ')}`);
				const beyond = scopes.filter((scope) => !hasScope(caller, scope));
				if (beyond.length > 0) {
					throw new ApiError(403, 'forbidden', `A key cannot grant scopes it lacks: ${beyond.join(', ')}`, {
						scope: beyond[0],
					});
				}
				// An empty array, like an absent one, means the key is not restricted to bots.
				const rawBots = params.raw('bots');
				const bots = Array.isArray(rawBots) && rawBots.length === 0 ? [] : (params.stringList('bots') ?? []);
				const knownBots = new Set(directory(store).bots.map((bot) => bot.id));
				const unknownBot = bots.find((botid) => !knownBots.has(botid));
				if (unknownBot !== undefined) throw notFound(`Bot ${unknownBot}`, 'bots');
				if (caller.bots.length > 0 && (bots.length === 0 || bots.some((botid) => !caller.bots.includes(botid)))) {
					throw new ApiError(403, 'bot_forbidden', 'A bot-restricted key can only create keys for its own bots', {
						param: 'bots',
					});
				}
				const days = params.int('days', { min: 1, max: MAX_KEY_DAYS });
				// A key never outlives the key that creates it: a later (or no) expiry is cut to the creator's, and the answer says so.
				const now = clock.now();
				const { expiresAt, limited } = expiryWithin(caller, days === undefined ? null : now + days * 86_400_000);
				const created: ApiKey = {
					id: `key_${randomBytes(6).toString('hex')}`,
					key: newKeyValue(),
					name,
					scopes: [...new Set(scopes)],
					bots,
					created: new Date(now).toISOString(),
					expiresAt,
					revoked: false,
					createdBy: caller.id,
				};
				keysState(store).keys.push(created);
				const answer = { key: { ...publicKey(created), key: created.key } };
				if (!limited) return answer;
				const asked = days === undefined ? 'never expiring' : `${days} days`;
				const notice = `The key expires at ${answer.key.expires}, with the key that created it (${caller.id}), instead of ${asked}: a key never outlives its creator`;
				return { ...answer, notice };
			},
		},
		{
			path: '/key/revoke',
			methods: 'POST',
			scope: 'keys:write',
			handle: ({ store, params, key: caller }) => {
				const id = params.requiredString('id');
				const { keys } = keysState(store);
				const key = keys.find((candidate) => candidate.id === id);
				if (!key) throw notFound(`Key ${id}`, 'id');
				if (key.id === ACCOUNT_KEY_ID) throw invalidParam('id', 'names the account key, which cannot be revoked');
				if (!withinBots(key.bots, caller.bots)) {
					throw new ApiError(403, 'bot_forbidden', `A bot-restricted key can only revoke keys of its own bots`, {
						param: 'id',
					});
				}
				if (!mayRevoke(keys, caller, key)) {
					throw new ApiError(
						403,
						'not_creator',
						`Key ${key.id} was not created by this key (${caller.id}) nor by a key it created: a key may revoke only itself and the keys it created, directly or through them; the account key may revoke any`,
						{ param: 'id' },
					);
				}
				// Revoking a key revokes every key it created, directly or through them.
				const created = keysCreatedBy(keys, key.id).filter((candidate) => !candidate.revoked);
				for (const revoked of [key, ...created]) revoked.revoked = true;
				return { ok: true, key: publicKey(key), revokedWith: created.map((revoked) => revoked.id) };
			},
		},
	],
};
