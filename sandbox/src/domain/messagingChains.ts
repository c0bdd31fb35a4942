import type { Endpoint, SandboxContext } from '../api/endpoint';
import type { Store } from '../store/store';
import { directory, findChain, type Chain } from './directory';
import { sendToChat } from './messagingChat';
import { findSubscriberById, type Subscriber } from './subscribers';

/**
 * Business time between two steps of a running chain. The next step is the subscriber's
 * "deferred next message": /message/next/clear cancels it, and it is delivered once the
 * (business) clock passes its time.
 */
export const NEXT_STEP_DELAY_MS = 3_600_000;

/** How a run was started. */
export type RunStart = 'chain' | 'block' | 'tag';

/** One chain running for one subscriber. */
export interface ChainRun {
	subscriber: number;
	chaincode: string;
	/** The step whose blocks were sent last. */
	step: string;
	/** The first block sent of that step. */
	block: string;
	started: string;
	by: RunStart;
	/** The deferred next step, or null when the run waits at its last step or was cleared. */
	next: { step: string; at: number } | null;
}

interface ChainRunsState {
	runs: ChainRun[];
}

export function chainRunsState(store: Store): ChainRunsState {
	return store.working<ChainRunsState>('chainRuns', () => ({
		runs: store.records<ChainRun>('run').map(([, run]) => run),
	}));
}

const runKey = (run: ChainRun) => `${run.subscriber}/${run.chaincode}`;

function saveRun(store: Store, run: ChainRun): void {
	store.put('run', runKey(run), run);
}

export function runsOf(store: Store, subscriber: Subscriber): ChainRun[] {
	return chainRunsState(store).runs.filter((run) => run.subscriber === subscriber.id);
}

/** `{name}` in a block's text becomes the chain variable `name`, else the card field, else stays. */
export function renderBlock(text: string, subscriber: Subscriber, chaincode: string): string {
	const variables = Object.hasOwn(subscriber.variables, chaincode) ? subscriber.variables[chaincode] : {};
	const card: Record<string, unknown> = { ...subscriber };
	return text.replace(/\{(\w+)\}/g, (whole, name: string) => {
		if (Object.hasOwn(variables, name)) return String(variables[name]);
		const field = Object.hasOwn(card, name) ? card[name] : undefined;
		return typeof field === 'string' || typeof field === 'number' ? String(field) : whole;
	});
}

function sendStep(
	context: SandboxContext,
	subscriber: Subscriber,
	chain: Chain,
	stepIndex: number,
	fromBlock: number,
	at?: number,
): void {
	for (const block of chain.steps[stepIndex].blocks.slice(fromBlock)) {
		sendToChat(context, subscriber, {
			text: renderBlock(block.text, subscriber, chain.code),
			source: 'chain',
			origin: chain.code,
			at,
		});
	}
}

function nextOf(chain: Chain, stepIndex: number, after: number): ChainRun['next'] {
	const following = chain.steps[stepIndex + 1];
	return following ? { step: following.code, at: after + NEXT_STEP_DELAY_MS } : null;
}

/**
 * Runs `chain` for the subscriber from the given step and block: that block and the rest of its step
 * are sent now, the next step is deferred. A run of the same chain is replaced, never duplicated.
 */
export function startChainAt(
	context: SandboxContext,
	subscriber: Subscriber,
	chain: Chain,
	stepIndex: number,
	blockIndex: number,
	by: RunStart,
): ChainRun {
	const state = chainRunsState(context.store);
	state.runs = state.runs.filter((run) => !(run.subscriber === subscriber.id && run.chaincode === chain.code));
	const now = context.clock.now();
	const step = chain.steps[stepIndex];
	const run: ChainRun = {
		subscriber: subscriber.id,
		chaincode: chain.code,
		step: step.code,
		block: step.blocks[blockIndex]?.id ?? '',
		started: new Date(now).toISOString(),
		by,
		next: nextOf(chain, stepIndex, now),
	};
	state.runs.push(run);
	// Removed first, so that the run moves to the end of the order, as in memory.
	context.store.remove('run', runKey(run));
	saveRun(context.store, run);
	sendStep(context, subscriber, chain, stepIndex, blockIndex);
	return run;
}

/** Starts, from their first step, the subscriber's bot's chains triggered by any of `tags`. */
export function startTriggeredChains(context: SandboxContext, subscriber: Subscriber, tags: string[]): boolean {
	if (subscriber.blocked || tags.length === 0) return false;
	const triggered = directory(context.store).chains.filter(
		(chain) =>
			chain.botid === subscriber.botid &&
			chain.trigger !== null &&
			tags.includes(chain.trigger) &&
			chain.steps.length > 0,
	);
	for (const chain of triggered) startChainAt(context, subscriber, chain, 0, 0, 'tag');
	return triggered.length > 0;
}

/** Stops one chain (or all when chaincode is undefined); returns how many runs stopped. */
export function stopChains(store: Store, subscriber: Subscriber, chaincode?: string): number {
	const state = chainRunsState(store);
	const stops = (run: ChainRun) =>
		run.subscriber === subscriber.id && (chaincode === undefined || run.chaincode === chaincode);
	const stopped = state.runs.filter(stops);
	if (stopped.length === 0) return 0;
	state.runs = state.runs.filter((run) => !stops(run));
	for (const run of stopped) store.remove('run', runKey(run));
	return stopped.length;
}

/** Cancels the subscriber's deferred next messages; the chains stay running. Returns how many were cancelled. */
export function clearDeferred(store: Store, subscriber: Subscriber): number {
	let cleared = 0;
	for (const run of runsOf(store, subscriber)) {
		if (run.next) {
			run.next = null;
			saveRun(store, run);
			cleared++;
		}
	}
	return cleared;
}

/**
 * Delivers every deferred step whose time has come, dated when it fell due. Called before the
 * subscriber methods answer and on the broadcast timer, so moving the business clock forward is
 * enough to see scenarios progress. A blocked subscriber's due step is skipped, not held.
 */
export function deliverDueSteps(context: SandboxContext): void {
	const now = context.clock.now();
	for (const run of chainRunsState(context.store).runs) {
		while (run.next && run.next.at <= now) {
			const due = run.next;
			const chain = findChain(context.store, run.chaincode);
			const stepIndex = chain ? chain.steps.findIndex((step) => step.code === due.step) : -1;
			const subscriber = findSubscriberById(context.store, run.subscriber);
			saveRun(context.store, run);
			if (!chain || stepIndex < 0 || !subscriber) {
				run.next = null;
				break;
			}
			if (!subscriber.blocked) sendStep(context, subscriber, chain, stepIndex, 0, due.at);
			run.step = due.step;
			run.block = chain.steps[stepIndex].blocks[0]?.id ?? '';
			run.next = nextOf(chain, stepIndex, due.at);
		}
	}
}

/** A running chain as /subscriber/chains/get shows it. */
export function runView(store: Store, run: ChainRun) {
	return {
		chaincode: run.chaincode,
		name: findChain(store, run.chaincode)?.name ?? null,
		step: run.step,
		block: run.block,
		started: run.started,
		by: run.by,
		next: run.next ? { step: run.next.step, at: new Date(run.next.at).toISOString() } : null,
	};
}

/** The endpoint, answering only after due deferred steps were delivered (its reads see current chats). */
export function withDueSteps(endpoint: Endpoint): Endpoint {
	return {
		...endpoint,
		handle: (call) => {
			deliverDueSteps(call);
			return endpoint.handle(call);
		},
	};
}
