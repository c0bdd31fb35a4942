import type { ILoadOptionsFunctions, INodeListSearchItems, INodeListSearchResult } from 'n8n-workflow';
import { recordsOf } from '../actions/common/params';
import { botIdOf, listBots, recordLabel as label } from '../actions/common/bots';
import { apiRequest } from '../transport/request';
import { fetchPages } from '../transport/pagination';

function matching(items: INodeListSearchItems[], filter?: string): INodeListSearchResult {
	const needle = filter?.trim().toLowerCase();
	const results = needle ? items.filter((item) => `${item.name} ${item.value}`.toLowerCase().includes(needle)) : items;
	return { results };
}

function currentValue(context: ILoadOptionsFunctions, name: string): string {
	try {
		const value = context.getCurrentNodeParameter(name, { extractValue: true });
		return value === undefined || value === null ? '' : String(value);
	} catch {
		return '';
	}
}

export async function searchBots(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const bots = await listBots.call(this);
	return matching(
		bots.map((bot) => {
			const id = botIdOf(bot);
			const messenger = label(bot, 'messenger');
			return { name: `${label(bot, 'name') || id}${messenger ? ` (${messenger})` : ''}`, value: id };
		}),
		filter,
	);
}

export async function searchProjects(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const groups = recordsOf(await apiRequest.call(this, { method: 'GET', path: '/group/list' }), 'groups');
	return matching(
		groups.map((group) => {
			const code = label(group, 'code', 'id');
			return { name: label(group, 'name') || code, value: code };
		}),
		filter,
	);
}

/** Chains come from the account summary; when a bot is already chosen, only its chains. */
export async function searchChains(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const summary = await apiRequest.call(this, { method: 'GET', path: '/account/summary' });
	const bot = currentValue(this, 'botId');
	const chains = recordsOf(summary, 'chains').filter((chain) => !bot || !chain.botid || chain.botid === bot);
	return matching(
		chains.map((chain) => {
			const code = label(chain, 'code', 'chaincode', 'id');
			return { name: `${label(chain, 'name') || code} (${code})`, value: code };
		}),
		filter,
	);
}

export async function searchLists(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const lists = recordsOf(await apiRequest.call(this, { method: 'GET', path: '/list/all' }), 'lists');
	return matching(
		lists.map((list) => ({ name: `${label(list, 'name')} (${label(list, 'count')} rows)`, value: String(list.id) })),
		filter,
	);
}

/** Funnel stages, from the CRM board. */
export async function searchStages(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const board = await apiRequest.call(this, { method: 'GET', path: '/crm/board' });
	const stages = recordsOf(board, 'stages');
	return matching(
		stages.map((stage) => {
			const name = typeof stage === 'string' ? stage : label(stage, 'name', 'stage');
			return { name, value: name };
		}),
		filter,
	);
}

/** Subscribers shown per page of the picker. */
const SUBSCRIBERS_PER_PAGE = 50;

/**
 * Subscribers of the chosen bot (of every bot the key sees when none is chosen): those whose name,
 * nickname, code or note holds the search text, or, with an empty search box, the newest ones.
 * The value is the Client ID; pages follow with the offset as the token.
 */
export async function searchSubscribers(
	this: ILoadOptionsFunctions,
	filter?: string,
	paginationToken?: string,
): Promise<INodeListSearchResult> {
	const bot = currentValue(this, 'botId').trim();
	const query = filter?.trim() ?? '';
	const offset = Number(paginationToken ?? 0) || 0;
	// Read as every list is (transport/pagination.ts): a service that serves shorter pages than asked,
	// or refuses the size, still fills the picker's page, so a short page means the end of the list.
	const request = query
		? { method: 'GET' as const, path: '/subscriber/find', params: { botid: bot, offset, query } }
		: { method: 'GET' as const, path: '/subscriber/list', params: { botid: bot, offset, sort: 'new' } };
	const subscribers = await fetchPages.call(
		this,
		{ ...request, recordsField: 'subscribers' },
		{ returnAll: false, limit: SUBSCRIBERS_PER_PAGE },
	);
	const results = subscribers.map((subscriber) => {
		const clientid = label(subscriber, 'clientid');
		const nickname = label(subscriber, 'username');
		const shown = label(subscriber, 'name') || clientid;
		const details = [nickname && `@${nickname}`, clientid, !bot && label(subscriber, 'botid')]
			.filter(Boolean)
			.join(', ');
		return { name: `${shown} (${details})`, value: clientid };
	});
	const more = subscribers.length === SUBSCRIBERS_PER_PAGE;
	return { results, paginationToken: more ? String(offset + subscribers.length) : undefined };
}

/** The messengers of the key's bots, where the service tells them; the chosen bot's only, when one is chosen. */
export async function searchMessengers(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const bot = currentValue(this, 'botId').trim();
	const bots = await listBots.call(this);
	const messengers = bots
		.filter((candidate) => !bot || botIdOf(candidate) === bot)
		.map((candidate) => label(candidate, 'messenger'))
		.filter((messenger) => messenger !== '');
	const unique = [...new Set(messengers)].sort((a, b) => a.localeCompare(b));
	return matching(
		unique.map((messenger) => ({ name: messenger, value: messenger })),
		filter,
	);
}
