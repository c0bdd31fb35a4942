import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, WAIT_INDEFINITELY } from 'n8n-workflow';
import { isCalendarDay } from '../../common/params';
import { typedAnswer } from './answerLength';
import type { DecisionRule } from './decision';

/**
 * One question of Send and Wait for Response: what was asked, of whom, which answers count and
 * until when. The node keeps it with the waiting execution (see binding.ts); the
 * answer pages and the webhook read it back, so every rule below is checked against the question
 * that is actually waiting, not against what a link claims.
 */
export type ResponseType = 'approval' | 'choice' | 'freeText' | 'customForm';

export interface ButtonAnswer {
	label: string;
	/** Approval only: whether this button approves. */
	approved?: boolean;
}

export type FormFieldType = 'text' | 'number' | 'dropdown' | 'date';

export interface FormField {
	label: string;
	type: FormFieldType;
	required: boolean;
	/** Dropdown only: the choices, in order. */
	options?: string[];
}

export interface Subscriber {
	botId: string;
	clientId: string;
	/** The messenger of the subscriber's card. */
	messenger?: string;
}

/** A reminder or the escalation of a waiting question, sent by the follow-ups' sub-execution (followUps.ts). */
export interface FollowUpStep {
	kind: 'reminder' | 'escalation';
	/** When the step is due, in ms since the epoch. */
	dueAt: number;
	text: string;
	/** The indices in the question's subscribers of those the step writes to. */
	to: number[];
}

export interface Question {
	/** Random per wait: a link answers only the question whose id it carries. */
	id: string;
	/** Random per wait: the key of the confirm tokens of this question's pages. */
	tokenKey: string;
	responseType: ResponseType;
	message: string;
	/** Approval and Choice: one link button per answer. */
	answers: ButtonAnswer[];
	/** Custom Form: its fields. */
	fields: FormField[];
	/** Free Text and Custom Form: the text of the one button that opens the page. */
	respondLabel: string;
	/** End of the wait in ms since the epoch, or null without a time limit. */
	until: number | null;
	/** Origin of the answer links, the only origin a confirmation may be posted from. */
	origin: string;
	/** The subscriber asked; with several asked, the first of them. */
	subscriber: Subscriber;
	/**
	 * Several subscribers asked (Ask: a list or a tag), each with links of their own that carry their index here; the
	 * first answer through any of them decides. Absent when one subscriber is asked.
	 */
	subscribers?: Subscriber[];
	/**
	 * Several subscribers asked: the rule by which more than one answer decides, the answers kept in an n8n data table
	 * (answerStore.ts) until it is met. Absent: the first answer decides.
	 */
	decision?: DecisionRule;
	/** Options → Escalate: the indices in `subscribers` of those asked only when the escalation is due. */
	escalated?: number[];
	/** Reminders and escalation: their sub-execution and steps (followUps.ts). */
	followUps?: { execution: string; steps: FollowUpStep[] };
	/** Approval with a time limit: what the deadline decides (absent: nothing, the output says it timed out). */
	onTimeOut?: 'approve' | 'decline';
	/**
	 * Free Text and Custom Form: the most characters the answer text (or any one field) may have. Absent in
	 * questions kept before the limit existed: they get the default.
	 */
	maxAnswerLength?: number;
	/** Approval and Choice: the confirm page also takes an optional comment (at most maxAnswerLength characters). */
	comment?: boolean;
}

/**
 * The default of "Max Answer Length": a long letter. A page refuses more, showing the text again to shorten (unless it
 * is far longer, see answerLength.ts).
 */
export const DEFAULT_MAX_ANSWER_LENGTH = 10_000;

/** The length limit of a question's answers. */
export const maxAnswerLengthOf = (question: Pick<Question, 'maxAnswerLength'>) =>
	question.maxAnswerLength ?? DEFAULT_MAX_ANSWER_LENGTH;

