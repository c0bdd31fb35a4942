import { logEntriesNewestFirst } from '../domain/apiLog';
import { directory } from '../domain/directory';
import { keysState, logReadableKeyIds, withinBots } from '../domain/keys';
import { listsState, listSummary } from '../domain/lists';
import { readTimeBound } from '../domain/subscribersParams';
import { paginate } from '../http/params';
import type { SandboxModule } from './endpoint';

/** Account, balance, summary, API log, bots and projects. */
export const accountModule: SandboxModule = {
	name: 'account',
	endpoints: [
		{
			path: '/account/balance/get',
			methods: 'GET or POST',
			scope: 'account:read',
			handle: ({ store }) => ({ balance: directory(store).balance }),
		},
		{
			path: '/account/get',
			methods: 'GET or POST',
			scope: 'account:read',
			handle: ({ store, options, key: caller, botAllowed }) => {
				const dir = directory(store);
				const lists = listsState(store).lists;
				return {
					account: { ...dir.account, timezone: options.timezone },
					tariff: { ...dir.tariff, rowCap: options.rowCap, rateLimit: options.rateLimit },
					// A bot-restricted key counts its bots and the keys of its bots only. Lists belong to the account: every
					// key with account:read sees them all with their row counts in /account/summary, so they are counted whole.
					used: {
						bots: dir.bots.filter((bot) => botAllowed(bot.id)).length,
						lists: lists.length,
						rows: lists.reduce((sum, list) => sum + list.rows.length, 0),
						keys: keysState(store).keys.filter((key) => !key.revoked && withinBots(key.bots, caller.bots)).length,
					},
				};
			},
		},
		{
			path: '/account/summary',
			methods: 'GET or POST',
			scope: 'account:read',
			handle: ({ store, botAllowed }) => {
				const dir = directory(store);
				return {
					bots: dir.bots.filter((bot) => botAllowed(bot.id)),
					groups: dir.groups,
					chains: dir.chains.filter((chain) => botAllowed(chain.botid)),
					lists: listsState(store).lists.map(listSummary),
				};
			},
		},
		{
			path: '/log/get',
			methods: 'GET or POST',
			scope: 'log:read',
			handle: (call) => {
				const { store, params } = call;
				const path = params.string('path');
				const status = params.int('status', { min: 100, max: 599 });
				const failed = params.bool('failed');
				const from = readTimeBound(call, 'from');
				// A key restricted to bots sees only its own calls and those of the keys it created (see docs/rules.md: "API log").
				const readable = logReadableKeyIds(keysState(store).keys, call.key);
				const entries = logEntriesNewestFirst(
					store,
					(entry) =>
						(readable === 'all' || (entry.keyId !== null && readable.has(entry.keyId))) &&
						(path === undefined || entry.path.includes(path)) &&
						(status === undefined || entry.status === status) &&
						(!failed || entry.failed) &&
						(from === undefined || from(entry.time)),
				);
				return paginate(entries, params);
			},
		},
		{
			path: '/bot/list',
			methods: 'GET or POST',
			scope: 'bots:read',
			handle: ({ store, botAllowed }) => ({ items: directory(store).bots.filter((bot) => botAllowed(bot.id)) }),
		},
		{
			path: '/group/list',
			methods: 'GET or POST',
			scope: 'bots:read',
			handle: ({ store }) => ({ items: directory(store).groups }),
		},
	],
};
