import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { heldBackNote, refusalStatus, UnverifiedHintGate, verifyDelivery, type DeliveryEvent, type Verdict } from './delivery';
import { ALL_EVENTS, botOfEvent, EVENT_KINDS, isKnownEventKind, outputIndexOf } from './events';
import { OUTPUT_ENVELOPE } from './description';
import { readHookState } from './hookState';
import { alreadyAccepted, markAccepted } from './seenEvents';

interface TriggerOptions {
	output?: string;
	passUnknownEvents?: boolean;
	outputPerEvent?: boolean;
}

function refuse(context: IWebhookFunctions, status: number, code: string, error: string): IWebhookResponseData {
	context.getResponseObject().status(status).json({ code, error });
	return { noWebhookResponse: true };
}

/** A verified delivery that starts nothing still gets a 2xx, or the sender would retry it. */
const ignored = (reason: string): IWebhookResponseData => ({ webhookResponse: { ok: true, ignored: reason } });

/** n8n reads the body lazily; the signature covers the exact bytes, never a re-serialisation. */
async function rawBodyOf(context: IWebhookFunctions): Promise<Buffer | undefined> {
	const request = context.getRequestObject();
	if (!Buffer.isBuffer(request.rawBody) && typeof request.readRawBody === 'function') await request.readRawBody();
	return Buffer.isBuffer(request.rawBody) ? request.rawBody : undefined;
}

/** Why a verified event starts nothing, or undefined when it should start the workflow. */
function skipReason(context: IWebhookFunctions, event: DeliveryEvent, options: TriggerOptions): string | undefined {
	const events = context.getNodeParameter('events', [ALL_EVENTS]) as string[];
	if (!isKnownEventKind(event.type)) {
		if (!options.passUnknownEvents) return `event kind ${event.type} is not known to this trigger`;
	} else if (!events.includes(ALL_EVENTS) && !events.includes(event.type)) {
		return `event kind ${event.type} is not selected`;
	}
	const chosen = context.getNodeParameter('botIds', []) as string | Array<string | number>;
	// An expression may give one comma-separated string instead of a list.
	const bots = (Array.isArray(chosen) ? chosen.map(String) : String(chosen).split(',')).map((id) => id.trim()).filter(Boolean);
	const bot = botOfEvent(event.data);
	if (bots.length > 0 && (bot === undefined || !bots.includes(bot))) return 'the event is about another bot';
	return undefined;
}

/** Hints drawn from unverified requests (anyone can send those): at most one a minute in n8n's log, per n8n process. */
export const unverifiedHints = new UnverifiedHintGate();

/**
 * A diagnostic (clocks apart, a re-serialized body) is for whoever runs n8n: in the log, not in the answer. One drawn
 * from a request whose signature matched no key is marked so (its text begins "Unverified request") and rate-limited.
 */
function logRefusal(context: IWebhookFunctions, verdict: Extract<Verdict, { ok: false }>): void {
	const { code, reason, diagnostic } = verdict;
	if (diagnostic === undefined) {
		context.logger.debug(`Messenger Bot Builder Trigger refused a delivery: ${reason}`, { code });
		return;
	}
	if (!verdict.diagnosticUnverified) {
		context.logger.warn(`Messenger Bot Builder Trigger refused a delivery (${code}): ${reason}. ${diagnostic}`, { code });
		return;
	}
	const heldBack = unverifiedHints.pass();
	if (heldBack === undefined) {
		context.logger.debug(`Messenger Bot Builder Trigger refused a delivery: ${reason} (an unverified hint held back: at most one a minute)`, { code });
		return;
	}
	context.logger.warn(`Messenger Bot Builder Trigger refused a delivery (${code}): ${reason}. ${diagnostic}${heldBackNote(heldBack)}`, {
		code,
		unverified: true,
	});
}

/**
 * Handles one delivery: verify it with the hook's secret (or its `v1a` public key), answer 401 (starting nothing) when it is
 * not genuine, 2xx without a new execution when it repeats an accepted event or is filtered out,
 * and otherwise start the workflow with the event.
 */
export async function receiveDelivery(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const staticData = this.getWorkflowStaticData('node');
	const state = readHookState(staticData);
	if ((!state.secret && !state.publicKey) || !state.hookId) {
		return refuse(this, 401, 'key_not_found', 'This trigger has no registered hook; activate the workflow again');
	}
	const verdict = verifyDelivery(
		{ headers: this.getHeaderData() as Record<string, string | string[] | undefined>, rawBody: (await rawBodyOf(this)) ?? Buffer.alloc(0) },
		{ secrets: state.secret ? [state.secret] : undefined, publicKeys: state.publicKey ? [state.publicKey] : undefined, audience: [state.hookId] },
	);
	if (!verdict.ok) {
		logRefusal(this, verdict);
		return refuse(this, refusalStatus(verdict.code), verdict.code, verdict.reason);
	}
	const { event } = verdict;
	if (alreadyAccepted(state, event.id)) return ignored('duplicate');
	// Recorded as accepted only once its answer is built: a parameter that fails to read (an expression in
	// Bot Names or IDs, say) fails this delivery, and the sender's retry is handled again, not taken as a repeat.
	const answer = acceptedAnswer(this, event);
	markAccepted(state, event.id, Math.floor(Date.now() / 1000));
	return answer;
}

/** What a new genuine event starts: nothing (filtered out), or the workflow on its output. */
function acceptedAnswer(context: IWebhookFunctions, event: DeliveryEvent): IWebhookResponseData {
	const options = context.getNodeParameter('options', {}) as TriggerOptions;
	const skip = skipReason(context, event, options);
	if (skip) return ignored(skip);
	// An unknown kind always leaves as the whole event: its data alone would not say what happened.
	const json = (options.output === OUTPUT_ENVELOPE || !isKnownEventKind(event.type) ? event : (event.data ?? {})) as IDataObject;
	const items = context.helpers.returnJsonArray(json);
	if (!options.outputPerEvent) return { workflowData: [items] };
	const outputs = EVENT_KINDS.length + (options.passUnknownEvents ? 1 : 0);
	const workflowData = Array.from({ length: outputs }, () => [] as typeof items);
	workflowData[outputIndexOf(event.type)] = items;
	return { workflowData };
}