/** Everyone the question goes to, in link-index order: the subscriber asked, or the several asked. */
export const subscribersOf = (question: Pick<Question, 'subscriber' | 'subscribers'>) =>
	question.subscribers ?? [question.subscriber];

export const RESPONSE_TYPES: ResponseType[] = ['approval', 'choice', 'freeText', 'customForm'];

/** Approval and Choice answer with a tap on one of several links; the others on a page with a form. */
export const answersByButton = (responseType: ResponseType) => responseType === 'approval' || responseType === 'choice';

/** The units of the node's time amounts (Limit Wait Time, Remind, Escalate). */
export const UNIT_MS: Record<string, number> = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 };

function fail(context: IExecuteFunctions, message: string, description?: string): never {
	throw new NodeOperationError(context.getNode(), message, description ? { description } : {});
}

export function responseTypeOf(this: IExecuteFunctions): ResponseType {
	const value = this.getNodeParameter('responseType', 0) as string;
	if (!(RESPONSE_TYPES as string[]).includes(value)) {
		fail(this, `The field "Response Type" must be one of ${RESPONSE_TYPES.join(', ')}, not "${value}"`);
	}
	return value as ResponseType;
}

/** The answers offered by Approval and Choice, in button order. */
export function buttonAnswersOf(this: IExecuteFunctions, responseType: ResponseType): ButtonAnswer[] {
	if (responseType === 'choice') {
		const collection = this.getNodeParameter('choices', 0, {}) as { values?: Array<{ label?: unknown }> };
		const labels = (collection.values ?? []).map((choice) => String(choice.label ?? '').trim());
		if (labels.length === 0 || labels.some((label) => label === '')) {
			fail(
				this,
				'Every answer in "Answers" needs a text',
				'Add at least one answer and give each a text: it is the text of its button.',
			);
		}
		if (new Set(labels).size !== labels.length) {
			fail(
				this,
				'Two answers in "Answers" have the same text',
				'The workflow receives the text of the button tapped, so each answer needs its own.',
			);
		}
		return labels.map((label) => ({ label }));
	}
	const options = this.getNodeParameter('approvalOptions.values', 0, {}) as IDataObject;
	const approve = String(options.approveLabel ?? 'Approve').trim() || 'Approve';
	if (options.approvalType === 'single') return [{ label: approve, approved: true }];
	const decline = String(options.disapproveLabel ?? 'Decline').trim() || 'Decline';
	if (decline === approve) {
		fail(
			this,
			'The approve and decline buttons have the same text',
			'Give "Approve Button Text" and "Decline Button Text" different texts.',
		);
	}
	return [
		{ label: approve, approved: true },
		{ label: decline, approved: false },
	];
}

const FIELD_TYPES: FormFieldType[] = ['text', 'number', 'dropdown', 'date'];

/** The fields of a Custom Form, checked: each has a label of its own, dropdowns have choices. */
export function formFieldsOf(this: IExecuteFunctions): FormField[] {
	const collection = this.getNodeParameter('formFields', 0, {}) as {
		values?: Array<{
			fieldLabel?: unknown;
			fieldType?: unknown;
			requiredField?: unknown;
			fieldOptions?: { values?: Array<{ option?: unknown }> };
		}>;
	};
	const fields = (collection.values ?? []).map((raw, index): FormField => {
		const label = String(raw.fieldLabel ?? '').trim();
		if (!label)
			fail(
				this,
				`Field ${index + 1} of "Form Fields" needs a label`,
				'The label is shown above the field and names the value in the output.',
			);
		const type = String(raw.fieldType ?? 'text') as FormFieldType;
		if (!FIELD_TYPES.includes(type)) fail(this, `The field "${label}" of "Form Fields" has an unknown type "${type}"`);
		const field: FormField = { label, type, required: raw.requiredField === true };
		if (type === 'dropdown') {
			const options = (raw.fieldOptions?.values ?? [])
				.map((entry) => String(entry.option ?? '').trim())
				.filter(Boolean);
			if (options.length === 0) fail(this, `The dropdown "${label}" of "Form Fields" has no options`);
			if (new Set(options).size !== options.length)
				fail(this, `The dropdown "${label}" of "Form Fields" has the same option twice`);
			field.options = options;
		}
		return field;
	});
	if (fields.length === 0) fail(this, 'A Custom Form needs at least one field in "Form Fields"');
	if (new Set(fields.map((field) => field.label)).size !== fields.length) {
		fail(
			this,
			'Two fields in "Form Fields" have the same label',
			'The output names each value by its label, so each field needs its own.',
		);
	}
	return fields;
}

