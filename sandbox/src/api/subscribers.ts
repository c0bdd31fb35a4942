import { directory, findChain } from '../domain/directory';
import { chatOf, forgetChat } from '../domain/messagingChat';
import { runsOf, runView, startTriggeredChains, stopChains, withDueSteps } from '../domain/messagingChains';
import { countDay } from '../domain/statsCounters';
import {
	addSubscriber,
	addTags,
	findSubscriber,
	findSubscriberById,
	removeSubscriber,
	removeTags,
	saveSubscriber,
	subscriberCard,
	subscribersState,
	writeVariables,
	type Subscriber,
} from '../domain/subscribers';
import {
	optionalBot,
	optionalText,
	readChain,
	readTags,
	readTimeBound,
	readVariables,
	requireBot,
	requireSubscriber,
} from '../domain/subscribersParams';
import { seedSubscribers } from '../domain/subscribersSeed';
import { ApiError, conflictingParam, notFound } from '../http/errors';
import { pageOf, paginate } from '../http/params';
import type { ApiCall, Endpoint, SandboxModule } from './endpoint';

/** /subscriber/get: by `subscriber` (internal number) or by botid + clientid [+ messenger]. */
function getSubscriber(call: ApiCall) {
	if (call.params.has('subscriber')) {
		const id = call.params.requiredInt('subscriber', { min: 1 });
		const card = findSubscriberById(call.store, id);
		if (!card) throw notFound(`Subscriber ${id}`, 'subscriber');
		call.assertBot(card.botid);
		// Both forms given: they must name the same card, or the answer would be a card the other form did not ask for.
		for (const param of ['botid', 'clientid', 'messenger'] as const) {
			const named = call.params.string(param);
			if (named !== undefined && named !== card[param])
				throw conflictingParam(param, `names ${named}, but subscriber ${id} has ${param} ${card[param]}`);
		}
		return { subscriber: subscriberCard(card) };
	}
	if (!call.params.has('botid')) {
		throw new ApiError(422, 'missing_param', 'Parameter "botid" is required (with "clientid"), or give "subscriber"', {
			param: 'botid',
		});
	}
	return { subscriber: subscriberCard(requireSubscriber(call)) };
}

/** Cards of the bots the key may see (one bot when botid is given). */
function visibleCards(call: ApiCall): Subscriber[] {
	const bot = optionalBot(call);
	return subscribersState(call.store).subscribers.filter((card) =>
		bot ? card.botid === bot.id : call.botAllowed(card.botid),
	);
}

function findSubscribers(call: ApiCall) {
	const query = call.params.requiredString('query').trim().toLowerCase();
	const tag = call.params.string('tag');
	const cards = visibleCards(call);
	const matches = cards.filter(
		(card) =>
			(tag === undefined || card.tags.includes(tag)) &&
			[card.name, card.username, card.clientid, String(card.id), card.note].some((field) =>
				field.toLowerCase().includes(query),
			),
	);
	return paginate(matches.map(subscriberCard), call.params);
}

/**
 * Cards by subscription time (then card number). Without filters beyond the bot, the page is read
 * from the ordered index and the total from the per-bot counts, so the first pages cost no scan;
 * filters scan the cards.
 */
