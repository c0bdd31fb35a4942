import type { Router } from 'express';
import { modules } from './api';
import type { SandboxContext } from './api/endpoint';
import { dispatcherOf } from './api/hooks';
import { CHAOS_RATES, chaosSettingProblem, type DeliveryChaos } from './delivery/chaos';
import { deliveriesState, fullDeliveryView } from './delivery/deliveries';
import { ensureConfiguredSigningKey } from './delivery/signingKeys';
import { ensureAccountKey, keysState, type ApiKey } from './domain/keys';
import { seedDirectory } from './domain/seed';
import { invalidParam, notFound } from './http/errors';
import { paginate, type Params } from './http/params';
import { sandboxRoute } from './http/sandboxRoute';
import { setHookSecret } from './listen/hookSecret';

/** The account key and, when the sandbox seeds, the demo data: what a new data file starts with. */
export function seedState(context: SandboxContext, adminKey: string | undefined): ApiKey {
	const { store, clock, options } = context;
	const account = ensureAccountKey(store, adminKey, clock.iso());
	ensureConfiguredSigningKey(store, options.signingAlgorithm, clock.iso());
	if (options.seed) {
		seedDirectory(context);
		for (const module of modules) module.seed?.(context);
	}
	return account;
}

const SNAPSHOT_ID = /^snap_([1-9]\d{0,15})$/;

/**
 * Control of the whole state for tests and the console: reset, snapshots, the delivery history with
 * every attempt, and redelivery. The same functions serve the /sandbox routes and startSandbox's result.
 */
export function sandboxControl(context: SandboxContext) {
	const { store, clock } = context;
	return {
		/** Back to a new data file's state (demo data unless --no-seed): ids start over; the account key, snapshots and the API log of this call stay. */
		reset(): void {
			const accountKey = keysState(store).keys.find((key) => key.id === 'account')?.key;
			store.clear(() => seedState(context, accountKey));
		},
		/** Copies the whole state; returns the snapshot's id. */
		snapshot(): string {
			return `snap_${store.snapshot(clock.iso())}`;
		},
		/** Replaces the whole state by a snapshot's (clock offset included). */
		restore(snapshot: string): void {
			const match = SNAPSHOT_ID.exec(snapshot);
			if (!match || !store.restore(Number(match[1]))) throw notFound(`Snapshot ${snapshot}`, 'snapshot');
		},
		/** Hook deliveries, newest first, with every attempt. */
		deliveries(filter: { hook?: string; status?: string } = {}) {
			return deliveriesState(store)
				.deliveries.filter(
					(delivery) =>
						(filter.hook === undefined || delivery.hookId === filter.hook) &&
						(filter.status === undefined || delivery.status === filter.status),
				)
				.reverse()
				.map(fullDeliveryView);
		},
		/** The delivery chaos settings in force. */
		chaos(): DeliveryChaos {
			return { ...context.options.deliveryChaos };
		},
		/** Replaces the delivery chaos settings (unnamed ones take their defaults: off); the seed's draws start again. */
		setChaos(settings: Partial<DeliveryChaos>): DeliveryChaos {
			return { ...dispatcherOf(context).setChaos(settings) };
		},
		/** Sends a delivery again now (given-up ones included). */
		redeliver(id: string) {
			return fullDeliveryView(store.transaction(() => dispatcherOf(context).redeliver(id)));
		},
		/** Gives a hook the secret the caller chose (`listen`'s stable secret); answers nothing secret. */
		setHookSecret(id: string, secret: string): void {
			store.transaction(() => setHookSecret(store, id, secret));
		},
	};
}

export type SandboxControl = ReturnType<typeof sandboxControl>;

function requiredId(params: Params, name: string): string {
	const value = params.requiredString(name);
	if (value.length > 200) throw invalidParam(name, 'must be at most 200 characters');
	return value;
}

/** The chaos settings a POST /sandbox/chaos names; a refused value is named. */
function chaosParams(params: Params): Partial<DeliveryChaos> {
	const settings: Partial<DeliveryChaos> = {};
	for (const name of [...CHAOS_RATES, 'delayMs', 'holdMs', 'seed'] as const) {
		const value = params.number(name);
		if (value === undefined) continue;
		const problem = chaosSettingProblem(name, value);
		if (problem) throw invalidParam(name, problem);
		settings[name] = value;
	}
	return settings;
}

/** The control routes, account key only (see sandboxRoute). */
export function mountControl(app: Router, context: SandboxContext, control: SandboxControl): void {
	app.post(
		'/sandbox/reset',
		...sandboxRoute(context, () => {
			control.reset();
			return { ok: true };
		}),
	);
	app.post('/sandbox/snapshot', ...sandboxRoute(context, () => ({ snapshot: control.snapshot() })));
	app.post(
		'/sandbox/restore',
		...sandboxRoute(context, (params) => {
			const snapshot = requiredId(params, 'snapshot');
			control.restore(snapshot);
			return { ok: true, snapshot };
		}),
	);
	const listDeliveries = sandboxRoute(context, (params) => {
		const status = params.choice('status', ['pending', 'delivered', 'failed', 'cancelled'] as const);
		return paginate(control.deliveries({ hook: params.string('hook'), status }), params);
	});
	app.get('/sandbox/deliveries', ...listDeliveries);
	app.post('/sandbox/deliveries', ...listDeliveries);
	app.get('/sandbox/chaos', ...sandboxRoute(context, () => ({ chaos: control.chaos() })));
	app.post('/sandbox/chaos', ...sandboxRoute(context, (params) => ({ chaos: control.setChaos(chaosParams(params)) })));
	app.post(
		'/sandbox/deliveries/redeliver',
		...sandboxRoute(context, (params) => ({ delivery: control.redeliver(requiredId(params, 'id')) })),
	);
	app.post(
		'/sandbox/hooks/secret',
		...sandboxRoute(context, (params) => {
			const id = requiredId(params, 'id');
			control.setHookSecret(id, params.requiredString('secret'));
			return { ok: true, id };
		}),
	);
}
