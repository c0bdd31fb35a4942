import { generateHookSecret, type EventKind } from '@messenger-bot-builder/receiver';
import type { SandboxContext, SandboxModule } from './endpoint';
import { cancelHookDeliveries, deliveriesState, deliveryStats, deliveryView } from '../delivery/deliveries';
import { DeliveryDispatcher } from '../delivery/dispatcher';
import {
	createHookSigningKey,
	ensureConfiguredSigningKey,
	forgetHookSigningKey,
	publicJwks,
} from '../delivery/signingKeys';
import { findHook, hooksState, hookVisibleTo, newHookId, publicHook, type Hook } from '../domain/hooks';
import { readPayment, recordPayment } from '../domain/hooksPayments';
import { ApiError, notFound } from '../http/errors';
import { paginate, type Params } from '../http/params';
import { sandboxRoute } from '../http/sandboxRoute';

const dispatchers = new WeakMap<SandboxContext, DeliveryDispatcher>();

/** The running sandbox's delivery dispatcher (started with the hooks module). */
export function dispatcherOf(context: SandboxContext): DeliveryDispatcher {
	const dispatcher = dispatchers.get(context);
	if (!dispatcher) throw new ApiError(503, 'not_started', 'Hook deliveries are not running');
	return dispatcher;
}
/**
 * `url` and `events` as the request validation let them through (src/openapi/endpoints/hooks.ts states the rules: an
 * absolute http(s) URL without credentials, which deliveries would not send; known event kinds).
 */
function readHookUrl(params: Params): string {
	return params.requiredString('url');
}

function readEventKinds(params: Params): EventKind[] {
	return [...new Set(params.requiredStringList('events'))] as EventKind[];
}

function visibleHook(params: Params, hooks: Hook[], keyBots: string[]): Hook {
	const id = params.requiredString('id');
	const hook = hooks.find((candidate) => candidate.id === id);
	if (!hook) throw notFound(`Hook ${id}`, 'id');
	if (!hookVisibleTo(hook, keyBots))
		throw new ApiError(403, 'bot_forbidden', `The API key may not manage hook ${id}`, { param: 'id' });
	return hook;
}

/** Event subscriptions (hooks), signed deliveries with retries, the JWKS, simulated payments. */
export const hooksModule: SandboxModule = {
	name: 'hooks',
	endpoints: [
		{
			path: '/hook/create',
			methods: 'POST',
			scope: 'hooks:write',
			handle: ({ store, clock, params, key, options }) => {
				const name = params.requiredString('name');
				const url = readHookUrl(params);
				const events = readEventKinds(params);
				const hook: Hook = {
					id: newHookId(),
					name,
					url,
					events,
					created: clock.iso(),
					secret: generateHookSecret(),
					bots: [...key.bots],
					disabledAt: null,
					disabledReason: null,
				};
				hooksState(store).hooks.push(hook);
				// `--signing v1a`: the hook signs with its own Ed25519 key; the answer gives its public key instead of a secret.
				if (options.signingAlgorithm === 'v1a')
					return { hook: publicHook(hook), publicKey: createHookSigningKey(store, hook.id, clock.iso()) };
				return { hook: publicHook(hook), secret: hook.secret };
			},
		},
		{
			// Extension: not in the service's documented interface.
			path: '/hook/list',
			methods: 'GET or POST',
			scope: 'hooks:read',
			handle: ({ store, params, key }) => {
				const hooks = hooksState(store).hooks.filter((hook) => hookVisibleTo(hook, key.bots));
				const views = hooks.map((hook) => ({
					...publicHook(hook),
					disabled: hook.disabledAt !== null,
					disabledAt: hook.disabledAt,
					disabledReason: hook.disabledReason,
					deliveries: deliveryStats(store, hook.id),
				}));
				return paginate(views, params);
			},
		},
		{
			// Extension: not in the service's documented interface.
			path: '/hook/delete',
			methods: 'POST',
			scope: 'hooks:write',
			handle: ({ store, params, key }) => {
				const state = hooksState(store);
				const hook = visibleHook(params, state.hooks, key.bots);
				state.hooks = state.hooks.filter((candidate) => candidate !== hook);
				cancelHookDeliveries(store, hook.id, 'hook deleted');
				forgetHookSigningKey(store, hook.id);
				return { ok: true, id: hook.id };
			},
		},
		{
			// Extension: the delivery history (newest first), with every attempt.
			path: '/hook/deliveries',
			methods: 'GET or POST',
			scope: 'hooks:read',
			handle: ({ store, params, key }) => {
				const hookId = params.string('hook');
				if (hookId !== undefined) {
					const hook = findHook(store, hookId);
					if (!hook) throw notFound(`Hook ${hookId}`, 'hook');
					if (!hookVisibleTo(hook, key.bots))
						throw new ApiError(403, 'bot_forbidden', `The API key may not see hook ${hookId}`, { param: 'hook' });
				}
				const status = params.choice('status', ['pending', 'delivered', 'failed', 'cancelled'] as const);
				const event = params.string('event');
				const visible = new Set(
					hooksState(store)
						.hooks.filter((hook) => hookVisibleTo(hook, key.bots))
						.map((hook) => hook.id),
				);
				const deliveries = deliveriesState(store)
					.deliveries.filter(
						(delivery) =>
							(hookId === undefined
								? visible.has(delivery.hookId) || key.bots.length === 0
								: delivery.hookId === hookId) &&
							(status === undefined || delivery.status === status) &&
							(event === undefined || delivery.eventId === event),
					)
					.reverse()
					.map(deliveryView);
				return paginate(deliveries, params);
			},
		},
	],

	mount(app, context) {
		app.get('/.well-known/jwks.json', (_req, res) => {
			res.setHeader('cache-control', 'public, max-age=60');
			res.json(publicJwks(context.store));
		});
		app.post(
			'/sandbox/payments',
			...sandboxRoute(context, (params) => {
				const payment = readPayment(params, context.store, context.clock);
				recordPayment(context.store, payment);
				context.events.emit('payment.success', { payment: { ...payment } });
				return { payment };
			}),
		);
	},

	start(context) {
		context.store.transaction(() =>
			ensureConfiguredSigningKey(context.store, context.options.signingAlgorithm, context.clock.iso()),
		);
		const dispatcher = new DeliveryDispatcher(context);
		dispatchers.set(context, dispatcher);
		context.events.listen((type, data) => dispatcher.publish(type, data));
		dispatcher.resume();
		return () => dispatcher.stop();
	},
};