function listSubscribers(call: ApiCall) {
	const { params } = call;
	const messenger = params.string('messenger');
	const tag = params.string('tag');
	const active = params.bool('active');
	const blocked = params.bool('blocked');
	const dialog = params.bool('dialog');
	const from = readTimeBound(call, 'from');
	const to = readTimeBound(call, 'to');
	const sort = params.choice('sort', ['new', 'old'] as const) ?? 'old';
	const bot = optionalBot(call);
	const { limit, offset } = pageOf(params);
	const state = subscribersState(call.store);
	const visible = (card: Subscriber) => (bot ? card.botid === bot.id : call.botAllowed(card.botid));
	const filtered = [messenger, tag, active, blocked, dialog, from, to].some((filter) => filter !== undefined);
	const matches = (card: Subscriber) =>
		visible(card) &&
		(messenger === undefined || card.messenger === messenger) &&
		(tag === undefined || card.tags.includes(tag)) &&
		(active === undefined || card.active === active) &&
		(blocked === undefined || card.blocked === blocked) &&
		(dialog === undefined || card.dialog === dialog) &&
		(from === undefined || from(card.subscribed)) &&
		(to === undefined || to(card.subscribed));
	const ordered = state.bySubscribed;
	const items: Subscriber[] = [];
	let seen = 0;
	let total = 0;
	for (let step = 0; step < ordered.length; step++) {
		const card = ordered[sort === 'old' ? step : ordered.length - 1 - step];
		if (!matches(card)) continue;
		if (seen >= offset && items.length < limit) items.push(card);
		seen++;
		total++;
		if (items.length === limit && !filtered) break;
	}
	if (!filtered) {
		total = 0;
		for (const [botid, count] of state.perBot) if (bot ? botid === bot.id : call.botAllowed(botid)) total += count;
	}
	return { items: items.map(subscriberCard), total };
}

function chainVariables(call: ApiCall) {
	const card = requireSubscriber(call);
	const only = readChain(call.params, call.store, card.botid, false);
	const codes = only
		? [only.code]
		: Object.keys(card.variables)
				.filter((code) => Object.keys(card.variables[code]).length > 0)
				.sort((a, b) => a.length - b.length || a.localeCompare(b));
	return {
		chains: codes.map((chaincode) => ({
			chaincode,
			name: findChain(call.store, chaincode)?.name ?? null,
			variables: { ...(card.variables[chaincode] ?? {}) },
		})),
	};
}

function createSubscriber(call: ApiCall) {
	const { params, store, clock, options, events } = call;
	const bot = requireBot(call);
	const clientid = params.requiredString('clientid');
	const messenger = params.string('messenger');
	if (messenger !== undefined && messenger !== bot.messenger) {
		throw conflictingParam('messenger', `must be the bot's messenger "${bot.messenger}"`);
	}
	const fields = {
		name: optionalText(params, 'name'),
		username: optionalText(params, 'username'),
		note: optionalText(params, 'note'),
	};
	const existing = findSubscriber(store, bot.id, clientid);
	if (existing) {
		applyFields(existing, fields);
		saveSubscriber(store, existing);
		return { subscriber: subscriberCard(existing), created: false };
	}
	const card = addSubscriber(store, {
		botid: bot.id,
		clientid,
		messenger: bot.messenger,
		...fields,
		subscribed: clock.iso(),
	});
	countDay(store, options.timezone, clock.now(), bot.id, 'subscribers');
	events.emit('subscriber.new', { subscriber: subscriberCard(card) });
	return { subscriber: subscriberCard(card), created: true };
}

function applyFields(card: Subscriber, fields: { name?: string; username?: string; note?: string }): void {
	if (fields.name !== undefined) card.name = fields.name;
	if (fields.username !== undefined) card.username = fields.username;
	if (fields.note !== undefined) card.note = fields.note;
}

function setData(call: ApiCall) {
	const card = requireSubscriber(call);
	const data = readVariables(call.params, 'data', true)!;
	const only = readChain(call.params, call.store, card.botid, false);
	const chains = only ? [only] : directory(call.store).chains.filter((chain) => chain.botid === card.botid);
	for (const chain of chains) writeVariables(card, chain.code, data);
	saveSubscriber(call.store, card);
	return { ok: true, chains: chains.length };
}

function setBlocked(blocked: boolean) {
	return (call: ApiCall) => {
		const card = requireSubscriber(call);
		card.blocked = blocked;
		saveSubscriber(call.store, card);
		return { subscriber: subscriberCard(card) };
	};
}

