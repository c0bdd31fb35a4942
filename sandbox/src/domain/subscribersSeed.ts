import type { SandboxContext } from '../api/endpoint';
import { findBot, findStage } from './directory';
import { appendToChat, sendToChat } from './messagingChat';
import { countDay } from './statsCounters';
import { addSubscriber, addTags, writeVariables, type Variables } from './subscribers';

const DAY_MS = 86_400_000;

interface DemoSubscriber {
	botid: string;
	clientid: string;
	name: string;
	username: string;
	note?: string;
	tags?: string[];
	stage?: string;
	daysAgo: number;
	dialog: boolean;
	blocked?: boolean;
	active?: boolean;
	variables?: Record<string, Variables>;
	/** [direction, text, hours after subscribing] */
	chat?: ['in' | 'out', string, number][];
}

const DEMO: DemoSubscriber[] = [
	{
		botid: 'bot_tg',
		clientid: '100001',
		name: 'Alice Smith',
		username: 'alice_s',
		note: 'Asked about bulk orders',
		tags: ['vip', 'newsletter'],
		stage: 'Qualified',
		daysAgo: 9,
		dialog: true,
		variables: { '1001': { promo: 'WELCOME10', city: 'Berlin' } },
		chat: [
			['in', 'Hi! Do you ship to Berlin?', 1],
			['out', 'Hello, Alice Smith!', 1],
			['out', 'Yes, delivery to Berlin takes 2 days.', 2],
		],
	},
	{
		botid: 'bot_tg',
		clientid: '100002',
		name: 'Bob Jones',
		username: 'bobj',
		tags: ['newsletter'],
		stage: 'New',
		daysAgo: 6,
		dialog: true,
		variables: { '1001': { promo: 'BOB5' } },
		chat: [
			['in', '/start', 0],
			['out', 'Hello, Bob Jones!', 0],
		],
	},
	{ botid: 'bot_tg', clientid: '100003', name: 'Carol White', username: 'carol_w', daysAgo: 3, dialog: false },
	{
		botid: 'bot_tg',
		clientid: '100004',
		name: 'Dan Promo',
		username: 'dan_promo',
		tags: ['spam'],
		daysAgo: 2,
		dialog: true,
		blocked: true,
	},
	{
		botid: 'bot_wa',
		clientid: '15550101',
		name: 'Eve Green',
		username: '',
		tags: ['support'],
		stage: 'Won',
		daysAgo: 5,
		dialog: true,
		chat: [
			['in', 'My order is late', 0],
			['out', 'What can we help with?', 0],
		],
	},
	{
		botid: 'bot_wa',
		clientid: '15550102',
		name: 'Frank Brown',
		username: '',
		note: 'Left the chat',
		daysAgo: 1,
		dialog: true,
		active: false,
	},
];

/** Demo subscribers of both seeded bots, with tags, stages, variables, chats and the matching statistics. */
export function seedSubscribers(context: SandboxContext): void {
	const { store, clock, options } = context;
	for (const demo of DEMO) {
		const bot = findBot(store, demo.botid);
		if (!bot) continue;
		const subscribedAt = clock.now() - demo.daysAgo * DAY_MS;
		const card = addSubscriber(store, {
			botid: demo.botid,
			clientid: demo.clientid,
			messenger: bot.messenger,
			name: demo.name,
			username: demo.username,
			note: demo.note,
			dialog: demo.dialog,
			subscribed: new Date(subscribedAt).toISOString(),
		});
		countDay(store, options.timezone, subscribedAt, card.botid, 'subscribers');
		card.blocked = demo.blocked ?? false;
		card.active = demo.active ?? true;
		addTags(card, demo.tags ?? []);
		const stage = demo.stage ? findStage(store, demo.stage) : undefined;
		if (stage) {
			card.stage = stage.name;
			addTags(card, [stage.tag]);
		}
		for (const [chaincode, variables] of Object.entries(demo.variables ?? {}))
			writeVariables(card, chaincode, variables);
		for (const [direction, text, hours] of demo.chat ?? []) {
			const at = subscribedAt + hours * 3_600_000;
			if (direction === 'out') sendToChat(context, card, { text, source: 'api', at });
			else
				appendToChat(store, card, {
					direction,
					text,
					buttons: [],
					source: 'subscriber',
					origin: null,
					time: new Date(at).toISOString(),
				});
		}
	}
}