/** The "Max Answer Length" option: a whole number of characters, at least 1. */
export function maxAnswerLengthParameter(this: IExecuteFunctions): number {
	const value = this.getNodeParameter('options.maxAnswerLength', 0, DEFAULT_MAX_ANSWER_LENGTH) as unknown;
	const limit = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) {
		fail(
			this,
			`The "Max Answer Length" option must be a whole number of characters, at least 1 (got ${JSON.stringify(value)})`,
		);
	}
	return limit;
}

/** When the wait ends without an answer: the time limit, or never (n8n's "indefinitely"). */
export function waitLimitOf(this: IExecuteFunctions): Date {
	const limit = this.getNodeParameter('options.limitWaitTime.values', 0, {}) as IDataObject;
	if (!Object.keys(limit).length) return WAIT_INDEFINITELY;
	let until: Date;
	if (limit.limitType === 'atSpecifiedTime') {
		until = new Date(String(limit.maxDateAndTime ?? ''));
	} else {
		const amount = Number(limit.resumeAmount ?? 1);
		// An expression can give 0 or less: the links would be expired when they arrive.
		if (amount <= 0)
			fail(
				this,
				`The "Amount" of "Limit Wait Time" must be more than 0 (got ${amount})`,
				'Nobody could answer links that expire as they are sent.',
			);
		const unit = UNIT_MS[String(limit.resumeUnit ?? 'hours')];
		until = new Date(Date.now() + amount * (unit ?? NaN));
	}
	if (Number.isNaN(until.getTime())) {
		fail(
			this,
			'The "Limit Wait Time" option does not give a valid time',
			'Give an amount and a unit, or a date and time.',
		);
	}
	if (limit.limitType === 'atSpecifiedTime' && until.getTime() <= Date.now()) {
		fail(this, `The "Max Date and Time" of "Limit Wait Time" is in the past (${until.toISOString()})`);
	}
	return until;
}

export type FormValues = Record<string, string | number | null>;

/** One answered field of a Custom Form, as the output lists it in `fields`. */
export interface FieldAnswer {
	label: string;
	value: string | number | null;
}

/**
 * A field's label is only a label: `toString` or `valueOf` are fields like any other (`__proto__`, `constructor` and
 * `prototype`, which n8n drops from items, reach the next node only in the `fields` list). So what
 * is looked up by label (errors, what was typed) is kept in Maps, which inherit nothing; the values, which
 * go out as JSON, are an object whose every label is an own property (Object.fromEntries defines them, so
 * `__proto__` is a key, not the prototype), and are only ever read by iterating them.
 */
export interface FormCheck {
	/** The values by field label, typed: numbers as numbers, empty optional fields as null. */
	values: FormValues;
	/** The same values as a list in the form's field order: what survives n8n's copying of items. */
	fieldAnswers: FieldAnswer[];
	/** Problems by field label; empty when the form can be accepted. */
	errors: ReadonlyMap<string, string>;
	/** What was typed, by field label, to fill the form again when it is shown with errors. */
	entered: ReadonlyMap<string, string>;
	/** The errors of fields too long to be an answer (also told on a page asked again for another reason). */
	tooLong: ReadonlyMap<string, string>;
}