function deleteSubscriber(call: ApiCall) {
	const bot = requireBot(call);
	const clientid = call.params.requiredString('clientid');
	const messenger = call.params.requiredString('messenger');
	const card = findSubscriber(call.store, bot.id, clientid);
	if (!card) throw notFound(`Subscriber ${clientid} of bot ${bot.id}`, 'clientid');
	if (card.messenger !== messenger)
		throw notFound(`Subscriber ${clientid} of bot ${bot.id} in messenger ${messenger}`, 'messenger');
	stopChains(call.store, card);
	forgetChat(call.store, card);
	removeSubscriber(call.store, card);
	return { result: `Subscriber ${clientid} of bot ${bot.id} deleted` };
}

const endpoints: Endpoint[] = [
	{ path: '/subscriber/get', methods: 'GET or POST', scope: 'subscribers:read', handle: getSubscriber },
	{ path: '/subscriber/find', methods: 'GET or POST', scope: 'subscribers:read', handle: findSubscribers },
	{ path: '/subscriber/list', methods: 'GET or POST', scope: 'subscribers:read', handle: listSubscribers },
	{
		path: '/subscriber/tag/list',
		methods: 'GET or POST',
		scope: 'subscribers:read',
		handle: (call) => ({ tags: [...requireSubscriber(call).tags] }),
	},
	{ path: '/subscriber/data/get', methods: 'GET or POST', scope: 'subscribers:read', handle: chainVariables },
	{
		path: '/subscriber/chat/get',
		methods: 'GET or POST',
		scope: 'subscribers:read',
		// Newest first: the first page is the latest conversation.
		handle: (call) => paginate([...chatOf(call.store, requireSubscriber(call))].reverse(), call.params),
	},
	{
		path: '/subscriber/chains/get',
		methods: 'GET or POST',
		scope: 'subscribers:read',
		handle: (call) => ({ chains: runsOf(call.store, requireSubscriber(call)).map((run) => runView(call.store, run)) }),
	},
	{ path: '/subscriber/create', methods: 'POST', scope: 'subscribers:write', handle: createSubscriber },
	{
		path: '/subscriber/update',
		methods: 'POST',
		scope: 'subscribers:write',
		handle: (call) => {
			const card = requireSubscriber(call);
			const { params } = call;
			applyFields(card, {
				name: optionalText(params, 'name'),
				username: optionalText(params, 'username'),
				note: optionalText(params, 'note'),
			});
			saveSubscriber(call.store, card);
			return { subscriber: subscriberCard(card) };
		},
	},
	{
		path: '/subscriber/tag/add',
		methods: 'POST',
		scope: 'subscribers:write',
		handle: (call) => {
			const card = requireSubscriber(call);
			const tags = readTags(call.params, 'tag', true)!;
			const added = addTags(card, tags);
			saveSubscriber(call.store, card);
			const chains = startTriggeredChains(call, card, added);
			return { tags: [...card.tags], chains };
		},
	},
	{
		path: '/subscriber/tag/remove',
		methods: 'POST',
		scope: 'subscribers:write',
		handle: (call) => {
			const card = requireSubscriber(call);
			removeTags(card, readTags(call.params, 'tag', true)!);
			saveSubscriber(call.store, card);
			return { tags: [...card.tags] };
		},
	},
	{ path: '/subscriber/data/set', methods: 'POST', scope: 'subscribers:write', handle: setData },
	{ path: '/subscriber/block', methods: 'POST', scope: 'subscribers:write', handle: setBlocked(true) },
	{ path: '/subscriber/unblock', methods: 'POST', scope: 'subscribers:write', handle: setBlocked(false) },
	{ path: '/subscriber/delete', methods: 'POST', scope: 'subscribers:write', handle: deleteSubscriber },
];

/** Subscriber cards, tags, variables, chat history, running chains, blocking. */
export const subscribersModule: SandboxModule = {
	name: 'subscribers',
	endpoints: endpoints.map(withDueSteps),
	seed: seedSubscribers,
};
