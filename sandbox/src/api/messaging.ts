import { directory, type Chain } from '../domain/directory';
import { findBroadcast, planBroadcast, sendNextBroadcastMessage, stopBroadcast } from '../domain/messagingBroadcasts';
import { sendToChat } from '../domain/messagingChat';
import { clearDeferred, deliverDueSteps, startChainAt, stopChains, withDueSteps } from '../domain/messagingChains';
import { saveSubscriber, subscribersState, writeVariables } from '../domain/subscribers';
import {
	assertNotBlocked,
	optionalBot,
	optionalText,
	readButtons,
	readChain,
	readTags,
	readVariables,
	requireSubscriber,
	requireText,
} from '../domain/subscribersParams';
import { conflictingParam, notFound } from '../http/errors';
import type { ApiCall, Endpoint, SandboxModule } from './endpoint';

function sendMessage(call: ApiCall) {
	const card = requireSubscriber(call);
	const text = requireText(call.params);
	const buttons = readButtons(call.params);
	assertNotBlocked(card);
	sendToChat(call, card, { text, buttons, source: 'api' });
	return { ok: true, sent: 1 };
}

/** `block`: a number counted from 1 within the step, or a block ID of that step; the first block when absent. */
function readBlockIndex(call: ApiCall, chain: Chain, stepIndex: number): number {
	const blocks = chain.steps[stepIndex].blocks;
	const value = call.params.string('block');
	if (value === undefined) {
		if (blocks.length === 0) throw conflictingParam('stepcode', 'names a step without blocks');
		return 0;
	}
	const byId = blocks.findIndex((block) => block.id === value);
	if (byId >= 0) return byId;
	if (/^\d+$/.test(value) && Number(value) >= 1 && Number(value) <= blocks.length) return Number(value) - 1;
	throw notFound(`Block ${value} in step ${chain.steps[stepIndex].code} of chain ${chain.code}`, 'block');
}

function startBlock(call: ApiCall) {
	const card = requireSubscriber(call);
	const chain = readChain(call.params, call.store, card.botid, true);
	const stepcode = call.params.requiredString('stepcode');
	const stepIndex = chain.steps.findIndex((step) => step.code === stepcode);
	if (stepIndex < 0) throw notFound(`Step ${stepcode} of chain ${chain.code}`, 'stepcode');
	const blockIndex = readBlockIndex(call, chain, stepIndex);
	const data = readVariables(call.params, 'data', false);
	assertNotBlocked(card);
	if (data) {
		writeVariables(card, chain.code, data);
		saveSubscriber(call.store, card);
	}
	const run = startChainAt(call, card, chain, stepIndex, blockIndex, 'block');
	return { ok: true, block: run.block };
}

function startChain(call: ApiCall) {
	const card = requireSubscriber(call);
	const chain = readChain(call.params, call.store, card.botid, true);
	if (chain.steps.length === 0) throw conflictingParam('chaincode', `names chain ${chain.code}, which has no steps`);
	const data = readVariables(call.params, 'data', false);
	assertNotBlocked(card);
	if (data) {
		writeVariables(card, chain.code, data);
		saveSubscriber(call.store, card);
	}
	startChainAt(call, card, chain, 0, 0, 'chain');
	return { ok: true };
}

function stopChain(call: ApiCall) {
	const card = requireSubscriber(call);
	const chain = readChain(call.params, call.store, card.botid, false);
	return { ok: true, stopped: stopChains(call.store, card, chain?.code) };
}

function sendBroadcast(call: ApiCall) {
	const { params } = call;
	const text = requireText(params);
	const buttons = readButtons(params);
	const bot = optionalBot(call);
	const tags = readTags(params, 'tag', false);
	const dialogOnly = params.bool('dialog') ?? false;
	const name = optionalText(params, 'name') || null;
	const recipients = subscribersState(call.store).subscribers.filter(
		(card) =>
			(bot ? card.botid === bot.id : call.botAllowed(card.botid)) &&
			!card.blocked &&
			(tags === undefined || tags.some((tag) => card.tags.includes(tag))) &&
			(!dialogOnly || card.dialog),
	);
	// The segment's bots, not only the recipients': who may stop it must not depend on who matched.
	const bots = bot
		? [bot.id]
		: directory(call.store)
				.bots.map((candidate) => candidate.id)
				.filter(call.botAllowed);
	const broadcast = planBroadcast(call, { name, text, buttons, bots }, recipients);
	return { ok: true, planned: broadcast.planned, code: broadcast.code };
}

function stopBroadcastCall(call: ApiCall) {
	const code = call.params.requiredString('code');
	const broadcast = findBroadcast(call.store, code);
	if (!broadcast) throw notFound(`Broadcast ${code}`, 'code');
	for (const botid of broadcast.bots) call.assertBot(botid);
	return { ok: true, cleared: stopBroadcast(call.store, broadcast) };
}

const endpoints: Endpoint[] = [
	{ path: '/message/send', methods: 'POST', scope: 'messages:write', handle: sendMessage },
	{
		path: '/message/next/clear',
		methods: 'POST',
		scope: 'messages:write',
		handle: (call) => ({ result: 'cleared', cleared: clearDeferred(call.store, requireSubscriber(call)) }),
	},
	{ path: '/block/start', methods: 'POST', scope: 'chains:write', handle: startBlock },
	{ path: '/chain/start', methods: 'POST', scope: 'chains:write', handle: startChain },
	{ path: '/chain/stop', methods: 'POST', scope: 'chains:write', handle: stopChain },
	{ path: '/broadcast/send', methods: 'POST', scope: 'broadcasts:write', handle: sendBroadcast },
	{ path: '/broadcast/stop', methods: 'POST', scope: 'broadcasts:write', handle: stopBroadcastCall },
];

/** Messages, blocks, chains and broadcasts. */
export const messagingModule: SandboxModule = {
	name: 'messaging',
	endpoints: endpoints.map(withDueSteps),
	/** The send queue: one broadcast message leaves per interval; due chain steps go out on the same beat. */
	start: (context) => {
		const timer = setInterval(
			() => {
				try {
					context.store.transaction(() => {
						deliverDueSteps(context);
						sendNextBroadcastMessage(context);
					});
				} catch (error) {
					console.error('sandbox: the send queue failed', error);
				}
			},
			Math.max(1, context.options.broadcastIntervalMs),
		);
		timer.unref();
		return () => clearInterval(timer);
	},
};
