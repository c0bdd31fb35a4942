import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import {
	heldBackNote,
	refusalStatus,
	UnverifiedHintGate,
	verifyDelivery,
	type DeliveryEvent,
	type Verdict,
} from './delivery';
import { ALL_EVENTS, botOfEvent, isKnownEventKind } from './events';
import { accepted, duplicate, ignored, refused } from './answers';
import { readHookState } from './hookState';
import { alreadyAccepted } from './seenEvents';
import { RESPOND_WHEN_FINISHED } from './description';
import type { TriggerOptions } from './emit';

function refuse(context: IWebhookFunctions, status: number, code: string, error: string): IWebhookResponseData {
	context.getResponseObject().status(status).json(refused(code, error));
	return { noWebhookResponse: true };
}

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
	const bots = (Array.isArray(chosen) ? chosen.map(String) : String(chosen).split(','))
		.map((id) => id.trim())
		.filter(Boolean);
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
		context.logger.warn(`Messenger Bot Builder Trigger refused a delivery (${code}): ${reason}. ${diagnostic}`, {
			code,
		});
		return;
	}
	const heldBack = unverifiedHints.pass();
	if (heldBack === undefined) {
		context.logger.debug(
			`Messenger Bot Builder Trigger refused a delivery: ${reason} (an unverified hint held back: at most one a minute)`,
			{ code },
		);
		return;
	}
	context.logger.warn(
		`Messenger Bot Builder Trigger refused a delivery (${code}): ${reason}. ${diagnostic}${heldBackNote(heldBack)}`,
		{
			code,
			unverified: true,
		},
	);
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
		{
			headers: this.getHeaderData() as Record<string, string | string[] | undefined>,
			rawBody: (await rawBodyOf(this)) ?? Buffer.alloc(0),
		},
		{
			secrets: state.secret ? [state.secret] : undefined,
			publicKeys: state.publicKey ? [state.publicKey] : undefined,
			audience: [state.hookId],
		},
	);
	if (!verdict.ok) {
		logRefusal(this, verdict);
		return refuse(this, refusalStatus(verdict.code), verdict.code, verdict.reason);
	}
	const { event } = verdict;
	// The fast path: a repeat of an event whose execution already ran the repeat check in this process (emit.ts
	// records it there, not here: n8n may still fail to create the execution after this call, answer 500, and the
	// sender's retry must then start it) starts nothing. Any other repeat starts an execution, and the trigger's
	// execute() finds the event in n8n's shared store.
	// Not when the answer waits for the workflow: an execution that failed after its check must not keep the service's
	// retry from running the event again.
	const options = this.getNodeParameter('options', {}) as TriggerOptions;
	if (options.respondWhen !== RESPOND_WHEN_FINISHED && alreadyAccepted(state.hookId, event.id))
		return { webhookResponse: duplicate(event.id) };
	const skip = skipReason(this, event, options);
	if (skip) return { webhookResponse: ignored(event.id, skip) };
	// The whole verified event goes to the execution: execute() checks its id and shapes the output.
	return { workflowData: [[{ json: event as unknown as IDataObject }]], webhookResponse: accepted(event.id) };
}
