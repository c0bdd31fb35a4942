import type { Store } from '../store/store';

/** A chain's variables for one subscriber: name -> value. */
export type Variables = Record<string, string | number | boolean>;

/** A subscriber of one bot, identified by botid + clientid (a bot works in one messenger). */
export interface Subscriber {
	/** The internal card number (`subscriber` in /subscriber/get). */
	id: number;
	botid: string;
	clientid: string;
	messenger: string;
	name: string;
	username: string;
	note: string;
	tags: string[];
	/** False when the subscriber left the bot (unsubscribed in the messenger). */
	active: boolean;
	/** Blocked by the account: the bot sends it nothing. */
	blocked: boolean;
	/** The subscriber wrote to the bot at least once. */
	dialog: boolean;
	/** Subscription time, ISO 8601 UTC. */
	subscribed: string;
	/** Name of the CRM funnel stage, or null. */
	stage: string | null;
	/** Variables grouped by chain code. */
	variables: Record<string, Variables>;
}

/** The cards in memory with the indexes point reads and the first pages of /subscriber/list use. */
interface SubscribersState {
	/** By card number, ascending (the order cards were created). */
	subscribers: Subscriber[];
	byId: Map<number, Subscriber>;
	/** By `botid \0 clientid`. */
	byClient: Map<string, Subscriber>;
	/** By subscription time, then card number: the order of /subscriber/list. */
	bySubscribed: Subscriber[];
	/** Cards per bot, kept current for the totals of unfiltered listings. */
	perBot: Map<string, number>;
}

const clientKey = (botid: string, clientid: string) => `${botid}\u0000${clientid}`;

export function subscribersState(store: Store): SubscribersState {
	return store.working<SubscribersState>('subscribers', () => {
		const state: SubscribersState = {
			subscribers: [],
			byId: new Map(),
			byClient: new Map(),
			bySubscribed: [],
			perBot: new Map(),
		};
		for (const [, card] of store.records<Subscriber>('subscriber')) {
			indexCard(state, card);
			store.reserveIds('subscribers', card.id);
		}
		state.subscribers.sort((a, b) => a.id - b.id);
		state.bySubscribed = [...state.subscribers].sort(bySubscription);
		return state;
	});
}

/** Subscription time, then card number: a stable order for paging. */
export function bySubscription(a: Subscriber, b: Subscriber): number {
	return a.subscribed < b.subscribed ? -1 : a.subscribed > b.subscribed ? 1 : a.id - b.id;
}

function indexCard(state: SubscribersState, card: Subscriber): void {
	state.subscribers.push(card);
	state.byId.set(card.id, card);
	state.byClient.set(clientKey(card.botid, card.clientid), card);
	state.perBot.set(card.botid, (state.perBot.get(card.botid) ?? 0) + 1);
}

/** Position of `card` in `sorted` (or where it would go), by binary search. */
function positionIn(sorted: Subscriber[], card: Subscriber, compare: (a: Subscriber, b: Subscriber) => number): number {
	let low = 0;
	let high = sorted.length;
	while (low < high) {
		const middle = (low + high) >> 1;
		if (compare(sorted[middle], card) < 0) low = middle + 1;
		else high = middle;
	}
	return low;
}

const byNumber = (a: Subscriber, b: Subscriber) => a.id - b.id;

export function findSubscriber(store: Store, botid: string, clientid: string): Subscriber | undefined {
	return subscribersState(store).byClient.get(clientKey(botid, clientid));
}

export function findSubscriberById(store: Store, id: number): Subscriber | undefined {
	return subscribersState(store).byId.get(id);
}

/** Writes the card at commit (call after changing any of its fields). */
export function saveSubscriber(store: Store, card: Subscriber): void {
	store.put('subscriber', card.id, card);
}

/** The card as the API shows it (a copy: later changes do not leak into answers or events). */
export function subscriberCard(card: Subscriber) {
	return structuredClone(card);
}

export type SubscriberCard = ReturnType<typeof subscriberCard>;

export interface NewSubscriber {
	botid: string;
	clientid: string;
	messenger: string;
	name?: string;
	username?: string;
	note?: string;
	subscribed: string;
	dialog?: boolean;
}

export function addSubscriber(store: Store, fields: NewSubscriber): Subscriber {
	const state = subscribersState(store);
	const card: Subscriber = {
		id: store.nextId('subscribers'),
		botid: fields.botid,
		clientid: fields.clientid,
		messenger: fields.messenger,
		name: fields.name ?? '',
		username: fields.username ?? '',
		note: fields.note ?? '',
		tags: [],
		active: true,
		blocked: false,
		dialog: fields.dialog ?? false,
		subscribed: fields.subscribed,
		stage: null,
		variables: {},
	};
	indexCard(state, card);
	state.bySubscribed.splice(positionIn(state.bySubscribed, card, bySubscription), 0, card);
	saveSubscriber(store, card);
	return card;
}

export function removeSubscriber(store: Store, card: Subscriber): void {
	const state = subscribersState(store);
	state.subscribers.splice(positionIn(state.subscribers, card, byNumber), 1);
	state.bySubscribed.splice(positionIn(state.bySubscribed, card, bySubscription), 1);
	state.byId.delete(card.id);
	state.byClient.delete(clientKey(card.botid, card.clientid));
	state.perBot.set(card.botid, (state.perBot.get(card.botid) ?? 1) - 1);
	store.remove('subscriber', card.id);
}

/** Adds the tags the card lacks; returns those that were new. */
export function addTags(card: Subscriber, tags: string[]): string[] {
	const added = [...new Set(tags)].filter((tag) => !card.tags.includes(tag));
	card.tags.push(...added);
	return added;
}

export function removeTags(card: Subscriber, tags: string[]): void {
	card.tags = card.tags.filter((tag) => !tags.includes(tag));
}

/**
 * Writes variables into one chain's group; a null value removes the variable. Every name is an
 * ordinary key, "__proto__" included (defined, not assigned).
 */
export function writeVariables(
	card: Subscriber,
	chaincode: string,
	data: Record<string, Variables[string] | null>,
): void {
	if (!Object.hasOwn(card.variables, chaincode))
		Object.defineProperty(card.variables, chaincode, {
			value: {},
			enumerable: true,
			writable: true,
			configurable: true,
		});
	const group = card.variables[chaincode];
	for (const [name, value] of Object.entries(data)) {
		if (value === null) delete group[name];
		else Object.defineProperty(group, name, { value, enumerable: true, writable: true, configurable: true });
	}
}
