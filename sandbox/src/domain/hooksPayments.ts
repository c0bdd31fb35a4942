import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock';
import { invalidParam, missingParam, notFound } from '../http/errors';
import type { Params } from '../http/params';
import type { Store } from '../store/store';
import { findBot } from './directory';

/** A simulated payment by a subscriber; announced to hooks as `payment.success`. */
export interface Payment {
	id: string;
	amount: number;
	currency: string;
	botid: string;
	clientid: string;
	messenger: string;
	description: string | null;
	paid_at: string;
}

interface PaymentsState {
	/** [record number, payment], oldest first. */
	payments: [number, Payment][];
}

/** Payments kept; older ones are dropped first (their events were already delivered or queued). */
const PAYMENTS_CAPACITY = 10000;
const MAX_DESCRIPTION_LENGTH = 1000;

export function paymentsState(store: Store): PaymentsState {
	return store.working<PaymentsState>('payments', () => {
		const payments = store
			.records<Payment>('payment')
			.map(([key, payment]): [number, Payment] => [Number(key), payment]);
		for (const [number] of payments) store.reserveIds('payments', number);
		return { payments };
	});
}

/** Validates every field of POST /sandbox/payments before anything is recorded. */
export function readPayment(params: Params, store: Store, clock: Clock): Payment {
	const botid = params.requiredString('botid');
	const bot = findBot(store, botid);
	if (!bot) throw notFound(`Bot ${botid}`, 'botid');
	const clientid = params.requiredString('clientid');
	const messenger = params.requiredString('messenger');
	if (messenger !== bot.messenger) throw invalidParam('messenger', `must be the bot's messenger "${bot.messenger}"`);
	const amount = params.number('amount');
	if (amount === undefined) throw missingParam('amount');
	if (amount <= 0) throw invalidParam('amount', 'must be a positive number');
	const currency = params.requiredString('currency');
	if (!/^[A-Za-z]{3}$/.test(currency))
		throw invalidParam('currency', 'must be a three-letter ISO 4217 code such as USD');
	const description = params.string('description') ?? null;
	if (description !== null && description.length > MAX_DESCRIPTION_LENGTH) {
		throw invalidParam('description', `must be at most ${MAX_DESCRIPTION_LENGTH} characters`);
	}
	return {
		id: `pay_${randomBytes(8).toString('hex')}`,
		amount,
		currency: currency.toUpperCase(),
		botid,
		clientid,
		messenger,
		description,
		paid_at: clock.iso(),
	};
}

export function recordPayment(store: Store, payment: Payment): void {
	const state = paymentsState(store);
	const number = store.nextId('payments');
	state.payments.push([number, payment]);
	store.put('payment', number, payment);
	if (state.payments.length > PAYMENTS_CAPACITY) {
		state.payments.splice(0, state.payments.length - PAYMENTS_CAPACITY);
		store.removeBelow('payment', state.payments[0][0]);
	}
}
