import { createHash, randomInt } from 'node:crypto';

/**
 * Delivery chaos: a receiver's worst day, played on purpose. Each rate is the share (0 to 1) of deliveries whose
 * first attempt it changes; retries are ordinary, so every delivery still ends as the contract says. Which deliveries
 * are chosen depends only on the seed and the order deliveries are queued in, so a run can be played again.
 */
export interface DeliveryChaos {
	/** Share of deliveries whose first attempt is two concurrent POSTs of the same event, each signed on its own. */
	duplicate: number;
	/** Share held back until a later delivery of the same hook has been attempted (at most `holdMs`). */
	reorder: number;
	/** Share whose first attempt leaves `delayMs` late. */
	delay: number;
	/** Share whose first attempt's connection is destroyed once the request is sent: no answer, a retry follows. */
	cut: number;
	/** Share whose first attempt's answer counts as later than the attempt's timeout: failed, a retry follows. */
	slow: number;
	/** How late a delayed delivery leaves, in milliseconds. */
	delayMs: number;
	/** Longest hold of a reordered delivery when no later one comes, in milliseconds. */
	holdMs: number;
	/** Picks the deliveries; the same seed and the same events choose the same deliveries. */
	seed: number;
}

export const CHAOS_RATES = ['duplicate', 'reorder', 'delay', 'cut', 'slow'] as const;
export type ChaosRate = (typeof CHAOS_RATES)[number];

export const DEFAULT_CHAOS_DELAY_MS = 1000;
export const DEFAULT_CHAOS_HOLD_MS = 2000;
/** Longest delay or hold accepted: a chaos setting is for a test run, not for parking deliveries. */
export const MAX_CHAOS_WAIT_MS = 600_000;
export const MAX_CHAOS_SEED = 2 ** 31 - 1;

/** What chaos does to one delivery's first attempt, fixed when the delivery is queued. */
export interface ChaosPlan {
	duplicate?: boolean;
	/** Held until a later delivery of the hook has been attempted, or `holdMs` has passed. */
	hold?: boolean;
	holdMs?: number;
	delayMs?: number;
	/** Epoch ms the first attempt may leave once a hold ends (its delay included). */
	readyAt?: number;
	cut?: boolean;
	slow?: boolean;
}

/** Checks chaos settings and fills in the defaults: every rate 0 (off), a random seed. */
export function resolveChaos(input: Partial<DeliveryChaos> = {}): DeliveryChaos {
	const settings: DeliveryChaos = {
		duplicate: input.duplicate ?? 0,
		reorder: input.reorder ?? 0,
		delay: input.delay ?? 0,
		cut: input.cut ?? 0,
		slow: input.slow ?? 0,
		delayMs: input.delayMs ?? DEFAULT_CHAOS_DELAY_MS,
		holdMs: input.holdMs ?? DEFAULT_CHAOS_HOLD_MS,
		seed: input.seed ?? randomInt(1, MAX_CHAOS_SEED),
	};
	for (const name of Object.keys(settings) as (keyof DeliveryChaos)[]) {
		const problem = chaosSettingProblem(name, settings[name]);
		if (problem) throw new Error(`chaos ${name} ${problem}`);
	}
	return settings;
}

/** Why `value` cannot be the setting `name` ("must be ..."); undefined when it can. */
export function chaosSettingProblem(name: keyof DeliveryChaos, value: number): string | undefined {
	if ((CHAOS_RATES as readonly string[]).includes(name))
		return value >= 0 && value <= 1 ? undefined : 'must be a share from 0 to 1';
	if (name === 'seed')
		return Number.isInteger(value) && value >= 0 && value <= MAX_CHAOS_SEED
			? undefined
			: `must be a whole number from 0 to ${MAX_CHAOS_SEED}`;
	return Number.isInteger(value) && value >= 0 && value <= MAX_CHAOS_WAIT_MS
		? undefined
		: `must be a whole number of milliseconds from 0 to ${MAX_CHAOS_WAIT_MS}`;
}

/**
 * A number in [0, 1) fixed by the seed, the delivery's place in the order of queued deliveries and the setting: each
 * setting draws on its own, so changing one rate leaves the deliveries the others choose as they were.
 */
export function chaosDraw(seed: number, ordinal: number, name: ChaosRate): number {
	const digest = createHash('sha256').update(`${seed}:${ordinal}:${name}`).digest();
	return digest.readUIntBE(0, 6) / 2 ** 48;
}

/** What chaos does to the `ordinal`-th delivery queued under these settings; undefined when nothing. */
export function planChaos(settings: DeliveryChaos, ordinal: number): ChaosPlan | undefined {
	const chosen = (name: ChaosRate) => settings[name] > 0 && chaosDraw(settings.seed, ordinal, name) < settings[name];
	const plan: ChaosPlan = {};
	if (chosen('duplicate')) plan.duplicate = true;
	if (chosen('reorder')) Object.assign(plan, { hold: true, holdMs: settings.holdMs });
	if (chosen('delay')) plan.delayMs = settings.delayMs;
	if (chosen('cut')) plan.cut = true;
	if (chosen('slow')) plan.slow = true;
	return Object.keys(plan).length > 0 ? plan : undefined;
}