/** The submitted value of each field (the form names its inputs f0, f1, … in field order). */
export const formInputName = (index: number) => `f${index}`;

/** A number as a browser's number input writes it: digits, an optional fraction and exponent. */
const DECIMAL = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/**
 * The decimal value a number text stands for, in one spelling (`-1234e-2` for "-12.340"), or
 * undefined when it is not a number as a browser writes it (hexadecimal, `Infinity`, …).
 */
function decimalValue(text: string): string | undefined {
	const parts = DECIMAL.exec(text);
	if (!parts || (parts[2] === '' && !parts[3])) return undefined;
	const [, sign, whole, fraction = '', exponent = '0'] = parts;
	const digits = `${whole}${fraction}`.replace(/^0+/, '');
	const significant = digits.replace(/0+$/, '');
	if (significant === '') return '0';
	return `${sign}${significant}e${Number(exponent) - fraction.length + digits.length - significant.length}`;
}

/**
 * The number a field's text stands for, or why it cannot be one. A number that JavaScript would
 * round (an order or account number of 17 digits, say) is refused rather than changed silently.
 */
function numberOf(text: string): { number: number } | { problem: string } {
	const exact = decimalValue(text);
	if (exact === undefined) return { problem: 'Enter a number.' };
	const number = Number(text);
	if (!Number.isFinite(number)) return { problem: 'This number is too large: enter a number below 1e308 (in size).' };
	if (decimalValue(String(number)) !== exact) {
		// Up to 15 significant digits always survive, unless the number is too close to zero (1e-400 becomes 0).
		const significantDigits = exact.replace(/^-/, '').split('e')[0].length;
		return significantDigits > 15
			? { problem: 'This number has too many digits to be kept exactly: enter at most 15 significant digits.' }
			: {
					problem:
						'This number is too close to zero to be kept exactly: enter 0 or a number of at least 1e-300 (in size).',
				};
	}
	return { number };
}

/** Checks a submitted Custom Form against the question's fields, as a browser form would be. */
export function checkForm(fields: FormField[], body: IDataObject, maxLength = DEFAULT_MAX_ANSWER_LENGTH): FormCheck {
	const values = new Map<string, string | number | null>();
	const errors = new Map<string, string>();
	const entered = new Map<string, string>();
	const tooLongFields = new Map<string, string>();
	fields.forEach((field, index) => {
		const { text, tooLong } = typedAnswer(body[formInputName(index)], maxLength);
		entered.set(field.label, text);
		if (tooLong) {
			errors.set(field.label, tooLong);
			tooLongFields.set(field.label, tooLong);
			values.set(field.label, text);
			return;
		}
		if (text === '') {
			if (field.required) errors.set(field.label, 'This field is required.');
			values.set(field.label, null);
			return;
		}
		if (field.type === 'number') {
			const checked = numberOf(text);
			if ('problem' in checked) errors.set(field.label, checked.problem);
			values.set(field.label, 'number' in checked ? checked.number : text);
		} else if (field.type === 'date') {
			if (!isCalendarDay(text)) errors.set(field.label, 'Enter a date (YYYY-MM-DD).');
			values.set(field.label, text);
		} else if (field.type === 'dropdown') {
			// The page's options post their index (see pages.ts).
			const chosen = /^\d+$/.test(text) ? field.options?.[Number(text)] : undefined;
			if (chosen === undefined) errors.set(field.label, 'Choose one of the options.');
			values.set(field.label, chosen ?? text);
		} else {
			values.set(field.label, text);
		}
	});
	return {
		values: Object.fromEntries(values),
		fieldAnswers: [...values].map(([label, value]) => ({ label, value })),
		errors,
		entered,
		tooLong: tooLongFields,
	};
}

/** Name of the text box of a Free Text page. */
export const FREE_TEXT_INPUT = 'text';
/** The name of the comment box on the confirm page of an Approval or Choice question that asks for one. */
export const COMMENT_INPUT = 'comment';
