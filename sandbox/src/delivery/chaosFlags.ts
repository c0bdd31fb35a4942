import { chaosSettingProblem, type DeliveryChaos } from './chaos';

/** The command line's delivery chaos flags, each naming the setting it sets. */
const FLAGS = {
	'chaos-duplicate': 'duplicate',
	'chaos-reorder': 'reorder',
	'chaos-delay': 'delay',
	'chaos-cut': 'cut',
	'chaos-slow': 'slow',
	'chaos-delay-ms': 'delayMs',
	'chaos-hold-ms': 'holdMs',
	'chaos-seed': 'seed',
} as const satisfies Record<string, keyof DeliveryChaos>;

type ChaosFlag = keyof typeof FLAGS;

/** The flags' definitions for node:util's parseArgs. */
export const CHAOS_FLAG_OPTIONS = Object.fromEntries(
	Object.keys(FLAGS).map((flag) => [flag, { type: 'string' as const }]),
) as Record<ChaosFlag, { type: 'string' }>;

export const CHAOS_FLAG_USAGE = `  Delivery chaos (docs/delivery-chaos.md; rates are shares of deliveries, 0 to 1, default 0 = off):
  --chaos-duplicate <rate>      first attempt sent twice at once (two concurrent POSTs of the event)
  --chaos-reorder <rate>        held back until a later event of the hook has been sent
  --chaos-delay <rate>          first attempt late by --chaos-delay-ms
  --chaos-cut <rate>            connection destroyed once the request is sent: no answer, then a retry
  --chaos-slow <rate>           answer counted as later than the attempt's timeout: failed, then a retry
  --chaos-delay-ms <ms>         how late a delayed delivery is (default 1000)
  --chaos-hold-ms <ms>          longest hold of a reordered delivery (default 2000)
  --chaos-seed <n>              chooses the deliveries; the same seed and events choose the same (default random)`;

/** The chaos settings the flags name; throws (naming the flag) when one is not a valid value. */
export function chaosFromFlags(values: Partial<Record<ChaosFlag, string>>): Partial<DeliveryChaos> | undefined {
	const settings: Partial<DeliveryChaos> = {};
	for (const [flag, name] of Object.entries(FLAGS) as [ChaosFlag, keyof DeliveryChaos][]) {
		const value = values[flag];
		if (value === undefined) continue;
		const parsed = value.trim() === '' ? NaN : Number(value);
		const problem = chaosSettingProblem(name, parsed);
		if (problem) throw new Error(`--${flag} ${problem}, got "${value}"`);
		settings[name] = parsed;
	}
	return Object.keys(settings).length > 0 ? settings : undefined;
}
