import fc from 'fast-check';
import {
	eventProblem,
	isEventType,
	isKnownEventType,
	KNOWN_EVENT_TYPES,
	type DeliveryEvent,
} from '../../nodes/shared/delivery';

/** The checks of an event's shape: each kind's fields, date-times that name a moment, and the kinds this version knows. */

describe('event shapes', () => {
	const subscriber = { botid: 1, clientid: 'c1', messenger: 'telegram' };
	const envelope = {
		id: 'evt_1',
		type: 'subscriber.new',
		created: '2027-01-15T08:00:00Z',
		hook: 'hook_1',
		data: { subscriber },
	};
	const payment = {
		id: 7,
		amount: '9.90',
		currency: 'EUR',
		botid: 1,
		clientid: 2,
		messenger: 'whatsapp',
		paid_at: '2027-01-15T08:00:00Z',
	};
	const withData = (type: string, data: unknown) => ({ ...envelope, type, data });
	const withSubscriber = (fields: Record<string, unknown>) =>
		withData('subscriber.new', { subscriber: { ...subscriber, ...fields } });

	it('valid events of each kind, and of a kind this version does not know, have no problem', () => {
		expect(eventProblem(envelope)).toBeUndefined();
		// A surrogate pair is one character (U+1F600), not a lone surrogate.
		expect(eventProblem({ ...envelope, id: 'evt_\ud83d\ude00' })).toBeUndefined();
		expect(eventProblem(withData('subscriber.stage', { subscriber, stage: 'Paid', previous: null }))).toBeUndefined();
		expect(eventProblem(withData('subscriber.stage', { subscriber, stage: 'Paid', previous: 'Lead' }))).toBeUndefined();
		expect(eventProblem(withData('payment.success', { payment }))).toBeUndefined();
		expect(
			eventProblem(withData('payment.success', { payment: { ...payment, amount: 9.9, description: null } })),
		).toBeUndefined();
		expect(eventProblem(withData('order.created', { anything: [1] }))).toBeUndefined();
		expect(
			eventProblem(
				withSubscriber({
					name: null,
					username: 'u',
					note: undefined,
					tags: ['a', 'b'],
					active: true,
					blocked: false,
					dialog: true,
					id: 3,
					subscribed: '2027-01-15T08:00:00Z',
					stage: null,
					variables: { chain: { x: 1 } },
				}),
			),
		).toBeUndefined();
		for (const created of ['2027-01-15T08:00Z', '2027-01-15T08:00:00.123+02:00', '2027-01-15T08:00:00-05:30']) {
			expect(eventProblem({ ...envelope, created })).toBeUndefined();
		}
	});

	it.each([
		['a list', [envelope], '(body)'],
		['null', null, '(body)'],
		['a string', 'evt', '(body)'],
		['an empty id', { ...envelope, id: '' }, 'id'],
		['a numeric id', { ...envelope, id: 5 }, 'id'],
		['an id with a lone high surrogate', { ...envelope, id: 'evt_\ud800' }, 'id'],
		['an id with a lone low surrogate', { ...envelope, id: 'evt_\udc00x' }, 'id'],
		['no type', { ...envelope, type: undefined }, 'type'],
		['an empty type', { ...envelope, type: '' }, 'type'],
		['a date without time', { ...envelope, created: '2027-01-15' }, 'created'],
		['a date without offset', { ...envelope, created: '2027-01-15T08:00:00' }, 'created'],
		['a month 13', { ...envelope, created: '2027-13-15T08:00:00Z' }, 'created'],
		['text around a date', { ...envelope, created: 'x2027-01-15T08:00:00Z' }, 'created'],
		['a date followed by text', { ...envelope, created: '2027-01-15T08:00:00Zx' }, 'created'],
		['a numeric date', { ...envelope, created: 1800000000 }, 'created'],
		['an empty hook', { ...envelope, hook: '' }, 'hook'],
		['data a list', { ...envelope, data: [] }, 'data'],
		['data null', { ...envelope, data: null }, 'data'],
		['no subscriber', withData('subscriber.new', {}), 'data.subscriber'],
		['an empty botid', withSubscriber({ botid: '' }), 'data.subscriber.botid'],
		['an infinite clientid', withSubscriber({ clientid: Infinity }), 'data.subscriber.clientid'],
		['a boolean botid', withSubscriber({ botid: true }), 'data.subscriber.botid'],
		['a numeric messenger', withSubscriber({ messenger: 1 }), 'data.subscriber.messenger'],
		['a numeric name', withSubscriber({ name: 1 }), 'data.subscriber.name'],
		['a numeric username', withSubscriber({ username: 1 }), 'data.subscriber.username'],
		['a numeric note', withSubscriber({ note: 1 }), 'data.subscriber.note'],
		['tags with a number', withSubscriber({ tags: ['a', 1] }), 'data.subscriber.tags'],
		['tags a string', withSubscriber({ tags: 'a' }), 'data.subscriber.tags'],
		['tags null', withSubscriber({ tags: null }), 'data.subscriber.tags'],
		['active a string', withSubscriber({ active: 'yes' }), 'data.subscriber.active'],
		['blocked a number', withSubscriber({ blocked: 0 }), 'data.subscriber.blocked'],
		['dialog null', withSubscriber({ dialog: null }), 'data.subscriber.dialog'],
		['a text card id', withSubscriber({ id: '3' }), 'data.subscriber.id'],
		['a NaN card id', withSubscriber({ id: NaN }), 'data.subscriber.id'],
		['a numeric subscription time', withSubscriber({ subscribed: 1 }), 'data.subscriber.subscribed'],
		['a numeric stage', withSubscriber({ stage: 1 }), 'data.subscriber.stage'],
		['variables a list', withSubscriber({ variables: [] }), 'data.subscriber.variables'],
		['a stage event without stage', withData('subscriber.stage', { subscriber, previous: null }), 'data.stage'],
		['a stage event without previous', withData('subscriber.stage', { subscriber, stage: 'Paid' }), 'data.previous'],
		[
			'a stage event with a numeric previous',
			withData('subscriber.stage', { subscriber, stage: 'Paid', previous: 1 }),
			'data.previous',
		],
		[
			'an amount that is neither number nor text',
			withData('payment.success', { payment: { ...payment, amount: null } }),
			'data.payment.amount',
		],
		[
			'a payment without currency',
			withData('payment.success', { payment: { ...payment, currency: undefined } }),
			'data.payment.currency',
		],
		[
			'a numeric description',
			withData('payment.success', { payment: { ...payment, description: 1 } }),
			'data.payment.description',
		],
		[
			'a payment without paid_at',
			withData('payment.success', { payment: { ...payment, paid_at: undefined } }),
			'data.payment.paid_at',
		],
		['a payment with an empty id', withData('payment.success', { payment: { ...payment, id: '' } }), 'data.payment.id'],
		[
			'a payment with a numeric messenger',
			withData('payment.success', { payment: { ...payment, messenger: 5 } }),
			'data.payment.messenger',
		],
		// Fields no other case refuses: the payment's own botid and clientid, a payment that is not an object, the card
		// of a stage event.
		[
			'a payment with an empty botid',
			withData('payment.success', { payment: { ...payment, botid: '' } }),
			'data.payment.botid',
		],
		[
			'a payment with a boolean clientid',
			withData('payment.success', { payment: { ...payment, clientid: true } }),
			'data.payment.clientid',
		],
		['a payment that is null', withData('payment.success', { payment: null }), 'data.payment'],
		['a payment that is text', withData('payment.success', { payment: 'pay_1' }), 'data.payment'],
		['a payment that is a list', withData('payment.success', { payment: [payment] }), 'data.payment'],
		[
			'a stage event without subscriber',
			withData('subscriber.stage', { stage: 'Paid', previous: null }),
			'data.subscriber',
		],
		[
			'a stage event whose card has an empty clientid',
			withData('subscriber.stage', { subscriber: { ...subscriber, clientid: '' }, stage: 'Paid', previous: null }),
			'data.subscriber.clientid',
		],
	])('%s is refused at its field', (_name, body, problem) => {
		expect(eventProblem(body)).toBe(problem);
	});

	it('takes a date-time only when it names a moment: a day its month has, 24:00 only exactly, offsets under 24 h', () => {
		const accepted = (created: string) => eventProblem({ ...envelope, created }) === undefined;
		const moments = [
			'2028-02-29T00:00Z',
			'2000-02-29T12:00Z',
			'2027-04-30T23:59:59Z',
			'2027-12-31T24:00Z',
			'2027-12-31T24:00:00.000Z',
		];
		const notMoments = [
			'2027-02-29T00:00Z',
			'2100-02-29T00:00Z',
			'2027-04-31T00:00Z',
			'2027-01-00T00:00Z',
			'2027-00-10T00:00Z',
		];
		const notTimes = [
			'2027-01-15T24:00:01Z',
			'2027-01-15T24:01Z',
			'2027-01-15T24:00:00.001Z',
			'2027-01-15T23:60Z',
			'2027-01-15T23:59:60Z',
		];
		const offsets = [
			'2027-01-15T08:00+24:00',
			'2027-01-15T08:00-23:60',
			'2027-01-15T08:00+23:59',
			'2027-01-15T08:00:00.5-00:00',
		];
		expect([...moments, ...notMoments, ...notTimes, ...offsets].map(accepted)).toEqual([
			...[true, true, true, true, true],
			...[false, false, false, false, false],
			...[false, false, false, false, false],
			...[false, false, true, true],
		]);
	});

	it('agrees with Date.parse on every date-time of the pattern, but for days a month does not have', () => {
		const two = (n: number) => String(n).padStart(2, '0');
		const dateTime = fc
			.record({
				year: fc.constantFrom(0, 1900, 2000, 2027, 2028, 2100, 2400, 9999),
				month: fc.integer({ min: 0, max: 14 }),
				day: fc.integer({ min: 0, max: 33 }),
				hour: fc.integer({ min: 0, max: 25 }),
				minute: fc.integer({ min: 0, max: 61 }),
				second: fc.option(fc.integer({ min: 0, max: 61 })),
				fraction: fc.option(fc.stringMatching(/^[0-9]{1,5}$/)),
				offset: fc.option(
					fc.record({
						sign: fc.constantFrom('+', '-'),
						hours: fc.integer({ min: 0, max: 25 }),
						minutes: fc.integer({ min: 0, max: 61 }),
					}),
				),
			})
			.map(({ year, month, day, hour, minute, second, fraction, offset }) => ({
				text:
					`${String(year).padStart(4, '0')}-${two(month)}-${two(day)}T${two(hour)}:${two(minute)}` +
					(second === null ? '' : `:${two(second)}${fraction === null ? '' : `.${fraction}`}`) +
					(offset === null ? 'Z' : `${offset.sign}${two(offset.hours)}:${two(offset.minutes)}`),
				year,
				month,
				day,
			}));
		// Whether the month has the day, by the calendar of Date.UTC (which rolls a day the month lacks into the next).
		const monthHasDay = (year: number, month: number, day: number) => {
			const date = new Date(0);
			date.setUTCFullYear(year, month - 1, day);
			return month >= 1 && month <= 12 && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
		};
		fc.assert(
			fc.property(dateTime, ({ text, year, month, day }) => {
				const accepted = eventProblem({ ...envelope, created: text }) === undefined;
				expect(accepted).toBe(!Number.isNaN(Date.parse(text)) && monthHasDay(year, month, day));
			}),
			{ numRuns: 3000 },
		);
	});

	it('refuses every text off the date-time pattern: edits of a date-time are accepted only when the pattern still matches', () => {
		// The pattern as ISO 8601 writes it, the oracle for the check read by position.
		const PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
		const bases = [
			'2027-01-15T08:00Z',
			'2027-01-15T08:00:59Z',
			'2027-01-15T08:00:59.123Z',
			'2027-01-15T08:00+02:00',
			'2027-01-15T08:00:00.5-05:30',
		];
		const edit = fc.record({
			base: fc.constantFrom(...bases),
			at: fc.nat(),
			kind: fc.constantFrom('replace', 'insert', 'delete'),
			character: fc.constantFrom(...'0123456789-T:.Z+ x\u0660'),
		});
		let offPattern = 0;
		fc.assert(
			fc.property(edit, ({ base, at, kind, character }) => {
				const i = at % (base.length + 1);
				const text =
					kind === 'delete'
						? base.slice(0, i) + base.slice(i + 1)
						: kind === 'insert'
							? base.slice(0, i) + character + base.slice(i)
							: base.slice(0, i) + character + base.slice(i + 1);
				const accepted = eventProblem({ ...envelope, created: text }) === undefined;
				if (!PATTERN.test(text)) {
					offPattern += 1;
					expect({ text, accepted }).toEqual({ text, accepted: false });
				}
			}),
			{ numRuns: 4000 },
		);
		expect(offPattern).toBeGreaterThan(1000);
	});

	it('names the kinds it knows, and nothing inherited', () => {
		expect(KNOWN_EVENT_TYPES).toEqual(['subscriber.new', 'subscriber.stage', 'payment.success']);
		expect(KNOWN_EVENT_TYPES.map(isKnownEventType)).toEqual([true, true, true]);
		expect(['toString', 'constructor', '__proto__', 'order.created'].map(isKnownEventType)).toEqual([
			false,
			false,
			false,
			false,
		]);
		expect(eventProblem(withData('toString', { x: 1 }))).toBeUndefined();
		const event = envelope as DeliveryEvent;
		expect([isEventType(event, 'subscriber.new'), isEventType(event, 'payment.success')]).toEqual([true, false]);
	});
});
